"""The benchmark folders of the dev documents that ``auto``'s second opinion hands to the layout model
(``dev-switches.jsonl``, from ``dev_switches.py``): their PDFs linked, their questions copied.

    python docs/eval/headings-47/subset.py /tmp/h47-dev    # then bookrag index / eval on /tmp/h47-dev/{fb,mmlb}
"""
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
BENCHMARKS = HERE.parents[3] / "shared" / "benchmarks"

switched = {row["document"] for line in (HERE / "dev-switches.jsonl").read_text().splitlines()
            if line.startswith("{") and (row := json.loads(line))["switched"]}
out = Path(sys.argv[1])
for bench, short in (("financebench", "fb"), ("mmlongbench", "mmlb")):
    docs = {p.name for p in (BENCHMARKS / bench / "pdfs").glob("*.pdf")} & switched
    folder = out / short
    (folder / "pdfs").mkdir(parents=True, exist_ok=True)
    lines = [line for line in (BENCHMARKS / bench / "questions.jsonl").read_text().splitlines()
             if json.loads(line)["doc"] in docs]
    (folder / "questions.jsonl").write_text("".join(line + "\n" for line in lines))
    for doc in docs:
        if not (folder / "pdfs" / doc).exists():
            (folder / "pdfs" / doc).symlink_to(BENCHMARKS / bench / "pdfs" / doc)
    print(short, sorted(docs), len(lines), "questions")
