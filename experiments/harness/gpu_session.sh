#!/usr/bin/env bash
# One device-machine call: install without an index, optionally run the GPU tests, run some graphs of a
# benchmark config into $OUT, and print the report table last (the reply carries the end of the output).
#   experiments/harness/gpu_session.sh [--tests] CONFIG RUN_ID LABEL...
# Real files the config needs travel in .carry/datasets (a --mirror for sssp-bench fetch).
set -uo pipefail
export PYTHONUNBUFFERED=1
run_tests=0
if [ "${1:-}" = "--tests" ]; then run_tests=1; shift; fi
config=$1 run_id=$2; shift 2
out=${OUT:-/tmp/out}
mkdir -p "$out"
if [ "${RESTORE_GITDIR:-0}" = 1 ] && [ -d .carry/gitdir ]; then  # the session's .git (experiments/README.md); device only
  rm -rf .git && cp -r .carry/gitdir .git && git update-index -q --refresh
  echo "commit $(git rev-parse --short HEAD), $(git status --short | wc -l) changed files"
fi
python3 -m pip install -q --no-deps --no-build-isolation -e . || exit 1
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader
if [ "$run_tests" = 1 ]; then
  python3 -m pytest -m gpu -q -p no:cacheprovider 2>&1 | tail -5 | tee "$out/gpu-tests.txt"
fi
datasets=/tmp/sssp-datasets
if [ -d .carry/datasets ]; then  # carried only when a config needs the real road graph
  sssp-bench fetch USA-road-d.NY --mirror .carry/datasets --datasets "$datasets" --no-progress
fi
graphs=()
for label in "$@"; do graphs+=(--graph "$label"); done
timeout "${RUN_SECONDS:-480}" sssp-bench run "$config" "${graphs[@]}" --datasets "$datasets" \
  --output "$out/results" --run-id "$run_id" --no-progress
echo "run exit status: $?"
sssp-bench report "$out/results/$run_id" > "$out/report.txt" 2>&1
tail -n 40 "$out/report.txt"
