"""The learned heading classifier: trained on bookmarked PDFs written here, it finds a held-back document's
headings; the shipped model loads and scores a real manual; its trees score as scikit-learn's do; the bench's
JSON carries the default detector; bookmark positions are measured from the top of the page."""

from __future__ import annotations

import dataclasses
import json
import random
from pathlib import Path

import numpy as np
import pymupdf
import pytest
from typer.testing import CliRunner

from bookrag_neo4j.cli import app
from bookrag_neo4j.errors import ConfigurationError, DocumentError
from bookrag_neo4j.eval.bench_headings import score
from bookrag_neo4j.parsing.pymupdf_parser import parse_pdf
from bookrag_neo4j.tree.detect import detect_headings
from bookrag_neo4j.tree.headings import from_typography
from bookrag_neo4j.tree.learned import FEATURES, HeadingModel, from_learned
from bookrag_neo4j.tree.training import (
    THRESHOLDS,
    Labelled,
    choose_threshold,
    corpus_paths,
    document_weight,
    fit,
    labelled,
)

from ..helpers.pdfs import R_INTRO, need

WORDS = ("the report describes how each unit measures its results and why the figures differ from last year "
         "while the method stays the same for every region and product line we sell").split()
# (font, size) of level-1 and level-2 headings, numbered or not: three house styles
STYLES = [(("hebo", 16), ("hebo", 13), True), (("tibo", 14), ("tibo", 11), False), (("helv", 15), ("hebo", 10), True)]


def _paragraph(rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(70)).capitalize() + "."


def bookmarked_pdf(path: Path, seed: int, style: int) -> Path:
    """A report of 4 chapters of 2 sections each, in one of three house styles, with its outline."""
    rng = random.Random(seed)
    (h1_font, h1_size), (h2_font, h2_size), numbered = STYLES[style]
    pdf = pymupdf.open()
    toc = []
    page, y = pdf.new_page(), 72.0

    def write(text: str, font: str, size: float, gap: float) -> None:
        nonlocal page, y
        if y > 640:
            page, y = pdf.new_page(), 72.0
        y += gap
        box = pymupdf.Rect(72, y, 540, y + 400)
        spare = page.insert_textbox(box, text, fontname=font, fontsize=size)
        y += 400 - spare + 4

    def heading(level: int, text: str, font: str, size: float, gap: float) -> None:
        """A heading and its bookmark, on a new page when fewer than ~3 lines of body text would follow it."""
        nonlocal page, y
        if y > (560 if level == 1 else 600):
            page, y = pdf.new_page(), 72.0
        toc.append([level, text, page.number + 1])
        write(text, font, size, gap)

    write(_paragraph(rng), "helv", 10, 0)
    for c in range(1, 5):
        title = f"{rng.choice(WORDS).capitalize()} {rng.choice(WORDS)} {c}"
        heading(1, f"{c} {title}" if numbered else title, h1_font, h1_size, 18)
        for s in range(1, 3):
            write(_paragraph(rng), "helv", 10, 4)
            sub = f"{rng.choice(WORDS).capitalize()} of {rng.choice(WORDS)}"
            heading(2, f"{c}.{s} {sub}" if numbered else sub, h2_font, h2_size, 10)
            write(_paragraph(rng), "helv", 10, 4)
    pdf.set_toc(toc)
    pdf.save(path)
    return path


def test_a_classifier_trained_on_bookmarked_pdfs_finds_a_held_back_documents_headings(tmp_path: Path) -> None:
    paths = [bookmarked_pdf(tmp_path / f"report{k}.pdf", seed=k, style=k % 3) for k in range(7)]
    train = [doc for p in paths[:6] if (doc := labelled(p, "reports")) is not None]
    assert len(train) == 6 and all(d.heading.sum() >= 11 for d in train)  # bookmarks matched to their own blocks
    model = fit(train, stages=40)
    held_back = parse_pdf(paths[6], tables="off")
    hidden = dataclasses.replace(held_back, outline=[])
    found = score(from_learned(hidden, model), held_back.outline)
    assert found["f1"] >= 0.9 and found["level_accuracy"] >= 0.9, found
    assert model.training["documents"][0]["sha256"] == train[0].sha256
    cross_validated = model.training["cross_validated_f1"]  # the threshold: the best out-of-fold mean F1
    assert set(cross_validated) == {f"{t:.2f}" for t in THRESHOLDS}
    assert cross_validated[f"{model.threshold:.2f}"] == max(cross_validated.values()) > 0.8
    assert fit(train, stages=40, folds=0).threshold == 0.5


def test_the_exported_trees_score_as_scikit_learn_does(tmp_path: Path) -> None:
    from sklearn.ensemble import GradientBoostingClassifier

    from bookrag_neo4j.tree.training import _trees

    rng = np.random.default_rng(0)
    x = rng.normal(size=(300, 4)).astype(np.float32)
    y = (x[:, 0] + x[:, 1] ** 2 > 0.5).astype(int)
    reference = GradientBoostingClassifier(n_estimators=20, max_depth=3, init="zero", random_state=0).fit(x, y)
    from bookrag_neo4j.tree.learned import Trees

    ours = Trees(0.1, _trees(reference), [0, 1]).raw(x)[:, 0]
    assert np.allclose(ours, reference.decision_function(x), atol=1e-4)


def test_the_shipped_model_loads_and_scores_a_real_manual() -> None:
    model = HeadingModel.shipped()
    assert model.version and len(model.training["documents"]) >= 50
    parsed = parse_pdf(need(R_INTRO), tables="off")
    assert parsed.outline[1].title.endswith("Introduction and preliminaries") and parsed.outline[1].y < 100  # top
    hidden = dataclasses.replace(parsed, outline=[])
    learned = score(from_learned(hidden, model), parsed.outline)
    assert learned["f1"] >= 0.9 and learned["level_accuracy"] >= 0.9, learned
    page8 = [h.title for h in from_learned(hidden, model) if h.page == 8]
    assert page8[:2] == ["1 Introduction and preliminaries", "1.1 The R environment"]


async def test_detectors_and_their_sources(tmp_path: Path) -> None:
    parsed = parse_pdf(bookmarked_pdf(tmp_path / "r.pdf", seed=9, style=0), tables="off")
    hidden = dataclasses.replace(parsed, outline=[])
    assert (await detect_headings(parsed))[1] == "outline"
    for detector, source in (("auto", "learned"), ("learned", "learned"), ("heuristic", "heuristic")):
        headings, found, failed = await detect_headings(hidden, detector=detector)
        assert found == source and failed == 0 and headings
    assert [h.title for h in (await detect_headings(hidden, detector="heuristic"))[0]] == \
        [h.title for h in from_typography(hidden)]


def test_bench_headings_json_has_the_default_detector(tmp_path: Path) -> None:
    pdf = bookmarked_pdf(tmp_path / "bench.pdf", seed=3, style=0)
    result = CliRunner().invoke(app, ["bench", "headings", str(pdf), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    row = report["documents"][0]
    assert report["default_detector"] == "auto"
    assert {"heuristic", "learned", "regions", "default"} <= row.keys() and row["default"]["outline"] == 12
    assert row["in_training"] is False and row["default"]["f1"] >= 0.8
    only = json.loads(CliRunner().invoke(app, ["bench", "headings", str(pdf), "--detectors", "learned", "--json"]).output)
    assert only["documents"][0].keys() >= {"learned", "default"} and "regions" not in only["documents"][0]
    assert CliRunner().invoke(app, ["bench", "headings", str(pdf), "--detectors", "magic"]).exit_code != 0
    # BOOKRAG_HEADING_MODEL: the bench scores (and marks in_training by) that model, not the shipped one
    mine = HeadingModel.shipped()
    mine = dataclasses.replace(mine, training={"documents": [{"sha256": parse_pdf(pdf, tables="off").content_hash}]})
    mine.save(tmp_path / "mine.json")
    other = CliRunner().invoke(app, ["bench", "headings", str(pdf), "--detectors", "learned", "--json"],
                               env={"BOOKRAG_HEADING_MODEL": str(tmp_path / "mine.json")})
    assert other.exit_code == 0, other.output
    assert json.loads(other.output)["documents"][0]["in_training"] is True


def test_families_come_from_the_arguments(tmp_path: Path) -> None:
    folder = tmp_path / "manuals"
    folder.mkdir()
    bookmarked_pdf(folder / "a.pdf", seed=1, style=0)
    one = bookmarked_pdf(tmp_path / "b.pdf", seed=2, style=1)
    assert corpus_paths([str(folder), f"papers={one}"]) == [(folder / "a.pdf", "manuals"), (one, "papers")]


def _document(sha: str, heading: list[int]) -> Labelled:
    """A training document whose headings have every feature at 1.0 and body lines at 0.0."""
    labels = np.asarray(heading, dtype=np.int64)
    x = np.repeat(labels.astype(np.float32)[:, None], len(FEATURES), axis=1)
    return Labelled(sha, "reports", sha, 1, x, labels, labels, None)  # type: ignore[arg-type]


def test_a_fold_trained_on_headings_only_scores_and_a_corpus_of_one_class_is_refused() -> None:
    # sorted by sha, "a" and "f" share fold 0 of 5: the four documents it trains on have headings only (CI, 888f800)
    corpus = [_document("a", [1, 0, 0]), *(_document(s, [1, 1]) for s in "bcde"), _document("f", [1, 0, 0])]
    threshold, mean_f1 = choose_threshold(corpus, stages=5, folds=5)
    assert threshold in THRESHOLDS and set(mean_f1) == {f"{t:.2f}" for t in THRESHOLDS}
    assert fit(corpus, stages=5).threshold == threshold
    with pytest.raises(DocumentError, match="a classifier needs both"):
        fit([_document(s, [1, 1]) for s in "bcde"], stages=5)


def test_a_document_weighs_the_square_root_of_its_headings_whatever_its_length() -> None:
    short, long = _document("a", [1, 0, 0, 0]), _document("b", [1] * 4 + [0] * 96)
    assert document_weight(short) == pytest.approx(1000.0)  # one heading
    assert document_weight(long) == pytest.approx(2000.0)  # four headings: twice the weight, not four times
    assert document_weight(_document("c", [0, 0])) == pytest.approx(1000.0)  # no heading still teaches "not one"


def test_a_model_whose_level_trees_read_other_features_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "old.json"
    HeadingModel.shipped().save(path)
    assert HeadingModel.load(path).level.trees  # as saved, it loads
    data = json.loads(path.read_text())
    del data["level_features"]  # a model of headings-3 or before: its level trees read two more columns
    path.write_text(json.dumps(data))
    with pytest.raises(ConfigurationError, match="retrain it"):
        HeadingModel.load(path)


def test_the_heuristics_need_no_heading_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from bookrag_neo4j.tree.detect import offline_headings

    def unreadable(path: Path | None = None) -> HeadingModel:
        raise ConfigurationError("the heading model cannot be read")

    monkeypatch.setattr(HeadingModel, "shipped", staticmethod(unreadable))
    hidden = dataclasses.replace(parse_pdf(bookmarked_pdf(tmp_path / "r.pdf", seed=9, style=0), tables="off"), outline=[])
    headings, source = offline_headings(hidden, "heuristic")
    assert source == "heuristic" and headings
    with pytest.raises(ConfigurationError):
        offline_headings(hidden, "learned")
    missing = tmp_path / "no-such-model.json"  # the indexer passes BOOKRAG_HEADING_MODEL's path: loaded on use only
    assert offline_headings(hidden, "heuristic", model=missing) == (headings, "heuristic")
    monkeypatch.undo()
    with pytest.raises(ConfigurationError, match="no-such-model.json"):
        offline_headings(hidden, "learned", model=missing)
