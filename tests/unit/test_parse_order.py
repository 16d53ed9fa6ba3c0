"""Reading order: the same order as the straightforward quadratic version on real pages (R's manuals, the
dev-benchmark PDFs, a generated two-column page), and work that grows like n log n on a page of 10,000 blocks."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from bookrag_neo4j.parsing.blocks import Block
from bookrag_neo4j.parsing.page_rules import reading_order
from bookrag_neo4j.parsing.pymupdf_parser import _read_pages, open_pdf

from ..helpers.pdfs import ACL_PAPER, R_DATA, R_INTRO, RAG_SURVEY, TEN_K, need


def quadratic_reading_order(blocks: list[Block], page_width: float) -> list[Block]:
    """The reading order as it was first written (list membership by equality): the reference."""
    if not blocks:
        return blocks
    mid = page_width / 2
    left = [b for b in blocks if b.bbox[2] <= mid + 4]
    right = [b for b in blocks if b.bbox[0] >= mid - 4]
    chars = sum(len(b.text) for b in blocks) or 1
    two_columns = (
        sum(len(b.text) for b in left) > 0.2 * chars and sum(len(b.text) for b in right) > 0.2 * chars
        and len(left) >= 2 and len(right) >= 2
    )
    by_row = sorted(blocks, key=lambda b: (round(b.bbox[1] / 3), b.bbox[0]))
    if not two_columns:
        return by_row
    ordered: list[Block] = []
    band: list[Block] = []

    def column_band(band: list[Block]) -> list[Block]:
        return sorted(band, key=lambda b: (b.bbox[0] >= mid - 4, b.bbox[1], b.bbox[0]))

    for b in by_row:
        if b in left or b in right:
            band.append(b)
            continue
        ordered += column_band(band)
        band = []
        ordered.append(b)
    return ordered + column_band(band)


def _pages(path: Path) -> list[tuple[list[Block], float]]:
    """The first pass's blocks of each page of a PDF (what ``reading_order`` gets, before tables) and its width."""
    doc, _ = open_pdf(path)
    with doc:
        first = _read_pages(doc, path, None)
    return [(blocks, first.sizes[n][0]) for n, blocks in first.blocks.items()]


def _two_columns(blocks: list[Block], width: float) -> bool:
    order = reading_order(blocks, width)
    return order != sorted(blocks, key=lambda b: (round(b.bbox[1] / 3), b.bbox[0]))


@pytest.mark.parametrize("pdf", [R_INTRO, R_DATA, RAG_SURVEY, ACL_PAPER, TEN_K], ids=lambda p: p.name)
def test_the_order_is_the_reference_order_on_every_page_of_real_pdfs(pdf: Path) -> None:
    pages = _pages(need(pdf))
    for number, (blocks, width) in enumerate(pages, start=1):
        assert [id(b) for b in reading_order(blocks, width)] == [
            id(b) for b in quadratic_reading_order(blocks, width)], f"{pdf.name}, page {number}"
    if pdf in (RAG_SURVEY, ACL_PAPER):  # two-column papers: the band-by-band branch is compared too
        assert sum(_two_columns(blocks, width) for blocks, width in pages) >= 5


def test_the_order_of_a_generated_two_column_page_with_a_spanning_block_and_equal_blocks() -> None:
    def block(text: str, x0: float, y0: float, x1: float) -> Block:
        return Block("text", text, 1, (x0, y0, x1, y0 + 12))

    blocks = [block("Left one, a paragraph of words.", 50, 100, 290), block("Right one, words.", 320, 100, 560),
              block("Left two, more words here.", 50, 130, 290), block("Right two, words too.", 320, 130, 560),
              block("A figure spanning both columns.", 50, 200, 560),
              block("Left three below the figure.", 50, 260, 290), block("Right three.", 320, 260, 560),
              block("Right three.", 320, 260, 560)]  # two equal blocks: each keeps its own place
    expected = [0, 2, 1, 3, 4, 5, 6, 7]
    assert [blocks.index(b) if b is not blocks[7] else 7 for b in reading_order(blocks, 612)] == expected
    assert [id(b) for b in reading_order(blocks, 612)] == [id(b) for b in quadratic_reading_order(blocks, 612)]


class _CountingBlock(Block):
    """A block that counts the equality tests made on blocks."""

    comparisons = 0

    def __eq__(self, other: object) -> bool:
        _CountingBlock.comparisons += 1
        return super().__eq__(other)


def _dense_two_columns(n: int) -> list[Block]:
    """``n`` small blocks in two columns of a Letter page, a spanning block every 50 rows."""
    blocks: list[Block] = []
    for i in range(n):
        row, right = divmod(i, 2)
        if row % 50 == 49 and not right:
            blocks.append(_CountingBlock("text", "a spanning line", 1, (40, row * 0.15, 570, row * 0.15 + 2)))
            continue
        x0 = 320 if right else 40
        blocks.append(_CountingBlock("text", f"w{i}", 1, (x0, row * 0.15, x0 + 200, row * 0.15 + 2)))
    return blocks


def test_a_page_of_10000_blocks_is_ordered_without_comparing_blocks_pairwise() -> None:
    blocks = _dense_two_columns(10_000)
    _CountingBlock.comparisons = 0
    began = time.perf_counter()
    order = reading_order(blocks, 612)
    seconds = time.perf_counter() - began
    assert sorted(map(id, order)) == sorted(map(id, blocks))  # every block once
    # the quadratic version made some 49 million equality tests here: up to a column's blocks for each block
    assert _CountingBlock.comparisons <= len(blocks), _CountingBlock.comparisons
    assert seconds < 10.0  # about 0.05 s; the quadratic version took over a minute
