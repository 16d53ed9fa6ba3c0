"""Medians of the warm runs 11-20 of each plugin build (`bench.sh auto`, a server restarted before each build's 20
runs): a question's p50, Extract's and Graph_Reasoning's, without model inference.

    python docs/eval/plugin-60/parallel-links/medians.py
"""

import json
import statistics
from pathlib import Path

HERE = Path(__file__).parent

for build in ("serial", "sliced"):
    runs = [json.loads((HERE / f"{build}-{i}.json").read_text()) for i in range(11, 21)]
    figures = {"p50": [r["without_model_inference"]["p50_ms"] for r in runs]}
    for op in ("Extract", "Graph_Reasoning"):
        figures[op] = [r["per_operator_without_model"][op]["p50_ms"] for r in runs]
    print(build, "; ".join(f"{k} {statistics.median(v):.1f} ms ({min(v):.1f}-{max(v):.1f})" for k, v in figures.items()))
