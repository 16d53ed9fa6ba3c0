"""Which detector finds a document's sections: the outline, the LLM, the parser's levels, or an offline detector.

    headings, source, failed = await detect_headings(parsed)                  # auto, no LLM
    headings, source, failed = await detect_headings(parsed, detector="heuristic")

Offline (``BOOKRAG_HEADINGS``): ``heuristic``, typography rules (:func:`.headings.from_typography`), the fastest;
``learned``, the classifier learned from bookmarked PDFs (:mod:`.learned`); ``regions``, the region model (PyMuPDF's
layout analysis) on every page, the slowest; ``auto`` (default), ``learned`` with the region model where it is unsure
(:data:`AUTO_REGION_SHARE`), then a second opinion: where the model, on :data:`CHECK_PAGES` pages, barely agrees with
the classifier (:data:`MIN_AGREEMENT`) and confirms few of its headings (:data:`MIN_CONFIRMED`), the classifier does not
know such documents and the model's headings are taken. One that merely finds fewer keeps its own: the extras are often
labels (the lab notebook, docs/eval/README.md: "auto's choice of heading detector").
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Literal

from ..llm.chat import ChatModel
from ..parsing.blocks import ParsedDocument
from ..parsing.regions import HEADING_CLASSES, classify_pages, spread
from .features import candidate_features, toc_pages
from .headings import MIN_OUTLINE, from_llm, from_outline, from_parser, from_typography, has_parser_levels
from .learned import HeadingModel, headings_from_scores, score_candidates
from .model import Heading

log = logging.getLogger(__name__)

Detector = Literal["auto", "learned", "regions", "heuristic"]
AUTO_REGION_SHARE = 0.25  # auto reads at most this share of a document's pages with the region model
UNSURE = (0.15, 0.85)  # heading probabilities the classifier is unsure about
CHECK_PAGES = 8  # pages the region model has read, at least, before auto's second opinion
MIN_AGREEMENT = 0.4  # below this F1 between the classifier's headings and the region model's, auto takes the latter
MIN_CONFIRMED = 0.8  # ... unless at least this share of the classifier's headings are the region model's too


def from_region_model(doc: ParsedDocument, model: HeadingModel | None = None, workers: int = 0) -> list[Heading]:
    """The region model's title and section-header regions as headings (it reads every page not read yet)."""
    model = model or HeadingModel.shipped()
    classify_pages(doc, {b.page for b in doc.blocks if not b.region_class}, workers)
    positions, x = candidate_features(doc)
    skip = toc_pages(doc)
    chosen = [k for k, p in enumerate(positions)
              if doc.blocks[p].region_class in HEADING_CLASSES and doc.blocks[p].page not in skip]
    if not chosen:
        return []
    levels = model.levels(x[chosen])
    return [Heading(positions[k], int(level), doc.blocks[positions[k]].text, doc.blocks[positions[k]].page)
            for k, level in zip(chosen, levels, strict=True)]


def from_auto(doc: ParsedDocument, model: HeadingModel | None = None,
              workers: int = 0) -> tuple[list[Heading], int, str]:
    """The classifier, helped by the region model on the pages where it is unsure, then checked against it;
    returns the headings, how many pages the region model read, and which detector's headings they are
    (``learned`` or ``regions``)."""
    model = model or HeadingModel.shipped()
    positions, x, probability = score_candidates(doc, model)
    unsure: dict[int, int] = {}
    for p, prob in zip(positions, probability, strict=True):
        block = doc.blocks[p]
        if UNSURE[0] < prob < UNSURE[1] and not block.region_class:
            unsure[block.page] = unsure.get(block.page, 0) + 1
    budget = int(AUTO_REGION_SHARE * doc.page_count)
    pages = sorted(unsure, key=lambda page: (-unsure[page], page))[:budget]
    read = classify_pages(doc, pages, workers) if pages else 0
    if read:
        positions, x, probability = score_candidates(doc, model)
    headings = headings_from_scores(doc, model, positions, x, probability)
    read += _read_spread(doc, CHECK_PAGES, workers)
    f1, confirmed = agreement(doc, headings)
    if f1 < MIN_AGREEMENT and confirmed < MIN_CONFIRMED:
        before = {b.page for b in doc.blocks if b.region_class}
        second = from_region_model(doc, model, workers)
        read += len({b.page for b in doc.blocks if b.region_class} - before)
        if second:
            log.info("%s: the heading classifier and the region model disagree; the region model's headings are "
                     "taken", doc.path.name)
            return second, read, "regions"
    return headings, read, "learned"


def _read_spread(doc: ParsedDocument, total: int, workers: int) -> int:
    """Let the region model read pages spread over the document until it has read ``total`` of them."""
    done = {b.page for b in doc.blocks if b.region_class}
    pages = sorted({b.page for b in doc.blocks if b.kind in ("text", "title", "list")} - done)
    chosen = spread(pages, total - len(done))
    return classify_pages(doc, chosen, workers) if chosen else 0


def agreement(doc: ParsedDocument, headings: list[Heading]) -> tuple[float, float]:
    """On the pages the region model read: the F1 between ``headings`` and its title and section-header blocks,
    and the share of ``headings`` it confirms (0 where there are none). (1.0, 1.0) where it has no heading there:
    nothing to contradict."""
    read = {b.page for b in doc.blocks if b.region_class}
    mine = {h.position for h in headings if doc.blocks[h.position].page in read}
    theirs = {i for i, b in enumerate(doc.blocks) if b.page in read and b.region_class in HEADING_CLASSES}
    if not theirs:
        return 1.0, 1.0
    both = len(mine & theirs)
    return 2 * both / (len(mine) + len(theirs)), both / len(mine) if mine else 0.0


def offline_headings(doc: ParsedDocument, detector: Detector = "auto", workers: int = 0,
                     model: HeadingModel | Path | None = None) -> tuple[list[Heading], str]:
    """Headings by an offline detector, and the source to record (``learned``, ``regions`` or ``heuristic``).
    ``model``: the classifier, or the file to load it from (``None``: the shipped one), loaded only by the
    detectors that use it."""
    if detector == "heuristic":
        return from_typography(doc), "heuristic"
    model = _model(model)
    if detector == "regions":
        return from_region_model(doc, model, workers), "regions"
    if detector == "learned":
        return headings_from_scores(doc, model, *score_candidates(doc, model)), "learned"
    headings, read, source = from_auto(doc, model, workers)
    log.debug("auto headings: the region model read %d of %d pages", read, doc.page_count)
    return headings, source


def _model(model: HeadingModel | Path | None) -> HeadingModel:
    return model if isinstance(model, HeadingModel) else HeadingModel.shipped(model)


async def detect_headings(doc: ParsedDocument, llm: ChatModel | None = None, *, detector: Detector = "auto",
                          workers: int = 0, model: HeadingModel | Path | None = None) -> tuple[list[Heading], str, int]:
    """Headings, their source (``outline``, ``llm``, the parser's name such as ``mineru``, or the offline
    detector's; ``learned: the LLM did not answer`` when every LLM batch failed), and the count of failed LLM
    batches. On a PDF parsed by PyMuPDF the LLM sees the classifier's probability of each candidate, and a failed
    batch keeps the offline detector's verdicts (the parser's levels on MinerU output)."""
    if len(doc.outline) >= MIN_OUTLINE:
        return from_outline(doc), "outline", 0
    if has_parser_levels(doc) and llm is None:
        return from_parser(doc), doc.parser, 0
    if llm is None:  # CPU-bound (the classifier, the region model): off the event loop
        headings, source = await asyncio.to_thread(offline_headings, doc, detector, workers, model)
        return headings, source, 0
    if has_parser_levels(doc):  # MinerU: no font features for the classifier; its levels are the fallback
        found, fallback_source = await from_llm(doc, llm, fallback=from_parser(doc)), doc.parser
    else:
        model = _model(model)
        positions, _, probability = await asyncio.to_thread(score_candidates, doc, model)
        fallback, fallback_source = await asyncio.to_thread(offline_headings, doc, detector, workers, model)
        found = await from_llm(doc, llm, fallback=fallback,
                               scores=dict(zip(positions, probability.tolist(), strict=True)))
    source = f"{fallback_source}: the LLM did not answer" if found.fell_back else "llm"
    return found.headings, source, found.failed
