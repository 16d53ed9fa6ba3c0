"""Settings honour the usual Neo4j variables and the BOOKRAG_ prefix; connection resolution."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from bookrag_neo4j.config import Settings
from bookrag_neo4j.errors import BookRAGError, ConfigurationError
from bookrag_neo4j.server import connection_info
from bookrag_neo4j.server.manager import resolve_mode


def test_standard_neo4j_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NEO4J_URI", "neo4j+s://example.databases.neo4j.io")
    monkeypatch.setenv("NEO4J_USERNAME", "reader")
    monkeypatch.setenv("NEO4J_PASSWORD", "s3cret-pass")
    monkeypatch.setenv("NEO4J_DATABASE", "books")
    monkeypatch.setenv("BOOKRAG_NEO4J_HEAP", "3g")
    settings = Settings()
    assert settings.neo4j.heap == "3g"
    assert resolve_mode(settings) == "external"
    conn = connection_info(settings)
    assert (conn.uri, conn.username, conn.password, conn.database) == (
        "neo4j+s://example.databases.neo4j.io",
        "reader",
        "s3cret-pass",
        "books",
    )
    assert "s3cret" not in repr(conn) and "s3cret" not in repr(settings)


def test_managed_server_without_password_is_a_clear_error(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NEO4J_URI", raising=False)
    monkeypatch.delenv("NEO4J_PASSWORD", raising=False)
    settings = Settings(data_dir=tmp_path, neo4j_instance="nothing-here")
    with pytest.raises(ConfigurationError, match="bookrag neo4j start"):
        connection_info(settings)


def test_instance_names_are_path_safe() -> None:
    with pytest.raises(ValidationError):
        Settings(neo4j_instance="../etc")


def test_one_exception_hierarchy() -> None:
    from bookrag_neo4j import errors

    classes = [c for c in vars(errors).values() if isinstance(c, type) and issubclass(c, Exception)]
    assert all(issubclass(c, BookRAGError) for c in classes)


def test_the_managed_server_config_is_hardened() -> None:
    from bookrag_neo4j.server.hardening import hardening, quarter

    assert (quarter("6g"), quarter("2g"), quarter("512m"), quarter("1073741824")) == ("1536m", "512m", "128m", "256m")
    lines = dict(line.split("=", 1) for line in hardening(Settings(neo4j_heap="2g", neo4j_http_port=17474)).splitlines())
    assert lines["db.memory.transaction.max"] == "512m" and lines["db.transaction.timeout"] == "15m"
    assert lines["dbms.security.http_access_control_allow_origin"] == "http://localhost:17474"
    assert "127.0.0.0/8" in lines["internal.dbms.cypher_ip_blocklist"].split(",")
    assert Settings(neo4j_transaction_memory="300m").neo4j.transaction_memory == "300m"


def test_an_instance_is_found_by_its_recorded_ports_unless_they_are_given(tmp_path) -> None:
    import json

    from bookrag_neo4j.server import instance_settings

    plain = Settings(data_dir=tmp_path, neo4j_instance="second")
    assert instance_settings(plain) is plain  # nothing recorded yet
    plain.instance_dir.mkdir(parents=True)
    (plain.instance_dir / "state.json").write_text(json.dumps(
        {"mode": "local", "neo4j_bolt_port": 27787, "neo4j_http_port": 27574, "neo4j_heap": "768m"}))
    found = instance_settings(plain)
    assert (found.neo4j.bolt_port, found.neo4j.http_port, found.neo4j.heap) == (27787, 27574, "768m")
    given = instance_settings(Settings(data_dir=tmp_path, neo4j_instance="second", neo4j_bolt_port=9999))
    assert (given.neo4j.bolt_port, given.neo4j.http_port) == (9999, 27574)
    external = Settings(data_dir=tmp_path, neo4j_instance="second", neo4j_uri="bolt://db.example:7687")
    assert instance_settings(external).neo4j.bolt_port == 7687


def test_every_variable_sets_its_field_in_its_group(monkeypatch: pytest.MonkeyPatch) -> None:
    from bookrag_neo4j.config import flat_names

    monkeypatch.setenv("BOOKRAG_G2_ROUNDS", "2")
    monkeypatch.setenv("BOOKRAG_SKYLINE_MIN", "4")
    monkeypatch.setenv("BOOKRAG_SERVE_ALLOWED_HOSTS", '["books.example"]')
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    settings = Settings(layout_passage_words=300)
    assert (settings.g2.rounds, settings.bookrag.skyline_min, settings.serve.allowed_hosts) == (2, 4, ["books.example"])
    assert (settings.models.openai_base_url, settings.layout.passage_words) == ("http://127.0.0.1:9/v1", 300)
    assert {"g2_rounds", "skyline_min", "serve_allowed_hosts", "openai_base_url", "layout_passage_words"} <= \
        settings.given() and "neo4j_heap" not in settings.given()
    assert flat_names()["neo4j_bolt_port"] == ("neo4j", "bolt_port") and flat_names()["cache_dir"] == (None, "cache_dir")
    assert settings.get("g2_rounds") == 2 and settings.get("neo4j_bolt_port") == settings.neo4j.bolt_port


def test_replace_validates_changes_by_flat_name_and_keeps_the_rest(tmp_path) -> None:
    settings = Settings(neo4j_instance="one", skyline_min=3)
    changed = settings.replace(ppr_engine="local", g2_rounds=1, cache_dir=str(tmp_path))
    assert (changed.bookrag.ppr_engine, changed.bookrag.skyline_min, changed.g2.rounds) == ("local", 3, 1)
    assert changed.cache_dir == tmp_path and changed.neo4j.instance == "one" and settings.bookrag.ppr_engine == "auto"
    with pytest.raises(ValidationError):
        settings.replace(g2_rounds=99)
    with pytest.raises(ConfigurationError, match="no setting is called 'rounds'"):
        settings.replace(rounds=1)


def test_research_knobs_are_marked_and_everyday_settings_are_not() -> None:
    from bookrag_neo4j.config import field_of
    from bookrag_neo4j.setting_groups import is_research

    assert is_research(field_of("er_gradient")) and is_research(field_of("g2_alpha"))
    assert not is_research(field_of("neo4j_uri")) and not is_research(field_of("route_documents"))


def test_layout_the_former_name_of_the_region_model_still_works_and_warns(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BOOKRAG_TABLES", "layout")
    monkeypatch.setenv("BOOKRAG_HEADINGS", "layout")
    with pytest.warns(DeprecationWarning) as said:
        settings = Settings()
    assert {"BOOKRAG_TABLES=layout is now 'regions'", "BOOKRAG_HEADINGS=layout is now 'regions'"} <= \
        {str(w.message) for w in said}
    assert (settings.indexing.tables, settings.indexing.headings) == ("regions", "regions")
    monkeypatch.setenv("BOOKRAG_TABLES", "lines")
    monkeypatch.delenv("BOOKRAG_HEADINGS")
    assert (Settings().indexing.tables, Settings().indexing.headings) == ("lines", "auto")
