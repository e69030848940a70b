"""Imported by every Dask worker as it starts (Dask's `preload`, workers.py): the runner's imports are paid while
the cluster starts, not by the worker's first task, and on a GPU worker the CUDA context is made in a thread
meanwhile (gpu/early_context.py), so the worker registers without waiting for it. For a long-lived cluster
(`sssp-bench serve`) that means never by a run. The worker's start-up is claimed here
(timing.py), so no task is charged the time the worker waited for it: a `--workers` run's coordinator counts the
cluster's start (`timing.coordinator.cluster_s`)."""

from __future__ import annotations

from typing import Any


def dask_setup(worker: Any) -> None:
    from ..gpu import early_context

    _default_signals()

    early_context.start()  # made while the worker imports and registers; the first task's first GPU call waits for it
    from . import provenance, runner  # noqa: F401  (the imports every task needs)
    from .timing import claim_startup

    claim_startup()
    provenance.fix_process_code()  # the code this worker imported, named by every run it serves


def dask_teardown(worker: Any) -> None:
    """As the worker closes: its objects frozen, so that the interpreter's last collection does not walk them (0.2
    to 0.4 s of a process's exit, cli.main), which the cluster's close would wait for."""
    import gc

    gc.freeze()


def _default_signals() -> None:
    """SIGINT and SIGTERM as in a new process: a worker forked from a `run --workers` coordinator inherits the
    coordinator's handlers (interrupts.py), which are not the worker's to keep."""
    import signal
    import threading

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
