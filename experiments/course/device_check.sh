#!/usr/bin/env bash
# One short device call for issue 23 (about 5 minutes; at most about 7.5 with every stage at its limit): install
# without an index, the delta-stepping GPU tests, then the small benchmark experiments/course/device-check.yaml run
# by the harness itself (every solve verified), its report, and a short table of median times and claims last.
#   experiments/course/device_check.sh            (from anywhere; results under $OUT, else /tmp/out)
# USA-road-d.NY travels in .carry/datasets (name .carry in the call's carry); without it the road graph's tests
# skip and the benchmark runs the grid and R-MAT graphs only.
set -uo pipefail
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../.." || exit 1
out=${OUT:-/tmp/out}
mkdir -p "$out"
python3 -m pip install -q --no-deps --no-build-isolation -e . || exit 1
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader

# the GPU tests of both variants (the shared battery, deltas, heavy_degree, barrier modes, the async queue's
# extremes, USA-road-d.NY); the whole log goes to $OUT
timeout 240 python3 -m pytest -q -ra -m gpu -p no:cacheprovider tests/test_gpu_delta_stepping.py \
  > "$out/gpu-tests.txt" 2>&1
echo "gpu tests exit status: $? (log: gpu-tests.txt)"
grep -E "passed|failed|error|skipped" "$out/gpu-tests.txt" | tail -n 15
timeout 60 python3 - <<'PY'
from sssp_bench import impls
from sssp_bench.graph.generators import generate
graph = generate("grid:rows=8,cols=8,seed=1")
for name, counter in (("delta-stepping", "barrier"), ("delta-stepping-async", "launch")):
    try:
        implementation = impls.get(name)()
        implementation.prepare(graph)
        print(f"{name}: {counter} = {implementation.solve(0).counters[counter]}")
        implementation.teardown()
    except Exception as error:
        print(f"{name}: {type(error).__name__}: {error}")
PY

datasets=/tmp/sssp-datasets
graphs=(--graph grid-512 --graph rmat-256K)
if [ -f .carry/datasets/USA-road-d.NY.gr.gz ]; then
  sssp-bench fetch USA-road-d.NY --mirror .carry/datasets --datasets "$datasets" --no-progress \
    && graphs=(--graph USA-road-d.NY "${graphs[@]}")
fi
timeout 150 sssp-bench run experiments/course/device-check.yaml "${graphs[@]}" --datasets "$datasets" \
  --output "$out/results" --run-id device-check --no-progress > "$out/run.txt" 2>&1
echo "benchmark run exit status: $? (log: run.txt)"
tail -n 5 "$out/run.txt"
sssp-bench report "$out/results/device-check" --out "$out" > "$out/report.txt" 2>&1

python3 - "$out" <<'PY'
import csv, sys
from pathlib import Path
out = Path(sys.argv[1])
rows = list(csv.DictReader(open(out / "report.csv"))) if (out / "report.csv").exists() else []
def number(text, digits=3):
    try:
        return f"{float(text):.{digits}g}"
    except ValueError:
        return "-"
print(f"\n{'graph':15s} {'variant':22s} {'verified':>9s} {'median ms':>10s} {'IQR ms':>8s} {'efficiency':>10s}  MTEPS")
for row in rows:
    target = f" (target {number(row['target_mteps'])}: {'met' if row['target_met'] == 'True' else 'not met'})" \
        if row.get("target_mteps") else ""
    print(f"{row['graph']:15s} {row['variant']:22s} {row['verified_total']:>9s} {number(row['time_median_ms']):>10s} "
          f"{number(row['time_iqr_ms'], 2):>8s} {number(row['efficiency'], 2):>10s}  "
          f"{number(row['mteps_median'])}{target}")
claims = out / "claims.csv"
if claims.exists():
    print()
    for row in csv.DictReader(open(claims)):
        against = f" than {row['against']}" if row.get("against") else ""
        print(f"claim {row['graph']:15s} {row['variant']}{against}: {row['requirement']} measured {row['measured']} "
              f"-> {row['verdict']}")
PY
