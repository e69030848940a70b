"""Two start-up questions of issue 38, each measured in a fresh process (times from the process's start):
    python3 experiments/harness/cluster_start.py context [thread]
        the runner's imports, then CuPy's first allocation (the CUDA context); with `thread`, the context made by
        the driver (ctypes: cuInit, cuDevicePrimaryCtxRetain) in a thread while the imports run
    DASK_DISTRIBUTED__WORKER__MULTIPROCESSING_METHOD=M python3 experiments/harness/cluster_start.py cluster N [preload]
        `run --workers N`'s cluster (workers._local_cluster, one worker per GPU, the usual preload) started with
        Dask's multiprocessing method M (spawn, forkserver, fork), until every worker answers; with `preload`
        (forkserver only), the server imports the runner and CuPy before it forks"""

import ctypes
import os
import sys
import threading
import time

sys.path.insert(0, os.getcwd())
from sssp_bench.run.timing import process_started_unix  # noqa: E402  (light: os, time)

BEGAN = process_started_unix() or time.time()


def since() -> str:
    return f"{time.time() - BEGAN:6.3f} s"


def early_context() -> None:
    driver = ctypes.CDLL("libcuda.so.1")
    device, context = ctypes.c_int(), ctypes.c_void_p()
    driver.cuInit(0)
    driver.cuDeviceGet(ctypes.byref(device), 0)
    driver.cuDevicePrimaryCtxRetain(ctypes.byref(context), device)
    print(f"  thread: context retained at {since()}", flush=True)


def context(threaded: bool) -> None:
    print(f"context{' (thread)' if threaded else ''}: python up at {since()}")
    worker = threading.Thread(target=early_context, daemon=True) if threaded else None
    if worker:
        worker.start()
    from sssp_bench.run import runner  # noqa: F401
    print(f"  runner imported at {since()}")
    import cupy
    print(f"  cupy imported at {since()}")
    cupy.zeros(1)
    cupy.cuda.runtime.deviceSynchronize()
    print(f"  first allocation done at {since()}")
    if worker:
        worker.join()


def cluster(count: int, preload: bool) -> None:
    method = os.environ.get("DASK_DISTRIBUTED__WORKER__MULTIPROCESSING_METHOD", "spawn")
    print(f"cluster {count} {method}{' preload' if preload else ''}: python up at {since()}")
    from sssp_bench.run import workers
    import distributed.utils
    print(f"  workers.py and distributed imported at {since()}")
    if preload and method == "forkserver":
        distributed.utils.mp_context.set_forkserver_preload(["distributed", "sssp_bench.run.runner", "cupy"])
    from distributed import Client
    gpus = workers.visible_gpus()[:count]
    with workers._local_cluster(count, gpus, lambda message: None) as local, Client(local) as client:
        print(f"  cluster up at {since()}")
        answers = client.run(lambda: (os.getpid(), os.environ.get("CUDA_VISIBLE_DEVICES")))
        print(f"  {len(answers)} workers answered at {since()}: {sorted(answers.values())}")
    print(f"  closed at {since()}")


if __name__ == "__main__":
    if sys.argv[1] == "context":
        context(len(sys.argv) > 2 and sys.argv[2] == "thread")
    else:
        cluster(int(sys.argv[2]), len(sys.argv) > 3 and sys.argv[3] == "preload")
