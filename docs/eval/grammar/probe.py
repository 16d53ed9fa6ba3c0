"""Every dev question through each grammar-dependent step (the planner's category, global plan and count test,
SuperRAG's template, G²-Reader's comparison sides and DAG), as JSON: run it on two checkouts and compare.

    PYTHONPATH=<old checkout> python docs/eval/grammar/probe.py before.json; python docs/eval/grammar/probe.py after.json
"""
import json
import sys
from pathlib import Path

from bookrag_neo4j.ops.superrag import template_query
from bookrag_neo4j.retrieval.g2.planning import comparison_dag, comparison_sides
from bookrag_neo4j.retrieval.planner import counts_filtered, heuristic_category, heuristic_global_plan

BENCHMARKS = Path(__file__).resolve().parents[4] / "shared" / "benchmarks"

out = []
for bench in ("financebench", "mmlongbench"):
    for line in open(BENCHMARKS / bench / "questions.jsonl"):
        q = json.loads(line)["question"]
        out.append([q, heuristic_category(q), heuristic_global_plan(q).model_dump(), counts_filtered(q),
                    str(template_query(q)), comparison_sides(q), comparison_dag(q).describe()])
json.dump(out, open(sys.argv[1], "w"))
print(len(out))
