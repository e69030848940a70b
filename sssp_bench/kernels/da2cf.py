"""DA2CF, Dijkstra's algorithm adapted to compound frontiers (da2cf-gpu-dijkstra-compound-frontiers, Fig. 2), as a
small numpy model: the paper's sequential FCPU (relax_F) and UCPU (relax_U), and what the GPU implementation
(impls/da2cf.py) shares with it: the predecessor CSR of relax_U and the dense weight matrix of section 5.

    run = da2cf(graph, source, relax="frontier")    # or relax="unresolved"
    run.distances          int64, INT_UNREACHED where unreached (exactly Dijkstra's distances)
    run.iterations         passes of the while loop of Fig. 2, the last one finding mssp = INF
    run.frontier_sizes     the frontier each iteration relaxed ([1, ...]: the source first)
    run.mssp               the minimum each iteration found (the last is INT_UNREACHED)

The loop of Fig. 2: c = INF, u = true, f = false except c[s] = 0, f[s] = true, u[s] = false; while mssp != INF:
relax (every unresolved c[j] = min(c[j], c[i] + w(i, j)) over frontier vertices i), mssp = the least c of the
unresolved vertices, update (the unresolved vertices whose c equals mssp become the frontier and are resolved).
The paper numbers the source 0; any source is taken here.

Every vertex at the least tentative distance is final at once (its shortest path's last but one vertex is
resolved, since weights are non-negative), so a whole compound frontier is resolved per iteration. With positive
weights every vertex at distance d is resolved in the same iteration, and the iterations are exactly the distinct
finite distances (`distinct_distances`); zero-weight arcs may split one distance over several iterations.

The model is vectorised per iteration (numpy), so it relaxes as a parallel relax with an exact atomicMin would:
relax_F over the frontier's out-arcs, relax_U over every arc of the predecessor CSR whose head is unresolved and
whose tail is in the frontier (as UCPU, it looks at every in-arc of every unresolved vertex each iteration).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..graph.build import csr_from_edges
from ..graph.csr import CSRGraph
from .arrays import INT_UNREACHED, KernelArrays, check_source, kernel_arrays

RELAX_KINDS = ("frontier", "unresolved")
MATRIX_NO_ARC = np.uint32(0xFFFFFFFF)
"""The dense matrix's "no arc" (the paper's INF): above every int32 weight, so a real weight never collides."""


class Da2cfRun(NamedTuple):
    distances: np.ndarray
    iterations: int
    frontier_sizes: list[int]
    mssp: list[int]


def predecessor_csr(arrays: KernelArrays) -> KernelArrays:
    """The transposed graph (the paper's "predecessor interpretation"): row v lists v's in-arcs (their tails and
    weights), in the order of the tails' rows. Counting sort, O(n + m)."""
    n, m = arrays.n, len(arrays.column_ids)
    tails = np.repeat(np.arange(n, dtype=np.int32), np.diff(arrays.row_offsets))
    weights = np.zeros(m, np.int32) if arrays.unit_weights else arrays.weights
    row_offsets, column_ids, in_weights = csr_from_edges(n, arrays.column_ids, tails, weights, True,
                                                         weight_dtype=weights.dtype)
    if arrays.unit_weights:
        in_weights = np.zeros(0, np.int32)
    return KernelArrays(np.asarray(row_offsets, np.int64), np.asarray(column_ids, np.int32), in_weights,
                        arrays.unit_weights)


def dense_weights(graph: CSRGraph) -> np.ndarray:
    """The n x n weight matrix of section 5 (uint32, row = tail, column = head), MATRIX_NO_ARC where there is no arc;
    parallel arcs keep their least weight. Non-negative int32 (or unit) weights."""
    arrays = kernel_arrays(graph)
    n = arrays.n
    matrix = np.full(n * n, MATRIX_NO_ARC, dtype=np.uint32)
    tails = np.repeat(np.arange(n, dtype=np.int64), np.diff(arrays.row_offsets))
    weights = np.ones(len(tails), np.uint32) if arrays.unit_weights else arrays.weights.astype(np.uint32)
    np.minimum.at(matrix, tails * n + arrays.column_ids.astype(np.int64), weights)
    return matrix.reshape(n, n)


def distinct_distances(distances: np.ndarray) -> int:
    """The number of distinct finite distances: DA2CF's iterations on a graph with positive weights."""
    distances = np.asarray(distances)
    return int(np.unique(distances[distances != INT_UNREACHED]).size)


def _arc_weights(arrays: KernelArrays, arcs: np.ndarray) -> np.ndarray:
    return np.ones(len(arcs), np.int64) if arrays.unit_weights else arrays.weights[arcs].astype(np.int64)


def _rows_arcs(row_offsets: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(the row each arc of `rows` belongs to, the arc's index), the rows' arcs concatenated."""
    starts, ends = row_offsets[rows], row_offsets[rows + 1]
    degrees = ends - starts
    owner = np.repeat(rows, degrees)
    first = np.repeat(starts - np.concatenate([[0], np.cumsum(degrees)[:-1]]), degrees)
    return owner, first + np.arange(int(degrees.sum()), dtype=np.int64)


def da2cf(graph: CSRGraph, source: int, relax: str = "frontier") -> Da2cfRun:
    """DA2CF_F (relax="frontier", the paper's FCPU) or DA2CF_U (relax="unresolved", UCPU) from `source`.
    Non-negative weights (Dijkstra's condition); integer or unit weights."""
    if relax not in RELAX_KINDS:
        raise ValueError(f"relax must be one of {list(RELAX_KINDS)}, got {relax!r}")
    source = check_source(graph, source)
    arrays = kernel_arrays(graph)
    if arrays.float_weights or (not arrays.unit_weights and len(arrays.weights) and arrays.weights.min() < 0):
        raise ValueError("the DA2CF model takes non-negative integer (or unit) weights")
    n = arrays.n
    if relax == "unresolved":
        preds = predecessor_csr(arrays)
        heads = np.repeat(np.arange(n, dtype=np.int64), np.diff(preds.row_offsets))
        tails = preds.column_ids.astype(np.int64)
        in_weights = _arc_weights(preds, np.arange(len(tails)))
    # initialize(c, f, u)
    c = np.full(n, INT_UNREACHED, dtype=np.int64)
    f = np.zeros(n, dtype=bool)
    u = np.ones(n, dtype=bool)
    c[source], f[source], u[source] = 0, True, False
    mssp, iterations, sizes, minima = 0, 0, [], []
    while mssp != INT_UNREACHED:
        iterations += 1
        sizes.append(int(f.sum()))
        if relax == "frontier":  # relax_F: each frontier vertex's out-arcs to unresolved heads
            owner, arcs = _rows_arcs(arrays.row_offsets, np.flatnonzero(f))
            heads_f = arrays.column_ids[arcs].astype(np.int64)
            keep = u[heads_f]
            np.minimum.at(c, heads_f[keep], c[owner[keep]] + _arc_weights(arrays, arcs[keep]))
        else:  # relax_U: each unresolved vertex's in-arcs from frontier tails
            keep = u[heads] & f[tails]
            np.minimum.at(c, heads[keep], c[tails[keep]] + in_weights[keep])
        # minimum(c, u)
        mssp = int(c[u].min()) if u.any() else INT_UNREACHED
        minima.append(mssp)
        # update(c, f, u, mssp)
        if mssp != INT_UNREACHED:
            f = u & (c == mssp)
            u &= ~f
    return Da2cfRun(c, iterations, sizes, minima)
