"""The offline ER scorer with the real embedder, and extraction with a scripted LLM (JSON repair, failures kept
for the next run, the per-node store) on real 10-K pages. (Names, acronyms, the scorer's rules and extraction
on hand-made input: ``tests/unit/test_kg_extract.py``.)"""

from __future__ import annotations

import json

from bookrag_neo4j.kg.er_scores import EntityView, NameScorer
from bookrag_neo4j.kg.extract import ExtractionStore, extract_nodes
from bookrag_neo4j.kg.llm_extract import LLMExtractor
from bookrag_neo4j.llm.reply_cache import ResponseCache
from bookrag_neo4j.llm.scripted import ScriptedChatModel
from bookrag_neo4j.parsing.pymupdf_parser import parse_pdf
from bookrag_neo4j.tree.model import TreeNode

from ..helpers.pdfs import TEN_K, need


async def test_name_scorer_ranks_variants_over_neighbours() -> None:
    from bookrag_neo4j.llm.embedder import SentenceTransformerEmbedder

    embedder = SentenceTransformerEmbedder()
    names = ["graphics device", "graphics devices", "GD", "graphics parameter", "colour palette"]
    vectors = dict(zip(names, await embedder.embed(names), strict=True))

    def view(name: str, etype: str = "CONCEPT") -> EntityView:
        return EntityView(name, name, etype, "", vectors.get(name))

    scorer = NameScorer()
    scores = await scorer.score(view("graphics device"), [view(n) for n in names[1:]])
    assert scores[0] == 1.0  # plural: the same normalised name
    assert scores[1] > 0.5  # acronym of the initials
    assert scores[2] < 0.5 and scores[3] < 0.2  # same head word but another thing; unrelated
    assert (await scorer.score(view("graphics device", "PERSON"), [view("graphics devices", "LOCATION")]))[0] == 0.5
    sections = await scorer.score(view("graphics device", "SECTION_TITLE"), [view("graphics parameter", "SECTION_TITLE")])
    assert sections == [0.0]


def reply_for(messages: list[dict]) -> str:
    passage = messages[1]["content"].split("Passage:\n", 1)[1]  # [1]: the user message (a re-ask comes after)
    if "FAIL" in passage:
        return "no JSON here"
    first = passage.split()[0].strip(".,")
    return ("```json\n" + json.dumps({
        "entities": [{"name": first, "type": "organisation", "description": "first word"},
                     {"name": "Amazon", "type": "ORGANIZATION", "description": "the company"}],
        "relations": [{"source": first, "target": "Amazon", "description": "in one passage", "weight": 4},
                      {"source": first, "target": "Nobody", "description": "dangling", "weight": 1}],
    }) + "\n```")  # fenced and with a lower-case type: repaired and cleaned


async def test_llm_extraction_on_real_pages_with_failures_kept(tmp_path) -> None:
    parsed = parse_pdf(need(TEN_K), tables="off")
    texts = [b.text for b in parsed.blocks if b.kind == "text" and len(b.text) > 80][:6]
    nodes = [TreeNode(kind="text", text=t, key=f"n{i}", path=["Item 1"]) for i, t in enumerate(texts)]
    nodes.append(TreeNode(kind="text", text="FAIL this one", key="bad"))
    llm = ScriptedChatModel(reply_for)
    extractor = LLMExtractor(llm)
    store = ExtractionStore(ResponseCache(tmp_path / "x.sqlite"))
    results, failed = await extract_nodes(nodes, extractor, store=store, document="Amazon 10-K")
    assert len(results) == 7 and list(failed) == ["bad"]
    first = results[0]
    assert first.entities[0].type == "CONCEPT"  # "organisation" is not an allowed type
    assert [r.target for r in first.relations] == ["Amazon"]  # the dangling relation is dropped
    assert results[-1].entities == []
    asked = len(llm.requests)
    assert "Amazon 10-K" in llm.requests[0][-1]["content"] and "Item 1" in llm.requests[0][-1]["content"]
    again, failed = await extract_nodes(nodes, extractor, store=store)
    assert [r.model_dump() for r in again[:6]] == [r.model_dump() for r in results[:6]]
    assert asked == 6 + 2  # one request a node, and one re-ask for the broken reply
    assert len(llm.requests) - asked == 2  # the next run asks only for the failed node (and re-asks once)
    assert list(failed) == ["bad"]
