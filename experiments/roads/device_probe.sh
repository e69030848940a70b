#!/usr/bin/env bash
# One device call while delta-stepping-chain is being tuned: install without an index, its GPU tests, then probes
# on USA-road-d.NY (and optionally more graphs) printed last. Real files travel in .carry/datasets.
#   PROBE1='delta-stepping-chain --graph USA-road-d.NY --param delta=0,30000' ... PROBE6=... experiments/roads/device_probe.sh
# TESTS=0 skips the tests; TEST_FILES picks them.
set -uo pipefail
export PYTHONUNBUFFERED=1
out=${OUT:-/tmp/out}
mkdir -p "$out"
if [ "${RESTORE_GITDIR:-0}" = 1 ] && [ -d .carry/gitdir ]; then  # on the device only: RESTORE_GITDIR=1
  rm -rf .git && cp -r .carry/gitdir .git && git update-index -q --refresh
fi
python3 -m pip install -q --no-deps --no-build-isolation -e . || exit 1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
datasets=/tmp/sssp-datasets
sssp-bench fetch USA-road-d.NY USA-road-pace.NE --mirror .carry/datasets --datasets "$datasets" --no-progress >/dev/null
if [ "${TESTS:-1}" = 1 ]; then
  timeout "${TEST_SECONDS:-240}" python3 -m pytest -q -x -p no:cacheprovider ${TEST_FILES:-tests/test_gpu_delta_stepping_chain.py} \
    2>&1 | tail -12
fi
for n in 1 2 3 4 5 6; do
  var="PROBE$n"
  [ -n "${!var:-}" ] || continue
  echo "== probe $n: ${!var}"
  # shellcheck disable=SC2086
  timeout "${PROBE_SECONDS:-150}" sssp-bench probe ${!var} --datasets "$datasets" --output "$out/probes" \
    --run-id "probe-$n" --no-progress 2>&1 | tail -n "${PROBE_LINES:-30}"
done
cd "$out" && tar czf probes.tgz probes 2>/dev/null && rm -rf probes
