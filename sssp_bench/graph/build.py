"""The CSR builder every graph goes through: edges in, (row_offsets, column_ids, weights) out, by counting sort.

Whatever the edges come from, a generator's drawn arcs, a generator's edge list or a parsed file's arcs, they
feed the same two passes (GAPBS's builder is the model), never an argsort over m:

    count    per-chunk count rows counts[chunk, v] of the arcs leaving v (an undirected edge counts at both ends)
    offsets  the counts turned into row_offsets and per-chunk cursors (where chunk's first arc of row v goes)
    scatter  every arc written at its cursor

Chunks are contiguous ranges of edge numbers, so arcs keep their input order within each row, whatever the
number of chunks (threads). An undirected edge gives its two arcs in edge order.

An edge source is a tuple of arrays and numbers plus an `edge_at(edges, index) -> (source, target, weight)`
numba function. `count_arcs_per_source` and `scatter_arcs` are templates that numba inlines into a source's own
pair of cached kernels (`_count_listed`, `_scatter_listed` below for edge lists; the drawn-arc generators have
theirs): numba cannot cache a kernel that takes a function as argument, and a kernel's cache follows the file
that defines it, so a change to `edge_at` recompiles its kernels. `csr_by_counting_sort` runs the passes.

A parsed file's arcs are the bulk of its memory, so `csr_from_arcs` moves them in place after the same count
and offsets instead of scattering into new arrays (see there).
"""

from __future__ import annotations

import numba
import numpy as np
from numba import njit, prange

_COUNT_ROWS_BUDGET = 256 << 20  # bytes of per-chunk count rows we allow; more chunks only balance load


def num_chunks(n: int) -> int:
    """Chunks for the count/scatter passes: one per thread, fewer when n is so large their counts would not fit.

    The CSR does not depend on the number of chunks (arcs keep input order within a row either way).
    """
    return max(1, min(numba.get_num_threads(), _COUNT_ROWS_BUDGET // (8 * (n + 1))))


@njit(parallel=True, cache=True)
def offsets_from_chunk_counts(counts):
    """Turn counts[chunk, v] into cursors (where chunk's first arc of row v goes) and return row_offsets."""
    num_chunks, n = counts.shape
    degrees = np.empty(n, dtype=np.int64)
    for vertex_index in prange(n):
        vertex = np.int64(vertex_index)  # prange indices may be unsigned: int64 keeps the arithmetic integral
        total = 0
        for chunk in range(num_chunks):
            count = counts[chunk, vertex]
            counts[chunk, vertex] = total
            total += count
        degrees[vertex] = total
    row_offsets = np.empty(n + 1, dtype=np.int64)
    row_offsets[0] = 0
    running = 0
    for vertex in range(n):
        running += degrees[vertex]
        row_offsets[vertex + 1] = running
    for vertex_index in prange(n):
        vertex = np.int64(vertex_index)
        for chunk in range(num_chunks):
            counts[chunk, vertex] += row_offsets[vertex]
    return row_offsets


# ----------------------------------------------------------------------------------------------------------
# The two passes, for any edge source
# ----------------------------------------------------------------------------------------------------------

@njit(inline="always")
def count_arcs_per_source(n, num_edges, edge_at, edges, directed, num_chunks):
    """counts[chunk, v]: the arcs leaving v among edges [chunk * E / chunks, (chunk + 1) * E / chunks)."""
    counts = np.zeros((num_chunks, n), dtype=np.int64)
    for chunk_index in prange(num_chunks):
        chunk = np.int64(chunk_index)
        for edge in range(chunk * num_edges // num_chunks, (chunk + 1) * num_edges // num_chunks):
            source, target, _ = edge_at(edges, edge)
            counts[chunk, source] += 1
            if not directed:
                counts[chunk, target] += 1
    return counts


@njit(inline="always")
def scatter_arcs(num_edges, edge_at, edges, directed, cursors, column_ids, weights):
    """Write every edge's arc (both arcs of an undirected edge, with the edge's weight) at its chunk's cursor."""
    num_chunks = cursors.shape[0]
    for chunk_index in prange(num_chunks):
        chunk = np.int64(chunk_index)
        for edge in range(chunk * num_edges // num_chunks, (chunk + 1) * num_edges // num_chunks):
            source, target, weight = edge_at(edges, edge)
            at = cursors[chunk, source]
            column_ids[at] = target
            weights[at] = weight
            cursors[chunk, source] = at + 1
            if not directed:
                at = cursors[chunk, target]
                column_ids[at] = source
                weights[at] = weight
                cursors[chunk, target] = at + 1


def csr_by_counting_sort(n: int, count_kernel, scatter_kernel, edges, directed: bool, weight_dtype=np.int32):
    """(row_offsets, column_ids, weights) of an edge source, given its cached kernels:
    `count_kernel(n, edges, directed, num_chunks)` and `scatter_kernel(edges, directed, cursors, column_ids,
    weights)`."""
    counts = count_kernel(n, edges, directed, num_chunks(n))
    row_offsets = offsets_from_chunk_counts(counts)  # counts are now per-chunk cursors
    column_ids = np.empty(row_offsets[-1], dtype=np.int32)
    weights = np.empty(row_offsets[-1], dtype=weight_dtype)
    scatter_kernel(edges, directed, counts, column_ids, weights)
    return row_offsets, column_ids, weights


# ----------------------------------------------------------------------------------------------------------
# Edge lists: (sources, targets, weights) arrays
# ----------------------------------------------------------------------------------------------------------

@njit(inline="always", cache=True)
def _listed_edge(edges, index):
    sources, targets, weights = edges
    return sources[index], targets[index], weights[index]


@njit(parallel=True, cache=True)
def _count_listed(n, edges, directed, num_chunks):
    return count_arcs_per_source(n, len(edges[0]), _listed_edge, edges, directed, num_chunks)


@njit(parallel=True, cache=True)
def _scatter_listed(edges, directed, cursors, column_ids, weights):
    scatter_arcs(len(edges[0]), _listed_edge, edges, directed, cursors, column_ids, weights)


def csr_from_edges(n: int, sources, targets, weights, directed: bool, weight_dtype=np.int32):
    """(row_offsets, column_ids, weights) from an edge list; undirected edges give two arcs.

    Arcs keep their input order within each row, as `csr.from_arcs` (an argsort) does, in O(n + m). For an
    undirected edge list the two arcs of an edge take their places in edge order (from_arcs puts every forward
    arc before every backward one): the same arcs per row, in another order. Weights become `weight_dtype`.
    """
    edges = (np.ascontiguousarray(sources, dtype=np.int32), np.ascontiguousarray(targets, dtype=np.int32),
             np.ascontiguousarray(weights, dtype=weight_dtype))
    return csr_by_counting_sort(n, _count_listed, _scatter_listed, edges, directed, weight_dtype)


# ----------------------------------------------------------------------------------------------------------
# A parsed file's arcs, moved in place
# ----------------------------------------------------------------------------------------------------------
#
# Scattering into new arrays holds five arrays of m at once (three in, two out). Instead:
#     sources  -> positions, in place (where each arc goes in the CSR; per-chunk cursors keep file order)
#     (positions, targets, weights) permuted in place so that positions[i] == i:
#         1. partition by position >> 16 (American flag sort: the buckets' bounds are known, since the positions
#            are a permutation of 0..m-1), cache-friendly: ~1100 bucket heads for 70M arcs;
#         2. inside each bucket of 65536 slots (in cache), follow the permutation's cycles; buckets in parallel.
#     targets are now the column ids, weights the CSR's weights: nothing new allocated.
# Peak memory is the three arrays of m (two when unweighted) plus n, at about three times the time of a scatter
# into new arrays (`keep_positions=True` does that, at one more array of m, for the Matrix Market duplicate
# check, which traces arcs back to lines). When the file lists arcs grouped by source (METIS always, some DIMACS
# files) nothing moves at all.

@njit(parallel=True, nogil=True, cache=True)
def _positions_from_cursors(sources, cursors, positions):
    """positions[arc] = where the arc goes; the same chunking as the count pass, so each chunk's cursors
    hand out exactly the slots counted for it. `positions` may be `sources` itself (read, then overwritten)."""
    num_chunks = cursors.shape[0]
    num_arcs = len(sources)
    for chunk_index in prange(num_chunks):
        chunk = np.int64(chunk_index)
        for arc in range(chunk * num_arcs // num_chunks, (chunk + 1) * num_arcs // num_chunks):
            source = sources[arc]
            at = cursors[chunk, source]
            cursors[chunk, source] = at + 1
            positions[arc] = at


@njit(parallel=True, nogil=True, cache=True)
def _scatter_by_position(positions, values, out):
    for arc in prange(len(positions)):
        out[positions[arc]] = values[arc]


BUCKET_SHIFT = 16


@njit(nogil=True, cache=True)
def _partition_by_position_bucket(positions, targets, weights, shift):
    """Move every arc into the bucket of slots [k << shift, (k + 1) << shift) that holds its position."""
    num_arcs = len(positions)
    move_weights = len(weights) > 0
    num_buckets = (num_arcs + (1 << shift) - 1) >> shift
    heads = np.empty(num_buckets, dtype=np.int64)  # first slot of each bucket not yet holding its own arc
    for bucket in range(num_buckets):
        heads[bucket] = bucket << shift
    for bucket in range(num_buckets):
        end = min((bucket + 1) << shift, num_arcs)
        slot = heads[bucket]
        while slot < end:
            home = positions[slot] >> shift
            if home == bucket:
                slot += 1
                continue
            other = heads[home]
            heads[home] = other + 1
            positions[slot], positions[other] = positions[other], positions[slot]
            targets[slot], targets[other] = targets[other], targets[slot]
            if move_weights:
                weights[slot], weights[other] = weights[other], weights[slot]


@njit(parallel=True, nogil=True, cache=True)
def _permute_within_buckets(positions, targets, weights, shift):
    num_arcs = len(positions)
    move_weights = len(weights) > 0
    num_buckets = (num_arcs + (1 << shift) - 1) >> shift
    for bucket_index in prange(num_buckets):
        bucket = np.int64(bucket_index)
        for slot in range(bucket << shift, min((bucket + 1) << shift, num_arcs)):
            while positions[slot] != slot:
                other = positions[slot]
                positions[slot], positions[other] = positions[other], positions[slot]
                targets[slot], targets[other] = targets[other], targets[slot]
                if move_weights:
                    weights[slot], weights[other] = weights[other], weights[slot]


def _count_arc_sources(n: int, sources: np.ndarray) -> np.ndarray:
    """The count pass over arcs u -> ? (targets do not matter for counting)."""
    return _count_listed(n, (sources, sources, sources), True, num_chunks(n))


def csr_from_arcs(
    n: int, arrays: list, sources_sorted: bool, keep_positions: bool = False,
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, np.ndarray | None]:
    """(row_offsets, column_ids, weights, positions) from `arrays` = [sources, targets, weights or None].

    The list is emptied and its arrays consumed (their memory reused), so the caller must hold no other
    reference to them: that is what keeps the peak at the arcs themselves. With `keep_positions`, arcs are
    scattered into new arrays instead and `positions[i]` says where arc i went (None when arcs did not move).
    """
    sources, targets, weights = arrays
    arrays.clear()
    num_arcs = len(targets)
    if sources_sorted:
        return offsets_from_chunk_counts(_count_arc_sources(n, sources)), targets, weights, None
    counts = _count_arc_sources(n, sources)
    row_offsets = offsets_from_chunk_counts(counts)  # counts are now per-chunk cursors
    positions = sources if num_arcs < 2**31 else np.empty(num_arcs, dtype=np.int64)
    _positions_from_cursors(sources, counts, positions)
    del counts, sources
    if not keep_positions:
        movable_weights = np.empty(0, dtype=np.int32) if weights is None else weights
        _partition_by_position_bucket(positions, targets, movable_weights, BUCKET_SHIFT)
        _permute_within_buckets(positions, targets, movable_weights, BUCKET_SHIFT)
        return row_offsets, targets, weights, None
    column_ids = np.empty(num_arcs, dtype=np.int32)
    _scatter_by_position(positions, targets, column_ids)
    if weights is not None:
        moved = targets.view(weights.dtype)  # the targets are in column_ids now: reuse their memory
        _scatter_by_position(positions, weights, moved)
        weights = moved
    del targets
    return row_offsets, column_ids, weights, positions
