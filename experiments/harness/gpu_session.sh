#!/usr/bin/env bash
# One device-machine call: install without an index, optionally run the GPU tests, run some graphs of a
# benchmark config into $OUT, and print the report table last (the reply carries the end of the output).
#   experiments/harness/gpu_session.sh [--tests] CONFIG RUN_ID LABEL...
# Real files the config needs travel in .carry/datasets (a --mirror for sssp-bench fetch): FETCH names the catalog
# graphs to fetch from it (default USA-road-d.NY). TEST_FILES limits --tests to some files (default: every GPU test).
# RESTORE_GITDIR=1 (device only) puts the session's .git from .carry/gitdir back (experiments/README.md).
set -uo pipefail
export PYTHONUNBUFFERED=1
run_tests=0
if [ "${1:-}" = "--tests" ]; then run_tests=1; shift; fi
config=$1 run_id=$2; shift 2
out=${OUT:-/tmp/out}
mkdir -p "$out"
if [ "${RESTORE_GITDIR:-0}" = 1 ] && [ -d .carry/gitdir ]; then
  rm -rf .git && cp -r .carry/gitdir .git && git update-index -q --refresh
  echo "commit $(git rev-parse --short HEAD), $(git status --short | wc -l) changed files"
fi
python3 -m pip install -q --no-deps --no-build-isolation -e . || exit 1
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader
if [ "$run_tests" = 1 ]; then
  # shellcheck disable=SC2086
  python3 -m pytest -m gpu -q -p no:cacheprovider ${TEST_FILES:-} 2>&1 | tail -5 | tee "$out/gpu-tests-$run_id.txt"
fi
datasets=/tmp/sssp-datasets
if [ -d .carry/datasets ]; then  # a graph not fetched is a failed prepare row of its own, the rest runs
  for name in ${FETCH:-USA-road-d.NY}; do
    sssp-bench fetch "$name" --mirror .carry/datasets --datasets "$datasets" --no-progress || echo "fetch $name failed"
  done
fi
graphs=()
for label in "$@"; do graphs+=(--graph "$label"); done
# The device tool brings back at most 8 files from $OUT: a run travels as one archive, $OUT/RUN_ID.tgz (unpack it
# with `tar xzf`): the run folder, its report folder, RUN_ID-run.txt and RUN_ID-report.txt, so several calls of this
# script in one command bring back every run whole.
work=/tmp/gpu-session
mkdir -p "$work/results"
timeout "${RUN_SECONDS:-480}" sssp-bench run "$config" "${graphs[@]}" --datasets "$datasets" \
  --output "$work/results" --run-id "$run_id" --no-progress > "$work/results/$run_id-run.txt" 2>&1
echo "run exit status: $? (log: $run_id-run.txt)"
tail -n 5 "$work/results/$run_id-run.txt"
sssp-bench report "$work/results/$run_id" --out "$work/results/$run_id-report" > "$work/results/$run_id-report.txt" 2>&1
tar czf "$out/$run_id.tgz" -C "$work/results" "$run_id" "$run_id-report" "$run_id-run.txt" "$run_id-report.txt"
tail -n "${REPORT_LINES:-40}" "$work/results/$run_id-report.txt"
