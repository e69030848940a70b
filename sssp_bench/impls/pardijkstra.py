"""`pardijkstra`: parDijkstra on the GPU parallel bucket heap (parbucketheap-pardijkstra, sections 3.2, 4.1-4.4),
one persistent kernel per solve, one thread block per heap level.

The paper's design, kept here: the parBucketHeap's levels (bucket B_i of 2d4^i elements, signal buffer S_i of
d4^i, both sorted by value) live in global memory; d is the maximum out-degree, so one bulkUpdate carries every
update of an extracted vertex; block 0 performs each round (extractMin = FindMin over B_0 and a DEL signal into S_0,
Resolve(0); the extracted vertex settled, its out-arcs to unsettled targets as a bulkUpdate, Resolve(0)), and block
i > 0 runs Resolve(i) (Algorithm 5) after every 4th Resolve(i-1), never beside Resolve(i+-1) (Theorem 3.1, Lemma
3.1), waiting on per-level counters in global memory rather than a grid barrier. Merge, DeleteDuplicates (DEL =
priority -1 removes the other copies of its value), compaction by block scans, Select, 256 threads a block.

What the paper leaves open, decided here (sssp_bench/kernels/bucket_heap.py is the executable specification, its
docstring the details; pardijkstra.cu mirrors it step for step, and tests compare counters):
- Keys are (priority, value) pairs, so Select splits exactly; it is a deterministic radix select (8-bit digits on
  priority - min, then on the tied values) instead of the paper's randomized quickselect.
- A DEL never stays in a bucket: it is sent down as if its priority were infinite, annihilates older copies level
  after level, and is dropped at the last level. Levels: L = ceil(log4(n/d)) + 1, so the last holds all n values.
- The schedule is done_i (finished Resolve(i)) counters: Resolve(i) number k+1 waits for done_{i-1} >= 4(k+1) and
  done_{i+1} >= floor(k/4) (the paper's "c_{i-1} = 4c_i and c_{i+1} >= 4c_i", read as the dependencies of 3.2.1).
- Rows are sorted by column id in prepare (a copy, when a row is not sorted already), so updates come sorted by
  value. With `d` below the out-degree, a vertex's updates go in several bulkUpdates of at most d (Figure 3).
- An extracted vertex already settled is dropped (one read of the settled array per extraction, not per arc), so a
  re-extraction never changes a distance. settled_check False skips the per-arc test (section 4.3's DAG mode):
  updates of settled vertices then enter the heap, and their re-extractions (`stale_extractions`) cost rounds but
  the distances stay right on every graph. On the paper's DAG from its first vertex there are none.
- The solve ends when B_0 is empty and, once no level may resolve, no level holds an element other than a DEL.

Parameters: d (0: the maximum out-degree), warps_per_block (1..32, default 8: 256 threads, Figure 4 sweeps it),
settled_check (default True), count_relaxations (arcs examined and updates emitted per extraction).
Non-negative int32 or unit weights (float32 refused as by the other GPU implementations). Distances int64,
unreached INT64_MAX. A heap whose level arrays (12 bytes an element, 7 x d(4^L - 1)/3 elements) do not fit in free
device memory is refused with DeviceMemoryError (an out_of_memory row).
Counters: `iterations` (extractMins), `stale_extractions`, `bulk_updates` (the source's included), `empty_ops`,
`levels`, `d`, `resolves_per_level` (Resolve(i) run per level; level 0 counts one per operation),
`resolve0_ns` (mean device time of a Resolve(0), %globaltimer in block 0, waits for level 1 excluded: Figure 3),
`launch`; with count_relaxations, relax_attempts (arcs of settled vertices) and relaxations (updates inserted), in
total and per extraction.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import ConfigError, UnsupportedGraphError
from ..gpu import runtime
from ..graph.csr import CSRGraph
from ..kernels.arrays import check_source
from ..kernels.bucket_heap import default_d, level_count, sorted_rows
from .base import Parameter, SolveResult
from .gpu_common import COOPERATIVE_OR_PLAIN, COUNT_RELAXATIONS, GpuSsspBase

PD_FINISHED, PD_ERROR, PD_ITERATIONS, PD_STALE, PD_BULK, PD_EMPTY_OPS, PD_RESOLVE0_NS, PD_RESOLVE0_COUNT = range(8, 16)
PD_WORDS = 16
PD_CTL_STRIDE, PD_DONE = 8, 4
"""Status words and per-level control words of pardijkstra.cu."""

ERRORS = {1: "a level's capacity would overflow", 2: "the last level overflowed",
          3: "the operation cap was reached (no progress)",
          4: "block 0 waited 60 s for the levels below it (stalled schedule)"}

ELEMENT_BYTES = 12  # int64 priority + int32 value


def heap_elements(n: int, d: int) -> tuple[int, int]:
    """(levels, P_L): the level count and d(4^L - 1)/3, the elements of all signal buffers; buckets and scratch take
    3 P_L each."""
    levels = level_count(n, d)
    return levels, d * (4 ** levels - 1) // 3


def operation_cap(n: int, m: int, levels: int) -> int:
    """Operations (extractMins, bulkUpdates, empty ones) after which the kernel stops (a bug guard): extractions are
    at most 1 + m (one per update), bulkUpdates at most 1 + n + m, empty operations a few per level cycle."""
    return 4 * (n + m) + 2 * 4 ** levels + 64


class ParDijkstra(GpuSsspBase):
    name = "pardijkstra"
    cooperative_modes = COOPERATIVE_OR_PLAIN  # a warp or block may wait on another's work
    description = (
        "parDijkstra on the parallel bucket heap (parBucketHeap, CUDA/CuPy): one persistent kernel, one block per "
        "heap level; block 0 extracts the minimum and bulk-updates the settled vertex's out-arcs, block i resolves "
        "level i after every 4th Resolve(i-1) (Theorem 3.1), waiting on level counters in global memory. "
        "Non-negative weights."
    )
    negative_weights = False
    parameters = {
        "count_relaxations": COUNT_RELAXATIONS,
        "d": Parameter(int, 0, "bulkUpdate size and S_0 capacity; 0: the maximum out-degree (the paper's choice)"),
        "warps_per_block": Parameter(int, 8, "warps in each level's thread block, 1..32 (the paper: 8, Figure 4)"),
        "settled_check": Parameter(bool, True, "test each arc's target against the settled array before its update; "
                                   "False: the paper's DAG mode (section 4.3), settled targets updated too"),
    }
    cu_file = "pardijkstra.cu"
    status_words = PD_WORDS
    per_vertex_bytes = 12  # distances 8, settled 4; prepare adds the heap's share

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        if self.params["d"] < 0:
            raise ConfigError(f"{self.name}: d must be 0 (the maximum out-degree) or positive, got {self.params['d']}")
        if not 1 <= self.params["warps_per_block"] <= 32:
            raise ConfigError(f"{self.name}: warps_per_block must be 1..32, got {self.params['warps_per_block']}")

    def prepare(self, graph: CSRGraph) -> None:
        self.refuse_negative_weights(graph)
        self.d = int(self.params["d"] or default_d(graph))
        self.levels, self.signal_elements = heap_elements(max(graph.n, 1), self.d)
        self.max_degree = default_d(graph)
        self.staging_elements = self.max_degree if self.max_degree > self.d else 1
        heap_bytes = ELEMENT_BYTES * (7 * self.signal_elements + self.staging_elements)
        self.per_vertex_bytes = type(self).per_vertex_bytes + -(-heap_bytes // max(graph.n, 1))
        self.row_offsets_host, columns, weights, _ = sorted_rows(graph)
        self.already_sorted = bool(np.array_equal(columns, np.asarray(graph.column_ids)))
        self.per_arc_bytes = 0 if self.already_sorted else 8
        self._sorted_columns, self._sorted_weights = columns, weights
        try:
            super().prepare(graph)
        except runtime.DeviceMemoryError as error:  # out_of_memory in the results, as for every implementation
            raise runtime.DeviceMemoryError(
                self.name, error.needed, error.free, error.total,
                f"the graph and a bucket heap of {self.levels} levels, d={self.d}: {heap_bytes / 2**30:.2f} GiB of "
                f"level arrays") from None
        finally:
            self._sorted_columns = self._sorted_weights = None

    def prepare_device(self) -> None:
        cp, dgraph, n = self.cp, self.dgraph, self.graph.n
        if self.already_sorted:
            self.columns, self.weights = dgraph.column_ids, dgraph.weights
        else:
            self.columns = cp.asarray(self._sorted_columns)
            self.weights = dgraph.weights if dgraph.unit_weights else cp.asarray(self._sorted_weights)
        self.block = 32 * self.params["warps_per_block"]
        self._init = self.module.function("pardijkstra_init")
        self._solve = self.module.function("pardijkstra_solve")
        resident = runtime.resident_grid(self._solve, self.block)
        if self.levels > resident:
            raise UnsupportedGraphError(f"{self.name}: {self.levels} level blocks of {self.block} threads cannot all "
                                        f"be resident on this device (at most {resident})")
        total = 3 * self.signal_elements
        self.bucket_p = cp.empty(total, dtype=np.int64)
        self.bucket_v = cp.empty(total, dtype=np.int32)
        self.scratch_p = cp.empty(total, dtype=np.int64)
        self.scratch_v = cp.empty(total, dtype=np.int32)
        self.signal_p = cp.empty(self.signal_elements, dtype=np.int64)
        self.signal_v = cp.empty(self.signal_elements, dtype=np.int32)
        self.staging_p = cp.empty(self.staging_elements, dtype=np.int64)
        self.staging_v = cp.empty(self.staging_elements, dtype=np.int32)
        self.ctl = cp.zeros(self.levels * PD_CTL_STRIDE, dtype=np.int64)
        self.settled = cp.empty(n, dtype=np.int32)
        self.operation_cap = operation_cap(n, self.graph.m, self.levels)
        # per extraction: arcs examined and updates emitted (count_relaxations); a 2-entry dummy otherwise
        self.per_iteration = cp.zeros(2 * (n + self.graph.m + 1) if self.counting() else 2, dtype=np.uint64)
        self.init_grid = runtime.stride_grid(self._init, n, 256)

    def solve(self, source: int) -> SolveResult:
        source = check_source(self.graph, source)
        n = self.graph.n
        if self.counting():
            self.per_iteration.fill(0)  # a dropped re-extraction writes no entry
        runtime.launch(self._init, self.init_grid, 256, (
            self.dist, self.settled, np.int64(n), np.int64(source), self.ctl, np.int32(self.levels), self.signal_p,
            self.signal_v, self.words))
        runtime.launch(self._solve, self.levels, self.block, (
            self.dgraph.row_offsets, self.columns, self.weights, np.int32(1 if self.dgraph.unit_weights else 0),
            self.dist, self.settled, self.bucket_p, self.bucket_v, self.signal_p, self.signal_v, self.scratch_p,
            self.scratch_v, self.staging_p, self.staging_v, self.ctl, np.int64(self.d), np.int32(self.levels),
            np.int32(1 if self.params["settled_check"] else 0), np.int64(self.operation_cap), self.words,
            self.per_iteration, np.int32(1 if self.counting() else 0)))
        words = self.read_words(source)
        if words[PD_ERROR]:
            code = int(words[PD_ERROR])
            raise RuntimeError(f"{self.name}: the solve from {source} failed: {ERRORS.get(code, f'error {code}')}")
        ctl = self.ctl.get().reshape(self.levels, PD_CTL_STRIDE)
        resolves0 = int(words[PD_RESOLVE0_COUNT])
        iterations = int(words[PD_ITERATIONS])
        counters: dict[str, Any] = {
            "iterations": iterations, "stale_extractions": int(words[PD_STALE]),
            "bulk_updates": int(words[PD_BULK]), "empty_ops": int(words[PD_EMPTY_OPS]), "levels": self.levels,
            "d": self.d, "resolves_per_level": [int(x) for x in ctl[:, PD_DONE]],
            "resolve0_ns": float(words[PD_RESOLVE0_NS]) / max(resolves0, 1), "launch": self.launch_mode,
        }
        if self.counting():
            per = self.per_iteration[: 2 * iterations].get().reshape(-1, 2).astype(np.int64)
            counters.update(
                relax_attempts=int(per[:, 0].sum()), relaxations=int(per[:, 1].sum()),
                relax_attempts_per_iteration=per[:, 0].tolist(), relaxations_per_iteration=per[:, 1].tolist(),
            )
        return SolveResult(self.dist, runtime.DIST_INF, counters)

    def teardown_device(self) -> None:
        self.columns = self.weights = None
        self.bucket_p = self.bucket_v = self.scratch_p = self.scratch_v = self.signal_p = self.signal_v = None
        self.staging_p = self.staging_v = self.ctl = self.settled = self.per_iteration = None
