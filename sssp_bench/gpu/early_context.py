"""The CUDA context made in a thread while a process imports, so that neither waits for the other (issue 38).

A run process spends about 1 s importing (Python, NumPy, CuPy, the runner) and then, at its first allocation on
the device, 0.3 s (an H200 host) to 1.1 s (an H100 host) making the CUDA context: measured with
experiments/harness/cluster_start.py. The driver makes the context without holding the GIL, so a thread started
before the imports makes it while they run: it retains the device's primary context, the one CuPy's runtime
uses, and CuPy finds it made. `run` starts it once the config is read, for a config with a GPU implementation (a
CPU-only run on a GPU host holds no context, which a GPU in exclusive-process mode would give no one else), and a
Dask worker as it starts. Every shard, worker and one-GPU run starts that much sooner. Nothing timed changes:
the context was never inside a timed solve.

`start()` does nothing where SSSP_BENCH_EARLY_CONTEXT is "off", where CUDA_VISIBLE_DEVICES hides every GPU, or
where the driver library does not load (no GPU here); the thread ends quietly if the driver refuses. A process
that will fork workers (a `run --workers` coordinator: Dask starts them by fork, workers.py) must not call it:
CUDA does not survive a fork. `driver_initialized()` says whether this process has initialised CUDA (here or
through CuPy), without initialising it.
"""

from __future__ import annotations

import ctypes
import os
import threading

SWITCH = "SSSP_BENCH_EARLY_CONTEXT"
_thread: threading.Thread | None = None
CUDA_ERROR_NOT_INITIALIZED = 3


def start() -> threading.Thread | None:
    """Start making the first visible GPU's CUDA context in a thread (once per process); the thread, or None
    where it is switched off or no GPU is visible."""
    global _thread
    if _thread is None and _wanted():
        _thread = threading.Thread(target=_retain_primary_context, name="sssp-bench-cuda-context", daemon=True)
        _thread.start()
    return _thread


def _wanted() -> bool:
    if os.environ.get(SWITCH, "").strip().lower() in ("off", "0", "no", "false"):
        return False
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    return visible is None or visible.strip() not in ("", "-1")


def _driver() -> ctypes.CDLL | None:
    """The CUDA driver library, or None where it does not load (a machine without a GPU)."""
    try:
        return ctypes.CDLL("libcuda.so.1")
    except OSError:
        return None


def _retain_primary_context() -> None:
    driver = _driver()
    if driver is None:
        return
    device, context = ctypes.c_int(), ctypes.c_void_p()
    if driver.cuInit(0) != 0 or driver.cuDeviceGet(ctypes.byref(device), 0) != 0:
        return  # the driver's own error surfaces, worded by CuPy, at the run's first GPU use
    # Retained for the life of the process, as CuPy's runtime retains it too; the driver frees it at exit
    driver.cuDevicePrimaryCtxRetain(ctypes.byref(context), device)


def driver_initialized() -> bool:
    """Whether this process has initialised the CUDA driver (a context made, by this module or CuPy): asked of the
    driver with a call that initialises nothing (cuCtxGetCurrent answers CUDA_ERROR_NOT_INITIALIZED before
    cuInit). False where no driver loads."""
    driver = _driver()
    if driver is None:
        return False
    if _thread is not None:
        return True  # initialising now, if not yet
    context = ctypes.c_void_p()
    return driver.cuCtxGetCurrent(ctypes.byref(context)) != CUDA_ERROR_NOT_INITIALIZED
