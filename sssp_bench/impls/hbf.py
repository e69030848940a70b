"""`hbf`: H-BF, Busato and Bombieri's frontier Bellman-Ford for Kepler GPUs, on Hopper.

hbf-bellman-ford-kepler, sections 4 and 5 (Algorithms 3 to 6, Table 3). `hbf.cu` holds the kernels; every
optimization is a parameter, all on by default:

- The frontier-based algorithm (section 4, Algorithm 3): two frontiers of active vertices; each iteration
  relaxes the out-arcs of the current frontier and enqueues the improved vertices into the next one.
  Iterations are driven from the device: each iteration's kernels read the frontier size and the iteration
  number from the status words and size their virtual warps there (a one-wave grid, grid-stride loops), so the
  host launches iterations in batches of 16, 32, 64, 64, ... (iterations after the frontier empties do nothing) and
  reads the status words back once per batch. A readback and a Python launch each cost more than a small
  iteration, so by default (`graphs`) each batch is one replay of a CUDA graph captured in prepare. With
  count_relaxations, one iteration per batch and plain launches (per-iteration counts); with dynamic_parallelism
  "child", plain launches in batches (no graphs around device-side launches).
- `edge_classification` (section 4.1, Algorithm 4): a marking phase in prepare() keeps a marked copy of the column ids
  on the device (the shared device graph is not touched) whose top two bits give each arc's class: self-loops are
  skipped (those of weight >= 0: a negative one is a negative cycle, relaxed to be reported); arcs into in-degree-1
  vertices are plain stores (no other arc writes that vertex); arcs into out-degree-0 vertices are left out of the
  iterations, and one extra kernel at the end gives each such sink the minimum over its in-arcs (no atomics). The
  source class depends on the source: the first iteration is a kernel over the source's arcs that writes its targets
  directly, with no read and no atomic, unless the source has parallel arcs (found in prepare), whose targets then
  take atomicMin. Needs n < 2^30 (two spare bits in an int32 column id); larger graphs are refused.
- `dedup64` (section 4.2, Algorithms 5 and 6): distance and iteration number packed in one 64-bit word,
  relaxed by ONE atomicMin; a vertex is enqueued only when the word it replaced carried another iteration, so a
  frontier holds each vertex at most once. Packing (hbf.cu): word = (d - low) << k | iteration, unsigned, with
  k = bit length of n (iterations 0..n-1 plus the all-ones "never enqueued" tag) and `low` a lower bound of every
  simple path's length (the sum of the negative weights' share, at most (n-1) x min weight). Without a negative
  cycle every tentative distance is a simple path's length, in [low, high]; the host refuses the graph
  (UnsupportedGraphError, with the numbers) when high - low does not fit the 64 - k distance bits, and a
  candidate below `low` proves a reachable negative cycle. Nothing ever wraps. After the last iteration the
  words are unpacked into the int64 distances. Without dedup64, distances are int64 in place and every
  improvement enqueues (duplicates allowed; the frontier then holds up to max(n, m) + n entries).
- `coalesced_enqueue` (section 5.1): pushes gather in per-lane register queues, a warp-shuffle prefix sum places
  them in the warp's slot in shared memory, and full slots are written to the frontier with one atomicAdd per
  warp and consecutive stores; what is left at the end of a kernel goes out with ONE atomicAdd per block (one
  per warp there made thousands of same-address atomics per iteration, serialised in L2). Off: one atomicAdd
  and one scattered store per push.
- `cache_hints` (section 5.1): frontier and row offsets by streaming loads (__ldcs), arcs and weights by the
  read-only path (__ldg), distances from L2 only (__ldcg). Off: plain loads.
- `virtual_warps` (section 5.2): the virtual warp size is the previous power of two of (resident threads /
  frontier size), clamped to [4, 32], recomputed by each iteration kernel on the device; a virtual warp takes a
  run of consecutive frontier entries: one while the frontier fits a wave of resident threads, more (up to the
  paper's 32) as it outgrows it (vertices_per_vw = 0), or a fixed run (`vertices_per_vw`, default 1, the fastest
  measured: adjacent virtual warps read adjacent entries; the grid-stride loop then covers the frontier). The grid
  is one wave of the iteration kernel at its real occupancy (`blocks_per_sm`: its __launch_bounds__, which caps
  its registers). Off: one thread per frontier vertex.
- `block_expansion` (ours, for Hopper; on by default, and it replaces the virtual warps when on; the grid expansion
  replaces it where that runs): each block takes a chunk of consecutive frontier entries (at most 256; fewer when the
  frontier is small, so that it spreads over the whole grid), scans their degrees in shared memory, and deals the
  chunk's arcs to its threads in order, a thread finding its entry by binary search; each arc reads its tail's
  distance beside its column id, so an improvement made earlier in the iteration is used at once (read once per
  chunk, meshes needed twice the relax attempts). The load balance of the Workfront Sweep's advance, within a
  block, without the virtual warps' idle lanes on short lists. After a block's first chunk it claims the next free
  one from a counter, so a block held up by long lists takes fewer. With it the iteration kernel runs 8 blocks per
  SM (`blocks_per_sm` 0, automatic; faster than 4 despite a few spills). Off: the paper's design (virtual warps,
  when `virtual_warps` is on). `chunk_entries` (256, at most a block) caps a chunk: smaller chunks balance skewed
  degrees better but add a block scan per chunk, which costs more on R-MAT than it saves on the power-law graphs.
- `grid_expansion` (ours, for Hopper; "auto" by default): the Workfront Sweep's load balance over the whole grid,
  on the generic advance of `sssp_bench/gpu/advance.cuh`. Frontier entries carry the exclusive prefix sum of the
  frontier's out-degrees (the packed queues of `queue.cuh` there: a block's pushes reserve slots and arcs with one
  atomicAdd on an (entries << shift | arcs) queue word), and each iteration cuts the frontier's arcs into tiles of
  512 dealt to the blocks, 2 arcs per thread whatever the degrees; relaxations stay H-BF's (classes, packed words,
  the tail's distance read per arc). It replaces the block expansion, the virtual warps and dynamic parallelism (no
  vertex is too heavy for it), and needs dedup64 (a frontier must hold each vertex once: at most n entries and m
  arcs). "on", "off", or "auto": on when dedup64 is and some vertex has more than `tdp` arcs, where dynamic
  parallelism would act (counter `grid_expansion` says which ran): there it wins, while without heavy vertices the
  block expansion's pushes (warp slots, no prefix sums, no degree read behind the atomic) are cheaper than the
  tiles' bookkeeping.
- `dynamic_parallelism` (section 5.3), for frontier vertices of degree > `tdp` (4096): "child" launches a child
  kernel per such vertex from the device (CUDA dynamic parallelism, CDP2: the module is compiled with -rdc=true
  and linked with cudadevrt; the parent never waits, the children relax and enqueue and the stream's next
  kernel starts after them; beyond the device's pending-launch pool the vertex goes to the cooperative list
  instead). "cooperative": the vertex is listed and a kernel launched right after the iteration spreads each
  listed vertex's arcs over the whole grid (load-balanced: the listed vertices' arcs, concatenated, are cut into
  tiles dealt round-robin to the blocks). "off": the virtual warp expands it like any other vertex.

A reachable negative cycle is reported as NegativeCycleError: the frontier is still non-empty after n iterations,
or a candidate fell below the packed field's `low` (dedup64) or DIST_FLOOR (without). Distances int64 on the
device, unreached = INT64_MAX; float32 weights are refused for now.
Counters: `iterations` (frontier steps; the first is the source's) and `grid_expansion` (1 when it ran, else 0)
always; `heavy_vertices` (frontier entries above tdp, over the solve) with count_relaxations; then also relax
attempts (arcs relaxed, skipped classes not counted) and relaxations (distance improvements) in total and per
iteration (the sink kernel's share is added to the last iteration), and `frontier_sizes` per iteration.
The measurements behind the defaults: experiments/hbf/notes/hbf.md.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from ..errors import ConfigError, UnsupportedGraphError
from ..gpu import runtime
from ..gpu.queues import TILE, packed_queue_shift, tiles_per_queue
from .base import Parameter, SolveResult
from ..kernels.arrays import check_source
from .gpu_common import (
    BLOCK,
    COUNT_RELAXATIONS,
    GRAPHS,
    W_ATTEMPTS,
    W_RELAXATIONS,
    CumulativeCounts,
    GpuSsspBase,
    packing_bounds,
)

# flags of hbf.cu
CLASSIFY, DEDUP, COALESCE, HINTS, DP_COOP, DP_CHILD, COUNT, VWARPS, BLOCKX = 1, 2, 4, 8, 16, 32, 64, 128, 256
QUEUE0, HEAVY0, OVERFLOW, CHILD0, BASE, ROUNDS, CAPPED = 8, 11, 13, 14, 16, 17, 18
STATUS_WORDS = 24
"""The status words of hbf.cu: common.cuh's 8, the three rotating frontier counters, the heavy-list and child
counters by parity, the overflow flag, the iteration base, the non-empty iteration count and the cap flag."""
MAX_VERTICES_PER_VW = 32
"""The paper's vertices of work per (virtual) warp (section 5.2)."""
DEFAULT_PENDING_LAUNCHES = 2048
"""The device runtime's default pending-launch pool (cudaLimitDevRuntimePendingLaunchCount)."""
LIMIT_PENDING_LAUNCH_COUNT = 0x04
"""cudaLimitDevRuntimePendingLaunchCount."""
CDP_OPTIONS = ("-rdc=true", "-DHBF_CDP")
SCAN_TILE = BLOCK * 8
"""Vertices per block of hbf.cu's sink prefix sum (HBF_SCAN_TILE)."""

DYNAMIC_PARALLELISM = ("off", "child", "cooperative")
GRID_EXPANSION = ("off", "on", "auto")
BATCH_SIZES = (16, 32, 64)
"""Iterations per batch (one status readback each, ~30-40 us: the copy, the host's check, the next launch);
iterations after the frontier empties cost a launch each (~2 us). Growing to 64 saves readbacks on the
high-diameter graphs; starting at 16 instead of 1, 2, 4, 8 saves the first four readbacks for at most 15 empty
iterations (experiments/hbf/notes/hbf.md)."""


def previous_power_of_two(value: int) -> int:
    return 1 << (max(int(value), 1).bit_length() - 1)


def virtual_warp_shape(size: int, resident_threads: int) -> tuple[int, int]:
    """(log2 of the virtual warp size, frontier entries per virtual warp) for a frontier of `size` entries, as
    hbf_iteration computes them on the device: size = previous power of two of resident / size in [4, 32]
    (section 5.2); entries per virtual warp as many as cover the frontier in one pass of the grid, at most 32."""
    width = min(32, max(4, previous_power_of_two(resident_threads // max(size, 1))))
    per_vw = min(MAX_VERTICES_PER_VW, max(1, -(-size * width // max(resident_threads, 1))))
    return width.bit_length() - 1, per_vw


class HBF(GpuSsspBase):
    name = "hbf"
    description = (
        "H-BF (Busato & Bombieri, Kepler) on CuPy/CUDA: frontier Bellman-Ford with edge classification, 64-bit "
        "atomic duplicate removal, coalesced warp enqueue, cache modifiers, dynamic virtual warps and dynamic "
        "parallelism for heavy vertices (child kernels or a cooperative expansion); on Hopper by default a block- "
        "or grid-wide load-balanced expansion instead. Negative weights OK."
    )
    parameters: ClassVar[dict[str, Parameter]] = {
        "count_relaxations": COUNT_RELAXATIONS,
        "edge_classification": Parameter(
            bool, True, "mark each arc's class in its column id: skip self-loops, plain stores into in-degree-1 "
            "vertices, out-degree-0 vertices settled once at the end, the source's arcs written directly"),
        "dedup64": Parameter(
            bool, True, "distance and iteration packed in one 64-bit word and one atomicMin: no duplicate in a "
            "frontier"),
        "coalesced_enqueue": Parameter(
            bool, True, "enqueue through per-warp slots in shared memory (warp-shuffle prefix sum), one atomicAdd "
            "per warp"),
        "virtual_warps": Parameter(
            bool, True, "dynamic virtual warps of 4-32 lanes sized by the frontier each iteration; off: one thread "
            "per frontier vertex"),
        "block_expansion": Parameter(
            bool, True, "ours, for Hopper (replaces virtual_warps when on): each block expands a chunk of frontier "
            "entries together, a block scan of their degrees dealing the chunk's arcs evenly to its threads; off: "
            "the paper's design"),
        "grid_expansion": Parameter(
            str, "auto", "ours, for Hopper (replaces block_expansion, virtual_warps and dynamic parallelism when on): "
            "frontier entries carry the prefix sum of their out-degrees and each iteration deals the frontier's arcs "
            "to the whole grid in equal tiles (the Workfront Sweep's load balance). 'on' needs dedup64; 'auto': on "
            "when dedup64 is and some vertex has more than tdp arcs (where dynamic parallelism would act)",
            choices=GRID_EXPANSION),
        "cache_hints": Parameter(bool, True, "__ldcs for frontier and offsets, __ldg for arcs, __ldcg for distances"),
        "dynamic_parallelism": Parameter(
            str, "cooperative", "frontier vertices of degree > tdp: 'child' kernels (CUDA dynamic parallelism), a "
            "'cooperative' grid-wide expansion, or 'off'", choices=DYNAMIC_PARALLELISM),
        "tdp": Parameter(int, 4096, "the degree above which dynamic parallelism takes a frontier vertex"),
        "vertices_per_vw": Parameter(
            int, 1, "frontier entries per virtual warp run, grid-stride: k > 0 = k each (1 measured fastest on an "
            "H200: adjacent virtual warps read adjacent entries); 0 = as many as cover the frontier in one pass of "
            "the one-wave grid (1 while the frontier fits, at most the paper's 32)"),
        "blocks_per_sm": Parameter(
            int, 0, "the iteration kernel's __launch_bounds__ minimum blocks per SM (caps its registers); the grid "
            "is one wave at the occupancy it really gets. 0: 8 with block_expansion (measured faster despite a few "
            "spills), else 4 (no spills)"),
        "chunk_entries": Parameter(
            int, 256, "block_expansion: frontier entries a block claims at a time, at most (fewer on a small "
            "frontier); smaller chunks balance skewed degrees better, at a block scan per chunk",
            choices=(32, 64, 128, 256)),
        "graphs": GRAPHS,
    }
    cu_file = "hbf.cu"
    status_words = STATUS_WORDS

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        if self.params["vertices_per_vw"] < 0:
            raise ConfigError(f"{self.name} parameter 'vertices_per_vw' must be 0 (auto) or positive")
        if not 0 <= self.params["blocks_per_sm"] <= 8:
            raise ConfigError(f"{self.name} parameter 'blocks_per_sm' must be 0 (automatic) or 1 to 8, got "
                              f"{self.params['blocks_per_sm']}")
        # the parameters stay as given (results record them); 0 resolves here
        self.blocks_per_sm = self.params["blocks_per_sm"] or (8 if self.params["block_expansion"] else 4)
        if self.params["tdp"] < 1:
            raise ConfigError(f"{self.name} parameter 'tdp' must be at least 1, got {self.params['tdp']}")
        dedup = self.params["dedup64"]
        if self.params["grid_expansion"] == "on" and not dedup:
            raise ConfigError(f"{self.name} parameter 'grid_expansion' needs dedup64: true (its frontier entries carry "
                              "degree prefix sums, so a frontier must hold each vertex at most once)")
        self.grid = self.params["grid_expansion"] == "on"  # "auto" resolves in prepare, from the degrees
        # marked column ids 4, sink in-arcs up to 8; without dedup the frontiers and heavy list grow with m
        self.per_arc_bytes = (12 if self.params["edge_classification"] else 0) + (0 if dedup else 12)

    # -- prepare ------------------------------------------------------------------------------------------------

    def prepare(self, graph) -> None:
        if self.params["edge_classification"] and graph.n >= 2**30:
            raise UnsupportedGraphError(
                f"{self.name}: edge_classification keeps two class bits in each int32 column id, so n must be below "
                f"2^30 (n={graph.n}); set edge_classification: false")
        floats = graph.weights is not None and np.asarray(graph.weights).dtype.kind == "f"
        if self.params["dedup64"] and not floats:  # float weights: the base class refuses them
            self.tag_bits = max(1, int(graph.n).bit_length())
            self.low, high = packing_bounds(graph)
            field = 64 - self.tag_bits
            if high - self.low >= (1 << field) - 1:
                raise UnsupportedGraphError(
                    f"{self.name}: dedup64 packs distance and iteration in 64 bits: distances may span "
                    f"[{self.low}, {high}], which needs {(high - self.low).bit_length()} bits, but only {field} are "
                    f"left beside the {self.tag_bits}-bit iteration number (n={graph.n}); set dedup64: false")
        else:
            self.tag_bits, self.low = 1, 0
        self.host_degrees = np.asarray(graph.out_degrees())
        self.max_degree = int(self.host_degrees.max()) if graph.n else 0
        # grid expansion: queue.cuh's packed queue words (entries << shift | arcs)
        self.shift = packed_queue_shift(graph.n, graph.m)
        packable = self.shift is not None
        if self.params["grid_expansion"] == "auto":
            self.grid = self.params["dedup64"] and packable and self.max_degree > self.params["tdp"]
        elif self.grid and not packable:
            raise UnsupportedGraphError(
                f"{self.name}: grid_expansion packs a frontier's entries and arcs in one 64-bit word, which "
                f"n={graph.n} and m={graph.m} overflow; set grid_expansion: 'off'")
        # distances 8, packed words 8, frontiers 2 x 4, heavy list 4, parallel-arc flags 1, sinks ~12, and the grid
        # expansion's degree prefix sums 2 x 8
        self.per_vertex_bytes = 8 + (8 if self.params["dedup64"] else 0) + 12 + 1 + 12 + (16 if self.grid else 0)
        super().prepare(graph)

    def prepare_device(self) -> None:
        cp, graph, dgraph = self.cp, self.graph, self.dgraph
        n, m = graph.n, graph.m
        params = self.params
        options = (f"-DHBF_MIN_BLOCKS={self.blocks_per_sm}", f"-DHBF_CHUNK_ENTRIES={params['chunk_entries']}")
        if params["dynamic_parallelism"] == "child":
            options = (*CDP_OPTIONS, *options)
        try:  # child: relocatable device code linked with the device runtime (cudadevrt)
            self.module = runtime.load_module(Path(__file__).with_name(self.cu_file), options=options)
        except Exception as error:
            if params["dynamic_parallelism"] != "child":
                raise
            raise UnsupportedGraphError(
                f"{self.name}: dynamic_parallelism='child' needs CUDA dynamic parallelism, but compiling and "
                f"linking with -rdc=true failed here ({type(error).__name__}: {str(error)[:300]}); use "
                f"'cooperative'") from error
        self.kernels = {name: self.module.function(name) for name in (
            "hbf_init", "hbf_source", "hbf_iteration", "hbf_heavy", "hbf_unpack", "hbf_settle_sinks", "hbf_in_degrees",
            "hbf_mark", "hbf_parallel_arcs", "hbf_sink_tile_sums", "hbf_sink_tile_offsets", "hbf_sink_places",
            "hbf_sink_arcs", "hbf_bump_base", "hbf_grid_init", "hbf_grid_source", "hbf_grid_iteration")}
        self.resident = runtime.resident_threads()
        self.wave_blocks = max(1, self.resident // BLOCK)
        self.iteration_blocks = self._one_wave(self.kernels["hbf_iteration"])
        self.heavy_blocks = self._one_wave(self.kernels["hbf_heavy"])
        self.flags = (
            (CLASSIFY if params["edge_classification"] else 0) | (DEDUP if params["dedup64"] else 0)
            | (COALESCE if params["coalesced_enqueue"] else 0) | (HINTS if params["cache_hints"] else 0)
            | (COUNT if self.counting() else 0) | (VWARPS if params["virtual_warps"] else 0)
            | (BLOCKX if params["block_expansion"] else 0)
            | {"off": 0, "cooperative": DP_COOP, "child": DP_CHILD}[params["dynamic_parallelism"]]
        )
        self.heavy_kernel = (bool(self.flags & (DP_COOP | DP_CHILD)) and self.max_degree > params["tdp"]
                             and not self.grid)
        self.capacity = max(n if params["dedup64"] else max(n, m) + n, 1)
        self.frontiers = cp.empty(2 * self.capacity, dtype=np.int32)
        if self.grid:  # each frontier half's degree prefix sums and tile owners (queue.cuh)
            self.tiles_per_queue = tiles_per_queue(m)
            self.starts = cp.empty(2 * self.capacity, dtype=np.int64)
            self.tile_first = cp.empty(2 * self.tiles_per_queue, dtype=np.int32)
            self.grid_blocks = self._one_wave(self.kernels["hbf_grid_iteration"])
        self.heavy = cp.empty(self.capacity, dtype=np.int32) if self.heavy_kernel else self.frontiers
        self.info = cp.empty(n, dtype=np.uint64) if params["dedup64"] else self.dist
        self.child_limit = DEFAULT_PENDING_LAUNCHES
        if self.flags & DP_CHILD:
            self.child_limit = self._raise_pending_launch_limit()
        self.columns = dgraph.column_ids
        self.sink_count = 0
        self.source_has_parallel_arcs = np.zeros(n, dtype=bool)
        if params["edge_classification"] and m > 0:
            self._mark()
        self.batch_graphs = runtime.BatchGraphs(self.name)
        self._capture_graphs()

    def _one_wave(self, kernel) -> int:
        """Blocks of `kernel` the device holds at once: SMs x the blocks per SM its registers, shared memory and
        threads allow (a grid of more would run in a second wave, starving the first's tail)."""
        attributes = runtime.device_attributes()
        sms = int(attributes.get("MultiProcessorCount", 1))
        per_sm = int(attributes.get("MaxThreadsPerMultiProcessor", 2048)) // BLOCK
        registers = int(getattr(kernel, "num_regs", 0) or 0)
        if registers:
            per_warp = -(-registers * 32 // 256) * 256  # registers are allocated per warp in units of 256
            registers_per_sm = int(attributes.get("MaxRegistersPerMultiprocessor", 65536))
            per_sm = min(per_sm, registers_per_sm // (per_warp * BLOCK // 32))
        shared = int(getattr(kernel, "shared_size_bytes", 0) or 0)
        if shared:
            per_sm = min(per_sm, int(attributes.get("MaxSharedMemoryPerMultiprocessor", 233472)) // (shared + 1024))
        return sms * max(per_sm, 1)

    def _raise_pending_launch_limit(self) -> int:
        """Children per iteration: at most the heavy vertices (each once per frontier with dedup64); the device
        runtime's pending-launch pool is raised to that, if the driver lets us. Returns the limit kernels use."""
        wanted = int((self.host_degrees > self.params["tdp"]).sum()) + 64
        if wanted <= DEFAULT_PENDING_LAUNCHES:
            return DEFAULT_PENDING_LAUNCHES
        wanted = min(wanted, 1 << 16)
        try:
            self.cp.cuda.runtime.deviceSetLimit(LIMIT_PENDING_LAUNCH_COUNT, wanted)
            return int(self.cp.cuda.runtime.deviceGetLimit(LIMIT_PENDING_LAUNCH_COUNT))
        except Exception:  # noqa: BLE001 - any refusal leaves the default pool, and the overflow goes cooperative
            return DEFAULT_PENDING_LAUNCHES

    def _mark(self) -> None:
        """The marking phase (section 4.1) and what the source and sink classes need: the marked column ids,
        the sinks' in-arcs grouped by sink, and which vertices have parallel out-arcs."""
        cp, graph, dgraph = self.cp, self.graph, self.dgraph
        n, m = graph.n, graph.m
        columns = dgraph.column_ids[:m]
        in_degree = cp.zeros(n, dtype=np.int64)
        runtime.launch(self.kernels["hbf_in_degrees"], runtime.blocks_for(m, BLOCK, cap=65536), BLOCK,
                       (columns, np.int64(m), in_degree))
        self.columns = cp.empty(m, dtype=np.int32)
        runtime.launch(self.kernels["hbf_mark"], runtime.blocks_for(m, BLOCK, cap=65536), BLOCK,
                       (dgraph.row_offsets, columns, *self.weight_args(), np.int64(n), np.int64(m), in_degree,
                        self.columns))
        self._find_parallel_arcs(columns)
        self._group_sink_arcs(in_degree)
        del in_degree
        self.cp.get_default_memory_pool().free_all_blocks()

    def _find_parallel_arcs(self, columns) -> None:
        """source_has_parallel_arcs: which vertices have two arcs to one head (hbf_parallel_arcs' hash set)."""
        cp, dgraph = self.cp, self.dgraph
        n, m = self.graph.n, self.graph.m
        slots = cp.zeros(1 << max(1, (2 * m - 1).bit_length()), dtype=np.uint64)
        flags = cp.zeros(n, dtype=np.uint8)
        runtime.launch(self.kernels["hbf_parallel_arcs"], runtime.blocks_for(m, BLOCK, cap=65536), BLOCK,
                       (dgraph.row_offsets, columns, np.int64(n), np.int64(m), slots, np.uint64(slots.size - 1),
                        flags))
        self.source_has_parallel_arcs = flags.get().astype(bool)

    def _group_sink_arcs(self, in_degree) -> None:
        """The sinks in vertex order (`sinks`), their in-arcs' tails and weights grouped by sink (`sink_tails`,
        `sink_weights`), sink k's at [sink_offsets[k], sink_offsets[k + 1]): a prefix sum over the vertices in
        three kernels, then one thread per arc. `in_degree` becomes the arcs' cursor."""
        cp, dgraph = self.cp, self.dgraph
        n, m = self.graph.n, self.graph.m
        tiles = -(-n // SCAN_TILE)
        tile_sums = cp.empty(2 * tiles, dtype=np.int64)
        totals = cp.empty(2, dtype=np.int64)
        runtime.launch(self.kernels["hbf_sink_tile_sums"], tiles, BLOCK,
                       (dgraph.row_offsets, in_degree, np.int64(n), tile_sums))
        runtime.launch(self.kernels["hbf_sink_tile_offsets"], 1, BLOCK, (tile_sums, np.int64(tiles), totals))
        count, arcs = (int(value) for value in totals.get())
        self.sink_count = count
        self.sinks = cp.empty(max(count, 1), dtype=np.int32)
        self.sink_offsets = cp.empty(count + 1, dtype=np.int64)
        runtime.launch(self.kernels["hbf_sink_places"], tiles, BLOCK,
                       (dgraph.row_offsets, in_degree, np.int64(n), tile_sums, np.int64(count), np.int64(arcs),
                        self.sinks, self.sink_offsets, in_degree))
        self.sink_tails = cp.zeros(max(arcs, 1), dtype=np.int32)
        self.sink_weights = cp.zeros(1 if dgraph.unit_weights else max(arcs, 1), dtype=np.int32)
        if arcs:
            runtime.launch(self.kernels["hbf_sink_arcs"], runtime.blocks_for(m, BLOCK, cap=65536), BLOCK,
                           (dgraph.row_offsets, self.columns, *self.weight_args(), np.int64(n), np.int64(m), in_degree,
                            self.sink_tails, self.sink_weights))

    # -- solve ----------------------------------------------------------------------------------------------------

    def common_args(self) -> tuple:
        weights, unit = self.weight_args()
        return (self.dgraph.row_offsets, self.columns, weights, unit, self.info, np.int64(self.capacity), self.words,
                np.int32(self.flags), np.int32(self.tag_bits), np.int64(self.low))

    def first_iteration(self) -> int:
        """1 when hbf_source runs iteration 0 (edge classification's source class), else 0."""
        return 1 if self.flags & CLASSIFY else 0

    def solve(self, source: int) -> SolveResult:
        source = check_source(self.graph, source)
        n = self.graph.n
        first = self.first_iteration()
        runtime.launch(self.kernels["hbf_init"], runtime.blocks_for(n, BLOCK, cap=4096), BLOCK, (
            self.info, np.int64(n), np.int64(source), np.int32(self.flags), np.int32(self.tag_bits),
            np.int64(self.low), self.frontiers, self.words, np.int32(first)))
        degree = int(self.host_degrees[source])
        if self.grid and not first:
            runtime.launch(self.kernels["hbf_grid_init"], runtime.blocks_for(degree // TILE + 1, BLOCK, cap=4096),
                           BLOCK, (self.words, self.starts, self.tile_first, np.int32(self.shift), np.int64(degree)))
        if first and degree:
            fresh = np.int32(0 if self.source_has_parallel_arcs[source] else 1)
            if self.grid:
                runtime.launch(self.kernels["hbf_grid_source"], runtime.blocks_for(degree, TILE, cap=self.wave_blocks),
                               BLOCK, (*self.common_args(), *self.grid_args(), np.int32(source), fresh))
            else:
                runtime.launch(self.kernels["hbf_source"], runtime.blocks_for(degree, BLOCK, cap=self.wave_blocks),
                               BLOCK, (*self.common_args(), self.frontiers, np.int32(source), fresh))
        return self.run_rounds(source)

    def grid_args(self) -> tuple:
        """The grid expansion's frontier arguments: frontiers, starts, tile owners, tiles per half, the shift."""
        return (self.frontiers, self.starts, self.tile_first, np.int64(self.tiles_per_queue), np.int32(self.shift))

    def frontier_size(self, queue_word: int) -> int:
        """Entries in a frontier, from its queue word (packed with the arcs under the grid expansion)."""
        return int(queue_word) >> self.shift if self.grid else int(queue_word)

    def iteration_kernels(self, round_offset: np.int32) -> list[tuple[Any, int, tuple]]:
        """One iteration's kernels (iteration = the base word + round_offset): (kernel, grid, arguments)."""
        common = self.common_args()
        cap = np.int64(self.graph.n)
        if self.grid:
            return [(self.kernels["hbf_grid_iteration"], self.grid_blocks, (
                *common, *self.grid_args(), round_offset, cap))]
        kernels = [(self.kernels["hbf_iteration"], self.iteration_blocks, (
            *common, self.frontiers, round_offset, np.int64(self.params["vertices_per_vw"]),
            np.int64(self.params["tdp"]), self.heavy, np.int64(self.child_limit), cap))]
        if self.heavy_kernel:
            kernels.append((self.kernels["hbf_heavy"], self.heavy_blocks, (
                *common, self.frontiers, round_offset, self.heavy, cap)))
        return kernels

    def _capture_graphs(self) -> None:
        """With `graphs` (not counting, no child kernels): one CUDA graph per batch size, each `size` iterations
        (round arguments 0 .. size - 1) and the bump of the base word by `size`."""
        if not self.params["graphs"] or self.counting() or self.flags & DP_CHILD:
            return

        def record(size: int) -> None:
            for offset in range(size):
                for kernel, grid, args in self.iteration_kernels(np.int32(offset)):
                    runtime.captured_launch(kernel, grid, BLOCK, args)
            runtime.captured_launch(self.kernels["hbf_bump_base"], 1, 32, (self.words, np.int64(size)))

        self.batch_graphs.capture(BATCH_SIZES, record)

    def launch_batch(self, launched: int, size: int) -> None:
        """Iterations first + launched .. first + launched + size - 1: a graph replay, or plain launches (the
        base word then stays at the first iteration and the round argument is absolute)."""
        if self.batch_graphs:
            self.batch_graphs.replay(size)
            return
        for offset in range(launched, launched + size):
            for kernel, grid, args in self.iteration_kernels(np.int32(offset)):
                runtime.launch(kernel, grid, BLOCK, args)

    def run_rounds(self, source: int) -> SolveResult:
        n = self.graph.n
        first = self.first_iteration()
        counting = self.counting()
        counts = CumulativeCounts() if counting else None
        sizes: list[int] = []
        heavy_entries = 0
        words = None
        if first and counting:  # iteration 0 (the source's arcs) ran in solve
            words = self.read_words(source)
            counts.add(words)
            sizes.append(1)
        launched, batch = 0, 0
        while True:
            if counting and words is not None and int(words[QUEUE0 + (first + launched) % 3]) == 0:
                return self.finish(int(words[ROUNDS]), counts, sizes, heavy_entries)
            size = 1 if counting else BATCH_SIZES[batch]
            self.launch_batch(launched, size)
            launched += size
            words = self.read_words(source)
            if words[OVERFLOW]:
                raise RuntimeError(f"{self.name}: a frontier outgrew its {self.capacity} entries (dedup64 off)")
            if words[CAPPED]:
                self.negative_cycle(source, f"the frontier was still non-empty after n={n} iterations")
            if counting:
                iteration = first + launched - 1
                sizes.append(self.frontier_size(words[QUEUE0 + iteration % 3]))
                counts.add(words)
                heavy_entries += int(words[HEAVY0 + (iteration & 1)]) + min(int(words[CHILD0 + (iteration & 1)]),
                                                                            self.child_limit)
            elif int(words[QUEUE0 + (first + launched) % 3]) == 0:
                return self.finish(int(words[ROUNDS]), counts, sizes, heavy_entries)
            else:
                batch = min(batch + 1, len(BATCH_SIZES) - 1)

    def finish(self, iterations: int, counts: CumulativeCounts | None, sizes: list[int],
               heavy_entries: int) -> SolveResult:
        """The distances out of the packed words, then the sinks (section 4.1's extra kernel)."""
        n = self.graph.n
        if self.params["dedup64"]:
            runtime.launch(self.kernels["hbf_unpack"], runtime.blocks_for(n, BLOCK, cap=4096), BLOCK,
                           (self.info, self.dist, np.int64(n), np.int32(self.tag_bits), np.int64(self.low)))
        if self.sink_count:
            runtime.launch(self.kernels["hbf_settle_sinks"], runtime.blocks_for(self.sink_count, BLOCK, cap=4096),
                           BLOCK, (self.dist, self.sinks, self.sink_offsets, self.sink_tails, self.sink_weights,
                                   np.int32(1 if self.dgraph.unit_weights else 0), np.int64(self.sink_count),
                                   self.words, np.int32(self.flags)))
        if counts is None:
            return self.result(iterations, [], [])
        words = self.readback.read()
        counts.attempts[-1] += int(words[W_ATTEMPTS]) - sum(counts.attempts)
        counts.relaxations[-1] += int(words[W_RELAXATIONS]) - sum(counts.relaxations)
        return self.result(iterations, counts.attempts, counts.relaxations, frontier_sizes=sizes,
                           heavy_vertices=heavy_entries)

    def result(self, iterations: int, attempts: list[int], relaxations: list[int], **extra: Any) -> SolveResult:
        """The base result, and counter `grid_expansion` always: 1 when the grid expansion ran (what 'auto'
        chose), else 0."""
        result = super().result(iterations, attempts, relaxations, **extra)
        result.counters["grid_expansion"] = int(self.grid)
        return result

    def teardown_device(self) -> None:
        for name in ("frontiers", "starts", "tile_first", "heavy", "info", "columns", "sinks", "sink_offsets",
                     "sink_tails", "sink_weights", "kernels"):
            if hasattr(self, name):
                setattr(self, name, None)
        self.batch_graphs = None  # teardown may follow a prepare that failed before creating it
