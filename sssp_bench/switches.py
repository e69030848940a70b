"""Environment switches: one reading of "on" and "off" for every SSSP_BENCH_* variable that turns a feature on or off
(the early CUDA context, the device and per-graph caches, the `--workers` pool's turns and pinning)."""

from __future__ import annotations

import os

OFF = ("off", "0", "no", "false")
ON = ("on", "1", "yes", "true")


def switched_on(variable: str, default: bool) -> bool:
    """Whether the environment variable `variable` leaves its feature on. A feature on by default stays on unless the
    variable says off (off, 0, no, false); one off by default is on only where it says on (on, 1, yes, true). Case
    and surrounding spaces do not count."""
    value = os.environ.get(variable, "").strip().lower()
    return value not in OFF if default else value in ON
