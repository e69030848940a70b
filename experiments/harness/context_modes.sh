#!/usr/bin/env bash
# context_modes.py on every GPU of this host, each mode twice, with and without CUDA_DEVICE_MAX_CONNECTIONS=1:
#   experiments/harness/context_modes.sh        # $OUT/context-modes.txt keeps the lines
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
out=${OUT:-/tmp/out}; mkdir -p "$out"
gpus=$(nvidia-smi -L | grep -c '^GPU ')
script=experiments/harness/context_modes.py
processes() {  # one process per GPU, started together, as N shards are
  local pids=()
  for gpu in $(seq 0 $((gpus - 1))); do CUDA_VISIBLE_DEVICES=$gpu python3 $script one & pids+=($!); done
  wait "${pids[@]}"
}
{
  for connections in default 1; do
    if [ "$connections" = default ]; then unset CUDA_DEVICE_MAX_CONNECTIONS; else export CUDA_DEVICE_MAX_CONNECTIONS=$connections; fi
    for attempt in 1 2; do
      echo "== max connections $connections, try $attempt: alone"; CUDA_VISIBLE_DEVICES=0 python3 $script one
      echo "== $gpus processes at once"; processes
      echo "== one process, a thread per GPU"; python3 $script threads
      echo "== one process, one GPU after another"; python3 $script sequential
    done
  done
} 2>&1 | tee "$out/context-modes.txt"
