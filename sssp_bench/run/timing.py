"""Where a run's wall time goes, kept in its manifest (`timing`) and shown in the report's Provenance.

A run's wall time (from its process's start to the run's end) is split into:

- startup_s: the process's start to the run's first step (interpreter, imports, the config); a later run in the same
  process (a Dask worker's next task) has none.
- device_s: once per run, at its first graph loaded: waiting for the CUDA context (gpu/early_context.py), the device
  constants of the roofline and opening NVML. `context` says when the process's driver and context were ready
  (seconds from its start) and how long the run waited for them: for a process's first run, where the context was
  made in a thread.
- graph_s: per-graph preparation: loading (with the weight rule), picking the sources, the roofline's relax pass and
  hop depths, the reference distances (computed or read from the per-graph cache, per_graph.py), the graph's
  release; `graph_parts` splits it into load_s, sources_s, roofline_s and references_s.
- setup_s: per-cell setup: each (graph, variant)'s prepare, warm-up and teardown.
- solve_loop_s: the solve loops, the verification and row writing included, the reference distances not; within
  it solve_s (the timed solves, the rows' time_s), end_to_end_s (the rows' host-clock end_to_end_s: the solve,
  its synchronisation and the distance copy-back) and verify_s (the certificate and the reference compare).
- energy_s: the energy phases (config `energy`).
- other_s: what is left (manifest writes, bookkeeping).

`cells` keeps one record per (graph, variant) piece a session ran: its source range, solves, setup, solve and
verification seconds and its wall time; `run --costs-from` reads them as measured costs (shards.py). A resumed run
adds each session's seconds to the earlier ones (`sessions` counts them). A merge of shards (shards.py) keeps each
shard's totals (`shards`), their sums, and `elapsed_s`, the parallel run's wall time: the earliest shard's start
(`started_unix`: its process's start, for a process's first run) to the latest finish (`finished_unix`; a resumed
run's first session's start to its last finish); a `--workers` run replaces it by the coordinator's own clock, Dask's
start and the merge included.
"""

from __future__ import annotations

import contextlib
import os
import time
from typing import Any, Iterator

TOTALS = ("wall_s", "startup_s", "device_s", "graph_s", "setup_s", "solve_loop_s", "solve_s", "end_to_end_s",
          "verify_s", "energy_s", "other_s")
"""The manifest's timing totals, in this order."""
GRAPH_PARTS = ("load_s", "sources_s", "roofline_s", "references_s")
CELL_FIELDS = ("setup_s", "solve_s", "end_to_end_s", "verify_s", "wall_s")

_startup_claimed = False


def process_started_unix() -> float | None:
    """When this process started, in Unix seconds (Linux: /proc/self/stat's start time); None where unknown."""
    try:
        with open("/proc/self/stat", encoding="ascii") as handle:
            fields = handle.read().rsplit(")", 1)[1].split()
        with open("/proc/uptime", encoding="ascii") as handle:
            uptime = float(handle.read().split()[0])
        return time.time() - uptime + int(fields[19]) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def claim_startup() -> tuple[float, float]:
    """(when this run began, in Unix seconds, the start-up seconds it is charged): for the process's first run, its
    process's start and the time since; for every later one (a Dask worker's next task), now and 0."""
    global _startup_claimed
    started, now = process_started_unix(), time.time()
    if _startup_claimed or started is None:
        return now, 0.0
    _startup_claimed = True
    return started, max(0.0, now - started)


class RunTiming:
    """One session's clock: seconds added to named totals as the runner goes, and per-cell records."""

    def __init__(self) -> None:
        self.started_unix, startup = claim_startup()
        self.process_started_unix = self.started_unix if startup > 0 else None  # this process's first run only
        self.context: dict[str, Any] | None = None  # early_context.record(), set by the runner
        self.began = time.perf_counter()
        self.totals: dict[str, float] = dict.fromkeys(TOTALS, 0.0)
        self.totals["startup_s"] = startup
        self.graph_parts: dict[str, float] = dict.fromkeys(GRAPH_PARTS, 0.0)
        self.cells: list[dict[str, Any]] = []

    def net_clock(self) -> float:
        """A clock that stands still while reference distances are computed (they count in graph_s): the
        difference of two readings is a region's seconds without the references it computed."""
        return time.perf_counter() - self.graph_parts["references_s"]

    def add(self, total: str, seconds: float) -> None:
        self.totals[total] += seconds

    def add_graph(self, part: str, seconds: float) -> None:
        """Per-graph preparation: counted in graph_s and in its part."""
        self.graph_parts[part] += seconds
        self.totals["graph_s"] += seconds

    @contextlib.contextmanager
    def measure(self, total: str) -> Iterator[None]:
        started = time.perf_counter()
        try:
            yield
        finally:
            self.add(total, time.perf_counter() - started)

    @contextlib.contextmanager
    def measure_graph(self, part: str) -> Iterator[None]:
        started = time.perf_counter()
        try:
            yield
        finally:
            self.add_graph(part, time.perf_counter() - started)

    def record(self, earlier: dict[str, Any] | None) -> dict[str, Any]:
        """The manifest's `timing`: this session's seconds (up to now) added to an earlier session's record."""
        session = dict(self.totals)
        session["wall_s"] = session["startup_s"] + (time.perf_counter() - self.began)
        accounted = ("startup_s", "device_s", "graph_s", "setup_s", "solve_loop_s", "energy_s")
        session["other_s"] = max(0.0, session["wall_s"] - sum(session[name] for name in accounted))
        earlier = earlier or {}
        record: dict[str, Any] = {"sessions": int(earlier.get("sessions", 0)) + 1}
        for name in TOTALS:
            record[name] = float(earlier.get(name) or 0.0) + session[name]
        earlier_parts = earlier.get("graph_parts") or {}
        record["graph_parts"] = {name: float(earlier_parts.get(name) or 0.0) + self.graph_parts[name]
                                 for name in GRAPH_PARTS}
        record["started_unix"] = earlier.get("started_unix") or self.started_unix
        record["finished_unix"] = time.time()
        record["cells"] = list(earlier.get("cells") or []) + self.cells
        context = self.context or earlier.get("context")
        if context:
            record["context"] = context
        return record


def merged_timing(shard_timings: list[tuple[str, dict[str, Any]]]) -> dict[str, Any] | None:
    """A merge's `timing` from its shards' (run id, timing) pairs: each shard's totals, their sums, the cells of
    every shard, and elapsed_s (earliest process start to latest finish); None when no shard recorded any."""
    recorded = [(run_id, timing) for run_id, timing in shard_timings if timing]
    if not recorded:
        return None
    merged: dict[str, Any] = {"shards": [], "sessions": 0}
    for name in TOTALS:
        merged[name] = 0.0
    merged["graph_parts"] = dict.fromkeys(GRAPH_PARTS, 0.0)
    cells: list[dict[str, Any]] = []
    for run_id, timing in recorded:
        merged["shards"].append({"run_id": run_id, **{name: timing.get(name) for name in TOTALS},
                                 **({"context": timing["context"]} if timing.get("context") else {})})
        merged["sessions"] += int(timing.get("sessions") or 0)
        for name in TOTALS:
            merged[name] += float(timing.get(name) or 0.0)
        for name in GRAPH_PARTS:
            merged["graph_parts"][name] += float((timing.get("graph_parts") or {}).get(name) or 0.0)
        cells += timing.get("cells") or []
    starts = [timing.get("started_unix") for _, timing in recorded]
    ends = [timing.get("finished_unix") for _, timing in recorded]
    if all(value is not None for value in starts + ends):
        merged["elapsed_s"] = max(ends) - min(starts)
        merged["started_unix"], merged["finished_unix"] = min(starts), max(ends)
    merged["cells"] = cells
    return merged
