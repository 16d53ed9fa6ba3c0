"""``auto``'s second opinion: where the classifier's headings and the region model's barely agree on the pages the
model read, the region model's headings are taken; where they agree, the classifier's stay. The region model's
verdicts are written on the blocks here (every page counts as read), so the test needs no model run."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from bookrag_neo4j.parsing.pymupdf_parser import parse_pdf
from bookrag_neo4j.tree.detect import MIN_AGREEMENT, agreement, from_auto
from bookrag_neo4j.tree.learned import from_learned

from .test_learned_headings import bookmarked_pdf


def _hidden(tmp_path: Path):
    parsed = parse_pdf(bookmarked_pdf(tmp_path / "r.pdf", seed=5, style=0), tables="off")
    return dataclasses.replace(parsed, outline=[])


def _layout_says(doc, headings: set[int]) -> None:
    for i, block in enumerate(doc.blocks):
        block.region_class = "section-header" if i in headings else "text"


def test_agreement_is_the_f1_of_the_two_detectors_and_the_share_the_model_confirms(tmp_path: Path) -> None:
    doc = _hidden(tmp_path)
    found = from_learned(doc)
    positions = sorted(h.position for h in found)
    assert len(positions) >= 8
    assert agreement(doc, found) == (1.0, 1.0)  # nothing read: nothing to contradict
    _layout_says(doc, set(positions))
    assert agreement(doc, found) == (1.0, 1.0)
    half = set(positions[: len(positions) // 2])
    _layout_says(doc, half)
    f1, confirmed = agreement(doc, found)
    assert abs(f1 - 2 * len(half) / (len(positions) + len(half))) < 1e-9 and confirmed == len(half) / len(positions)
    assert agreement(doc, []) == (0.0, 0.0)  # the classifier found none where the model has some
    others = {i for i, b in enumerate(doc.blocks) if i not in half}
    _layout_says(doc, half | others)  # the model confirms all of some headings but says far more
    f1, confirmed = agreement(doc, [h for h in found if h.position in half])
    assert f1 < MIN_AGREEMENT and confirmed == 1.0


def test_auto_keeps_the_classifier_where_the_layout_model_agrees(tmp_path: Path) -> None:
    doc = _hidden(tmp_path)
    learned = from_learned(dataclasses.replace(doc, blocks=[dataclasses.replace(b) for b in doc.blocks]))
    _layout_says(doc, {h.position for h in learned})
    headings, _, source = from_auto(doc)
    assert [h.title for h in headings] == [h.title for h in learned] and source == "learned"


def test_auto_takes_the_layout_models_headings_where_the_two_disagree(tmp_path: Path) -> None:
    doc = _hidden(tmp_path)
    learned = from_learned(dataclasses.replace(doc, blocks=[dataclasses.replace(b) for b in doc.blocks]))
    one = learned[-1].position  # the region model calls one of the classifier's ten headings a heading
    _layout_says(doc, {one})
    assert agreement(doc, learned)[0] < MIN_AGREEMENT
    headings, _, source = from_auto(doc)
    assert [h.position for h in headings] == [one] and source == "regions"
    _layout_says(doc, set())  # a region model that finds no heading leaves the classifier's
    assert [h.title for h in from_auto(doc)[0]] == [h.title for h in learned]


def test_leave_one_family_out_scores_the_documents_whose_outline_matches_their_headings(tmp_path: Path) -> None:
    from bookrag_neo4j.eval.bench_headings import leave_one_family_out

    corpus = [(bookmarked_pdf(tmp_path / f"r{k}.pdf", seed=k, style=k % 3), ("memos", "reports")[k // 3])
              for k in range(6)]
    families = leave_one_family_out(corpus, region_pages=0)
    assert set(families) == {"memos", "reports"}
    for summary in families.values():
        assert summary["documents"] == summary["matching_documents"] == 3 and summary["training_documents"] == 3
        assert summary["auto_f1_matching"] == summary["auto_f1"] >= 0.8
