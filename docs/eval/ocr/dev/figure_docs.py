"""Which dev PDFs does --ocr auto change? Those with a figure whose OCR reads words (parsed with tables off;
the pages that look scanned are listed in ../README.md). Writes figure_docs.json beside this file.

    python docs/eval/ocr/dev/figure_docs.py
"""
import json
import sys
import time
from pathlib import Path

from bookrag_neo4j.parsing.ocr import OcrOptions
from bookrag_neo4j.parsing.pymupdf_parser import parse_pdf

BENCHMARKS = Path(__file__).resolve().parents[5] / "shared" / "benchmarks"
out = {}
for bench in ("financebench", "mmlongbench"):
    for pdf in sorted((BENCHMARKS / bench / "pdfs").glob("*.pdf")):
        t = time.perf_counter()
        d = parse_pdf(pdf, tables="off", workers=1, ocr_options=OcrOptions("auto", cache=Path("/tmp/ocr-cache-dev")))
        figs = [b for b in d.blocks if b.kind == "image"]
        read = [b for b in figs if b.image_text]
        out[f"{bench}/{pdf.name}"] = {"figures": len(figs), "read": len(read), "chars": sum(len(b.image_text) for b in read),
                                      "seconds": round(time.perf_counter() - t, 1)}
        print(bench, pdf.name, out[f"{bench}/{pdf.name}"], flush=True)
json.dump(out, open(Path(__file__).with_name("figure_docs.json"), "w"), indent=1)
