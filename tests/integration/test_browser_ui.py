"""Neo4j Browser as a person uses it, in headless Chromium against the test server: the page loads, the
login form a ``bookrag browse`` link opens has the user filled in and connects, a ``bookrag browse --style`` link
loads the BookIndex style, and ``bookrag browse`` links draw exactly the nodes their queries return, in the style's
colours. Marked ``browser``; ``make test`` runs it (and installs Debian's ``chromium``)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import neo4j
import pytest

from bookrag_neo4j.browse import browser_url, managed_browser, style_url
from bookrag_neo4j.db.queries import load_query
from bookrag_neo4j.index.pipeline import Indexer
from bookrag_neo4j.llm import Models

from ..helpers.pdfs import FOOTLOCKER, need
from ..helpers.server import external
from ..helpers.timeouts import LONG_TEST

pytestmark = [pytest.mark.browser,
              pytest.mark.skipif(external(), reason="Browser is checked on the managed server only"),
              pytest.mark.timeout(LONG_TEST)]  # indexes a real 8-K unless it is, then drives Chromium

DOCUMENT_BLUE, SECTION_BLUE = "rgb(31, 58, 95)", "rgb(61, 106, 158)"  # bookindex.grass: #1F3A5F, #3D6A9E


async def distinct_labels(conn, name: str, params: dict) -> dict[str, int]:
    """Distinct nodes per label among what a browser query returns: what Browser draws."""
    async with neo4j.AsyncGraphDatabase.driver(conn.uri, auth=(conn.username, conn.password)) as driver:
        graph = await driver.execute_query(load_query(f"browser/{name}"), params, database_=conn.database,
                                           result_transformer_=neo4j.AsyncResult.graph)
    return dict(Counter(label for node in graph.nodes for label in node.labels))


async def test_browser_draws_bookrag_browse_links_in_the_bookindex_style(db, settings, conn, tmp_path: Path) -> None:
    from ..helpers.browser import graph_result, load_style, logged_in_browser, run_link, screenshot

    models = Models.from_settings(settings)
    await Indexer(db, settings, models, use_llm=False).index(need(FOOTLOCKER))
    base = f"http://localhost:{settings.neo4j.http_port}/browser/"
    link, login = managed_browser(settings)  # what `bookrag browse` links start with: the login filled in
    assert login == f"log in as {conn.username}; the password is in {settings.password_file}"
    prefilled: list[str] = []
    async with logged_in_browser(base, conn, landing=browser_url(link, "library"), prefilled=prefilled) as page:
        assert prefilled == [conn.username]  # the user only types the password
        assert await page.title() != "" and "Neo4j Browser" in await page.title()
        await load_style(page, style_url(base))
        params = {"doc": FOOTLOCKER.name}
        await run_link(page, browser_url(base, "toc", params))
        drawn = await graph_result(page)
        expected = await distinct_labels(conn, "toc", params)
        assert expected["Document"] == 1 and expected["Section"] >= 1
        assert {label: drawn[label][0] for label in expected} == expected
        assert drawn["Document"][1] == DOCUMENT_BLUE and drawn["Section"][1] == SECTION_BLUE
        shot = await screenshot(page, tmp_path / "toc.png")
        assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 10_000
