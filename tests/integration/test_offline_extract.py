"""The LLM-free extractor on hand-written sentences and on real pages of a 10-K."""

from __future__ import annotations

import pytest

from bookrag_neo4j.config import ENTITY_TYPES
from bookrag_neo4j.parsing.pymupdf_parser import parse_pdf
from bookrag_neo4j.text.offline_extract import SpacyExtractor

from ..helpers.pdfs import TEN_K, need


@pytest.fixture(scope="module")
def extractor() -> SpacyExtractor:
    return SpacyExtractor()


async def test_entities_and_sentence_cooccurrence(extractor: SpacyExtractor) -> None:
    text = ("3M Company reported net sales of $32.8 billion in 2018. The company is based in Minnesota. "
            "3M Company filed its annual report with the SEC.")
    (result,) = await extractor.extract([text])
    by_name = {e.name: e for e in result.entities}
    assert by_name["3M Company"].type == "ORGANIZATION"  # a named entity wins over the same noun phrase
    assert by_name["$32.8 billion"].type == "MONEY" and by_name["Minnesota"].type == "LOCATION"
    assert "company" in {n.lower() for n in by_name}  # "The company": the determiner is dropped
    assert all(e.type in ENTITY_TYPES for e in result.entities)
    pairs = {(r.source, r.target): r.weight for r in result.relations}
    assert pairs.get(("$32.8 billion", "3M Company")) == 1.0
    assert ("3M Company", "Minnesota") not in pairs and ("Minnesota", "3M Company") not in pairs  # other sentences
    sec = [r for r in result.relations if {"3M Company", "SEC"} == {r.source, r.target}]
    assert sec and sec[0].description.startswith("mentioned together: 3M Company filed")
    assert by_name["Minnesota"].description == "The company is based in Minnesota."


async def test_real_10k_pages(extractor: SpacyExtractor) -> None:
    parsed = parse_pdf(need(TEN_K), tables="off")
    texts = [b.text for b in parsed.blocks if b.kind == "text" and b.page <= 6][:40]
    results = await extractor.extract(texts)
    assert len(results) == len(texts)
    names = {e.name for r in results for e in r.entities}
    types = {e.type for r in results for e in r.entities}
    assert any("amazon" in n.lower() for n in names) and {"ORGANIZATION", "DATE", "CONCEPT"} <= types
    assert sum(len(r.relations) for r in results) > 50
    assert results == await extractor.extract(texts)  # deterministic
