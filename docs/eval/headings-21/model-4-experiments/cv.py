# Experiment behind headings-4's document weights (not shipped): 5-fold cross-validation over documents of the heading model,
# mean F1 per document by family and gnuplot's, at each threshold. Run after corpus.py:
# .venv/bin/python docs/eval/headings-21/model-4-experiments/cv.py NAME STAGES DEPTH equal|sqrt|log   (cv.log: base 100 3 equal, sqrt 100 3 sqrt, log, d4 100 4 equal)
import json
import pickle
import sys
import time

import numpy as np
from sklearn.ensemble import GradientBoostingClassifier

corpus = pickle.load(open('/tmp/bookrag-heading-corpus.pkl','rb'))
name, stages, depth, wmode = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
def w(d):
    n = max(len(d.x),1)
    if wmode == 'equal': return np.full(n, 1000.0/n)
    if wmode == 'sqrt': return np.full(n, 1000.0*np.sqrt(max(d.heading.sum(),1))/n)
    if wmode == 'log': return np.full(n, 1000.0*np.log2(2+d.heading.sum())/n)
folds = 5
fold_of = {d.sha256: k % folds for k, d in enumerate(sorted(corpus, key=lambda d: d.sha256))}
prob = {}
t=time.time()
for k in range(folds):
    tr = [d for d in corpus if fold_of[d.sha256] != k]
    m = GradientBoostingClassifier(n_estimators=stages, max_depth=depth, learning_rate=0.1, subsample=0.8, init='zero', random_state=0)
    m.fit(np.vstack([d.x for d in tr]), np.concatenate([d.heading for d in tr]), sample_weight=np.concatenate([w(d) for d in tr]))
    for d in corpus:
        if fold_of[d.sha256]==k: prob[d.sha256] = m.predict_proba(d.x)[:,1]
def f1(t, c): h=int((t&c).sum()); return 2*h/max(int(t.sum())+int(c.sum()),1)
out = {}
for th in (0.2,0.25,0.3,0.35,0.4,0.45,0.5):
    fam = {}
    for d in corpus: fam.setdefault(d.family, []).append(f1(d.heading==1, prob[d.sha256]>=th))
    g = [f1(d.heading==1, prob[d.sha256]>=th) for d in corpus if d.name=='gnuplot.pdf'][0]
    out[th] = dict(mean=round(float(np.mean([v for vs in fam.values() for v in vs])),4), gnuplot=round(g,3), **{f: round(float(np.mean(v)),3) for f,v in fam.items()})
print(name, stages, depth, wmode, round(time.time()-t), json.dumps(out))

