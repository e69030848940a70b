"""Parallel direction-optimizing BFS on the CPU (numba threads): the kernel of cpu-bfs-parallel
(impls/cpu_bfs_parallel.py says what it is).

Beamer, Asanovic and Patterson's direction-optimizing BFS (SC 2012), in the form of the GAP Benchmark Suite's `bfs`:

- Top-down step: the workers claim the current level's queue CLAIM vertices at a time (an atomic cursor; fewer on
  a small level); a worker examines each vertex's out-arcs and claims an undiscovered head with a compare-and-swap
  of its level (-1 -> depth + 1), the winner keeping it in a buffer of its own that it appends to the shared queue
  (an atomic add reserves the room) when full and at the step's end. The queue is one array of n vertices: each vertex is appended once, so the
  levels follow one another in it.
- Bottom-up step: the workers claim the vertices BOTTOM_UP_CLAIM 64-bit words at a time; for each undiscovered
  vertex a worker scans its in-arcs until one comes from the frontier (a bitmap), then gives it the next level and
  sets its bit in the next bitmap. A word of the next bitmap belongs to the worker that claimed it: no atomics.
- The switch (GAPBS's heuristic): top-down while the arcs out of the frontier (`scout`, summed from the discovered
  vertices' out-degrees) are at most the arcs left unexamined / alpha; then bottom-up while the frontier grows or
  holds more than n / beta vertices; then back to top-down (bitmap to queue). alpha 15 and beta 18 by default.

One persistent parallel region per solve (kernels/atomics.py): a road graph has hundreds of levels, and a `prange`
region per level would cost more than the level. One barrier ends each step: the step's shared sums (claim cursor,
scout, discovered) are kept three deep (step s uses set s mod 3), and worker 0 clears set s + 2 after barrier s,
when every worker has read it (after barrier s - 1) and none can write it yet (after barrier s + 1). Every worker
reads the same sums after a barrier, so each makes the same choice of direction on its own.

Bottom-up needs in-arcs: an undirected graph's arcs are their own reverse; a directed graph's transpose is built
(`transpose`) in prepare.
"""

from __future__ import annotations

import numba
import numpy as np

from .atomics import (atomic_add, atomic_cas, atomic_load, atomic_or, atomic_store, barrier_wait, claim_size,
                      new_control, raise_if_aborted, reset_control, user_word)

BFS_UNREACHED = -1
ALPHA = 15
BETA = 18
CLAIM = 64
"""Queue vertices a worker claims at a time in a top-down step (GAPBS: schedule(dynamic, 64))."""
BOTTOM_UP_CLAIM = 16
"""Bitmap words (64 vertices each) a worker claims at a time in a bottom-up step (GAPBS: 1,024 vertices)."""
BUFFER = 4096
"""Vertices a worker discovers before appending them to the shared queue."""

_CURSOR = (user_word(0), user_word(1), user_word(2))
_SCOUT = (user_word(3), user_word(4), user_word(5))
_AWAKE = (user_word(6), user_word(7), user_word(8))
_TAIL = user_word(9)
_CONTROL_WORDS = 10

STAT_ARCS, STAT_TOP_DOWN, STAT_BOTTOM_UP, STAT_DEPTH = range(4)
STATS = 4


@numba.njit(cache=True)
def in_offsets_of(column_ids, n):
    """The reverse graph's row offsets, int64[n + 1]: the in-degrees' running sum (no int64 copy of the ids)."""
    in_offsets = np.zeros(n + 1, np.int64)
    for e in range(len(column_ids)):
        in_offsets[column_ids[e] + 1] += 1
    for v in range(n):
        in_offsets[v + 1] += in_offsets[v]
    return in_offsets


@numba.njit(cache=True)
def _fill_transpose(row_offsets, column_ids, weights, in_offsets, in_columns, in_weights):
    """Each vertex's in-arcs into in_columns (and, when `weights` is not empty, their weights into in_weights),
    by tail in increasing order: a stable counting sort."""
    weighted = len(weights) > 0
    cursor = in_offsets[:-1].copy()
    for u in range(len(row_offsets) - 1):
        for e in range(row_offsets[u], row_offsets[u + 1]):
            v = column_ids[e]
            at = cursor[v]
            in_columns[at] = u
            if weighted:
                in_weights[at] = weights[e]
            cursor[v] = at + 1


def transpose(row_offsets, column_ids, weights=None):
    """(in_offsets, in_columns): the reverse graph's CSR, each row's tails in increasing order (a counting sort);
    given `weights` (one per arc), (in_offsets, in_columns, in_weights), each in-arc's weight beside it."""
    in_offsets = in_offsets_of(column_ids, len(row_offsets) - 1)
    in_columns = np.empty(len(column_ids), np.int32)
    if weights is None:
        _fill_transpose(row_offsets, column_ids, column_ids[:0], in_offsets, in_columns, in_columns[:0])
        return in_offsets, in_columns
    in_weights = np.empty(len(weights), weights.dtype)
    _fill_transpose(row_offsets, column_ids, weights, in_offsets, in_columns, in_weights)
    return in_offsets, in_columns, in_weights


@numba.njit(cache=True, _nrt=False)
def _end_step(worker, threads, control, step):
    """The barrier that ends step `step`; worker 0 then clears the sums of step + 2. False when aborted."""
    if not barrier_wait(control, threads):
        return False
    if worker == 0:
        later = (step + 2) % 3
        atomic_store(control, _CURSOR[later], 0)
        atomic_store(control, _SCOUT[later], 0)
        atomic_store(control, _AWAKE[later], 0)
    return True


@numba.njit(cache=True, _nrt=False)
def _flush(buffer, buffered, queue, control):
    at = atomic_add(control, _TAIL, buffered)
    for i in range(buffered):
        queue[at + i] = buffer[i]


@numba.njit(cache=True)
def bfs_worker(worker, threads, out_offsets, out_columns, in_offsets, in_columns, source, alpha, beta, levels, queue,
               front, spare, control, level_sizes, stats):
    """One worker of the persistent region (the module docstring says what each step does). queue[0] = source,
    levels[source] = 0 and the control's tail = 1 on entry. Worker 0 writes level_sizes[d] for each level d >= 1."""
    n = len(out_offsets) - 1
    words = len(front)
    buffer = np.empty(BUFFER, np.int32)
    edges_to_check = len(out_columns)
    scout = out_offsets[source + 1] - out_offsets[source]
    start = 0
    end = 1
    depth = 0
    step = 0
    arcs = 0
    top_down = 0
    bottom_up = 0
    current = front
    following = spare
    while end > start:
        if scout > edges_to_check // alpha:
            # the queue as a bitmap: clear it, then set the queue's bits
            k = step % 3
            while True:
                first = atomic_add(control, _CURSOR[k], BOTTOM_UP_CLAIM)
                if first >= words:
                    break
                for w in range(first, min(first + BOTTOM_UP_CLAIM, words)):
                    current[w] = 0
            if not _end_step(worker, threads, control, step):
                break
            step += 1
            k = step % 3
            while True:
                first = start + atomic_add(control, _CURSOR[k], CLAIM)
                if first >= end:
                    break
                for i in range(first, min(first + CLAIM, end)):
                    v = queue[i]
                    atomic_or(current, v >> 6, np.int64(1) << (v & 63))
            if not _end_step(worker, threads, control, step):
                break
            step += 1
            awake = end - start
            aborted = False
            while True:
                old_awake = awake
                k = step % 3
                discovered = 0
                while True:
                    first = atomic_add(control, _CURSOR[k], BOTTOM_UP_CLAIM)
                    if first >= words:
                        break
                    for w in range(first, min(first + BOTTOM_UP_CLAIM, words)):
                        bits = np.int64(0)
                        base = w * 64
                        for b in range(min(64, n - base)):
                            v = base + b
                            if levels[v] < 0:
                                for e in range(in_offsets[v], in_offsets[v + 1]):
                                    u = in_columns[e]
                                    arcs += 1
                                    if (current[u >> 6] >> (u & 63)) & 1:
                                        levels[v] = depth + 1
                                        bits |= np.int64(1) << b
                                        discovered += 1
                                        break
                        following[w] = bits
                atomic_add(control, _AWAKE[k], discovered)
                if not _end_step(worker, threads, control, step):
                    aborted = True
                    break
                awake = atomic_load(control, _AWAKE[k])
                step += 1
                depth += 1
                bottom_up += 1
                if worker == 0:
                    level_sizes[depth] = awake
                current, following = following, current
                if not (awake >= old_awake or awake > n // beta):
                    break
            if aborted:
                break
            # the last bitmap as the next queue
            k = step % 3
            buffered = 0
            appended = 0
            while True:
                first = atomic_add(control, _CURSOR[k], BOTTOM_UP_CLAIM)
                if first >= words:
                    break
                for w in range(first, min(first + BOTTOM_UP_CLAIM, words)):
                    bits = current[w]
                    b = 0
                    while bits != 0:
                        if bits & 1:
                            if buffered == BUFFER:
                                _flush(buffer, buffered, queue, control)
                                buffered = 0
                            buffer[buffered] = w * 64 + b
                            buffered += 1
                            appended += 1
                        bits = (bits >> 1) & np.int64(0x7FFFFFFFFFFFFFFF)
                        b += 1
            if buffered > 0:
                _flush(buffer, buffered, queue, control)
            atomic_add(control, _AWAKE[k], appended)
            if not _end_step(worker, threads, control, step):
                break
            start = end
            end = start + atomic_load(control, _AWAKE[k])
            step += 1
            scout = 1
        else:
            edges_to_check -= scout
            k = step % 3
            next_level = depth + 1
            found_arcs = 0
            discovered = 0
            buffered = 0
            claim = claim_size(end - start, threads, CLAIM)
            while True:
                first = start + atomic_add(control, _CURSOR[k], claim)
                if first >= end:
                    break
                for i in range(first, min(first + claim, end)):
                    u = queue[i]
                    arcs += out_offsets[u + 1] - out_offsets[u]
                    for e in range(out_offsets[u], out_offsets[u + 1]):
                        v = out_columns[e]
                        if levels[v] < 0 and atomic_cas(levels, v, BFS_UNREACHED, next_level) == BFS_UNREACHED:
                            found_arcs += out_offsets[v + 1] - out_offsets[v]
                            discovered += 1
                            if buffered == BUFFER:
                                _flush(buffer, buffered, queue, control)
                                buffered = 0
                            buffer[buffered] = v
                            buffered += 1
            if buffered > 0:
                _flush(buffer, buffered, queue, control)
            atomic_add(control, _SCOUT[k], found_arcs)
            atomic_add(control, _AWAKE[k], discovered)
            if not _end_step(worker, threads, control, step):
                break
            scout = atomic_load(control, _SCOUT[k])
            step += 1
            depth += 1
            top_down += 1
            start = end
            end = start + atomic_load(control, _AWAKE[k])
            if worker == 0:
                level_sizes[depth] = end - start
    stats[worker, STAT_ARCS] = arcs
    stats[worker, STAT_TOP_DOWN] = top_down
    stats[worker, STAT_BOTTOM_UP] = bottom_up
    stats[worker, STAT_DEPTH] = depth


@numba.njit(parallel=True, cache=True)
def bfs_region(threads, out_offsets, out_columns, in_offsets, in_columns, source, alpha, beta, levels, queue, front,
               spare, control, level_sizes, stats):
    """The persistent region: one worker per numba thread (`threads` must equal numba.get_num_threads())."""
    for worker in numba.prange(threads):
        bfs_worker(worker, threads, out_offsets, out_columns, in_offsets, in_columns, source, alpha, beta, levels,
                   queue, front, spare, control, level_sizes, stats)


class BfsWorkspace:
    """What a solve reuses from prepare on: the queue, the two bitmaps, the level sizes, control and statistics."""

    def __init__(self, out_offsets, out_columns, in_offsets, in_columns, threads: int) -> None:
        self.out_offsets, self.out_columns = out_offsets, out_columns
        self.in_offsets, self.in_columns = in_offsets, in_columns
        n = len(out_offsets) - 1
        self.threads = int(threads)
        self.queue = np.empty(max(n, 1), np.int32)
        words = (n + 63) // 64
        self.front = np.zeros(max(words, 1), np.int64)
        self.spare = np.zeros(max(words, 1), np.int64)
        self.level_sizes = np.zeros(n + 2, np.int64)
        self.control = new_control(_CONTROL_WORDS)
        self.stats = np.zeros((self.threads, STATS), np.int64)


def run_bfs(workspace: BfsWorkspace, source: int, alpha: int = ALPHA, beta: int = BETA, name: str = "cpu-bfs-parallel"):
    """(levels, statistics summed over workers, level sizes) of a direction-optimizing BFS from `source`; call with
    numba's thread count equal to workspace.threads."""
    n = len(workspace.out_offsets) - 1
    levels = np.full(n, BFS_UNREACHED, np.int32)
    levels[source] = 0
    workspace.queue[0] = source
    control = workspace.control
    reset_control(control)
    control[_TAIL] = 1
    workspace.level_sizes[0] = 1
    stats = workspace.stats
    stats[:] = 0
    arguments = (workspace.out_offsets, workspace.out_columns, workspace.in_offsets, workspace.in_columns,
                 np.int64(source), np.int64(alpha), np.int64(beta), levels, workspace.queue, workspace.front,
                 workspace.spare, control, workspace.level_sizes, stats)
    if workspace.threads == 1:
        bfs_worker(np.int64(0), np.int64(1), *arguments)
    else:
        bfs_region(np.int64(workspace.threads), *arguments)
    raise_if_aborted(name, control, workspace.threads)
    totals = stats.sum(axis=0)
    for key in (STAT_TOP_DOWN, STAT_BOTTOM_UP, STAT_DEPTH):
        totals[key] = stats[0, key]
    depth = int(totals[STAT_DEPTH])
    return levels, totals, workspace.level_sizes[:depth].copy()
