#!/bin/bash
# Routing a library-wide question, before (a worktree of the commit before, $OLD) and after (this checkout),
# alternated: a cold CLI question over the whole library (wall, CPU, max RSS) and warm library-wide retrieval.
# usage: measure.sh OLD_WORKTREE OUT_DIR ROUNDS
OLD=$1 OUT=$2 ROUNDS=${3:-2}
NEW=$(cd "$(dirname "$0")/../../../.." && pwd)
PY=$NEW/.venv/bin/python
mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd)
cli() {  # cli CODE_DIR ARGS...
  local code=$1; shift
  (cd "$code" && PYTHONPATH=$code $PY -c \
    "import sys; from bookrag_neo4j.cli import main; sys.argv = ['bookrag'] + sys.argv[1:]; main()" "$@")
}
export BOOKRAG_EMBEDDER_PRECISION=float32
for round in $(seq "$ROUNDS"); do
  for side in old new; do
    code=$NEW; [ $side = old ] && code=$OLD
    for q in "What was PepsiCo's effective tax rate in 2021?" "What was the effective tax rate in 2022?"; do
      /usr/bin/time -f "$side library '$q' %e s wall %U s user %M KB" -a -o "$OUT/time.log" \
        bash -c "$(declare -f cli); PY=$PY cli $code retrieve \"$q\" --no-llm --json > /dev/null 2>&1"
    done
    cli "$code" bench query --library --no-llm --question "What was PepsiCo's net revenue in 2021?" \
      --question "Which is larger, the Frito-Lay North America or the Quaker Foods North America operating profit?" \
      --question "What does the company say about climate change?" --question "How many tables are in the report?" \
      --repeat 3 --json > "$OUT/library-$side-$round.json" 2>/dev/null
  done
done
cat "$OUT/time.log"
for f in "$OUT"/library-*.json; do
  $PY -c "
import json, sys; r = json.load(open(sys.argv[1])); ops = r['per_operator_without_model']
print(sys.argv[1].rsplit('/', 1)[-1], 'p50', r['without_model_inference']['p50_ms'], 'p95', r['without_model_inference']['p95_ms'],
      '| with model p50', r['with_model_inference']['p50_ms'], '| Route', ops.get('Route', {}).get('p50_ms'),
      '| Extract', ops.get('Extract', {}).get('p50_ms'), '| Select_by_Section', ops.get('Select_by_Section', {}).get('p50_ms'))" "$f"
done
