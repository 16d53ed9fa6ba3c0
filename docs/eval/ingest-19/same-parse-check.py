"""What the indexer builds its tree from, dumped for comparison between two versions of the code: every block of
every PDF (text, kind, box, fonts, tables, the layout model's class) as parsed with the table finder's worker
pool, and the default detector's headings. Run it on each version and compare the outputs (README, "Indexing
speed": the finder's speed-ups change nothing the index is built from).

    .venv/bin/python docs/eval/ingest-19/same-parse-check.py OUT.json $(cat docs/eval/ingest-19/sample.txt)
    cmp before.json after.json
"""

import json
import sys
from dataclasses import asdict
from pathlib import Path

from bookrag_neo4j.parsing.pymupdf_parser import parse_pdf
from bookrag_neo4j.tree.detect import offline_headings

if __name__ == "__main__":
    out = {}
    for name in sys.argv[2:]:
        parsed = parse_pdf(Path(name), workers=2)
        headings, source = offline_headings(parsed, "auto", workers=2)
        out[Path(name).name] = {"blocks": [asdict(b) for b in parsed.blocks],
                                "headings": [asdict(h) for h in headings], "source": source}
        print(Path(name).name, len(parsed.blocks), "blocks", len(headings), "headings", flush=True)
    Path(sys.argv[1]).write_text(json.dumps(out, sort_keys=True, default=str))
