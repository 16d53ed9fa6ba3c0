"""The benchmark folders of the dev documents that --ocr auto changes (figure_docs.json, and the two with pages
that look scanned): their PDFs linked, their questions copied.

    python docs/eval/ocr/dev/subset.py /tmp/ocr-dev    # then bookrag eval /tmp/ocr-dev/{fb,mmlb} (README.md)
"""
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))
from bench_subset import write_subset  # noqa: E402

SCANNED = {"mmlongbench/ISEP_student_handbook_2020.pdf", "mmlongbench/fd76bbefe469561966e5387aa709c482.pdf"}

figures = json.loads((HERE / "figure_docs.json").read_text())
docs = {bench: {k.split("/", 1)[1] for k, v in figures.items() if k.startswith(bench) and (v["read"] or k in SCANNED)}
        for bench in ("financebench", "mmlongbench")}
print(write_subset(Path(sys.argv[1]), docs), "questions")
