"""The CUDA context made in a thread while a process imports, so that neither waits for the other (issue 38).

A run process spends about 1 s importing (Python, NumPy, CuPy, the runner) and then, at its first allocation on
the device, 0.3 s (an H200 host) to 1.1 s (an H100 host) making the CUDA context: measured with
experiments/harness/cluster_start.py. The driver makes the context without holding the GIL, so a thread started
before the imports makes it while they run: it retains the device's primary context, the one CuPy's runtime
uses, and CuPy finds it made. A Dask worker starts it as it starts, `run` in the two steps below (a CPU-only run
on a GPU host holds no context, which a GPU in exclusive-process mode would give no one else). Every shard, worker
and one-GPU run starts that much sooner. Nothing timed changes: the context was never inside a timed solve.

Two steps, so that the driver's own start-up (cuInit, 0.17 s alone on an H200 host) begins before the config is
read: `initialise()` starts the thread, which initialises the driver and then waits; `start()` (which initialises
too, if need be) lets it make the context. `run` initialises as it begins (no context yet: cuInit makes none) and
starts once its config names a GPU implementation. Four processes starting together on four GPUs took 1.2 to 1.6 s to
have their contexts, against 0.35 s alone (4 x H200, experiments/harness/context_timing.py): the driver makes them
about one at a time. So the runner asks for the GPU only once its first graph is loaded (runner.py), and `wait()`
says how long it then waited; `record()` keeps when the driver and the context were ready, for the run's timing.

Not taken: one hardware queue per context (CUDA_DEVICE_MAX_CONNECTIONS=1; the driver's default is 8). Four
processes starting together then had their contexts at 0.98 to 1.02 s instead of 1.29 to 1.76 s
(experiments/harness/context_modes.sh, 4 x H200), but the same solves ran 3 to 4% slower for near-far on
USA-road-d.NY and 1 to 3% for workfront and bfs4k there, in every round of experiments/harness/queues_ab.sh (8
processes a setting). A benchmark keeps the driver's setting; a user who sets the variable finds it in the
manifest's provenance.

Not taken either: turns at the driver (each process's cuInit, then its context, alone, on a lock file that the
processes starting together share). The driver shares its time among processes that start at once, so that four
had their contexts together at the end; in turns the first ones came sooner (0.64 to 1.42 s against 1.05 to 1.52 s
on 4 x H100), but `run --workers 4` took 0.302x of one GPU's wall time in turns against 0.304x at once, and on
2 x H200 `--workers 2` took 0.58x against 0.55x, its host-bound solves slower in turns (issue 38; the code is in
git's history at d29ee3e, the measurements in experiments/harness/notes/scaleout.md).

`initialise()` and `start()` do nothing where SSSP_BENCH_EARLY_CONTEXT is "off", where CUDA_VISIBLE_DEVICES hides
every GPU, or where the driver library does not load (no GPU here); the thread ends quietly if the driver refuses.
A process that will fork workers (a `run --workers` coordinator: Dask starts them by fork, workers.py) must call
neither: CUDA does not survive a fork. `driver_initialized()` says whether this process has initialised CUDA (here or
through CuPy), without initialising it.
"""

from __future__ import annotations

import ctypes
import os
import threading
import time
from typing import Any

from ..switches import switched_on

SWITCH = "SSSP_BENCH_EARLY_CONTEXT"
_thread: threading.Thread | None = None
_context_wanted = threading.Event()
_times: dict[str, float] = {}  # Unix seconds: "initialised" (cuInit done), "ready" (the context made)
_waited = 0.0  # seconds the process waited in wait()
CUDA_ERROR_NOT_INITIALIZED = 3


def initialise() -> threading.Thread | None:
    """Start the driver's initialisation in a thread (once per process), no context yet; the thread, or None where
    it is switched off or no GPU is visible."""
    global _thread
    if _thread is None and _wanted():
        _thread = threading.Thread(target=_bring_up, name="sssp-bench-cuda-context", daemon=True)
        _thread.start()
    return _thread


def start() -> threading.Thread | None:
    """initialise(), then let the thread make the first visible GPU's CUDA context; the thread, or None where it is
    switched off or no GPU is visible."""
    thread = initialise()
    if thread is not None:
        _context_wanted.set()
    return thread


def wait() -> float:
    """Wait until the context start() asked for is made (at once where it is, or none was asked for); the seconds
    waited."""
    global _waited
    if ready():
        return 0.0
    started = time.perf_counter()
    _thread.join()
    waited = time.perf_counter() - started
    _waited += waited
    return waited


def ready() -> bool:
    """Whether wait() would return at once: the context start() asked for is made, or none is coming (none asked
    for, switched off, no GPU, or the driver refused)."""
    return _thread is None or not _context_wanted.is_set() or not _thread.is_alive()


def record(process_started_unix: float | None) -> dict[str, Any] | None:
    """When the driver was initialised and the context made, in seconds from the process's start (None: not, or
    not yet), and the seconds this process waited for them; None where no thread ran or no driver loaded."""
    if _thread is None or process_started_unix is None or not (_times or _thread.is_alive()):
        return None
    since = {name: round(_times[name] - process_started_unix, 4) if name in _times else None
             for name in ("initialised", "ready")}
    return {"initialised_s": since["initialised"], "ready_s": since["ready"], "waited_s": round(_waited, 4)}


def _wanted() -> bool:
    if not switched_on(SWITCH):
        return False
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    return visible is None or visible.strip() not in ("", "-1")


def _driver() -> ctypes.CDLL | None:
    """The CUDA driver library, or None where it does not load (a machine without a GPU)."""
    try:
        return ctypes.CDLL("libcuda.so.1")
    except OSError:
        return None


def _bring_up() -> None:
    driver = _driver()
    if driver is None:
        return
    device, context = ctypes.c_int(), ctypes.c_void_p()
    if driver.cuInit(0) != 0 or driver.cuDeviceGet(ctypes.byref(device), 0) != 0:
        return  # the driver's own error surfaces, worded by CuPy, at the run's first GPU use
    _times["initialised"] = time.time()
    _context_wanted.wait()  # a CPU-only run never asks: it holds no context
    # Retained for the life of the process, as CuPy's runtime retains it too; the driver frees it at exit
    if driver.cuDevicePrimaryCtxRetain(ctypes.byref(context), device) == 0:
        _times["ready"] = time.time()


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
