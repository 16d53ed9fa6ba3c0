"""The package's layers import one way: no two sub-packages (or top modules) import each other, directly or
around a loop, nor two modules (an import inside a function or under TYPE_CHECKING counts too), and rich (the
terminal UI) is used by the CLI alone."""

from __future__ import annotations

import graphlib
import re

from ..helpers.imports import ROOT, module_imports, package_imports


def test_the_layers_form_no_import_cycle() -> None:
    edges = package_imports()
    graphlib.TopologicalSorter(edges).prepare()  # raises CycleError naming the loop
    assert "index" not in edges["kg"] and "retrieval" in edges["ops"] and "ops" not in edges["retrieval"]


def test_no_two_modules_import_each_other() -> None:
    edges = module_imports()
    graphlib.TopologicalSorter(edges).prepare()  # raises CycleError naming the loop
    assert "eval.scale_run" in edges["eval.bench_scale"] and "eval.scale_run" in edges["eval.scale_projection"]


def test_rich_is_only_in_the_cli() -> None:
    users = {p.relative_to(ROOT).as_posix() for p in ROOT.rglob("*.py")
             if re.search(r"^\s*(from|import) rich\b", p.read_text(encoding="utf-8"), re.MULTILINE)}
    assert users and all(u.startswith("cli/") for u in users), users


BUILD_WING = {"parsing", "tree", "index", "kg", "layout", "content"}
ASK_WING = {"retrieval", "ops", "methods"}


def test_the_text_floor_imports_no_other_part() -> None:
    assert package_imports()["text"] <= {"errors"}


def test_the_ask_wing_imports_nothing_of_the_build_wing() -> None:
    """A layer a method reads is built by what the doors hand the retriever (``index.on_demand``), not by an import."""
    edges = module_imports()
    found = {(me, target) for me, targets in edges.items() for target in targets
             if me.split(".")[0] in ASK_WING and target.split(".")[0] in BUILD_WING}
    assert not found, found
    assert ("retrieval.document_blocks", "text.references") in {(m, t) for m, ts in edges.items() for t in ts}


def test_the_settings_import_no_wing() -> None:
    """Every door reads the settings: they must not load the parser (PyMuPDF) or a question's path."""
    found = {t.split(".")[0] for me, targets in module_imports().items() if me in ("config", "setting_groups")
             for t in targets}
    assert found and not found & (BUILD_WING | ASK_WING), found


def test_the_values_operators_pass_know_no_method() -> None:
    """``ops/values.py`` holds what every method's steps pass; a method's own values live with its operators."""
    imported = module_imports()["ops.values"]
    assert imported and not {m for m in imported if any(name in m for name in ("g2", "superrag", "methods"))}, imported
