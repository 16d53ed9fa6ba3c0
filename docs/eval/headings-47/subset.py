"""The benchmark folders of the dev documents that ``auto``'s second opinion hands to the layout model
(``dev-switches.jsonl``, from ``dev_switches.py``): their PDFs linked, their questions copied.

    python docs/eval/headings-47/subset.py /tmp/h47-dev    # then bookrag index / eval on /tmp/h47-dev/{fb,mmlb}
"""
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from bench_subset import BENCHMARKS, write_subset  # noqa: E402

switched = {row["document"] for line in (HERE / "dev-switches.jsonl").read_text().splitlines()
            if line.startswith("{") and (row := json.loads(line))["switched"]}
docs = {bench: {p.name for p in (BENCHMARKS / bench / "pdfs").glob("*.pdf")} & switched
        for bench in ("financebench", "mmlongbench")}
print(docs, write_subset(Path(sys.argv[1]), docs), "questions")
