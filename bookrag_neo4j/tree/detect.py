"""Which detector finds a document's sections: the outline, the LLM, the parser's levels, or one of the offline
detectors that ``BOOKRAG_HEADINGS`` selects.

Offline detectors (no outline, no LLM, a parser without heading levels):

- ``heuristic``: layout rules (:func:`~bookrag_neo4j.tree.headings.from_layout`), the fastest;
- ``learned``: the classifier learned from bookmarked PDFs (:mod:`.learned`), on font and position features and
  the layout model's classes where the parser already has them (pages the table finder read);
- ``layout``: PyMuPDF's layout model on every page: its ``title`` and ``section-header`` regions are the
  headings, levels from the learned level model (~0.3 CPU-s a page);
- ``auto`` (the default): ``learned``, then the layout model on the pages where the classifier is unsure (at
  most :data:`AUTO_LAYOUT_SHARE` of the pages), and the classifier again with those classes.

::

    headings, source, failed = await detect_headings(parsed)                  # auto, no LLM
    headings, source, failed = await detect_headings(parsed, detector="heuristic")
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Literal

from ..llm.chat import ChatModel
from ..parsing.blocks import ParsedDocument
from ..parsing.regions import HEADING_CLASSES, classify_pages
from .features import candidate_features, toc_pages
from .headings import MIN_OUTLINE, from_layout, from_llm, from_outline, from_parser, has_parser_levels
from .learned import HeadingModel, headings_from_scores, score_candidates
from .model import Heading

log = logging.getLogger(__name__)

Detector = Literal["auto", "learned", "layout", "heuristic"]
AUTO_LAYOUT_SHARE = 0.25  # auto reads at most this share of a document's pages with the layout model
UNSURE = (0.15, 0.85)  # heading probabilities the classifier is unsure about


def from_layout_model(doc: ParsedDocument, model: HeadingModel | None = None, workers: int = 0) -> list[Heading]:
    """The layout model's title and section-header regions as headings (it reads every page not read yet)."""
    model = model or HeadingModel.shipped()
    classify_pages(doc, {b.page for b in doc.blocks if not b.layout_class}, workers)
    positions, x = candidate_features(doc)
    skip = toc_pages(doc)
    chosen = [k for k, p in enumerate(positions)
              if doc.blocks[p].layout_class in HEADING_CLASSES and doc.blocks[p].page not in skip]
    if not chosen:
        return []
    levels = model.levels(x[chosen])
    return [Heading(positions[k], int(level), doc.blocks[positions[k]].text, doc.blocks[positions[k]].page)
            for k, level in zip(chosen, levels, strict=True)]


def from_auto(doc: ParsedDocument, model: HeadingModel | None = None, workers: int = 0) -> tuple[list[Heading], int]:
    """The classifier, helped by the layout model on the pages where it is unsure; returns the headings and how
    many pages the layout model read."""
    model = model or HeadingModel.shipped()
    positions, x, probability = score_candidates(doc, model)
    unsure: dict[int, int] = {}
    for p, prob in zip(positions, probability, strict=True):
        block = doc.blocks[p]
        if UNSURE[0] < prob < UNSURE[1] and not block.layout_class:
            unsure[block.page] = unsure.get(block.page, 0) + 1
    budget = int(AUTO_LAYOUT_SHARE * doc.page_count)
    pages = sorted(unsure, key=lambda page: (-unsure[page], page))[:budget]
    read = classify_pages(doc, pages, workers) if pages else 0
    if read:
        positions, x, probability = score_candidates(doc, model)
    return headings_from_scores(doc, model, positions, x, probability), read


def offline_headings(doc: ParsedDocument, detector: Detector = "auto", workers: int = 0,
                     model: HeadingModel | Path | None = None) -> tuple[list[Heading], str]:
    """Headings by an offline detector, and the source to record (``learned``, ``layout`` or ``heuristic``).
    ``model``: the classifier, or the file to load it from (``None``: the shipped one), loaded only by the
    detectors that use it."""
    if detector == "heuristic":
        return from_layout(doc), "heuristic"
    model = _model(model)
    if detector == "layout":
        return from_layout_model(doc, model, workers), "layout"
    if detector == "learned":
        return headings_from_scores(doc, model, *score_candidates(doc, model)), "learned"
    headings, read = from_auto(doc, model, workers)
    log.debug("auto headings: the layout model read %d of %d pages", read, doc.page_count)
    return headings, "learned"


def _model(model: HeadingModel | Path | None) -> HeadingModel:
    return model if isinstance(model, HeadingModel) else HeadingModel.shipped(model)


async def detect_headings(doc: ParsedDocument, llm: ChatModel | None = None, *, detector: Detector = "auto",
                          workers: int = 0, model: HeadingModel | Path | None = None) -> tuple[list[Heading], str, int]:
    """Headings, their source (``outline``, ``llm``, the parser's name such as ``mineru``, or the offline
    detector's), and the count of failed LLM batches. On a PDF parsed by PyMuPDF the LLM sees the classifier's
    probability of each candidate, and a failed batch keeps the offline detector's verdicts (the parser's levels
    on MinerU output)."""
    if len(doc.outline) >= MIN_OUTLINE:
        return from_outline(doc), "outline", 0
    if has_parser_levels(doc) and llm is None:
        return from_parser(doc), doc.parser, 0
    if llm is None:  # CPU-bound (the classifier, the layout model): off the event loop
        headings, source = await asyncio.to_thread(offline_headings, doc, detector, workers, model)
        return headings, source, 0
    if has_parser_levels(doc):  # MinerU: no font features for the classifier; its levels are the fallback
        headings, failed = await from_llm(doc, llm, fallback=from_parser(doc))
        return headings, "llm", failed
    model = _model(model)
    positions, _, probability = await asyncio.to_thread(score_candidates, doc, model)
    fallback, _ = await asyncio.to_thread(offline_headings, doc, detector, workers, model)
    headings, failed = await from_llm(doc, llm, fallback=fallback,
                                      scores=dict(zip(positions, probability.tolist(), strict=True)))
    return headings, "llm", failed
