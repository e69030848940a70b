"""`delta-stepping-chain`: asynchronous delta-stepping whose lanes follow their own chains of improvements inside the
current bucket, written for road networks (issue 35).

Why another delta-stepping: on USA-road-d.NY the shortest-path tree is 854 to 1,199 arcs deep, and every design in
the harness pays a per-level cost along it: a launch (hbf, near-far, workfront), a grid barrier (delta-stepping), a
cluster barrier (delta-stepping-cluster, about 4 us a level) or, in delta-stepping-async, a trip through its ring
for every hop (about ten serialised atomics). Here a lane that lowers a vertex's distance to a value inside the
bucket it works on relaxes that vertex next itself: a hop costs the relaxation's own dependent loads and its
atomicMin. Only improvements that leave the bucket (or a lane's second one in the same step) go through the work
queue, a ring of bucket slots with one packed head/tail word each, taken 32 entries at a time by an idle warp.
Warps take entries only from the current bucket, which moves on when its slot is empty and nothing pushed into it
is still being relaxed (its pending count): the bucket order of delta-stepping without a barrier.

delta_stepping_chain.cu has the protocol: entries carry the low 32 bits of the distance they were pushed at, and a
relaxer drops an entry whose vertex was lowered again since (its new owner relaxes it), so a vertex is relaxed once
per improvement nobody overtook.

delta: the `delta` parameter, or with 0 four times the shared rule (C x average weight / average out-degree, C = 128
below average out-degree 5, else 4; 59,632 on NY), raised where needed so that max weight / delta + 3 buckets fit the
ring's SLOT_LIMIT slots. stripes: queues per bucket; a warp pushes into its own stripe and takes from it first.
chain: the most hops a lane relaxes after its entry (0: every improvement is pushed). blocks: the grid (0: one block
per SM); block: threads per block (at most 256: the kernel holds a vertex's arcs in registers).

Why stripes: with one queue per bucket, every push, take and poll of the whole GPU met on one word. A hop then cost
about 3.5 us of a lane's time, and only about 160 lanes were busy at once (experiments/roads/notes.md). On an H100
at delta 14,908, USA-road-d.NY took:
- 7.86 ms with one stripe;
- 6.09 ms with 4;
- 5.83 ms with 16.
With 16 stripes, wider buckets pay: 4.40 ms at delta 60,000. road-2M took 30.6 ms with one stripe and 11.1 with 16
at delta 30,000. The first record (experiments/roads/measured/2026-11-27-h100-issue35-roads, one queue per bucket)
has NY at 9.19 ms, NE at 32.0 and road-2M at 36.1; the record after stripes is beside it.

Made for high-diameter, low-degree graphs: a lane relaxes its vertex's arcs one after another, so a vertex of
thousands of arcs holds one lane for all of them (`recommended_for` says where the report may recommend it).

Memory: distances (8 bytes per vertex) and the ring: SLOT_LIMIT or fewer slots of `stripes` queues, each of
2 (n + m) / stripes cells (n + m with one stripe) plus one per thread of the grid, 8 bytes a cell: a vertex can be
pushed once per improvement, and an improvement is one of its in-arcs' relaxations. A push past a slot's room (not expected) fails the solve with a RuntimeError naming the reason, as does
a warp that waits for work longer than `timeout_s` (a bug guard).

Non-negative int32 or unit weights. Distances int64, unreached INT64_MAX.
Counters: `pops` (entries taken), `stale_pops` (entries dropped: their vertex was lowered again), `relaxed` (vertices
relaxed: entries not stale plus chained hops; per reached vertex, the work-efficiency figure), `chained`, `pushes`,
`buckets` (times the current bucket moved on), `idle_polls`, `delta`, `slots`, `stripes`, `blocks`, `block`, `chain`; with
count_relaxations, relax attempts and relaxations.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..errors import ConfigError
from ..gpu import runtime
from ..graph.csr import CSRGraph
from ..kernels.arrays import check_source
from ..kernels.delta_stepping import SPARSE_FACTOR as SHARED_SPARSE_FACTOR, check_delta, default_delta, max_weight
from .base import Parameter, SolveResult
from .gpu_common import COUNT_RELAXATIONS, W_ATTEMPTS, W_RELAXATIONS, GpuSsspBase

DC_CONTROL_WORDS = 64
DC_SLOT_LINE = 32
DC_POPS, DC_STALE, DC_RELAXED, DC_CHAINED, DC_PUSHES, DC_BUCKETS, DC_ABORTED, DC_IDLE_POLLS = range(8, 16)
DC_BUSY_CYCLES, DC_SPAN_CYCLES, DC_BATCHES = 16, 17, 18
DC_WORDS = 24
"""Sizes and status words of delta_stepping_chain.cu."""

SPARSE_FACTOR = 4 * SHARED_SPARSE_FACTOR
"""The default delta's factor below average out-degree 5: four times the shared rule's. With the work queue striped,
wider buckets pay (on an H100, USA-road-d.NY 5.83 ms at the shared rule's 14,908, 4.84 at 30,000, 4.40 at 60,000;
road-2M 13.2 at twice the shared rule, 11.1 at 30,000)."""
SLOT_LIMIT = 64
"""Most ring slots; delta is raised so that max weight / delta + 3 buckets fit."""
BLOCKS = (64, 128, 256)
TIMEOUT_S = 20.0
CHAIN_LIMIT = 2**30
ABORT_REASONS = {1: "a ring slot would have overflowed", 2: "a warp waited for work or an entry past the timeout"}


def ring_delta(graph: CSRGraph, requested: int) -> tuple[int, int]:
    """(delta, slots): the requested delta (0: the rule) raised so that one arc moves a distance by at most
    slots - 3 buckets, and the ring's slot count for it."""
    delta = int(requested or default_delta(graph, sparse_factor=SPARSE_FACTOR))
    heaviest = int(max_weight(graph))
    delta = max(delta, heaviest // (SLOT_LIMIT - 3) + 1)
    return delta, heaviest // delta + 3


class DeltaSteppingChain(GpuSsspBase):
    name = "delta-stepping-chain"
    description = (
        "Asynchronous delta-stepping for road networks (CuPy/CUDA): one persistent kernel, warps taking up to 32 "
        "entries of the current bucket from a ring of bucket slots; each lane relaxes its entry's vertex and then, "
        "instead of queueing it, the next vertex it lowered inside the bucket, so a chain of the shortest-path tree "
        "advances at the cost of its relaxations; the bucket moves on when its slot is empty and nothing pushed into "
        "it is still being relaxed. No barrier. One lane per vertex: meant for low-degree graphs. Non-negative "
        "weights."
    )
    negative_weights = False
    recommended_for = ("road", "mesh")
    parameters = {
        "count_relaxations": COUNT_RELAXATIONS,
        "delta": Parameter(int, 0, "bucket width; 0: C x average weight / average out-degree, C = 128 when the "
                           "average out-degree is below 5 (four times the shared rule's), else 4; raised so that the "
                           f"ring holds max weight / delta + 3 buckets in at most {SLOT_LIMIT} slots"),
        "chain": Parameter(int, CHAIN_LIMIT, "most vertices a lane relaxes after its entry, each one it lowered "
                           "inside the bucket (0: every improvement goes through the work queue)"),
        "stripes": Parameter(int, 16, "queues per bucket: a warp pushes into its own and takes from its own first, so "
                             "that pushes and takes spread over that many words (1 to 32)"),
        "blocks": Parameter(int, 0, "blocks of the persistent grid; 0: one per SM"),
        "block": Parameter(int, 128, "threads per block", BLOCKS),
        "timeout_s": Parameter(float, TIMEOUT_S, "a warp waiting longer than this for work or an entry fails the "
                               "solve (a bug guard)"),
    }
    cu_file = "delta_stepping_chain.cu"
    status_words = DC_WORDS

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        check_delta(self.name, self.params["delta"])
        if not 1 <= self.params["stripes"] <= 32:
            raise ConfigError(f"{self.name}: stripes must be 1 to 32, got {self.params['stripes']}")
        for key in ("chain", "blocks"):
            if self.params[key] < 0:
                raise ConfigError(f"{self.name}: {key} must be 0 or positive, got {self.params[key]}")
        if not self.params["timeout_s"] > 0:
            raise ConfigError(f"{self.name}: timeout_s must be positive, got {self.params['timeout_s']}")

    def prepare(self, graph: CSRGraph) -> None:
        self.refuse_negative_weights(graph)
        if graph.weights is None or graph.weights.dtype.kind != "f":
            self.delta, self.slot_count = ring_delta(graph, self.params["delta"])
            # the ring's cells, n + m + a thread's worth per slot: charged to the vertices and arcs for the
            # memory check (runtime.device_graph)
            self.per_vertex_bytes = 8 + 8 * self.slot_count * self._stripe_share()
            self.per_arc_bytes = 8 * self.slot_count * self._stripe_share()
        super().prepare(graph)

    def _stripe_share(self) -> float:
        """A stripe's cells as a share of n + m: all of it with one stripe, else twice its even share (pushers spread
        over the stripes by warp; a stripe past its room fails the solve, never silently)."""
        stripes = self.params["stripes"]
        return 1.0 if stripes == 1 else min(1.0, 2.0 / stripes)

    def prepare_device(self) -> None:
        cp, n, m = self.cp, self.graph.n, self.graph.m
        self._init = self.module.function("dc_init")
        self._solve = self.module.function("dc_solve")
        sms = int(runtime.device_attributes().get("MultiProcessorCount", 1))
        self.grid = min(self.params["blocks"] or sms, runtime.resident_grid(self._solve, self.params["block"]))
        self.guard = self.grid * self.params["block"]  # at most one taken, unread cell per thread
        self.queues = self.slot_count * self.params["stripes"]
        self.cap = math.ceil((n + m) * self._stripe_share()) + self.guard + 1024
        self.cells = cp.empty(self.queues * self.cap, dtype=np.uint64)
        self.control = cp.zeros(DC_CONTROL_WORDS, dtype=np.uint64)
        self.slots = cp.zeros(self.queues * DC_SLOT_LINE, dtype=np.uint64)
        self.init_grid = runtime.blocks_for(n, 256, cap=4096)
        self.refill = True  # the cells are EMPTY after the first init; again after an aborted solve
        clock_khz = int(runtime.device_attributes().get("ClockRate", 0)) or 2_000_000
        self.timeout_cycles = int(self.params["timeout_s"] * clock_khz * 1000)

    def solve(self, source: int) -> SolveResult:
        source = check_source(self.graph, source)
        cells_total = self.cells.size if self.refill else 0
        runtime.launch(self._init, self.init_grid, 256, (
            self.dist, self.cells, self.control, self.slots, self.words, np.int64(self.graph.n), np.int64(source),
            np.int32(self.queues), np.int64(cells_total)))
        self.refill = False
        runtime.launch(self._solve, self.grid, self.params["block"], (
            self.dgraph.row_offsets, self.dgraph.column_ids, self.dgraph.weights,
            np.int32(1 if self.dgraph.unit_weights else 0), self.dist, self.cells, self.control, self.slots,
            self.words, np.int64(self.cap), np.int64(self.guard), np.int32(self.slot_count),
            np.int32(self.params["stripes"]), np.int64(self.delta),
            np.int32(min(self.params["chain"], CHAIN_LIMIT)), np.int64(self.timeout_cycles),
            np.int32(1 if self.counting() else 0)))
        words = self.read_words(source)
        aborted = int(words[DC_ABORTED])
        if aborted:
            self.refill = True
            raise RuntimeError(f"{self.name}: the solve from {source} failed: "
                               f"{ABORT_REASONS.get(aborted, f'abort reason {aborted}')}")
        counters: dict[str, Any] = {
            "iterations": 1, "pops": int(words[DC_POPS]), "stale_pops": int(words[DC_STALE]),
            "relaxed": int(words[DC_RELAXED]), "chained": int(words[DC_CHAINED]), "pushes": int(words[DC_PUSHES]),
            "buckets": int(words[DC_BUCKETS]), "idle_polls": int(words[DC_IDLE_POLLS]), "delta": self.delta,
            "slots": self.slot_count, "stripes": self.params["stripes"], "blocks": self.grid, "block": self.params["block"],
            "chain": self.params["chain"],
        }
        if self.counting():
            attempts, improved = int(words[W_ATTEMPTS]), int(words[W_RELAXATIONS])
            counters.update(relax_attempts=attempts, relaxations=improved, relax_attempts_per_iteration=[attempts],
                            relaxations_per_iteration=[improved])
            # the profile: a hop's latency, how many lanes relaxed at once on average, entries per batch taken
            busy, span = int(words[DC_BUSY_CYCLES]), int(words[DC_SPAN_CYCLES])
            clock_khz = int(runtime.device_attributes().get("ClockRate", 0)) or 1
            counters.update(profile_hop_us=busy / max(counters["relaxed"], 1) / clock_khz * 1000,
                            profile_lanes_busy=busy / max(span, 1), profile_span_ms=span / clock_khz,
                            profile_batch_entries=counters["pops"] / max(int(words[DC_BATCHES]), 1))
        return SolveResult(self.dist, runtime.DIST_INF, counters)

    def teardown_device(self) -> None:
        self.cells = self.control = self.slots = None
