"""Sequential Dijkstra with a lazy-deletion binary heap (numba): the kernel of cpu-dijkstra (impls/cpu_dijkstra.py
says what it is and where the papers use it)."""

from __future__ import annotations

import numba
import numpy as np

from .arrays import KernelArrays


@numba.njit(cache=True)
def _sift_up(keys, vertices, position):
    key = keys[position]
    vertex = vertices[position]
    while position > 0:
        parent = (position - 1) >> 1
        if keys[parent] <= key:
            break
        keys[position] = keys[parent]
        vertices[position] = vertices[parent]
        position = parent
    keys[position] = key
    vertices[position] = vertex


@numba.njit(cache=True)
def _sift_down(keys, vertices, size):
    key = keys[0]
    vertex = vertices[0]
    position = 0
    while True:
        child = 2 * position + 1
        if child >= size:
            break
        if child + 1 < size and keys[child + 1] < keys[child]:
            child += 1
        if keys[child] >= key:
            break
        keys[position] = keys[child]
        vertices[position] = vertices[child]
        position = child
    keys[position] = key
    vertices[position] = vertex


@numba.njit(cache=True)
def dijkstra_kernel(row_offsets, column_ids, weights, unit_weights, source, distances, count_relaxations):
    """Fill `distances` (pre-set to the unreached sentinel) from `source`.

    Returns (settled, heap_pushes, heap_pops, attempts_per_iteration, relaxations_per_iteration): with
    `count_relaxations` the arrays hold one entry per settled vertex (its arcs examined, its improvements),
    else they are empty.
    """
    n = len(row_offsets) - 1
    capacity = max(16, n)  # grows by doubling: lazy deletion can hold up to m + 1 entries, usually far fewer
    keys = np.empty(capacity, distances.dtype)
    vertices = np.empty(capacity, np.int32)
    size = 0
    settled = 0
    pushes = 0
    pops = 0
    attempts_per_iteration = np.zeros(n if count_relaxations else 0, np.int64)
    relaxations_per_iteration = np.zeros(n if count_relaxations else 0, np.int64)

    distances[source] = 0
    keys[0] = 0
    vertices[0] = source
    size = 1
    pushes = 1
    while size > 0:
        key = keys[0]
        u = vertices[0]
        size -= 1
        pops += 1
        if size > 0:
            keys[0] = keys[size]
            vertices[0] = vertices[size]
            _sift_down(keys, vertices, size)
        if key > distances[u]:
            continue  # stale: u was settled with a smaller key already
        iteration = settled
        settled += 1
        for arc in range(row_offsets[u], row_offsets[u + 1]):
            v = column_ids[arc]
            candidate = key + (1 if unit_weights else weights[arc])
            if count_relaxations:
                attempts_per_iteration[iteration] += 1
            if candidate < distances[v]:
                distances[v] = candidate
                if count_relaxations:
                    relaxations_per_iteration[iteration] += 1
                if size == capacity:
                    capacity *= 2
                    grown_keys = np.empty(capacity, keys.dtype)
                    grown_vertices = np.empty(capacity, np.int32)
                    grown_keys[:size] = keys[:size]
                    grown_vertices[:size] = vertices[:size]
                    keys = grown_keys
                    vertices = grown_vertices
                keys[size] = candidate
                vertices[size] = v
                _sift_up(keys, vertices, size)
                size += 1
                pushes += 1
    if count_relaxations:
        return settled, pushes, pops, attempts_per_iteration[:settled], relaxations_per_iteration[:settled]
    return settled, pushes, pops, attempts_per_iteration, relaxations_per_iteration


def run_dijkstra(arrays: KernelArrays, source: int, count_relaxations: bool = False):
    """(distances, unreached, kernel result) of Dijkstra from `source` on non-negative weights."""
    distances, unreached = arrays.new_distances()
    counts = dijkstra_kernel(
        arrays.row_offsets, arrays.column_ids, arrays.weights, arrays.unit_weights, np.int64(source), distances,
        bool(count_relaxations),
    )
    return distances, unreached, counts
