#!/usr/bin/env bash
# One device call for delta-stepping-cluster: install without an index, a first solve on USA-road-d.NY checked
# against the CPU reference (stops here if it is wrong), the GPU tests that name the cluster variant, then a probe
# of its parameters beside hbf and delta-stepping-async on USA-road-d.NY and a 512 x 512 grid, tables last; logs
# and run folders under $OUT.
#   NY_PARAMS="--param delta-stepping-cluster.delta=0,60000" GRID_PARAMS="--param delta-stepping-cluster.hops=0,4" \
#     experiments/course/cluster_check.sh       (USA-road-d.NY.gr.gz carried in .carry/datasets)
set -uo pipefail
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../.." || exit 1
out=${OUT:-/tmp/out}
datasets=/tmp/sssp-datasets
mkdir -p "$out"
python3 -m pip install -q --no-deps --no-build-isolation -e . >/dev/null 2>&1 || { echo "install failed"; exit 1; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
sssp-bench fetch USA-road-d.NY --mirror .carry/datasets --datasets "$datasets" --no-progress >/dev/null || exit 1
timeout 120 python3 - "$datasets" <<'PY' || exit 1
import sys, time
from sssp_bench import impls
from sssp_bench.datasets.resolve import load_graph
from sssp_bench.impls import canonical_distances
from sssp_bench.run.verify import compare, reference_distances
from pathlib import Path
graph = load_graph("USA-road-d.NY", "USA-road-d.NY", "keep", Path(sys.argv[1])).graph
implementation = impls.get("delta-stepping-cluster")(count_relaxations=True)
implementation.prepare(graph)
for source in (0, graph.n // 3):
    result = implementation.solve(source)
    verdict = compare(reference_distances(graph, source), canonical_distances(result))
    print("first solve from", source, "ok" if verdict.ok else f"WRONG: {verdict}", result.counters)
    if not verdict.ok:
        sys.exit(1)
implementation.teardown()
PY
timeout 240 python3 -m pytest -q -m gpu -p no:cacheprovider -k "cluster" tests/test_gpu_delta_stepping.py \
  tests/test_gpu_impls.py > "$out/gpu-tests-cluster.txt" 2>&1
echo "cluster gpu tests exit status: $?"; tail -n 5 "$out/gpu-tests-cluster.txt"
# the probes: NY_PARAMS and GRID_PARAMS (--param ... words) sweep the cluster variant on each graph
probe() {  # probe NAME GRAPH PARAMS...
  local name=$1 graph=$2; shift 2
  timeout 150 sssp-bench probe delta-stepping-cluster hbf delta-stepping-async --graph "$graph" \
    --datasets "$datasets" --sources 10 --counters "$@" > "$out/probe-$name.txt" 2>&1
  echo "probe $name exit status: $?"
  grep -E "^(USA|grid)" "$out/probe-$name.txt" | grep -v skipped | cut -c1-140
  grep -E "^  " "$out/probe-$name.txt" | grep cluster | grep -oE "^ +[^ ]+ +[^:]+|levels [0-9.]+|pops [0-9]+|chained [0-9]+" | paste -sd' ' | sed 's/   */\n/g'
}
# shellcheck disable=SC2086
probe ny USA-road-d.NY ${NY_PARAMS:-}
# shellcheck disable=SC2086
probe grid "grid:rows=512,cols=512,seed=1" ${GRID_PARAMS:-}
