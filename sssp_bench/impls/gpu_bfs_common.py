"""What the CuPy BFS implementations share (kind "bfs": levels, weights ignored): the graph upload and memory
check in prepare, the int32 level array and the status words, level initialisation and the result.

BFS is the unweighted case of the harness. A solve returns levels (hops from the source) as an int32 CuPy array
with `LEVEL_INF` (INT32_MAX) where unreached; the runner verifies them the Graph500 way with the device
certificate (kind "bfs": level(source) = 0, no arc spans more than one level forward, every reached vertex but
the source has a parent one level up, unreached exactly where the level is infinite) and compares sampled
sources with the CPU reference. Every weighted graph is accepted: its weights are never read.

Each GPU BFS module holds one `GpuBfsBase` subclass with its `.cu` beside it; the kernels include
`sssp_bench/gpu/bfs_common.cuh` (the level type, LEVEL_INF and `bfs_init`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np

from ..graph.csr import CSRGraph
from ..errors import UnsupportedGraphError
from ..gpu import runtime
from .base import Parameter, SolveResult
from ..kernels.arrays import check_source
from .gpu_common import GpuImplementation

LEVEL_INF = int(np.iinfo(np.int32).max)
"""The unreached level (INT32_MAX), as LEVEL_INF in bfs_common.cuh."""
STATUS_WORDS = 32
"""uint64 status words per solve: frontier sizes, flags and counters, read back by the host (bfs_common.cuh)."""
BLOCK = 256

COUNT_FRONTIERS = Parameter(
    bool, False, "record the frontier size and the arcs examined per level (counters); off when timing",
)


class GpuBfsBase(GpuImplementation):
    """Base of the CuPy BFS family. Subclasses set `name`, `description`, `cu_file`, `parameters` and write
    `prepare_device` (kernels, working arrays) and `run_levels(source)` (after `init_levels`)."""

    kind = "bfs"
    negative_weights = True  # weights are ignored
    parameters: ClassVar[dict[str, Parameter]] = {"count_frontiers": COUNT_FRONTIERS}
    per_vertex_bytes: ClassVar[int] = 4  # device bytes per vertex beyond the CSR (the int32 levels)
    status_words = STATUS_WORDS
    result_name = "levels"

    def prepare(self, graph: CSRGraph) -> None:
        self.graph = graph
        if graph.n >= LEVEL_INF:
            raise UnsupportedGraphError(f"{self.name}: n={graph.n} does not fit int32 levels")
        self.upload(graph)
        self.levels = self.cp.empty(graph.n, dtype=np.int32)
        self._init_kernel = self.module.function("bfs_init")
        self.prepare_device()
        self.synchronize()

    def init_levels(self, source: int) -> None:
        """levels = LEVEL_INF, 0 at the source; every status word zeroed."""
        n = self.graph.n
        runtime.launch(self._init_kernel, runtime.blocks_for(n, BLOCK, cap=4096), BLOCK,
                       (self.levels, np.int64(n), np.int64(source), self.words, np.int32(STATUS_WORDS)))

    def counting(self) -> bool:
        return bool(self.params.get("count_frontiers", False))

    def result(self, depth: int, **counters: Any) -> SolveResult:
        """`depth`: the number of levels expanded (the eccentricity of the source + 1 when it has out-arcs)."""
        return SolveResult(self.levels, LEVEL_INF, {"iterations": int(depth), **counters})

    def solve(self, source: int) -> SolveResult:
        source = check_source(self.graph, source)
        self.init_levels(source)
        return self.run_levels(source)

    def run_levels(self, source: int) -> SolveResult:
        raise NotImplementedError


W_DISCOVERED0, W_DISCOVERED1, W_COUNTED, W_ARCS = range(4)
"""Status word indices, as BFS_DISCOVERED0 ... BFS_ARCS in bfs_sweep.cuh."""


def run_level_sweeps(implementation: GpuBfsBase, launch_level: Callable[[np.int32], None],
                     counts_discoveries: bool = False) -> SolveResult:
    """Levels 0, 1, ... until one discovers nothing: `launch_level(level)` launches the level's kernel(s),
    then one readback of the status words. `counts_discoveries`: the kernel counts the vertices it discovers
    (the next level's frontier) in W_COUNTED instead of the frontier vertices it expands."""
    counting = implementation.counting()
    frontier_sizes: list[int] = [1] if counts_discoveries else []
    seen = 0
    # Each level but the last discovers at least one new vertex, so there are at most n levels.
    for level in range(implementation.graph.n):
        launch_level(np.int32(level))
        words = implementation.readback.read()
        discovered = bool(words[W_DISCOVERED0 + (level & 1)])
        if counting:
            counted = int(words[W_COUNTED])
            if discovered or not counts_discoveries:
                frontier_sizes.append(counted - seen)
            seen = counted
        if not discovered:
            break
    depth = level + 1
    if not counting:
        return implementation.result(depth)
    return implementation.result(depth, frontier_sizes=frontier_sizes, visited=sum(frontier_sizes),
                                 arcs_examined=int(words[W_ARCS]))
