#!/usr/bin/env bash
# Run configs on the device machine, each under a time limit, and bring their run folders back under $OUT:
#   experiments/harness/device_runs.sh SECONDS CONFIG [SECONDS CONFIG ...]
# Each config runs to its own run folder (named after the config), gets its report even when the limit cut it off
# (the report then says the run is still running and counts only what it recorded), and is packed into
# $OUT/<name>.tgz (the device tool brings back few files: one archive per run). A run that an earlier call began
# goes on where it stopped: carry its unpacked folder as .carry/runs/<name> (the config must be unchanged; the
# runner refuses a resume under another config). A line per run says how it ended, its solves and its claims.
# Datasets of real graphs: fetch them first (see each config's header).
set -uo pipefail
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/../.." || exit 1
out=${OUT:-/tmp/out}
runs=/tmp/device-runs
mkdir -p "$out" "$runs"
python3 -m pip install -q --no-deps --no-build-isolation -e . >/dev/null 2>&1 || { echo "install failed"; exit 1; }
while [ $# -ge 2 ]; do
  limit=$1 config=$2; shift 2
  name=$(basename "$config" .yaml)
  started=$(date +%s)
  if [ -f ".carry/runs/$name/manifest.json" ]; then
    rm -rf "${runs:?}/$name" && cp -r ".carry/runs/$name" "$runs/$name"
    timeout "$limit" sssp-bench run "$config" --resume "$runs/$name" --no-progress > "$runs/$name.log" 2>&1
  else
    timeout "$limit" sssp-bench run "$config" --output "$runs" --run-id "$name" --no-progress > "$runs/$name.log" 2>&1
  fi
  status=$?
  sssp-bench report "$runs/$name" > "$runs/$name/report.log" 2>&1
  cat "$runs/$name.log" >> "$runs/$name/run.log" && rm "$runs/$name.log"
  tar czf "$out/$name.tgz" -C "$runs" "$name"
  echo "$name: exit $status after $(( $(date +%s) - started )) s; $(grep -c '"phase": "solve"' "$runs/$name/rows.jsonl") solves; $(grep -E '^[0-9]+ of [0-9]+ claims met' "$runs/$name/report.md" || echo 'no claims')"
done
