"""`bfs4k`: BFS-4K (Busato & Bombieri, "BFS-4K: an efficient implementation of BFS for Kepler GPU
architectures"), frontier BFS with the paper's techniques, each behind a switch (`bfs4k.cu`, `bfs4k_expand.cuh`).

Section 4: frontier propagation with two frontier buffers (F, F'), work O(V + E); a head is filtered (visited
check: its level still infinite) before it is written, and its level is set with a plain store, so two threads
may both find it unvisited (a duplicate in F'; Section 6 removes most). A level's vertices are kept in local
queues (registers, `local_queue` = 8 entries per thread) and written out every 8 arcs a thread examines.

Switches (bool, default True) and knobs (the paper's defaults and names):

- `warp_scan` (5.1): the two-level exclusive prefix sum that places the local queues in F': warp level with
  shuffles, block level over the warp totals (scanned by warp 0 with shuffles) and one atomicAdd per block. Off:
  a Hillis-Steele scan in shared memory per warp and a serial pass over the warp totals.
- `binary_scan` (5.1): when every lane of a warp holds 0 or 1 vertex (an O(1) check, __all_sync), the warp level
  is __ballot_sync + __popc.
- `virtual_warps`, `k1` = 4 (5.2): each frontier vertex is read by a virtual warp of nearest_pow2(resident
  threads / |F|) lanes, clamped to [k1, 32] (k1 a power of two); resident threads = the launched grid (multi-block
  kernel) or the block (single-block kernel). A virtual warp reads a batch of up to as many consecutive frontier
  vertices as it has lanes, lane j vertex j and its row offsets, and shares them by shuffles (the read side of
  Section 5.6, used at every width: the vertex reads of a batch are in flight together). Off: one thread per
  frontier vertex. A batch is shorter than the width when the frontier is too small to give every virtual warp
  a full one (`batch_span`: |F| / virtual warps, at least 1), so that every virtual warp gets a vertex; edge-discover
  chunks likewise: full batches whatever |F| would leave a small frontier of high-degree vertices to a few warps.
  But on a frontier of low-degree vertices, spreading a multi-block level only wakes more blocks. So the
  single-block kernel always spreads, and the multi-block kernel spreads only a level the single-block kernel
  handed over (its arc budget ran out) or on a graph whose `head_degree` (the mean out-degree of an arc's head:
  what a vertex reached through an arc expands) is at least `spread_degree` = 32 (not in the paper).
  k1 stays at the paper's 4: a larger k1 is faster on large low-diameter graphs and slower on road networks,
  whose single-block levels then walk k1 vertices per virtual warp one after the other. Set it per graph (a
  config's `graphs[].params`, as experiments/bfs4k/bfs4k-table2.yaml does).
- `dynamic_parallelism`, `k2` = 0.15 (percent of V), `k3` = 16 (5.3): a frontier vertex whose out-degree is at least
  that of the k2%-th highest-degree vertex (and at least k3 x block, one full child block) is given away by the
  thread that read it. "child": a child grid of ceil(degree / (k3 x block)) blocks of the parent's block size
  (CUDA dynamic parallelism, the module compiled with -rdc=true and linked with cudadevrt). Hopper's CDP2 has no
  device-side synchronisation, so nobody waits inside the level: children expand and enqueue into F' with the
  parent's counter, and the parent grid counts as finished only when they are, so the next kernel in the stream
  (the level bookkeeping) sees everything. At most 1024 children per level; more go the cooperative way.
  "cooperative": the vertex goes to a heavy list (one packed atomicAdd reserves its entry and its tiles) and a
  follow-up kernel expands the list, one block per tile of k3 x block arcs. "off": virtual warps take them.
- `heavy_claim` (not in the paper; default True, with dynamic_parallelism): a heavy vertex is given away once per
  level. A hub reached in one level by many blocks sits in F once per block (the hash tables are per block), and
  every copy would walk all its arcs again: on a Kronecker graph, several times the level's distinct arcs. The
  first copy stamps the vertex (atomicExch of the solve's stamp in a per-vertex int array) and takes it; later
  copies are dropped.
- `edge_discover`, `k4` = 2.0 (5.4): when |F| < resident threads / k4 (k4 = 0: never, as Section 7 uses it),
  threads are given arcs instead of vertices:
  a warp takes 32 frontier vertices, scans their degrees with shuffles and finds each lane's vertex by a
  shuffle binary search; the extended variant skips the search while the next 32 arcs all belong to the vertex
  that owned the previous step's last arc (medium and high degrees).
- `single_block`, `k5` = 1.0 (5.5, Figure 8): frontiers of at most FThreshold = 1024 x k5 vertices are expanded by
  one block of 1024 threads that keeps F and F' in shared memory and runs level after level in one launch, with
  block barriers between levels and no readback, for as long as the frontier stays at most FThreshold: it stops
  when the next frontier empties or outgrows the threshold (F' spills to global memory beyond FThreshold entries,
  and the multi-block kernel next in the same step expands it), or when a level goes multi-block: it holds a
  heavy vertex (the multi-block kernel has dynamic parallelism) or more than 32 x FThreshold out-arcs (not in the
  paper: a few hubs are not "limited parallelism", and one block would walk their arcs alone). Both are noticed
  while the level runs (degrees counted as vertices are read, one shared atomic per warp and round) and end it
  after the current round; the multi-block kernel then expands the whole level again on top of what F' holds
  (heads already reached are filtered out). Its shared memory is the paper's 48 KB: F and F' (FThreshold ints
  each), the kernel variables, and the hash table, nearest_pow2(48 KB - 2 x 4 x FThreshold - variables) bytes;
  FThreshold is capped so that at least 64 bytes of table remain. Larger frontiers go to the multi-block kernel:
  one level per launch over a grid of resident blocks (occupancy), grid-stride; blocks that get no frontier
  vertex skip the expansion, and the last block to finish moves to the next level (no bookkeeping kernel). k5 = 0
  or the switch off: multi-block only. With k5 = 1 a road network's frontiers (1000-2000 vertices) cross the
  threshold back and forth and most of its levels run multi-block, one launch each; k5 = 2 keeps them in the
  single block (the paper calibrates FThreshold per graph).
- `k6` = 128 (5.5): the multi-block kernel's block size (rounded up to a multiple of 32, at most 1024) and its hash
  table, nearest_pow2((shared memory per SM - variables) x k6 / max threads per SM) bytes, at least 64, at most
  the 48 KB of a block: the SM's shared memory shared by the blocks of k6 threads that fill it. A tiny k6 (1, 2)
  gives 8 or 16 entries: many collisions, no effect on the levels.
- `coalesced_writes`, `k7` = 10 (5.6): the induced coalescence of the writes to F': a warp holding at least k7
  queued vertices computes the minimum queue length with shuffles and writes that many rounds lane by lane (each
  a coalesced store), the rest at prefix-sum offsets. Fewer than k7: prefix-sum offsets only. (The read side of
  5.6 is part of the virtual warps, above.)
- `hash_dedup` (6): duplicate detection with a per-block hash table in shared memory of 64-bit words
  (vertex << 32 | thread id): write, read back, drop when another thread of the block wrote the same vertex. Of
  the threads racing on a vertex the last to write it keeps it, so no discovered vertex is lost; duplicates
  across blocks are not detected (as in the paper).
- `local_queue` = 8 (not a paper knob): the local queue length, i.e. the arcs a thread examines per round; a
  round takes its arcs, issues all their column loads, then all the heads' level loads, then filters, so its
  loads are in flight together. Then the queues are written out (the prefix sums above), or later:
- `deferred_flush` (not in the paper; default True): the queues are written out only after a round in which a thread
  of the block holds local_queue / 2 vertices or more (and at the end of a level, and before a hand-over); until
  then a warp takes local_queue minus its longest queue arcs a round. Writing out costs two block barriers and a
  reservation in F', most of a round's time in a level whose heads are mostly reached already.
- `graphs` (not in the paper): launch batches of steps as CUDA graphs captured in prepare (a few us per step
  instead of a Python launch per kernel); not with dynamic_parallelism "child" (plain launches there).
- `count_frontiers`: counters `frontier_sizes` (F entries per level, duplicates included) and `arcs_per_level`
  (their out-arcs), `child_grids`, `heavy_list_entries` (vertices given to the cooperative heavy kernel).

The host drives steps (single-block kernel, multi-block kernel, heavy kernel if any vertex is heavy; with child
grids also a level bookkeeping kernel) in batches of 2, 4, ... 64, reading the status words back once per batch:
every kernel reads the level and frontier sizes from the device, and a step with nothing to do returns at once.
A step is one multi-block level, or as many single-block levels as the frontier allows. Counters (with
`count_frontiers`): `single_block_launches` (single-block launches that expanded or handed over a level) and
`single_block_levels` (levels it expanded). F' never holds more than n entries without
duplicates; if duplicates overflow it, the search stalls and the host rebuilds F' exactly from the levels.

What these choices measured on an H200: experiments/bfs4k/notes/bfs4k.md.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from ..errors import ConfigError, UnsupportedGraphError
from ..gpu import runtime
from ..gpu.runtime import captured_launch
from .base import Parameter, SolveResult
from .gpu_bfs_common import COUNT_FRONTIERS, GpuBfsBase

# status words (bfs4k_expand.cuh)
B4_LEVEL, B4_SIZE0 = 8, 9  # frontier buffer b's size is word B4_SIZE0 + b
B4_HANDOFF, B4_EXPANDED, B4_HEAVY, B4_STALLED, B4_ARCS, B4_CHILDREN, B4_LEVELS_DONE, B4_CHILDREN_TOTAL = range(11, 19)
B4_BLOCKS_DONE, B4_SINGLE_RUNS, B4_SINGLE_LEVELS, B4_HEAVY_TOTAL = range(19, 23)

FLAG_BITS = {
    "warp_scan": 1, "binary_scan": 2, "virtual_warps": 4, "edge_discover": 8, "single_block": 16,
    "coalesced_writes": 32, "hash_dedup": 64,
}
F_DP_CHILD, F_DP_COOPERATIVE, F_COUNT, F_NARROW, F_HEAVY_CLAIM, F_DEFERRED_FLUSH = 128, 256, 512, 1024, 2048, 4096
F_SPREAD = 8192
NARROW_LIMIT = 2**31
"""F_NARROW (32-bit shuffles of arc indices and degree sums) when m and 32 x the largest out-degree are below it."""
SWITCHES = tuple(FLAG_BITS)
"""The technique switches, in the order of the paper's sections."""

SINGLE_THREADS = 1024
"""The single-block kernel's block (MaxThreadsPerBlock)."""
BLOCK_SHARED_BYTES = 48 * 1024
"""Shared memory a block gets without opting in (the paper's 48 KB)."""
VAR_BYTES = 4672
"""Shared bytes of the kernel variables (BlockScratch in bfs4k_expand.cuh, checked there by static_assert)."""
MIN_TABLE_BYTES = 64
MAX_REGISTERS = 80
"""--maxrregcount: the multi-block kernel needs about 94 registers, which holds 5 blocks of 128 threads per SM;
80 (a few bytes spilled to L1) holds 6, and more threads keep more of a round's loads in flight."""
BATCH_SIZES = (2, 4, 8, 16, 32, 64)
"""Steps per batch, one readback after each. From 2: the first step is nearly always the single-block kernel
handing over to the multi-block kernel, and a readback (the GPU idle while the host wakes up and launches the
next batch) costs more than a step that finds nothing to do (two or three empty kernels)."""
REBUILD_BLOCK = 256


def nearest_pow2_below(value: float) -> int:
    """The largest power of two <= value (1 for value < 2)."""
    value = int(value)
    return 1 << (value.bit_length() - 1) if value >= 1 else 1


def _switch(help_text: str) -> Parameter:
    return Parameter(bool, True, help_text)


def head_degree(cp, dgraph, n: int) -> float:
    """The mean out-degree of an arc's head, sum over v of in-degree(v) x out-degree(v) / m: what a vertex that
    BFS reaches through an arc has to expand, on average. The graph's mean degree on regular graphs (a road 3, a
    mesh 18-80); far above it on skewed ones (R-MAT stand-ins of com-youtube 572, of as-Skitter 1685)."""
    m = int(dgraph.column_ids.size)
    if m == 0:
        return 0.0
    # Summed over arcs as the out-degree of each arc's head: not cupy.bincount, whose first call in a process imports
    # cupyx and SciPy (0.3 to 0.5 s of every worker process's first bfs4k, measured on an H200 host)
    out_degrees = cp.diff(dgraph.row_offsets).astype(cp.int64)
    return float(out_degrees[dgraph.column_ids].sum()) / m


class Bfs4k(GpuBfsBase):
    name = "bfs4k"
    description = (
        "BFS-4K (Busato & Bombieri, CuPy/CUDA): frontier BFS with a two-level shuffle prefix sum (binary ballot "
        "variant), dynamic virtual warps, dynamic parallelism or cooperative blocks for heavy vertices, "
        "edge-discover, single-block (shared-memory, multi-level) and multi-block kernels, induced coalesced "
        "writes and shared-memory hash-table duplicate detection; knobs k1-k7 as in the paper."
    )
    parameters: ClassVar[dict[str, Parameter]] = {
        "k1": Parameter(int, 4, "minimum virtual warp size, a power of two in 1..32 (Section 5.2)"),
        "k2": Parameter(float, 0.15, "percent of the vertices, highest degree first, given to dynamic parallelism (5.3)"),
        "k3": Parameter(int, 16, "arcs per child thread: child grids have degree / (k3 x block) blocks (5.3)"),
        "k4": Parameter(float, 2.0, "edge-discover when frontier size < resident threads / k4 (5.4)"),
        "k5": Parameter(float, 1.0, "single-block kernel up to 1024 x k5 frontier vertices (5.5)"),
        "k6": Parameter(int, 128, "multi-block kernel block size, sizes its hash table (5.5, 6)"),
        "k7": Parameter(int, 10, "induced coalesced writes from k7 queued vertices per warp (5.6)"),
        "warp_scan": _switch("two-level prefix sum with warp shuffles (off: shared-memory scans) (5.1)"),
        "binary_scan": _switch("ballot/popc prefix sum when every lane holds 0 or 1 vertex (5.1)"),
        "virtual_warps": _switch("dynamic virtual warps, nearest_pow2(resident/|F|) in [k1, 32] (off: 1) (5.2)"),
        "edge_discover": _switch("threads on arcs by warp binary search, with the extended variant (5.4)"),
        "single_block": _switch("single-block multi-level kernel for small frontiers (5.5)"),
        "coalesced_writes": _switch("induced coalescence of the local-queue writes (5.6)"),
        "hash_dedup": _switch("duplicate detection with a shared-memory hash table (6)"),
        "dynamic_parallelism": Parameter(
            str, "cooperative", "heavy vertices: 'child' grids (CUDA dynamic parallelism), 'cooperative' blocks in a "
            "follow-up kernel, or 'off' (5.3)", choices=("off", "child", "cooperative")),
        "heavy_claim": Parameter(bool, True, "a heavy vertex is given away once per level, its other copies in F "
                                 "dropped (not in the paper; with dynamic_parallelism)"),
        "deferred_flush": Parameter(bool, True, "local queues written out once a thread holds local_queue / 2 "
                                    "vertices, not after every round (not in the paper)"),
        "spread_degree": Parameter(
            float, 32.0, "multi-block levels spread a small frontier over every virtual warp (batch_span) when a "
            "vertex reached through an arc has this many out-arcs on average (head_degree) or the single-block "
            "kernel handed the level over; 0: always (not in the paper)"),
        "local_queue": Parameter(int, 8, "local queue entries per thread: arcs a thread examines between two "
                                 "writes of the queues (BFS4K_Q)", choices=(4, 8, 16)),
        "graphs": Parameter(bool, True, "replay batches of steps as CUDA graphs (not with child grids)"),
        "count_frontiers": COUNT_FRONTIERS,
    }
    cu_file = "bfs4k.cu"
    per_vertex_bytes = 16  # levels, two frontier buffers, heavy claims: 4 each (heavy list, level log: small)

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        p = self.params
        if p["k1"] not in (1, 2, 4, 8, 16, 32):
            raise ConfigError(f"{self.name} parameter 'k1' must be a power of two in 1..32, got {p['k1']}")
        if p["k3"] < 1 or p["k6"] < 1 or p["k7"] < 0:
            raise ConfigError(f"{self.name}: k3 and k6 must be >= 1 and k7 >= 0")
        if p["k2"] < 0 or p["k4"] < 0 or p["k5"] < 0 or p["spread_degree"] < 0:
            raise ConfigError(f"{self.name}: k2, k4, k5 and spread_degree must be >= 0")

    # -- prepare ---------------------------------------------------------------------------------------------

    def prepare_device(self) -> None:
        cp, graph, p = self.cp, self.graph, self.params
        n = graph.n
        attributes = runtime.device_attributes()
        sms = int(attributes.get("MultiProcessorCount", 1))
        threads_per_sm = int(attributes.get("MaxThreadsPerMultiProcessor", 2048))
        shared_per_sm = int(attributes.get("MaxSharedMemoryPerMultiprocessor", 96 * 1024))

        self.dp = p["dynamic_parallelism"]
        options = (f"--maxrregcount={MAX_REGISTERS}", f"-DBFS4K_Q={p['local_queue']}")
        cu_path = Path(__file__).with_name(self.cu_file)
        if self.dp == "child":
            try:
                kernels = runtime.load_module(cu_path, options=(*options, "-rdc=true", "-DBFS4K_CDP=1"))
            except Exception as error:
                raise UnsupportedGraphError(
                    f"{self.name}: dynamic_parallelism='child' needs CUDA dynamic parallelism (-rdc=true, cudadevrt) "
                    f"through cupy.RawModule, which failed here: {type(error).__name__}: {str(error)[:300]}"
                ) from error
        else:
            kernels = runtime.load_module(cu_path, options=options)
        self.kernels = kernels
        self._single = kernels.function("bfs4k_single")
        self._multi = kernels.function("bfs4k_multi")
        self._heavy = kernels.function("bfs4k_heavy")
        self._next_level = kernels.function("bfs4k_next_level")
        self._start = kernels.function("bfs4k_start")
        self._rebuild_reset = kernels.function("bfs4k_rebuild_reset")
        self._rebuild = kernels.function("bfs4k_rebuild")

        # multi-block kernel: blocks of k6 threads, a hash table of the SM's share (Section 5.5)
        self.block = min(1024, max(32, -(-p["k6"] // 32) * 32))
        share = (shared_per_sm - VAR_BYTES) * p["k6"] / threads_per_sm
        table_bytes = min(max(nearest_pow2_below(share), MIN_TABLE_BYTES), BLOCK_SHARED_BYTES - VAR_BYTES)
        self.hash_entries = nearest_pow2_below(table_bytes // 8)
        self.grid = self.resident_blocks(self._multi, self.block, 8 * self.hash_entries, sms, threads_per_sm)

        # single-block kernel: F and F' in shared memory beside the table (Figure 8a)
        # At most n (the global buffers' capacity): the kernel copies F or F' (up to threshold entries, duplicates
        # included) to a global buffer of n entries when it hands a level over or spills, and the multi-block
        # kernel reads F[0, size) there; above n, buffer 0 ran into buffer 1 (F' over F) and buffer 1 past the end.
        room = BLOCK_SHARED_BYTES - VAR_BYTES - MIN_TABLE_BYTES
        self.threshold = min(int(SINGLE_THREADS * p["k5"]), room // 8, n) if p["single_block"] else 0
        single_table = nearest_pow2_below(BLOCK_SHARED_BYTES - VAR_BYTES - 8 * max(self.threshold, 0))
        self.single_entries = max(MIN_TABLE_BYTES // 8, single_table // 8)
        self.single_shared = 8 * self.single_entries + 8 * self.threshold

        # heavy vertices: the k2% highest degrees, at least one full child block of arcs (Section 5.3)
        degrees = np.asarray(graph.out_degrees(), dtype=np.int64)
        if self.dp != "off" and n > 0:
            rank = max(1, int(np.ceil(p["k2"] / 100.0 * n)))
            cutoff = int(-np.partition(-degrees, rank - 1)[rank - 1]) if rank <= n else 0
            self.heavy_degree = max(cutoff, p["k3"] * self.block, 1)
            heavy_count = int((degrees >= self.heavy_degree).sum())
        else:
            self.heavy_degree, heavy_count = int(np.iinfo(np.int64).max), 0
        self.heavy_count = heavy_count
        self.heavy_capacity = max(1, min(n, 2 * heavy_count + 1024))
        self.host_degrees = degrees

        flags = sum(bit for key, bit in FLAG_BITS.items() if p[key])
        if self.threshold < 1:
            flags &= ~FLAG_BITS["single_block"]
        flags |= {"child": F_DP_CHILD, "cooperative": F_DP_COOPERATIVE, "off": 0}[self.dp]
        if self.counting():
            flags |= F_COUNT
        claims = self.dp != "off" and heavy_count > 0 and p["heavy_claim"]
        if claims:
            flags |= F_HEAVY_CLAIM
        if p["deferred_flush"]:
            flags |= F_DEFERRED_FLUSH
        if head_degree(cp, self.dgraph, n) >= p["spread_degree"]:
            flags |= F_SPREAD
        if graph.m < NARROW_LIMIT and 32 * (int(degrees.max()) if n else 0) < NARROW_LIMIT:
            flags |= F_NARROW
        self.flags = flags
        self.capacity = n
        self.frontiers = cp.empty(2 * n, dtype=np.int32)
        self.heavy_vertices = cp.empty(self.heavy_capacity, dtype=np.int32)
        self.heavy_first_tile = cp.empty(self.heavy_capacity, dtype=np.int64)
        # per vertex the stamp of the solve that last gave it away; the stamp itself in the last slot (bfs4k_start)
        self.heavy_claims = cp.zeros(n + 1 if claims else 1, dtype=np.int32)
        self.stamp_index = np.int64(n if claims else -1)
        self.level_log = cp.zeros(2 * (n + 2) if self.counting() else 2, dtype=np.int64)
        dgraph = self.dgraph
        self.step_args = (
            dgraph.row_offsets, dgraph.column_ids, self.levels, self.frontiers, np.int64(self.capacity), self.words,
            self.level_log, self.heavy_vertices, self.heavy_first_tile, self.heavy_claims,
            np.int64(self.heavy_capacity), np.int64(self.heavy_degree), np.int32(flags), np.int32(p["k1"]),
            np.float32(p["k4"]), np.int32(p["k3"]), np.int32(p["k7"]), np.int64(max(self.threshold, 0)),
            np.int32(self.hash_entries), np.int32(self.hash_entries),
        )
        self.single_args = self.step_args[:-2] + (np.int32(self.single_entries), np.int32(self.hash_entries))
        self.graphs: dict[int, Any] = {}
        if p["graphs"] and self.dp != "child":
            self.capture_graphs()

    @staticmethod
    def resident_blocks(kernel, block: int, shared: int, sms: int, threads_per_sm: int) -> int:
        """Blocks of the multi-block grid: what the device holds at once (the occupancy API, else threads/SM)."""
        try:
            from cupy.cuda import driver

            per_sm = int(driver.occupancyMaxActiveBlocksPerMultiprocessor(kernel.ptr, block, shared))
        except Exception:  # noqa: BLE001 - no occupancy API in this CuPy: assume the thread limit
            per_sm = threads_per_sm // block
        return max(1, per_sm) * sms

    def step_launches(self) -> list[tuple[Any, int, int, tuple, int]]:
        """One step: (kernel, grid, block, args, shared bytes) for each of its kernels."""
        launches = []
        if self.flags & FLAG_BITS["single_block"]:
            launches.append((self._single, 1, SINGLE_THREADS, self.single_args, self.single_shared))
        launches.append((self._multi, self.grid, self.block, self.step_args, 8 * self.hash_entries))
        if self.dp != "off" and self.heavy_count > 0:  # no vertex is heavy enough: nothing to expand there
            launches.append((self._heavy, self.grid, self.block, self.step_args, 8 * self.hash_entries))
        if self.dp == "child":  # otherwise the multi-block (or heavy) kernel's last block moves to the next level
            launches.append((self._next_level, 1, 32,
                             (self.words, self.level_log, np.int64(self.capacity), np.int32(self.flags)), 0))
        return launches

    def capture_graphs(self) -> None:
        stream = self.cp.cuda.Stream(non_blocking=True)
        with stream:
            for size in BATCH_SIZES:
                stream.begin_capture()
                try:
                    for _ in range(size):
                        for kernel, grid, block, args, shared in self.step_launches():
                            if shared:
                                kernel((grid, 1, 1), (block, 1, 1), args, shared_mem=shared)
                            else:
                                captured_launch(kernel, grid, block, args)
                finally:
                    graph = stream.end_capture()
                self.graphs[size] = graph
        stream.synchronize()

    def launch_steps(self, size: int) -> None:
        if self.graphs:
            try:
                self.graphs[size].launch(stream=self.cp.cuda.get_current_stream())
            except Exception as error:
                raise runtime.KernelLaunchError(f"{self.name}: replaying a graph of {size} steps failed: {error}") \
                    from error
            if os.environ.get(runtime.SYNC_CHECK_ENV):
                self.synchronize()
            return
        launches = self.step_launches()
        for _ in range(size):
            for kernel, grid, block, args, shared in launches:
                runtime.launch(kernel, grid, block, args, shared_mem=shared)

    # -- solve -----------------------------------------------------------------------------------------------

    def run_levels(self, source: int) -> SolveResult:
        counting = self.counting()
        if self.host_degrees[source] == 0:  # nothing to expand: only the source is reached
            extra = {"frontier_sizes": [1], "arcs_per_level": [0], "child_grids": 0, "single_block_launches": 0,
                     "single_block_levels": 0, "heavy_list_entries": 0} if counting else {}
            return self.result(0, **extra)
        runtime.launch(self._start, 1, 32, (self.frontiers, self.words, np.int64(source), self.heavy_claims,
                                            self.stamp_index))
        batch, steps, n = 0, 0, self.graph.n
        while True:
            self.launch_steps(BATCH_SIZES[batch])
            steps += BATCH_SIZES[batch]
            words = self.readback.read()
            if words[B4_STALLED]:
                self.rebuild_frontier()
                continue
            level = int(words[B4_LEVEL])
            if int(words[B4_SIZE0 + (level & 1)]) == 0:
                break
            if steps > n + len(BATCH_SIZES) * BATCH_SIZES[-1]:
                raise RuntimeError(f"{self.name}: still expanding after {steps} steps (n={n}): a bug")
            batch = min(batch + 1, len(BATCH_SIZES) - 1)
        depth = int(words[B4_LEVELS_DONE])
        if not counting:
            return self.result(depth)
        log = self.level_log[: 2 * depth].get().reshape(-1, 2) if depth else np.zeros((0, 2), np.int64)
        return self.result(depth, frontier_sizes=[int(x) for x in log[:, 0]],
                           arcs_per_level=[int(x) for x in log[:, 1]],
                           child_grids=int(words[B4_CHILDREN_TOTAL] + words[B4_CHILDREN]),
                           single_block_launches=int(words[B4_SINGLE_RUNS]),
                           single_block_levels=int(words[B4_SINGLE_LEVELS]),
                           heavy_list_entries=int(words[B4_HEAVY_TOTAL]))

    def rebuild_frontier(self) -> None:
        """F' overflowed with duplicates: make it again from the levels (exact, no duplicates)."""
        n = self.graph.n
        runtime.launch(self._rebuild_reset, 1, 32, (self.words,))
        runtime.launch(self._rebuild, runtime.blocks_for(n, REBUILD_BLOCK, cap=4096), REBUILD_BLOCK,
                       (self.levels, np.int64(n), self.frontiers, np.int64(self.capacity), self.words))

    def teardown_device(self) -> None:
        self.frontiers = self.heavy_vertices = self.heavy_first_tile = self.heavy_claims = self.level_log = None
        self.graphs = {}
        self.step_args = self.single_args = ()
