"""`bf-frontier`: the course project's frontier Bellman-Ford on CSR.

course-bellman-ford-delta-stepping, section 3.3: two frontier arrays on the device; each iteration computes
a prefix sum over the frontier vertices' degrees, launches one thread per frontier arc, which finds its
frontier vertex by binary search in the sums and relaxes the arc with atomicMin; the vertices whose distance
fell make the next frontier. Here the next frontier is deduplicated with a flag array (atomicExch), the prefix
sum runs on the device (CuPy's scan; the course project summed on the CPU, one more host round trip), and the
relax kernel reads the arc count from the last sum, so the host synchronises once per iteration, to read the
next frontier's size. The relax grid is sized by frontier size x max out-degree, capped at one full wave
(grid-stride loop).

Iterations: each processes one frontier. Without a negative cycle the frontier is empty after at most n
iterations; a non-empty one after n, or a distance at the -2^62 floor, raises NegativeCycleError.
Distances int64, unreached = INT64_MAX; float32 weights are refused for now.
Counters: `iterations`; with count_relaxations, attempts (frontier arcs) and relaxations in total and per
iteration, and `frontier_sizes`.
"""

from __future__ import annotations

import numpy as np

from ..gpu import runtime
from ..kernels.arrays import check_source
from .gpu_common import BLOCK, W_QUEUE, CumulativeCounts, GpuSsspBase


class BellmanFordFrontier(GpuSsspBase):
    name = "bf-frontier"
    description = (
        "The course project's frontier Bellman-Ford on CSR (CuPy/CUDA): two frontiers, one thread per frontier arc "
        "found by a prefix sum of degrees and a binary search, next frontier = improved vertices (deduplicated). "
        "Negative weights OK."
    )
    cu_file = "bf_frontier.cu"
    # distances 8, two frontiers 4 + 4, in-next flags 4, degrees 8, scan 8
    per_vertex_bytes = 36

    def prepare_device(self) -> None:
        cp, n = self.cp, self.graph.n
        self._init = self.module.function("bf_frontier_init")
        self._degrees = self.module.function("bf_frontier_degrees")
        self._relax = self.module.function("bf_frontier_relax")
        self.frontiers = [cp.empty(n, dtype=np.int32), cp.empty(n, dtype=np.int32)]
        self.in_next = cp.empty(n, dtype=np.int32)
        self.degrees = cp.empty(n, dtype=np.int64)
        self.scan = cp.empty(n, dtype=np.int64)
        self.max_degree = int(self.graph.out_degrees().max()) if n else 0
        self.wave_blocks = max(1, runtime.resident_threads() // BLOCK)

    def solve(self, source: int):
        source = check_source(self.graph, source)
        self.init_distances(source)
        n = self.graph.n
        runtime.launch(self._init, runtime.blocks_for(n, BLOCK, cap=4096), BLOCK,
                       (self.in_next, np.int64(n), np.int64(source), self.frontiers[0]))
        return self.run_rounds(source)

    def run_rounds(self, source: int):
        cp, dgraph, n = self.cp, self.dgraph, self.graph.n
        weights, unit = self.weight_args()
        count = np.int32(1 if self.counting() else 0)
        counts = CumulativeCounts() if self.counting() else None
        sizes: list[int] = []
        size, current = 1, 0
        for iteration in range(n):
            frontier, next_frontier = self.frontiers[current], self.frontiers[1 - current]
            if counts is not None:
                sizes.append(size)
            runtime.launch(self._degrees, runtime.blocks_for(size, BLOCK, cap=4096), BLOCK,
                           (dgraph.row_offsets, frontier, np.int64(size), self.degrees, self.in_next, self.words))
            cp.cumsum(self.degrees[:size], out=self.scan[:size])
            grid = runtime.blocks_for(size * self.max_degree, BLOCK, cap=self.wave_blocks)
            runtime.launch(self._relax, grid, BLOCK, (
                dgraph.row_offsets, dgraph.column_ids, weights, unit, frontier, np.int64(size), self.scan,
                self.dist, self.in_next, next_frontier, self.words, count,
            ))
            words = self.read_words(source)
            if counts is not None:
                counts.add(words)
            size, current = int(words[W_QUEUE]), 1 - current
            if size == 0:
                return self.result(iteration + 1, *((counts.attempts, counts.relaxations) if counts else ([], [])),
                                   frontier_sizes=sizes)
        self.negative_cycle(source, f"the frontier was still non-empty ({size} vertices) after n={n} iterations")

    def teardown_device(self) -> None:
        self.frontiers = self.in_next = self.degrees = self.scan = None
