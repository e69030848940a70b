"""Stopping a run cleanly: Ctrl-C (SIGINT) and SIGTERM (what Slurm, CI runners and `kill` send to stop a job) stop a
run between two solves, never inside one.

Python raises KeyboardInterrupt wherever the program is when the signal comes; inside a numba or CUDA call that
turns into a SystemError ("returned a result with an exception set"), which the runner would record as a failed
solve, and SIGTERM by default ends the process at once, leaving the manifest saying "running". So while `run`
runs (`stop_between_solves`), the first SIGINT or SIGTERM only asks the run to stop: the runner calls
`raise_if_requested` before each solve, each variant and each graph, and there raises KeyboardInterrupt (SIGINT) or
Terminated (SIGTERM, a KeyboardInterrupt too). The solve in flight is finished, checked and recorded; the runner
marks the run "interrupted" and writes its manifest, and `--resume` continues it. A second signal stops the run at
once (a solve that never ends), as an unhandled Ctrl-C would.

`at_once=True` keeps Python's way for code with nothing to break (`run --workers` waiting on its shards): either
signal raises at once, SIGTERM as Terminated.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Iterator

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)

_requested: int | None = None  # the signal that asked the run to stop, until it stops


class Terminated(KeyboardInterrupt):
    """The run was stopped by SIGTERM (exit status 143, where Ctrl-C's is 130)."""


def interrupt_for(signal_number: int) -> KeyboardInterrupt:
    return Terminated() if signal_number == signal.SIGTERM else KeyboardInterrupt()


def raise_if_requested() -> None:
    """Stop here if a signal asked the run to stop (a no-op outside `stop_between_solves`)."""
    if _requested is not None:
        raise interrupt_for(_requested)


@contextlib.contextmanager
def stop_between_solves(at_once: bool = False) -> Iterator[None]:
    """SIGINT and SIGTERM stop the run at its next `raise_if_requested` (the module docstring), the second at once;
    on leaving, the handlers the process had come back."""
    global _requested
    if threading.current_thread() is not threading.main_thread():  # only the main thread may take signals
        yield
        return

    def request(signal_number, frame):
        global _requested
        if at_once or _requested is not None:
            raise interrupt_for(signal_number)
        _requested = signal_number
        name = signal.Signals(signal_number).name
        os.write(2, f"\n{name}: stopping after the solve in flight (again to stop at once)\n".encode())

    previous = {number: signal.signal(number, request) for number in STOP_SIGNALS}
    _requested = None
    try:
        yield
    finally:
        _requested = None
        for number, handler in previous.items():
            signal.signal(number, handler if handler is not None else signal.SIG_DFL)
