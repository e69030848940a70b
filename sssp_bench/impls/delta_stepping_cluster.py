"""`delta-stepping-cluster`: near-far delta-stepping in one thread-block cluster of a Hopper GPU, for the latency-bound
graphs (roads, meshes) where every other GPU variant pays a launch or a grid-wide barrier per level.

On USA-road-d.NY a near-far solve is 1,300 to 2,100 levels deep (from three sources, delta 15,000 to 60,000; a CPU
replay of the level structure, experiments/course/notes/delta_stepping.md) with a few hundred vertices per level, so
its time is levels x the latency of one level. A kernel launch per level (hbf, workfront, near-far) or a grid-wide
barrier (delta-stepping) costs several microseconds of that; delta-stepping-async avoids barriers but loses the
bucket order and relaxes vertices many times over. Here one cluster of `cluster_size` blocks (Hopper runs a
cluster's blocks at once, each on its own SM, with a hardware barrier among them and access to each other's shared
memory) runs the whole solve in one launch:

- the near queue of a level lives in the blocks' shared memory (two buffers each; what does not fit spills to
  global memory), read by the other blocks through distributed shared memory; an entry carries its vertex's row
  (first arc and degree, read by the pusher beside its atomicMin), so a relaxation starts with the arcs (on an H200
  that took NY from 5.64 to 5.48 ms: the level is not made of such reads; experiments/course/notes/delta_stepping.md
  has the level profile);
- one cluster barrier per level; when every block's queue fits one block, each block relaxes its own queue, else
  the cluster's threads share the concatenated queues out;
- an improvement below the threshold thr goes to the next near queue (at most once per vertex and level, by a level
  stamp read beside the distance's atomicMin), one at or above it onto the far pile (once, by a flag); a level with
  no near work splits the far pile (thr rises by delta, or to the bucket of the least far distance pushed; stale
  entries are dropped, the rest compacted), as Davidson et al.'s Near-Far Pile does.

delta_stepping_cluster.cu has the protocol and why every block makes the same decisions without a second barrier.
It is not asynchronous: the levels are the near-far rounds, only each one costs a cluster barrier instead of a
launch. It uses a handful of SMs, so graphs whose levels hold millions of arcs (R-MAT, the random graphs) are
better served by the variants that fill the GPU.

delta: the `delta` parameter, or with 0 the rule of the other delta-stepping implementations (C x average weight /
average out-degree) with C = 64 below average out-degree 5 (twice theirs: SPARSE_FACTOR says why), else 4; capped at
2^60 (wider buckets change nothing).
cluster_size (default 8, the largest portable size; 16 asks the driver for a non-portable cluster): blocks of
`block` threads in the cluster. Needs compute capability 9.0 (thread-block clusters).

Memory: distances, stamps and far flags per vertex (13 bytes), the spill's and the far pile's two buffers of n + m
entries each (4 bytes): a vertex is pushed near at most once per level and onto the far pile once, except when two
improvers race, and every such duplicate is one of the vertex's in-arcs. A reservation past the end (not expected)
fails the solve with a RuntimeError naming the reason, as does a solve of 2^32 - 1 levels (the stamps' range).

Non-negative weights only (UnsupportedGraphError otherwise); int32 or unit weights (float32 refused). Distances
int64, unreached INT64_MAX.
Counters: `iterations` (1: one launch), `levels` (splits included), `splits`, `pops` (near entries relaxed),
`near_pushes`, `far_pushes`, `spills` (near entries past a block's shared-memory queue), `chained` (vertices relaxed
as hops inside a level), `max_frontier`, `delta`, `cluster_size`, `queue_cap` (a block's shared-memory queue),
`lanes_per_vertex`; with count_relaxations, relax attempts and relaxations (one entry per solve) and block 0's level
profile at the SM clock (`profile_barrier_ms`: its threads' wait at the level barriers, which holds the wait for the
slowest warp of the cluster; `profile_counts_ms`: reading the queues' counts and deciding after it;
`profile_work_ms`: the longest of its warps' work per level, summed).

Measured on an H200 (experiments/course/measured/2026-11-26-h200-issue23-cluster, 100 sources): USA-road-d.NY
5.64 ms and road-2M 13.5 ms, the fastest GPU variant on both (hbf 6.66 and 15.9, delta-stepping-async 6.41 and
15.4); grid-2M 21.2 ms, where delta-stepping-async (18.6) is faster. A level costs about 4 us on NY (barrier 1,
count reads 0.6, one round of entries 2.5): the notes have the profile, and why hops (fewer, longer levels) and 16
blocks were slower.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import ConfigError
from ..gpu import runtime
from ..graph.csr import CSRGraph
from ..kernels.arrays import check_source
from ..kernels.delta_stepping import HEAVY_DEGREE, SPARSE_FACTOR as SHARED_SPARSE_FACTOR, check_delta, default_delta
from .base import Parameter, SolveResult
from .gpu_common import COUNT_RELAXATIONS, W_ATTEMPTS, W_RELAXATIONS, GpuSsspBase

DSC_CONTROL_WORDS = 96
DSC_LEVELS, DSC_SPLITS, DSC_POPS, DSC_NEAR_PUSHES = 8, 9, 10, 11
DSC_FAR_PUSHES, DSC_SPILLS, DSC_MAX_FRONTIER, DSC_ABORTED = 12, 13, 14, 15
DSC_CHAINED, DSC_PROFILE_BARRIER, DSC_PROFILE_COUNTS, DSC_PROFILE_WORK = 16, 17, 18, 19
DSC_WORDS = 24
"""Sizes and status words of delta_stepping_cluster.cu."""

CLUSTER_SIZES = (1, 2, 4, 8, 16)
PORTABLE_CLUSTER = 8
BLOCKS = (256, 512, 1024)
DELTA_CAP = 2**60
SPARSE_FACTOR = 2 * SHARED_SPARSE_FACTOR
"""The default delta's factor on sparse graphs: twice the shared rule's. Fewer, fuller levels pay here, where a level
costs its latency (on an H200: USA-road-d.NY 5.48 ms at the shared rule's 14,908, 4.90 at 30,000, 4.83 at 60,000;
a 512 x 512 grid 4.37 ms at 405, 4.44 at 810, 4.60 at 1,620)."""
ENTRY_BYTES = 16
"""A shared-memory queue entry: the vertex, its row's first arc (8 bytes) and its degree."""
STATIC_SHARED_BYTES = 1024
"""Kept free of the block's shared memory beside the two queue buffers (its counts; the runtime's own reserve)."""
FUNC_MAX_DYNAMIC_SHARED = 8        # CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
FUNC_NON_PORTABLE_CLUSTER = 14     # CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED
ABORT_REASONS = {1: "the near queue's spill would have overflowed", 2: "the far pile would have overflowed",
                 3: "the solve reached 2^32 - 1 levels, the range of the level stamps"}


def lanes_for(graph: CSRGraph) -> int:
    """The least power of two at or above the average out-degree, 1 to 32: a vertex's arcs in one pass of its lanes."""
    average = graph.m / graph.n if graph.n else 0.0
    lanes = 1
    while lanes < 32 and lanes < average:
        lanes *= 2
    return lanes


class DeltaSteppingCluster(GpuSsspBase):
    name = "delta-stepping-cluster"
    description = (
        "Near-far delta-stepping in one Hopper thread-block cluster (CuPy/CUDA, sm_90): the near queues in "
        "distributed shared memory, one hardware cluster barrier per level and one launch per solve, far pile split "
        "when the near queue runs dry; made for high-diameter graphs, whose levels are latency, not work (on an "
        "H200 the fastest GPU variant on USA-road-d.NY and road-2M, not on grid-2M). Non-negative weights."
    )
    negative_weights = False
    parameters = {
        "count_relaxations": COUNT_RELAXATIONS,
        "delta": Parameter(int, 0, "bucket width; 0: C x average weight / average out-degree, C = 64 (twice the "
                           "other delta-stepping variants') when the average out-degree is below 5, else 4"),
        "cluster_size": Parameter(int, PORTABLE_CLUSTER, "blocks in the cluster (each on its own SM); 16 is a "
                                  "non-portable size the driver may refuse", CLUSTER_SIZES),
        "block": Parameter(int, 512, "threads per block", BLOCKS),
        "heavy_degree": Parameter(int, HEAVY_DEGREE, "a vertex with more arcs than this is relaxed by a whole warp, "
                                  "the others by one lane each"),
        "lanes_per_vertex": Parameter(int, 0, "lanes that relax one vertex's arcs side by side (1, 2, 4, 8, 16 or "
                                      "32); 0: the least power of two at or above the average out-degree"),
        "hops": Parameter(int, 0, "vertices a group of lanes may relax inside a level, one after another, instead of "
                          "queueing them for the next (it goes on with one vertex it improved below the threshold)"),
        "queue_entries": Parameter(int, 0, "entries of a block's shared-memory near queue (each of two buffers); "
                                   "0: as many as the block's shared memory holds; the rest spills to global memory"),
    }
    cu_file = "delta_stepping_cluster.cu"
    status_words = DSC_WORDS
    per_vertex_bytes = 8 + 4 + 1 + 4 * 4  # distances, stamps, far flags; the spill's and the far pile's buffers
    per_arc_bytes = 4 * 4

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        check_delta(self.name, self.params["delta"])
        if self.params["queue_entries"] < 0:
            raise ConfigError(f"{self.name}: queue_entries must be 0 (as many as fit) or positive, got "
                              f"{self.params['queue_entries']}")
        if self.params["lanes_per_vertex"] not in (0, 1, 2, 4, 8, 16, 32):
            raise ConfigError(f"{self.name}: lanes_per_vertex must be 0 (automatic) or a power of two up to 32, got "
                              f"{self.params['lanes_per_vertex']}")
        if self.params["hops"] < 0:
            raise ConfigError(f"{self.name}: hops must be 0 or positive, got {self.params['hops']}")
        if self.params["heavy_degree"] < 0:
            raise ConfigError(f"{self.name}: heavy_degree must be 0 or positive, got {self.params['heavy_degree']}")

    @classmethod
    def available(cls) -> tuple[bool, str]:
        ok, why = runtime.gpu_status()
        if not ok:
            return ok, why
        capability = str(runtime.cupy_module().cuda.Device().compute_capability)  # e.g. "90"
        if int(capability) < 90:
            return False, (f"{cls.name} needs thread-block clusters (compute capability 9.0 or newer), not "
                           f"{capability[:-1]}.{capability[-1]}")
        return True, ""

    def module_options(self) -> tuple[str, ...]:
        return (f"-DDSC_CLUSTER={self.params['cluster_size']}", f"-DDSC_BLOCK={self.params['block']}")

    def prepare(self, graph: CSRGraph) -> None:
        self.refuse_negative_weights(graph)
        if graph.weights is None or graph.weights.dtype.kind != "f":
            self.delta = min(int(self.params["delta"] or default_delta(graph, sparse_factor=SPARSE_FACTOR)), DELTA_CAP)
        self.lanes = self.params["lanes_per_vertex"] or lanes_for(graph)
        super().prepare(graph)

    def prepare_device(self) -> None:
        cp, n, m = self.cp, self.graph.n, self.graph.m
        self._init = self.module.function("dsc_init")
        self._solve = self.module.function("dsc_solve")
        optin = int(runtime.device_attributes().get("MaxSharedMemoryPerBlockOptin", 48 * 1024))
        fits = (optin - STATIC_SHARED_BYTES) // (2 * ENTRY_BYTES)  # two buffers
        if self.params["queue_entries"] > fits:
            raise ConfigError(f"{self.name}: queue_entries {self.params['queue_entries']} does not fit a block's "
                              f"shared memory ({fits} at most here)")
        self.queue_cap = self.params["queue_entries"] or fits
        self.shared_bytes = 2 * ENTRY_BYTES * self.queue_cap
        driver = cp.cuda.driver
        pointer = self._solve.kernel.ptr
        driver.funcSetAttribute(pointer, FUNC_MAX_DYNAMIC_SHARED, self.shared_bytes)
        if self.params["cluster_size"] > PORTABLE_CLUSTER:
            driver.funcSetAttribute(pointer, FUNC_NON_PORTABLE_CLUSTER, 1)
        self.capacity = n + m + 1
        self.stamp = cp.empty(n, dtype=np.uint32)
        self.in_far = cp.empty(n, dtype=np.uint8)
        self.spill = cp.empty(2 * self.capacity, dtype=np.int32)
        self.far = cp.empty(2 * self.capacity, dtype=np.int32)
        self.control = cp.zeros(DSC_CONTROL_WORDS, dtype=np.uint64)
        self.init_grid = runtime.blocks_for(n, 256, cap=4096)

    def solve(self, source: int) -> SolveResult:
        source = check_source(self.graph, source)
        runtime.launch(self._init, self.init_grid, 256, (
            self.dist, self.stamp, self.in_far, self.control, self.words, np.int64(self.graph.n), np.int64(source)))
        runtime.launch(self._solve, self.params["cluster_size"], self.params["block"], (
            self.dgraph.row_offsets, self.dgraph.column_ids, self.dgraph.weights,
            np.int32(1 if self.dgraph.unit_weights else 0), self.dist, self.stamp, self.in_far, self.spill, self.far,
            self.control, self.words, np.int64(source), np.int64(self.delta), np.int64(self.capacity),
            np.int32(self.queue_cap), np.int64(self.params["heavy_degree"]),
            np.int32(self.lanes), np.int32(self.params["hops"]), np.int32(1 if self.counting() else 0)),
            shared_mem=self.shared_bytes)
        words = self.read_words(source)
        aborted = int(words[DSC_ABORTED])
        if aborted:
            raise RuntimeError(f"{self.name}: the solve from {source} failed: "
                               f"{ABORT_REASONS.get(aborted, f'abort reason {aborted}')}")
        counters: dict[str, Any] = {
            "iterations": 1, "levels": int(words[DSC_LEVELS]), "splits": int(words[DSC_SPLITS]),
            "pops": int(words[DSC_POPS]), "near_pushes": int(words[DSC_NEAR_PUSHES]),
            "far_pushes": int(words[DSC_FAR_PUSHES]), "spills": int(words[DSC_SPILLS]),
            "chained": int(words[DSC_CHAINED]), "max_frontier": int(words[DSC_MAX_FRONTIER]), "delta": self.delta,
            "cluster_size": self.params["cluster_size"], "queue_cap": self.queue_cap, "lanes_per_vertex": self.lanes,
        }
        if self.counting():
            attempts, improved = int(words[W_ATTEMPTS]), int(words[W_RELAXATIONS])
            counters.update(relax_attempts=attempts, relaxations=improved, relax_attempts_per_iteration=[attempts],
                            relaxations_per_iteration=[improved])
            clock_khz = int(runtime.device_attributes().get("ClockRate", 0)) or 1
            for name, word in (("barrier", DSC_PROFILE_BARRIER), ("counts", DSC_PROFILE_COUNTS),
                               ("work", DSC_PROFILE_WORK)):  # block 0's level profile, in ms
                counters[f"profile_{name}_ms"] = int(words[word]) / clock_khz
        return SolveResult(self.dist, runtime.DIST_INF, counters)

    def teardown_device(self) -> None:
        self.stamp = self.in_far = self.spill = self.far = self.control = None
