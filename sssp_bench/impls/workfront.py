"""`workfront`: Davidson et al.'s Workfront Sweep, queue-based Bellman-Ford with a load-balanced advance.

hbf-bellman-ford-kepler, section 3 (related work) and Table 2 ("WorkFront Sweep / Near-Far Pile"): Davidson et
al.'s Workfront Sweep "implements a queue-based Bellman-Ford algorithm that reduces redundant work due to
duplicate vertices during the frontier propagation", relying on merge-path to give the frontier's out-arcs to
the threads in equal shares each iteration. Here (`workfront.cu`, `advance.cuh`):

- The queue holds each vertex at most once per round (a per-vertex round stamp claimed with atomicExch), and
  only vertices with out-arcs. Every entry carries the exclusive prefix sum of the queue's out-degrees, made
  without a scan: a block's pushes of a tile reserve their slots and their arc range with ONE atomicAdd on a
  packed (entries << shift | arcs) counter, so slot order and arc order agree. (One atomicAdd per warp, as
  first written, made millions of same-address atomics per solve on R-MAT: they cost more than the relaxing.)
- The advance gives each block tiles of 512 consecutive queue arcs (the owner of each tile's first arc is
  recorded by the push that covers it); the block loads the tile's entries (vertex, row offset, distance) into
  shared memory and each thread relaxes 2 arcs, coalesced, finding its entry by binary search in shared memory.
  Relaxations are atomicMin on int64 distances (`common.cuh`'s relax), in place.
- Rounds are driven from the device: each round's kernel reads its queue's size from the status words, so the
  host launches rounds in batches (1, 2, 4, ... up to 16) and reads the 256-byte status words back once per
  batch; rounds after the queue empties do nothing. A Python launch costs about 15 us (measured on an H200),
  more than a small round's kernel, so by default each batch is one replay of a CUDA graph captured in prepare
  (parameter `graphs`); the kernels read their round as a base word plus a fixed argument, and the graph ends
  by moving the base on. With count_relaxations, plain launches and one readback per round (for the per-round
  counts). All buffers are allocated once in prepare and reused across rounds and sources.

Negative weights are accepted. A negative cycle reachable from the source is reported as NegativeCycleError:
the queue is still non-empty after n non-empty rounds (no shortest path has n arcs), or a distance reached the
-2^62 floor. Distances int64 on the device, unreached = INT64_MAX; float32 weights are refused for now.
Counters: `iterations` (rounds with a non-empty queue); with count_relaxations, relax attempts (queue arcs) and
relaxations in total and per iteration, and `frontier_sizes` (queue entries per iteration).
"""

from __future__ import annotations

from typing import Any, Callable, ClassVar

import numpy as np

from ..errors import UnsupportedGraphError
from ..gpu import runtime
from .base import Parameter
from ..kernels.arrays import check_source
from .gpu_common import COUNT_RELAXATIONS, CumulativeCounts, GpuSsspBase

ADVANCE_BLOCK = 256
"""Threads per block of the advance and split kernels (WF_BLOCK in advance.cuh)."""
TILE = 512
"""Queue arcs per advance tile (WF_TILE in advance.cuh)."""
BATCH_SIZES = (1, 2, 4, 8, 16)
"""Rounds launched between two readbacks of the status words: doubling up to 16 (one when counting)."""
STATUS_WORDS = 32
"""The status words of these kernels: common.cuh's 8, then each module's control words."""


def packed_queue_shift(n: int, m: int) -> int | None:
    """The shift of advance.cuh's packed queue word (entries << shift | arcs): the bit length of m, since a queue
    holds each vertex at most once (at most m arcs); None when n entries do not fit above it in 64 bits."""
    shift = max(1, int(m).bit_length())
    return shift if int(n) < 2 ** (64 - shift) else None


def tiles_per_queue(m: int) -> int:
    """Tile-owner slots one queue needs: one per WF_TILE arcs of at most m, and the one past the last tile."""
    return int(m) // TILE + 2


GRAPHS = Parameter(
    bool, True,
    "replay each batch of rounds as a CUDA graph captured in prepare (a few us per round instead of a Python "
    "launch per kernel); plain launches when counting relaxations",
)


class QueueAdvanceBase(GpuSsspBase):
    """What Workfront Sweep and Near-Far Pile share: the queue arrays, the packed-counter shift, the wider status
    words, the batched round loop and its CUDA graphs. Not registered (it has no `name`).

    Subclasses give `round_kernels(round_offset, count)`, the kernels of one round, `base_word`, the status
    word their kernels add to the round argument, and `advance_kernel`, whose occupancy sizes the grid."""

    stamp_arrays: ClassVar[int] = 1  # per-vertex int32 stamp arrays (near-far: near and far)
    status_words = STATUS_WORDS
    base_word: ClassVar[int]
    advance_kernel: ClassVar[str]  # the kernel whose occupancy sizes the grid

    def prepare_device(self) -> None:
        cp, graph = self.cp, self.graph
        n, m = graph.n, graph.m
        self.shift = packed_queue_shift(n, m)
        if self.shift is None:
            raise UnsupportedGraphError(
                f"{self.name}: n={n} and m={m} do not fit the packed 64-bit queue counter "
                f"(n must be below 2^{64 - max(1, int(m).bit_length())})"
            )
        self.tiles_per_queue = tiles_per_queue(m)
        self.vertices = cp.empty(2 * n, dtype=np.int32)
        self.starts = cp.empty(2 * n, dtype=np.int64)
        self.tile_first = cp.empty(2 * self.tiles_per_queue, dtype=np.int32)
        self.stamps = cp.empty(self.stamp_arrays * n, dtype=np.int32)
        self.host_degrees = np.asarray(graph.out_degrees())
        # one wave of resident blocks: a grid larger than the device holds leaves a partial wave that starts its
        # share of the tiles late
        self.grid = runtime.resident_grid(self.module.function(self.advance_kernel), ADVANCE_BLOCK)
        self.init_grid = runtime.blocks_for(self.stamp_arrays * n, ADVANCE_BLOCK, cap=4096)
        self._bump = self.module.function("advance_bump_base")
        self.batch_graphs = runtime.BatchGraphs(self.name)

    def round_kernels(self, round_offset: np.int64, count: np.int32) -> list[tuple[Any, tuple]]:
        raise NotImplementedError

    def capture_graphs(self) -> None:
        """With `graphs` (and not counting): one CUDA graph per batch size, each `size` rounds (round arguments
        0 .. size - 1) and the bump of the base word by `size`. Called at the end of a subclass's prepare."""
        if not self.params["graphs"] or self.counting():
            return

        def record(size: int) -> None:
            for offset in range(size):
                for kernel, args in self.round_kernels(np.int64(offset), np.int32(0)):
                    runtime.captured_launch(kernel, self.grid, ADVANCE_BLOCK, args)
            runtime.captured_launch(self._bump, 1, 32, (self.words, np.int32(self.base_word), np.int64(size)))

        self.batch_graphs.capture(BATCH_SIZES, record)

    def launch_batch(self, first_round: int, size: int, count: np.int32) -> None:
        """Rounds first_round .. first_round + size - 1: a graph replay, or plain checked launches."""
        if self.batch_graphs:
            self.batch_graphs.replay(size)
            return
        for round_index in range(first_round, first_round + size):
            for kernel, args in self.round_kernels(np.int64(round_index), count):
                runtime.launch(kernel, self.grid, ADVANCE_BLOCK, args)

    def drive_rounds(self, source: int, finished: Callable[[np.ndarray, int], bool], rounds_word: int,
                     queue_word: Callable[[int], int], cap: int, at_cap: Callable[[int], None]):
        """Launch rounds 0, 1, ... in batches of 1, 2, 4, ... 16 until `finished(words, rounds launched)`.

        Returns (iterations = words[rounds_word], attempts, relaxations, frontier sizes). With counting, one
        round per batch; `queue_word(r)` is the index of round r's input queue counter. `at_cap(iterations)`
        is called (and must raise) when `cap` rounds with work did not finish.
        """
        counting = self.counting()
        count = np.int32(1 if counting else 0)
        counts = CumulativeCounts() if counting else None
        sizes: list[int] = []
        launched, batch = 0, 0
        while True:
            self.launch_batch(launched, BATCH_SIZES[batch], count)
            launched += BATCH_SIZES[batch]
            words = self.read_words(source)
            worked = int(words[rounds_word])
            if counts is not None:
                counts.add(words)
                sizes.append(int(words[queue_word(launched - 1)]) >> self.shift)
            if finished(words, launched):
                if counts is None:
                    return worked, [], [], []
                return worked, counts.attempts, counts.relaxations, sizes
            if worked >= cap:
                at_cap(worked)
            if not counting:
                batch = min(batch + 1, len(BATCH_SIZES) - 1)

    def teardown_device(self) -> None:
        self.vertices = self.starts = self.tile_first = self.stamps = None
        self.batch_graphs = None  # teardown may follow a prepare that failed before creating it


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
