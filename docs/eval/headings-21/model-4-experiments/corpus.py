# The heading corpus read once (as `bookrag train headings` reads it, 12 layout pages a document), cached for the experiments.
# Run from the repository root: .venv/bin/python docs/eval/headings-21/model-4-experiments/corpus.py
import pickle
import sys
import time
from pathlib import Path

from bookrag_neo4j.tree.training import labelled

out = []
t = time.time()
for line in open('bookrag_neo4j/tree/heading-corpus.txt'):
    line = line.strip()
    if not line or line.startswith('#'): continue
    fam, path = line.split('=', 1)
    d = labelled(Path(path), fam, layout_pages=12)
    if d is not None: out.append(d)
    print(len(out), fam, path, round(time.time()-t), flush=True)
pickle.dump(out, open('/tmp/bookrag-heading-corpus.pkl', 'wb'))
print("done", flush=True)
