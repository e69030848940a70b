"""`cpu-delta-stepping`: Meyer and Sanders' delta-stepping on the CPU's cores (numba threads), the parallel CPU peer of
the GPU delta-stepping variants, built to stand beside the GAP Benchmark Suite's `sssp`.

The course project (course-bellman-ford-delta-stepping, section 5) measures its GPU delta-stepping against a
sequential Dijkstra; a user with a multicore CPU would rather reach for a parallel delta-stepping, so this is the
CPU implementation those GPU variants should also beat, and it has to be one a reviewer would call competitive.
The algorithm and its parallel form (GAPBS's: one persistent parallel region per solve, a shared frontier, per-worker
bucket lists, atomic-min relaxation, bucket fusion) are described in `sssp_bench/kernels/delta_stepping.py`, which
holds the kernel; experiments/cpu-baselines/README.md says what was measured.

Parameters:
- `delta`: bucket width; 0: the rule below.
- `threads`: numba threads; 0: numba's default (every core). More than one needs numba's `omp` or `workqueue`
  threading layer (the workers wait for each other at barriers; `tbb` may run them one after another), else
  prepare raises a ConfigError.
- `fuse_limit`: a worker relaxes its own share of the current bucket at once, without a barrier, while it holds fewer
  vertices than this (1000, GAPBS's threshold; 0 turns bucket fusion off).

The delta rule (delta 0): C x average arc weight / average out-degree, the shared rule's form (kernels/delta_stepping
.py's `default_delta`) with this implementation's own factors: CPU_SPARSE_FACTOR (32, the shared one) on sparse
graphs (average out-degree below 5) and CPU_DENSE_FACTOR (4/3, a third of the shared 4) on the others, measured on the
device host's 16 cores (the constants say what was measured). A CPU worker relaxes arcs in nanoseconds and meets the
others only at a step's end, so on a low-diameter graph a narrower bucket, which relaxes fewer vertices twice, pays
for its extra steps sooner than a GPU's does.

Non-negative weights only (a graph with a negative weight is refused with UnsupportedGraphError); float weights are
solved in float64 with a float delta (the same rule, not rounded). Distances int64 (float64 for float weights),
unreached = INT64_MAX (inf).
Counters (cheap, always on): `iterations` = `steps` (the workers' synchronised steps, each ending at two barriers),
`buckets` (buckets opened), `frontier_vertices` (vertices relaxed from the shared frontier), `fused_vertices`
(relaxed by bucket fusion), `stale_entries` (listed vertices skipped because they had moved to a lower bucket),
`far_pushes`, `delta`, `window`, `threads`, `reruns` (times the solve ran again because its bucket lists ran out of
room: the room then doubles for every later solve, so it is 0 but for the first solves of a graph, if any); with
count_relaxations, relax attempts (arcs examined) and relaxations
(improvements), in total and per step. Steps and counts depend on the workers' timing (the distances do not).
"""

from __future__ import annotations

import numba

from ..errors import ConfigError
from ..graph.csr import CSRGraph
from ..kernels.arrays import check_source, kernel_arrays, relax_counters, tiny_graph_like
from ..kernels.atomics import check_concurrent_layer, numba_threads
from ..kernels.delta_stepping import (FUSE_LIMIT, STAT_BUCKETS, STAT_FAR, STAT_FRONTIER, STAT_FUSED,
                                      STAT_STALE, STAT_STEPS, DeltaSteppingWorkspace, default_delta,
                                      run_delta_stepping)
from .base import Implementation, Parameter, SolveResult

CPU_SPARSE_FACTOR = 32
"""The delta rule's factor on sparse graphs (average out-degree below 5), the shared rule's: on USA-road-d.NY deltas
from 8,000 to 30,000 ran within 10% of each other (the rule gives 14,908)."""
CPU_DENSE_FACTOR = 4 / 3
"""The delta rule's factor on the other graphs: a third of the shared rule's 4. On soc-Epinions1 and rmat.3Mv.20Me
(average out-degree 6.7, weights uniform in [1, 100)) delta 10 was 15% to 20% faster on 16 threads than the shared
rule's 30, and faster than 5, 15, 20 and 45 (experiments/cpu-baselines/README.md)."""


def cpu_default_delta(graph: CSRGraph):
    """cpu-delta-stepping's delta for `delta: 0` (the module docstring says why its factors)."""
    return default_delta(graph, sparse_factor=CPU_SPARSE_FACTOR, dense_factor=CPU_DENSE_FACTOR)


class CpuDeltaStepping(Implementation):
    name = "cpu-delta-stepping"
    kind = "sssp"
    device = "cpu"
    description = (
        "Parallel delta-stepping on the CPU (Meyer & Sanders, in GAPBS's form: numba threads in one persistent "
        "region, a shared frontier, per-thread buckets, atomic-min relaxation, bucket fusion): the CPU peer of the "
        "GPU delta-stepping variants. Non-negative weights only."
    )
    negative_weights = False
    parameters = {
        "count_relaxations": Parameter(
            bool, False,
            "count relax attempts (arcs examined) and relaxations (improvements), in total and per step; off when "
            "timing"),
        "delta": Parameter(int, 0, "bucket width; 0: C x average weight / average out-degree, C = 32 when the "
                           "average out-degree is below 5, else 4/3 (float weights: the same, not rounded)"),
        "threads": Parameter(int, 0, "numba threads; 0: numba's default (every core)"),
        "fuse_limit": Parameter(int, FUSE_LIMIT, "a thread relaxes its own share of the current bucket at once, "
                                "without a barrier, while it holds fewer vertices than this; 0: no bucket fusion"),
    }

    def __init__(self, **params) -> None:
        super().__init__(**params)
        if not 0 <= self.params["delta"] < 2**62:
            raise ConfigError(f"{self.name}: delta must be 0 (automatic) or a positive int, got {self.params['delta']}")
        if self.params["threads"] < 0:
            raise ConfigError(f"{self.name}: threads must be 0 (numba's default) or positive, "
                              f"got {self.params['threads']}")
        if self.params["fuse_limit"] < 0:
            raise ConfigError(f"{self.name}: fuse_limit must be 0 or positive, got {self.params['fuse_limit']}")

    def prepare(self, graph: CSRGraph) -> None:
        self.refuse_negative_weights(graph)
        self.graph = graph
        self.arrays = kernel_arrays(graph)
        float_weights = self.arrays.float_weights
        self.delta = float(self.params["delta"]) if float_weights else self.params["delta"]
        if not self.delta:
            self.delta = cpu_default_delta(graph)
        self.threads = min(self.params["threads"] or numba.config.NUMBA_NUM_THREADS, numba.config.NUMBA_NUM_THREADS)
        check_concurrent_layer(self.name, self.threads)
        self.workspace = DeltaSteppingWorkspace(self.arrays, self.delta, self.threads)
        # compile (or load numba's cache for) this graph's array types outside the timed solves, on a 2-vertex graph
        with numba_threads(self.threads):
            run_delta_stepping(DeltaSteppingWorkspace(tiny_graph_like(self.arrays), self.delta, self.threads), 0,
                               self.params["fuse_limit"], self.params["count_relaxations"], self.name)

    def solve(self, source: int) -> SolveResult:
        source = check_source(self.graph, source)
        reruns = self.workspace.reruns
        with numba_threads(self.threads):
            distances, unreached, totals, attempts, improvements = run_delta_stepping(
                self.workspace, source, self.params["fuse_limit"], self.params["count_relaxations"], self.name)
        counters = {
            "iterations": int(totals[STAT_STEPS]), "steps": int(totals[STAT_STEPS]),
            "buckets": int(totals[STAT_BUCKETS]), "frontier_vertices": int(totals[STAT_FRONTIER]),
            "fused_vertices": int(totals[STAT_FUSED]), "stale_entries": int(totals[STAT_STALE]),
            "far_pushes": int(totals[STAT_FAR]), "delta": self.delta, "window": self.workspace.window,
            "threads": self.threads, "reruns": self.workspace.reruns - reruns,
        }
        if self.params["count_relaxations"]:
            counters.update(relax_counters(attempts, improvements))
        return SolveResult(distances, unreached, counters)

    def teardown(self) -> None:
        self.arrays = self.workspace = None
        self.graph = None

