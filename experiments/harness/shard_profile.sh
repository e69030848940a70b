#!/usr/bin/env bash
# Where a cold shard's fixed cost goes when N shards start together (issue 38), one device call on a host with N
# GPUs, after `ONLY_BASELINE=1 experiments/harness/scaleout.sh N` (install, warm-up, the one-gpu run):
#   experiments/harness/shard_profile.sh N
# 1. each GPU's persistence mode and the driver;
# 2. the CUDA context (context_timing.py): alone, N processes at once, and both again while a process holds a context
#    on every GPU (what persistence mode would keep: the GPU initialised);
# 3. a run process's imports over 50 ms (-X importtime);
# 4. the N shards of the measured split at once, each under cProfile, then shard 1 alone under cProfile; each one's
#    start-up, per-graph and setup seconds and its first cell's, and the functions of most cumulative time;
# 5. the N shards at once, no profiler, with and without the holders.
# $OUT/shard-profile.txt keeps the output, $OUT/profiles.tgz the profiles and the runs' manifests.
set -uo pipefail
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../.." || exit 1
n=${1:-4}
config=${CONFIG:-experiments/harness/issue38-scaleout-100.yaml}
out=${OUT:-/tmp/out}
work=/tmp/scaleout/$(basename "$config" .yaml)
runs=$work/runs
profiles=$work/profiles
export SSSP_BENCH_DATASETS=/tmp/scaleout/datasets
mkdir -p "$out" "$profiles"
[ -f "$runs/one-gpu/manifest.json" ] || { echo "no $runs/one-gpu: run ONLY_BASELINE=1 scaleout.sh $n first"; exit 2; }
last=$((n - 1))

holders=()
hold() { for gpu in $(seq 0 $last); do
  CUDA_VISIBLE_DEVICES=$gpu python3 experiments/harness/context_timing.py hold 600 > "$profiles/holder-$gpu.log" 2>&1 &
  holders+=($!); done; sleep 3; }
release() { kill "${holders[@]}" 2>/dev/null; wait "${holders[@]}" 2>/dev/null; holders=(); }
contexts() {  # contexts LABEL: one process alone on GPU 0, then one on each GPU at once
  echo "-- $1, alone:"; CUDA_VISIBLE_DEVICES=0 python3 experiments/harness/context_timing.py time
  echo "-- $1, $n at once:"
  local pids=()
  for gpu in $(seq 0 $last); do
    CUDA_VISIBLE_DEVICES=$gpu python3 experiments/harness/context_timing.py time & pids+=($!)
  done
  wait "${pids[@]}"  # not the holders
}
shards() {  # shards NAME [prefix...]: the N shards at once, their manifests' timing summed up below
  local name=$1 pids=(); shift
  for index in $(seq 1 "$n"); do
    CUDA_VISIBLE_DEVICES=$((index - 1)) "$@" run "$config" --shard "$index/$n" --output "$profiles/runs" \
      --run-id "$name-$index" --costs-from "$runs/one-gpu" --no-progress > "$profiles/$name-$index.log" 2>&1 &
    pids+=($!)
  done
  wait "${pids[@]}"  # not the holders
}
profiled() { python3 -m cProfile -o "$profiles/$PROFILE_NAME.prof" -m sssp_bench.cli "$@"; }
export -f profiled

{
  echo "== persistence mode and driver"
  nvidia-smi --query-gpu=index,name,persistence_mode,driver_version,compute_mode --format=csv
  echo "== the CUDA context (seconds from the process's start)"
  contexts "no holder"; contexts "no holder, again"
  hold; contexts "a context held on every GPU"; release
  echo "== a run process's imports over 50 ms (self us | cumulative us | module)"
  python3 -X importtime -c "import sssp_bench.cli, sssp_bench.run.runner, sssp_bench.run.shards" 2>&1 \
    | awk -F'|' 'NR > 1 && $2 + 0 > 50000' | sort -t'|' -k2 -n | tail -15
  echo "== $n shards at once under cProfile, then shard 1 alone"
  profiling=()
  for index in $(seq 1 "$n"); do
    CUDA_VISIBLE_DEVICES=$((index - 1)) PROFILE_NAME=together-$index bash -c "profiled run '$config' --shard $index/$n \
      --output '$profiles/runs' --run-id together-$index --costs-from '$runs/one-gpu' --no-progress" \
      > "$profiles/together-$index.log" 2>&1 &
    profiling+=($!)
  done
  wait "${profiling[@]}"
  CUDA_VISIBLE_DEVICES=0 PROFILE_NAME=alone-1 bash -c "profiled run '$config' --shard 1/$n --output '$profiles/runs' \
    --run-id alone-1 --costs-from '$runs/one-gpu' --no-progress" > "$profiles/alone-1.log" 2>&1
  echo "== $n shards at once, no profiler: plain, then with a context held on every GPU"
  shards plain sssp-bench
  hold; shards held sssp-bench; release
  python3 - "$profiles" "$n" <<'PY'
import json, pstats, sys
from pathlib import Path
folder, n = Path(sys.argv[1]), int(sys.argv[2])
names = [f"together-{i}" for i in range(1, n + 1)] + ["alone-1"] + [f"plain-{i}" for i in range(1, n + 1)] \
    + [f"held-{i}" for i in range(1, n + 1)]
print(f"{'run':<12} {'wall':>6} {'start':>6} {'graph':>6} {'setup':>6} {'1st setup':>9} {'1st around':>10} {'loop':>6}")
for name in names:
    path = folder / "runs" / name / "manifest.json"
    if not path.is_file():
        print(f"{name}: no manifest ({(folder / (name + '.log')).read_text()[-300:]!r})")
        continue
    timing = json.loads(path.read_text())["timing"]
    first = timing["cells"][0]
    around = first["wall_s"] - first["setup_s"] - first["solve_s"] - first["verify_s"]
    print(f"{name:<12} {timing['wall_s']:6.2f} {timing['startup_s']:6.2f} {timing['graph_s']:6.2f} "
          f"{timing['setup_s']:6.2f} {first['setup_s']:9.3f} {around:10.3f} {timing['solve_loop_s']:6.2f}")
WANTED = ("load_module", "load_cooperative_module", "compile_with_cache", "_compile_with_cache", "get_function",
          "_prepare", "_run_graph", "load_graph", "_verify", "_certificate", "_reference", "device_graph",
          "upload", "_get_nvrtc_version", "getVersion", "cupy_module", "_watch_gpu", "_open_meter",
          "_preflight")
for name in ("together-1", "alone-1"):
    path = folder / f"{name}.prof"
    if not path.is_file():
        continue
    print(f"\n== {name}: the 35 functions of most cumulative time")
    stats = pstats.Stats(str(path))
    stats.sort_stats("cumulative").print_stats(35)
    print(f"== {name}: chosen functions")
    stats.print_stats("|".join(WANTED), 50)
PY
} 2>&1 | tee "$out/shard-profile.txt"
tar czf "$out/profiles.tgz" -C "$profiles" . 2>/dev/null
