"""`cpu-bfs-parallel`: direction-optimizing BFS on the CPU's cores (Beamer, Asanovic and Patterson, SC 2012, in the
GAP Benchmark Suite's form), numba threads: the parallel CPU BFS a reviewer would hold the GPU BFS variants to,
beside the sequential queue BFS (cpu-bfs) that BFS-4K's speedups were measured against.

It alternates top-down steps (the frontier's out-arcs, a compare-and-swap claims each new vertex) with bottom-up
steps (each unvisited vertex scans its in-arcs for a frontier vertex, the frontier a bitmap) by GAPBS's heuristic:
bottom-up once the frontier's out-arcs exceed the unexamined arcs / alpha, back to top-down once the frontier
shrinks below n / beta. kernels/bfs_parallel.py holds the kernel and says how the workers share the steps (one
persistent parallel region, one barrier a step). experiments/cpu-baselines/README.md says what was measured.

Bottom-up steps read in-arcs: prepare builds the transpose of a directed graph (prepare is timed apart from the
solves); an undirected graph's arcs serve both ways.

Parameters: `alpha` (15), `beta` (18), GAPBS's defaults; `threads` (0: numba's default, every core; more than one
needs numba's `omp` or `workqueue` threading layer, else prepare raises a ConfigError). Weights are ignored.

Result: int32 levels, -1 where unreached, as cpu-bfs. Counters (cheap, always on): `iterations` (levels, as
cpu-bfs), `visited`, `arcs_examined` (arcs actually looked at: the frontier's out-arcs in top-down steps, the in-arcs
scanned in bottom-up ones, which stop at the first frontier vertex, so fewer than cpu-bfs's on most graphs),
`frontier_sizes` (vertices per level), `top_down_steps`, `bottom_up_steps`, `threads`.
"""

from __future__ import annotations

import numba
import numpy as np

from ..errors import ConfigError
from ..graph.csr import CSRGraph
from ..kernels.arrays import check_source
from ..kernels.atomics import check_concurrent_layer, numba_threads
from ..kernels.bfs import BFS_UNREACHED
from ..kernels.bfs_parallel import (ALPHA, BETA, STAT_ARCS, STAT_BOTTOM_UP, STAT_TOP_DOWN, BfsWorkspace, run_bfs,
                                    transpose)
from .base import Implementation, Parameter, SolveResult


class CpuBfsParallel(Implementation):
    name = "cpu-bfs-parallel"
    kind = "bfs"
    device = "cpu"
    description = (
        "Parallel direction-optimizing BFS on the CPU (Beamer et al. SC 2012, GAPBS's form; numba threads, top-down "
        "and bottom-up steps, levels as hop counts, weights ignored): the honest parallel CPU peer of the GPU BFS "
        "variants, beside BFS-4K's sequential baseline cpu-bfs."
    )
    negative_weights = True  # weights are ignored, so their sign does not matter
    parameters = {
        "alpha": Parameter(int, ALPHA, "go bottom-up once the frontier's out-arcs exceed the unexamined arcs / alpha"),
        "beta": Parameter(int, BETA, "go back top-down once the frontier shrinks and holds at most n / beta vertices"),
        "threads": Parameter(int, 0, "numba threads; 0: numba's default (every core)"),
    }

    def __init__(self, **params) -> None:
        super().__init__(**params)
        for key in ("alpha", "beta"):
            if self.params[key] < 1:
                raise ConfigError(f"{self.name}: {key} must be a positive int, got {self.params[key]}")
        if self.params["threads"] < 0:
            raise ConfigError(f"{self.name}: threads must be 0 (numba's default) or positive, "
                              f"got {self.params['threads']}")

    def prepare(self, graph: CSRGraph) -> None:
        self.graph = graph
        out_offsets = np.ascontiguousarray(graph.row_offsets, dtype=np.int64)
        out_columns = np.ascontiguousarray(graph.column_ids, dtype=np.int32)
        if graph.directed:
            in_offsets, in_columns = transpose(out_offsets, out_columns)
        else:  # an undirected graph stores each edge both ways
            in_offsets, in_columns = out_offsets, out_columns
        self.threads = min(self.params["threads"] or numba.config.NUMBA_NUM_THREADS, numba.config.NUMBA_NUM_THREADS)
        check_concurrent_layer(self.name, self.threads)
        self.workspace = BfsWorkspace(out_offsets, out_columns, in_offsets, in_columns, self.threads)
        # compile (or load numba's cache for) the specialisation solve() uses (read-only-ness included) on 2 vertices
        tiny = [_tiny_like(array, values) for array, values in
                ((out_offsets, [0, 1, 1]), (out_columns, [1]), (in_offsets, [0, 0, 1]), (in_columns, [0]))]
        with numba_threads(self.threads):
            run_bfs(BfsWorkspace(*tiny, self.threads), 0, self.params["alpha"], self.params["beta"], self.name)

    def solve(self, source: int) -> SolveResult:
        source = check_source(self.graph, source)
        with numba_threads(self.threads):
            levels, totals, level_sizes = run_bfs(self.workspace, source, self.params["alpha"], self.params["beta"],
                                                  self.name)
        counters = {
            "iterations": len(level_sizes), "visited": int(level_sizes.sum()), "arcs_examined": int(totals[STAT_ARCS]),
            "frontier_sizes": level_sizes.tolist(), "top_down_steps": int(totals[STAT_TOP_DOWN]),
            "bottom_up_steps": int(totals[STAT_BOTTOM_UP]), "threads": self.threads,
        }
        return SolveResult(levels, BFS_UNREACHED, counters)

    def teardown(self) -> None:
        self.workspace = None
        self.graph = None


def _tiny_like(array: np.ndarray, values: list) -> np.ndarray:
    """A small array with `array`'s dtype and writeability (numba specialises on both)."""
    tiny = np.array(values, dtype=array.dtype)
    tiny.flags.writeable = array.flags.writeable
    return tiny
