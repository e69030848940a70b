"""How long a process takes to make its CUDA context, alone and beside others (issue 38), from the driver:
    python3 experiments/harness/context_timing.py time          # one JSON line: cuInit and the context, timed
    python3 experiments/harness/context_timing.py hold SECONDS  # retain the context, then sleep (a stand-in for
                                                                # persistence mode: the GPU stays initialised)
Times are seconds from the process's start (timing.process_started_unix) and of each driver call."""

import ctypes
import json
import os
import sys
import time

sys.path.insert(0, os.getcwd())
from sssp_bench.run.timing import process_started_unix  # noqa: E402  (light: os, time)

BEGAN = process_started_unix() or time.time()


def retain() -> dict[str, float]:
    driver = ctypes.CDLL("libcuda.so.1")
    device, context = ctypes.c_int(), ctypes.c_void_p()
    started = time.time()
    status = driver.cuInit(0)
    initialised = time.time()
    driver.cuDeviceGet(ctypes.byref(device), 0)
    status = status or driver.cuDevicePrimaryCtxRetain(ctypes.byref(context), device)
    made = time.time()
    return {"pid": os.getpid(), "gpu": os.environ.get("CUDA_VISIBLE_DEVICES"), "status": status,
            "python_up_s": round(started - BEGAN, 3), "cuInit_s": round(initialised - started, 3),
            "context_s": round(made - initialised, 3), "ready_s": round(made - BEGAN, 3)}


if __name__ == "__main__":
    answer = retain()
    if sys.argv[1] == "hold":
        print(json.dumps({"holding": answer}), flush=True)
        time.sleep(float(sys.argv[2]))
    else:
        print(json.dumps(answer), flush=True)
