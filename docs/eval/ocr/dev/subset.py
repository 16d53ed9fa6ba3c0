"""The benchmark folders of the dev documents that --ocr auto changes (figure_docs.json, and the two with pages
that look scanned): their PDFs linked, their questions copied.

    python docs/eval/ocr/dev/subset.py /tmp/ocr-dev    # then bookrag eval /tmp/ocr-dev/{fb,mmlb} (README.md)
"""
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
BENCHMARKS = HERE.parents[4] / "shared" / "benchmarks"
SCANNED = {"mmlongbench/ISEP_student_handbook_2020.pdf", "mmlongbench/fd76bbefe469561966e5387aa709c482.pdf"}

figures = json.loads((HERE / "figure_docs.json").read_text())
out = Path(sys.argv[1])
for bench, short in (("financebench", "fb"), ("mmlongbench", "mmlb")):
    docs = {k.split("/", 1)[1] for k, v in figures.items() if k.startswith(bench) and (v["read"] or k in SCANNED)}
    folder = out / short
    (folder / "pdfs").mkdir(parents=True, exist_ok=True)
    lines = [line for line in (BENCHMARKS / bench / "questions.jsonl").read_text().splitlines()
             if json.loads(line)["doc"] in docs]
    (folder / "questions.jsonl").write_text("".join(line + "\n" for line in lines))
    for doc in docs:
        if not (folder / "pdfs" / doc).exists():
            (folder / "pdfs" / doc).symlink_to(BENCHMARKS / bench / "pdfs" / doc)
    print(short, len(docs), "documents", len(lines), "questions")
