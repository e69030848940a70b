"""Sequential Bellman-Ford, queue-based (SPFA) and textbook (numba): the kernels of cpu-bf-queue and cpu-bf
(impls/cpu_bellman_ford.py says what they are and where the papers use them). The reference that judges them on
negative weights (run/verify.py) shares no code with them."""

from __future__ import annotations

import numba
import numpy as np

from ..errors import NegativeCycleError
from .arrays import KernelArrays


@numba.njit(cache=True)
def _grown(array, length):
    """`array` copied into one twice as long (the first `length` entries kept)."""
    grown = np.zeros(2 * len(array), array.dtype)
    grown[:length] = array[:length]
    return grown


@numba.njit(cache=True)
def spfa_kernel(row_offsets, column_ids, weights, unit_weights, source, distances, count_relaxations):
    """Queue-based Bellman-Ford from `source` into `distances` (pre-set to the unreached sentinel).

    Returns (negative_cycle_vertex or -1, iterations, queue_pushes, attempts_per_iteration,
    relaxations_per_iteration); the per-iteration arrays have `iterations` entries when counting, else are empty.
    """
    n = len(row_offsets) - 1
    queue = np.empty(n, np.int32)       # circular: the in-queue flag keeps at most n entries in it
    in_queue = np.zeros(n, np.bool_)
    path_arcs = np.zeros(n, np.int64)   # arcs on the walk that gave distances[v]; reaching n => negative cycle
    attempts_per_iteration = np.zeros(64 if count_relaxations else 0, np.int64)
    relaxations_per_iteration = np.zeros(64 if count_relaxations else 0, np.int64)

    distances[source] = 0
    queue[0] = source
    in_queue[source] = True
    head = 0  # pops so far; queue slot head % n
    tail = 1  # pushes so far
    iterations = 0
    while head < tail:
        generation_end = tail  # vertices queued from here on belong to the next generation
        attempts = 0
        relaxations = 0
        while head < generation_end:
            u = queue[head % n]
            head += 1
            in_queue[u] = False
            distance_u = distances[u]
            for arc in range(row_offsets[u], row_offsets[u + 1]):
                v = column_ids[arc]
                candidate = distance_u + (1 if unit_weights else weights[arc])
                if count_relaxations:
                    attempts += 1
                if candidate < distances[v]:
                    distances[v] = candidate
                    path_arcs[v] = path_arcs[u] + 1
                    if count_relaxations:
                        relaxations += 1
                    if path_arcs[v] >= n:
                        nothing = attempts_per_iteration[:0]
                        return np.int64(v), iterations + 1, tail, nothing, nothing
                    if not in_queue[v]:
                        queue[tail % n] = v
                        tail += 1
                        in_queue[v] = True
        if count_relaxations:
            if iterations == len(attempts_per_iteration):
                attempts_per_iteration = _grown(attempts_per_iteration, iterations)
                relaxations_per_iteration = _grown(relaxations_per_iteration, iterations)
            attempts_per_iteration[iterations] = attempts
            relaxations_per_iteration[iterations] = relaxations
        iterations += 1
    return -1, iterations, tail, attempts_per_iteration[:iterations], relaxations_per_iteration[:iterations]


@numba.njit(cache=True)
def textbook_bellman_ford_kernel(row_offsets, column_ids, weights, unit_weights, source, distances, infinity,
                                 count_relaxations):
    """Up to n rounds over all arcs in place; returns like `spfa_kernel` (queue_pushes is 0).

    Round n is the negative-cycle check: without a reachable negative cycle, n - 1 rounds settle every distance.
    """
    n = len(row_offsets) - 1
    attempts_per_iteration = np.zeros(n if count_relaxations else 0, np.int64)
    relaxations_per_iteration = np.zeros(n if count_relaxations else 0, np.int64)
    distances[source] = 0
    for round_index in range(n):
        changed_at = -1
        attempts = 0
        relaxations = 0
        for u in range(n):
            distance_u = distances[u]
            if distance_u == infinity:
                continue
            for arc in range(row_offsets[u], row_offsets[u + 1]):
                v = column_ids[arc]
                candidate = distance_u + (1 if unit_weights else weights[arc])
                if count_relaxations:
                    attempts += 1
                if candidate < distances[v]:
                    distances[v] = candidate
                    changed_at = np.int64(v)
                    if count_relaxations:
                        relaxations += 1
        if count_relaxations:
            attempts_per_iteration[round_index] = attempts
            relaxations_per_iteration[round_index] = relaxations
        if changed_at < 0:
            rounds = round_index + 1
            return -1, rounds, 0, attempts_per_iteration[:rounds], relaxations_per_iteration[:rounds]
        if round_index == n - 1:
            return changed_at, n, 0, attempts_per_iteration[:0], relaxations_per_iteration[:0]
    return -1, 0, 0, attempts_per_iteration[:0], relaxations_per_iteration[:0]  # n == 0: nothing to do


def run_spfa(arrays: KernelArrays, source: int, count_relaxations: bool = False):
    """(distances, unreached, kernel result) of the queue-based Bellman-Ford; raises NegativeCycleError."""
    distances, unreached = arrays.new_distances()
    result = spfa_kernel(
        arrays.row_offsets, arrays.column_ids, arrays.weights, arrays.unit_weights, np.int64(source), distances,
        bool(count_relaxations),
    )
    _raise_on_negative_cycle(result[0], source, "cpu-bf-queue")
    return distances, unreached, result


def run_textbook_bellman_ford(arrays: KernelArrays, source: int, count_relaxations: bool = False):
    """(distances, unreached, kernel result) of the textbook Bellman-Ford; raises NegativeCycleError."""
    distances, unreached = arrays.new_distances()
    infinity = np.float64(unreached) if arrays.float_weights else np.int64(unreached)
    result = textbook_bellman_ford_kernel(
        arrays.row_offsets, arrays.column_ids, arrays.weights, arrays.unit_weights, np.int64(source), distances,
        infinity, bool(count_relaxations),
    )
    _raise_on_negative_cycle(result[0], source, "cpu-bf")
    return distances, unreached, result


def _raise_on_negative_cycle(cycle_vertex: int, source: int, who: str) -> None:
    if cycle_vertex >= 0:
        raise NegativeCycleError(
            f"{who}: negative cycle reachable from source {source} (found while relaxing into vertex {cycle_vertex})",
            vertex=int(cycle_vertex),
        )

