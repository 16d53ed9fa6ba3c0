"""bookrag doctor on bookrag-neo4j's plugin: loaded, missing (the Cypher path: fine unless asked for the plugin), or
of another version than the package's; and the named query each engine runs."""

from __future__ import annotations

from bookrag_neo4j.db.vectors import PLUGIN_QUERIES, PLUGIN_VERSION
from bookrag_neo4j.doctor import plugin_check
from bookrag_neo4j.resources import resource_dir
from bookrag_neo4j.server.local import pinned_versions


def test_doctor_reports_the_plugin_loaded_missing_or_of_another_version() -> None:
    loaded = plugin_check(PLUGIN_VERSION, "auto")
    assert loaded.ok and "loaded" in loaded.detail
    missing = plugin_check(None, "auto")
    assert missing.ok and "not loaded: vectors scored in Cypher" in missing.detail
    assert not plugin_check(None, "plugin").ok
    other = plugin_check("0.9.0", "auto")
    assert not other.ok and "0.9.0" in other.detail and PLUGIN_VERSION in other.detail
    assert plugin_check(None, "cypher").ok


def test_every_plugin_query_has_its_cypher_twin_and_the_versions_agree() -> None:
    cypher = resource_dir("cypher")
    for query, twin in PLUGIN_QUERIES.items():
        assert (cypher / f"{query}.cypher").is_file() and (cypher / f"{twin}.cypher").is_file()
    plugin = resource_dir("docker") / "plugin"
    assert f"<version>{PLUGIN_VERSION}</version>" in (plugin / "pom.xml").read_text()
    java = (plugin / "src/main/java/io/github/bookrag/Vectors.java").read_text()
    assert f'VERSION = "{PLUGIN_VERSION}"' in java
    assert f"<neo4j.version>{pinned_versions()['neo4j']}</neo4j.version>" in (plugin / "pom.xml").read_text()
