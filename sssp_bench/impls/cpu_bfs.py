"""Sequential queue BFS: the CPU baseline of the BFS paper.

The traditional algorithm of BFS-4K's section 2 (bfs4k-bfs-kepler, Figure 1 listing, after Cormen et al.): a FIFO
queue of discovered vertices; popping u visits its out-arcs and gives every undiscovered neighbour level(u) + 1.
O(n + m). It is the "sequential counterpart" BFS-4K's speedups (Table 2, Figure 15) are measured against. Weights
are ignored: levels are hop counts.

Result: int32 levels, -1 where unreached. Counters (all cheap, always on): `iterations` (number of levels, i.e.
the depth of the BFS tree + 1), `visited`, `arcs_examined` (out-arcs of visited vertices, the "traversed edges"
of TEPS), and `frontier_sizes` (vertices per level).
"""

from __future__ import annotations

import numpy as np

from ..graph.csr import CSRGraph
from ..kernels.arrays import check_source
from ..kernels.bfs import BFS_UNREACHED, bfs_kernel
from .base import Implementation, SolveResult


class CpuBfs(Implementation):
    name = "cpu-bfs"
    kind = "bfs"
    device = "cpu"
    description = (
        "Sequential queue BFS (numba), levels as hop counts, weights ignored: BFS-4K's sequential CPU baseline "
        "(its Table 2 / Figure 15 speedups)."
    )
    negative_weights = True  # weights are ignored, so their sign does not matter
    parameters = {}

    def prepare(self, graph: CSRGraph) -> None:
        self.graph = graph
        self.row_offsets = np.ascontiguousarray(graph.row_offsets, dtype=np.int64)
        self.column_ids = np.ascontiguousarray(graph.column_ids, dtype=np.int32)
        # Compile the specialisation solve() will use (numba types include read-only-ness) on a 2-vertex graph.
        tiny_offsets = np.array([0, 1, 1], dtype=np.int64)
        tiny_columns = np.array([1], dtype=np.int32)
        tiny_offsets.flags.writeable = self.row_offsets.flags.writeable
        tiny_columns.flags.writeable = self.column_ids.flags.writeable
        bfs_kernel(tiny_offsets, tiny_columns, np.int64(0), np.full(2, BFS_UNREACHED, dtype=np.int32))

    def solve(self, source: int) -> SolveResult:
        source = check_source(self.graph, source)
        levels = np.full(self.graph.n, BFS_UNREACHED, dtype=np.int32)
        visited, arcs_examined, frontier_sizes = bfs_kernel(self.row_offsets, self.column_ids, np.int64(source), levels)
        counters = {
            "iterations": len(frontier_sizes),
            "visited": int(visited),
            "arcs_examined": int(arcs_examined),
            "frontier_sizes": frontier_sizes.tolist(),
        }
        return SolveResult(levels, BFS_UNREACHED, counters)

    def teardown(self) -> None:
        self.row_offsets = None
        self.column_ids = None
        self.graph = None
