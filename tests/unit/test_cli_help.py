"""The CLI's help: every command's text flows (no docstring line break left to fall mid-phrase once the terminal
wraps it), and ``bookrag methods`` lists the three methods to use before the baselines and ablations."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from bookrag_neo4j.cli import app, evaluate, library, models, server, train


def test_every_help_text_flows() -> None:
    for typer_app in (app, server.neo4j_app, evaluate.bench_app, models.models_app, library.docs_app, train.train_app):
        for command in typer_app.registered_commands:
            for paragraph in (command.help or "").split("\n\n"):
                assert "\n" not in paragraph and "  " not in paragraph, (command.name, paragraph)
    wide = CliRunner().invoke(app, ["query", "--help"], env={"COLUMNS": "200"})
    assert "allow-list, loads files or names another database is refused before it runs" in wide.output


def test_methods_lists_the_three_to_use_first() -> None:
    listed = json.loads(CliRunner().invoke(app, ["methods", "--json"]).output)
    roles = [m["role"] for m in listed]
    assert [m["name"] for m in listed[:3]] == ["bookrag", "superrag", "g2"] and roles[:3] == ["method"] * 3
    assert roles == sorted(roles, key=["method", "baseline", "ablation"].index)
    baselines = {m["name"] for m in listed if m["role"] == "baseline"}
    assert baselines == {"bm25", "dense", "layout-vanilla", "graphranker", "hybrid"}


def test_index_refuses_an_unknown_parser_before_it_reaches_neo4j() -> None:
    result = CliRunner().invoke(app, ["index", "report.pdf", "--parser", "pymupfd"])
    assert result.exit_code == 2 and "--parser is pymupdf or mineru" in " ".join(result.output.split())
