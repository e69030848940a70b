"""`bfs-edge`: edge-parallel BFS, the "Edge Parall. [7]" column of BFS-4K's Table 2.

bfs4k-bfs-kepler, related work: "Instead of assigning one or more threads to a vertex, the thread computation
is distributed to edges", which limits divergence and balances the work on high-degree graphs, at the cost of
visiting every edge at every level (O(E D) for D levels).

Here: each level launches one thread per arc over an edge list, the CSR's column ids plus an arc-tail array
built on the device in prepare (a binary search of the row offsets per arc, as bf-edge builds its arc
sources; 4 bytes per arc, counted in the memory check). An arc whose tail is at the current level and
whose head is unvisited gives the head the next level and raises the device "discovered" flag; as in
bfs-harish (bfs_harish.py), one status-word readback per level, stopping after the first level that adds
nothing. Weights are ignored. Counters as bfs-harish's; with count_frontiers a compare-and-swap on the head's
level counts each discovered vertex once.
"""

from __future__ import annotations

import numpy as np

from ..gpu import runtime
from .base import SolveResult
from .gpu_bfs_common import BLOCK, GpuBfsBase, run_level_sweeps


class EdgeParallelBfs(GpuBfsBase):
    name = "bfs-edge"
    description = (
        "Edge-parallel BFS (CuPy/CUDA): one thread per arc every level over an edge list (arc tails built in "
        "prepare), heads of arcs out of the current level get the next; BFS-4K Table 2's 'Edge Parall.' column."
    )
    cu_file = "bfs_edge.cu"
    per_arc_bytes = 4  # the arc tails

    def prepare_device(self) -> None:
        graph = self.graph
        self._level = self.module.function("bfs_edge_level")
        self.arc_tails = self.cp.empty(max(graph.m, 1), dtype=np.int32)
        if graph.m:
            runtime.launch(self.module.function("bfs_edge_arc_tails"), runtime.blocks_for(graph.m, BLOCK, cap=65536),
                           BLOCK, (self.dgraph.row_offsets, np.int64(graph.n), np.int64(graph.m), self.arc_tails))

    def run_levels(self, source: int) -> SolveResult:
        grid = runtime.blocks_for(self.graph.m, BLOCK)  # one thread per arc; no arcs: no launch, one empty level
        m, count = np.int64(self.graph.m), np.int32(1 if self.counting() else 0)

        def launch_level(level: np.int32) -> None:
            runtime.launch(self._level, grid, BLOCK,
                           (self.arc_tails, self.dgraph.column_ids, m, self.levels, level, self.words, count))

        return run_level_sweeps(self, launch_level, counts_discoveries=True)

    def teardown_device(self) -> None:
        self.arc_tails = None
