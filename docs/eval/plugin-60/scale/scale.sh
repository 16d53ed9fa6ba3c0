#!/bin/bash
# The scale curve on the instance "scaledev" (two small documents indexed): clones to 10/50/200/500, each size measured
# with the plugin (defaults) and without it (Cypher vectors, GDS PageRank) on the same library.
cd /work/main
export BOOKRAG_NEO4J_INSTANCE=scaledev BOOKRAG_NEO4J_BOLT_PORT=7787 BOOKRAG_NEO4J_HTTP_PORT=7574 \
       BOOKRAG_NEO4J_HEAP=2g BOOKRAG_NEO4J_PAGECACHE=1g
B=.venv/bin/bookrag
$B neo4j start || exit 1
$B bench scale --drop-clones || exit 1
for sizes in 10 10,50 10,50,200 10,50,200,500; do
  $B bench scale --clone --sizes $sizes --no-llm --out /tmp/r60/scale2/plugin
  BOOKRAG_VECTOR_ENGINE=cypher BOOKRAG_PPR_ENGINE=gds $B bench scale --clone --sizes $sizes --no-llm --out /tmp/r60/scale2/without
done
echo DONE
