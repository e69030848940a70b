"""Can four CUDA contexts be had sooner than four processes get them (issue 38)? One line of JSON per run, the
seconds from the process's start (timing.process_started_unix) at which the driver was initialised and each
device's primary context was made:
    python3 experiments/harness/context_modes.py threads     # one process, every visible GPU, a thread per GPU
    python3 experiments/harness/context_modes.py sequential  # one process, every visible GPU, one after another
    python3 experiments/harness/context_modes.py one         # one process, its first visible GPU (run N at once,
                                                             # each with CUDA_VISIBLE_DEVICES, as N shards are)
context_modes.sh runs each mode, with and without CUDA_DEVICE_MAX_CONNECTIONS=1 (fewer hardware queues made per
context), on every GPU of the host."""

import ctypes
import json
import os
import sys
import threading
import time

sys.path.insert(0, os.getcwd())
from sssp_bench.run.timing import process_started_unix  # noqa: E402  (light: os, time)


def main(mode: str) -> None:
    began = process_started_unix() or time.time()
    driver = ctypes.CDLL("libcuda.so.1")
    if driver.cuInit(0) != 0:
        raise SystemExit("cuInit failed")
    initialised = time.time() - began
    count = ctypes.c_int()
    driver.cuDeviceGetCount(ctypes.byref(count))
    devices = [0] if mode == "one" else list(range(count.value))
    ready: dict[int, float] = {}

    def retain(ordinal: int) -> None:
        device, context = ctypes.c_int(), ctypes.c_void_p()
        driver.cuDeviceGet(ctypes.byref(device), ordinal)
        if driver.cuDevicePrimaryCtxRetain(ctypes.byref(context), device) == 0:
            ready[ordinal] = round(time.time() - began, 3)

    if mode == "threads":
        threads = [threading.Thread(target=retain, args=(ordinal,)) for ordinal in devices]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    else:
        for ordinal in devices:
            retain(ordinal)
    print(json.dumps({"mode": mode, "pid": os.getpid(), "visible": os.environ.get("CUDA_VISIBLE_DEVICES"),
                      "max_connections": os.environ.get("CUDA_DEVICE_MAX_CONNECTIONS"),
                      "initialised_s": round(initialised, 3), "ready_s": ready}), flush=True)


if __name__ == "__main__":
    main(sys.argv[1])
