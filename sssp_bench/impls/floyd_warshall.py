"""`floyd-warshall`: blocked all-pairs Floyd-Warshall on the GPU, the comparator of parbucketheap-pardijkstra's
Figure 6.

parbucketheap-pardijkstra, section 4.4, compares parDijkstra run from every vertex with "a simple GPU-efficient
blocked Floyd-Warshall implementation" on complete undirected graphs (D = V); parDijkstra wins from V = 16k on. The
blocked algorithm is Venkataraman et al.'s: the n x n matrix cut into tile x tile tiles, and per block round b three
phases, each a kernel: the diagonal tile (b, b) closed over its k in shared memory; the other tiles of row b and
column b, each over the round's k with the closed diagonal tile; every other tile, min over the round's k of the
column-b tile plus the row-b tile, staged through shared memory. floyd_warshall.cu has the thread layout.

What the paper leaves open, decided here:
- What a solve is. The runner times `solve(source)`, and Floyd-Warshall computes all pairs, so every solve runs the
  whole all-pairs computation (what Figure 6 calls its runtime), building the matrix from the device CSR first
  (INF everywhere, 0 on the diagonal, each entry the least weight of its parallel arcs: O(n^2 + m), included in the
  time rather than a pristine copy kept beside the matrix, which would double the memory), and returns the
  source's row. Nothing is cached between solves: a later solve never reads an earlier one's matrix. `all_pairs()`
  gives the last solve's full matrix (for tests). Compare its time with n single-source solves of the others.
- Distances: int32 where the graph's simple-path bounds (gpu_common.packing_bounds) lie inside (-2^30, 2^30 - 1],
  else int64 (`distance_bits` 0), or as asked (32 refused where it does not fit). Candidates are saturated to
  [floor, ceil] of the width; kernels/floyd_warshall.py proves the source's row exact and no sum overflowing.
  Where the bounds do not fit but no weight is negative, a solve runs in int32 anyway and checks the whole matrix
  for a saturated entry (exact without one, the same module's argument); with one it is done again in int64, inside
  the same timed solve (counter `widened`), and every later solve of the graph starts in int64 (a decision about
  the graph, not a result carried over). The memory check counts the int64 matrix, freed int32 matrix first.
- Negative weights are solved. A negative cycle is reported (NegativeCycleError) only when reachable from the
  source: exactly when some v has d[s][v] finite and d[v][v] < 0 (the same module's argument); elsewhere it leaves
  the source's row exact, so other sources still solve.
- The matrix is n_pad x n_pad, n rounded up to a multiple of the tile (padding vertices isolated). Its bytes plus
  the CSR and the int64 result row must fit in free device memory (else DeviceMemoryError, which the runner records
  as out_of_memory); graphs over `max_vertices` are refused (UnsupportedGraphError) before any of that.
- float32 weights are refused, as the other GPU implementations do.

Parameters: `tile` (16, 32 or 64; blocks are 16 x 16 threads, each owning (tile / 16)^2 entries), `distance_bits`
(0 auto, 32, 64), `max_vertices` (0: no cap), `count_relaxations`.
Counters: `pairs` (n^2), `tile`, `block_rounds` (n_pad / tile), `distance_bits` (the width the row came from),
`widened` (this solve found int32 saturated and was done again in int64), `iterations` (= block_rounds);
with count_relaxations, relax attempts (the matrix's arc loads and every candidate with both operands finite) and
relaxations (those that lowered an entry), per block round (the arc loads in the first).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import NegativeCycleError, UnsupportedGraphError
from ..gpu import runtime
from ..graph.csr import CSRGraph
from ..kernels.arrays import check_source
from ..kernels.floyd_warshall import LIMITS, TILES, choose_bits, matrix_bytes, optimistic_int32, padded, saturated
from .base import Parameter, SolveResult
from .gpu_common import BLOCK, COUNT_RELAXATIONS, W_FLOOR, CumulativeCounts, GpuSsspBase, packing_bounds

FW_SIDE = 16
"""Threads per block side (floyd_warshall.cu's FW_SIDE)."""

FW_CYCLE_VERTEX = 6
"""Status word: the least vertex with d[s][v] finite and d[v][v] < 0 (floyd_warshall.cu)."""

MAX_VERTICES = 65536


def kernel_type(bits: int) -> str:
    return "int" if bits == 32 else "long long"


def kernel_names(tile: int, bits: int, count: bool) -> dict[str, str]:
    """The NVRTC name expressions of one configuration's kernels."""
    d, flag = kernel_type(bits), "true" if count else "false"
    return {
        "fill": f"fw_fill<{d}>", "arcs": f"fw_arcs<{d}, {flag}>", "row": f"fw_row<{d}>",
        "diagonal": f"fw_diagonal<{d}, {tile}, {flag}>", "panels": f"fw_panels<{d}, {tile}, {flag}>",
        "rest": f"fw_rest<{d}, {tile}, {flag}>",
    }


def device_bytes(graph: CSRGraph, tile: int, bits: int) -> int:
    """Device bytes a solve needs: the matrix, the CSR and the int64 result row (status words aside)."""
    return matrix_bytes(graph.n, tile, bits) + runtime.graph_device_bytes(graph) + 8 * graph.n


class FloydWarshall(GpuSsspBase):
    name = "floyd-warshall"
    description = (
        "Blocked all-pairs Floyd-Warshall (CuPy/CUDA, Venkataraman et al.'s three phases per block round, tiles in "
        "shared memory), parbucketheap-pardijkstra's Figure 6 comparator: every solve computes all pairs and returns "
        "the source's row. Negative weights OK."
    )
    solves_all_pairs = True  # a solve's time is the all-pairs time: the report marks it wherever it stands
    parameters = {
        "count_relaxations": COUNT_RELAXATIONS,
        "tile": Parameter(int, 32, "tile side of the blocked schedule (16 x 16 threads per tile)", choices=TILES),
        "distance_bits": Parameter(int, 0, "matrix entries: 0 int32 where the graph's path bounds fit, else int64; "
                                   "32 or 64 to force (32 refused where it does not fit)", choices=(0, 32, 64)),
        "max_vertices": Parameter(int, MAX_VERTICES, "refuse graphs with more vertices (an n^2 matrix and n^3 work); "
                                  "0: no cap, only the memory check"),
    }
    cu_file = "floyd_warshall.cu"
    per_vertex_bytes = 8
    integer_distances_why = "the matrix holds integer distances"

    def prepare(self, graph: CSRGraph) -> None:
        self.graph = graph
        self.refuse_float_weights(graph)
        cap = self.params["max_vertices"]
        if cap < 0:
            from ..errors import ConfigError

            raise ConfigError(f"{self.name}: max_vertices must be >= 0, got {cap}")
        if cap and graph.n > cap:
            raise UnsupportedGraphError(
                f"{self.name}: {graph.name or 'the graph'} has n={graph.n} vertices, over max_vertices={cap} (an "
                f"n x n matrix and n^3 work per solve); raise max_vertices to try"
            )
        low, high = packing_bounds(graph)
        requested = self.params["distance_bits"]
        self.optimistic = optimistic_int32(requested, low, high)
        try:
            self.bits = 32 if self.optimistic else choose_bits(requested, low, high)
        except ValueError as error:
            raise UnsupportedGraphError(f"{self.name}: {error}") from None
        self.tile = int(self.params["tile"])
        self.n_pad = padded(graph.n, self.tile)
        self.limits = LIMITS[self.bits]
        self.cp = runtime.cupy_module()
        widest = 64 if self.optimistic else self.bits  # a saturated solve is done again in int64
        needed = device_bytes(graph, self.tile, widest) + runtime.MEMORY_HEADROOM_BYTES
        free, total = runtime.free_device_bytes()
        if needed > free:
            raise runtime.DeviceMemoryError(
                self.name, needed, free, total,
                f"n={graph.n}: a {self.n_pad} x {self.n_pad} int{widest} matrix of "
                f"{matrix_bytes(graph.n, self.tile, widest)} bytes, plus the CSR and {runtime.MEMORY_HEADROOM_BYTES}"
                f" bytes headroom",
            )
        widths = (32, 64) if self.optimistic else (self.bits,)
        self.names = {bits: kernel_names(self.tile, bits, self.counting()) for bits in widths}
        self.name_expressions = tuple(name for names in self.names.values() for name in names.values())
        self.upload(graph)
        self.kernels = {key: self.module.function(name) for key, name in self.names[self.bits].items()}
        self.dist = self.cp.empty(graph.n, dtype=np.int64)
        self.matrix = self.cp.empty(self.n_pad * self.n_pad, dtype=self.limits.dtype)
        self.solved = False
        self.synchronize()

    def widen(self) -> None:
        """From optimistic int32 to int64 for this solve and every later one of this graph (the int32 matrix is
        freed first, so the two never coexist)."""
        self.optimistic, self.bits, self.limits = False, 64, LIMITS[64]
        self.kernels = {key: self.module.function(name) for key, name in self.names[64].items()}
        self.matrix = None
        self.cp.get_default_memory_pool().free_all_blocks()  # the pool would keep the int32 block beside the new one
        self.matrix = self.cp.empty(self.n_pad * self.n_pad, dtype=self.limits.dtype)

    def solve(self, source: int) -> SolveResult:
        source = check_source(self.graph, source)
        counts = self.all_pairs_rounds()
        widened = self.optimistic and saturated(self.matrix, self.graph.n, self.n_pad, self.limits)
        if widened:
            self.widen()
            counts = self.all_pairs_rounds()
        return self.source_row(source, counts, widened)

    def all_pairs_rounds(self) -> CumulativeCounts | None:
        """The matrix built from the CSR and closed by every block round, at the current width."""
        graph, dgraph, kernels = self.graph, self.dgraph, self.kernels
        n_pad, tiles = np.int64(self.n_pad), self.n_pad // self.tile
        runtime.launch(kernels["fill"], runtime.blocks_for(self.n_pad * self.n_pad, BLOCK, cap=65536), BLOCK,
                       (self.matrix, n_pad, self.words))
        if graph.m:
            weights, unit = self.weight_args()
            runtime.launch(kernels["arcs"], runtime.blocks_for(graph.m, BLOCK, cap=65536), BLOCK, (
                dgraph.row_offsets, dgraph.column_ids, weights, unit, np.int64(graph.n), np.int64(graph.m), n_pad,
                self.matrix, self.words))
        counts = CumulativeCounts() if self.counting() else None
        block = (FW_SIDE, FW_SIDE)
        for b in range(tiles):
            args = (self.matrix, n_pad, np.int64(b), self.words)
            runtime.launch(kernels["diagonal"], 1, block, args)
            if tiles > 1:
                runtime.launch(kernels["panels"], (tiles - 1, 2), block, args)
                runtime.launch(kernels["rest"], (tiles, tiles), block, args)
            if counts is not None:
                counts.add(self.readback.read())
        return counts

    def source_row(self, source: int, counts: CumulativeCounts | None, widened: bool) -> SolveResult:
        graph, kernels, tiles, n_pad = self.graph, self.kernels, self.n_pad // self.tile, np.int64(self.n_pad)
        runtime.launch(kernels["row"], runtime.blocks_for(graph.n, BLOCK, cap=4096), BLOCK,
                       (self.matrix, np.int64(graph.n), n_pad, np.int64(source), self.dist, self.words))
        self.solved = True
        words = self.readback.read()
        if words[W_FLOOR]:
            vertex = int(words[FW_CYCLE_VERTEX])
            raise NegativeCycleError(
                f"{self.name}: negative cycle reachable from source {source} (vertex {vertex} reaches itself on a "
                f"negative closed walk)", vertex=vertex)
        counters: dict[str, Any] = {
            "iterations": tiles, "pairs": graph.n * graph.n, "tile": self.tile, "block_rounds": tiles,
            "distance_bits": self.bits, "widened": bool(widened),
        }
        if counts is not None:
            counters.update(
                relax_attempts=int(sum(counts.attempts)), relaxations=int(sum(counts.relaxations)),
                relax_attempts_per_iteration=counts.attempts, relaxations_per_iteration=counts.relaxations,
            )
        return SolveResult(self.dist, runtime.DIST_INF, counters)

    def all_pairs(self):
        """The last solve's n x n matrix as int64 CuPy (DIST_INF where unreached); for tests, never timed. A solve
        that raised NegativeCycleError leaves its matrix here too (saturated entries, see the module docstring)."""
        if not getattr(self, "solved", False):
            raise RuntimeError(f"{self.name}: all_pairs() before a solve")
        n = self.graph.n
        square = self.matrix.reshape(self.n_pad, self.n_pad)[:n, :n]
        out = square.astype(np.int64)
        out[square == self.limits.inf] = runtime.DIST_INF
        return out

    def teardown_device(self) -> None:
        self.matrix = None
        self.kernels = None
