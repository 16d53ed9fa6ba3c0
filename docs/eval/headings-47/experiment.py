"""Leave-one-family-out over the cached heading corpus (``cache.py``): each family held out in turn, the classifier
trained on the others, and every detector scored on the held-out documents, the layout model replayed from the
cache. ``python experiment.py CACHE_DIR OUT.json [grouping]``; grouping ``genre`` (the corpus file's families) or
``source`` (Debian manuals, LaTeX package manuals, journal and thesis samples, the dev PDFs).
"""

from __future__ import annotations

import dataclasses
import json
import os
import pickle
import sys
import time
from pathlib import Path

import numpy as np

import bookrag_neo4j.tree.detect as detect
import bookrag_neo4j.tree.training as training
from bookrag_neo4j.eval.bench_headings import score
from bookrag_neo4j.parsing.regions import assign_classes
from bookrag_neo4j.tree.headings import from_layout
from bookrag_neo4j.tree.learned import HeadingModel, headings_from_scores, score_candidates
from bookrag_neo4j.tree.training import MIN_MATCHED, fit, labelled_parsed

REGIONS: dict[str, dict] = {}


def replay(doc, pages, workers=0) -> int:
    """``classify_pages`` from the cache."""
    cached = REGIONS[doc.content_hash]
    found = {p: cached[p] for p in pages if p in cached and p not in doc.layout_skipped}
    assign_classes(doc.blocks, found)
    return len(found)


detect.classify_pages = replay
training.classify_pages = replay


def source(path: str, family: str) -> str:
    if path.startswith("../shared"):
        return "dev"
    if "texlive-doc" in path:
        return "latex-manuals" if family == "manuals" else "journal-samples"
    return "debian-manuals"


def fresh(parsed):
    return dataclasses.replace(parsed, outline=[], blocks=[dataclasses.replace(b) for b in parsed.blocks])


LAYOUT_PAGES = int(os.environ.get("LAYOUT_PAGES", "12"))
SHORT = int(os.environ.get("SHORT", "0"))  # documents of at most this many pages: the layout model on every page


def load(cache: Path, grouping: str):
    docs = []
    for f in sorted(cache.glob("*.pkl")):
        path, family, parsed, found = pickle.loads(f.read_bytes())
        REGIONS[parsed.content_hash] = found
        group = family if grouping == "genre" else source(path, family)
        d = labelled_parsed(parsed, Path(path).name, group,
                            layout_pages=100000 if parsed.page_count <= SHORT else LAYOUT_PAGES)
        if d is not None:  # outlines that match fewer than MIN_MATCHED of their headings teach and score nothing
            docs.append((d, d.matched))
    return docs


DETECTORS = {
    "learned": lambda doc, m: headings_from_scores(doc, m, *score_candidates(doc, m)),
    "auto": lambda doc, m: detect.from_auto(doc, m)[0],
    "layout": lambda doc, m: detect.from_layout_model(doc, m),
    "heuristic": lambda doc, m: from_layout(doc),
}
from variants import auto_floor, fuse, learned_all, rescue, second_opinion, short_all, style_vote  # noqa: E402

DETECTORS.update({"learned_all": learned_all, "floor8": auto_floor(8), "floor16": auto_floor(16),
                  "second8": second_opinion(8), "second16": second_opinion(16),
                  "fuse16": fuse(16), "fuse16all": fuse(16, False), "fuse8": fuse(8), "style16": style_vote(16),
                  "fuse0": fuse(0), "short20": short_all(20), "short40": short_all(40),
                  "rescue8": rescue(8), "rescue16": rescue(16), "rescue8_5": rescue(8, 0.5),
                  "rescue8t": rescue(8, total=True), "rescue12t": rescue(12, total=True)})
from variants import RULES  # noqa: E402

DETECTORS.update(RULES)


def main() -> None:
    cache, out = Path(sys.argv[1]), Path(sys.argv[2])
    grouping = sys.argv[3] if len(sys.argv) > 3 else "genre"
    only = sys.argv[4].split(",") if len(sys.argv) > 4 else list(DETECTORS)
    docs = load(cache, grouping)
    training = [d for d, match in docs if match >= MIN_MATCHED]
    rows = []
    for family in sorted({d.family for d, _ in docs}):
        began = time.perf_counter()
        saved = cache / f"model-{grouping}-{family}-{LAYOUT_PAGES}{f'-short{SHORT}' if SHORT else ''}.json"
        if saved.exists():
            model = HeadingModel.load(saved)
        else:
            model = fit([d for d in training if d.family != family], stages=100)
            model.save(saved)
        for d, match in docs:
            if d.family != family:
                continue
            row = {"document": d.name, "family": family, "match": round(match, 3), "pages": d.pages}
            for name in only:
                row[name] = score(DETECTORS[name](fresh(d.parsed), model), d.parsed.outline)
            rows.append(row)
        print(f"{family}: {time.perf_counter() - began:.0f} s", flush=True)
    out.write_text(json.dumps(rows, indent=1))
    summarise(rows)


def summarise(rows, floor=0.8) -> None:
    names = [k for k in rows[0] if isinstance(rows[0][k], dict)]
    print("family docs(matching) " + " ".join(names))
    for family in sorted({r["family"] for r in rows}):
        mine = [r for r in rows if r["family"] == family and r["match"] >= floor]
        print(family, len(mine), " ".join(f"{np.mean([r[n]['f1'] for r in mine]):.3f}" for n in names))


if __name__ == "__main__":
    main()
