"""Answer and retrieval metrics for ``bookrag eval``.

    page_recall({3, 5}, [[3], [4, 5]])                       # 1.0: every gold page is covered
    page_recall_within({3, 5}, [[3], [4, 5]], pages=2)       # 0.5: only pages 3 and 4 are read
    token_f1("net sales of 10 billion", "10 billion")        # 0.571: precision 2/5, recall 1
    anls("Pre-training", "pre training")                     # 1.0 - normalised edit distance (0 below 0.5)
    mmlongbench_score("18.29%", "18.3", "Float")             # 1.0 within 1% relative tolerance

Normalisation (the BookRAG paper's appendix A.1, SQuAD style): lower case, no punctuation or articles, whitespace
collapsed. MMLongBench's rules per ``answer_format``: ``Int`` exact, ``Float`` within a relative tolerance, ``Str`` by
ANLS, ``List`` element-wise and order-free; FinanceBench's numbers within a relative tolerance, text by token F1 ≥ 0.5.
"""

from __future__ import annotations

import ast
import re
import string
from collections import Counter
from collections.abc import Hashable, Iterable, Sequence
from typing import Any

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_NUMBER = re.compile(r"-?\d[\d,]*\.?\d*|-?\.\d+")
FLOAT_TOLERANCE = 0.01  # relative
ANLS_THRESHOLD = 0.5


def normalise_answer(text: str) -> str:
    text = str(text).lower()
    text = "".join(" " if ch in string.punctuation else ch for ch in text)
    return " ".join(_ARTICLES.sub(" ", text).split())


def exact_match(prediction: str, gold: str) -> float:
    return float(normalise_answer(prediction) == normalise_answer(gold))


def inclusion(prediction: str, gold: str) -> float:
    """1.0 when the normalised gold answer appears in the normalised prediction."""
    gold_n = normalise_answer(gold)
    return float(bool(gold_n) and f" {gold_n} " in f" {normalise_answer(prediction)} ")


def token_f1(prediction: str, gold: str) -> float:
    pred, ref = normalise_answer(prediction).split(), normalise_answer(gold).split()
    if not pred or not ref:
        return float(pred == ref)
    common = sum((Counter(pred) & Counter(ref)).values())
    if common == 0:
        return 0.0
    precision, recall = common / len(pred), common / len(ref)
    return 2 * precision * recall / (precision + recall)


def _levenshtein(a: str, b: str) -> int:
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i]
        for j, cb in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1]


def anls(prediction: str, gold: str, threshold: float = ANLS_THRESHOLD) -> float:
    """Average normalised Levenshtein similarity of one pair: 1 - distance / longer length, 0 below ``threshold``."""
    a, b = normalise_answer(prediction), normalise_answer(gold)
    if not a and not b:
        return 1.0
    similarity = 1 - _levenshtein(a, b) / max(len(a), len(b))
    return similarity if similarity >= threshold else 0.0


def first_number(text: str) -> float | None:
    match = _NUMBER.search(str(text).replace("$", ""))
    if not match:
        return None
    try:
        return float(match.group().replace(",", ""))
    except ValueError:
        return None


def numbers_match(prediction: str, gold: str, tolerance: float = FLOAT_TOLERANCE) -> bool:
    p, g = first_number(prediction), first_number(gold)
    if p is None or g is None:
        return False
    return abs(p - g) <= tolerance * max(abs(g), 1e-9)


def _as_list(text: str) -> list[str]:
    try:
        value = ast.literal_eval(text)
        if isinstance(value, (list, tuple)):
            return [str(v) for v in value]
    except (ValueError, SyntaxError):
        pass
    return [part.strip() for part in re.split(r",|;|\band\b|\n", str(text)) if part.strip()]


def mmlongbench_score(prediction: str, gold: str, answer_format: str) -> float:
    """MMLongBench's per-format rule (see the module docstring)."""
    if answer_format == "Int":
        p, g = first_number(prediction), first_number(gold)
        return float(p is not None and g is not None and round(p) == round(g) and abs(p - round(p)) < 1e-9)
    if answer_format == "Float":
        return float(numbers_match(prediction, gold))
    if answer_format == "List":
        golds, preds = _as_list(gold), _as_list(prediction)
        if not golds:
            return 0.0
        unused = list(preds)
        matched = 0
        for expected in golds:
            hit = next((p for p in unused if anls(p, expected) > 0 or numbers_match(p, expected)), None)
            if hit is not None:
                unused.remove(hit)
                matched += 1
        return float(matched == len(golds) and len(preds) >= len(golds))
    return anls(prediction, gold)


def financebench_score(prediction: str, gold: str) -> float:
    if first_number(gold) is not None:
        return float(numbers_match(prediction, gold))
    return float(token_f1(prediction, gold) >= 0.5)


def page_recall(gold_pages: Iterable[Hashable], retrieved_pages: Sequence[Iterable[Hashable]],
                budget: int | None = None) -> float:
    """Share of the gold pages covered by the pages of the retrieved nodes (the first ``budget`` of them). A page
    is a number, or a (document, number) pair over a library."""
    gold = set(gold_pages)
    if not gold:
        return 0.0
    nodes = retrieved_pages[:budget] if budget is not None else retrieved_pages
    covered = {p for pages in nodes for p in pages}
    return len(gold & covered) / len(gold)


def page_recall_within(gold_pages: Iterable[Hashable], retrieved_pages: Sequence[Iterable[Any]], pages: int) -> float:
    """Page recall when only the first ``pages`` distinct pages the ranked units show are read (each unit's
    pages in page order). A budget in pages is the same for every method whatever its unit: ten ~400-word
    passages show about 10 pages, ten tree nodes about 4."""
    gold = set(gold_pages)
    shown: set[Hashable] = set()
    for page in (p for unit in retrieved_pages for p in sorted(unit)):
        if len(shown) == pages:
            break
        shown.add(page)
    return len(gold & shown) / len(gold) if gold else 0.0
