"""`delta-stepping-async`: asynchronous delta-stepping in the spirit of Wang, Fussell and Lin's ADDS ("A fast
work-efficient SSSP algorithm for GPUs", PPoPP'21, which the course project cites): no grid-wide barrier per bucket.
ADDS's work efficiency is not reached: at the defaults each reached vertex is popped 9.5 times on USA-road-d.NY and
27 times on a 512 x 512 grid (1.6 and 2.3 at lookahead 1, which is slower; H100,
experiments/course/notes/delta_stepping.md).

The synchronous `delta-stepping` pays a grid-wide barrier for every light phase, heavy step and split: on a road
graph, whose shortest-path trees are about a thousand arcs deep, that is one to three thousand barriers per solve
around little work each (USA-road-d.NY at the default delta: 1,600 to 2,000 light phases, 80 to 100 heavy steps
and as many splits, by the CPU model of the kernel; experiments/course/notes/delta_stepping.md).
Here one persistent kernel per solve (a cooperative launch, so every warp is resident) has its warps pull work
from a device work queue organised by bucket priority and push what they improve straight back into it:

- The queue is a window of 64 ring slots; a vertex improved to distance d is pushed to the slot of its bucket
  label d / delta, unless it already has an entry at that label or a lower one (qb[v], the label of its live
  entry: one atomicMin decides). A warp takes up to 32 entries (one per lane) from the lowest non-empty slot among
  the `lookahead` labels above base, the lowest label that may hold work; base moves on when its slot is empty
  and no warp is still relaxing entries taken from it or following a chain they started (the local queue below).
  So the lowest bucket goes first, and warps the lowest bucket cannot keep busy work ahead on the next ones instead
  of waiting at a barrier.
- An entry is claimed by a CAS of qb[v] from its label to NONE: an entry overtaken by a push to a lower label is
  stale and skipped, and a vertex is relaxed with its distance as read after the claim.
- A vertex of more than heavy_degree arcs is relaxed by the whole warp, the others one per lane; pushes are
  warp-aggregated per target slot (match_any, one atomicAdd on the slot's tail per group).
- local_queue (default on; not ADDS's): an improvement in the bucket the warp is working on (or below) is kept by
  the warp, up to 32, as its next batch, relaxed if the distance is still the one it was kept with. A road's chain
  of improvements inside a bucket then costs a few dependent memory accesses per hop instead of a push, a scan, a
  claim and a wait: on high-diameter graphs that latency per hop, not the arcs, is what the time is made of.
  The bucket stays busy until the warp's local queue is empty; released earlier, base ran ahead of the chains
  still lowering distances below it, and each vertex was relaxed 11 to 30 times on USA-road-d.NY and a grid
  (1.6 times now at lookahead 1, 9 at the default 8, which is still the faster: 6.4 ms against 16.5 on NY).
- Termination is detected on the device: a count of entries pushed and not yet processed (a warp adds its pushes
  before writing them and subtracts its batch after relaxing it) is zero exactly when every queue is empty and no
  warp holds work; every warp that then finds nothing exits.

delta_stepping_async.cu has the details and why nothing is lost. Unlike ADDS, delta does not change during a solve;
the lookahead window lets idle warps take the next buckets, which is what a wider delta would give ADDS when the
GPU is short of work.

delta: the `delta` parameter, or with 0 the rule of the other delta-stepping implementations (C x average weight /
average out-degree, C = 32 below average out-degree 5, else 4). It is raised where needed so that every pushed label
stays inside the ring window (floor(max weight / delta) <= 63 - lookahead) and below 2^31 (labels are stored in 31
bits); the counter `delta` gives the value used.
lookahead (default 8): labels above base a warp may take work from. blocks_per_sm (default 1; 0: as many as fit):
resident blocks of 256 threads per SM. Fewer warps polling the same ring heads and counters win: on an H100 one
block per SM was 1.8x (USA-road-d.NY) to 5x (R-MAT 3M) faster than the full wave on every graph of
experiments/course/issue23-targets.yaml.

Memory: 64 rings of n + (threads of the grid) + 1024 cells of 8 bytes, about 512 bytes per vertex. A reservation
that would overrun a ring (not expected: a ring holds at most about one entry per vertex) or a wait longer than
`timeout_s` fails the solve with a RuntimeError naming the reason; the rings are then reset for the next solve.

Non-negative weights only (UnsupportedGraphError otherwise); int32 or unit weights (float32 refused). Distances
int64, unreached INT64_MAX.
Counters: `iterations` (1: one asynchronous pass), `pops` (batches' entries, local ones too), `stale_pops` (skipped:
the vertex had moved on), `pushes` (through the work queue), `kept` (into a local queue), `buckets` (the highest
bucket label taken, plus one), `delta`, `lookahead`, `blocks` (the grid), `launch` (cooperative or plain); with
count_relaxations, relax attempts and relaxations (one entry per iteration).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import ConfigError
from ..gpu import runtime
from ..graph.csr import CSRGraph
from ..kernels.arrays import check_source
from ..kernels.delta_stepping import HEAVY_DEGREE, check_delta, default_delta, max_weight
from .base import Parameter, SolveResult
from .gpu_common import (COOPERATIVE_OR_PLAIN, COUNT_RELAXATIONS, W_ATTEMPTS, W_RELAXATIONS,
                         GpuSsspBase, check_blocks_per_sm, packing_bounds, persistent_grid)

AS_BLOCK = 256
AS_SLOTS = 64
AS_LINE = 16
AS_CONTROL_WORDS = 48
AS_SLOT_WORDS = AS_SLOTS * AS_LINE
AS_POPS, AS_STALE, AS_PUSHES, AS_LABELS, AS_ABORTED, AS_KEPT = 8, 9, 10, 11, 12, 13
AS_WORDS = 16
"""Sizes and status words of delta_stepping_async.cu."""

LOOKAHEAD = 8
LABEL_LIMIT = 2**31 - 1
"""Bucket labels are stored in 31 bits of a ring entry."""
CELL_MARGIN = 1024
TIMEOUT_S = 20.0
ABORT_REASONS = {1: "a ring slot would have overflowed", 2: "a warp waited for work or an entry past the timeout"}


def effective_delta(graph: CSRGraph, requested: int, lookahead: int) -> int:
    """The delta a solve uses: `requested` (or the default rule), raised so that one arc moves a label by at most
    63 - lookahead slots (floor(max weight / delta) <= AS_SLOTS - 1 - lookahead) and every label fits 31 bits."""
    delta = int(requested or default_delta(graph))
    span = AS_SLOTS - lookahead  # floor(max_weight / delta) must stay below this
    delta = max(delta, int(max_weight(graph)) // span + 1)
    _, high = packing_bounds(graph)  # no simple path is longer
    return max(delta, high // (LABEL_LIMIT - 1) + 1)


class DeltaSteppingAsync(GpuSsspBase):
    name = "delta-stepping-async"
    cooperative_modes = COOPERATIVE_OR_PLAIN  # a warp or block may wait on another's work
    description = (
        "Asynchronous delta-stepping in the spirit of Wang, Fussell & Lin's ADDS (CuPy/CUDA): one "
        "persistent cooperative kernel, warps pulling up to 32 vertices from the lowest non-empty bucket of a "
        "64-slot ring work queue (a lookahead window of buckets), improved vertices pushed to their bucket "
        "(warp-aggregated), stale entries skipped by a per-vertex bucket claim, termination detected on the device; "
        "no grid-wide barrier. Not work-efficient at its defaults: 9.5 pops per vertex on USA-road-d.NY, 27 on a "
        "512 x 512 grid (H100, experiments/course/notes/delta_stepping.md). Non-negative weights."
    )
    negative_weights = False
    parameters = {
        "count_relaxations": COUNT_RELAXATIONS,
        "delta": Parameter(int, 0, "bucket width; 0: C x average weight / average out-degree, C = 32 when the "
                           "average out-degree is below 5, else 4; raised to keep labels in the ring window"),
        "lookahead": Parameter(int, LOOKAHEAD, f"bucket labels above the lowest one a warp may take work from, "
                               f"1 .. {AS_SLOTS - 1}"),
        "heavy_degree": Parameter(int, HEAVY_DEGREE, "a vertex with more arcs than this is relaxed by a whole warp, "
                                  "the others by one lane each"),
        "local_queue": Parameter(bool, True, "a warp keeps the improvements in the bucket it is working on (up to 32) "
                                 "as its next batch instead of pushing them through the work queue"),
        "blocks_per_sm": Parameter(int, 1, "resident blocks of 256 threads per SM; 0: as many as fit"),
        "timeout_s": Parameter(float, TIMEOUT_S, "a warp waiting longer than this for work or an entry fails the "
                               "solve (a bug guard)"),
    }
    cu_file = "delta_stepping_async.cu"
    status_words = AS_WORDS
    per_vertex_bytes = 8 + 4 + AS_SLOTS * 8  # distances, qb, the rings' cells

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        check_delta(self.name, self.params["delta"])
        if not 1 <= self.params["lookahead"] <= AS_SLOTS - 1:
            raise ConfigError(f"{self.name}: lookahead must be 1 .. {AS_SLOTS - 1}, got {self.params['lookahead']}")
        if self.params["heavy_degree"] < 0:
            raise ConfigError(f"{self.name}: heavy_degree must be 0 or positive, got {self.params['heavy_degree']}")
        check_blocks_per_sm(self.name, self.params["blocks_per_sm"])
        if not self.params["timeout_s"] > 0:
            raise ConfigError(f"{self.name}: timeout_s must be positive, got {self.params['timeout_s']}")

    def prepare(self, graph: CSRGraph) -> None:
        self.refuse_negative_weights(graph)
        if graph.weights is None or graph.weights.dtype.kind != "f":
            self.delta = effective_delta(graph, self.params["delta"], self.params["lookahead"])
        if runtime.gpu_status()[0] and graph.n:  # the rings' cells beyond n per slot, spread over the vertices
            fixed = AS_SLOTS * 8 * (runtime.resident_threads() + CELL_MARGIN)
            self.per_vertex_bytes = type(self).per_vertex_bytes + -(-fixed // graph.n)
        super().prepare(graph)

    def prepare_device(self) -> None:
        cp, n = self.cp, self.graph.n
        self._init = self.module.function("delta_async_init")
        self._solve = self.module.function("delta_async_solve")
        self._reset = self.module.function("delta_async_reset")
        self.grid = persistent_grid(self._solve, AS_BLOCK, self.params["blocks_per_sm"])
        self.guard = self.grid * AS_BLOCK  # one claimed, unread cell per thread at most
        self.cap = n + self.guard + CELL_MARGIN
        self.qb = cp.empty(n, dtype=np.uint32)
        self.cells = cp.zeros(AS_SLOTS * self.cap, dtype=np.uint64)
        self.control = cp.zeros(AS_CONTROL_WORDS, dtype=np.uint64)
        self.slots = cp.zeros(AS_SLOT_WORDS, dtype=np.uint64)
        self.init_grid = runtime.stride_grid(self._init, n, AS_BLOCK)
        clock_khz = int(runtime.device_attributes().get("ClockRate", 0)) or 2_000_000
        self.timeout_cycles = int(self.params["timeout_s"] * clock_khz * 1000)

    def solve(self, source: int) -> SolveResult:
        source = check_source(self.graph, source)
        n = self.graph.n
        runtime.launch(self._init, self.init_grid, AS_BLOCK, (
            self.dist, self.qb, self.cells, self.control, self.slots, self.words, np.int64(n), np.int64(source),
            np.int64(self.cap)))
        runtime.launch(self._solve, self.grid, AS_BLOCK, (
            self.dgraph.row_offsets, self.dgraph.column_ids, self.dgraph.weights,
            np.int32(1 if self.dgraph.unit_weights else 0), self.dist, self.qb, self.cells, self.control,
            self.slots, self.words, np.int64(self.cap), np.int64(self.guard), np.int64(self.delta),
            np.int32(self.params["lookahead"]), np.int64(self.params["heavy_degree"]),
            np.int64(self.timeout_cycles), np.int32(1 if self.params["local_queue"] else 0),
            np.int32(1 if self.counting() else 0)))
        words = self.read_words(source)
        aborted = int(words[AS_ABORTED])
        if aborted:
            runtime.launch(self._reset, runtime.stride_grid(self._reset, self.cells.size, AS_BLOCK), AS_BLOCK,
                           (self.cells, self.slots, np.int64(self.cells.size)))
            self.synchronize()
            raise RuntimeError(f"{self.name}: the solve from {source} failed: "
                               f"{ABORT_REASONS.get(aborted, f'abort reason {aborted}')}")
        counters: dict[str, Any] = {
            "iterations": 1, "pops": int(words[AS_POPS]), "stale_pops": int(words[AS_STALE]),
            "pushes": int(words[AS_PUSHES]), "kept": int(words[AS_KEPT]), "buckets": int(words[AS_LABELS]),
            "delta": self.delta,
            "lookahead": self.params["lookahead"], "blocks": self.grid, "launch": self.launch_mode,
        }
        if self.counting():
            attempts, improved = int(words[W_ATTEMPTS]), int(words[W_RELAXATIONS])
            counters.update(relax_attempts=attempts, relaxations=improved, relax_attempts_per_iteration=[attempts],
                            relaxations_per_iteration=[improved])
        return SolveResult(self.dist, runtime.DIST_INF, counters)

    def teardown_device(self) -> None:
        self.qb = self.cells = self.control = self.slots = None
