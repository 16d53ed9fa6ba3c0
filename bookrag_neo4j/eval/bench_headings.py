"""``bookrag bench headings``: section detection scored against the outlines authors wrote.

    rows = await bench_headings([Path("R-intro.pdf")])
    rows[0]["default"]["f1"], rows[0]["heuristic"]["f1"]
    families = leave_one_family_out(corpus_paths(["manuals=/usr/share/doc/r-doc-pdf"]), region_pages=12)

For each PDF with an outline: hide it, detect sections with each offline detector (``heuristic``, ``learned``,
``regions``, and ``default``, what ``BOOKRAG_HEADINGS`` selects; the LLM too when asked), and match them one-to-one to
the outline's entries (same page, title similarity >= 0.8, numbering ignored). Reports precision, recall, F1, level
accuracy and seconds; documents the shipped classifier was trained on are marked ``in_training``. **Leave one family
out** (``--corpus``): train anew on all families of a corpus but one, and score that one.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, Literal

from ..llm.chat import ChatModel
from ..parsing.blocks import OutlineEntry, ParsedDocument
from ..parsing.limits import read_outline
from ..parsing.pymupdf_parser import open_pdf, parse_pdf
from ..tree.detect import Detector, offline_headings
from ..tree.headings import MIN_OUTLINE, from_llm, similarity
from ..tree.learned import HeadingModel
from ..tree.model import Heading
from ..tree.training import Labelled, fit, labelled

BENCH_DETECTORS: tuple[Detector, ...] = ("heuristic", "learned", "regions")
MATCHING = 0.8  # share of bookmarks matching a heading block of their own: an outline of the printed headings


def score(detected: list[Heading], outline: list[OutlineEntry]) -> dict[str, float]:
    used: set[int] = set()
    matched_levels = []
    for h in detected:
        best, best_sim = None, 0.8
        for j, entry in enumerate(outline):
            if j in used or entry.page != h.page:
                continue
            sim = similarity(entry.title, h.title)
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


def _hidden(parsed: ParsedDocument) -> ParsedDocument:
    """The document without its outline, on copies of its blocks (a detector may add layout classes to them)."""
    return dataclasses.replace(parsed, outline=[], blocks=[dataclasses.replace(b) for b in parsed.blocks])


def _timed(parsed: ParsedDocument, run: Callable[[ParsedDocument], list[Heading]]) -> dict[str, float]:
    began = time.perf_counter()
    headings = run(_hidden(parsed))
    return {**score(headings, parsed.outline), "seconds": round(time.perf_counter() - began, 2)}


async def bench_headings(paths: list[Path], llm: ChatModel | None = None, *, default: Detector = "auto",
                         workers: int = 0, detectors: tuple[Detector, ...] = BENCH_DETECTORS,
                         model: HeadingModel | None = None) -> list[dict[str, Any]]:
    """One row a PDF with an outline: ``document``, ``pages``, ``in_training``, then one key per detector of
    ``detectors`` and ``default`` (each: outline, detected, matched, precision, recall, f1, level_accuracy,
    seconds). ``model``: the heading classifier (default: the shipped one)."""
    model = model or HeadingModel.shipped()
    trained_on = {d["sha256"] for d in model.training.get("documents", [])}
    rows = []
    for path in paths:
        pdf, _ = open_pdf(path)
        with pdf:
            if len(read_outline(pdf)[0]) < MIN_OUTLINE:  # before the (slow) table finder
                continue
        parsed = await asyncio.to_thread(parse_pdf, path, tables="regions", workers=workers)
        row: dict[str, Any] = {"document": path.name, "pages": parsed.page_count,
                               "in_training": parsed.content_hash in trained_on}
        columns: tuple[Detector | Literal["default"], ...] = (*detectors, "default")
        for detector in columns:
            chosen = default if detector == "default" else detector

            def offline(doc: ParsedDocument, d: Detector = chosen) -> list[Heading]:
                return offline_headings(doc, d, workers, model)[0]

            row[detector] = await asyncio.to_thread(_timed, parsed, offline)
        if llm is not None:
            began = time.perf_counter()
            hidden = _hidden(parsed)
            headings, failed, _ = await from_llm(hidden, llm,
                                                 fallback=offline_headings(hidden, default, workers, model)[0])
            row["llm"] = {**score(headings, parsed.outline), "failed_batches": failed,
                          "seconds": round(time.perf_counter() - began, 1)}
        rows.append(row)
    return rows


def _mean(values: Iterable[float]) -> float:
    values = list(values)
    return round(sum(values) / len(values), 3) if values else 0.0


def leave_one_family_out(corpus: list[tuple[Path, str]], *, region_pages: int = 12, workers: int = 0,
                         progress: Callable[[str], None] | None = None) -> dict[str, dict[str, float]]:
    """Per family: the mean F1 and level accuracy of a classifier trained without that family (``learned``
    and ``auto``), beside the heuristics', over the family's documents; and the mean F1 over those whose outline
    matches their printed headings (``*_f1_matching``: at least :data:`MATCHING` of the bookmarks match a heading
    block of their own; the others' bookmarks point at pages or paraphrase)."""
    from ..tree.detect import from_auto
    from ..tree.learned import headings_from_scores, score_candidates

    docs: list[Labelled] = [d for path, family in corpus if (d := labelled(path, family, region_pages=region_pages))]
    families: dict[str, dict[str, float]] = {}
    for family in sorted({d.family for d in docs}):
        held_out = [d for d in docs if d.family == family]
        rest = [d for d in docs if d.family != family]
        if not rest:
            continue
        if progress:
            progress(f"training without {family} ({len(rest)} documents)")
        model = fit(rest, stages=100)

        def learned(doc: ParsedDocument, m: HeadingModel = model) -> list[Heading]:
            return headings_from_scores(doc, m, *score_candidates(doc, m))

        def auto(doc: ParsedDocument, m: HeadingModel = model) -> list[Heading]:
            return from_auto(doc, m, workers)[0]

        runs: dict[str, Callable[[ParsedDocument], list[Heading]]] = {
            "learned": learned,
            "auto": auto,
            "heuristic": lambda doc: offline_headings(doc, "heuristic")[0],
        }
        matching = [d.matched >= MATCHING for d in held_out]
        summary: dict[str, float] = {"documents": len(held_out), "matching_documents": sum(matching),
                                     "training_documents": len(rest)}
        for name, run in runs.items():
            scores = [_timed(d.parsed, run) for d in held_out]
            summary[f"{name}_f1"] = _mean(s["f1"] for s in scores)
            summary[f"{name}_level_accuracy"] = _mean(s["level_accuracy"] for s in scores)
            summary[f"{name}_f1_matching"] = _mean(s["f1"] for s, m in zip(scores, matching, strict=True) if m)
        families[family] = summary
    return families

