"""Document cards and the library routing that reads them: cards read from a 10-K's cover, a scan, a paper without
metadata and a brochure; a question naming a company and a year reads that year's filing, one naming two companies
reads both, and an edited card routes by its edited fields."""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from bookrag_neo4j.api_models import DocumentInfo
from bookrag_neo4j.errors import CardError
from bookrag_neo4j.index.card_reader import write_card
from bookrag_neo4j.llm.scripted import ScriptedChatModel
from bookrag_neo4j.parsing import ocr
from bookrag_neo4j.retrieval.routing import ROUTE
from bookrag_neo4j.sdk import BookRAG
from bookrag_neo4j.web.app import create_app

from ..helpers.cli import run_cli
from ..helpers.filings import brochure, filing, paper, scanned_filing
from ..helpers.timeouts import LONG_TEST
from ..helpers.webapp import serving

pytestmark = pytest.mark.timeout(LONG_TEST)
CARDS_ONLY = {"knowledge_graph": False, "layout": False, "content_graph": False}  # cards, tree, embeddings: hybrid


@pytest.fixture
async def library(settings, offline_models, schema, tmp_path: Path) -> AsyncIterator[tuple[BookRAG, dict[str, str]]]:
    """Two filings of one company (fiscal 2021 and 2022) and one of another (2022), indexed LLM-free."""
    rag = BookRAG(settings.replace(llm_provider="none"), models=offline_models, use_llm=False)
    made = {"acme-2021": filing(tmp_path / "acme-2021.pdf", "ACME ROCKETS, INC.", 2021, "ACRK", "rocket", 410),
            "acme-2022": filing(tmp_path / "acme-2022.pdf", "ACME ROCKETS, INC.", 2022, "ACRK", "rocket", 520),
            "vega-2022": filing(tmp_path / "vega-2022.pdf", "Vega Launch Corporation", 2022, "VGL", "satellite", 300)}
    keys = {name: (await rag.aindex(pdf, **CARDS_ONLY)).doc_key for name, pdf in made.items()}
    yield rag, keys
    for key in keys.values():
        await rag.adelete(key)
    await rag.aclose()


async def test_a_filings_cover_is_its_card(library: tuple[BookRAG, dict[str, str]]) -> None:
    rag, keys = library
    card = (await rag.adocument(keys["acme-2021"])).card
    assert card is not None
    assert (card.kind, card.issuer, card.period, card.years, card.date) == (
        "10-K", "ACME ROCKETS, INC.", "FY2021", [2021], "2021-12-31")
    assert "ACRK" in card.aliases and card.source["issuer"] == "cover"
    found = await (await rag.aclient()).run(
        "CALL db.index.fulltext.queryNodes('document_card', 'Vega') YIELD node RETURN node.key AS key")
    assert [r["key"] for r in found] == [keys["vega-2022"]]


async def _read(rag: BookRAG, question: str) -> tuple[set[str], list[str]]:
    evidence = await rag.aretrieve(question, None, method="hybrid")
    routes = [line for step in evidence.trace if step.operator == ROUTE for line in step.details]
    return {n.doc_key for n in evidence.nodes}, routes


async def test_a_question_naming_a_company_and_a_year_reads_that_years_filing(
        library: tuple[BookRAG, dict[str, str]]) -> None:
    rag, keys = library
    docs, why = await _read(rag, "What was Acme Rockets' revenue in FY2021?")
    assert docs == {keys["acme-2021"]}
    assert why == ["acme-2021.pdf: the question names 'acme rockets' and 2021"]
    assert (await _read(rag, "How many rockets did ACRK ship in fiscal 2022?"))[0] == {keys["acme-2022"]}
    # a range reads the filing of its last year, which reports the years before it too
    assert (await _read(rag, "Acme Rockets' revenue growth from FY2021 to FY2022?"))[0] == {keys["acme-2022"]}
    assert (await _read(rag, "What was Acme Rockets' revenue?"))[0] <= {keys["acme-2021"], keys["acme-2022"]}


async def test_a_question_naming_two_companies_reads_both(library: tuple[BookRAG, dict[str, str]]) -> None:
    rag, keys = library
    docs, why = await _read(rag, "Compare the 2022 revenue of Acme Rockets and Vega Launch")
    assert docs == {keys["acme-2022"], keys["vega-2022"]} and len(why) == 2
    answer = await rag.aask("Compare the 2022 revenue of Acme Rockets and Vega Launch", None, method="hybrid")
    assert {c.doc_key for c in answer.citations} <= {keys["acme-2022"], keys["vega-2022"]}


async def test_the_web_app_and_mcp_show_cards_and_group_citations_by_document(
        library: tuple[BookRAG, dict[str, str]], settings, offline_models, tmp_path: Path) -> None:
    rag, keys = library
    assert DocumentInfo.of(await rag.adocument(keys["vega-2022"])).card.issuer == "Vega Launch Corporation"  # MCP
    app = create_app(settings, models=offline_models, use_llm=False, upload_dir=tmp_path / "uploads")
    with serving(app) as base:
        assert "10-K · Vega Launch Corporation · FY2022" in httpx.get(base + "/", timeout=60).text
        page = httpx.get(base + "/ask", params={"question": "Compare the 2022 revenue of Acme Rockets and Vega Launch",
                                                "method": "hybrid"}, timeout=120).text
    headings = re.findall(r'<h3 class="document">([^<]+) <span', page)
    assert sorted(headings) == ["acme-2022.pdf", "vega-2022.pdf"], headings


async def test_an_edited_card_routes_by_its_edited_fields(library: tuple[BookRAG, dict[str, str]]) -> None:
    rag, keys = library
    assert (await _read(rag, "What was Orion Space's revenue in 2022?"))[1] == []  # no document is named so
    card = await rag.aset_card(keys["vega-2022"], issuer="Orion Space", period="FY2022")
    assert (card.issuer, card.years, card.source["issuer"], card.edited) == ("Orion Space", [2022], "user",
                                                                              ["issuer", "period"])
    assert (await _read(rag, "What was Orion Space's revenue in 2022?"))[0] == {keys["vega-2022"]}
    await rag.aindex((await rag.adocument(keys["vega-2022"])).path, **CARDS_ONLY)  # again: the user's fields stay
    assert (await rag.adocument(keys["vega-2022"])).card.issuer == "Orion Space"
    with pytest.raises(CardError, match="a card has no field colour"):
        await rag.aset_card(keys["vega-2022"], colour="blue")


async def test_the_cli_shows_and_corrects_a_card(library: tuple[BookRAG, dict[str, str]], settings) -> None:
    rag, keys = library
    listed = json.loads(run_cli(settings, "docs", "list", "--json").stdout)
    card = next(r["card"] for r in listed if r["key"] == keys["vega-2022"])
    assert (card["issuer"], card["kind"], card["period"]) == ("Vega Launch Corporation", "10-K", "FY2022")
    done = run_cli(settings, "docs", "set", "vega-2022.pdf", "--issuer", "Orion Space", "--period", "FY2023")
    assert done.returncode == 0 and "Orion Space, 10-K, FY2023 (years 2023)" in done.stdout + done.stderr
    assert (await rag.adocument(keys["vega-2022"])).card.edited == ["issuer", "period"]
    nothing = run_cli(settings, "docs", "set", "vega-2022.pdf")
    assert nothing.returncode != 0 and "give at least one of" in nothing.stdout + nothing.stderr
    again = run_cli(settings, "index", "--stage", "card", "vega-2022.pdf", "--json")  # read anew: the user's stays
    assert again.returncode == 0 and json.loads(again.stdout)["issuer"] == "Orion Space", again.stderr


@pytest.mark.skipif(ocr.tesseract() is None, reason="Tesseract is not installed: run `make ocr`")
async def test_cards_of_a_scan_a_paper_and_a_brochure(settings, offline_models, schema, tmp_path: Path) -> None:
    rag = BookRAG(settings.replace(llm_provider="none"), models=offline_models, use_llm=False)
    made = [scanned_filing(tmp_path / "scan.pdf", "ORION SPACE CORP", 2020), paper(tmp_path / "paper.pdf"),
            brochure(tmp_path / "vega-x2-brochure.pdf")]
    keys = [(await rag.aindex(pdf, **CARDS_ONLY)).doc_key for pdf in made]
    try:
        scan, article, leaflet = [(await rag.adocument(k)).card for k in keys]
        assert scan is not None and (scan.kind, scan.period) == ("10-K", "FY2020") and "ORION" in scan.issuer
        assert article is not None and article.kind == "paper"
        assert article.title == "Routing Questions over a Library of Filings"
        assert leaflet is not None and leaflet.kind == "brochure" and leaflet.years == [2024]
        assert leaflet.title == "Vega X2 Telescope"
        # with an LLM: a summary, and only the fields the cover left empty filled; broken JSON leaves the card
        db, doc = await rag.aclient(), await rag.adocument(keys[1])
        reply = json.dumps({"summary": "A paper on routing questions.", "title": "Another title",
                            "issuer": "Lyra Institute", "kind": "", "period": "2023"})
        llm = ScriptedChatModel(lambda messages: reply if "librarian" in str(messages[0]["content"]) else "{}")
        card = await write_card(db, doc, None, llm=llm)
        assert (card.summary, card.title, card.kind) == ("A paper on routing questions.", article.title, "paper")
        assert card.source["summary"] == "llm" and card.issuer == article.issuer != "", article.issuer
        assert article.period == "" and (card.period, card.years, card.source["period"]) == ("2023", [2023], "llm")
        assert (await rag.adocument(keys[1])).card.summary == "A paper on routing questions."
        broken = await write_card(db, doc, None, llm=ScriptedChatModel(["not json"] * 9))
        assert broken.summary == "" and broken.title == article.title
    finally:
        for key in keys:
            await rag.adelete(key)
        await rag.aclose()
