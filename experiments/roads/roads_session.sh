#!/usr/bin/env bash
# One device-machine call of issue35-targets.yaml, as ../harness/gpu_session.sh makes one (the session's .git restored
# from .carry/gitdir, install without an index, the GPU tests when asked), with the three real graphs this config
# needs fetched from .carry/datasets (USA-road-d.NY.gr.gz, NE.gr.xz for USA-road-pace.NE, soc-Epinions1.txt.gz):
#   experiments/roads/roads_session.sh [--tests] RUN_ID LABEL...     (graph labels of the config; none: every graph)
# The run goes to $OUT/results/RUN_ID (RUN_SECONDS, default 480, bounds it: a run cut short is marked interrupted and
# `sssp-bench run --resume` finishes it), its report to $OUT/report/, the claims printed last.
set -uo pipefail
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../.." || exit 1
run_tests=0
if [ "${1:-}" = "--tests" ]; then run_tests=1; shift; fi
run_id=$1; shift
config=experiments/roads/issue35-targets.yaml
out=${OUT:-/tmp/out}
mkdir -p "$out"
if [ "${RESTORE_GITDIR:-0}" = 1 ] && [ -d .carry/gitdir ]; then  # the session's .git (experiments/README.md); device only
  rm -rf .git && cp -r .carry/gitdir .git && git update-index -q --refresh
  echo "commit $(git rev-parse --short HEAD), $(git status --short | wc -l) changed files"
fi
python3 -m pip install -q --no-deps --no-build-isolation -e . || exit 1
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader
if [ "$run_tests" = 1 ]; then  # the new variant's GPU tests only: the rest of the suite has its own calls
  timeout 300 python3 -m pytest -m gpu -q -p no:cacheprovider tests/test_gpu_delta_stepping_chain.py 2>&1 \
    | tail -5 | tee "$out/gpu-tests.txt"
fi
datasets=/tmp/sssp-datasets
if [ -d .carry/datasets ]; then  # a graph not fetched is a failed prepare row of its own, the rest runs
  for name in USA-road-d.NY USA-road-pace.NE soc-Epinions1; do
    sssp-bench fetch "$name" --mirror .carry/datasets --datasets "$datasets" --no-progress \
      || echo "fetch $name failed"
  done
fi
graphs=()
for label in "$@"; do graphs+=(--graph "$label"); done
timeout "${RUN_SECONDS:-480}" sssp-bench run "$config" "${graphs[@]}" --datasets "$datasets" \
  --output "$out/results" --run-id "$run_id" --no-progress > "$out/run.txt" 2>&1
echo "run exit status: $? (log: run.txt)"
tail -n 5 "$out/run.txt"
sssp-bench report "$out/results/$run_id" --out "$out/report" > "$out/report.txt" 2>&1
tail -n 40 "$out/report.txt"
