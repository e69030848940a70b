"""A run split into tasks, run on workers and merged into one run folder: `run CONFIG --workers N` (N worker
processes on this machine, one per GPU: pool.py), `--scheduler ADDRESS` (a running dask.distributed cluster, e.g. one
`dask-cuda-worker` per GPU on several nodes) and `serve` (such a cluster here, kept up between runs).

The config is split into tasks (shards.py's `queue` split: many smaller tasks, each on one graph, in the order the
unsplit run runs them, shrinking towards the end; `--shards S`: the `spread` split into S shards instead), kept in
`RUN/split.json`. Each task runs its pieces (whole cells or source ranges of them) through the ordinary runner into
its own run folder, `RUN/shards/RUN-shard-I-of-N/` (`run_shard`), so every solve is timed and verified as `run` does
it. Workers take a task only when they finish one (the pool hands them out one at a time; a local Dask cluster is
told distributed.scheduler.worker-saturation 1.0), so one expensive cell no longer keeps one worker busy while the
others idle. A worker process keeps what it loaded between its tasks (resident.py: its graphs and every prepared,
warmed-up implementation), and every task reads the per-graph cache (per_graph.py) and the device measurements
(device_cache.py), so a task on a cell the worker has run before costs its solves and nothing else. When every task
is done they are merged into RUN itself (shards.merge_shards), a run folder that `report` and `compare` read as if
one process had run the whole config; its `timing` adds the coordinator's own clock (the workers' start, the
preflight, the merge, elapsed_s end to end).

Each worker is pinned to one GPU: the pool's by CUDA_VISIBLE_DEVICES; `serve`'s through dask-cuda's
LocalCUDACluster where it is installed, else our own Nanny processes each started with CUDA_VISIBLE_DEVICES set to
one device. On a machine without a GPU the workers are plain processes, which run the CPU implementations (and record
the GPU ones as unavailable). A worker runs one task at a time, so a GPU is never shared by two solves; CPU workers
do share the machine's cores and memory bandwidth, so their times are only as clean as the machine is idle.

A worker that dies (a crash, a kill, a node lost) loses at most the solve it was in: the runner appended every
finished solve to rows.jsonl at once, the task goes to another worker (the pool: back to the front of its queue; Dask:
its scheduler), and the task resumes the shard's folder (`--resume` semantics: finished solves are skipped, a
half-written last line is cut), so nothing is lost and nothing runs twice; a task is one shard folder, so this holds
for source-range tasks as for whole cells. A lock on the shard's folder keeps two live processes from ever writing it
together. Each attempt at a shard is appended to its `attempts.jsonl` (pid, host, worker, GPU, start time), so the
retry is on record. `--resume RUN` continues every shard of an interrupted RUN the same way.
"""

from __future__ import annotations

import contextlib
import copy
import fcntl
import json
import os
import socket
import sys
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Iterator

from ..errors import UserError
from .config import Config
from ..jsonfile import read_json, write_json_atomic
from .outcome import RunOutcome, new_run_id
from . import pool as local_pool
from . import shards
from .pool import ALLOWED_FAILURES, Pool, TaskKilledWorkers, check_worker_count, fork_is_safe, visible_gpus

DASK_HINT = "pip install 'sssp-bench[dask]'"
PRELOAD = ["sssp_bench.run.warm_worker"]
"""What each worker imports as it starts (warm_worker.py: the runner's imports; the CUDA context in a thread)."""


def require_dask(what: str = "--scheduler") -> None:
    """Refuse, in one line, to go on without dask.distributed."""
    try:
        import distributed  # noqa: F401
    except ImportError:
        raise UserError(f"{what} needs Dask (dask.distributed), which is not installed: {DASK_HINT}") from None


@contextlib.contextmanager
def connect(workers: int | None, scheduler: str | None, gpus: list[str],
            log: Callable[[str], None]) -> Iterator[Any]:
    """A dask.distributed Client: to the running cluster at `scheduler`, or to a cluster of `workers` processes
    started here (one thread each), pinned to `gpus` in turn when there are any; closed on exit."""
    from distributed import Client

    if scheduler is not None:
        try:
            client = Client(scheduler, timeout="30s")
        except (OSError, TimeoutError, ValueError) as error:
            raise UserError(f"--scheduler {scheduler}: cannot connect ({error.__class__.__name__}: {error})") from None
        with client:
            yield client
        return
    with _local_cluster(workers or 1, gpus, log) as cluster, Client(cluster) as client:
        yield client


@contextlib.contextmanager
def _local_cluster(workers: int, gpus: list[str], log: Callable[[str], None]) -> Iterator[Any]:
    import dask

    method = start_method()
    # A worker gets its next task only when it finishes one (the default, 1.1, hands a one-thread worker two), so
    # the tasks go to whichever worker is idle, in the order they were submitted. Dask's statistical profiler is
    # off: every 10 ms it would take the GIL in the worker's event loop to sample the task's stack, beside timed
    # solves whose host loops take the GIL back after every synchronisation (lonestar's and bfs-harish's levels).
    with dask.config.set({"distributed.scheduler.worker-saturation": 1.0,
                          "distributed.worker.profile.enabled": False}), _dask_warnings_only(), \
            contextlib.ExitStack() as stack:
        with dask.config.set({"distributed.worker.multiprocessing-method": method}):
            cluster = stack.enter_context(_started_cluster(workers, gpus, log))
        # The method a Nanny starts a dead worker's successor with is read then, from Dask's config: spawn again, as
        # Dask's default. A fork in the middle of a run copies a coordinator busy in other threads; a GPU worker so
        # forked after a SIGKILL ran its tasks but then never stopped, and the cluster's close waited on it
        # forever (measured on an H200 host; the same kill with spawned successors finished in 17 s).
        log(f"workers started by {method}" + (", a dead one's successor by spawn" if method != "spawn" else ""))
        yield cluster


LOGGING_VARIABLE = "DASK_LOGGING__DISTRIBUTED"
"""Dask's logging level for its `distributed` loggers, read by each worker process as it imports Dask."""


@contextlib.contextmanager
def _dask_warnings_only() -> Iterator[None]:
    """Dask's own log kept to its warnings and errors while a local cluster runs, here and in its worker processes
    (forked ones inherit the level, spawned ones read LOGGING_VARIABLE): its info lines (every worker's start and
    stop, every client, about 60 lines a run) and the traceback it logs as info when a worker's stream closes under
    the cluster's close would bury the run's own lines. Left as Dask has it where the user's Dask config sets
    `logging`. A killed worker's restart is a warning, and stays."""
    import logging

    import dask

    if "logging" in dask.config.collect():
        yield
        return
    logger = logging.getLogger("distributed")
    level, variable = logger.level, os.environ.get(LOGGING_VARIABLE)
    logger.setLevel(logging.WARNING)
    os.environ[LOGGING_VARIABLE] = "warning"
    try:
        yield
    finally:
        logger.setLevel(level)
        if variable is None:
            os.environ.pop(LOGGING_VARIABLE, None)
        else:
            os.environ[LOGGING_VARIABLE] = variable


def start_method() -> str:
    """How this process starts its Dask workers (`serve`): by fork, so that a worker inherits the imports this process
    made (NumPy, Dask; 4 GPU workers were up in 2.4 s instead of spawn's 3.3 s when they also inherited the runner,
    measured on an H100 host), unless Dask's config names a method, or a fork is unsafe here (pool.fork_is_safe)."""
    import dask

    configured = dask.config.get("distributed.worker.multiprocessing-method", "spawn")
    if configured != "spawn" or _named_in_dask_config():
        return configured
    return "fork" if fork_is_safe() else "spawn"


def _named_in_dask_config() -> bool:
    """Whether the user's Dask config (its YAML files, DASK_* variables) names the start method: spawn, Dask's
    default, is then a choice to keep."""
    import dask

    worker = (dask.config.collect().get("distributed") or {}).get("worker") or {}
    return any(key in worker for key in ("multiprocessing-method", "multiprocessing_method"))


@contextlib.contextmanager
def _started_cluster(workers: int, gpus: list[str], log: Callable[[str], None]) -> Iterator[Any]:
    from distributed import LocalCluster, Nanny, Scheduler, SpecCluster

    quiet = {"dashboard_address": None}  # no web dashboard: nothing to bind, nothing to install
    if not gpus:
        log(f"no GPU here: {workers} CPU worker process(es)")
        with _closing(LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, preload=PRELOAD,
                                   **quiet), log) as cluster:
            yield cluster
        return
    pinned = gpus[:workers]  # run_on_workers refused more workers than GPUs
    try:
        from dask_cuda import LocalCUDACluster
    except ImportError:
        LocalCUDACluster = None
    if LocalCUDACluster is not None:
        log(f"{workers} worker(s) on GPU(s) {','.join(pinned)} (dask-cuda)")
        with _closing(LocalCUDACluster(n_workers=workers, CUDA_VISIBLE_DEVICES=",".join(pinned),
                                       threads_per_worker=1, preload=PRELOAD, **quiet), log) as cluster:
            yield cluster
        return
    log(f"{workers} worker(s), one per GPU: {','.join(pinned)} (CUDA_VISIBLE_DEVICES per worker)")
    specification = {
        f"gpu-{gpu}-{index}": {"cls": Nanny, "options": {"nthreads": 1, "env": {"CUDA_VISIBLE_DEVICES": gpu},
                                                         "preload": PRELOAD}}
        for index, gpu in enumerate(pinned)
    }
    with _closing(SpecCluster(workers=specification, scheduler={"cls": Scheduler, "options": quiet}), log) as cluster:
        yield cluster


CLOSE_TIMEOUT_S = 60
"""How long a local cluster may take to close before its worker processes are killed."""


@contextlib.contextmanager
def _closing(cluster: Any, log: Callable[[str], None]) -> Iterator[Any]:
    """`cluster`, closed on the way out within CLOSE_TIMEOUT_S; a worker process still alive then is killed. By then
    every task's rows are on disk, so a worker that will not stop costs the run nothing but the wait, which is
    bounded: a close that hangs would keep the run from merging its shards."""
    import multiprocessing

    try:
        yield cluster
    finally:
        try:
            cluster.close(timeout=CLOSE_TIMEOUT_S)
        except TimeoutError:
            leftovers = multiprocessing.active_children()
            log(f"the cluster did not close within {CLOSE_TIMEOUT_S} s: killing its {len(leftovers)} remaining "
                f"worker process(es)")
            for child in leftovers:
                child.kill()
            for child in leftovers:
                child.join(5)


def serve(workers: int | None, address_file: Path | None, log: Callable[[str], None],
          gpus: list[str] | None = None) -> None:
    """`sssp-bench serve`: a cluster of `workers` processes (default: one per visible GPU, else one), pinned one per
    GPU as `run --workers` pins them, that stays up until SIGINT or SIGTERM, so that every
    `run --scheduler ADDRESS` on it finds its workers started, their CUDA contexts made and the graphs and prepared
    implementations of earlier runs resident (resident.py). The scheduler's address goes to the log and to
    `address_file` (written once the workers are up, removed when they stop)."""
    import signal
    import threading

    from ..jsonfile import write_text_atomic

    require_dask("serve")
    gpus = visible_gpus() if gpus is None else gpus
    count = workers or max(1, len(gpus))
    check_worker_count(count, gpus)
    stop = threading.Event()
    previous = {number: signal.signal(number, lambda *_: stop.set()) for number in (signal.SIGINT, signal.SIGTERM)}
    try:
        with _local_cluster(count, gpus, log) as cluster:
            address = cluster.scheduler_address
            if address_file is not None:
                write_text_atomic(address_file, address + "\n")
            log(f"serving {count} worker(s) at {address}: sssp-bench run CONFIG --scheduler {address} (Ctrl-C or "
                f"SIGTERM stops them)")
            try:
                while not stop.wait(0.5):  # a timed wait: the signal handler runs between two
                    pass
            finally:
                if address_file is not None:
                    Path(address_file).unlink(missing_ok=True)
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
    log("workers stopped")


def preflight(config: Config) -> None:
    """Generate the config's graphs once, here, and refuse a missing file, before any worker starts (otherwise
    every worker would generate the same graph at the same time, or fail one by one)."""
    from ..datasets.resolve import choose_graph, resolve_path

    for entry in config.graphs:
        chosen, _ = choose_graph(entry.graph, config.datasets, entry.stand_in, entry.beside is not None)
        resolve_path(chosen, config.datasets, entry.convert)  # a generator spec is generated, a graph file converted


def run_on_workers(config: Config, workers: int | None = None, scheduler: str | None = None,
                   shard_count: int | None = None, run_id: str | None = None, resume_dir: Path | None = None,
                   log: Callable[[str], None] | None = None, gpus: list[str] | None = None,
                   measured: shards.MeasuredCosts | None = None, pool: Pool | None = None) -> RunOutcome:
    """Run every task of `config` on workers and merge them into one run folder (returned in the outcome).

    `workers`: that many worker processes here (pool.py), pinned to `gpus` (default: `visible_gpus()`); `pool`: such
    workers already started (cli.py starts them before it reads the config), closed here; `scheduler`: a running
    Dask cluster instead. `shard_count`: the spread split into that many shards instead of the queue of tasks.
    `resume_dir`: an earlier run of this kind to finish (with the split it began with). `measured`: per-cell costs
    measured in an earlier run (`run --costs-from`)."""
    log = log or (lambda message: None)
    if scheduler is None and pool is None:
        run_dir = _run_dir(config, run_id, resume_dir)  # refused before any worker starts
        with Pool(workers or 1, visible_gpus() if gpus is None else gpus, log) as started:
            return run_on_workers(config, None, None, shard_count, run_dir.name, resume_dir, log,
                                  measured=measured, pool=started)
    if scheduler is not None:
        require_dask()
    began = pool.began if pool is not None else time.perf_counter()  # a pool started first: the command's clock
    config = copy.deepcopy(config)
    config.output, config.datasets = config.output.resolve(), config.datasets.resolve()  # workers may cd elsewhere
    run_dir = _run_dir(config, run_id, resume_dir)
    recorded = _recorded_split(config, run_dir, shard_count) if resume_dir is not None else None
    if pool is not None:
        pool.warm(bool(config.gpu_variants()))  # each worker's context made while the graphs are checked
    started = time.perf_counter()
    preflight(config)
    preflight_s = time.perf_counter() - started
    shards_dir = run_dir / "shards"
    results: list[dict[str, Any]] = []
    started = time.perf_counter()
    # This process has not imported the runner (outcome.py): the workers import it themselves, while their CUDA
    # contexts are made
    with (contextlib.nullcontext(pool) if pool is not None else _dask_tasks(scheduler, log)) as tasks:
        cluster_s = (pool.started_s if pool is not None else time.perf_counter() - started)
        split = recorded or (shards.spread_split(config, shard_count, measured) if shard_count
                             else shards.queue_split(config, tasks.available, measured))
        split_s = time.perf_counter() - began
        count = split.count
        shards_dir.mkdir(parents=True, exist_ok=True)  # only now: a cluster that cannot be had leaves no folder
        if recorded is None:
            write_json_atomic(run_dir / shards.SPLIT_FILE, {"config_hash": config.hash, **split.to_json()})
        log(f"{run_dir}: {count} {'task' if split.method == 'queue' else 'shard'}(s) on {tasks.available} worker(s) "
            f"({split.method} split, {shards.estimate_text(split.estimate)})")
        calls = [(config, index, split, shards_dir, run_dir.name) for index in range(1, count + 1)]
        names = [f"{run_dir.name}-shard-{index}-of-{count}" for index in range(1, count + 1)]
        try:
            for _, result in tasks.run(run_shard, calls, names):
                results.append(result)
                log(f"shard {result['index']}/{count} done ({statuses_line(result['statuses'])}) by pid "
                    f"{result['pid']} on {result['host']}" + (f", GPU {result['gpu']}" if result["gpu"] else ""))
        except TaskKilledWorkers as failed:
            often = (f"{ALLOWED_FAILURES} times" if pool is not None
                     else "too often (Dask's distributed.scheduler.allowed-failures)")
            raise UserError(f"{failed.name}: the workers that ran it died {often} in a row; finish it with "
                            f"--resume {run_dir}") from None
        done = time.perf_counter()
        if pool is not None:
            pool.close()
    closed = time.perf_counter()

    def coordinator() -> dict[str, Any]:
        """The coordinator's clock: the whole command, the workers' start and the merge included (seconds since the
        workers started, or since run_on_workers began on Dask): the split made, the first task handed out (every
        task submitted, on Dask), the last result in, how long the workers took to stop."""
        return {"cluster_s": cluster_s, "preflight_s": preflight_s, "split_s": split_s,
                "submitted_s": (pool.first_task_s if pool is not None else tasks.submitted - began),
                "results_s": done - began, "close_s": closed - done, "merge_s": time.perf_counter() - closed,
                "elapsed_s": time.perf_counter() - began,
                **(pool.timing() if pool is not None else {"executor": "dask"})}

    shards.merge_shards([Path(result["run_dir"]) for result in results], run_dir, log=log, coordinator=coordinator)
    merged = read_json(run_dir / "manifest.json")
    outcome = RunOutcome(run_dir)
    outcome.statuses.update(merged["statuses"])
    outcome.not_loaded.update(merged.get("not_loaded") or {})  # any shard's graph that failed to load
    return outcome


class _DaskTasks:
    """The tasks on a running Dask cluster, pulled by its workers in the order given; `run` as the pool's (pool.py)."""

    def __init__(self, client: Any, scheduler: str) -> None:
        self.client = client
        self.available = len(client.scheduler_info().get("workers", {}))
        if not self.available:
            raise UserError(f"--scheduler {scheduler}: the cluster has no worker yet; start them first "
                            f"(dask-cuda-worker {scheduler}, or dask worker {scheduler})")
        self.submitted = time.perf_counter()

    def run(self, function: Callable[..., Any], calls: list[tuple], names: list[str]) -> Iterator[tuple[int, Any]]:
        from distributed import KilledWorker, as_completed

        count = len(calls)
        futures = {self.client.submit(function, *call, pure=False, priority=count - index, key=name): index
                   for index, (call, name) in enumerate(zip(calls, names))}
        self.submitted = time.perf_counter()
        for future in as_completed(list(futures)):
            index = futures.pop(future)
            try:
                result = future.result()
            except KilledWorker:
                raise TaskKilledWorkers(future.key) from None
            # Let go of the finished task: a result the client still holds lives on its worker, and a worker that
            # dies later would have every such task run again only to give its result back
            future.release()
            yield index, result


@contextlib.contextmanager
def _dask_tasks(scheduler: str, log: Callable[[str], None]) -> Iterator[_DaskTasks]:
    with connect(None, scheduler, [], log) as client:
        yield _DaskTasks(client, scheduler)


def _run_dir(config: Config, run_id: str | None, resume_dir: Path | None) -> Path:
    if resume_dir is not None:
        if not (resume_dir / "shards").is_dir():
            raise UserError(f"{resume_dir}: not a run made with --workers or --scheduler (no shards/ folder)")
        return resume_dir.resolve()
    run_dir = config.output / (run_id or new_run_id(config, config.output))
    if run_dir.exists() and any(run_dir.iterdir()):
        raise UserError(f"{run_dir}: already exists; pick another --run-id or finish it with --resume {run_dir}")
    return run_dir


def _recorded_split(config: Config, run_dir: Path, requested: int | None) -> shards.Split:
    """On resume, the split the run began with (RUN/split.json; a run begun before it was kept: the split its shard
    folders record, when every shard began): another count or estimate would be another split."""
    path = run_dir / shards.SPLIT_FILE
    if path.is_file():
        data = read_json(path)
        if data.get("config_hash") != config.hash:
            raise UserError(f"{run_dir}: was started from a different config (hash {data.get('config_hash')}, "
                            f"{config.path} has {config.hash}); resume it with the config it was started with")
        split = shards.Split.from_json(data)
    else:
        records = [read_json(folder / "manifest.json")["shard"] for folder in shards.shard_dirs_in(run_dir / "shards")]
        counts = {int(record["count"]) for record in records}
        if len(counts) > 1:
            raise UserError(f"{run_dir}/shards: holds shards of different splits ({sorted(counts)})")
        if not counts or len(records) < next(iter(counts)):
            raise UserError(f"{run_dir}: has no {shards.SPLIT_FILE} and not every shard began; it cannot be resumed "
                            f"with the same split (run it again)")
        split = shards.Split("recorded", tuple(tuple(shards.shard_pieces(record)) for record in
                                               sorted(records, key=lambda record: int(record["index"]))))
    if requested is not None and requested != split.count:
        raise UserError(f"--shards {requested}: {run_dir} was split into {split.count} shards; resume it with that")
    return split


def run_shard(config: Config, index: int, split: shards.Split, shards_dir: Path, run_name: str) -> dict[str, Any]:
    """One Dask task: shard `index` of `split` into `shards_dir`, started, or resumed where an earlier attempt
    (a worker that died) stopped. Returns where it ran and its statuses. The worker process keeps its graphs and
    prepared implementations resident for its next task (resident.py)."""
    from .resident import PROCESS_MEMO
    from .runner import Runner, resume_run

    count = split.count
    PROCESS_MEMO.keep_between_runs()
    config = copy.deepcopy(config)  # the split narrows it; the caller's copy stays whole
    shards.apply_shard(config, split, index)
    config.output = shards_dir
    run_id = f"{run_name}-shard-{index}-of-{count}"
    run_dir = shards_dir / run_id
    run_dir.mkdir(parents=True, exist_ok=True)
    gpu = os.environ.get("CUDA_VISIBLE_DEVICES", "")
    prefix = f"[shard {index}/{count}] "
    log = lambda message: print(prefix + message, file=sys.stderr, flush=True)  # noqa: E731  (the worker's stderr)
    with _exclusive(run_dir):
        attempt = {"pid": os.getpid(), "host": socket.gethostname(), "gpu": gpu, "worker": _worker_address(),
                   "started": datetime.now(timezone.utc).isoformat(timespec="seconds")}
        with open(run_dir / "attempts.jsonl", "a", encoding="utf-8") as attempts:
            attempts.write(json.dumps(attempt) + "\n")
        if (run_dir / "manifest.json").is_file():
            resume_run(config, run_dir, show_progress=False, log=log)
        else:
            for leftover in run_dir.glob(".manifest.json.*.tmp"):  # a worker killed while writing the manifest
                leftover.unlink()
            # not start_run, which wants an empty folder: this one already holds the lock and attempts.jsonl
            Runner(config, run_dir, show_progress=False, log=log).run()
    # every attempt's, not the last's
    statuses = shards.row_statuses(json.loads(line) for line in shards.complete_lines(run_dir / "rows.jsonl"))
    return {"index": index, "count": count, "run_dir": str(run_dir), "statuses": statuses,
            "pid": attempt["pid"], "host": attempt["host"], "gpu": gpu}


@contextlib.contextmanager
def _exclusive(run_dir: Path) -> Iterator[None]:
    """Hold the shard folder's lock: a second live process waits instead of appending to the same rows. The
    operating system drops the lock of a process that dies, so a killed worker never leaves it held."""
    with open(run_dir / ".lock", "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _worker_address() -> str | None:
    """This worker's name: a pool worker's (pool.py), else its Dask address; None elsewhere."""
    if local_pool.worker_name is not None:
        return local_pool.worker_name
    try:
        from distributed import get_worker

        return get_worker().address
    except (ImportError, ValueError):
        return None


def statuses_line(statuses: dict[str, int]) -> str:
    return ", ".join(f"{count} {status}" for status, count in sorted(statuses.items())) or "nothing run"
