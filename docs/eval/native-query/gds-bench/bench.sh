#!/bin/bash
# usage: bench.sh ENGINE OUT
cd /work/main
export BOOKRAG_NEO4J_INSTANCE=gdsdev BOOKRAG_NEO4J_BOLT_PORT=18087 BOOKRAG_NEO4J_HTTP_PORT=18074
BOOKRAG_PPR_ENGINE=$1 timeout 900 .venv/bin/bookrag bench query PEPSICO_2021_10K.pdf --questions ../shared/benchmarks/financebench --no-llm \
  --question "What was PepsiCo's net revenue in 2021?" --question "How many tables are in the report?" \
  --question "Which is larger, the Frito-Lay North America or the Quaker Foods North America operating profit?" \
  --question "What does the company say about climate change?" --repeat 3 --json > $2 2> $2.err
python3 -c "
import json,sys; r=json.load(open('$2')); ops=r['per_operator_without_model']
print('$1', 'runs', r['runs'], 'whole p50', r['without_model_inference']['p50_ms'], 'p95', r['without_model_inference']['p95_ms'], '| with model p50', r['with_model_inference']['p50_ms'], '| Graph_Reasoning p50', ops.get('Graph_Reasoning',{}).get('p50_ms'), 'p95', ops.get('Graph_Reasoning',{}).get('p95_ms'))"
