"""`bf-edge`: the course project's edge-parallel Bellman-Ford over an edge list.

course-bellman-ford-delta-stepping, section 3.2: the graph as an edge list on the device; each round, each
thread relaxes a contiguous chunk of arcs ("the number of edges per thread is dynamically tuned based on the
graph size") with atomicMin; a per-block shared flag, written to the global flag by one thread per block,
lets the host stop after the first round that changes nothing. Up to n rounds (the sequential version's n - 1
plus the check).

Here the edge list is the CSR's column ids and weights plus an arc-source array built on the device in
prepare (timed apart by the runner, 4 bytes per arc). Chunk size: `arcs_per_thread`, or by default the arcs
spread over one full wave of resident threads (multiprocessors x max threads per multiprocessor), at least 1.
Arcs out of unreached vertices are skipped. Distances int64, unreached = INT64_MAX; negative weights allowed;
a reachable negative cycle raises NegativeCycleError; float32 weights are refused for now.
Counters: `iterations` (rounds), `arcs_per_thread`; with count_relaxations, attempts and relaxations per round.
"""

from __future__ import annotations

import numpy as np

from ..gpu import runtime
from .base import Parameter
from .gpu_common import BLOCK, COUNT_RELAXATIONS, GpuSsspBase, run_changed_flag_rounds


class BellmanFordEdge(GpuSsspBase):
    name = "bf-edge"
    description = (
        "The course project's edge-parallel Bellman-Ford (CuPy/CUDA): an edge list, each thread a contiguous chunk "
        "of arcs sized from the graph, atomicMin, a per-block changed flag, early exit. Negative weights OK."
    )
    parameters = {
        "count_relaxations": COUNT_RELAXATIONS,
        "arcs_per_thread": Parameter(int, 0, "arcs each thread relaxes per round; 0: m / (resident threads), >= 1"),
    }
    cu_file = "bf_edge.cu"
    per_vertex_bytes = 8
    per_arc_bytes = 4  # the arc sources

    def prepare_device(self) -> None:
        self._round = self.module.function("bf_edge_round")
        graph, cp = self.graph, self.cp
        self.arc_sources = cp.empty(max(graph.m, 1), dtype=np.int32)
        if graph.m:
            runtime.launch(self.module.function("bf_edge_arc_sources"), runtime.blocks_for(graph.m, BLOCK, cap=65536),
                           BLOCK, (self.dgraph.row_offsets, np.int64(graph.n), np.int64(graph.m), self.arc_sources))
        requested = self.params["arcs_per_thread"]
        if requested < 0:
            from ..errors import ConfigError

            raise ConfigError(f"{self.name}: arcs_per_thread must be >= 0, got {requested}")
        self.chunk = requested or max(1, -(-graph.m // runtime.resident_threads()))
        self.threads = -(-graph.m // self.chunk)

    def run_rounds(self, source: int):
        dgraph = self.dgraph
        weights, unit = self.weight_args()
        grid = runtime.blocks_for(self.threads, BLOCK)
        count = np.int32(1 if self.counting() else 0)
        m, chunk = np.int64(self.graph.m), np.int64(self.chunk)

        def launch_round(parity: np.int32) -> None:
            runtime.launch(self._round, grid, BLOCK, (
                self.arc_sources, dgraph.column_ids, weights, unit, m, chunk, self.dist, self.words, parity, count,
            ))

        result = run_changed_flag_rounds(self, source, launch_round)
        result.counters["arcs_per_thread"] = int(self.chunk)
        return result

    def teardown_device(self) -> None:
        self.arc_sources = None
