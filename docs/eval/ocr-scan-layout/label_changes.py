"""The dev PDFs whose page labels change with the rule for a page between two numbered pages (furniture._fill_gaps):

    python docs/eval/ocr-scan-layout/label_changes.py label-changes.json
"""
import json, sys
from pathlib import Path
import bookrag_neo4j.parsing.furniture as f
from bookrag_neo4j.parsing.ocr import OcrOptions
from bookrag_neo4j.eval.benchmark import half
opts = OcrOptions("auto", cache=Path.home() / ".cache/bookrag-neo4j/ocr")
real = f._fill_gaps
out = {}
for pdf in sorted((Path(__file__).resolve().parents[4] / "shared" / "benchmarks").glob("*/pdfs/*.pdf")):
    f._fill_gaps = real
    new = f.read_page_furniture(pdf, opts)
    f._fill_gaps = lambda labels: labels
    old = f.read_page_furniture(pdf, opts)
    changed = {n: new[n].label for n in new if new[n].label != old[n].label}
    if changed:
        out[pdf.name] = changed
        print(pdf.parent.parent.name, half(pdf.name), pdf.name, len(changed), "of", len(new), dict(list(changed.items())[:8]))
json.dump(out, open(sys.argv[1], "w"), indent=1)
