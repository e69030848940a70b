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

delta: the `delta` parameter, or with 0 the shared rule (C x average weight / average out-degree, C = 32 below average
out-degree 5, else 4; 14,908 on NY), raised where needed so that max weight / delta + 3 buckets fit the ring's
SLOT_LIMIT slots. chain: the most hops a lane relaxes after its entry (0: every improvement is pushed). blocks: the
grid (0: one block per SM); block: threads per block (at most 256: the kernel holds a vertex's arcs in registers).

Measured on an H100 (experiments/roads/measured/2026-11-27-h100-issue35-roads, 100 sources, every solve verified):
USA-road-d.NY 9.19 ms at its defaults (8.45 at delta 10,000 in a probe), USA-road-pace.NE (uniform 1..1000) 32.0 ms,
road-2M 36.1 ms, against delta-stepping-cluster's 5.96, 13.9 and 14.2. It is work-efficient (1.35 to 1.49 vertices
relaxed per reached vertex), but a hop costs about 3.5 us of a lane's time and only 150 to 250 lanes are busy at once
on average: the bucket's frontier, not the GPU, bounds the parallelism, and each hop is three dependent rounds of
memory plus the warp's divergence. It does not meet issue 35's targets; experiments/roads/notes.md says what was
tried and what the profile points to.

Made for high-diameter, low-degree graphs: a lane relaxes its vertex's arcs one after another, so a vertex of
thousands of arcs holds one lane for all of them (`recommended_for` says where the report may recommend it).

Memory: distances (8 bytes per vertex) and the ring: SLOT_LIMIT or fewer slots of n + m + one cell per thread of the
grid each (8 bytes a cell): a vertex can be pushed once per improvement, and an improvement is one of its in-arcs'
relaxations. A push past a slot's room (not expected) fails the solve with a RuntimeError naming the reason, as does
a warp that waits for work longer than `timeout_s` (a bug guard).

Non-negative int32 or unit weights. Distances int64, unreached INT64_MAX.
Counters: `pops` (entries taken), `stale_pops` (entries dropped: their vertex was lowered again), `relaxed` (vertices
relaxed: entries not stale plus chained hops; per reached vertex, the work-efficiency figure), `chained`, `pushes`,
`buckets` (times the current bucket moved on), `idle_polls`, `delta`, `slots`, `blocks`, `block`, `chain`; with
count_relaxations, relax attempts and relaxations.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import ConfigError
from ..gpu import runtime
from ..graph.csr import CSRGraph
from ..kernels.arrays import check_source
from ..kernels.delta_stepping import check_delta, default_delta, max_weight
from .base import Parameter, SolveResult
from .gpu_common import COUNT_RELAXATIONS, W_ATTEMPTS, W_RELAXATIONS, GpuSsspBase

DC_CONTROL_WORDS = 64
DC_SLOT_LINE = 32
DC_POPS, DC_STALE, DC_RELAXED, DC_CHAINED, DC_PUSHES, DC_BUCKETS, DC_ABORTED, DC_IDLE_POLLS = range(8, 16)
DC_BUSY_CYCLES, DC_SPAN_CYCLES, DC_BATCHES = 16, 17, 18
DC_WORDS = 24
"""Sizes and status words of delta_stepping_chain.cu."""

SLOT_LIMIT = 64
"""Most ring slots; delta is raised so that max weight / delta + 3 buckets fit."""
BLOCKS = (64, 128, 256)
TIMEOUT_S = 20.0
CHAIN_LIMIT = 2**30
ABORT_REASONS = {1: "a ring slot would have overflowed", 2: "a warp waited for work or an entry past the timeout"}


def ring_delta(graph: CSRGraph, requested: int) -> tuple[int, int]:
    """(delta, slots): the requested delta (0: the rule) raised so that one arc moves a distance by at most
    slots - 3 buckets, and the ring's slot count for it."""
    delta = int(requested or default_delta(graph))
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
        "delta": Parameter(int, 0, "bucket width; 0: C x average weight / average out-degree, C = 32 when the "
                           "average out-degree is below 5, else 4 (the shared rule); raised so that the ring holds "
                           f"max weight / delta + 3 buckets in at most {SLOT_LIMIT} slots"),
        "chain": Parameter(int, CHAIN_LIMIT, "most vertices a lane relaxes after its entry, each one it lowered "
                           "inside the bucket (0: every improvement goes through the work queue)"),
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
            self.per_vertex_bytes = 8 + 8 * self.slot_count
            self.per_arc_bytes = 8 * self.slot_count
        super().prepare(graph)

    def prepare_device(self) -> None:
        cp, n, m = self.cp, self.graph.n, self.graph.m
        self._init = self.module.function("dc_init")
        self._solve = self.module.function("dc_solve")
        sms = int(runtime.device_attributes().get("MultiProcessorCount", 1))
        self.grid = min(self.params["blocks"] or sms, runtime.resident_grid(self._solve, self.params["block"]))
        self.guard = self.grid * self.params["block"]  # at most one taken, unread cell per thread
        self.cap = n + m + self.guard + 1024
        self.cells = cp.empty(self.slot_count * self.cap, dtype=np.uint64)
        self.control = cp.zeros(DC_CONTROL_WORDS, dtype=np.uint64)
        self.slots = cp.zeros(self.slot_count * DC_SLOT_LINE, dtype=np.uint64)
        self.init_grid = runtime.blocks_for(n, 256, cap=4096)
        self.refill = True  # the cells are EMPTY after the first init; again after an aborted solve
        clock_khz = int(runtime.device_attributes().get("ClockRate", 0)) or 2_000_000
        self.timeout_cycles = int(self.params["timeout_s"] * clock_khz * 1000)

    def solve(self, source: int) -> SolveResult:
        source = check_source(self.graph, source)
        cells_total = self.cells.size if self.refill else 0
        runtime.launch(self._init, self.init_grid, 256, (
            self.dist, self.cells, self.control, self.slots, self.words, np.int64(self.graph.n), np.int64(source),
            np.int32(self.slot_count), np.int64(cells_total)))
        self.refill = False
        runtime.launch(self._solve, self.grid, self.params["block"], (
            self.dgraph.row_offsets, self.dgraph.column_ids, self.dgraph.weights,
            np.int32(1 if self.dgraph.unit_weights else 0), self.dist, self.cells, self.control, self.slots,
            self.words, np.int64(self.cap), np.int64(self.guard), np.int32(self.slot_count), np.int64(self.delta),
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
            "slots": self.slot_count, "blocks": self.grid, "block": self.params["block"],
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
