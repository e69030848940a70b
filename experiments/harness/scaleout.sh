#!/usr/bin/env bash
# Issue 38's scale-out measurement, one device-machine call on a host with N or more GPUs:
#   experiments/harness/scaleout.sh N [N2 ...]        # e.g. `2` on nvidia-h100-x2, `2 4` or `4` on nvidia-h100-x4
# Carry `.whl` (the Dask wheels, README.md) and, for the real graphs, `.carry` (datasets/USA-road-d.NY.gr.gz and
# datasets/soc-Epinions1.txt.gz, a --mirror for `sssp-bench fetch`; gitdir, the session's .git, restored over the
# device copy's only with RESTORE_GITDIR=1, so the manifests name the commit). Without them the config's stand-ins
# run and the served (Dask) steps are skipped, each said so. SKIP_INSTALL=1 skips `pip install -e .` (a checkout
# that has it, e.g. a dry run on CPU with CONFIG set to a CPU config and a stand-in nvidia-smi on PATH).
# SKIP_ESTIMATE=1 leaves out the shards-N runs (split by the config's estimate), SKIP_MEASURED=1 the measured-N runs
# (more rounds of an A/B of `--workers` in one call), SKIP_KILL=1 the killed-2 and
# killed-served-2 runs, SKIP_SERVE=1 the served runs; SERVE_ONE=1 adds served-1 and warm-served-1 (the one-GPU baseline through a service), last;
# ROUNDS=R repeats the one-gpu, measured-N and workers-N runs R times in all (rounds 2 to R after everything
# else), each over its own round's one-gpu, and prints the median ratio and its range.
# ONLY_BASELINE=1 stops after the one-gpu run (warm GPUs and a baseline for another script, e.g. shard_profile.sh).
# BUDGET_SECONDS=S: no step starts, and none runs on, past S seconds of the script's time, so the table, the records
# and the archive are always written within a call's limit (give S about 30 s less than the limit).
#
# What it runs, every run of the same config (CONFIG, default experiments/harness/issue38-scaleout.yaml) into
# /tmp/scaleout/runs, its wall time taken here from the command's start to its end:
#   warmup       one GPU: generates and converts the graphs, compiles the kernels, fills the per-graph cache
#                (references, hop depths, relax passes) and the device constants; not timed for the targets
#   (prime)      the other GPUs' device constants and relax passes measured by a short run each (PRIME_VARIANT,
#                default bfs-harish), so every GPU is as warm as GPU 0; not timed. AFTER_WARMUP: a command run
#                before it (e.g. waiting for GPU tests started beside the warm-up)
#   one-gpu      one GPU, warm: the baseline every ratio divides by
# and for each N, in the order given (the most wanted first: a call that runs out of time keeps what ran):
#   measured-N   N `run --shard I/N --merge-into` in parallel, CUDA_VISIBLE_DEVICES=I-1 each, split by the costs
#                the one-gpu run measured (`--costs-from`: a warm run, whose per-cell setup holds no compile time);
#                the last shard to finish merges, in its own process
#   served-N     `sssp-bench serve --workers N` started (not timed: it stays up between commands), then
#                `run --scheduler` on it: workers started, CUDA contexts made, nothing resident yet
#   warm-served-N  the same command again on the same workers: every graph and prepared implementation resident
#   killed-served-2  (N = 2) a run on the served workers, one Dask worker SIGKILLed in the middle of a task (its
#                Nanny starts another); its merged counts are checked against workers-2's as killed-2's are
#   workers-N    `run --workers N --costs-from one-gpu` (worker processes forked by the command, one per GPU,
#                run/pool.py; the queue of tasks sized by the measured costs; each worker keeps its graphs and
#                prepared implementations resident between its tasks)
#   NAME-N       (AB=NAME:VARIABLE=VALUE) as workers-N with VARIABLE=VALUE in its step's environment (this script's
#                and the command's): an A/B in every round, the two runs' order swapped in even rounds. E.g.
#                AB=touched:TOUCH_GPUS=1 (below), or AB=nocache:SSSP_BENCH_DEVICE_CACHE=off
#   killed-2     (N = 2) the workers-2 run again, one worker SIGKILLed in the middle of a task; then its merged
#                counts are checked against workers-2's: every solve once, the same statuses, nothing lost
#   shards-N     as measured-N, split by the config's estimate
# TOUCH_GPUS=1: before every timed run, a CUDA context is made and let go on each GPU it uses (not timed), so that all
# of them were in use a moment before, as GPU 0 always is for the one-gpu run. On 4 x H100 a 4-GPU run that came
# straight after the one-gpu run (its GPUs 1 to 3 idle for 45 s) had its contexts at 1.6 s, one that came after
# another 4-GPU run at 1.2 s. Touched runs had theirs at 1.1 s in every round, but were no faster (-0.03 s a round
# over 6 rounds of the 40-source config; notes/scaleout.md, thirteenth session), so it is off by default. The
# contexts' times go to runs/touches.jsonl.
# It prints a table of wall times (and each one over one-gpu's), one-gpu's wall-time breakdown from its manifest,
# and writes $OUT/scaleout.txt (the same) and $OUT/scaleout-runs.tgz: the run folders (shards included, logs
# beside them) and records/<date>-<gpu>-<config name>-<N>/ (sssp-bench record of one-gpu and the N runs; move it
# under experiments/harness/measured/ once the code it ran is committed). Each config gets its own folders
# (/tmp/scaleout/<config name>) and shares the dataset cache, so two calls with two CONFIGs (and two OUTs) can share
# one device call.
set -uo pipefail
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../.." || exit 1
[ $# -ge 1 ] || { echo "usage: $0 N [N2 ...] (GPUs per scale-out step)"; exit 2; }
counts=("$@")
config=${CONFIG:-experiments/harness/issue38-scaleout.yaml}
out=${OUT:-/tmp/out}
config_name=$(basename "$config" .yaml)
AB=${AB:-}
ab_name=${AB%%:*} ab_setting=${AB#*:}  # AB=NAME:VARIABLE=VALUE: the A/B's runs, NAME-N
export ab_name
work=/tmp/scaleout/$config_name
runs=$work/runs
export SSSP_BENCH_DATASETS=/tmp/scaleout/datasets
mkdir -p "$out" "$runs" "$SSSP_BENCH_DATASETS"
summary=$out/scaleout.txt
walls=$work/walls.txt  # "NAME SECONDS EXIT" per timed run, for the table (FINISH_ONLY=1 reads it back)
if [ "${FINISH_ONLY:-0}" != 1 ]; then
  # A machine lent again may keep /tmp from an earlier call: its runs would join this call's records and archive
  rm -rf "$runs" "$work/records" && mkdir -p "$runs"
  : > "$summary"
  : > "$walls"
fi
say() { echo "$*" | tee -a "$summary"; }
now() { date +%s.%N; }

# The session's .git, so the manifests name the commit (experiments/README.md): only when asked (RESTORE_GITDIR=1, on
# the device's copy of the tree), never by default: in a working checkout it would replace the real .git.
if [ "${RESTORE_GITDIR:-0}" = 1 ] && [ -d .carry/gitdir ]; then
  rm -rf /tmp/git.device && { [ ! -e .git ] || mv .git /tmp/git.device; } && cp -r .carry/gitdir .git \
    && git update-index -q --refresh
  say "commit $(git rev-parse --short HEAD), $(git status --short | wc -l) changed files"
fi
if [ "${SKIP_INSTALL:-0}" != 1 ]; then
  python3 -m pip install -q --no-deps --no-build-isolation -e . >/dev/null 2>&1 || { say "install failed"; exit 1; }
fi
dask=0
if python3 -c "import distributed" 2>/dev/null; then
  dask=1
elif ls .whl/*.whl >/dev/null 2>&1 && python3 -m pip install -q --no-index --no-deps --target /tmp/site \
    .whl/*.whl >/dev/null 2>&1; then
  export PYTHONPATH=/tmp/site${PYTHONPATH:+:$PYTHONPATH}
  python3 -c "import distributed" 2>/dev/null && dask=1
fi
# Bytecode for every process to read: the device image sets PYTHONDONTWRITEBYTECODE, so without it each run, shard,
# worker and merge compiled the package's sources again (about 0.9 s of a process's 1.8 s start-up, measured), and
# the modules of the image's own packages that ship without bytecode too (0.3 s more): those a run process imports.
python3 -m compileall -q -j 0 sssp_bench $( [ -d /tmp/site ] && echo /tmp/site ) >/dev/null 2>&1 \
  || say "compileall failed: every process compiles its sources"
python3 - <<'EOF' 2>/dev/null || say "no bytecode for the image's packages"
import compileall, os, sys
import sssp_bench.cli, sssp_bench.run.runner, sssp_bench.run.shards, sssp_bench.run.workers  # noqa: F401
from sssp_bench.gpu import runtime
if runtime.gpu_status()[0]:
    runtime.cupy_module()
try:
    import distributed  # noqa: F401
except ImportError:
    pass
folders = {os.path.dirname(module.__file__) for module in list(sys.modules.values())
           if (getattr(module, "__file__", None) or "").endswith(".py")}
for folder in sorted(folders):
    if os.access(folder, os.W_OK):
        compileall.compile_dir(folder, maxlevels=0, quiet=2)
EOF
[ "$dask" = 1 ] || say "no Dask (carry .whl, built for this Python: $(python3 -V)): the served steps are skipped"
gpus=$(nvidia-smi -L | grep -c '^GPU ')
device=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
short=$(echo "$device" | grep -oiE 'h100|h200|a100|l40s|b200' | head -1 | tr 'A-Z' 'a-z')
say "$gpus x $device; python $(python3 -V 2>&1 | cut -d' ' -f2); config $config"
for n in "${counts[@]}"; do
  [ "$n" -le "$gpus" ] || { say "N=$n: this host has only $gpus GPU(s)"; exit 2; }
done
if [ -d .carry/datasets ]; then
  sssp-bench fetch USA-road-d.NY soc-Epinions1 --mirror .carry/datasets --no-progress >/dev/null 2>&1 \
    && say "fetched USA-road-d.NY and soc-Epinions1 from .carry/datasets" || say "fetch failed: stand-ins run"
else
  say "no .carry/datasets: the stand-ins of USA-road-d.NY and soc-Epinions1 run"
fi

if [ "${FINISH_ONLY:-0}" != 1 ]; then  # FINISH_ONLY=1: only the table, records and archive of the runs made so far
timed() {  # timed NAME COMMAND...: run it under STEP_SECONDS, its output logged beside the runs, its wall time kept
  local name=$1; shift
  if [ -n "${BUDGET_SECONDS:-}" ] && [ "$SECONDS" -ge "$BUDGET_SECONDS" ]; then
    say "$(printf '%-12s skipped: %s s of BUDGET_SECONDS=%s spent' "$name" "$SECONDS" "$BUDGET_SECONDS")"
    return
  fi
  local started; started=$(now)
  local limit=${STEP_SECONDS:-300}
  [ -z "${BUDGET_SECONDS:-}" ] || limit=$(( limit < BUDGET_SECONDS - SECONDS ? limit : BUDGET_SECONDS - SECONDS ))
  timeout "$limit" "$@" > "$runs/$name.log" 2>&1
  local status=$?
  local seconds; seconds=$(awk -v a="$started" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }')
  echo "$name $seconds $status" >> "$walls"
  say "$(printf '%-12s %7.1f s  exit %s  %s' "$name" "$seconds" "$status" "$(tail -n 1 "$runs/$name.log")")"
  return "$status"
}

# The warm-up's own limit (WARMUP_SECONDS, default 300), not STEP_SECONDS: beside the GPU tests it ran past 150 s
# and was stopped before its last graph, so the first one-gpu run paid that graph's per-graph work
STEP_SECONDS=${WARMUP_SECONDS:-300} timed warmup env CUDA_VISIBLE_DEVICES=0 sssp-bench run "$config" --output "$runs" \
  --run-id warmup --no-progress \
  || say "WARNING: the warm-up did not finish: round 1's one-gpu run may hold first-use costs (compiles, caches)"
[ -z "${AFTER_WARMUP:-}" ] || bash -c "$AFTER_WARMUP"  # e.g. wait for the GPU tests run beside the warm-up
# The other GPUs as warm as GPU 0: their device constants and every graph's relax pass measured once (device_cache.py),
# as the warm-up measured GPU 0's, by a short run of one fast variant on each (not timed).
most=1
for n in "${counts[@]}"; do [ "$n" -gt "$most" ] && most=$n; done
if [ "$most" -gt 1 ]; then
  for gpu in $(seq 1 $((most - 1))); do
    CUDA_VISIBLE_DEVICES=$gpu sssp-bench run "$config" --variant "${PRIME_VARIANT:-bfs-harish}" --output "$runs/prime" \
      --run-id "gpu-$gpu" --no-progress > "$runs/prime-gpu-$gpu.log" 2>&1 &
  done
  wait
  say "primed GPUs 1 to $((most - 1)): $(tail -qn 1 "$runs"/prime-gpu-*.log | tr '\n' ';')"
fi
touch_gpus() {  # touch_gpus NAME N: a CUDA context made and let go on each of GPUs 0 to N-1 at once, just before run
  # NAME (not timed), so that its GPUs were all in use a moment before it, as the one-gpu run's GPU 0 always is (the
  # run before it used it); each context's times go to touches.jsonl
  local gpu pids=()
  for gpu in $(seq 0 $(($2 - 1))); do
    CUDA_VISIBLE_DEVICES=$gpu python3 experiments/harness/context_timing.py time 2>/dev/null \
      | sed "s/^{/{\"before\": \"$1\", /" >> "$runs/touches.jsonl" &
    pids+=($!)
  done
  wait "${pids[@]}"
}
one_gpu() {  # one_gpu NAME: the baseline, on GPU 0 (touched first with TOUCH_GPUS=1)
  [ "${TOUCH_GPUS:-0}" != 1 ] || touch_gpus "$1" 1
  timed "$1" env CUDA_VISIBLE_DEVICES=0 sssp-bench run "$config" --output "$runs" --run-id "$1" --no-progress
}
on_workers() {  # on_workers NAME N [VARIABLE=VALUE]: `run --workers N` on GPUs 0 to N-1, split by the one-gpu run's
  # costs, with VARIABLE=VALUE (the A/B's) in the step's environment; its GPUs touched first with TOUCH_GPUS=1
  (
    [ -z "${3:-}" ] || export "$3"
    [ "${TOUCH_GPUS:-0}" != 1 ] || touch_gpus "$1" "$2"
    timed "$1" env CUDA_VISIBLE_DEVICES="$(seq -s, 0 $(($2 - 1)))" sssp-bench run \
      "$config" --workers "$2" --output "$runs" --run-id "$1" --costs-from "$runs/one-gpu" --no-progress
  )
}
workers_ab() {  # workers_ab N ROUND: workers-N and, with AB=NAME:VARIABLE=VALUE, NAME-N (first in even rounds)
  local suffix=""; [ "$2" = 1 ] || suffix="-r$2"
  if [ -n "${AB:-}" ] && [ $(($2 % 2)) = 0 ]; then on_workers "$ab_name-$1$suffix" "$1" "$ab_setting"; fi
  on_workers "workers-$1$suffix" "$1"
  if [ -n "${AB:-}" ] && [ $(($2 % 2)) = 1 ]; then on_workers "$ab_name-$1$suffix" "$1" "$ab_setting"; fi
}
one_gpu one-gpu
[ "${ONLY_BASELINE:-0}" = 1 ] && exit 0  # ONLY_BASELINE=1: warm GPUs and the one-gpu run, for another script's steps

sharded() {  # sharded NAME N [run options]: N shards in parallel, one GPU each; the last to finish merges them
  local name=$1 n=$2; shift 2
  local pids=()
  echo "launched $(date +%s.%N)" > "$runs/$name-ends.txt"  # for shard_timeline.py: each process's start and end
  for index in $(seq 1 "$n"); do
    ( CUDA_VISIBLE_DEVICES=$((index - 1)) sssp-bench run "$config" --shard "$index/$n" --output "$runs/$name-shards" \
      --run-id "$name-shard-$index" --merge-into "$runs/$name" --no-progress "$@" > "$runs/$name-shard-$index.log" 2>&1
      echo "$name-shard-$index $(date +%s.%N)" >> "$runs/$name-ends.txt" ) &
    pids+=($!)
  done
  wait "${pids[@]}"
  if [ -f "$runs/$name/manifest.json" ]; then  # the merging shard's last line: the merged run's counts
    grep -h "^$runs/$name: " "$runs/$name"-shard-*.log | tail -n 1
  else
    sssp-bench merge "$runs/$name-shards" --into "$runs/$name"
  fi
}
export -f sharded
export config runs

kill_one_worker() {  # kill_one_worker NAME RUN-OPTION...: a run on two workers (`--workers 2` or `--scheduler ADDRESS`)
  # whose worker of the first task caught running with 5 solves done is SIGKILLed
  local name=$1 run_dir=$runs/$1; shift
  CUDA_VISIBLE_DEVICES=0,1 sssp-bench run "$config" "$@" --output "$runs" --run-id "$name" --no-progress \
    --costs-from "$runs/one-gpu" \
    > "$runs/$name.log" 2>&1 &
  local coordinator=$!
  python3 - "$run_dir" <<'EOF' >> "$runs/$name.log" 2>&1
import json, os, signal, sys, time
from pathlib import Path
shards = Path(sys.argv[1]) / "shards"
deadline = time.monotonic() + 240
while time.monotonic() < deadline:
    for task in sorted(shards.glob("*")) if shards.is_dir() else []:
        try:
            manifest = json.loads((task / "manifest.json").read_text())
            solves = sum('"phase": "solve"' in line for line in (task / "rows.jsonl").read_text().splitlines())
            pid = json.loads((task / "attempts.jsonl").read_text().splitlines()[0])["pid"]
        except (OSError, ValueError, IndexError, KeyError):
            continue
        if manifest.get("status") == "running" and solves >= 5:
            os.kill(pid, signal.SIGKILL)
            print(f"killed worker pid {pid} in {task.name} after {solves} solves", flush=True)
            sys.exit(0)
    time.sleep(0.02)
print("no task was caught running: nothing killed", flush=True)
EOF
  wait $coordinator
}
export -f kill_one_worker

served() {  # served N: `sssp-bench serve` on N GPUs (its start not timed), then two timed runs through it
  local n=$1 visible address_file=$work/serve-$n.address
  visible=$(seq -s, 0 $((n - 1)))
  rm -f "$address_file"
  CUDA_VISIBLE_DEVICES="$visible" sssp-bench serve --workers "$n" --address-file "$address_file" \
    > "$runs/serve-$n.log" 2>&1 &
  local server=$! waited=0
  while [ ! -f "$address_file" ] && kill -0 "$server" 2>/dev/null && [ "$waited" -lt 600 ]; do
    sleep 0.2; waited=$((waited + 1))
  done
  if [ -f "$address_file" ]; then
    for name in "served-$n" "warm-served-$n"; do
      timed "$name" sssp-bench run "$config" --scheduler "$(cat "$address_file")" --output "$runs" --run-id "$name" \
        --costs-from "$runs/one-gpu" --no-progress
    done
    if [ "$n" = 2 ] && [ "${SKIP_KILL:-0}" != 1 ]; then  # the issue's kill check on Dask workers: a Nanny restarts it
      timed killed-served-2 bash -c "kill_one_worker killed-served-2 --scheduler $(cat "$address_file")"
    fi
  else
    say "serve-$n: the workers did not start ($(tail -n 1 "$runs/serve-$n.log"))"
  fi
  kill -TERM "$server" 2>/dev/null
  wait "$server"
}

for n in "${counts[@]}"; do
  [ "${SKIP_MEASURED:-0}" = 1 ] || timed "measured-$n" bash -c "sharded measured-$n $n --costs-from $runs/one-gpu"
  workers_ab "$n" 1
  if [ "$n" = 2 ] && [ "${SKIP_KILL:-0}" != 1 ]; then
    timed killed-2 bash -c "kill_one_worker killed-2 --workers 2"
  fi
  [ "$dask" = 1 ] && [ "${SKIP_SERVE:-0}" != 1 ] && served "$n"
  [ "${SKIP_ESTIMATE:-0}" = 1 ] || timed "shards-$n" bash -c "sharded shards-$n $n"
done
[ "$dask" = 1 ] && [ "${SERVE_ONE:-0}" = 1 ] && served 1  # the one-GPU baseline through a service as well
# ROUNDS=R: rounds 2 to R of the one-GPU baseline and, for each N, the measured-N and workers-N runs again, in the
# same order, each split by round 1's one-gpu costs; every run over its own round's one-gpu, median over rounds
for round in $(seq 2 "${ROUNDS:-1}"); do
  one_gpu "one-gpu-r$round"
  for n in "${counts[@]}"; do
    [ "${SKIP_MEASURED:-0}" = 1 ] ||
      timed "measured-$n-r$round" bash -c "sharded measured-$n-r$round $n --costs-from $runs/one-gpu"
    workers_ab "$n" "$round"
  done
done
fi

python3 - "$runs" "${ROUNDS:-1}" "${counts[@]}" <<'EOF' | tee -a "$summary"
"""The table: each run's solves and statuses; one-gpu's breakdown; the kill check."""
import json, os, sys
from collections import defaultdict
from pathlib import Path

runs, rounds, counts = Path(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]

def manifest(name):
    path = runs / name / "manifest.json"
    return json.loads(path.read_text()) if path.is_file() else None

def solve_rows(name):
    path = runs / name / "rows.jsonl"
    if not path.is_file():
        return []
    return [row for row in map(json.loads, path.read_text().splitlines()) if row["phase"] == "solve"]

print()
print(f"{'run':<12} {'solves':>6} {'verified':>8}  statuses")
AB = [os.environ["ab_name"]] if os.environ.get("ab_name") else []  # the A/B's runs (AB=NAME:...)
KINDS = ("shards", "measured", "served", "warm-served", "workers", *AB)
again = [f"{base}-r{round_}" for round_ in range(2, rounds + 1)
         for base in ["one-gpu"] + [f"{kind}-{n}" for n in counts for kind in ("measured", "workers", *AB)]]
for name in ["one-gpu"] + [f"{kind}-{n}" for n in counts + ["1"] for kind in KINDS] + ["killed-2", "killed-served-2"] + again:
    rows = solve_rows(name)
    if not rows:
        continue
    verified = sum(row["status"] == "ok" and row["certificate"] and row["reference"] is not False for row in rows)
    print(f"{name:<12} {len(rows):>6} {verified:>8}  {(manifest(name) or {}).get('statuses')}")
one = (manifest("one-gpu") or {}).get("timing")
if one:
    checked = one["solve_s"] + one["verify_s"]
    parts = one["graph_parts"]
    print(f"\none-gpu breakdown: wall {one['wall_s']:.1f} s = {one['wall_s'] / checked:.2f}x (timed solves "
          f"{one['solve_s']:.1f} s + verification {one['verify_s']:.1f} s); around the solves "
          f"{one['solve_loop_s'] - one['solve_s'] - one['verify_s']:.1f} s (end to end {one['end_to_end_s']:.1f} s); "
          f"per-graph {one['graph_s']:.1f} s (load {parts['load_s']:.1f}, sources {parts['sources_s']:.1f}, roofline "
          f"{parts['roofline_s']:.1f}, references {parts['references_s']:.1f}); per-cell setup {one['setup_s']:.1f} s; "
          f"start-up {one['startup_s']:.1f} s; device bring-up (context wait, constants) {one['device_s']:.1f} s; other {one['other_s']:.1f} s")
    if one.get("context"):
        print(f"one-gpu CUDA context: {one['context']}")
for name in [f"{kind}-{n}" for n in counts + ["1"] for kind in KINDS]:
    timing = (manifest(name) or {}).get("timing")
    if timing:
        shards = ", ".join(f"{shard['wall_s']:.1f}" for shard in timing["shards"])
        print(f"{name}: elapsed {timing.get('elapsed_s', 0):.1f} s; per shard/task wall {shards} s; summed solves "
              f"{timing['solve_s']:.1f} s, verification {timing['verify_s']:.1f} s, per-graph {timing['graph_s']:.1f} s, "
              f"setup {timing['setup_s']:.1f} s, start-up {timing['startup_s']:.1f} s")
        contexts = [shard.get("context") or {} for shard in timing["shards"]]
        if not any(contexts):  # a --workers run: each worker's, kept by the pool (its tasks claimed no start-up)
            contexts = [context or {} for context in (timing.get("coordinator") or {}).get("contexts") or []]
        if any(contexts):  # gpu/early_context.py: each process's CUDA context, from its start
            seconds = lambda value: "?" if value is None else f"{value:.2f}"  # noqa: E731
            print("  CUDA contexts ready at " + ", ".join(seconds(context.get("ready_s")) for context in contexts)
                  + " s (driver initialised at " + ", ".join(seconds(context.get("initialised_s")) for context in contexts)
                  + " s); the runs waited " + ", ".join(seconds(context.get("waited_s")) for context in contexts) + " s")
        ends_file = runs / f"{name}-ends.txt"  # sharded(): the launch, and each shard process's end
        if ends_file.is_file():
            ends = dict(line.split() for line in ends_file.read_text().splitlines() if line.strip())
            launched = float(ends.pop("launched"))
            for shard_id, ended in sorted(ends.items()):
                own = json.loads((runs / f"{name}-shards" / shard_id / "manifest.json").read_text())["timing"]
                ready = (own.get("context") or {}).get("ready_s")
                context_at = "?" if ready is None else f"{own['started_unix'] + ready - launched:.2f}"
                print(f"  {shard_id}: from the launch, process start {own['started_unix'] - launched:.2f} s, context "
                      f"{context_at} s, run finished "
                      f"{own['finished_unix'] - launched:.2f} s, process ended {float(ended) - launched:.2f} s "
                      f"(merge, if this one merged, and exit: {float(ended) - own['finished_unix']:.2f} s)")
        clock = timing.get("coordinator") or {}
        if "results_s" in clock:  # a --workers or --scheduler run: the coordinator's own clock
            started = "worker processes" if clock.get("executor") == "processes" else "Dask"
            ready = clock.get("workers_ready_s")
            print(f"  coordinator: {started} started in {clock['cluster_s']:.2f} s"
                  + (f", their imports done at {', '.join(f'{value:.2f}' for value in ready if value is not None)} s"
                     if ready else "")
                  + f", the split made at {clock.get('split_s', 0):.2f} s; first tasks out at "
                  f"{clock['submitted_s']:.2f} s, the last result in at {clock['results_s']:.2f} s; cluster closed in "
                  f"{clock['close_s']:.2f} s, merged in {clock['merge_s']:.2f} s; elapsed {clock['elapsed_s']:.2f} s")
late = {}  # every --workers run, every round: when its last worker's CUDA context was ready, from the pool's start
for name in [f"{kind}-{n}" for n in counts for kind in ("workers", *AB)] + again:  # a run without a pool is passed
    clock = ((manifest(name) or {}).get("timing") or {}).get("coordinator") or {}
    ready = [context.get("ready_s") for context in clock.get("contexts") or [] if context]
    if ready and all(value is not None for value in ready):
        late[name] = max(ready)
if late:
    print("\nlast CUDA context ready (s from the pool's start): "
          + ", ".join(f"{name} {seconds:.2f}" for name, seconds in late.items()))
touches = runs / "touches.jsonl"  # TOUCH_GPUS=1 (or AB=touched:TOUCH_GPUS=1): the contexts made just before a run
if touches.is_file():
    made = defaultdict(list)
    for line in touches.read_text().splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        made[entry.get("before")].append(entry.get("ready_s"))
    print("touches, each context's ready time (s from its process's start) before the run named: "
          + "; ".join(f"{name} " + ", ".join("?" if value is None else f"{value:.2f}" for value in values)
                      for name, values in made.items()))
for name in ("killed-2", "killed-served-2"):  # --workers 2 (this host's processes), and served Dask workers
    killed, whole = solve_rows(name), solve_rows("workers-2")
    if killed and whole:
        key = lambda row: (row["graph"], row["variant"], row["repetition"], row["source_index"])
        keys = [key(row) for row in killed]
        attempts = sum(len(entry.get("attempts") or []) for entry in manifest(name)["merged_from"])
        tasks = len(manifest(name)["merged_from"])
        same = sorted(keys) == sorted(key(row) for row in whole)
        equal = manifest(name)["statuses"] == manifest("workers-2")["statuses"]
        print(f"\nkill check, {name}: {len(keys)} solves ({len(keys) - len(set(keys))} twice), workers-2 {len(whole)}; "
              f"the same solves: {'yes' if same else 'NO'}; statuses {manifest(name)['statuses']} vs "
              f"{manifest('workers-2')['statuses']}: {'equal' if equal else 'DIFFERENT'}; "
              f"{attempts} attempts at {tasks} tasks (one retried: {'yes' if attempts == tasks + 1 else 'no'})")
EOF

python3 - "$walls" "${ROUNDS:-1}" "${counts[@]}" <<'EOF' | tee -a "$summary"
"""Each run's wall time (this script's clock) over its own round's one-gpu (round 1: the names without -rR); with
several rounds, the median ratio of each kind and its range. A run that did not exit 0 (cut by its time limit,
failed) is listed but counted nowhere, nor is any run of a round whose one-gpu did not."""
import os, re, statistics, sys
from collections import defaultdict

rounds, counts = int(sys.argv[2]), sys.argv[3:]
AB = [os.environ["ab_name"]] if os.environ.get("ab_name") else []  # the A/B's runs (AB=NAME:...)

walls = [(line.split() + ["0"])[:3] for line in open(sys.argv[1]) if line.strip()]  # name, seconds, exit status
baseline = {}
for name, seconds, status in walls:
    match = re.fullmatch(r"one-gpu(?:-r(\d+))?", name)
    if match and status == "0":
        baseline[int(match.group(1) or 1)] = float(seconds)
print(f"\nwall time over one-gpu's ({', '.join(f'round {r}: {s:.1f} s' for r, s in sorted(baseline.items()))}; "
      "targets: 2 GPUs <= 0.55x, 4 GPUs <= 0.30x):")
ratios = defaultdict(list)
for name, seconds, status in walls:
    if name == "warmup" or name.startswith("one-gpu"):
        continue
    match = re.fullmatch(r"(.+?)(?:-r(\d+))?", name)
    kind, round_ = match.group(1), int(match.group(2) or 1)
    over = baseline.get(round_)
    if status != "0" or not over:
        why = f"exit {status}" if status != "0" else f"no one-gpu of round {round_}"
        print(f"  {name:<16} {float(seconds):7.1f} s  ({why}: not counted)")
        continue
    ratio = float(seconds) / over
    ratios[kind].append(ratio)
    print(f"  {name:<16} {float(seconds):7.1f} s  {ratio:.3f}x")
several = {kind: values for kind, values in ratios.items() if len(values) > 1}
if several:
    print(f"\nmedian over rounds (each over its round's one-gpu; one-gpu median "
          f"{statistics.median(baseline.values()):.1f} s):")
    for kind, values in several.items():
        print(f"  {kind:<16} {statistics.median(values):.3f}x  (range {min(values):.3f} to {max(values):.3f}, "
              f"{len(values)} rounds)")
seconds_of = {name: float(seconds) for name, seconds, status in walls if status == "0"}
for name in AB:  # the A/B, paired by round: its run's wall minus workers-N's of the same round
    for n in counts:
        pairs = [seconds_of[f"{name}-{n}{suffix}"] - seconds_of[f"workers-{n}{suffix}"]
                 for suffix in [""] + [f"-r{r}" for r in range(2, rounds + 1)]
                 if f"{name}-{n}{suffix}" in seconds_of and f"workers-{n}{suffix}" in seconds_of]
        if pairs:
            print(f"  {name}-{n} minus workers-{n}, per round: " + ", ".join(f"{d:+.2f}" for d in pairs)
                  + f" s (mean {statistics.mean(pairs):+.2f} s)")
EOF

date=$(date +%Y-%m-%d)
mkdir -p "$work/records"
for n in "${counts[@]}"; do
  members=("$runs/one-gpu")
  for kind in shards measured served warm-served workers ${AB:+"$ab_name"}; do
    [ -f "$runs/$kind-$n/manifest.json" ] && members+=("$runs/$kind-$n")
  done
  [ -f "$runs/warm-served-1/manifest.json" ] && members+=("$runs/served-1" "$runs/warm-served-1")
  for name in killed-2 killed-served-2; do
    [ "$n" = 2 ] && [ -f "$runs/$name/manifest.json" ] && members+=("$runs/$name")
  done
  for round in $(seq 2 "${ROUNDS:-1}"); do
    for name in "one-gpu-r$round" "measured-$n-r$round" "workers-$n-r$round" ${AB:+"$ab_name-$n-r$round"}; do
      [ -f "$runs/$name/manifest.json" ] && members+=("$runs/$name")
    done
  done
  rm -rf "$work/records/$date-${short:-gpu}-$config_name-$n"  # FINISH_ONLY=1 after a finished run: made again
  sssp-bench record "${members[@]}" --into "$work/records/$date-${short:-gpu}-$config_name-$n" >/dev/null 2>&1 \
    || say "record of N=$n failed"
done
cp "$summary" "$work/scaleout.txt"
tar czf "$out/scaleout-runs.tgz" -C "$work" runs records scaleout.txt
say "wrote $out/scaleout.txt and $out/scaleout-runs.tgz ($(du -h "$out/scaleout-runs.tgz" | cut -f1))"
