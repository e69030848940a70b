#!/usr/bin/env bash
# Where a run process's fixed costs go on the device (issue 38): the imports, CuPy and the CUDA context, and a
# warm run's phases under cProfile. One device call, after `pip install -e .`:
#   experiments/harness/startup_profile.sh [CONFIG]     (default: experiments/harness/startup-profile.yaml)
# Prints the import times over 50 ms, the first CUDA steps timed, the warm run's manifest timing and the 45
# functions of most cumulative time, and for each name in PROFILE_CALLEES (comma-separated) what it called;
# $OUT/startup-profile.txt keeps all of it and $OUT/run.prof the profile.
set -uo pipefail
config=${1:-experiments/harness/startup-profile.yaml}
out=${OUT:-/tmp/out}
mkdir -p "$out"
log=$out/startup-profile.txt
export SSSP_BENCH_DATASETS=${SSSP_BENCH_DATASETS:-/tmp/scaleout/datasets}
work=/tmp/startup-profile
since() { python3 -c "import sys, time; print(f'{time.time() - float(sys.argv[1]):.2f} s wall')" "$1"; }
rm -rf "$work" && mkdir -p "$work"
{
  echo "== imports of a run process (self us | cumulative us | module), over 50 ms cumulative"
  python3 -X importtime -c "import sssp_bench.cli, sssp_bench.run.runner, sssp_bench.run.shards" 2>&1 \
    | awk -F'|' 'NR > 1 && $2 + 0 > 50000' | sort -t'|' -k2 -n | tail -20
  echo "== CuPy and the CUDA context"
  python3 - <<'PY'
import time
started = time.perf_counter()
import cupy
imported = time.perf_counter()
cupy.cuda.runtime.getDeviceCount()
counted = time.perf_counter()
cupy.zeros(1).sum().item()
context = time.perf_counter()
cupy.arange(1 << 20).sum().item()
second = time.perf_counter()
print(f"import cupy {imported - started:.3f} s; device count {counted - imported:.3f} s; first array and "
      f"reduction (context, module) {context - counted:.3f} s; a second reduction {second - context:.3f} s")
PY
  echo "== a cold run (graphs, kernels, per-graph cache)"
  started=$(date +%s.%N)
  sssp-bench run "$config" --output "$work" --run-id cold --no-progress 2>&1 | tail -3
  since "$started"
  echo "== the same run warm, under cProfile"
  started=$(date +%s.%N)
  python3 -m cProfile -o "$out/run.prof" -m sssp_bench.cli run "$config" --output "$work" --run-id warm \
    --no-progress 2>&1 | tail -2
  since "$started"
  python3 - "$work/warm/manifest.json" "$out/run.prof" "${PROFILE_CALLEES:-}" <<'PY'
import json, pstats, sys
timing = json.load(open(sys.argv[1]))["timing"]
print({key: round(value, 3) for key, value in timing.items() if isinstance(value, float)})
print({key: round(value, 3) for key, value in (timing.get("graph_parts") or {}).items()})
stats = pstats.Stats(sys.argv[2]).sort_stats("cumulative")
stats.print_stats(45)
for name in filter(None, sys.argv[3].split(",")):  # PROFILE_CALLEES: where each of these spent its time
    stats.print_callees(name)
PY
  echo "== the same run warm, no profiler"
  started=$(date +%s.%N)
  sssp-bench run "$config" --output "$work" --run-id warm2 --no-progress 2>&1 | tail -2
  since "$started"
  python3 -c "import json,sys; t=json.load(open(sys.argv[1]))['timing']; print({k: round(v, 3) for k, v in t.items() if isinstance(v, float)})" "$work/warm2/manifest.json"
} 2>&1 | tee "$log"
