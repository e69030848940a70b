"""Delta-stepping on the CPU (numba, parallel), and what the GPU delta-stepping variants share with it: the default
bucket width and the light-first arc order.

Meyer and Sanders' delta-stepping keeps tentative distances in buckets of width delta: bucket i holds the vertices
whose distance lies in [i x delta, (i + 1) x delta). It settles the smallest non-empty bucket in phases: each phase
relaxes the light arcs (weight <= delta) of the vertices that entered the bucket since the last phase, which may
put vertices back into the same bucket; when a phase leaves the bucket empty, the heavy arcs (weight > delta) of
every vertex that went through the bucket are relaxed once (they cannot land in it), and the next non-empty bucket
is opened. Non-negative weights only: a distance below the current bucket is never final otherwise.

`run_delta_stepping` (cpu-delta-stepping) does this with numba threads, without atomics (numba has none):

- Ownership: vertex v belongs to thread v mod T; only its owner writes v's distance, bucket bookkeeping and lists.
- A phase over many arcs runs in two parallel steps. Requests: the phase's arcs are split into T equal ranges
  (a prefix sum over the vertices' degrees, so a vertex of huge degree is shared out), each thread reads its arcs
  and writes a request (v, candidate) for every candidate below v's current distance, grouped by v's owner with a
  counting sort. Apply: each thread takes the requests for its own vertices from every producer and keeps the
  improvements. Both steps are deterministic, so the phase counts do not depend on timing.
- A phase over fewer than `SERIAL_ARCS` arcs (roads' many small phases, a chain's one-vertex phases) runs on one
  thread, relaxing in place: a parallel region costs more than such a phase.
- Buckets: the current bucket's next phase is built from per-owner lists (a vertex at most once per phase, by a
  phase stamp); later buckets are a per-owner pile of (vertex, bucket) entries, one pushed whenever a vertex's
  bucket falls (home[v], the bucket of its live entry, makes older entries stale). Opening the next bucket reads the
  piles: live entries of the smallest pushed bucket join the frontier, stale ones are dropped, the rest kept; a
  pile that fills up is compacted in place (at most one live entry per owned vertex).

The default delta (`default_delta`) is the rule `near-far` uses (impls/near_far.py says why): C x average arc
weight / average out-degree, C = 32 on sparse graphs (average out-degree below 5: roads, meshes, grids, chains),
else 4; rounded and at least 1 for integer weights. A bucket then holds about a warp's worth of arcs per vertex on
sparse graphs, and stays narrow where low diameter would let wide buckets relax vertices again and again.

`light_first` reorders each vertex's arcs, light ones first, so a phase reads only its light arcs and the heavy
step only the heavy ones; the GPU variants upload the same order.
"""

from __future__ import annotations

import numba
import numpy as np

from ..errors import ConfigError
from ..graph.csr import CSRGraph
from .arrays import KernelArrays

SPARSE_DEGREE = 5.0
"""Average out-degree below which the default delta uses the warp-size factor (as near-far's)."""
SPARSE_FACTOR = 32
DENSE_FACTOR = 4

NO_BUCKET = 2**63 - 1
"""The least pushed bucket of an empty pile."""

SERIAL_ARCS = 8192
"""A phase over fewer arcs than this runs on one thread, in place: cheaper than a parallel region."""


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
# The CPU solver
# ---------------------------------------------------------------------------------------------------------------


@numba.njit(cache=True)
def _bucket_of(distance, delta):
    return np.int64(distance // delta)


@numba.njit(cache=True)
def _compact_pile(owner, pile_v, pile_b, pile_n, home):
    """Drop the stale entries of one owner's pile (those whose vertex has since moved to another bucket)."""
    kept = 0
    for i in range(pile_n[owner]):
        v = pile_v[owner, i]
        b = pile_b[owner, i]
        if home[v] == b:
            pile_v[owner, kept] = v
            pile_b[owner, kept] = b
            kept += 1
    pile_n[owner] = kept


@numba.njit(cache=True)
def _apply(owner, v, candidate, distances, delta, bucket, next_phase, home, near_stamp, near_v, near_n,
           r_stamp, r_v, r_n, pile_v, pile_b, pile_n, pile_min):
    """Owner-side relaxation of v to `candidate`: 1 when it improved v's distance, else 0. An improvement into the
    current bucket puts v into the next phase (and its set of vertices to relax heavy arcs of), one into a later
    bucket pushes (v, bucket) onto the owner's pile when v's bucket changed."""
    if candidate >= distances[v]:
        return 0
    distances[v] = candidate
    b = _bucket_of(candidate, delta)
    if b <= bucket:
        home[v] = bucket
        if near_stamp[v] != next_phase:
            near_stamp[v] = next_phase
            near_v[owner, near_n[owner]] = v
            near_n[owner] += 1
        if r_stamp[v] != bucket:
            r_stamp[v] = bucket
            r_v[owner, r_n[owner]] = v
            r_n[owner] += 1
    elif home[v] != b:
        home[v] = b
        if pile_n[owner] == pile_v.shape[1]:
            _compact_pile(owner, pile_v, pile_b, pile_n, home)
        pile_v[owner, pile_n[owner]] = v
        pile_b[owner, pile_n[owner]] = b
        pile_n[owner] += 1
        if b < pile_min[owner]:
            pile_min[owner] = b
    return 1


@numba.njit(cache=True)
def _arc_range(u, row_offsets, light_end, heavy):
    """u's light arcs, or with `heavy` its heavy ones, as [begin, end)."""
    if heavy:
        return light_end[u], row_offsets[u + 1]
    return row_offsets[u], light_end[u]


@numba.njit(cache=True)
def _degree_prefix(items, count, row_offsets, light_end, heavy, prefix):
    """prefix[k] = arcs of items[0 .. k) (light, or heavy); returns the total."""
    total = 0
    prefix[0] = 0
    for k in range(count):
        begin, end = _arc_range(items[k], row_offsets, light_end, heavy)
        total += end - begin
        prefix[k + 1] = total
    return total


@numba.njit(parallel=True, cache=True)
def _produce(items, count, prefix, total, row_offsets, light_end, heavy, columns, weights, unit_weights, distances,
             threads, req_v, req_d, grouped_v, grouped_d, req_count, seg_start):
    """Requests of one phase: producer p reads arcs [total p / T, total (p + 1) / T) of the items, keeps the
    candidates below the target's distance and groups them by owner into grouped_v/grouped_d at the same range:
    owner q's requests from p are seg_start[p, q] .. seg_start[p, q] + req_count[p, q]."""
    for p in numba.prange(threads):
        for q in range(threads):
            req_count[p, q] = 0
        a_low = total * p // threads
        a_high = total * (p + 1) // threads
        position = a_low
        if a_low < a_high:
            k = np.searchsorted(prefix[: count + 1], a_low, side="right") - 1
            a = a_low
            while a < a_high:
                u = items[k]
                item_end = min(prefix[k + 1], a_high)
                first, _ = _arc_range(u, row_offsets, light_end, heavy)
                du = distances[u]
                for e in range(first + (a - prefix[k]), first + (item_end - prefix[k])):
                    v = columns[e]
                    candidate = du + (1 if unit_weights else weights[e])
                    if candidate < distances[v]:
                        req_v[position] = v
                        req_d[position] = candidate
                        position += 1
                        req_count[p, v % threads] += 1
                a = item_end
                k += 1
        offset = a_low
        for q in range(threads):
            seg_start[p, q] = offset
            offset += req_count[p, q]
        cursor = seg_start[p].copy()
        for i in range(a_low, position):
            q = req_v[i] % threads
            grouped_v[cursor[q]] = req_v[i]
            grouped_d[cursor[q]] = req_d[i]
            cursor[q] += 1


@numba.njit(parallel=True, cache=True)
def _apply_all(threads, grouped_v, grouped_d, req_count, seg_start, improved, distances, delta, bucket, next_phase,
               home, near_stamp, near_v, near_n, r_stamp, r_v, r_n, pile_v, pile_b, pile_n, pile_min):
    """Owner q applies every producer's requests for its vertices (no two threads write one vertex)."""
    for q in numba.prange(threads):
        done = 0
        for p in range(threads):
            start = seg_start[p, q]
            for i in range(start, start + req_count[p, q]):
                done += _apply(q, grouped_v[i], grouped_d[i], distances, delta, bucket, next_phase, home, near_stamp,
                               near_v, near_n, r_stamp, r_v, r_n, pile_v, pile_b, pile_n, pile_min)
        improved[q] = done


@numba.njit(cache=True)
def _serial_phase(items, count, row_offsets, light_end, heavy, columns, weights, unit_weights, distances, threads,
                  delta, bucket, next_phase, home, near_stamp, near_v, near_n, r_stamp, r_v, r_n, pile_v, pile_b,
                  pile_n, pile_min):
    """A small phase on one thread, in place: (arcs examined, improvements)."""
    attempts = 0
    improved = 0
    for k in range(count):
        u = items[k]
        du = distances[u]
        begin, end = _arc_range(u, row_offsets, light_end, heavy)
        for e in range(begin, end):
            v = columns[e]
            attempts += 1
            candidate = du + (1 if unit_weights else weights[e])
            if candidate < distances[v]:  # before the owner's division: most arcs improve nothing
                improved += _apply(v % threads, v, candidate, distances, delta, bucket, next_phase, home, near_stamp,
                                   near_v, near_n, r_stamp, r_v, r_n, pile_v, pile_b, pile_n, pile_min)
    return attempts, improved


@numba.njit(cache=True)
def _gather(lists, counts, threads, out):
    """Concatenate the per-owner lists into `out` (owner order) and empty them; returns the length."""
    length = 0
    for t in range(threads):
        for i in range(counts[t]):
            out[length] = lists[t, i]
            length += 1
        counts[t] = 0
    return length


@numba.njit(cache=True)
def _open_bucket_owner(owner, target, home, near_stamp, next_phase, near_v, near_n, r_stamp, r_v, r_n, pile_v,
                       pile_b, pile_n, pile_min):
    """Owner's pile at the opening of bucket `target`: its live entries join the next phase, the stale ones are
    dropped, the rest kept; pile_min becomes the exact least bucket left."""
    kept = 0
    least = NO_BUCKET
    for i in range(pile_n[owner]):
        v = pile_v[owner, i]
        b = pile_b[owner, i]
        if home[v] != b:
            continue  # stale: v moved to a lower bucket since
        if b == target:
            near_stamp[v] = next_phase
            near_v[owner, near_n[owner]] = v
            near_n[owner] += 1
            r_stamp[v] = target
            r_v[owner, r_n[owner]] = v
            r_n[owner] += 1
        else:
            pile_v[owner, kept] = v
            pile_b[owner, kept] = b
            kept += 1
            if b < least:
                least = b
    pile_n[owner] = kept
    pile_min[owner] = least


@numba.njit(parallel=True, cache=True)
def _open_bucket(threads, target, home, near_stamp, next_phase, near_v, near_n, r_stamp, r_v, r_n, pile_v, pile_b,
                 pile_n, pile_min):
    for owner in numba.prange(threads):
        _open_bucket_owner(owner, target, home, near_stamp, next_phase, near_v, near_n, r_stamp, r_v, r_n, pile_v,
                           pile_b, pile_n, pile_min)


@numba.njit(cache=True)
def _grown(array, length):
    grown = np.zeros(max(2 * len(array), 16), array.dtype)
    grown[:length] = array[:length]
    return grown


@numba.njit(cache=True)
def delta_stepping_kernel(row_offsets, light_end, columns, weights, unit_weights, has_heavy, source, distances,
                          delta, threads, serial_arcs, count_relaxations):
    """Delta-stepping from `source` into `distances` (pre-set to the unreached sentinel), on arcs ordered light first
    (`light_first`). Returns (light phases, heavy phases, buckets, attempts per iteration, relaxations per
    iteration); an iteration is a light phase or a bucket's heavy step, in order; the arrays are empty unless
    counting."""
    n = len(row_offsets) - 1
    per_owner = n // threads + 1

    home = np.full(n, -1, np.int64)          # the bucket of v's live entry (current bucket or pile), -1: none
    near_stamp = np.full(n, -1, np.int64)    # the phase whose frontier holds v
    r_stamp = np.full(n, -1, np.int64)       # the bucket whose heavy step relaxes v's heavy arcs
    near_v = np.empty((threads, per_owner), np.int32)
    near_n = np.zeros(threads, np.int64)
    r_v = np.empty((threads, per_owner), np.int32)
    r_n = np.zeros(threads, np.int64)
    pile_v = np.empty((threads, 2 * per_owner + 2), np.int32)
    pile_b = np.empty((threads, 2 * per_owner + 2), np.int64)
    pile_n = np.zeros(threads, np.int64)
    pile_min = np.full(threads, NO_BUCKET, np.int64)

    items = np.empty(max(n, 1), np.int32)
    prefix = np.empty(max(n, 1) + 1, np.int64)
    req_count = np.zeros((threads, threads), np.int64)
    seg_start = np.zeros((threads, threads), np.int64)
    improved_by = np.zeros(threads, np.int64)
    request_capacity = 16
    req_v = np.empty(request_capacity, np.int32)
    req_d = np.empty(request_capacity, distances.dtype)
    grouped_v = np.empty(request_capacity, np.int32)
    grouped_d = np.empty(request_capacity, distances.dtype)

    attempts_log = np.zeros(16 if count_relaxations else 0, np.int64)
    relaxations_log = np.zeros(16 if count_relaxations else 0, np.int64)
    iterations = 0
    light_phases = 0
    heavy_phases = 0
    buckets = 1

    distances[source] = 0
    bucket = np.int64(0)
    phase = np.int64(0)  # the phase about to run; its frontier's vertices carry this stamp
    home[source] = 0
    near_stamp[source] = 0
    r_stamp[source] = 0
    r_v[source % threads, 0] = source
    r_n[source % threads] = 1
    items[0] = source
    count = 1
    heavy = False
    while True:
        if count == 0:
            if not heavy and has_heavy:  # the light phases left the bucket empty: its heavy step next
                count = _gather(r_v, r_n, threads, items)
                heavy = True
                continue
            for t in range(threads):  # the bucket is settled
                r_n[t] = 0
            # open the next bucket: the least bucket pushed onto a pile (stale if that vertex moved: then the next)
            while count == 0:
                target = pile_min.min()
                if target == NO_BUCKET:
                    break
                bucket = target
                if pile_n.sum() >= serial_arcs and threads > 1:
                    _open_bucket(threads, target, home, near_stamp, phase, near_v, near_n, r_stamp, r_v, r_n, pile_v,
                                 pile_b, pile_n, pile_min)
                else:
                    for owner in range(threads):
                        _open_bucket_owner(owner, target, home, near_stamp, phase, near_v, near_n, r_stamp, r_v, r_n,
                                           pile_v, pile_b, pile_n, pile_min)
                count = _gather(near_v, near_n, threads, items)
            if count == 0:
                break
            buckets += 1
            heavy = False
            continue
        # one light phase over items[:count], or the bucket's heavy step over the vertices it settled
        next_phase = phase + 1
        total = _degree_prefix(items, count, row_offsets, light_end, heavy, prefix)
        if total < serial_arcs or threads == 1:
            attempts, improved = _serial_phase(
                items, count, row_offsets, light_end, heavy, columns, weights, unit_weights, distances, threads,
                delta, bucket, next_phase, home, near_stamp, near_v, near_n, r_stamp, r_v, r_n, pile_v, pile_b,
                pile_n, pile_min)
        else:
            if total > request_capacity:
                request_capacity = max(total, 2 * request_capacity)
                req_v = np.empty(request_capacity, np.int32)
                req_d = np.empty(request_capacity, distances.dtype)
                grouped_v = np.empty(request_capacity, np.int32)
                grouped_d = np.empty(request_capacity, distances.dtype)
            _produce(items, count, prefix, total, row_offsets, light_end, heavy, columns, weights, unit_weights,
                     distances, threads, req_v, req_d, grouped_v, grouped_d, req_count, seg_start)
            _apply_all(threads, grouped_v, grouped_d, req_count, seg_start, improved_by, distances, delta, bucket,
                       next_phase, home, near_stamp, near_v, near_n, r_stamp, r_v, r_n, pile_v, pile_b, pile_n,
                       pile_min)
            attempts = total
            improved = improved_by.sum()
        if count_relaxations:
            if iterations == len(attempts_log):
                attempts_log = _grown(attempts_log, iterations)
                relaxations_log = _grown(relaxations_log, iterations)
            attempts_log[iterations] = attempts
            relaxations_log[iterations] = improved
        iterations += 1
        if heavy:
            heavy_phases += 1
        else:
            light_phases += 1
        phase = next_phase
        # the next phase's frontier (after a heavy step, empty but for float rounding at a bucket's edge: a heavy
        # arc is then light in effect, and the bucket goes on with light phases and another heavy step)
        count = _gather(near_v, near_n, threads, items)
        if count > 0:
            heavy = False
    return (light_phases, heavy_phases, buckets, attempts_log[:iterations] if count_relaxations else attempts_log,
            relaxations_log[:iterations] if count_relaxations else relaxations_log)


def run_delta_stepping(arrays: KernelArrays, reordered, source: int, delta, count_relaxations: bool = False,
                       serial_arcs: int = SERIAL_ARCS):
    """(distances, unreached, kernel result) of delta-stepping from `source`; `reordered` is light_first(arrays,
    delta)."""
    light_end, columns, weights, heavy_arcs = reordered
    distances, unreached = arrays.new_distances()
    delta_value = np.float64(delta) if arrays.float_weights else np.int64(delta)
    result = delta_stepping_kernel(
        arrays.row_offsets, light_end, columns, weights, arrays.unit_weights, heavy_arcs > 0, np.int64(source),
        distances, delta_value, np.int64(numba.get_num_threads()), np.int64(serial_arcs), bool(count_relaxations),
    )
    return distances, unreached, result


HEAVY_DEGREE = 32
"""The GPU variants' default heavy_degree: more arcs than a warp has lanes."""


def check_delta(name: str, delta: int) -> None:
    """The `delta` parameter of a delta-stepping implementation: 0 (the rule above) or a positive width."""
    if not 0 <= delta < 2**62:
        raise ConfigError(f"{name}: delta must be 0 (automatic) or a positive int, got {delta}")
