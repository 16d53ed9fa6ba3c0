# Experiment behind headings-4's level model (not shipped): levels with and without the rank of a heading's style
# among the headings found (headings-3's two extra columns), scored in sample and by 5-fold cross-validation over
# documents, on the headings that the heading model (argv[2], a headings-4 model file) detects.
# Run from the repository root after corpus.py: .venv/bin/python docs/eval/headings-21/model-4-experiments/levels-cv.py base|nostyle MODEL
import collections
import pickle
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from sklearn.ensemble import GradientBoostingClassifier

from bookrag_neo4j.eval.bench_headings import _hidden, score
from bookrag_neo4j.tree.features import FEATURES
from bookrag_neo4j.tree.learned import HeadingModel, Trees, headings_from_scores, score_candidates
from bookrag_neo4j.tree.training import _trees

corpus = pickle.load(open('/tmp/bookrag-heading-corpus.pkl', 'rb'))
mode, detector = sys.argv[1], HeadingModel.load(Path(sys.argv[2]))
DEV = ('ADOBE_2015_10K.pdf', 'ADOBE_2017_10K.pdf', 'ADOBE_2022_10K.pdf', '2312.10997v5.pdf',
       'mmdetection-readthedocs-io-en-v2.18.0.pdf', 'nova_y70.pdf')

def style_ranks(x):  # headings-3's level_features: x with the style's rank among the headings and their count
    if not len(x):
        return np.zeros((0, len(FEATURES) + 2), dtype=np.float32)
    col = {name: k for k, name in enumerate(FEATURES)}
    keys = [(round(float(r[col["size_ratio"]]), 2), int(r[col["bold"]]), int(r[col["caps"]] >= 0.8), int(r[col["italic"]])) for r in x]
    order = {k: n for n, k in enumerate(sorted(set(keys), key=lambda k: (-k[0], -k[1], -k[2], -k[3])))}
    return np.hstack([x, np.asarray([(order[k], len(order)) for k in keys], dtype=np.float32)])

feats = style_ranks if mode == 'base' else (lambda x: x)

@dataclass
class Levels(HeadingModel):
    def levels(self, x):
        return super().levels(feats(x))

def train(docs):
    rows = [(feats(d.x[d.heading == 1]), d.level[d.heading == 1]) for d in docs if d.heading.any()]
    w = np.concatenate([np.full(len(y), 100.0 / len(y)) for _, y in rows])
    g = GradientBoostingClassifier(n_estimators=100, max_depth=3, learning_rate=0.1, subsample=0.8, init='zero', random_state=0)
    g.fit(np.vstack([r[0] for r in rows]), np.concatenate([r[1] for r in rows]), sample_weight=w)
    return Levels(heading=detector.heading, level=Trees(0.1, _trees(g), [int(c) for c in g.classes_]), threshold=detector.threshold)

found = {}
for d in corpus:
    doc = _hidden(d.parsed)
    found[d.sha256] = (doc, *score_candidates(doc, detector))

def evaluate(model_of):
    fam, dev = collections.defaultdict(list), []
    for d in corpus:
        s = score(headings_from_scores(*found[d.sha256][:1], model_of(d), *found[d.sha256][1:]), d.parsed.outline)
        fam[d.family].append(s['level_accuracy'])
        if d.name in DEV:
            dev.append((d.name[:12], s['level_accuracy']))
    return {f: round(float(np.mean(v)), 3) for f, v in fam.items()}, dev

full = train(corpus)
print(mode, 'in-sample', evaluate(lambda d: full))
fold_of = {d.sha256: k % 5 for k, d in enumerate(sorted(corpus, key=lambda d: d.sha256))}
folds = [train([d for d in corpus if fold_of[d.sha256] != k]) for k in range(5)]
print(mode, 'cv', evaluate(lambda d: folds[fold_of[d.sha256]]))
