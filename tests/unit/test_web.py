"""The web app's pieces that need no server: who may listen where, evidence boxes on a page, the ToC tree, and
the CLI's refusal to listen beyond loopback without a token."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from bookrag_neo4j.cli import app
from bookrag_neo4j.errors import ConfigurationError
from bookrag_neo4j.retrieval.results import Citation
from bookrag_neo4j.web.app import _nest
from bookrag_neo4j.web.pages import Box, CitationView, PageBox
from bookrag_neo4j.web.security import check_bind, is_loopback

from ..helpers.pdfs import R_INTRO, need


@pytest.mark.parametrize("host", ["127.0.0.1", "127.0.0.2", "::1", "[::1]", "localhost"])
def test_loopback_needs_no_token(host: str) -> None:
    assert is_loopback(host)
    check_bind(host, None)


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.168.1.20", "example.org"])
def test_other_addresses_need_a_token(host: str) -> None:
    assert not is_loopback(host)
    with pytest.raises(ConfigurationError, match="without a token"):
        check_bind(host, None)
    check_bind(host, "s3cret")


def test_serve_refuses_a_public_address_without_a_token(monkeypatch) -> None:
    monkeypatch.delenv("BOOKRAG_SERVE_TOKEN", raising=False)
    result = CliRunner().invoke(app, ["serve", "--host", "0.0.0.0"])
    assert result.exit_code != 0 and "without a token" in str(result.exception)


def test_box_is_percent_of_the_page_and_clipped() -> None:
    assert Box.of([61.2, 79.2, 306.0, 396.0], 612.0, 792.0) == Box(10.0, 10.0, 40.0, 40.0)
    assert Box.of([-10, 700, 700, 900], 612.0, 792.0) == Box(0.0, 88.38, 100.0, 11.62)
    assert Box.of([700, 10, 800, 20], 612.0, 792.0) is None  # off the page


def test_citation_shows_its_first_page_with_boxes() -> None:
    pdf = need(R_INTRO)
    cite = Citation(document="R-intro.pdf", doc_key="k" * 64, node_key="n", page_start=3, page_end=4)
    boxes = [PageBox(4, (100.0, 100.0, 200.0, 150.0)), PageBox(4, (100.0, 160.0, 200.0, 200.0)),
             PageBox(5, (1.0, 1.0, 2.0, 2.0))]
    view = CitationView.of(cite, pdf=pdf, boxes=boxes)
    assert view.page == 4 and len(view.boxes) == 2 and (view.document, view.label) == ("R-intro.pdf", "pp. 3–4")
    assert CitationView.of(cite, pdf=None, boxes=boxes).boxes == []


def test_toc_rows_nest_by_level() -> None:
    rows = [{"title": t, "level": lvl, "page": 1} for t, lvl in
            [("A", 1), ("A.1", 2), ("A.1.a", 3), ("A.2", 2), ("B", 1), ("B.1", 2)]]
    tree = _nest(rows)
    assert [e["title"] for e in tree] == ["A", "B"]
    assert [e["title"] for e in tree[0]["children"]] == ["A.1", "A.2"]
    assert tree[0]["children"][0]["children"][0]["title"] == "A.1.a" and tree[1]["children"][0]["title"] == "B.1"
