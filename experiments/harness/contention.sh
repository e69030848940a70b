#!/usr/bin/env bash
# Are a GPU's solves slower when the host's other GPUs run solves too, and does pinning each process to the CPU
# cores of its GPU's NUMA node take that back? One device-machine call of a multi-GPU kind:
#   experiments/harness/contention.sh
# Runs contention.yaml (every process the same cells) on each GPU alone, then on all GPUs at once, unpinned and
# pinned (taskset to /sys/bus/pci/devices/BUS/local_cpulist), and prints each run's median per variant, start-up
# and setup. $OUT/contention.txt keeps the table and the host's topology.
set -uo pipefail
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../.." || exit 1
out=${OUT:-/tmp/out}
work=${WORK:-/tmp/contention}
config=${CONFIG:-experiments/harness/contention.yaml}
export SSSP_BENCH_DATASETS=${SSSP_BENCH_DATASETS:-/tmp/scaleout/datasets}
mkdir -p "$out" "$work" "$SSSP_BENCH_DATASETS"
table=$out/contention.txt
gpus=$(nvidia-smi -L | grep -c '^GPU ')
mapfile -t buses < <(nvidia-smi --query-gpu=pci.bus_id --format=csv,noheader)
cpus=()
{
  nvidia-smi topo -m
  lscpu | grep -E '^(Model name|Socket|NUMA|CPU\(s\)|Thread)'
  for index in $(seq 0 $((gpus - 1))); do
    bus=$(echo "${buses[$index]:-}" | tr 'A-F' 'a-f' | sed 's/^0000//')
    list=$(cat "/sys/bus/pci/devices/$bus/local_cpulist" 2>/dev/null || echo "")
    cpus+=("$list")
    echo "GPU $index $bus numa $(cat "/sys/bus/pci/devices/$bus/numa_node" 2>/dev/null) cpus $list"
  done
} > "$table" 2>&1
run() {  # NAME GPU [PIN]: one run of the config on GPU, into $work/NAME
  local name=$1 gpu=$2 pin=${3:-}
  local prefix=()
  [ -n "$pin" ] && [ -n "${cpus[$gpu]}" ] && prefix=(taskset -c "${cpus[$gpu]}")
  CUDA_VISIBLE_DEVICES=$gpu "${prefix[@]}" sssp-bench run "$config" --output "$work" --run-id "$name" \
    --no-report --no-progress > "$work/$name.log" 2>&1
}
rm -rf "${work:?}"/*
run warm 0
for index in $(seq 0 $((gpus - 1))); do run "alone-$index" "$index"; done
for index in $(seq 0 $((gpus - 1))); do run "together-$index" "$index" & done; wait
for index in $(seq 0 $((gpus - 1))); do run "pinned-$index" "$index" pin & done; wait
for index in $(seq 0 $((gpus - 1))); do run "alone-pinned-$index" "$index" pin; done
python3 - "$work" >> "$table" <<'PY'
import json, statistics, sys
from pathlib import Path
work = Path(sys.argv[1])
names = sorted((p.name for p in work.iterdir() if (p / "manifest.json").is_file()),
               key=lambda n: (n.rstrip("0123456789"), n))
variants = list(dict.fromkeys(json.loads(line)["variant"] for line in (work / names[0] / "rows.jsonl").open()))
print(f"\n{'run':18} " + " ".join(f"{v:>10}" for v in variants) + "  startup  setup   wall  (median ms per variant)")
for name in names:
    rows = [json.loads(line) for line in (work / name / "rows.jsonl").open()]
    timing = json.loads((work / name / "manifest.json").read_text())["timing"]
    medians = []
    for variant in variants:
        times = [r["time_s"] * 1e3 for r in rows if r.get("phase") == "solve" and r["variant"] == variant
                 and r["status"] == "ok"]
        medians.append(f"{statistics.median(times):10.2f}" if times else f"{'-':>10}")
    bad = sum(r["status"] != "ok" for r in rows)
    print(f"{name:18} " + " ".join(medians) + f"  {timing['startup_s']:6.2f} {timing['setup_s']:6.2f} "
          f"{timing['wall_s']:6.2f}" + (f"  {bad} not ok" if bad else ""))
PY
cat "$table"
