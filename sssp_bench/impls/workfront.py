"""`workfront`: Davidson et al.'s Workfront Sweep, queue-based Bellman-Ford with a load-balanced advance.

hbf-bellman-ford-kepler, section 3 (related work) and Table 2 ("WorkFront Sweep / Near-Far Pile"): Davidson et
al.'s Workfront Sweep "implements a queue-based Bellman-Ford algorithm that reduces redundant work due to
duplicate vertices during the frontier propagation", relying on merge-path to give the frontier's out-arcs to
the threads in equal shares each iteration. Here (`workfront.cu`, on the generic advance of
`sssp_bench/gpu/advance.cuh` and the queues of `queue.cuh` there):

- The queue holds each vertex at most once per round (a per-vertex round stamp claimed with atomicExch), and
  only vertices with out-arcs. Every entry carries the exclusive prefix sum of the queue's out-degrees, made
  without a scan: a block's pushes of a tile reserve their slots and their arc range with ONE atomicAdd on a
  packed (entries << shift | arcs) counter, so slot order and arc order agree (one atomicAdd per warp would make
  millions of same-address atomics per solve on R-MAT, serialised in L2).
- The advance gives each block tiles of 512 consecutive queue arcs (the owner of each tile's first arc is
  recorded by the push that covers it); the block loads the tile's entries (vertex, row offset, distance) into
  shared memory and each thread relaxes 2 arcs, coalesced, finding its entry by binary search in shared memory.
  Relaxations are atomicMin on int64 distances (`common.cuh`'s relax), in place.
- Rounds are driven from the device, in batches of 1, 2, 4, ... up to 16 between two readbacks of the status
  words, each batch by default one replay of a CUDA graph (parameter `graphs`; `gpu_queue_common`).

Negative weights are accepted. A negative cycle reachable from the source is reported as NegativeCycleError:
the queue is still non-empty after n non-empty rounds (no shortest path has n arcs), or a distance reached the
-2^62 floor. Distances int64 on the device, unreached = INT64_MAX; float32 weights are refused for now.
Counters: `iterations` (rounds with a non-empty queue); with count_relaxations, relax attempts (queue arcs) and
relaxations in total and per iteration, and `frontier_sizes` (queue entries per iteration).
Measurements behind these choices: experiments/hbf/notes/workfront.md.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..gpu import runtime
from ..gpu.queues import ADVANCE_BLOCK
from ..kernels.arrays import check_source
from .gpu_common import COUNT_RELAXATIONS, GRAPHS
from .gpu_queue_common import QueueAdvanceBase

WF_QUEUE0, WF_ROUNDS, WF_BASE = 8, 11, 12
"""Status words of workfront.cu: the three rotating queue counters, the non-empty round count, the round base."""


class WorkfrontSweep(QueueAdvanceBase):
    name = "workfront"
    description = (
        "Davidson et al.'s Workfront Sweep (CuPy/CUDA): queue-based Bellman-Ford, a load-balanced advance over the "
        "queue's arcs (degree prefix sums from packed warp pushes, tiles, binary search in shared memory), "
        "atomicMin, duplicate-free next queue (round stamps); H-BF Table 2's comparator. Negative weights OK."
    )
    parameters = {"count_relaxations": COUNT_RELAXATIONS, "graphs": GRAPHS}
    cu_file = "workfront.cu"
    base_word = WF_BASE
    advance_kernel = "workfront_round"
    # distances 8, two queues of (vertex 4 + start 8), stamps 4; tile owners add 8 bytes per 512 arcs
    per_vertex_bytes = 36

    def prepare_device(self) -> None:
        super().prepare_device()
        self._init = self.module.function("workfront_init")
        self._round = self.module.function("workfront_round")
        self.capture_graphs()

    def round_kernels(self, round_offset: np.int64, count: np.int32) -> list[tuple[Any, tuple]]:
        dgraph = self.dgraph
        weights, unit = self.weight_args()
        return [(self._round, (
            dgraph.row_offsets, dgraph.column_ids, weights, unit, self.dist, self.vertices, self.starts,
            self.tile_first, self.stamps, np.int64(self.graph.n), np.int64(self.tiles_per_queue), self.words,
            np.int32(self.shift), round_offset, count,
        ))]

    def solve(self, source: int):
        source = check_source(self.graph, source)
        degree = int(self.host_degrees[source])
        runtime.launch(self._init, self.init_grid, ADVANCE_BLOCK, (
            self.dist, self.stamps, np.int64(self.graph.n), np.int64(source), np.int64(degree),
            self.vertices, self.starts, self.tile_first, self.words, np.int32(self.shift),
        ))
        if degree == 0:  # nothing to relax: dist is final
            return self.result(0, [], [], frontier_sizes=[])
        return self.run_rounds(source)

    def run_rounds(self, source: int):
        n = self.graph.n

        def finished(words: np.ndarray, launched: int) -> bool:
            return int(words[WF_QUEUE0 + launched % 3]) == 0

        def at_cap(worked: int) -> None:
            self.negative_cycle(source, f"the queue was still non-empty after {worked} rounds (n={n})")

        iterations, attempts, relaxations, sizes = self.drive_rounds(
            source, finished, WF_ROUNDS, lambda r: WF_QUEUE0 + r % 3, n, at_cap)
        return self.result(iterations, attempts, relaxations, frontier_sizes=sizes)
