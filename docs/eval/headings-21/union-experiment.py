# Experiment (not shipped): learned, heuristic and their union on the training corpus, in sample, tables off.
# Run from the repository root: .venv/bin/python docs/eval/headings-21/union-experiment.py (writes union-experiment.jsonl beside it).
import dataclasses
import json
import sys
from pathlib import Path

from bookrag_neo4j.eval.bench_headings import _hidden, score
from bookrag_neo4j.parsing.pymupdf_parser import parse_pdf
from bookrag_neo4j.tree.detect import offline_headings
from bookrag_neo4j.tree.headings import MIN_OUTLINE

out = open('docs/eval/headings-21/union-experiment.jsonl','w')
for line in open('bookrag_neo4j/tree/heading-corpus.txt'):
    line=line.strip()
    if not line or line.startswith('#'): continue
    fam, path = line.split('=',1)
    try: parsed = parse_pdf(Path(path), tables="off")
    except Exception as e: continue
    if len(parsed.outline) < MIN_OUTLINE: continue
    L = offline_headings(_hidden(parsed), 'learned')[0]
    H = offline_headings(_hidden(parsed), 'heuristic')[0]
    lp = {h.position for h in L}; hp = {h.position for h in H}
    U = L + [h for h in H if h.position not in lp]
    U.sort(key=lambda h: h.position)
    r = dict(doc=Path(path).name, fam=fam, nL=len(L), nH=len(H), inter=len(lp & hp),
             L=score(L, parsed.outline)['f1'], H=score(H, parsed.outline)['f1'], U=score(U, parsed.outline)['f1'])
    print(json.dumps(r), file=out, flush=True)
