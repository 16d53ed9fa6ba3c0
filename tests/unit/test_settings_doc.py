"""docs/configuration.md is the Markdown the Settings class generates: every field, in its group, with its
environment variable; a setting added without regenerating the page fails here."""

from __future__ import annotations

from pathlib import Path

from bookrag_neo4j.config import flat_names
from bookrag_neo4j.settings_doc import groups, settings_markdown

PAGE = Path(__file__).resolve().parents[2] / "docs" / "configuration.md"


def test_the_configuration_page_is_generated_from_the_settings() -> None:
    assert PAGE.read_text(encoding="utf-8") == settings_markdown(), \
        "regenerate it: python -m bookrag_neo4j.settings_doc > docs/configuration.md"


def test_every_setting_is_listed_once_with_its_variable() -> None:
    listed = [name for _, _, names in groups() for name in names]
    assert sorted(listed) == sorted(flat_names()) and len(listed) == len(set(listed))
    page = settings_markdown()
    assert "`BOOKRAG_ROUTE_DOCUMENTS` | `5`" in page and "`NEO4J_URI` or `BOOKRAG_NEO4J_URI`" in page
