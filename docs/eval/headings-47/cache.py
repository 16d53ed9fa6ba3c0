"""Parse every PDF of the heading corpus once and run the layout model on every page with text, so that
detector experiments (``experiment.py``) replay in seconds: ``python cache.py CORPUS OUT_DIR [workers]``.

Writes ``OUT_DIR/<sha256>.pkl``: (path, family, ParsedDocument without layout classes, {page: regions}).
"""

from __future__ import annotations

import pickle
import sys
import time
from pathlib import Path

from bookrag_neo4j.parsing.pymupdf_parser import parse_pdf
from bookrag_neo4j.parsing.regions import regions
from bookrag_neo4j.tree.headings import MIN_OUTLINE
from bookrag_neo4j.tree.training import corpus_paths


def main() -> None:
    corpus, out = Path(sys.argv[1]), Path(sys.argv[2])
    workers = int(sys.argv[3]) if len(sys.argv) > 3 else 0
    out.mkdir(parents=True, exist_ok=True)
    lines = [line.strip() for line in corpus.read_text().splitlines() if line.strip() and not line.startswith("#")]
    for path, family in corpus_paths(lines):
        began = time.perf_counter()
        try:
            parsed = parse_pdf(path, tables="off")
        except Exception as exc:  # noqa: BLE001 - an experiment log, not product code
            print(f"skip {path}: {exc}", flush=True)
            continue
        if len(parsed.outline) < MIN_OUTLINE:
            print(f"skip {path}: no outline", flush=True)
            continue
        target = out / f"{parsed.content_hash}.pkl"
        if target.exists():
            continue
        found = regions(parsed, {b.page for b in parsed.blocks}, workers)
        target.write_bytes(pickle.dumps((str(path), family, parsed, found)))
        print(f"{family} {path.name} {parsed.page_count} pages {time.perf_counter() - began:.1f} s", flush=True)


if __name__ == "__main__":
    main()
