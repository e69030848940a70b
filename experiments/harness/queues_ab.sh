#!/usr/bin/env bash
# One hardware queue per context against the driver's default of 8: the same cells timed both ways, one device call
# on a host with 2 or more GPUs (an even count):
#   experiments/harness/queues_ab.sh [ROUNDS]      # default 4
# Installs the package unless SKIP_INSTALL=1, fetches USA-road-d.NY from .carry/datasets, warms up (kernels
# compiled on GPU 0, device constants measured on every GPU; not compared), then each round runs queues-ab.yaml on
# every GPU at once: half the GPUs with CUDA_DEVICE_MAX_CONNECTIONS=1, half with 8, swapped each round, so each
# setting meets each GPU and each neighbour. Prints, per cell, the median over processes of each process's median
# ms per setting, their ratio, and the range over processes (a process's host round trips vary with its vCPU:
# notes/scaleout.md). $OUT/queues-ab.txt keeps the table, $OUT/queues-ab-runs.tgz the runs.
set -uo pipefail
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../.." || exit 1
rounds=${1:-4}
out=${OUT:-/tmp/out}
work=/tmp/queues-ab
config=experiments/harness/queues-ab.yaml
export SSSP_BENCH_DATASETS=${SSSP_BENCH_DATASETS:-/tmp/scaleout/datasets}
mkdir -p "$out" "$SSSP_BENCH_DATASETS" && rm -rf "$work" && mkdir -p "$work"
[ "${SKIP_INSTALL:-0}" = 1 ] || python3 -m pip install -q --no-deps --no-build-isolation -e . >/dev/null 2>&1
[ -d .carry/datasets ] && sssp-bench fetch USA-road-d.NY --mirror .carry/datasets --no-progress >/dev/null 2>&1
gpus=$(nvidia-smi -L | grep -c '^GPU ')
run() {  # NAME GPU QUEUES
  CUDA_VISIBLE_DEVICES=$2 CUDA_DEVICE_MAX_CONNECTIONS=$3 sssp-bench run "$config" --output "$work" --run-id "$1" \
    --no-progress > "$work/$1.log" 2>&1
}
run warm-0 0 1
for gpu in $(seq 1 $((gpus - 1))); do run "warm-$gpu" "$gpu" 1 & done; wait
for round in $(seq 1 "$rounds"); do
  for gpu in $(seq 0 $((gpus - 1))); do
    queues=$(( (gpu + round) % 2 == 0 ? 1 : 8 ))
    run "q$queues-r$round-g$gpu" "$gpu" "$queues" &
  done
  wait
done
python3 - "$work" <<'PY' | tee "$out/queues-ab.txt"
import json, statistics, sys
from collections import defaultdict
from pathlib import Path
work = Path(sys.argv[1])
per = defaultdict(lambda: defaultdict(list))  # (graph, variant) -> queues -> [process median ms]
checked = defaultdict(int)
for run in sorted(path for path in work.glob("q*-r*-g*") if path.is_dir()):
    queues = run.name.split("-")[0][1:]
    cells = defaultdict(list)
    for row in map(json.loads, (run / "rows.jsonl").read_text().splitlines()):
        if row["phase"] == "solve":
            cells[(row["graph"], row["variant"])].append(row["time_s"] * 1e3)
            checked[queues] += row["status"] == "ok" and bool(row["certificate"])
    environment = json.loads((run / "manifest.json").read_text())["provenance"]["environment"]
    assert environment.get("CUDA_DEVICE_MAX_CONNECTIONS") == queues, (run, environment)
    for cell, times in cells.items():
        per[cell][queues].append(statistics.median(times))
print(f"{'graph':<14} {'variant':<21} {'1 queue ms':>10} {'8 queues ms':>11} {'1 / 8':>6}   range over processes (1 | 8)")
for (graph, variant), arms in sorted(per.items()):
    one, eight = statistics.median(arms["1"]), statistics.median(arms["8"])
    print(f"{graph:<14} {variant:<21} {one:>10.3f} {eight:>11.3f} {one / eight:>6.3f}   "
          f"{min(arms['1']):.2f}-{max(arms['1']):.2f} | {min(arms['8']):.2f}-{max(arms['8']):.2f}"
          f"  ({len(arms['1'])} | {len(arms['8'])} processes)")
print(f"verified solves: 1 queue {checked['1']}, 8 queues {checked['8']}")
PY
tar czf "$out/queues-ab-runs.tgz" -C "$work" . 2>/dev/null
