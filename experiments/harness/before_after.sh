#!/usr/bin/env bash
# One device-machine call that judges a change: the same config run by the code before it and by this checkout,
# graph by graph in turn (so machine drift falls on both sides alike), then `sssp-bench compare` per graph.
#   experiments/harness/before_after.sh OLD_DIR CONFIG LABEL...
# With ABBA=1 each graph runs before, after, after, before: besides the two before/after pairs, the compare of the
# old code with itself and of the new code with itself shows how far two runs of the same code drift apart here,
# the spread any verdict between the versions must be read against.
# OLD_DIR holds the package as it was, e.g. `git archive REV sssp_bench | tar -x -C .carry/old` (carry .carry).
# Both sides share one dataset cache, so both solve the same bytes from the same cached sources.
set -uo pipefail
export PYTHONUNBUFFERED=1
old=$(cd "$1" && pwd) config=$2; shift 2
out=${OUT:-/tmp/out}
runs=$(mktemp -d)  # the run folders and logs, packed into $OUT/runs.tgz at the end (few files come back)
datasets=${DATASETS:-/tmp/sssp-datasets}
mkdir -p "$out"
python3 -m pip install -q --no-deps --no-build-isolation -e . || exit 1  # for sssp-bench fetch and compare
if [ -d .carry/datasets ]; then  # real graphs the config needs travel as a --mirror for fetch
  sssp-bench fetch USA-road-d.NY --mirror .carry/datasets --datasets "$datasets" --no-progress >/dev/null
fi
# Each side imports its own package from PYTHONPATH; -P keeps the working folder (this checkout) off the path, where
# it would come first and hand both sides this checkout's package.
package_cli() {  # package_cli PACKAGE_PARENT ARGS...: sssp-bench from the package under PACKAGE_PARENT
  PYTHONPATH="$1" python3 -P -c 'import sys
import sssp_bench.cli
if sys.argv[1:2] == ["--which"]:
    print(sssp_bench.cli.__file__)
    raise SystemExit
sys.argv[0] = "sssp-bench"
sssp_bench.cli.main()' "${@:2}"
}
echo "before: $(package_cli "$old" --which)"
echo "after: $(package_cli "$PWD" --which)"
side() {  # side before|after RUN_ID LABEL
  if [ "$1" = before ]; then package=$old; else package=$PWD; fi
  package_cli "$package" run "$config" --graph "$3" --datasets "$datasets" --output "$runs" --run-id "$2" \
    --no-progress \
    >"$runs/$2.log" 2>&1 || echo "$2: exit status $?"
}
compare() {  # compare BASE_RUN_ID NEW_RUN_ID
  sssp-bench compare "$runs/$1" "$runs/$2" --csv "$runs/compare-$1-$2.csv" 2>&1 | grep -v "^wrote" |
    tee -a "$out/compare.txt"
}
for label in "$@"; do  # each graph compared (and the runs packed) as soon as its sides ran: a cut-off call keeps them
  side before "before-$label" "$label"
  side after "after-$label" "$label"
  if [ "${ABBA:-0}" = 1 ]; then
    side after "after2-$label" "$label"
    side before "before2-$label" "$label"
  fi
  compare "before-$label" "after-$label"
  if [ "${ABBA:-0}" = 1 ]; then
    compare "before2-$label" "after2-$label"
    compare "before-$label" "before2-$label"  # the same code twice: the drift between runs here
    compare "after-$label" "after2-$label"
  fi
  tar -czf "$out/runs.tgz" -C "$runs" .
done
