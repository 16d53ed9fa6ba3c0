"""The learned heading detector: gradient-boosted trees over :mod:`.features`, shipped as JSON.

    model = HeadingModel.shipped()
    headings = from_learned(parsed, model)          # [Heading(position=12, level=1, title='Introduction', ...)]
    model.heading_probability(matrix)               # one probability per candidate row

Two models learned from bookmarked PDFs (:mod:`.training`): **heading** (is a candidate a heading? a probability) and
**level** (1, 2, 3, or 4 and deeper) from the same features, not from its style's rank among the headings found, which
one heading more or less at the top would shift. The trees are plain arrays in ``heading-model.json`` beside this module
(with the features and the training documents' SHA-256), evaluated with NumPy: no scikit-learn, no pickle.
``bookrag train headings`` makes a new one.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import ConfigurationError
from ..parsing.blocks import ParsedDocument
from .features import FEATURES, candidate_features
from .model import Heading
from .numbering import complete_numbering

MODEL_PATH = Path(__file__).with_name("heading-model.json")
MAX_LEVEL = 4


@dataclass
class Trees:
    """An additive ensemble of regression trees (scikit-learn's ``GradientBoostingClassifier`` with
    ``init="zero"``): ``trees[stage][class]`` arrays of nodes; a leaf has ``feature == -1``."""

    learning_rate: float
    trees: list[list[dict[str, list[float]]]]
    classes: list[int] = field(default_factory=lambda: [0, 1])

    def raw(self, x: np.ndarray) -> np.ndarray:
        """Raw scores, one column per class (one column for a binary model)."""
        out = np.zeros((len(x), len(self.trees[0]) if self.trees else 1))
        for stage in self.trees:
            for k, tree in enumerate(stage):
                out[:, k] += self.learning_rate * _evaluate(tree, x)
        return out

    def to_json(self) -> dict[str, Any]:
        return {"learning_rate": self.learning_rate, "classes": self.classes, "trees": self.trees}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Trees:
        return cls(learning_rate=data["learning_rate"], trees=data["trees"], classes=data["classes"])


def _evaluate(tree: dict[str, list[float]], x: np.ndarray) -> np.ndarray:
    feature = np.asarray(tree["feature"], dtype=np.int64)
    threshold = np.asarray(tree["threshold"])
    left, right = np.asarray(tree["left"], dtype=np.int64), np.asarray(tree["right"], dtype=np.int64)
    node = np.zeros(len(x), dtype=np.int64)
    rows = np.arange(len(x))
    while True:
        inner = feature[node] >= 0
        if not inner.any():
            break
        go_left = x[rows, np.maximum(feature[node], 0)] <= threshold[node]
        node = np.where(inner, np.where(go_left, left[node], right[node]), node)
    return np.asarray(tree["value"])[node]


@dataclass
class HeadingModel:
    """The two models, the decision threshold, and what they were trained on."""

    heading: Trees
    level: Trees
    threshold: float = 0.5
    version: str = ""
    features: tuple[str, ...] = FEATURES
    training: dict[str, Any] = field(default_factory=dict)

    def heading_probability(self, x: np.ndarray) -> np.ndarray:
        return 1.0 / (1.0 + np.exp(-self.heading.raw(x)[:, 0]))

    def levels(self, x: np.ndarray) -> np.ndarray:
        raw = self.level.raw(x)
        classes = np.asarray(self.level.classes)
        if raw.shape[1] == 1 and len(classes) == 2:  # a binary model: one column, the log-odds of the second class
            return np.where(raw[:, 0] > 0, classes[1], classes[0])
        return classes[raw.argmax(axis=1)]

    def save(self, path: Path = MODEL_PATH) -> None:
        data = {"version": self.version, "features": list(self.features), "level_features": list(self.features),
                "threshold": self.threshold, "training": self.training, "heading": self.heading.to_json(),
                "level": self.level.to_json()}
        path.write_text(json.dumps(data, separators=(",", ":")) + "\n")

    @classmethod
    def load(cls, path: Path) -> HeadingModel:
        try:
            data = json.loads(path.read_text())
        except (OSError, ValueError) as exc:
            raise ConfigurationError(f"cannot read the heading model {path}: {exc}") from exc
        if tuple(data["features"]) != FEATURES or tuple(data.get("level_features", ())) != FEATURES:
            raise ConfigurationError(f"the heading model {path} was trained on other features; retrain it with "
                                     "`bookrag train headings`")
        return cls(heading=Trees.from_json(data["heading"]), level=Trees.from_json(data["level"]),
                   threshold=data["threshold"], version=data["version"], training=data.get("training", {}))

    @staticmethod
    def shipped(path: Path | None = None) -> HeadingModel:
        """The model shipped in the package, or the one at ``path`` (``BOOKRAG_HEADING_MODEL``), loaded once."""
        return _load(path or MODEL_PATH)


@cache
def _load(path: Path) -> HeadingModel:
    return HeadingModel.load(path)


def score_candidates(doc: ParsedDocument, model: HeadingModel) -> tuple[list[int], np.ndarray, np.ndarray]:
    """Candidate positions, their feature rows and their heading probabilities."""
    positions, x = candidate_features(doc)
    return positions, x, model.heading_probability(x) if len(x) else np.zeros(0)


def headings_from_scores(doc: ParsedDocument, model: HeadingModel, positions: list[int], x: np.ndarray,
                         probability: np.ndarray) -> list[Heading]:
    """The candidates at or above the model's threshold and the numbered ones they complete, with their levels:
    the level model's; a completed heading's from the heading that asked for it."""
    chosen = [k for k, p in enumerate(probability) if p >= model.threshold]
    added = complete_numbering(doc, positions, x, chosen)
    chosen = sorted({*chosen, *added})
    if not chosen:
        return []
    level = dict(zip(chosen, (int(v) for v in model.levels(x[chosen])), strict=True))
    for k, (asker, step) in added.items():  # in the order found: an asker's level is final
        level[k] = min(max(level[asker] + step, 1), MAX_LEVEL)
    return [Heading(positions[k], level[k], doc.blocks[positions[k]].text, doc.blocks[positions[k]].page)
            for k in chosen]


def from_learned(doc: ParsedDocument, model: HeadingModel | None = None) -> list[Heading]:
    """Headings by the learned classifier (the shipped model unless ``model`` is given)."""
    model = model or HeadingModel.shipped()
    positions, x, probability = score_candidates(doc, model)
    return headings_from_scores(doc, model, positions, x, probability)
