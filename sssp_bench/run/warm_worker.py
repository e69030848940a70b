"""Imported by every Dask worker as it starts (Dask's `preload`, workers.py): the runner's imports and, on a GPU
worker, CuPy and the CUDA context are paid while the cluster starts, not by the worker's first task. For a
long-lived cluster (`sssp-bench serve`) that means never by a run. The worker's start-up is claimed here
(timing.py), so no task is charged the time the worker waited for it: a `--workers` run's coordinator counts the
cluster's start (`timing.coordinator.cluster_s`)."""

from __future__ import annotations

from typing import Any


def dask_setup(worker: Any) -> None:
    from ..gpu import runtime
    from . import provenance, runner  # noqa: F401  (the imports every task needs)
    from .timing import claim_startup

    claim_startup()
    provenance.collect()  # the code this worker imported, named by every run it serves (provenance._once)

    ok, _ = runtime.gpu_status()
    if ok:
        runtime.cupy_module().zeros(1)  # the first allocation creates the CUDA context
