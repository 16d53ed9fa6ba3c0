"""Tree assembly from headings, and LLM section filtering with a scripted model (batches carry the outline so far;
a failure falls back to the heuristics), on a synthetic document. (R's manual: ``tests/integration/test_tree.py``.)"""

from __future__ import annotations

import json
from pathlib import Path

from bookrag_neo4j.errors import ModelUnavailableError
from bookrag_neo4j.llm import ScriptedChatModel
from bookrag_neo4j.parsing.blocks import Block, ParsedDocument
from bookrag_neo4j.tree.build import build_tree
from bookrag_neo4j.tree.detect import detect_headings, offline_headings
from bookrag_neo4j.tree.headings import from_llm, from_typography


def synthetic() -> ParsedDocument:
    blocks = [
        Block("text", "Preamble before any heading. " * 10, page=1),  # a paragraph: page 1 is no cover page
        Block("title", "1 Introduction", page=1, font_size=16, bold=True),
        Block("text", "Intro text.", page=1, font_size=10),
        Block("title", "1.1 Scope", page=2, font_size=13, bold=True),
        Block("table", "a | b", page=2),
        Block("title", "Figure-like bold label", page=2, font_size=10, bold=True),
        Block("title", "2 Methods", page=3, font_size=16, bold=True),
        Block("equation", "E = mc^2", page=3),
    ] + [Block("text", f"Body paragraph {i} of the document.", page=3, font_size=10) for i in range(5)]
    return ParsedDocument(path=Path("synthetic.pdf"), content_hash="ab" * 32, title="Synthetic", page_count=3,
                          blocks=blocks)


def test_tree_assembly_from_headings() -> None:
    doc = synthetic()
    headings = from_typography(doc)
    assert [(h.title, h.level) for h in headings] == [("1 Introduction", 1), ("1.1 Scope", 2), ("2 Methods", 1)]
    tree = build_tree(doc, headings, "heuristic")
    root = tree.root
    assert [c.kind for c in root.children] == ["text", "section", "section"]  # the preamble stays under the document
    intro = root.children[1]
    assert [c.kind for c in intro.children] == ["text", "section"]
    assert [c.kind for c in intro.children[1].children] == ["table", "text"]  # the rejected title became text
    assert intro.page_start == 1 and intro.page_end == 2
    assert intro.children[1].path == ["1 Introduction"]


async def test_llm_section_filtering_with_a_scripted_model() -> None:
    doc = synthetic()

    def reply(messages: list[dict]) -> str:
        lines = messages[-1]["content"].split("Candidates (id | page | layout features | text):\n")[1]
        ids = [int(line.split(" | ")[0]) for line in lines.splitlines()]
        levels = {1: 1, 3: 2, 5: -1, 6: 1}
        return json.dumps({"sections": [{"id": i, "level": levels[i]} for i in ids]})

    llm = ScriptedChatModel(reply)
    headings, failed, batches = await from_llm(doc, llm)
    assert failed == 0 and batches == 1 and [(h.position, h.level) for h in headings] == [(1, 1), (3, 2), (6, 1)]
    assert llm.usage.by_stage()["index.section_filter"].calls == 1
    assert "Synthetic" in llm.requests[0][-1]["content"]
    assert "1 | page 1 | size 16.0 (body 10.0), bold | 1 Introduction" in llm.requests[0][-1]["content"]


async def test_llm_failure_falls_back_to_the_offline_detector() -> None:
    doc = synthetic()
    llm = ScriptedChatModel(lambda m: ModelUnavailableError("down"), max_retries=0)
    headings, source, failed = await detect_headings(doc, llm)
    offline, offline_source = offline_headings(doc)
    assert source == f"{offline_source}: the LLM did not answer" and failed == 1  # not "llm": docs list tells
    assert offline and [h.title for h in headings] == [h.title for h in offline]
    headings, _, _ = await detect_headings(doc, llm, detector="heuristic")
    assert [h.title for h in headings] == ["1 Introduction", "1.1 Scope", "2 Methods"]


async def test_later_batches_carry_the_outline_so_far() -> None:
    doc = synthetic()
    replies = iter([
        json.dumps({"sections": [{"id": 1, "level": 1}, {"id": 3, "level": 2}]}),
        json.dumps({"sections": [{"id": 5, "level": -1}, {"id": 6, "level": 1}]}),
    ])
    llm = ScriptedChatModel(lambda m: next(replies))
    headings, _, batches = await from_llm(doc, llm, batch_size=2)
    assert batches == 2
    assert [h.position for h in headings] == [1, 3, 6]
    assert "- [1] 1 Introduction" in llm.requests[1][-1]["content"]
