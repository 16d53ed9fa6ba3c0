"""Candidate ``auto`` strategies for ``experiment.py`` (the layout model replayed from the cache)."""

from __future__ import annotations

import bookrag_neo4j.tree.detect as detect
from bookrag_neo4j.parsing.regions import HEADING_CLASSES
from bookrag_neo4j.tree.learned import headings_from_scores, score_candidates


def learned_all(doc, model):
    """The classifier with the layout model's class on every page (the upper bound of reading more pages)."""
    detect.classify_pages(doc, {b.page for b in doc.blocks})
    return headings_from_scores(doc, model, *score_candidates(doc, model))


def auto_floor(floor: int, share: float = detect.AUTO_LAYOUT_SHARE):
    """``auto`` whose layout budget is at least ``floor`` pages: unsure pages first, then the pages of the chosen
    headings, then pages spread over the document."""
    def run(doc, model):
        positions, x, probability = score_candidates(doc, model)
        unsure: dict[int, int] = {}
        chosen: set[int] = set()
        for p, prob in zip(positions, probability, strict=True):
            page = doc.blocks[p].page
            if detect.UNSURE[0] < prob < detect.UNSURE[1]:
                unsure[page] = unsure.get(page, 0) + 1
            elif prob >= detect.UNSURE[1]:
                chosen.add(page)
        budget = max(int(share * doc.page_count), floor)
        order = sorted(unsure, key=lambda page: (-unsure[page], page))
        order += [p for p in sorted(chosen) if p not in unsure]
        pages = sorted({b.page for b in doc.blocks if b.kind in ("text", "title", "list")})
        step = max(len(pages) / max(budget, 1), 1.0)
        order += [pages[int(k * step)] for k in range(min(budget, len(pages)))]
        picked: list[int] = []
        for p in order:
            if p not in picked:
                picked.append(p)
        detect.classify_pages(doc, picked[:budget])
        return headings_from_scores(doc, model, *score_candidates(doc, model))
    return run


def agreement(doc, headings) -> tuple[float, float, int]:
    """On the pages the layout model read: the share of ``headings`` it calls a heading, and the share of its
    headings (candidates) among ``headings``; and how many pages it read."""
    read = {b.page for b in doc.blocks if b.layout_class}
    mine = {h.position for h in headings if doc.blocks[h.position].page in read}
    theirs = {i for i, b in enumerate(doc.blocks) if b.page in read and b.layout_class in HEADING_CLASSES}
    precision = len(mine & theirs) / len(mine) if mine else 1.0
    recall = len(mine & theirs) / len(theirs) if theirs else 1.0
    return precision, recall, len(read)


def second_opinion(floor: int, limit: float = 0.5):
    """``auto_floor``; where the classifier and the layout model disagree on the pages read (F1 of the two below
    ``limit``), the layout model's headings instead."""
    base = auto_floor(floor)

    def run(doc, model):
        headings = base(doc, model)
        p, r, _ = agreement(doc, headings)
        f1 = 2 * p * r / (p + r) if p + r else 0.0
        if f1 >= limit:
            return headings
        return detect.from_layout_model(doc, model)
    return run


_CAPTION = __import__("re").compile(r"^\s*(fig\.?|figure|table|tab\.|listing|algorithm|exhibit|chart)\s*\d", 2)


def _layout_vouched(doc, positions, x, numbered_only: bool):
    """Candidates the layout model calls a heading that a reader would too: not on a contents page, not a line
    recurring on several pages, not a caption; numbered ones only with ``numbered_only``."""
    from bookrag_neo4j.parsing.page_rules import numbering_depth
    from bookrag_neo4j.tree.features import FEATURES
    from bookrag_neo4j.tree.numbering import number_of
    toc, recurs = FEATURES.index("toc_page"), FEATURES.index("text_recurs")
    out = []
    for k, p in enumerate(positions):
        b = doc.blocks[p]
        if b.layout_class not in HEADING_CLASSES or x[k, toc] or x[k, recurs] > 2 or _CAPTION.match(b.text):
            continue
        if numbered_only and number_of(b.text) is None and numbering_depth(b.text) is None:
            continue
        out.append(k)
    return out


def fuse(floor: int, numbered_only: bool = True):
    """``auto_floor``, plus the candidates the layout model vouches for (numbered ones only by default); numbering
    completion then finds their siblings on pages the model did not read."""
    base = auto_floor(floor)

    def run(doc, model):
        base(doc, model)
        positions, x, probability = score_candidates(doc, model)
        for k in _layout_vouched(doc, positions, x, numbered_only):
            probability[k] = 1.0
        return headings_from_scores(doc, model, positions, x, probability)
    return run


def style_vote(floor: int, share: float = 0.6):
    """``fuse``, plus every candidate in a style that the layout model calls a heading on most of the read pages'
    candidates of that style."""
    from bookrag_neo4j.tree.features import style
    base = auto_floor(floor)

    def run(doc, model):
        base(doc, model)
        positions, x, probability = score_candidates(doc, model)
        vouched = set(_layout_vouched(doc, positions, x, False))
        seen: dict = {}
        for k, p in enumerate(positions):
            b = doc.blocks[p]
            if b.layout_class:
                n, h = seen.get(style(b), (0, 0))
                seen[style(b)] = (n + 1, h + (k in vouched))
        good = {s for s, (n, h) in seen.items() if n >= 2 and h / n >= share}
        eligible = set(_layout_vouched(doc, positions, x, False)) | {
            k for k, p in enumerate(positions) if not doc.blocks[p].layout_class}
        for k, p in enumerate(positions):
            b = doc.blocks[p]
            if k in vouched or (style(b) in good and k in eligible and not _CAPTION.match(b.text)
                                and x[k, 26] <= 2 and not x[k, 32]):
                probability[k] = max(probability[k], 1.0)
        return headings_from_scores(doc, model, positions, x, probability)
    return run


def short_all(pages: int):
    """Every page through the layout model for a document of at most ``pages`` pages, else ``auto``."""
    def run(doc, model):
        if doc.page_count <= pages:
            return learned_all(doc, model)
        return detect.from_auto(doc, model)[0]
    return run


def rescue(sample: int, limit: float = 0.4, total: bool = False):
    """``auto`` as it is; then the layout model on up to ``sample`` more pages spread over the document, and where
    the classifier's headings and the layout model's agree with F1 below ``limit`` on the pages it read, the
    layout model's headings instead."""
    def run(doc, model):
        headings = detect.from_auto(doc, model)[0]
        pages = sorted({b.page for b in doc.blocks if b.kind in ("text", "title", "list") and not b.layout_class})
        step = max(len(pages) / max(sample, 1), 1.0)
        want = sample - len({b.page for b in doc.blocks if b.layout_class}) if total else sample
        step = max(len(pages) / max(want, 1), 1.0)
        if want > 0:
            detect.classify_pages(doc, {pages[int(k * step)] for k in range(min(want, len(pages)))})
        p, r, _ = agreement(doc, headings)
        if (2 * p * r / (p + r) if p + r else 0.0) >= limit:
            return headings
        return detect.from_layout_model(doc, model)
    return run


def old_auto(doc, model):
    """``auto`` before the second opinion."""
    positions, x, probability = score_candidates(doc, model)
    unsure: dict[int, int] = {}
    for p, prob in zip(positions, probability, strict=True):
        block = doc.blocks[p]
        if detect.UNSURE[0] < prob < detect.UNSURE[1] and not block.layout_class:
            unsure[block.page] = unsure.get(block.page, 0) + 1
    pages = sorted(unsure, key=lambda page: (-unsure[page], page))[:int(detect.AUTO_LAYOUT_SHARE * doc.page_count)]
    if pages:
        detect.classify_pages(doc, pages)
        positions, x, probability = score_candidates(doc, model)
    return headings_from_scores(doc, model, positions, x, probability)


def opinion(rule):
    """The old ``auto``, 8 pages read in all, and the layout model's headings where ``rule(precision, recall)``."""
    def run(doc, model):
        headings = old_auto(doc, model)
        detect._read_spread(doc, 8, 0)
        p, r, _ = agreement(doc, headings)
        if rule(p, r):
            second = detect.from_layout_model(doc, model)
            if second:
                return second
        return headings
    return run


def _f1(p, r):
    return 2 * p * r / (p + r) if p + r else 0.0


RULES = {
    "op_f1": opinion(lambda p, r: _f1(p, r) < 0.4),
    "op_p50": opinion(lambda p, r: p < 0.5),
    "op_f1p60": opinion(lambda p, r: _f1(p, r) < 0.4 and p < 0.6),
    "op_f1p80": opinion(lambda p, r: _f1(p, r) < 0.4 and p < 0.8),
    "old_auto": old_auto,
}


def opinion_precise(limit: float = 0.4, precise: float = 0.8):
    """``opinion`` where the layout model takes over only when the classifier's headings on the pages it read are
    mostly not its headings (precision below ``precise``, 0 when the classifier found none there)."""
    def run(doc, model):
        headings = old_auto(doc, model)
        detect._read_spread(doc, 8, 0)
        read = {b.page for b in doc.blocks if b.layout_class}
        mine = {h.position for h in headings if doc.blocks[h.position].page in read}
        theirs = {i for i, b in enumerate(doc.blocks) if b.page in read and b.layout_class in HEADING_CLASSES}
        if not theirs:
            return headings
        p = len(mine & theirs) / len(mine) if mine else 0.0
        if 2 * len(mine & theirs) / (len(mine) + len(theirs)) < limit and p < precise:
            second = detect.from_layout_model(doc, model)
            if second:
                return second
        return headings
    return run


RULES.update({"op_prec80": opinion_precise(0.4, 0.8), "op_prec60": opinion_precise(0.4, 0.6),
              "op_prec90": opinion_precise(0.4, 0.9)})
