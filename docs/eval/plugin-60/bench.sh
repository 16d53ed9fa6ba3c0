#!/bin/bash
# usage: bench.sh ENGINE OUT [--library]: `bookrag bench query` on PEPSICO_2021_10K.pdf (or the whole library) with
# BOOKRAG_VECTOR_ENGINE=ENGINE (cypher, auto = the plugin), 4 questions x 3 after a warm-up, LLM-free; prints p50s.
cd "$(dirname "$0")/../../.."
target=PEPSICO_2021_10K.pdf; [ "$3" = "--library" ] && target=--library
BOOKRAG_VECTOR_ENGINE=$1 timeout 900 .venv/bin/bookrag bench query $target --no-llm \
  --question "What was PepsiCo's net revenue in 2021?" --question "How many tables are in the report?" \
  --question "Which is larger, the Frito-Lay North America or the Quaker Foods North America operating profit?" \
  --question "What does the company say about climate change?" --repeat 3 --json > "$2" 2> /dev/null
python3 -c "
import json; r = json.load(open('$2')); ops = r['per_operator_without_model']
print('$1 $3', 'runs', r['runs'], 'p50', r['without_model_inference']['p50_ms'], 'p95', r['without_model_inference']['p95_ms'],
      '|', ', '.join(f'{k} {v[\"p50_ms\"]}' for k, v in sorted(ops.items(), key=lambda kv: -kv[1]['p50_ms'])[:8]))"
