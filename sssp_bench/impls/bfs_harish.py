"""`bfs-harish`: Harish and Narayanan's GPU BFS (HiPC 2007), the "Harish [4]" column of BFS-4K's Table 2.

bfs4k-bfs-kepler, related work: "the first approach to accelerate BFS on GPUs ... explores all the graph
vertices at each iteration (i.e., at each visiting level) to see whether the vertex belongs to the current
frontier", saving the cost of frontier queues at O(V D + E) work for D levels, and suffering from workload
imbalance on skewed degrees (one thread walks all the arcs of a hub).

Here: one kernel launch per level with one thread per vertex (`bfs_harish.cu`). The int32 level array plays the
part of Harish's frontier, visited and cost arrays at once: a vertex is in the frontier of level L when its
level is L, and unvisited when it is LEVEL_INF. A frontier vertex gives each unvisited out-neighbour level
L + 1 (a plain store: all writers write the same value) and raises the device "discovered" flag; the host reads
the status words back once per level (HostReadback) and stops after the first level that adds nothing.
Weights are ignored. Counters: `iterations` (levels expanded, the last, empty-handed one included); with
count_frontiers, `frontier_sizes` (vertices per level, as cpu-bfs reports them), `visited` and
`arcs_examined` (arcs out of frontier vertices).

The level loop it shares with the other topology-driven comparators (bfs-vwarp, bfs-edge) is gpu_bfs_common's
`run_level_sweeps`.
"""

from __future__ import annotations

import numpy as np

from ..gpu import runtime
from .base import SolveResult
from .gpu_bfs_common import BLOCK, GpuBfsBase, run_level_sweeps

class HarishBfs(GpuBfsBase):
    name = "bfs-harish"
    description = (
        "Harish & Narayanan's GPU BFS (CuPy/CUDA): one thread per vertex scans every vertex each level, frontier "
        "vertices expand their out-arcs, a device done flag per level; BFS-4K Table 2's 'Harish' column."
    )
    cu_file = "bfs_harish.cu"

    def prepare_device(self) -> None:
        self._level = self.module.function("bfs_harish_level")

    def run_levels(self, source: int) -> SolveResult:
        dgraph = self.dgraph
        grid = runtime.blocks_for(self.graph.n, BLOCK)  # one thread per vertex, as in the paper
        n, count = np.int64(self.graph.n), np.int32(1 if self.counting() else 0)

        def launch_level(level: np.int32) -> None:
            runtime.launch(self._level, grid, BLOCK,
                           (dgraph.row_offsets, dgraph.column_ids, n, self.levels, level, self.words, count))

        return run_level_sweeps(self, launch_level)
