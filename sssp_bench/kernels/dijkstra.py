"""Sequential Dijkstra with an indexed 4-ary heap and decrease-key (numba): the kernel of cpu-dijkstra
(impls/cpu_dijkstra.py says what it is and where the papers use it).

The heap holds each unsettled reached vertex once, with its tentative distance as key, in two parallel arrays
(keys beside vertices, so a sift compares keys without following a vertex), and `position[v]` says where v is:
an improvement of a vertex already in the heap moves it up in place (decrease-key) instead of pushing a second
entry. Four children per node: half the levels of a binary heap, and a node's children share a cache line.

Measured against the lazy-deletion binary heap it replaced and scipy.sparse.csgraph.dijkstra (Cython, Fibonacci
heap) on one core: experiments/cpu-baselines/README.md.
"""

from __future__ import annotations

import numba
import numpy as np

from .arrays import KernelArrays

ARITY = 4
NOT_REACHED = -1
"""position[v] of a vertex never put into the heap."""
SETTLED = -2
"""position[v] of a vertex taken from the heap with its final distance."""


@numba.njit(cache=True, inline="always")
def _sift_up(keys, vertices, position, slot, key, vertex):
    """Put (key, vertex) at `slot` or above it, moving larger parents down."""
    while slot > 0:
        parent = (slot - 1) // ARITY
        parent_key = keys[parent]
        if parent_key <= key:
            break
        keys[slot] = parent_key
        moved = vertices[parent]
        vertices[slot] = moved
        position[moved] = slot
        slot = parent
    keys[slot] = key
    vertices[slot] = vertex
    position[vertex] = slot


@numba.njit(cache=True, inline="always")
def _sift_down(keys, vertices, position, size, key, vertex):
    """Put (key, vertex) at the root or below it, moving smaller children up (the heap has `size` entries)."""
    slot = 0
    while True:
        child = ARITY * slot + 1
        if child >= size:
            break
        best = child
        best_key = keys[child]
        for other in range(child + 1, min(child + ARITY, size)):
            if keys[other] < best_key:
                best_key = keys[other]
                best = other
        if best_key >= key:
            break
        keys[slot] = best_key
        moved = vertices[best]
        vertices[slot] = moved
        position[moved] = slot
        slot = best
    keys[slot] = key
    vertices[slot] = vertex
    position[vertex] = slot


@numba.njit(cache=True)
def dijkstra_kernel(row_offsets, column_ids, weights, unit_weights, source, distances, count_relaxations):
    """Fill `distances` (pre-set to the unreached sentinel) from `source`.

    Returns (settled, heap_pushes, decrease_keys, attempts_per_iteration, relaxations_per_iteration): every pop
    settles a vertex, so heap pops = settled; with `count_relaxations` the arrays hold one entry per settled vertex
    (its arcs examined, its improvements), else they are empty.
    """
    n = len(row_offsets) - 1
    keys = np.empty(max(n, 1), distances.dtype)
    vertices = np.empty(max(n, 1), np.int32)
    position = np.full(n, NOT_REACHED, np.int32)
    attempts_per_iteration = np.zeros(n if count_relaxations else 0, np.int64)
    relaxations_per_iteration = np.zeros(n if count_relaxations else 0, np.int64)

    distances[source] = 0
    keys[0] = 0
    vertices[0] = source
    position[source] = 0
    size = 1
    pushes = 1
    decrease_keys = 0
    settled = 0
    while size > 0:
        key = keys[0]
        u = vertices[0]
        position[u] = SETTLED
        size -= 1
        if size > 0:
            _sift_down(keys, vertices, position, size, keys[size], vertices[size])
        iteration = settled
        settled += 1
        for arc in range(row_offsets[u], row_offsets[u + 1]):
            v = column_ids[arc]
            candidate = key + (1 if unit_weights else weights[arc])
            if count_relaxations:
                attempts_per_iteration[iteration] += 1
            if candidate < distances[v]:  # never true of a settled vertex: weights are non-negative
                distances[v] = candidate
                if count_relaxations:
                    relaxations_per_iteration[iteration] += 1
                slot = position[v]
                if slot == NOT_REACHED:
                    slot = size
                    size += 1
                    pushes += 1
                else:
                    decrease_keys += 1
                _sift_up(keys, vertices, position, slot, candidate, v)
    if count_relaxations:
        return settled, pushes, decrease_keys, attempts_per_iteration[:settled], relaxations_per_iteration[:settled]
    return settled, pushes, decrease_keys, attempts_per_iteration, relaxations_per_iteration


def run_dijkstra(arrays: KernelArrays, source: int, count_relaxations: bool = False):
    """(distances, unreached, kernel result) of Dijkstra from `source` on non-negative weights."""
    distances, unreached = arrays.new_distances()
    counts = dijkstra_kernel(
        arrays.row_offsets, arrays.column_ids, arrays.weights, arrays.unit_weights, np.int64(source), distances,
        bool(count_relaxations),
    )
    return distances, unreached, counts
