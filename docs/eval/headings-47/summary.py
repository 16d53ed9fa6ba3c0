"""Markdown tables of ``experiment.py`` / ``check.py`` JSONs: mean F1 per family, over the documents whose outline
matches their printed headings (at least 0.8 of the bookmarks match a heading block of their own) and over all
that can teach (0.6): ``python summary.py lofo-genre.json lofo-source.json check.json``."""

import json
import sys

import numpy as np

for name in sys.argv[1:]:
    rows = json.load(open(name))
    detectors = [k for k in rows[0] if isinstance(rows[0][k], dict)]
    if "check" in name:
        for r in rows:
            r["family"] = "check (<= 30 pages)" if r["pages"] <= 30 else "check (> 30 pages)"
        rows += [{**r, "family": "check (all)"} for r in rows]
    print(f"\n{name}\n\n| family | documents (matching / all) | " + " | ".join(detectors) + " |")
    print("|---|---|" + "---|" * len(detectors))
    for family in sorted({r["family"] for r in rows}):
        match = [r for r in rows if r["family"] == family and r["match"] >= 0.8]
        every = [r for r in rows if r["family"] == family and r["match"] >= 0.6]
        cells = [f"{np.mean([r[d]['f1'] for r in match]):.3f} / {np.mean([r[d]['f1'] for r in every]):.3f}"
                 for d in detectors]
        print(f"| {family} | {len(match)} / {len(every)} | " + " | ".join(cells) + " |")
