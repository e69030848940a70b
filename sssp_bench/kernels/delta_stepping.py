"""Delta-stepping on the CPU (numba, parallel), and what the GPU delta-stepping variants share with it: the default
bucket width and the light-first arc order.

Meyer and Sanders' delta-stepping keeps tentative distances in buckets of width delta: bucket i holds the vertices
whose distance lies in [i x delta, (i + 1) x delta). It settles the smallest non-empty bucket, relaxing the arcs of
its vertices, which may put vertices back into the same bucket, until it stays empty; then the next non-empty bucket
is opened. Non-negative weights only: a distance below the current bucket is never final otherwise.

`run_delta_stepping` (cpu-delta-stepping) is the design of the GAP Benchmark Suite's `sssp` (Beamer, Asanovic and
Patterson; Dhulipala, Blelloch and Shun's bucket fusion), in numba:

- One persistent parallel region per solve: `delta_stepping_region` runs one worker per numba thread, and the
  workers meet at a spin barrier (kernels/atomics.py: LLVM atomics through numba intrinsics, since numba has none on
  the CPU). A `prange` region per step, the earlier design, cost microseconds per step, and a road graph takes
  hundreds to thousands of steps.
- A step: the workers claim the shared frontier CLAIM vertices at a time (an atomic cursor; fewer when the frontier
  is small) and relax every out-arc of each vertex still in the current bucket (one that has since moved to a lower
  bucket is stale and skipped). An improvement is an atomic min on the head's distance (on the int64 bits of float
  distances: non-negative doubles order as their bits do); the worker whose min won lists the head in its own
  bucket, so no two workers share a list and no list needs a lock.
- Bucket fusion: a worker then relaxes its own share of the current bucket at once, over and over, while it holds
  fewer than `fuse_limit` (FUSE_LIMIT, 1000 as GAPBS) vertices, without waiting for the others. Most of a road
  graph's work is done here, inside one worker, instead of in steps that end at barriers.
- Each worker offers its least non-empty bucket (an atomic min on a shared word); after a barrier each worker
  copies its list of that bucket into the shared frontier at a position reserved by an atomic add, and after a
  second barrier the next step begins. Two barriers a step, as GAPBS.
- A worker's buckets: linked lists of CHUNK-vertex chunks for the `window` buckets from the current one on (a power
  of two above max weight / delta, so an improvement lands inside it; at most MAX_WINDOW), and a far pile of
  (vertex, bucket) for later buckets, sorted into the lists when the window reaches them. Chunks come from one pool
  (an atomic counter hands them out; a worker keeps those it frees). A frontier that would overflow its capacity
  (max(n, m) vertices) leaves the rest in the workers' lists, and the bucket takes another step.
- Nothing grows during a solve: numba counts references (atomically) to an array variable assigned twice on every
  iteration of the loops around it, and to every array argument of a helper on each call, which cost 72% of a
  one-thread solve and would have all threads increment the shared arrays' one count. So the helpers run per vertex
  are compiled without reference counting (`_nrt=False`), and a worker that finds the pool or its far pile full
  raises the step's flag: every worker stops after that step's last barrier, and `run_delta_stepping` doubles what
  ran out and solves again (the room is kept for later solves; counter `reruns`).

Every arc of a vertex is relaxed when it is (no light/heavy split, as GAPBS): the split saves re-relaxing heavy arcs
of vertices that improve twice inside a bucket, and costs a second pass over every bucket. The counts of a solve
(steps, arcs examined, improvements) depend on the workers' timing; the distances do not. What was measured, on the
device host's 16 cores and here: experiments/cpu-baselines/README.md and its notes.

The default delta (`default_delta`) is the rule `near-far` uses (impls/near_far.py says why): C x average arc
weight / average out-degree, C = 32 on sparse graphs (average out-degree below 5: roads, meshes, grids, chains),
else 4; rounded and at least 1 for integer weights. A bucket then holds about a warp's worth of arcs per vertex on
sparse graphs, and stays narrow where low diameter would let wide buckets relax vertices again and again.
cpu-delta-stepping takes its own factors (impls/cpu_delta_stepping.py).

`light_first` reorders each vertex's arcs, light ones first, so a phase reads only its light arcs and the heavy
step only the heavy ones; the GPU variants upload the same order.
"""

from __future__ import annotations

import numba
import numpy as np
from numba import types
from numba.extending import overload

from ..errors import ConfigError
from ..graph.csr import CSRGraph
from .arrays import KernelArrays
from .atomics import (atomic_add, atomic_load, atomic_min, atomic_store, barrier_wait, claim_size, new_control,
                      raise_if_aborted, reset_control, to_bits, user_word)

SPARSE_DEGREE = 5.0
"""Average out-degree below which the default delta uses the warp-size factor (as near-far's)."""
SPARSE_FACTOR = 32
DENSE_FACTOR = 4


def default_delta(graph: CSRGraph, sparse_factor: float = SPARSE_FACTOR, dense_factor: float = DENSE_FACTOR):
    """C x average weight / average out-degree (C = sparse_factor below SPARSE_DEGREE, else dense_factor): an int
    of at least 1 for integer or unit weights, a positive float for float weights."""
    float_weights = graph.weights is not None and graph.weights.dtype.kind == "f"
    if graph.m == 0 or graph.n == 0:
        return 1.0 if float_weights else 1
    average_weight = 1.0 if graph.weights is None else float(np.mean(graph.weights, dtype=np.float64))
    average_degree = graph.m / graph.n
    factor = sparse_factor if average_degree < SPARSE_DEGREE else dense_factor
    delta = factor * average_weight / average_degree
    if float_weights:
        return delta if delta > 0 else 1.0
    return max(1, int(round(delta)))


def max_weight(graph: CSRGraph):
    """The largest arc weight (1 for an unweighted graph, 0 without arcs)."""
    if graph.m == 0:
        return 0
    if graph.weights is None:
        return 1
    return graph.weights.max().item()


@numba.njit(parallel=True, cache=True)
def _light_first_kernel(row_offsets, column_ids, weights, unit_weights, delta, light_end, columns_out, weights_out):
    n = len(row_offsets) - 1
    for u in numba.prange(n):
        begin, end = row_offsets[u], row_offsets[u + 1]
        light = begin
        for e in range(begin, end):  # light arcs in CSR order first ...
            w = 1 if unit_weights else weights[e]
            if w <= delta:
                columns_out[light] = column_ids[e]
                if not unit_weights:
                    weights_out[light] = weights[e]
                light += 1
        light_end[u] = light
        heavy = light
        for e in range(begin, end):  # ... then the heavy ones
            w = 1 if unit_weights else weights[e]
            if w > delta:
                columns_out[heavy] = column_ids[e]
                if not unit_weights:
                    weights_out[heavy] = weights[e]
                heavy += 1


def light_first(arrays: KernelArrays, delta) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """(light_end, column_ids, weights, heavy arcs): each row's arcs reordered light (weight <= delta) first, and
    light_end[u] the end of u's light arcs. Without a heavy arc the graph's own arrays are returned (no copy)."""
    n = arrays.n
    row_offsets = arrays.row_offsets
    weights = arrays.weights
    heavy_arcs = 0 if arrays.unit_weights or len(weights) == 0 else int(np.count_nonzero(weights > delta))
    if heavy_arcs == 0:
        return np.array(row_offsets[1:]), arrays.column_ids, weights, 0
    light_end = np.empty(n, np.int64)
    columns = np.empty(arrays.column_ids.shape, np.int32)
    reordered = np.empty(weights.shape, weights.dtype)
    _light_first_kernel(row_offsets, arrays.column_ids, weights, arrays.unit_weights,
                        np.float64(delta) if weights.dtype.kind == "f" else np.int64(delta),
                        light_end, columns, reordered)
    return light_end, columns, reordered, heavy_arcs


# ---------------------------------------------------------------------------------------------------------------
# The CPU solver: one persistent parallel region per solve
# ---------------------------------------------------------------------------------------------------------------

NO_BUCKET = 2**63 - 1
"""No bucket: the shared next bucket before any worker offers one, a worker's least bucket when it holds none."""

CHUNK = 128
"""Vertices per chunk of the bucket lists."""
CLAIM = 64
"""Frontier vertices a worker claims at a time (GAPBS's `schedule(dynamic, 64)`)."""
FUSE_LIMIT = 1000
"""A worker relaxes its own share of the current bucket at once, without a barrier, while it holds fewer vertices
than this (GAPBS's bucket fusion, kBinSizeThreshold)."""
MAX_WINDOW = 1 << 12
"""Most buckets a worker keeps as lists (those from the current one on); later ones go to its far pile."""

_BUCKET = (user_word(0), user_word(1))   # the bucket of step i is in _BUCKET[i & 1], the next one's in the other
_TAIL = (user_word(2), user_word(3))     # frontier length of step i (reserved by atomic adds, may exceed capacity)
_CURSOR = (user_word(4), user_word(5))   # the next frontier position to claim in step i
_LOG_FULL = user_word(6)                 # a step found no room in the per-step counters
_NEXT_CHUNK = user_word(7)               # chunks of the shared pool handed out so far
_POOL_FULL = (user_word(8), user_word(9))    # a worker found the pool empty in step i (_POOL_FULL[i & 1]): the
_FAR_FULL = (user_word(10), user_word(11))   # solve is run again with a larger one; likewise a full far pile
_CONTROL_WORDS = 12

# a worker's scalars (state[...])
_FREE = 0        # chunks on its free stack
_FAR = 1         # entries on its far pile
_FAR_MIN = 2     # least bucket on its far pile
_LISTED = 3      # vertices in its bucket lists
_FAR_PUSHES = 4  # entries it has put on its far pile

# per-worker statistics (stats[worker, ...])
STAT_ATTEMPTS, STAT_IMPROVEMENTS, STAT_FRONTIER, STAT_FUSED, STAT_STALE, STAT_STEPS, STAT_BUCKETS, STAT_FAR = range(8)
STATS = 8


def _below(distance, bucket, delta):
    """distance lies below bucket `bucket` (the vertex has moved to a lower bucket since it was listed)."""


@overload(_below)
def _below_overload(distance, bucket, delta):
    if isinstance(distance, types.Float):  # the very division that chose its bucket, not bucket x delta rounded
        return lambda distance, bucket, delta: np.int64(distance // delta) < bucket
    return lambda distance, bucket, delta: distance < bucket * delta


@numba.njit(cache=True, _nrt=False)
def _bucket_of(distance, delta):
    return np.int64(distance // delta)


@numba.njit(cache=True, _nrt=False)
def _push(v, bucket, window_start, window, pool, link, control, parity, free, state, head, tail, fill, count, far_v,
          far_b):
    """List v in its bucket: in the bucket's list while the bucket is within the window, else on the far pile. Out
    of room, it raises the step's flag and drops v (the solve is then run again with more room)."""
    if bucket - window_start >= window:
        at = state[_FAR]
        if at == len(far_v):
            atomic_store(control, _FAR_FULL[parity], 1)
            return
        far_v[at] = v
        far_b[at] = bucket
        state[_FAR] = at + 1
        state[_FAR_PUSHES] += 1
        if bucket < state[_FAR_MIN]:
            state[_FAR_MIN] = bucket
        return
    slot = bucket & (window - 1)
    last = tail[slot]
    if last < 0 or fill[slot] == CHUNK:  # a new chunk at the list's end: a freed one of this worker's, or the pool's
        if state[_FREE] > 0:
            state[_FREE] -= 1
            chunk = free[state[_FREE]]
        else:
            chunk = atomic_add(control, _NEXT_CHUNK, 1)
            if chunk >= len(link):
                atomic_store(control, _POOL_FULL[parity], 1)
                return
        link[chunk] = -1
        if last < 0:
            head[slot] = chunk
        else:
            link[last] = chunk
        tail[slot] = chunk
        fill[slot] = 0
        last = chunk
    pool[last, fill[slot]] = v
    fill[slot] += 1
    count[slot] += 1
    state[_LISTED] += 1


@numba.njit(cache=True, _nrt=False)
def _relax(u, du, window_start, window, row_offsets, column_ids, weights, unit_weights, delta, distances, bits,
           pool, link, control, parity, free, state, head, tail, fill, count, far_v, far_b):
    """Relax u's out-arcs from distance du: an atomic min on each improved head (on the bits of float distances),
    and the worker that improved it lists it in its bucket. Returns the improvements."""
    improvements = 0
    for e in range(row_offsets[u], row_offsets[u + 1]):
        v = column_ids[e]
        candidate = du + (1 if unit_weights else weights[e])
        if candidate < distances[v]:  # a plain read first: most arcs improve nothing
            candidate_bits = to_bits(candidate)
            if atomic_min(bits, v, candidate_bits) > candidate_bits:
                improvements += 1
                _push(v, _bucket_of(candidate, delta), window_start, window, pool, link, control, parity, free, state,
                      head, tail, fill, count, far_v, far_b)
    return improvements


@numba.njit(cache=True)
def delta_stepping_worker(worker, threads, row_offsets, column_ids, weights, unit_weights, delta, window, fuse_limit,
                          distances, bits, frontier, pool, link, far_capacity, control, stats, log_attempts,
                          log_improvements):
    """One worker of the persistent region (the module docstring says what a step does). Leaves its statistics in
    stats[worker]; with log arrays (count_relaxations), adds its arcs examined and improvements per step.

    No array variable is ever assigned twice here: numba would count references to it on every iteration of the
    loops around (atomic increments, which cost more than the relaxations). So nothing grows: the lists take chunks
    of the shared `pool`, and a worker out of chunks or far pile raises a flag; every worker then stops at the end
    of the step, and the caller runs the solve again with more room."""
    capacity = len(frontier)
    mask = window - 1
    free = np.empty(len(link), np.int32)  # this worker's freed chunks
    state = np.zeros(5, np.int64)
    state[_FAR_MIN] = NO_BUCKET
    head = np.full(window, -1, np.int32)
    tail = np.full(window, -1, np.int32)
    fill = np.zeros(window, np.int64)
    count = np.zeros(window, np.int64)
    far_v = np.empty(far_capacity, np.int32)
    far_b = np.empty(far_capacity, np.int64)
    counting = len(log_attempts) > 0

    attempts = 0
    improvements = 0
    from_frontier = 0
    fused = 0
    stale = 0
    steps = 0
    buckets = 0
    previous = NO_BUCKET
    while True:
        parity = steps & 1
        bucket = atomic_load(control, _BUCKET[parity])
        if bucket == NO_BUCKET:
            break
        if bucket != previous:
            buckets += 1
            previous = bucket
        step_attempts = 0
        step_improvements = 0
        listed = min(atomic_load(control, _TAIL[parity]), capacity)
        # 1. the shared frontier, claimed CLAIM vertices at a time (fewer when it is small)
        claim = claim_size(listed, threads, CLAIM)
        while True:
            start = atomic_add(control, _CURSOR[parity], claim)
            if start >= listed:
                break
            for i in range(start, min(start + claim, listed)):
                u = frontier[i]
                du = distances[u]
                if _below(du, bucket, delta):
                    stale += 1
                    continue
                step_attempts += row_offsets[u + 1] - row_offsets[u]
                step_improvements += _relax(u, du, bucket, window, row_offsets, column_ids, weights, unit_weights,
                                            delta, distances, bits, pool, link, control, parity, free, state, head,
                                            tail, fill, count, far_v, far_b)
                from_frontier += 1
        # 2. bucket fusion: this worker's own share of the bucket, while small, without waiting for the others
        slot = bucket & mask
        while 0 < count[slot] < fuse_limit:
            chunk = head[slot]
            last = tail[slot]
            last_fill = fill[slot]
            state[_LISTED] -= count[slot]
            head[slot] = -1
            tail[slot] = -1
            fill[slot] = 0
            count[slot] = 0
            while chunk >= 0:
                for k in range(last_fill if chunk == last else CHUNK):
                    u = pool[chunk, k]
                    du = distances[u]
                    if _below(du, bucket, delta):
                        stale += 1
                        continue
                    step_attempts += row_offsets[u + 1] - row_offsets[u]
                    step_improvements += _relax(u, du, bucket, window, row_offsets, column_ids, weights,
                                                unit_weights, delta, distances, bits, pool, link, control, parity,
                                                free, state, head, tail, fill, count, far_v, far_b)
                    fused += 1
                following = link[chunk]
                free[state[_FREE]] = chunk
                state[_FREE] += 1
                chunk = following
        # 3. offer this worker's least bucket for the next step
        least = NO_BUCKET
        if state[_LISTED] > 0:
            for k in range(window):
                if count[(bucket + k) & mask] > 0:
                    least = bucket + k
                    break
        if least == NO_BUCKET and state[_FAR] > 0:
            least = state[_FAR_MIN]
        if least != NO_BUCKET:
            atomic_min(control, _BUCKET[1 - parity], least)
        attempts += step_attempts
        improvements += step_improvements
        if counting:
            if steps < len(log_attempts):
                atomic_add(log_attempts, steps, step_attempts)
                atomic_add(log_improvements, steps, step_improvements)
            else:
                atomic_store(control, _LOG_FULL, 1)
        if not barrier_wait(control, threads):
            break
        # 4. every worker knows the next bucket: worker 0 clears this step's words (read again two steps on), and
        #    each worker copies its list of the next bucket into the shared frontier
        if worker == 0:
            atomic_store(control, _BUCKET[parity], NO_BUCKET)
            atomic_store(control, _TAIL[parity], 0)
            atomic_store(control, _CURSOR[parity], 0)
        following_bucket = atomic_load(control, _BUCKET[1 - parity])
        if following_bucket != NO_BUCKET:
            if state[_FAR] > 0 and state[_FAR_MIN] < following_bucket + window:
                # the window moves on: far entries that now fall inside it join its lists, stale ones are dropped
                kept = 0
                least = NO_BUCKET
                for i in range(state[_FAR]):
                    v = far_v[i]
                    b = far_b[i]
                    if _below(distances[v], b, delta):
                        continue
                    if b < following_bucket + window:
                        _push(v, b, following_bucket, window, pool, link, control, parity, free, state, head, tail,
                              fill, count, far_v, far_b)
                    else:
                        far_v[kept] = v
                        far_b[kept] = b
                        kept += 1
                        if b < least:
                            least = b
                state[_FAR] = kept
                state[_FAR_MIN] = least
            slot = following_bucket & mask
            size = count[slot]
            if size > 0:
                at = atomic_add(control, _TAIL[1 - parity], size)
                room = min(size, max(capacity - at, 0))  # a full frontier: the rest stays in this worker's list
                chunk = head[slot]
                last = tail[slot]
                last_fill = fill[slot]
                state[_LISTED] -= size
                head[slot] = -1
                tail[slot] = -1
                fill[slot] = 0
                count[slot] = 0
                copied = 0
                while chunk >= 0:
                    following = link[chunk]
                    free[state[_FREE]] = chunk  # freed first: a vertex kept back may go into this very chunk
                    state[_FREE] += 1
                    for k in range(last_fill if chunk == last else CHUNK):
                        if copied < room:
                            frontier[at + copied] = pool[chunk, k]
                            copied += 1
                        else:
                            _push(pool[chunk, k], following_bucket, following_bucket, window, pool, link, control,
                                  parity, free, state, head, tail, fill, count, far_v, far_b)
                    chunk = following
        steps += 1
        if not barrier_wait(control, threads):
            break
        if atomic_load(control, _POOL_FULL[parity]) != 0 or atomic_load(control, _FAR_FULL[parity]) != 0:
            break  # every worker reads this step's flags after its last barrier (none is raised after it), and stops
    stats[worker, STAT_ATTEMPTS] = attempts
    stats[worker, STAT_IMPROVEMENTS] = improvements
    stats[worker, STAT_FRONTIER] = from_frontier
    stats[worker, STAT_FUSED] = fused
    stats[worker, STAT_STALE] = stale
    stats[worker, STAT_STEPS] = steps
    stats[worker, STAT_BUCKETS] = buckets
    stats[worker, STAT_FAR] = state[_FAR_PUSHES]


@numba.njit(parallel=True, cache=True)
def delta_stepping_region(threads, row_offsets, column_ids, weights, unit_weights, delta, window, fuse_limit,
                          distances, bits, frontier, pool, link, far_capacity, control, stats, log_attempts,
                          log_improvements):
    """The persistent region: one worker per numba thread (`threads` must equal numba.get_num_threads())."""
    for worker in numba.prange(threads):
        delta_stepping_worker(worker, threads, row_offsets, column_ids, weights, unit_weights, delta, window,
                              fuse_limit, distances, bits, frontier, pool, link, far_capacity, control, stats,
                              log_attempts, log_improvements)


def bucket_window(arrays: KernelArrays, delta) -> tuple[int, bool]:
    """(window, needs a far pile): the buckets a worker keeps as lists, a power of two above max weight / delta + 1
    (an improvement then never lands beyond it) up to MAX_WINDOW, and whether that bound was reached."""
    if arrays.unit_weights or len(arrays.weights) == 0:
        largest = 1.0
    else:
        largest = float(arrays.weights.max())
    span = min(largest / delta, 2.0 * MAX_WINDOW) + 2
    window = 1
    while window < span and window < MAX_WINDOW:
        window *= 2
    return window, window < span


class DeltaSteppingWorkspace:
    """What the solves share from prepare on: the frontier (`capacity` vertices; max(n, m) by default), the chunk
    pool of the bucket lists, the far piles' capacity, the control words and the per-worker statistics. The pool
    and the far piles grow (doubled) when a solve runs out, and keep their size for the solves after. One solve at a
    time."""

    def __init__(self, arrays: KernelArrays, delta, threads: int, capacity: int | None = None,
                 pool_chunks: int | None = None) -> None:
        self.arrays = arrays
        self.delta = np.float64(delta) if arrays.float_weights else np.int64(delta)
        self.threads = int(threads)
        self.window, far = bucket_window(arrays, delta)
        n, m = arrays.n, len(arrays.column_ids)
        self.frontier = np.empty(max(1, capacity if capacity is not None else max(n, m)), np.int32)
        if pool_chunks is None:  # the live entries, plus a partly filled chunk per worker and bucket in reach
            pool_chunks = (n + m // 4) // CHUNK + self.threads * (min(self.window, 256) + 4)
        self.pool = np.empty((pool_chunks, CHUNK), np.int32)
        self.link = np.empty(pool_chunks, np.int32)
        self.far_capacity = n // self.threads + 1024 if far else 0
        self.control = new_control(_CONTROL_WORDS)
        self.stats = np.zeros((self.threads, STATS), np.int64)
        self.reruns = 0

    def ran_out(self) -> bool:
        """The last solve found its pool or a far pile full (and stopped)."""
        return bool(self.control[list(_POOL_FULL + _FAR_FULL)].any())

    def grow(self) -> None:
        """Double what the last solve ran out of."""
        if self.control[list(_POOL_FULL)].any():
            chunks = 2 * len(self.link)
            self.pool = np.empty((chunks, CHUNK), np.int32)
            self.link = np.empty(chunks, np.int32)
        if self.control[list(_FAR_FULL)].any():
            self.far_capacity = 2 * self.far_capacity


def run_delta_stepping(workspace: DeltaSteppingWorkspace, source: int, fuse_limit: int = FUSE_LIMIT,
                       count_relaxations: bool = False, name: str = "cpu-delta-stepping"):
    """(distances, unreached, statistics summed over workers, attempts per step, improvements per step) of
    delta-stepping from `source`; the per-step arrays are empty unless counting. Call with numba's thread count
    equal to workspace.threads."""
    arrays = workspace.arrays
    log_size = 4096 if count_relaxations else 0
    while True:
        distances, unreached = arrays.new_distances()
        bits = distances.view(np.int64)
        control = workspace.control
        reset_control(control)
        control[_BUCKET[0]] = 0
        control[_BUCKET[1]] = NO_BUCKET
        control[_TAIL[0]] = 1
        workspace.frontier[0] = source
        distances[source] = 0
        stats = workspace.stats
        stats[:] = 0
        log_attempts = np.zeros(log_size, np.int64)
        log_improvements = np.zeros(log_size, np.int64)
        arguments = (arrays.row_offsets, arrays.column_ids, arrays.weights, arrays.unit_weights, workspace.delta,
                     np.int64(workspace.window), np.int64(fuse_limit), distances, bits, workspace.frontier,
                     workspace.pool, workspace.link, np.int64(workspace.far_capacity), control, stats,
                     log_attempts, log_improvements)
        if workspace.threads == 1:
            delta_stepping_worker(np.int64(0), np.int64(1), *arguments)
        else:
            delta_stepping_region(np.int64(workspace.threads), *arguments)
        raise_if_aborted(name, control, workspace.threads)
        if workspace.ran_out():
            workspace.grow()
            workspace.reruns += 1
            continue
        if not control[_LOG_FULL]:
            break
        log_size = 4 * log_size  # counting only: solve again with room for every step
    totals = stats.sum(axis=0)
    totals[STAT_STEPS] = stats[0, STAT_STEPS]
    totals[STAT_BUCKETS] = stats[0, STAT_BUCKETS]
    steps = int(totals[STAT_STEPS])
    return distances, unreached, totals, log_attempts[:steps], log_improvements[:steps]


HEAVY_DEGREE = 32
"""The GPU variants' default heavy_degree: more arcs than a warp has lanes."""


def check_delta(name: str, delta: int) -> None:
    """The `delta` parameter of a delta-stepping implementation: 0 (the rule above) or a positive width."""
    if not 0 <= delta < 2**62:
        raise ConfigError(f"{name}: delta must be 0 (automatic) or a positive int, got {delta}")
