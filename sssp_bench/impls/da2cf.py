"""`da2cf`: Dijkstra's algorithm adapted to compound frontiers on the GPU (da2cf-gpu-dijkstra-compound-frontiers),
every fully-GPU variant of the paper's sections 4-5 chosen by parameters.

The paper (section 3, Fig. 2): all unresolved vertices at the least tentative distance are final at once, so they
form one compound frontier and are resolved together. The host runs the loop initialize; while mssp != INF
{ relax; mssp = minimum; update }, one launch per step and one thread per vertex in blocks of 256 (the paper's),
with one host round trip per iteration: the copy of the block minima that the host minimises (inherent to the
paper's design: the loop's condition lives on the host). The kernels are in `da2cf.cu`; the numpy model of the
same loop (the paper's FCPU and UCPU) is kernels/da2cf.py, which the tests hold this implementation to (distances
and iteration counts).

Parameters -> the paper's variants (section 4.1, Figs. 6-7), the `variant` counter:
    relax=frontier                                     FGPU            relax_F (Fig. 3 left): atomicMin
    relax=frontier, atomic=false                       FGPU_no_Atomic  the paper's deliberately incorrect plain
                                                                       `if (c[j] > x) c[j] = x;` (volatile)
    relax=unresolved                                   UGPU            relax_U (Fig. 3 right) on the predecessors
    relax=unresolved, min_passes=2                     UGPU+2min       minimum2: a second device pass
    relax=unresolved, cached_reads=true                UGPU_PLUS       section 4.2 (+2min with min_passes=2)
    representation=matrix                              FGPU-matrix, FGPU_no_Atomic-matrix, UGPU-matrix (section 5)
    relax=frontier, min_passes=2                       FGPU+2min (not in the paper; the same minimum2)
The hybrids UH1-UH3 (part of each iteration on the CPU) are not built.

What the paper leaves open, decided here:
- The source: the paper's is vertex 0; any source is taken.
- relax_U's predecessor lists are the transposed CSR, built on the host in prepare (kernels/da2cf.py's
  predecessor_csr, a counting sort) and uploaded beside the shared device graph; relax_F uses the shared graph.
  Each unresolved vertex keeps its least candidate in a register and stores it once (one writer: no atomics).
- update: f[i] = u[i] && c[i] == mssp (the paper's Fig. 4 tests c[i] == mssp only; with a zero-weight arc mssp can
  repeat, and a resolved vertex must not rejoin the frontier). After the last iteration (mssp = INF) no update runs.
- minimum1 is reduce3 as Fig. 4 (two elements per thread, a shared-memory tree), bounds-checked for the last
  block; the host copies its ceil(n / 512) block minima (or minimum2's ceil(n / 512^2)) to pinned memory and takes
  their least. `minimum_values` is how many values that copy holds.
- UGPU_PLUS: the row offsets shared through shared memory as section 4.2 says, f read with __ldg (the read-only
  data cache, today's texture path); the plain UGPU reads f through a pointer the compiler cannot route there.
- FGPU_no_Atomic: volatile loads and stores, so the compiler neither merges, hoists nor makes them atomic; a race
  lost on the da2cf-race graph (the paper's Fig. 5 counterexample, a generator) leaves a wrong distance, which the
  runner's certificate catches as a wrong_answer row. It is the paper's measuring device, not a correct solver.
- The matrix (section 5): n x n uint32, built on the device in prepare from the CSR (row = tail, column = head;
  0xffffffff, above every int32 weight, for "no arc"; parallel arcs keep the least weight). relax_U visits
  column j (consecutive threads, consecutive columns) with chunks of f and c staged in shared memory; relax_F
  visits row i with chunks of u staged. A block with no thread to work (no frontier vertex, or no unresolved one)
  leaves before staging: the paper does not say, and staging for idle blocks would add n^2/256 shared-memory
  loads per iteration for nothing. A matrix that would not fit the device's free memory is refused
  (UnsupportedGraphError) in prepare, before anything is allocated.

Non-negative weights only (UnsupportedGraphError otherwise: Dijkstra's condition); int32 or unit weights (float32
refused, as the other GPU implementations do). Distances int64 on the device, unreached = INT64_MAX.
Counters: `iterations` (passes of the while loop, the last finding mssp = INF: with positive weights, the number
of distinct distances), `variant`, `minimum_values`; with count_relaxations, relax attempts (arcs examined between
a frontier vertex and an unresolved one) and relaxations (distance improvements; relax_U counts one per improved
vertex and iteration) in total and per iteration, and `frontier_sizes` (the frontier each iteration relaxed).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import ConfigError, UnsupportedGraphError
from ..gpu import runtime
from ..graph.csr import CSRGraph
from ..kernels.arrays import check_source, kernel_arrays
from ..kernels.da2cf import MATRIX_NO_ARC, predecessor_csr
from .base import Parameter, SolveResult
from .gpu_common import COUNT_RELAXATIONS, W_QUEUE, CumulativeCounts, GpuSsspBase

DA2CF_BLOCK = 256
"""Threads per block (the paper's), = DA2CF_BLOCK in da2cf.cu; minimum1 reduces 2 x DA2CF_BLOCK values per block."""

RELAX = ("frontier", "unresolved")
REPRESENTATIONS = ("list", "matrix")


def variant_name(relax: str, atomic: bool, min_passes: int, cached_reads: bool, representation: str) -> str:
    """The paper's name of a parameter combination (section 4.1 and 5): FGPU, FGPU_no_Atomic, UGPU, UGPU+2min,
    UGPU_PLUS, with "-matrix" for section 5's adjacency matrices."""
    name = ("FGPU" if atomic else "FGPU_no_Atomic") if relax == "frontier" else "UGPU"
    if cached_reads:
        name += "_PLUS"
    if min_passes == 2:
        name += "+2min"
    return name + ("-matrix" if representation == "matrix" else "")


def check_parameters(who: str, params: dict[str, Any]) -> None:
    """ConfigError for the combinations the paper has no variant for, naming the parameter."""
    if not params["atomic"] and params["relax"] != "frontier":
        raise ConfigError(f"{who}: parameter 'atomic' = false (FGPU_no_Atomic) needs relax='frontier'; relax_U has "
                          f"one writer per vertex and no atomic to leave out")
    if params["cached_reads"] and (params["relax"] != "unresolved" or params["representation"] != "list"):
        raise ConfigError(f"{who}: parameter 'cached_reads' (UGPU_PLUS, section 4.2) needs relax='unresolved' and "
                          f"representation='list', got relax={params['relax']!r}, "
                          f"representation={params['representation']!r}")


def matrix_bytes(n: int) -> int:
    """Device bytes of the dense n x n uint32 matrix."""
    return 4 * int(n) * int(n)


def matrix_refusal(who: str, n: int, other_bytes: int, free_bytes: int) -> str | None:
    """The one-line reason a matrix of n vertices (plus `other_bytes` of graph and working arrays) does not fit
    `free_bytes`, or None when it fits (with runtime's headroom)."""
    needed = matrix_bytes(n) + int(other_bytes) + runtime.MEMORY_HEADROOM_BYTES
    if needed <= free_bytes:
        return None
    return (f"{who}: representation=matrix needs a {n} x {n} matrix of {matrix_bytes(n) / 2**30:.2f} GiB "
            f"({needed / 2**30:.2f} GiB with the graph, working arrays and headroom), but only "
            f"{free_bytes / 2**30:.2f} GiB of device memory is free; use representation=list")


class Da2cf(GpuSsspBase):
    name = "da2cf"
    description = (
        "Dijkstra's algorithm adapted to compound frontiers (CuPy/CUDA): every unresolved vertex at the least distance "
        "is resolved at once; relax_F (atomicMin, or the paper's racy plain min) or relax_U (predecessors), "
        "minimum1/minimum2 block reductions, adjacency lists or a dense matrix. The paper's FGPU, FGPU_no_Atomic, "
        "UGPU, UGPU+2min, UGPU_PLUS. Non-negative weights."
    )
    negative_weights = False
    parameters = {
        "count_relaxations": COUNT_RELAXATIONS,
        "relax": Parameter(str, "frontier", "frontier: relax_F, each frontier vertex relaxes its successors "
                           "(FGPU); unresolved: relax_U, each unresolved vertex scans its predecessors (UGPU)",
                           choices=RELAX),
        "atomic": Parameter(bool, True, "false: relax_F with the paper's plain, racy `if (c[j] > x) c[j] = x` "
                            "(FGPU_no_Atomic; incorrect by design, for measuring); relax=frontier only"),
        "min_passes": Parameter(int, 1, "device passes of the minimum before the host minimises the rest: 1 "
                                "(minimum1) or 2 (minimum2, UGPU+2min)", choices=(1, 2)),
        "cached_reads": Parameter(bool, False, "UGPU_PLUS (section 4.2): relax_U with the row offsets shared "
                                  "through shared memory and f read through the read-only cache"),
        "representation": Parameter(str, "list", "list: CSR adjacency lists; matrix: a dense n x n weight matrix "
                                    "built on the device (section 5)", choices=REPRESENTATIONS),
    }
    cu_file = "da2cf.cu"

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        check_parameters(self.name, self.params)
        self.variant = variant_name(**{key: self.params[key] for key in
                                       ("relax", "atomic", "min_passes", "cached_reads", "representation")})

    # -- prepare ---------------------------------------------------------------------------------------------

    def prepare(self, graph: CSRGraph) -> None:
        self.refuse_negative_weights(graph)
        relax, matrix = self.params["relax"], self.params["representation"] == "matrix"
        self.blocks1 = max(1, -(-graph.n // (2 * DA2CF_BLOCK)))  # minimum1's block minima
        self.blocks2 = max(1, -(-self.blocks1 // (2 * DA2CF_BLOCK)))
        # distances 8, f 1, u 1, block minima 8 per 512 vertices (and minimum2's), rounded up
        self.per_vertex_bytes = 11
        self.per_arc_bytes = 0
        if relax == "unresolved" and not matrix:  # the predecessor CSR: offsets, tails, weights
            self.per_vertex_bytes += 8
            self.per_arc_bytes = 8
        if matrix and not (graph.weights is not None and graph.weights.dtype.kind == "f"):
            free, _ = runtime.free_device_bytes()
            other = runtime.estimate_device_bytes(graph, self.per_vertex_bytes, 0, include_graph=True)
            refusal = matrix_refusal(self.name, graph.n, other, free)
            if refusal:
                raise UnsupportedGraphError(refusal)
        super().prepare(graph)  # float32 refused, device graph, distances, then prepare_device

    def prepare_device(self) -> None:
        cp, graph, dgraph, n = self.cp, self.graph, self.dgraph, self.graph.n
        module = self.module
        self._init = module.function("da2cf_init")
        self._minimum1 = module.function("da2cf_minimum1")
        self._minimum2 = module.function("da2cf_minimum2")
        self._update = module.function("da2cf_update")
        self.f = cp.empty(n, dtype=np.uint8)
        self.u = cp.empty(n, dtype=np.uint8)
        self.minima1 = cp.empty(self.blocks1, dtype=np.int64)
        self.minima2 = cp.empty(self.blocks2, dtype=np.int64)
        two = self.params["min_passes"] == 2
        self.min_readback = runtime.HostReadback(self.minima2 if two else self.minima1)
        frontier, atomic = self.params["relax"] == "frontier", self.params["atomic"]
        unit = np.int32(1 if dgraph.unit_weights else 0)
        if self.params["representation"] == "matrix":
            self.matrix = cp.empty(n * n, dtype=np.uint32)
            self.matrix.fill(MATRIX_NO_ARC)
            runtime.launch(module.function("da2cf_matrix_fill"), runtime.blocks_for(n, DA2CF_BLOCK, cap=4096),
                           DA2CF_BLOCK, (dgraph.row_offsets, dgraph.column_ids, dgraph.weights, unit, np.int64(n),
                                         self.matrix))
            if frontier:
                self._relax = (module.function("da2cf_matrix_relax_frontier") if atomic
                               else module.function("da2cf_matrix_relax_frontier_plain"))
            else:
                self._relax = module.function("da2cf_matrix_relax_unresolved")
            self._relax_graph: tuple = (self.matrix,)
        elif frontier:
            self._relax = (module.function("da2cf_relax_frontier") if atomic
                           else module.function("da2cf_relax_frontier_plain"))
            self._relax_graph = (dgraph.row_offsets, dgraph.column_ids, dgraph.weights, unit)
        else:
            preds = predecessor_csr(kernel_arrays(graph))
            self.in_offsets = cp.asarray(preds.row_offsets)
            self.in_tails = cp.asarray(preds.column_ids if len(preds.column_ids) else np.zeros(1, np.int32))
            self.in_weights = cp.asarray(preds.weights if len(preds.weights) else np.zeros(1, np.int32))
            cached = self.params["cached_reads"]
            self._relax = (module.function("da2cf_relax_unresolved_cached") if cached
                           else module.function("da2cf_relax_unresolved"))
            self._relax_graph = (self.in_offsets, self.in_tails, self.in_weights, unit)

    # -- solve -----------------------------------------------------------------------------------------------

    def minimum(self) -> int:
        """mssp: minimum1 (and minimum2) on the device, the block minima copied to the host and minimised there."""
        n = self.graph.n
        runtime.launch(self._minimum1, self.blocks1, DA2CF_BLOCK, (self.u, self.dist, np.int64(n), self.minima1))
        if self.params["min_passes"] == 2:
            runtime.launch(self._minimum2, self.blocks2, DA2CF_BLOCK,
                           (self.minima1, np.int64(self.blocks1), self.minima2))
        return int(self.min_readback.read().min())

    def solve(self, source: int) -> SolveResult:
        source = check_source(self.graph, source)
        n = self.graph.n
        n64, grid = np.int64(n), runtime.blocks_for(n, DA2CF_BLOCK)
        counting = self.counting()
        count = np.int32(1 if counting else 0)
        runtime.launch(self._init, runtime.blocks_for(n, DA2CF_BLOCK, cap=4096), DA2CF_BLOCK,
                       (self.dist, self.f, self.u, n64, np.int64(source), self.words))
        counts = CumulativeCounts() if counting else None
        sizes, queued = [1], 0
        iterations, mssp = 0, 0
        while mssp != runtime.DIST_INF:
            iterations += 1
            if iterations > n:  # each iteration resolves at least one vertex: a bug guard
                raise RuntimeError(f"{self.name}: more than n={n} iterations; the frontier stopped shrinking the "
                                   f"unresolved set")
            runtime.launch(self._relax, grid, DA2CF_BLOCK,
                           (*self._relax_graph, self.f, self.u, self.dist, n64, self.words, count))
            mssp = self.minimum()
            if mssp != runtime.DIST_INF:
                runtime.launch(self._update, grid, DA2CF_BLOCK,
                               (self.dist, self.f, self.u, n64, np.int64(mssp), self.words, count))
            if counts is not None:
                words = self.readback.read()
                counts.add(words)
                if mssp != runtime.DIST_INF:
                    sizes.append(int(words[W_QUEUE]) - queued)
                    queued = int(words[W_QUEUE])
        extra = {"frontier_sizes": sizes} if counting else {}
        result = self.result(iterations, *((counts.attempts, counts.relaxations) if counts else ([], [])), **extra)
        result.counters.update(variant=self.variant, minimum_values=int(self.min_readback.host.size))
        return result

    def teardown_device(self) -> None:
        self.f = self.u = self.minima1 = self.minima2 = self.min_readback = None
        self.matrix = self.in_offsets = self.in_tails = self.in_weights = None
        self._relax_graph = ()
