"""`lonestar`: LoneStar-GPU-style topology-driven Bellman-Ford, the H-BF paper's "LoneStar" comparator.

hbf-bellman-ford-kepler compares H-BF with the SSSP of LoneStar-GPU (Burtscher, Nasre and Pingali) in its
Table 2 and Figure 8. This is its topology-driven form: every round launches one thread per vertex; a reached
vertex relaxes all its out-arcs with atomicMin on the distances; the host repeats rounds until a round changes
no distance (one 64-byte readback of the status words per round). No worklist: every round touches every
vertex, which is what makes it slow on high-diameter graphs (roads, grids) and fine on small-diameter ones.

Kernel: `lonestar.cu` (with `sssp_bench/gpu/common.cuh`). Distances int64, unreached = INT64_MAX; negative
weights allowed; a negative cycle reachable from the source is reported as NegativeCycleError (a change in
round n, or a distance at the -2^62 floor). float32 weights: refused for now (UnsupportedGraphError).
Counters: `iterations` (rounds, the final unchanged one included); with count_relaxations, relax attempts
(arcs out of reached vertices) and relaxations, in total and per round.
"""

from __future__ import annotations

import numpy as np

from ..gpu import runtime
from .gpu_common import BLOCK, GpuSsspBase, run_changed_flag_rounds


class LoneStar(GpuSsspBase):
    name = "lonestar"
    description = (
        "LoneStar-GPU-style topology-driven Bellman-Ford (CuPy/CUDA): one thread per vertex relaxes its out-arcs "
        "with atomicMin each round, until no distance changes; H-BF Table 2's 'LoneStar' column. Negative weights OK."
    )
    cu_file = "lonestar.cu"
    per_vertex_bytes = 8

    def prepare_device(self) -> None:
        self._round = self.module.function("lonestar_round")

    def run_rounds(self, source: int):
        graph, dgraph = self.graph, self.dgraph
        weights, unit = self.weight_args()
        grid = runtime.blocks_for(graph.n, BLOCK)
        count = np.int32(1 if self.counting() else 0)
        n = np.int32(graph.n)

        def launch_round(parity: np.int32) -> None:
            runtime.launch(self._round, grid, BLOCK, (
                dgraph.row_offsets, dgraph.column_ids, weights, unit, n, self.dist, self.words, parity, count,
            ))

        return run_changed_flag_rounds(self, source, launch_round)
