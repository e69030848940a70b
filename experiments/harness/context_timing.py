"""How long a process takes to have its CUDA context, alone and beside others (issue 38), through the runner's own
gpu/early_context.py (its thread: cuInit, then the primary context):
    python3 experiments/harness/context_timing.py time          # one JSON line: early_context.record()
    python3 experiments/harness/context_timing.py hold SECONDS  # the same, then keep the context (a stand-in for
                                                                # persistence mode: the GPU stays initialised)
initialised_s and ready_s are seconds from the process's start (timing.process_started_unix). The sixth session's
first call measured with an earlier version that timed the two driver calls itself (notes/scaleout.md)."""

import json
import os
import sys
import time

sys.path.insert(0, os.getcwd())
from sssp_bench.gpu import early_context  # noqa: E402  (light: ctypes, threading)
from sssp_bench.run.timing import process_started_unix  # noqa: E402  (light: os, time)

if __name__ == "__main__":
    began = process_started_unix() or time.time()
    thread = early_context.start()
    if thread is not None:
        thread.join()
    answer = {"pid": os.getpid(), "gpu": os.environ.get("CUDA_VISIBLE_DEVICES"), **(early_context.record(began) or {})}
    if sys.argv[1] == "hold":
        print(json.dumps({"holding": answer}), flush=True)
        time.sleep(float(sys.argv[2]))
    else:
        print(json.dumps(answer), flush=True)
