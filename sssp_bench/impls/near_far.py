"""`near-far`: Davidson et al.'s Near-Far Pile, a Delta-stepping-like refinement of the Workfront Sweep.

hbf-bellman-ford-kepler, section 3 (related work) and Table 2: "Near-Far Pile refines the Workfront Sweep strategy
by adopting two queues similarly to the Delta-Stepping algorithm". Here (`near_far.cu` and `near_far_pile.cuh`, on
the generic advance of `sssp_bench/gpu/advance.cuh` that `workfront` uses too):

- A threshold T (initially delta) splits the work: the near queue holds vertices whose distance is below T, the
  far pile the rest. Each round advances the near queue (load-balanced, atomicMin); an improved vertex goes to
  the next near queue when its new distance is below T, otherwise onto the far pile, each at most once (round
  stamps for the near queue, epoch stamps for the far pile).
- When the near queue comes out empty, T rises and the far pile is split: entries whose distance already fell
  below the old T are stale (they went through the near queue when they fell) and are dropped; those below
  the new T form the next near queue; the rest the next far pile. T rises by delta, or by the multiple of
  delta that reaches the bucket of the far pile's smallest pushed distance, so empty buckets cost no rounds.
- refill_arcs (default 4096, not in Davidson et al.): a round that leaves fewer arcs than this in the near queue
  splits the far pile then, not only when the near queue is empty; such a round costs its latency however little
  it holds (high-diameter graphs, roads and grids, gain most). 1 is Davidson et al.'s rule. The split needs no
  atomics: the pile holds each vertex once, and the advance queued near only vertices below the old T, which the
  split drops as stale.
- far_buckets (not Davidson et al.'s; default -1: 8 on graphs of average out-degree at least 5, else 0): the far
  side as B lists, one per distance bucket of width delta from T's bucket on (a ring of B), and an overflow pile
  beyond them. A split opens the lowest non-empty bucket (its list's entries whose distance is still in the bucket
  go near, the rest are stale) instead of rereading the whole pile; the overflow pile is split only when every list
  is empty, and restarts the ring at the new T. A far vertex is pushed when its improvement changes its bucket (or
  moves it out of the overflow pile), known from the value the atomicMin replaced: no far stamps, and nothing to
  restamp in a split. It pays on low-diameter graphs, where most vertices wait on the far pile and a whole-pile
  split rereads them; on sparse ones (roads, meshes) the far pile is a thin shell whose split costs little, and
  their thousands of small rounds would pay the lists' extra bookkeeping: hence 0 there.
- packed_dedup (default on; H-BF's 64-bit duplicate removal, not Davidson et al.'s): each distance word holds
  (distance << s) | stamp. An improvement writes its destination's stamp (the round's near queue, or the epoch's
  far pile) with the distance in one atomicMin, and the improvement that replaced another stamp pushes the
  vertex, so an improving arc costs no stamp read and no atomicExch. s is the room left beside the largest
  possible distance (gpu_common.packing_bounds, as hbf's dedup64 bounds it); when it cannot hold every stamp
  (huge weights on huge graphs) the solve keeps plain distances and says so in the counter `packed_dedup` (0).
  The words are unpacked into plain distances at the end of the solve (inside its time).
- The last block of each advance decides whether a split follows (it sees the final near-queue size), so the
  rounds run from the device and the host reads the status words back once per batch of up to 16 rounds (once
  per round with count_relaxations), each batch a CUDA graph replay as in `workfront` (parameter `graphs`;
  `gpu_queue_common`). Buffers are allocated once in prepare.

delta: the `delta` parameter, or with 0 (the default) delta = C x average arc weight / average out-degree,
rounded, at least 1 (unit weight for an unweighted graph), with C = 32 (the warp size) on sparse graphs
(average out-degree below 5: roads, meshes) and C = 4 on the others. C = 32 is the heuristic attributed to
Davidson et al. (IPDPS 2014) for their Near-Far Pile (the H-BF paper does not give their delta and the original
text is not among our sources, so it is taken as stated): a bucket should hold about a warp's worth of arcs per
near vertex. It is right for the high-diameter sparse graphs, where a round's width in distance is what gives
the GPU work, and redundant relaxations stay rare even with wide buckets. On low-diameter graphs wide buckets
let far vertices in early, and they are relaxed again and again (there C = 32 gave 3.9-4.3 relax attempts per
reached arc, C = 4 about 1.1-1.5).

Non-negative weights only: a graph with a negative weight is refused with UnsupportedGraphError (distances below
T are final only when no arc weighs less than zero); use `workfront` or `lonestar` for those.
Distances int64, unreached = INT64_MAX; float32 weights are refused for now.
Counters: `iterations` (rounds with work: a near queue to advance or a far pile to split), `delta`, `splits`
(bucket openings and pile splits), `packed_dedup` (1 when the distance words were packed), `far_buckets` (the lists
used);
with count_relaxations, relax attempts and relaxations in total and per iteration, and `frontier_sizes` (near
queue entries per iteration).
The measurements behind the defaults, and where a round's time goes: experiments/hbf/notes/near_far.md.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..graph.csr import CSRGraph
from ..errors import ConfigError
from ..gpu import runtime
from ..gpu.queues import ADVANCE_BLOCK
from .base import Parameter
from ..kernels.arrays import check_source
from .gpu_common import COUNT_RELAXATIONS, GRAPHS, packing_bounds
from .gpu_queue_common import BATCH_SIZES, QueueAdvanceBase

WARP_SIZE = 32
NF_SLOT0, NF_SLOT_WORDS, NF_NEAR, NF_FAR_COUNT, NF_PENDING = 8, 7, 0, 1, 6
NF_ROUNDS, NF_SPLITS, NF_BASE = 29, 30, 33
NF_RING_MAX, NF_WORDS = 16, 56
"""Status words of near_far.cu: three rotating control slots, the rounds with work, the splits, the round base;
the far buckets' list counters up to NF_WORDS."""
ADVANCE_KERNELS = {
    (False, False): "near_far_advance<false, false>",
    (True, False): "near_far_advance<true, false>",
    (False, True): "near_far_advance<false, true>",
    (True, True): "near_far_advance<true, true>",
}
"""The round kernel near_far_advance<kPacked, kRing> of near_far.cu by (packed distance words, far buckets)."""


SPARSE_DEGREE = 5.0
"""Average out-degree below which the automatic delta uses the warp-size factor (roads, meshes)."""


def auto_delta(graph: CSRGraph) -> int:
    """delta = C x average weight / average out-degree, C = 32 below SPARSE_DEGREE else 4; rounded, at least 1."""
    if graph.m == 0 or graph.n == 0:
        return 1
    average_weight = 1.0 if graph.weights is None else float(np.mean(graph.weights, dtype=np.float64))
    average_degree = graph.m / graph.n
    factor = WARP_SIZE if average_degree < SPARSE_DEGREE else 4
    return max(1, int(round(factor * average_weight / average_degree)))


RING_BUCKETS = 8
"""far_buckets' automatic value on graphs of average out-degree at least SPARSE_DEGREE (0 below)."""


def auto_far_buckets(graph: CSRGraph) -> int:
    """far_buckets -1: RING_BUCKETS lists on low-diameter graphs, where most vertices wait on the far pile and a
    split of the whole pile rereads them; 0 on sparse ones (roads, meshes), whose far pile is a thin shell."""
    return RING_BUCKETS if graph.n and graph.m / graph.n >= SPARSE_DEGREE else 0


def round_cap(n: int) -> int:
    """Rounds with work after which a solve is declared stuck (a bug: non-negative weights always converge)."""
    return 4 * n + 64


def packed_distance_shift(graph: CSRGraph) -> int:
    """Stamp bits of packed_dedup's distance words (distance << shift | stamp), 0 when they do not fit 63 bits.

    Every tentative distance is a simple path's length (the weights are non-negative), at most packing_bounds'
    high, and it must stay below the unreached word's distance (INT64_MAX >> shift); every stamp below 2^shift:
    2 x (round + 1) + 1 for a near queue, 2 x (epoch + 1) for a far pile (near_far_pile.cuh's packed_stamp), epochs at
    most rounds, rounds capped by round_cap plus one batch.
    """
    _, high = packing_bounds(graph)
    shift = 63 - (high + 1).bit_length()
    needed = (2 * (round_cap(graph.n) + 2 * max(BATCH_SIZES)) + 1).bit_length()
    return shift if shift >= needed else 0


class NearFarPile(QueueAdvanceBase):
    name = "near-far"
    description = (
        "Davidson et al.'s Near-Far Pile (CuPy/CUDA): the Workfront Sweep's load-balanced advance on a near queue "
        "(distance < threshold), a far pile for the rest, split when the near queue empties (or holds fewer than "
        "refill_arcs arcs) as the threshold rises by delta (default C x average weight / average degree, C = 32 on "
        "sparse graphs, 4 on others); H-BF Table 2's comparator. Non-negative weights. By default each distance "
        "is packed with its queue's stamp in one 64-bit word (packed_dedup, H-BF's duplicate removal), and on "
        "graphs of average degree 5 or more the far pile is kept in 8 distance buckets (far_buckets); "
        "packed_dedup: false with far_buckets: 0 is Davidson et al.'s design."
    )
    negative_weights = False
    parameters = {
        "count_relaxations": COUNT_RELAXATIONS,
        "delta": Parameter(int, 0, "bucket width: the threshold's step; 0: C x average weight / average out-degree, "
                           "C = 32 when the average out-degree is below 5, else 4"),
        "refill_arcs": Parameter(int, 4096, "a round that leaves fewer arcs than this in the near queue raises the "
                                 "threshold and refills the queue from the far pile; 1: only an empty near queue "
                                 "(Davidson et al.)"),
        "far_buckets": Parameter(int, -1, "far vertices in this many lists by distance bucket (delta wide) above "
                                 "the threshold, the rest on an overflow pile: a split reads one bucket's list, and "
                                 "the overflow pile only when every list is empty; 0: one far pile, split whole "
                                 f"(Davidson et al.); at most {NF_RING_MAX}; -1: {RING_BUCKETS} where the average "
                                 f"out-degree is at least {SPARSE_DEGREE:g}, else 0"),
        "packed_dedup": Parameter(bool, True, "pack each distance with the stamp of the near queue or far pile "
                                  "that holds it in one 64-bit word (H-BF's 64-bit duplicate removal): one atomicMin "
                                  "per improving arc both relaxes and deduplicates; plain int64 distances and stamp "
                                  "claims when off, or when the graph's distance bound and stamps do not fit 63 bits"),
        "graphs": GRAPHS,
    }
    cu_file = "near_far.cu"
    name_expressions = tuple(ADVANCE_KERNELS.values())
    status_words = NF_WORDS
    base_word = NF_BASE
    advance_kernel = ADVANCE_KERNELS[(False, False)]
    stamp_arrays = 2
    # distances 8, two near queues of (vertex 4 + start 8), near and far stamps 4 + 4, two far piles 4 + 4
    per_vertex_bytes = 48

    def __init__(self, **params) -> None:
        super().__init__(**params)
        delta = self.params["delta"]
        if not 0 <= delta < 2**63:
            raise ConfigError(f"{self.name}: delta must be 0 (automatic) or a positive int64, got {delta}")
        refill_arcs = self.params["refill_arcs"]
        if not 1 <= refill_arcs < 2**63:
            raise ConfigError(f"{self.name}: refill_arcs must be a positive int64, got {refill_arcs}")
        far_buckets = self.params["far_buckets"]
        if not -1 <= far_buckets <= NF_RING_MAX:
            raise ConfigError(f"{self.name}: far_buckets must be -1 (automatic) or 0 .. {NF_RING_MAX}, "
                              f"got {far_buckets}")

    def prepare(self, graph: CSRGraph) -> None:
        self.refuse_negative_weights(graph)
        far_buckets = self.params["far_buckets"]
        self.far_buckets = auto_far_buckets(graph) if far_buckets < 0 else far_buckets
        self.per_vertex_bytes = type(self).per_vertex_bytes + 4 * self.far_buckets  # an n-entry list per bucket
        super().prepare(graph)

    def prepare_device(self) -> None:
        self.dist_shift = packed_distance_shift(self.graph) if self.params["packed_dedup"] else 0
        self.advance_kernel = ADVANCE_KERNELS[(self.dist_shift > 0, self.far_buckets > 0)]
        super().prepare_device()
        self.delta = int(self.params["delta"] or auto_delta(self.graph))
        # far piles e % 2 = 0 and 1 (with buckets: the overflow piles), then one list per far bucket
        self.piles = self.cp.empty((2 + self.far_buckets) * self.graph.n, dtype=np.int32)
        self._init = self.module.function("near_far_init")
        self._advance = self.module.function(self.advance_kernel)
        self._unpack = self.module.function("near_far_unpack")
        self._split = self.module.function("near_far_split_ring" if self.far_buckets else "near_far_split")
        self.capture_graphs()

    def round_kernels(self, round_offset: np.int64, count: np.int32) -> list[tuple[Any, tuple]]:
        dgraph = self.dgraph
        weights, unit = self.weight_args()
        common = (self.vertices, self.starts, self.tile_first, self.stamps, self.piles, np.int64(self.graph.n),
                  np.int64(self.tiles_per_queue), self.words, np.int32(self.shift))
        dist_shift, delta, far_buckets = np.int32(self.dist_shift), np.int64(self.delta), np.int32(self.far_buckets)
        return [
            (self._advance, (dgraph.row_offsets, dgraph.column_ids, weights, unit, self.dist, *common, round_offset,
                             delta, np.int64(self.params["refill_arcs"]), count, dist_shift, far_buckets)),
            (self._split, (dgraph.row_offsets, self.dist, *common, round_offset, dist_shift, delta, far_buckets)),
        ]

    def solve(self, source: int):
        source = check_source(self.graph, source)
        degree = int(self.host_degrees[source])
        self._splits = 0
        runtime.launch(self._init, self.init_grid, ADVANCE_BLOCK, (
            self.dist, self.stamps, np.int64(self.graph.n), np.int64(source), np.int64(degree),
            self.vertices, self.starts, self.tile_first, self.words, np.int32(self.shift), np.int64(self.delta),
            np.int32(self.dist_shift), np.int32(self.far_buckets),
        ))
        if degree == 0:  # nothing to relax: dist is final
            result = self.result(0, [], [], frontier_sizes=[])
        else:
            result = self.run_rounds(source)
            if self.dist_shift:
                runtime.launch(self._unpack, self.init_grid, ADVANCE_BLOCK,
                               (self.dist, np.int64(self.graph.n), np.int32(self.dist_shift)))
        result.counters.update(delta=self.delta, splits=self._splits, packed_dedup=int(self.dist_shift > 0),
                               far_buckets=self.far_buckets)
        return result

    def run_rounds(self, source: int):
        n = self.graph.n

        def slot(round_index: int) -> int:
            return NF_SLOT0 + NF_SLOT_WORDS * (round_index % 3)

        def finished(words: np.ndarray, launched: int) -> bool:
            state = slot(launched)
            return not (words[state + NF_NEAR] or words[state + NF_FAR_COUNT] or words[state + NF_PENDING])

        def at_cap(worked: int) -> None:  # cannot happen with non-negative weights: a bug, not a graph property
            raise RuntimeError(f"{self.name}: no convergence after {worked} rounds from source {source} (n={n})")

        iterations, attempts, relaxations, sizes = self.drive_rounds(
            source, finished, NF_ROUNDS, lambda r: slot(r) + NF_NEAR, round_cap(n), at_cap)
        self._splits = int(self.readback.host[NF_SPLITS])
        return self.result(iterations, attempts, relaxations, frontier_sizes=sizes)

    def teardown_device(self) -> None:
        super().teardown_device()
        self.piles = None
