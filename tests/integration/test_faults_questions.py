"""The fault suite, part 3: questions that are valid but extreme, and documents changed under a question. A
question of a thousand distinct words, or of a thousand Chinese characters, kana or emoji, runs with every method
that searches the full-text index (Lucene refuses a query of over 1,024 clauses); a document deleted while its
question runs gives a warning, never a silent empty answer; a partial document has one status in every door."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from itertools import product
from pathlib import Path

import pytest

from bookrag_neo4j.api_models import DocumentInfo
from bookrag_neo4j.db.lucene import MAX_TERMS, lucene_terms
from bookrag_neo4j.methods import retriever as retriever_module
from bookrag_neo4j.sdk import BookRAG

from ..helpers.cli import run_cli
from ..helpers.pdfs import tiny_pdf

SYMBOLS = "abcdefghijklmnopqrstuvwxyz0123456789"
MANY_WORDS = " ".join("".join(p) for p in product(SYMBOLS, repeat=2))  # 1,296 distinct words, 3,887 characters
# Scripts whose every character is a term to the analyser, with no spaces to count (each failed with Lucene's
# TooManyClauses): a paragraph of Chinese, a run of hiragana, a run of emoji
UNSPACED = {"chinese": "".join(chr(0x4E00 + (i * 37) % 20_000) for i in range(1_120)),
            "kana": "".join(chr(0x3041 + i % 86) for i in range(1_300)),
            "emoji": "".join(chr(0x1F600 + i % 80) for i in range(1_300))}


@pytest.fixture
async def acme(settings, offline_models, schema, tmp_path: Path) -> AsyncIterator[tuple[BookRAG, str]]:
    pdf = tiny_pdf(tmp_path / "acme-questions.pdf", "Acme", "Ada Quill", "France", "widgets")
    rag = BookRAG(settings.replace(llm_provider="none"), models=offline_models, use_llm=False)
    report = await rag.aindex(pdf)
    yield rag, report.doc_key
    if await (await rag.aclient()).read_rows("library/present_keys", doc_keys=[report.doc_key]):
        await rag.adelete(report.doc_key)
    await rag.aclose()


def test_a_long_question_keeps_its_distinct_words_within_lucenes_clauses() -> None:
    assert len(MANY_WORDS.split()) > 1_024
    terms = lucene_terms(MANY_WORDS + " AA aa")
    assert len(terms.split()) == MAX_TERMS and terms.split()[:2] == ["aa", "ab"]
    assert lucene_terms("What is R&D (net)?") == "What is R\\&D \\(net\\)\\?"  # a question's words, unchanged


def test_unspaced_scripts_are_cut_at_the_analysers_terms() -> None:
    for text in UNSPACED.values():
        assert len(lucene_terms(text).split()) <= MAX_TERMS
    assert lucene_terms("会计 年度") == "会计 年度"  # a short question unchanged


@pytest.mark.parametrize("method", ["superrag", "superrag-hybrid", "hybrid", "g2"])
async def test_questions_in_unspaced_scripts_run(acme: tuple[BookRAG, str], method: str) -> None:
    rag, doc = acme
    for text in UNSPACED.values():
        assert (await rag.aretrieve(text, doc, method=method)).question == text


@pytest.mark.parametrize("method", ["superrag", "hybrid", "g2", "bookrag"])
async def test_a_question_of_a_thousand_distinct_words_runs(acme: tuple[BookRAG, str], method: str) -> None:
    rag, doc = acme
    evidence = await rag.aretrieve(MANY_WORDS, doc, method=method)
    assert evidence.question == MANY_WORDS


async def test_a_document_deleted_while_its_question_runs_gives_a_warning(acme: tuple[BookRAG, str],
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    rag, doc = acme
    execute = retriever_module.execute

    async def delete_then_execute(plan, ctx, **options):  # noqa: ANN001, ANN202 (the executor's own signature)
        await rag.adelete(doc)
        return await execute(plan, ctx, **options)

    monkeypatch.setattr(retriever_module, "execute", delete_then_execute)
    evidence = await rag.aretrieve("Who founded Acme?", doc)
    assert any("acme-questions.pdf was deleted while the question ran" in w for w in evidence.warnings), \
        evidence.warnings


async def test_a_partial_document_has_one_status_in_every_door(acme: tuple[BookRAG, str], settings) -> None:
    """A document whose content graph build did not complete is ``partial`` in ``docs list --json``, the SDK's
    stats and MCP's list_documents (the web app's table: ``test_web.py``), all from ``Document.status``."""
    rag, doc = acme
    await (await rag.aclient()).run("MATCH (d:Document {key: $doc}) SET d.g2_status = 'building'", {"doc": doc})
    listed = json.loads(run_cli(settings, "docs", "list", "--json").stdout)
    assert {d["key"]: d["status"] for d in listed}[doc] == "partial"
    assert (await rag.astats(doc, with_graph=False)).status == "partial"
    assert DocumentInfo.of(await rag.adocument(doc)).status == "partial"
