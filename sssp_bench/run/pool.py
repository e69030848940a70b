"""`run --workers N` on this host: N worker processes, one per GPU, forked as the command begins and handed tasks one
at a time, each over its own pipe.

Dask (workers.py) stays for `--scheduler` and `serve`, where workers live on other nodes or between runs. On one host
a pipe per worker is all the scheduling the queue split needs (shards.py), and Dask's part of a `--workers 2` run was
fixed cost (4 x H200, experiments/harness/notes/scaleout.md):
- 0.19 s to import it;
- 0.3 to 0.4 s to start the cluster, and 0.2 to 0.4 s to close it;
- the workers' CUDA contexts were begun only once the cluster had started.

Here the workers start before the config is read. Each one pins its GPU (CUDA_VISIBLE_DEVICES) and initialises the
driver in a thread (gpu/early_context.py). Once the coordinator says the config names a GPU implementation, the
worker makes its context while it imports the runner. Meanwhile the coordinator reads the config, generates missing
graphs (workers.preflight) and makes the split.

Two settings were tried and taken out again, having changed nothing measurable (issue 38, notes/scaleout.md; the
code is in git's history at d29ee3e): workers taking turns at the CUDA driver (gpu/early_context.py says why), and
each GPU worker kept to its own block of CPUs (on 4 x H100, `--workers 4` took 0.305x of one GPU's wall time pinned
against 0.300x unpinned, the host-bound solves summing the same either way,
`measured/2026-11-28-h100-issue38-pinned-0403dbd-4`; experiments/harness/contention.sh pins whole commands to their
GPU's CPUs where that is wanted).

A worker's life:
1. Forked, or spawned where a fork is unsafe (`fork_is_safe`); a dead worker's successor is always spawned.
2. Told whether to make a CUDA context.
3. Imports the runner and claims its start-up (timing.py), so no task is charged for the wait on the coordinator.
4. Runs tasks one at a time. A task is a call of a module-level function; its result, or its exception, goes back.
5. Exits when told to stop, which it is as soon as nothing is left to hand out, or when its pipe closes (the
   coordinator died). A task that comes back after that (its worker died) starts a new worker on a released GPU.

A worker that dies (SIGKILL, a crash) loses at most its task's current solve, as on Dask. Its task goes back to the
front of the queue, and a successor starts on the same GPU. The task resumes its shard folder (workers.run_shard), so
nothing runs twice. A task whose workers died ALLOWED_FAILURES times in a row stops the run (`TaskKilledWorkers`), as
Dask's distributed.scheduler.allowed-failures does; `--resume` finishes it. A slot whose workers die that often
without finishing a task is not restarted.
"""

from __future__ import annotations

import collections
import multiprocessing
import os
import queue
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import traceback
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from typing import Any, Callable, Iterator, Sequence

from ..errors import UserError

ALLOWED_FAILURES = 3
"""Deaths in a row of the workers that ran one task before the run stops (Dask's default allowed-failures)."""
CLOSE_TIMEOUT_S = 60
"""How long the workers may take to exit once told to stop before they are killed."""
worker_name: str | None = None
"""In a worker process: its name, for attempts.jsonl (workers.run_shard). None elsewhere."""


class TaskKilledWorkers(Exception):
    """The workers that ran one task died ALLOWED_FAILURES times in a row."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.name = name


def visible_gpus() -> list[str]:
    """The GPUs this machine offers to workers, as CUDA_VISIBLE_DEVICES entries: the ones CUDA_VISIBLE_DEVICES
    already names, else every GPU `nvidia-smi -L` lists (asked without initialising CUDA in this process)."""
    named = os.environ.get("CUDA_VISIBLE_DEVICES")
    if named is not None:
        return [item.strip() for item in named.split(",") if item.strip() and item.strip() != "-1"]
    if shutil.which("nvidia-smi") is None:
        return []
    try:
        listed = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return []
    return [str(index) for index, line in enumerate(listed.stdout.splitlines()) if line.startswith("GPU ")]


def check_worker_count(workers: int, gpus: list[str]) -> None:
    """One worker per GPU at most, so no two solves share a GPU (none counted on a machine without one)."""
    if gpus and workers > len(gpus):
        raise UserError(f"--workers {workers}: this machine shows {len(gpus)} GPU(s) ({','.join(gpus)}); one worker "
                        f"per GPU keeps each solve's GPU to itself: use --workers {len(gpus)} or fewer")


def fork_is_safe() -> bool:
    """Whether a fork of this process makes a sound worker. It does not off Linux. It does not after this process
    initialised CUDA, which does not survive a fork: cli.py starts no context in a `--workers` coordinator, but a
    program that calls the pool may have used the GPU. It does not after numba started its threads here (the
    preflight generated a graph): GNU OpenMP's threads do not survive a fork."""
    from ..gpu import early_context

    if not sys.platform.startswith("linux") or early_context.driver_initialized():
        return False
    numba = sys.modules.get("numba")
    if numba is not None:
        try:
            numba.threading_layer()
            return False  # numba's threads run here
        except ValueError:
            pass  # none started
    return True


@dataclass
class _Slot:
    """One GPU's worker: the live process, its pipe, and its task (an index into the tasks being run)."""

    number: int
    gpu: str | None
    process: Any
    connection: Connection
    task: int | None = None
    deaths: int = 0  # of this slot's workers since one last finished a task
    ready_s: float | None = None  # when the current worker finished its imports, from the pool's start
    context: dict[str, Any] | None = None  # its CUDA context's times (early_context.record), as of its last task
    retired: bool = False
    released_s: float | None = None  # when the current worker was told to stop, nothing being left to hand out
    history: list[dict[str, Any]] = field(default_factory=list)  # each worker process: pid, how it ended


class Pool:
    """`count` worker processes on `gpus` (one each, in order; none on a machine without a GPU), started now.

    `warm(gpu_variants)` tells them whether to make CUDA contexts; `run(function, calls, names)` runs each call on the
    next idle worker and yields (index, result) as they finish; `close()` stops them. Leaving the `with` block
    before `close()` (an error, an interrupt) kills them: a killed worker loses at most its current solve."""

    def __init__(self, count: int, gpus: list[str], log: Callable[[str], None] | None = None) -> None:
        check_worker_count(count, gpus)
        self.began, self.began_unix = time.perf_counter(), time.time()
        self.log = log or (lambda message: None)
        self.context_wanted: bool | None = None
        self.first_task_s: float | None = None
        self.close_s: float | None = None
        self.method = "fork" if fork_is_safe() else "spawn"
        self.slots: list[_Slot] = []
        try:
            for number in range(count):
                self.slots.append(self._start(number, gpus[number] if gpus else None, self.method))
        except BaseException:
            self.close(kill=True)  # the ones started, if one could not be
            raise
        self.started_s = time.perf_counter() - self.began
        where = (f"{count} worker(s), one per GPU: {','.join(gpus[:count])}" if gpus
                 else f"no GPU here: {count} CPU worker process(es)")
        self.log(where)
        self.log(f"workers started by {self.method}"
                 + (", a dead one's successor by spawn" if self.method != "spawn" else ""))

    def __enter__(self) -> "Pool":
        return self

    def __exit__(self, *_: Any) -> None:
        self.close(kill=True)  # a no-op after close()

    @property
    def available(self) -> int:
        return sum(not slot.retired for slot in self.slots)

    def _start(self, number: int, gpu: str | None, method: str) -> _Slot:
        context = multiprocessing.get_context(method)
        here, there = context.Pipe()
        name = f"{socket.gethostname()}/worker-{number + 1}" + (f"-gpu-{gpu}" if gpu is not None else "")
        process = context.Process(target=_serve, args=(there, gpu, name), name=f"sssp-bench {name}")
        process.start()
        there.close()  # the worker's end: once the worker dies, reading here says so
        return _Slot(number, gpu, process, here)

    def warm(self, gpu_variants: bool) -> None:
        """Tell every worker whether the config needs its CUDA context (a CPU-only run holds none)."""
        self.context_wanted = gpu_variants
        for slot in self._live():
            slot.connection.send(("warm", gpu_variants))

    def _live(self) -> list[_Slot]:
        return [slot for slot in self.slots if not slot.retired]

    def run(self, function: Callable[..., Any], calls: Sequence[tuple], names: Sequence[str]) -> Iterator[
            tuple[int, Any]]:
        """Each call of `function` on the next idle worker, in order; (index, result) as each finishes. A worker's
        exception is raised here, its traceback as a note; a worker that dies puts its call back first in line."""
        if self.context_wanted is None:
            self.warm(False)
        pending = collections.deque(range(len(calls)))
        failures = [0] * len(calls)
        while pending or any(slot.task is not None for slot in self.slots):
            for slot in sorted(self._live(), key=lambda slot: slot.released_s is not None):  # released ones last
                if slot.task is None and pending:
                    if slot.released_s is not None:  # a task came back (its worker died): this GPU's worker again
                        self._successor(slot)
                    slot.task = pending.popleft()
                    slot.connection.send(("call", function, calls[slot.task]))
                    if self.first_task_s is None:
                        self.first_task_s = time.perf_counter() - self.began
                if slot.task is None and not pending and slot.released_s is None:
                    self._release(slot)
            live = [slot for slot in self._live() if slot.released_s is None]
            if not live:
                raise UserError("every worker process died before it finished a task (see their messages above)")
            wait([slot.connection for slot in live] + [slot.process.sentinel for slot in live])
            for slot in live:
                while slot.connection.poll():  # a message sent just before the worker died is still read
                    try:
                        kind, *payload = slot.connection.recv()
                    except (EOFError, OSError):
                        break
                    if kind == "ready":  # the worker's own clock: this loop may read it late
                        slot.ready_s = payload[0] - self.began_unix
                    elif kind == "done":
                        index, slot.task, slot.deaths, slot.context = slot.task, None, 0, payload[1]
                        yield index, payload[0]
                    elif kind == "failed":
                        error, text = payload
                        error.add_note(f"in worker pid {slot.process.pid} ({names[slot.task]}):\n{text}")
                        raise error
                if not slot.process.is_alive():
                    self._replace(slot, pending, failures, names)

    def _replace(self, slot: _Slot, pending: collections.deque, failures: list[int], names: Sequence[str]) -> None:
        """The worker of `slot` died: its task back in line (or TaskKilledWorkers), and a successor on its GPU."""
        slot.process.join()
        code = slot.process.exitcode
        how = f"killed by signal {-code}" if code is not None and code < 0 else f"exit status {code}"
        slot.history.append({"pid": slot.process.pid, "ended": how})
        slot.connection.close()
        slot.deaths += 1
        where = f"worker pid {slot.process.pid}" + (f" (GPU {slot.gpu})" if slot.gpu is not None else "")
        if slot.task is not None:
            task, slot.task = slot.task, None
            failures[task] += 1
            if failures[task] >= ALLOWED_FAILURES:
                raise TaskKilledWorkers(names[task])
            pending.appendleft(task)
            self.log(f"{where} died ({how}) in {names[task]}: the task goes back in the queue, resumed where it "
                     "stopped")
        else:
            self.log(f"{where} died ({how}) between tasks")
        if slot.deaths >= ALLOWED_FAILURES:
            slot.retired = True
            self.log(f"{where}: its GPU's workers died {slot.deaths} times in a row; not starting another")
            return
        self._successor(slot)
        self.log(f"worker pid {slot.process.pid} started by spawn in its place")

    def _successor(self, slot: _Slot) -> None:
        """A new worker for `slot`'s GPU, by spawn, in place of one that died or was released."""
        if slot.released_s is not None:  # told to stop: it exits on its own, or is killed past CLOSE_TIMEOUT_S
            slot.process.join(CLOSE_TIMEOUT_S)
            if slot.process.is_alive():
                slot.process.kill()
                slot.process.join()
            slot.connection.close()
        successor = self._start(slot.number, slot.gpu, "spawn")
        slot.process, slot.connection, slot.ready_s, slot.context = successor.process, successor.connection, None, None
        slot.released_s = None
        if self.context_wanted is not None:
            slot.connection.send(("warm", self.context_wanted))

    def _release(self, slot: _Slot) -> None:
        """Stop `slot`'s idle worker now that nothing is left to hand out, so that its exit (the driver releasing
        its context and memory, 0.2 s for two workers and 0.35 s for four when they all exited together, 4 x H200)
        overlaps the other workers' last tasks instead of following them."""
        slot.released_s = time.perf_counter() - self.began
        try:
            slot.connection.send(None)
        except OSError:
            pass  # it died meanwhile: close() reaps it

    def timing(self) -> dict[str, Any]:
        """What the pool adds to the coordinator's clock (which has its start, `started_s`, and its first task out,
        `first_task_s`): each worker's imports done, in seconds from the pool's start; each worker's CUDA driver and
        context (seconds from its own start, early_context.record); when each was told to stop, nothing being left
        to hand out (None: at close()); the workers that died."""
        return {"executor": "processes", "method": self.method,
                "workers_ready_s": [None if slot.ready_s is None else round(slot.ready_s, 4) for slot in self.slots],
                "workers_released_s": [None if slot.released_s is None else round(slot.released_s, 4)
                                       for slot in self.slots],
                "contexts": [slot.context for slot in self.slots],
                "died": [entry for slot in self.slots for entry in slot.history]}

    def close(self, kill: bool = False) -> None:
        """Stop the workers (told to, then killed past CLOSE_TIMEOUT_S); `kill`: at once (SIGTERM, then SIGKILL),
        as when the run stops on an error or an interrupt: a killed worker loses at most its current solve."""
        if self.close_s is not None:
            return
        began = time.perf_counter()
        for slot in self.slots:
            if slot.process.is_alive():
                if kill:
                    slot.process.terminate()
                elif slot.released_s is None:
                    try:
                        slot.connection.send(None)
                    except OSError:
                        pass  # died meanwhile
        deadline = time.monotonic() + (5 if kill else CLOSE_TIMEOUT_S)
        for slot in self.slots:
            slot.process.join(max(0.0, deadline - time.monotonic()))
        leftovers = [slot.process for slot in self.slots if slot.process.is_alive()]
        if leftovers and not kill:
            self.log(f"the workers did not stop within {CLOSE_TIMEOUT_S} s: killing {len(leftovers)} of them")
        for process in leftovers:
            process.kill()
            process.join(5)
        for slot in self.slots:
            slot.connection.close()
        self.close_s = time.perf_counter() - began


def _serve(connection: Connection, gpu: str | None, name: str) -> None:
    """A worker process: its GPU pinned and the driver initialised at once, the context made as soon as the
    coordinator asks for it (its pipe is read in a thread, so that starts while the runner imports), then calls until
    told to stop."""
    global worker_name
    worker_name = name
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the whole process group: the coordinator decides
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # a coordinator's handler, inherited by a fork, is not ours
    if gpu is not None:
        os.environ["CUDA_VISIBLE_DEVICES"] = gpu  # before anything initialises CUDA here
    from ..gpu import early_context

    if gpu is not None:
        early_context.initialise()
    inbox: queue.SimpleQueue = queue.SimpleQueue()
    warmed = threading.Event()
    threading.Thread(target=_listen, args=(connection, inbox, warmed, early_context), daemon=True).start()
    from . import provenance, runner  # noqa: F401  (what every task imports)
    from .timing import claim_startup, process_started_unix

    warmed.wait()
    claim_startup()
    provenance.fix_process_code()  # the code this worker imported, named by every run it serves
    try:
        connection.send(("ready", time.time()))
    except OSError:
        return  # the coordinator went away before the first task
    while (message := inbox.get()) is not None:
        _, function, call = message
        try:
            result = function(*call)
        except BaseException as error:  # noqa: BLE001  (sent to the coordinator, which raises it)
            _send_failure(connection, error)
            continue
        connection.send(("done", result, early_context.record(process_started_unix())))
    import gc

    gc.freeze()  # the interpreter's last collection would walk every object kept resident


def _listen(connection: Connection, inbox: queue.SimpleQueue, warmed: threading.Event, early_context: Any) -> None:
    """Everything the coordinator sends, read as it comes, so that its sends never wait on a busy worker: ("warm",
    wanted) makes the context at once when wanted; calls go to the inbox; None (stop), or the pipe closed (the
    coordinator died), ends it."""
    while True:
        try:
            message = connection.recv()
        except (EOFError, OSError):
            message = None
        if message is not None and message[0] == "warm":
            if message[1]:
                early_context.start()
            warmed.set()
            continue
        inbox.put(message)
        if message is None:
            warmed.set()  # a worker stopped before it was warmed exits at once
            return


def _send_failure(connection: Connection, error: BaseException) -> None:
    text = traceback.format_exc()
    try:
        connection.send(("failed", error, text))
    except Exception:  # noqa: BLE001  (the exception does not pickle: its words do)
        connection.send(("failed", RuntimeError(f"{error.__class__.__name__}: {error}"), text))
