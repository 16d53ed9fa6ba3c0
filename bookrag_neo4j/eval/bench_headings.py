"""``bookrag bench headings``: section detection scored against the outlines authors wrote.

For each PDF with an outline (bookmarks): hide the outline, detect sections from layout heuristics (and with
the LLM when one is configured), and match detected sections to outline entries one-to-one (same page,
title similarity >= 0.8, numbering ignored). Reports precision, recall, F1 and level accuracy (share of
matched sections at the outline's level).
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from pathlib import Path
from typing import Any

from ..llm.chat import ChatModel
from ..parsing.blocks import OutlineEntry, ParsedDocument
from ..parsing.pymupdf_parser import parse_pdf
from ..tree.headings import Heading, _similarity, from_layout, from_llm


def score(detected: list[Heading], outline: list[OutlineEntry]) -> dict[str, float]:
    used: set[int] = set()
    matched_levels = []
    for h in detected:
        best, best_sim = None, 0.8
        for j, entry in enumerate(outline):
            if j in used or entry.page != h.page:
                continue
            sim = _similarity(entry.title, h.title)
            if sim >= best_sim:
                best, best_sim = j, sim
        if best is not None:
            used.add(best)
            matched_levels.append(outline[best].level == h.level)
    matched = len(matched_levels)
    precision = matched / len(detected) if detected else 0.0
    recall = matched / len(outline) if outline else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {
        "outline": len(outline), "detected": len(detected), "matched": matched,
        "precision": round(precision, 3), "recall": round(recall, 3), "f1": round(f1, 3),
        "level_accuracy": round(sum(matched_levels) / matched, 3) if matched else 0.0,
    }


async def bench_headings(paths: list[Path], llm: ChatModel | None = None) -> list[dict[str, Any]]:
    rows = []
    for path in paths:
        parsed = await asyncio.to_thread(parse_pdf, path, tables=False)
        if len(parsed.outline) < 3:
            continue
        hidden: ParsedDocument = dataclasses.replace(parsed, outline=[])
        began = time.perf_counter()
        row = {"document": path.name, "pages": parsed.page_count, "heuristic": score(from_layout(hidden), parsed.outline),
               "heuristic_s": round(time.perf_counter() - began, 2)}
        if llm is not None:
            began = time.perf_counter()
            headings, failed = await from_llm(hidden, llm)
            row["llm"] = {**score(headings, parsed.outline), "failed_batches": failed}
            row["llm_s"] = round(time.perf_counter() - began, 1)
        rows.append(row)
    return rows
