"""MinerU's heading levels (``text_level``) become the sections when the PDF has no outline, ahead of the layout
heuristics; LLM section filtering sees them, with the blocks' boxes, as features. On a fixture whose headings
carry no numbering (``tests/fixtures/mineru_unnumbered/``), so nothing but ``text_level`` gives the hierarchy."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

import pytest

from bookrag_neo4j.errors import ModelUnavailableError
from bookrag_neo4j.llm import ScriptedChatModel
from bookrag_neo4j.parsing.blocks import Block, OutlineEntry, ParsedDocument
from bookrag_neo4j.parsing.mineru import load_mineru_output
from bookrag_neo4j.tree.build import build_tree
from bookrag_neo4j.tree.detect import detect_headings
from bookrag_neo4j.tree.headings import from_llm, from_parser
from bookrag_neo4j.tree.model import DocumentTree

from ..helpers.pdfs import MINERU_SAMPLE, MINERU_UNNUMBERED

#: (title, level, parent section's title or None for the document, first page, last page)
EXPECTED = [
    ("Introduction", 1, None, 1, 1),
    ("Background", 1, None, 1, 2),
    ("Capacitive and resistive sensors", 2, "Background", 1, 1),
    ("Earlier field trials", 2, "Background", 2, 2),
    ("Methods", 1, None, 2, 2),
    ("Site selection", 2, "Methods", 2, 2),
    ("Calibration", 2, "Methods", 2, 2),
    ("Temperature correction", 3, "Calibration", 2, 2),
    ("Results", 1, None, 3, 3),
]


@pytest.fixture(scope="module")
def doc() -> ParsedDocument:
    return load_mineru_output(MINERU_UNNUMBERED)


def sections(tree: DocumentTree) -> list[tuple[str, int, str | None, int, int]]:
    """The tree's sections in reading order: (title, level, parent section's title, first page, last page)."""
    parent = {id(c): n for n in tree.nodes() for c in n.children}
    return [(s.title, s.level, parent[id(s)].title if parent[id(s)].kind == "section" else None, s.page_start,
             s.page_end) for s in tree.sections()]


async def test_text_level_gives_the_section_hierarchy(doc: ParsedDocument) -> None:
    assert doc.outline == [] and all(b.font_size == 0 for b in doc.blocks)  # nothing else to go by
    headings, source, failed = await detect_headings(doc)
    assert (source, failed) == ("mineru", 0)
    tree = build_tree(doc, headings, source)
    assert sections(tree) == EXPECTED
    # the document's title (alone at text_level 1, above the sections) is the tree's title and stays as text
    assert tree.root.title == "Low-Cost Soil Moisture Probes in Smallholder Fields"
    assert [c.kind for c in tree.root.children[:2]] == ["text", "text"]
    assert tree.root.children[0].text == tree.root.title
    calibration = next(s for s in tree.sections() if s.title == "Calibration")
    assert [c.kind for c in calibration.children] == ["text", "section"]
    assert calibration.children[1].path == ["Methods", "Calibration"]
    assert calibration.bbox == next(b.bbox for b in doc.blocks if b.text == "Calibration")


async def test_without_a_document_title_top_level_headings_are_sections(tmp_path: Path) -> None:
    """The same note with "Introduction", "Background", ... at text_level 1 and no title item: the same tree."""
    folder = tmp_path / "note"
    shutil.copytree(MINERU_UNNUMBERED, folder)
    path = folder / "field_note_content_list.json"
    items = json.loads(path.read_text(encoding="utf-8"))[1:]
    for item in items:
        if "text_level" in item:
            item["text_level"] -= 1
    path.write_text(json.dumps(items), encoding="utf-8")
    moved = load_mineru_output(folder)
    assert [b.heading_level for b in moved.blocks if b.kind == "title"][:3] == [1, 1, 2]
    headings, source, _ = await detect_headings(moved)
    assert source == "mineru"
    assert sections(build_tree(moved, headings, source)) == EXPECTED


async def test_the_outline_wins_over_mineru_levels(doc: ParsedDocument) -> None:
    outline = [OutlineEntry(1, "Introduction", 1), OutlineEntry(1, "Background", 1), OutlineEntry(2, "Methods", 2),
               OutlineEntry(1, "Results", 3)]
    headings, source, _ = await detect_headings(dataclasses.replace(doc, outline=outline))
    assert source == "outline"
    assert [(h.title, h.level) for h in headings] == [("Introduction", 1), ("Background", 1), ("Methods", 2),
                                                      ("Results", 1)]


def test_the_existing_fixture_drops_its_title_and_renumbers() -> None:
    sample = load_mineru_output(MINERU_SAMPLE)  # title at text_level 1, "1 Cell chemistry" ... at 2
    assert [(h.title, h.level) for h in from_parser(sample)] == [("1 Cell chemistry", 1), ("2 Sizing the bank", 1)]


def flat(*titles: str) -> ParsedDocument:
    """A MinerU document whose every title is text_level 1 (the pipeline backend without title levels)."""
    body = "A paragraph long enough to be body text, with a few more words in it to make the point. " * 3
    blocks = [Block("text", body, page=1)]
    for page, text in enumerate(titles, start=1):
        blocks += [Block("title", text, page=page, heading_level=1), Block("text", body, page=page)]
    return ParsedDocument(path=Path("x_content_list.json"), content_hash="cd" * 32, title="Flat",
                          page_count=len(titles), blocks=blocks, parser="mineru")


def test_one_level_for_every_title_defers_to_numbering() -> None:
    numbered = flat("A Study of Probes", "1 Introduction", "1.1 Scope", "2 Methods", "References")
    assert [(h.title, h.level) for h in from_parser(numbered)] == [
        ("1 Introduction", 1), ("1.1 Scope", 2), ("2 Methods", 1), ("References", 1)]  # page 1's title dropped
    unnumbered = flat("Introduction", "Scope", "Methods")
    assert [(h.title, h.level) for h in from_parser(unnumbered)] == [("Introduction", 1), ("Scope", 1), ("Methods", 1)]


def candidate_lines(messages: list[dict]) -> list[str]:
    return messages[-1]["content"].split("Candidates (id | page | layout features | text):\n")[1].splitlines()


async def test_llm_section_filter_gets_mineru_levels_and_boxes(doc: ParsedDocument) -> None:
    def reply(messages: list[dict]) -> str:
        verdicts = []
        for line in candidate_lines(messages):
            block_id, _, features, _ = line.split(" | ")
            level = int(features.split("mineru level ")[1].split(",")[0])
            verdicts.append({"id": int(block_id), "level": level - 1 if level > 1 else -1})
        return json.dumps({"sections": verdicts})

    llm = ScriptedChatModel(reply)
    headings, source, failed = await detect_headings(doc, llm)
    assert (source, failed) == ("llm", 0)
    content = llm.requests[0][-1]["content"]
    lines = candidate_lines(llm.requests[0])
    assert len(lines) == 10 and "size 0.0" not in content and "regular" not in content
    assert "5 | page 1 | mineru level 3, box 72,264,267,278 on 595x842 | Capacitive and resistive sensors" in lines
    assert lines[0] == ("0 | page 1 | mineru level 1, box 72,72,523,92 on 595x842 | "
                        "Low-Cost Soil Moisture Probes in Smallholder Fields")
    assert sections(build_tree(doc, headings, source)) == EXPECTED


async def test_a_failed_llm_batch_falls_back_to_mineru_levels(doc: ParsedDocument) -> None:
    llm = ScriptedChatModel(lambda m: ModelUnavailableError("down"), max_retries=0)
    headings, failed, batches = await from_llm(doc, llm)
    assert failed == batches == 1
    assert [(h.title, h.level) for h in headings] == [(t, lvl) for t, lvl, *_ in EXPECTED]
