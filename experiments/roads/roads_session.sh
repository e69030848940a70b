#!/usr/bin/env bash
# One device-machine call of issue35-targets.yaml: ../harness/gpu_session.sh with the three real graphs this config
# needs (USA-road-d.NY.gr.gz, NE.gr.xz for USA-road-pace.NE, soc-Epinions1.txt.gz in .carry/datasets) and, with
# --tests, the new variant's GPU tests only:
#   experiments/roads/roads_session.sh [--tests] RUN_ID LABEL...     (graph labels of the config; none: every graph)
cd "$(dirname "$0")/../.." || exit 1
tests=()
if [ "${1:-}" = "--tests" ]; then tests=(--tests); shift; fi
FETCH="USA-road-d.NY USA-road-pace.NE soc-Epinions1" TEST_FILES=tests/test_gpu_delta_stepping_chain.py \
  exec experiments/harness/gpu_session.sh "${tests[@]}" experiments/roads/issue35-targets.yaml "$@"
