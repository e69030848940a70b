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

Processes that start together can take turns at the driver (`take_turns(lock file)`: a `run --workers` pool gives
its workers one where SSSP_BENCH_DRIVER_TURNS is on, pool.py, which says why it is off by default). The driver shares
its time among processes that start at once, so that every one of four had its context at the end, 1.27 s after the
pool's start (4 x H200), while one process making four contexts one after another had them at 0.81, 0.97, 1.13 and
1.28 s (context_modes.sh, `measured/2026-11-27-h200-context-modes.txt`). In turns, each process's cuInit, then its
context, runs alone: the last context comes about as late, the others sooner. A process waits to be told that its
context is wanted without holding its turn, and waits at most TURN_TIMEOUT_S for a turn (a holder that hangs in the
driver); the kernel releases a dead holder's lock.

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
from pathlib import Path
from typing import Any

from ..switches import switched_on

try:
    import fcntl
except ImportError:  # not POSIX: no turns, every process goes at once as before
    fcntl = None  # type: ignore[assignment]

SWITCH = "SSSP_BENCH_EARLY_CONTEXT"
_thread: threading.Thread | None = None
_context_wanted = threading.Event()
_times: dict[str, float] = {}  # Unix seconds: "initialised" (cuInit done), "ready" (the context made)
_waited = 0.0  # seconds the process waited in wait()
_turns: Path | None = None  # the lock file of the processes this one takes turns at the driver with (take_turns)
CUDA_ERROR_NOT_INITIALIZED = 3
TURN_TIMEOUT_S = 10.0
"""The longest a process waits for its turn at the driver before it goes ahead anyway."""
TURN_POLL_S = 0.002


def take_turns(lock_file: str | os.PathLike | None) -> None:
    """Make this process's driver start-up (cuInit, then its context) one at a time with the other processes that
    take turns on `lock_file` (None: at once, as by default); before initialise()."""
    global _turns
    _turns = None if lock_file is None else Path(lock_file)


class Turn:
    """One process's turn on a lock file (an exclusive flock), taken and given back as often as needed; a no-op
    where `lock_file` is None, fcntl is missing or the file cannot be opened. `waited_s` sums the waits."""

    def __init__(self, lock_file: Path | None, timeout: float = TURN_TIMEOUT_S) -> None:
        self.timeout, self.waited_s, self.held = timeout, 0.0, False
        self.descriptor: int | None = None
        if lock_file is not None and fcntl is not None:
            try:
                self.descriptor = os.open(lock_file, os.O_RDWR | os.O_CREAT, 0o600)
            except OSError:
                pass

    def take(self) -> bool:
        """Wait for the turn (at most `timeout`); whether it is held."""
        if self.descriptor is None or self.held:
            return self.held
        started = time.perf_counter()
        deadline = started + self.timeout
        while True:
            try:
                fcntl.flock(self.descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
                self.held = True
                break
            except BlockingIOError:
                if time.perf_counter() >= deadline:
                    break  # go ahead without it: the holder hangs, and the driver is all that is lost
                time.sleep(TURN_POLL_S)
            except OSError:
                break
        self.waited_s += time.perf_counter() - started
        return self.held

    def give(self) -> None:
        if self.held:
            fcntl.flock(self.descriptor, fcntl.LOCK_UN)
            self.held = False

    def close(self) -> None:
        self.give()
        if self.descriptor is not None:
            os.close(self.descriptor)
            self.descriptor = None


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
    not yet), the seconds this process waited for them, and where it took turns (take_turns) the seconds its driver
    thread waited for its turns; None where no thread ran or no driver loaded."""
    if _thread is None or process_started_unix is None or not (_times or _thread.is_alive()):
        return None
    since = {name: round(_times[name] - process_started_unix, 4) if name in _times else None
             for name in ("initialised", "ready")}
    record = {"initialised_s": since["initialised"], "ready_s": since["ready"], "waited_s": round(_waited, 4)}
    if "turns_waited" in _times:
        record["turns_waited_s"] = round(_times["turns_waited"], 4)
    return record


def _wanted() -> bool:
    if not switched_on(SWITCH, default=True):
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
    turn = Turn(_turns)
    try:
        turn.take()
        if driver.cuInit(0) != 0 or driver.cuDeviceGet(ctypes.byref(device), 0) != 0:
            return  # the driver's own error surfaces, worded by CuPy, at the run's first GPU use
        _times["initialised"] = time.time()
        if not _context_wanted.is_set():
            turn.give()  # the others' turns while this process learns whether it wants a context
            _context_wanted.wait()  # a CPU-only run never asks: it holds no context
            turn.take()
        # Retained for the life of the process, as CuPy's runtime retains it too; the driver frees it at exit
        if driver.cuDevicePrimaryCtxRetain(ctypes.byref(context), device) == 0:
            _times["ready"] = time.time()
    finally:
        turn.close()
        if _turns is not None and "initialised" in _times:
            _times["turns_waited"] = turn.waited_s


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
