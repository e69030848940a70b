"""`cpu-delta-stepping`: Meyer and Sanders' delta-stepping on the CPU's cores (numba threads), the parallel CPU peer of
the GPU delta-stepping variants.

The course project (course-bellman-ford-delta-stepping, section 5) measures its GPU delta-stepping against a
sequential Dijkstra; a user with a multicore CPU would rather reach for a parallel delta-stepping, so this is the
CPU implementation those GPU variants should also beat. The algorithm and its parallel form (owner-computes
relaxation without atomics, light phases then one heavy step per bucket, small phases on one thread) are described
in `sssp_bench/kernels/delta_stepping.py`, which holds the kernel.

Parameters: `delta` (bucket width; 0: the default rule, C x average weight / average out-degree with C = 32 on
sparse graphs and 4 on the others, as near-far's), `threads` (0: numba's default, every core), `serial_arcs`
(phases over fewer arcs run on one thread).

Non-negative weights only (a graph with a negative weight is refused with UnsupportedGraphError); float weights are
solved in float64 with a float delta (the same rule, not rounded). Distances int64 (float64 for float weights),
unreached = INT64_MAX (inf).
Counters: `iterations` (light phases plus heavy steps), `light_phases`, `heavy_phases`, `buckets` (buckets opened),
`delta`, `threads`; with count_relaxations, relax attempts (arcs examined) and relaxations (improvements), in total
and per iteration.
"""

from __future__ import annotations

import numba
import numpy as np

from ..errors import ConfigError
from ..graph.csr import CSRGraph
from ..kernels.arrays import check_source, kernel_arrays, relax_counters
from ..kernels.delta_stepping import SERIAL_ARCS, default_delta, light_first, run_delta_stepping
from .base import Implementation, Parameter, SolveResult


def _tiny_like(array: np.ndarray, values: list) -> np.ndarray:
    """A small array with `array`'s dtype and writeability (numba specialises on both)."""
    tiny = np.array(values, dtype=array.dtype)
    tiny.flags.writeable = array.flags.writeable
    return tiny


class CpuDeltaStepping(Implementation):
    name = "cpu-delta-stepping"
    kind = "sssp"
    device = "cpu"
    description = (
        "Parallel delta-stepping on the CPU (Meyer & Sanders; numba threads, owner-computes relaxation without "
        "atomics, light phases then one heavy step per bucket): the CPU peer of the GPU delta-stepping variants. "
        "Non-negative weights only."
    )
    negative_weights = False
    parameters = {
        "count_relaxations": Parameter(
            bool, False,
            "count relax attempts (arcs examined) and relaxations (improvements), in total and per phase; off when "
            "timing"),
        "delta": Parameter(int, 0, "bucket width; 0: C x average weight / average out-degree, C = 32 when the "
                           "average out-degree is below 5, else 4 (float weights: the same, not rounded)"),
        "threads": Parameter(int, 0, "numba threads; 0: numba's default (every core)"),
        "serial_arcs": Parameter(int, SERIAL_ARCS, "a phase over fewer arcs than this runs on one thread, in place"),
    }

    def __init__(self, **params) -> None:
        super().__init__(**params)
        if not 0 <= self.params["delta"] < 2**62:
            raise ConfigError(f"{self.name}: delta must be 0 (automatic) or a positive int, got {self.params['delta']}")
        if self.params["threads"] < 0:
            raise ConfigError(f"{self.name}: threads must be 0 (numba's default) or positive, "
                              f"got {self.params['threads']}")
        if self.params["serial_arcs"] < 0:
            raise ConfigError(f"{self.name}: serial_arcs must be 0 or positive, got {self.params['serial_arcs']}")

    def prepare(self, graph: CSRGraph) -> None:
        self.refuse_negative_weights(graph)
        self.graph = graph
        self.arrays = kernel_arrays(graph)
        float_weights = self.arrays.float_weights
        self.delta = float(self.params["delta"]) if float_weights else self.params["delta"]
        if not self.delta:
            self.delta = default_delta(graph)
        self.threads = min(self.params["threads"] or numba.config.NUMBA_NUM_THREADS, numba.config.NUMBA_NUM_THREADS)
        self.reordered = light_first(self.arrays, self.delta)
        self._warm_up()

    def _warm_up(self) -> None:
        """Compile (or load numba's cache for) the kernel's specialisation for this graph's array types, serial and
        parallel paths both, on a 2-vertex graph: outside the timed solves."""
        light_end, columns, weights, heavy_arcs = self.reordered
        arrays = self.arrays
        tiny_weights = _tiny_like(weights, [] if arrays.unit_weights else [1, 1])
        tiny = (arrays._replace(row_offsets=_tiny_like(arrays.row_offsets, [0, 1, 2]),
                                column_ids=_tiny_like(arrays.column_ids, [1, 0]), weights=tiny_weights))
        reordered = (_tiny_like(light_end, [1, 2]), _tiny_like(columns, [1, 0]), tiny_weights, heavy_arcs)
        with _threads(self.threads):
            run_delta_stepping(tiny, reordered, 0, self.delta, self.params["count_relaxations"], serial_arcs=0)

    def solve(self, source: int) -> SolveResult:
        source = check_source(self.graph, source)
        with _threads(self.threads):
            distances, unreached, result = run_delta_stepping(
                self.arrays, self.reordered, source, self.delta, self.params["count_relaxations"],
                self.params["serial_arcs"])
        light_phases, heavy_phases, buckets, attempts, relaxations = result
        counters = {
            "iterations": int(light_phases + heavy_phases), "light_phases": int(light_phases),
            "heavy_phases": int(heavy_phases), "buckets": int(buckets), "delta": self.delta, "threads": self.threads,
        }
        if self.params["count_relaxations"]:
            counters.update(relax_counters(attempts, relaxations))
        return SolveResult(distances, unreached, counters)

    def teardown(self) -> None:
        self.arrays = self.reordered = None
        self.graph = None


class _threads:
    """numba's thread count set for a block (it is per calling thread), and put back after."""

    def __init__(self, count: int) -> None:
        self.count = count

    def __enter__(self) -> None:
        self.saved = numba.get_num_threads()
        numba.set_num_threads(self.count)

    def __exit__(self, *exc) -> None:
        numba.set_num_threads(self.saved)
