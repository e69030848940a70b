"""Environment switches: one reading of "off" for every SSSP_BENCH_* variable that turns a feature off (the early
CUDA context, the device and per-graph caches)."""

from __future__ import annotations

import os

OFF = ("off", "0", "no", "false")


def switched_on(variable: str) -> bool:
    """Whether the environment variable `variable` leaves its feature on: it does unless it says off (off, 0, no,
    false; case and surrounding spaces do not count). Unset, empty or any other word keeps it on."""
    return os.environ.get(variable, "").strip().lower() not in OFF
