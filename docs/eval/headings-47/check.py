"""The check set: bookmarked PDFs that neither trained the shipped classifier nor shaped a detector (``cache.py``
over ``check-corpus.txt``), scored with the shipped model. ``python check.py CACHE_DIR OUT.json DETECTORS``.
"""

from __future__ import annotations

import json
import pickle
import sys
from pathlib import Path

import experiment as E
import numpy as np

from bookrag_neo4j.eval.bench_headings import score
from bookrag_neo4j.tree.learned import HeadingModel


def main() -> None:
    cache, out, names = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3].split(",")
    model = HeadingModel.shipped()
    rows = []
    for f in sorted(cache.glob("*.pkl")):
        path, family, parsed, found = pickle.loads(f.read_bytes())
        E.REGIONS[parsed.content_hash] = found
        labelled = E.labelled_parsed(parsed, Path(path).name, family)
        if labelled is None:
            continue
        row = {"document": path, "family": family, "match": round(labelled.matched, 3), "pages": parsed.page_count}
        for name in names:
            row[name] = score(E.DETECTORS[name](E.fresh(parsed), model), parsed.outline)
        rows.append(row)
    out.write_text(json.dumps(rows, indent=1))
    for group, test in (("all", lambda r: True), ("<=30 pages", lambda r: r["pages"] <= 30),
                        (">30 pages", lambda r: r["pages"] > 30)):
        mine = [r for r in rows if r["match"] >= 0.8 and test(r)]
        print(group, len(mine), " ".join(f"{n}={np.mean([r[n]['f1'] for r in mine]):.3f}" for n in names))


if __name__ == "__main__":
    main()
