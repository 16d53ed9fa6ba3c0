"""Training the heading classifier from bookmarked PDFs: every outline is free supervision.

    corpus = [labelled(path, family) for path, family in corpus_paths(["manuals=/usr/share/doc/r-doc-pdf"])]
    fit([d for d in corpus if d is not None]).save(Path("heading-model.json"))   # bookrag train headings

In a PDF with an outline, the block each bookmark points at (matched as indexing does, :func:`.headings.from_outline`)
is a heading of its level, the other candidates are not. A block holding a bookmark's title and more text is left out
(neither label fits), and so is a document whose bookmarks match fewer than ``MIN_MATCHED`` blocks (bookmarks at pages,
not headings). A document weighs the square root of its headings (:func:`document_weight`); the threshold is chosen by
cross-validation over documents (:func:`choose_threshold`). Documents come in families (``manuals=DIR papers=DIR2``)
that ``bookrag bench headings`` holds out in turn.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import DocumentError
from ..parsing.blocks import ParsedDocument
from ..parsing.pymupdf_parser import parse_pdf
from ..parsing.regions import classify_pages, spread
from .features import candidate_features
from .headings import MIN_OUTLINE, from_outline
from .learned import MAX_LEVEL, HeadingModel, Trees

log = logging.getLogger(__name__)

MIN_MATCHED = 0.6  # share of bookmarks that must match a block of their own for a document to teach anything
VERSION = "headings-4"
FOLDS = 5  # cross-validation folds over documents that choose the decision threshold
THRESHOLDS = (0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6)


@dataclass
class Labelled:
    """One training document: its candidates' features, heading labels and levels (0 when not a heading)."""

    name: str
    family: str
    sha256: str
    pages: int
    x: np.ndarray
    heading: np.ndarray
    level: np.ndarray
    parsed: ParsedDocument
    matched: float = 1.0  # share of its bookmarks that match a heading block of their own


def corpus_paths(arguments: list[str]) -> list[tuple[Path, str]]:
    """``[FAMILY=]PATH`` arguments (a PDF or a folder searched recursively) as (pdf, family); the family defaults
    to the folder's name."""
    found: list[tuple[Path, str]] = []
    for argument in arguments:
        family, _, rest = argument.rpartition("=") if "=" in argument else ("", "", argument)
        path = Path(rest).expanduser()
        if not path.exists():
            raise DocumentError(f"{path}: no such file or folder")
        pdfs = sorted(path.rglob("*.pdf")) if path.is_dir() else [path]
        found += [(p, family or (path.name if path.is_dir() else path.parent.name)) for p in pdfs]
    return found


def labelled(path: Path, family: str, *, region_pages: int = 0) -> Labelled | None:
    """The training rows of one PDF, or ``None`` when its outline teaches nothing. ``region_pages``: run the
    region model on up to that many pages with candidates (evenly spread), so the model learns its class."""
    try:
        parsed = parse_pdf(path, tables="off")
    except DocumentError as exc:
        log.info("skipping %s: %s", path.name, exc)
        return None
    return labelled_parsed(parsed, path.name, family, region_pages=region_pages)


def labelled_parsed(parsed: ParsedDocument, name: str, family: str, *, region_pages: int = 0) -> Labelled | None:
    """:func:`labelled` of a PDF parsed already."""
    if len(parsed.outline) < MIN_OUTLINE:
        return None
    targets = from_outline(parsed)
    own = {h.position: h.level for h in targets if h.consumes}
    mixed = {h.position for h in targets if not h.consumes}
    if len(own) < MIN_MATCHED * len(parsed.outline):
        log.info("skipping %s: %d of %d bookmarks match a heading block", name, len(own), len(parsed.outline))
        return None
    # the region model's classes go on copies: ``parsed`` stays as indexing sees it, for held-out scoring
    hidden = dataclasses.replace(parsed, outline=[], blocks=[dataclasses.replace(b) for b in parsed.blocks])
    if region_pages:
        classify_pages(hidden, spread(sorted({b.page for b in hidden.blocks}), region_pages))
    positions, x = candidate_features(hidden)
    keep = [k for k, p in enumerate(positions) if p not in mixed]
    levels = np.asarray([min(own.get(positions[k], 0), MAX_LEVEL) for k in keep], dtype=np.int64)
    return Labelled(name, family, parsed.content_hash, parsed.page_count, x[keep], (levels > 0).astype(np.int64),
                    levels, parsed, len(own) / len(parsed.outline))


def _trees(model: Any) -> list[list[dict[str, list[float]]]]:
    stages = []
    for stage in model.estimators_:
        trees = []
        for estimator in stage:
            t = estimator.tree_
            trees.append({"feature": [int(f) if f >= 0 else -1 for f in t.feature],
                          "threshold": [round(float(v), 6) for v in t.threshold],
                          "left": t.children_left.tolist(), "right": t.children_right.tolist(),
                          "value": [round(float(v), 6) for v in t.value[:, 0, 0]]})
        stages.append(trees)
    return stages


def _boosted(x: np.ndarray, y: np.ndarray, weight: np.ndarray, stages: int) -> Trees:
    from sklearn.ensemble import GradientBoostingClassifier

    model = GradientBoostingClassifier(n_estimators=stages, max_depth=3, learning_rate=0.1, subsample=0.8,
                                       init="zero", random_state=0)
    model.fit(x, y, sample_weight=weight)
    return Trees(learning_rate=0.1, trees=_trees(model), classes=[int(c) for c in model.classes_])


def document_weight(doc: Labelled) -> float:
    """A document's total weight among the training rows: the square root of its headings, so that a manual
    with 600 bookmarks teaches more than a 5-section paper (about 11 times), not 120 times more."""
    return 1000.0 * float(np.sqrt(max(int(doc.heading.sum()), 1)))


def _heading_trees(corpus: list[Labelled], stages: int) -> Trees:
    x = np.vstack([d.x for d in corpus])
    y = np.concatenate([d.heading for d in corpus])
    weight = np.concatenate([np.full(len(d.x), document_weight(d) / max(len(d.x), 1)) for d in corpus])
    return _boosted(x, y, weight, stages)


def _classes(corpus: list[Labelled]) -> np.ndarray:
    """The heading labels (0, 1) that occur among the documents' candidates."""
    return np.unique(np.concatenate([d.heading for d in corpus])) if corpus else np.zeros(0, dtype=np.int64)


def _f1(truth: np.ndarray, chosen: np.ndarray) -> float:
    hits = int((truth & chosen).sum())
    return 2 * hits / max(int(truth.sum()) + int(chosen.sum()), 1)


def choose_threshold(corpus: list[Labelled], *, stages: int, folds: int = FOLDS,
                     progress: Callable[[str], None] | None = None) -> tuple[float, dict[str, float]]:
    """The decision threshold with the best mean F1 per document on out-of-fold probabilities: the documents
    split into ``folds`` groups, each scored by a model trained on the others (a document never scores
    itself). Returns it and the mean F1 at each of :data:`THRESHOLDS`."""
    fold_of = {d.sha256: k % folds for k, d in enumerate(sorted(corpus, key=lambda d: d.sha256))}
    probability: dict[str, np.ndarray] = {}
    for k in range(folds):
        if progress:
            progress(f"threshold: fold {k + 1} of {folds}")
        others = [d for d in corpus if fold_of[d.sha256] != k]
        seen = _classes(others)
        trees = _heading_trees(others, stages) if len(seen) > 1 else None
        for d in corpus:
            if fold_of[d.sha256] == k:  # documents whose candidates were all of one class teach only that class
                probability[d.sha256] = (1.0 / (1.0 + np.exp(-trees.raw(d.x)[:, 0])) if trees is not None
                                         else np.full(len(d.x), float(seen[0]) if len(seen) else 0.0))
    mean_f1 = {f"{t:.2f}": float(np.mean([_f1(d.heading == 1, probability[d.sha256] >= t) for d in corpus]))
               for t in THRESHOLDS}
    best = max(THRESHOLDS, key=lambda t: (round(mean_f1[f"{t:.2f}"], 4), -abs(t - 0.5)))
    return best, {t: round(v, 4) for t, v in mean_f1.items()}


def fit(corpus: list[Labelled], *, stages: int = 100, folds: int = FOLDS,
        progress: Callable[[str], None] | None = None) -> HeadingModel:
    """Train both models on ``corpus`` (each document as :func:`document_weight` says), with the threshold chosen by
    :func:`choose_threshold` (0.5 with ``folds`` below 2 or fewer documents than folds)."""
    if not corpus:
        raise DocumentError("no training document: none of the PDFs has an outline that matches its headings")
    if len(_classes(corpus)) < 2:
        raise DocumentError("every candidate line of the training PDFs is a heading, or none is: a classifier needs "
                            "both; add documents with body text and an outline")
    threshold = 0.5
    cross_validated: dict[str, float] = {}
    if 2 <= folds <= len(corpus):
        threshold, cross_validated = choose_threshold(corpus, stages=stages, folds=folds, progress=progress)
    candidates, headings = sum(len(d.x) for d in corpus), sum(int(d.heading.sum()) for d in corpus)
    if progress:
        progress(f"heading model: {candidates} candidates, {headings} headings, {len(corpus)} documents, "
                 f"threshold {threshold:.2f}")
    heading = _heading_trees(corpus, stages)
    rows = [(d.x[d.heading == 1], d.level[d.heading == 1], d) for d in corpus if d.heading.any()]
    lx = np.vstack([r[0] for r in rows])
    ly = np.concatenate([r[1] for r in rows])
    lw = np.concatenate([np.full(len(r[1]), 100.0 / len(r[1])) for r in rows])
    if progress:
        progress(f"level model: {len(lx)} headings")
    level = _boosted(lx, ly, lw, stages) if len(set(ly.tolist())) > 1 else Trees(0.0, [], [int(ly[0])])
    training = {
        "trained_at": datetime.now(UTC).isoformat(timespec="seconds"), "candidates": candidates,
        "headings": headings, "stages": stages, "folds": folds, "cross_validated_f1": cross_validated,
        "documents": [{"name": d.name, "family": d.family, "sha256": d.sha256, "pages": d.pages} for d in corpus],
    }
    return HeadingModel(heading=heading, level=level, threshold=threshold, version=VERSION, training=training)
