#!/usr/bin/env bash
# One device-machine call that judges a change: the same config run by the code before it and by this checkout,
# graph by graph in turn (so machine drift falls on both sides alike), then `sssp-bench compare` per graph.
#   experiments/harness/before_after.sh OLD_DIR CONFIG LABEL...
# OLD_DIR holds the package as it was, e.g. `git archive REV sssp_bench | tar -x -C .carry/old` (carry .carry).
# Both sides share one dataset cache, so both solve the same bytes from the same cached sources.
set -uo pipefail
export PYTHONUNBUFFERED=1
old=$(cd "$1" && pwd) config=$2; shift 2
out=${OUT:-/tmp/out}
runs=$(mktemp -d)  # the run folders and logs, packed into $OUT/runs.tgz at the end (few files come back)
datasets=${DATASETS:-/tmp/sssp-datasets}
mkdir -p "$out"
python3 -m pip install -q --no-deps --no-build-isolation -e . || exit 1
if [ -d .carry/datasets ]; then  # real graphs the config needs travel as a --mirror for fetch
  sssp-bench fetch USA-road-d.NY --mirror .carry/datasets --datasets "$datasets" --no-progress >/dev/null
fi
before() {  # the old package first on the path, run through its own command line
  PYTHONPATH="$old" python3 -c 'import sys; from sssp_bench.cli import main; sys.argv[0] = "sssp-bench"; main()' "$@"
}
for label in "$@"; do
  before run "$config" --graph "$label" --datasets "$datasets" --output "$runs/before" --run-id "before-$label" \
    --no-progress >"$runs/before-$label.log" 2>&1 || echo "before, $label: exit status $?"
  sssp-bench run "$config" --graph "$label" --datasets "$datasets" --output "$runs/after" --run-id "after-$label" \
    --no-progress >"$runs/after-$label.log" 2>&1 || echo "after, $label: exit status $?"
done
for label in "$@"; do
  sssp-bench compare "$runs/before/before-$label" "$runs/after/after-$label" --csv "$runs/compare-$label.csv" 2>&1 |
    tee -a "$out/compare.txt"
done
tar -czf "$out/runs.tgz" -C "$runs" .
