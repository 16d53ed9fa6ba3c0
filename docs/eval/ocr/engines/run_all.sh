#!/bin/bash
# Sequential benchmark runs (one OCR process at a time). Results -> results/*.json, log -> run_all.log
cd /tmp/ocrcmp
PY=venv/bin/python
run() { echo "=== $* | loadavg $(cut -d' ' -f1-3 /proc/loadavg)"; "$@" 2>&1 | grep -v -i warn; }
for dpi in 150 200; do
  run env OMP_THREAD_LIMIT=1 $PY bench.py tess    $dpi results/tess_${dpi}_omp1.json
  run env -u OMP_THREAD_LIMIT $PY bench.py tess   $dpi results/tess_${dpi}_default.json
  run env OMP_THREAD_LIMIT=1 $PY bench.py tesscli $dpi results/tesscli_${dpi}_omp1.json
  run env -u OMP_THREAD_LIMIT $PY bench.py tesscli $dpi results/tesscli_${dpi}_default.json
  run $PY bench.py rapid $dpi results/rapid_${dpi}_default.json
  run $PY bench.py rapid $dpi results/rapid_${dpi}_tuned2.json --no-cls --threads 2 --arena
  run $PY bench.py rapid $dpi results/rapid_${dpi}_tuned1.json --no-cls --threads 1 --arena
done
echo "=== done | loadavg $(cut -d' ' -f1-3 /proc/loadavg)"
