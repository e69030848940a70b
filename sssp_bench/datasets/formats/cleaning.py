"""The cleaning options of a conversion, on a CSR: drop self-loops, symmetrize, merge parallel arcs, keep the
largest (weakly) connected component.

Each takes (row_offsets, column_ids, weights) and returns new arrays plus what it changed; weights may be None
(an unweighted graph), int32 or float32. Merging parallel arcs leaves every row sorted by target (then weight);
the other steps keep the order of arcs within rows.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ...graph.build import csr_from_edges

_NO_WEIGHTS = np.empty(0, dtype=np.int32)


@njit(parallel=True, cache=True)
def _kept_offsets(row_offsets, keep):
    n = len(row_offsets) - 1
    degrees = np.empty(n, dtype=np.int64)
    for vertex_index in prange(n):
        vertex = np.int64(vertex_index)
        count = 0
        for arc in range(row_offsets[vertex], row_offsets[vertex + 1]):
            count += keep[arc]
        degrees[vertex] = count
    kept_offsets = np.zeros(n + 1, dtype=np.int64)
    running = 0
    for vertex in range(n):
        running += degrees[vertex]
        kept_offsets[vertex + 1] = running
    return kept_offsets


@njit(parallel=True, cache=True)
def _copy_kept(row_offsets, kept_offsets, keep, column_ids, weights, out_columns, out_weights):
    n = len(row_offsets) - 1
    weighted = len(weights) > 0
    for vertex_index in prange(n):
        vertex = np.int64(vertex_index)
        at = kept_offsets[vertex]
        for arc in range(row_offsets[vertex], row_offsets[vertex + 1]):
            if keep[arc]:
                out_columns[at] = column_ids[arc]
                if weighted:
                    out_weights[at] = weights[arc]
                at += 1


def _compact(row_offsets, column_ids, weights, keep):
    """The arcs whose `keep` is set, rows in place."""
    kept_offsets = _kept_offsets(row_offsets, keep)
    total = int(kept_offsets[-1])
    out_columns = np.empty(total, dtype=np.int32)
    out_weights = None if weights is None else np.empty(total, dtype=weights.dtype)
    _copy_kept(row_offsets, kept_offsets, keep, column_ids, _NO_WEIGHTS if weights is None else weights,
               out_columns, _NO_WEIGHTS if out_weights is None else out_weights)
    return kept_offsets, out_columns, out_weights


@njit(parallel=True, cache=True)
def _mark_non_loops(row_offsets, column_ids, keep):
    n = len(row_offsets) - 1
    for vertex_index in prange(n):
        vertex = np.int64(vertex_index)
        for arc in range(row_offsets[vertex], row_offsets[vertex + 1]):
            keep[arc] = column_ids[arc] != vertex


def drop_self_loops(row_offsets, column_ids, weights):
    """(row_offsets, column_ids, weights, self-loops dropped)."""
    keep = np.empty(len(column_ids), dtype=np.uint8)
    _mark_non_loops(row_offsets, column_ids, keep)
    dropped = len(column_ids) - int(np.count_nonzero(keep))
    if dropped == 0:
        return row_offsets, column_ids, weights, 0
    return (*_compact(row_offsets, column_ids, weights, keep), dropped)


def with_reverse_arcs(row_offsets, column_ids, weights):
    """Every arc u -> v and its reverse v -> u (same weight): the arcs built as undirected edges."""
    n = len(row_offsets) - 1
    sources = np.repeat(np.arange(n, dtype=np.int32), np.diff(row_offsets))
    values = np.zeros(len(column_ids), dtype=np.uint8) if weights is None else weights
    doubled_offsets, out_columns, out_values = csr_from_edges(n, sources, column_ids, values, False, values.dtype)
    return doubled_offsets, out_columns, None if weights is None else out_values


# Weights are compared as unsigned 32-bit keys that order like the values: int32 with its sign bit flipped,
# float32 with its sign bit flipped when positive and all bits flipped when negative.
_WEIGHT_NONE = 0
_WEIGHT_INT = 1
_WEIGHT_FLOAT = 2


@njit(inline="always", cache=True)
def _order_key(bits, kind):
    bits = np.uint64(bits) & np.uint64(0xFFFFFFFF)
    if kind == _WEIGHT_FLOAT and bits & np.uint64(0x80000000):
        return ~bits & np.uint64(0xFFFFFFFF)
    return bits ^ np.uint64(0x80000000)


@njit(inline="always", cache=True)
def _bits_of_key(key, kind):
    if kind == _WEIGHT_FLOAT and not key & np.uint64(0x80000000):
        return ~key & np.uint64(0xFFFFFFFF)
    return key ^ np.uint64(0x80000000)


@njit(parallel=True, cache=True)
def _sort_rows(row_offsets, column_ids, weight_bits, kind):
    """Sort each row by (target, weight) in place."""
    n = len(row_offsets) - 1
    for vertex_index in prange(n):
        vertex = np.int64(vertex_index)
        start = row_offsets[vertex]
        count = row_offsets[vertex + 1] - start
        if count < 2:
            continue
        keys = np.empty(count, dtype=np.uint64)
        for index in range(count):
            key = np.uint64(column_ids[start + index]) << np.uint64(32)
            if kind != _WEIGHT_NONE:
                key |= _order_key(weight_bits[start + index], kind)
            keys[index] = key
        keys.sort()
        for index in range(count):
            column_ids[start + index] = np.int32(keys[index] >> np.uint64(32))
            if kind != _WEIGHT_NONE:
                weight_bits[start + index] = np.uint32(_bits_of_key(keys[index] & np.uint64(0xFFFFFFFF), kind))


@njit(parallel=True, cache=True)
def _mark_first_of_each_target(row_offsets, column_ids, keep):
    n = len(row_offsets) - 1
    for vertex_index in prange(n):
        vertex = np.int64(vertex_index)
        start = row_offsets[vertex]
        for arc in range(start, row_offsets[vertex + 1]):
            keep[arc] = arc == start or column_ids[arc] != column_ids[arc - 1]


def merge_parallel_arcs(row_offsets, column_ids, weights):
    """Keep the lightest arc of each (u, v) pair: (row_offsets, column_ids, weights, arcs merged away).

    Rows come out sorted by target. The input arrays are sorted in place.
    """
    if weights is None:
        kind, bits = _WEIGHT_NONE, np.empty(0, dtype=np.uint32)
    else:
        kind = _WEIGHT_FLOAT if weights.dtype.kind == "f" else _WEIGHT_INT
        bits = weights.view(np.uint32)
    _sort_rows(row_offsets, column_ids, bits, kind)
    keep = np.empty(len(column_ids), dtype=np.uint8)
    _mark_first_of_each_target(row_offsets, column_ids, keep)
    merged = len(column_ids) - int(np.count_nonzero(keep))
    if merged == 0:
        return row_offsets, column_ids, weights, 0
    return (*_compact(row_offsets, column_ids, weights, keep), merged)


@njit(inline="always", cache=True)
def _root(parent, vertex):
    while parent[vertex] != vertex:
        parent[vertex] = parent[parent[vertex]]  # path halving
        vertex = parent[vertex]
    return vertex


@njit(cache=True)
def _component_roots(row_offsets, column_ids):
    """Union-find over the arcs, ignoring direction; each vertex's root is the smallest vertex of its component."""
    n = len(row_offsets) - 1
    parent = np.arange(n).astype(np.int32)
    for vertex in range(n):
        for arc in range(row_offsets[vertex], row_offsets[vertex + 1]):
            a = _root(parent, vertex)
            b = _root(parent, column_ids[arc])
            if a < b:
                parent[b] = a
            elif b < a:
                parent[a] = b
    for vertex in range(n):
        parent[vertex] = _root(parent, vertex)
    return parent


@njit(parallel=True, cache=True)
def _relabelled_rows(row_offsets, column_ids, weights, kept, new_ids, kept_offsets, out_columns, out_weights):
    weighted = len(weights) > 0
    for index in prange(len(kept)):
        vertex = kept[index]
        at = kept_offsets[index]
        for arc in range(row_offsets[vertex], row_offsets[vertex + 1]):
            out_columns[at] = new_ids[column_ids[arc]]
            if weighted:
                out_weights[at] = weights[arc]
            at += 1


def largest_component(row_offsets, column_ids, weights):
    """The largest weakly connected component, relabelled 0..k-1 in the old order.

    Returns (row_offsets, column_ids, weights, kept) where kept[i] is the old id of new vertex i. Of equally
    large components, the one holding the smallest vertex id wins.
    """
    n = len(row_offsets) - 1
    if n == 0:
        return row_offsets, column_ids, weights, np.empty(0, dtype=np.int64)
    roots = _component_roots(row_offsets, column_ids)
    sizes = np.bincount(roots, minlength=n)
    kept = np.flatnonzero(roots == np.argmax(sizes))
    new_ids = np.full(n, -1, dtype=np.int32)
    new_ids[kept] = np.arange(len(kept), dtype=np.int32)
    kept_offsets = np.zeros(len(kept) + 1, dtype=np.int64)
    np.cumsum(np.diff(row_offsets)[kept], out=kept_offsets[1:])
    total = int(kept_offsets[-1])
    out_columns = np.empty(total, dtype=np.int32)
    out_weights = None if weights is None else np.empty(total, dtype=weights.dtype)
    _relabelled_rows(row_offsets, column_ids, _NO_WEIGHTS if weights is None else weights, kept, new_ids,
                     kept_offsets, out_columns, _NO_WEIGHTS if out_weights is None else out_weights)
    return kept_offsets, out_columns, out_weights, kept
