"""A benchmark folder holding one half of a dev set (its questions, a link to its PDFs), for runs too slow for
the whole set, e.g. with the local LLM:

    python docs/eval/local-llm-49/design_subset.py ../shared/benchmarks/mmlongbench design /tmp/mmlb-design
"""

import json
import sys
from pathlib import Path

from bookrag_neo4j.eval.benchmark import half

source, part, target = Path(sys.argv[1]).resolve(), sys.argv[2], Path(sys.argv[3])
target.mkdir(parents=True, exist_ok=True)
lines = [line for line in (source / "questions.jsonl").read_text().splitlines()
         if line.strip() and half(json.loads(line)["doc"]) == part]
(target / "questions.jsonl").write_text("\n".join(lines) + "\n")
if not (target / "pdfs").exists():
    (target / "pdfs").symlink_to(source / "pdfs")
print(f"{len(lines)} questions in {target}")
