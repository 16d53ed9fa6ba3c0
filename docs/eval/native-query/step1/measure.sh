#!/bin/bash
# Similarities in Neo4j, before (a worktree of the commit before, $OLD) and after (this checkout), alternated:
# a cold CLI question on one 10-K and on the whole library (wall, CPU, max RSS), and warm retrieval on it.
# usage: measure.sh OLD_WORKTREE OUT_DIR ROUNDS
OLD=$1 OUT=$2 ROUNDS=${3:-2}
NEW=$(cd "$(dirname "$0")/../../../.." && pwd)
PY=$NEW/.venv/bin/python
Q="What was the effective tax rate in 2022?"
mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd)
run() {  # run CODE_DIR LABEL ARGS...
  local code=$1 label=$2; shift 2
  (cd "$code" && PYTHONPATH=$code /usr/bin/time -f "$label %e s wall %U s user %M KB" $PY -c \
    "import sys; from bookrag_neo4j.cli import main; sys.argv = ['bookrag'] + sys.argv[1:]; main()" "$@" \
    > /dev/null 2>> "$OUT/time.log")
}
for round in $(seq "$ROUNDS"); do
  for side in old new; do
    code=$NEW; [ $side = old ] && code=$OLD
    for p in auto float32; do
      BOOKRAG_EMBEDDER_PRECISION=$p run "$code" "$side doc $p" retrieve "$Q" --doc PEPSICO_2021_10K.pdf --no-llm --json
    done
    BOOKRAG_EMBEDDER_PRECISION=float32 run "$code" "$side library float32" retrieve "$Q" --no-llm --json
    (cd "$code" && PYTHONPATH=$code $PY -c "import sys; from bookrag_neo4j.cli import main; sys.argv = ['bookrag'] + sys.argv[1:]; main()" \
      bench query PEPSICO_2021_10K.pdf --no-llm --question "What was PepsiCo's net revenue in 2021?" \
      --question "How many tables are in the report?" \
      --question "Which is larger, the Frito-Lay North America or the Quaker Foods North America operating profit?" \
      --question "What does the company say about climate change?" --repeat 3 --json > "$OUT/query-$side-$round.json" 2>/dev/null)
  done
done
grep -h "" "$OUT/time.log"
for f in "$OUT"/query-*.json; do
  $PY -c "
import json, sys; r = json.load(open(sys.argv[1])); ops = r['per_operator_without_model']
print(sys.argv[1].rsplit('/', 1)[-1], 'p50', r['without_model_inference']['p50_ms'], 'p95', r['without_model_inference']['p95_ms'],
      '| Graph_Reasoning p50', ops.get('Graph_Reasoning', {}).get('p50_ms'), '| Extract p50', ops.get('Extract', {}).get('p50_ms'),
      '| Fetch p50', ops.get('Fetch', {}).get('p50_ms'), '| Select_by_Section p50', ops.get('Select_by_Section', {}).get('p50_ms'))" "$f"
done
