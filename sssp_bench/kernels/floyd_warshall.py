"""Blocked Floyd-Warshall on the host: the rules the GPU `floyd-warshall` implementation follows (the distance
width, the saturation limits, the matrix size) and a numpy model of its three-phase tile schedule, so that the
schedule and the saturation are checked on the CPU against scipy before a GPU runs them.

The matrix: n_pad x n_pad with n_pad = n rounded up to a multiple of the tile; entry (u, v) starts at the least
weight of the arcs u -> v (1 on an unweighted graph), the diagonal at min(0, least self-loop weight), INF
elsewhere; padding vertices are isolated.

Saturation (both widths): every candidate d[i][k] + d[k][j] with both operands finite is clamped to
[FLOOR, CEIL], and so is every arc weight when the matrix is built. Why that is exact where it matters:
- Upper clamp. Every finite entry is at most the length of some simple path i -> j once the phase that produced
  it ends (the blocked schedule's usual argument: a simple path through the round's tile is split at its first or
  last tile vertex), so at most `high`, the simple-path bound of gpu_common.packing_bounds; mid-phase values (a
  panel's row k improved in the same phase) can exceed it, and CEIL keeps their sums from overflowing. An entry
  clamped down to CEIL >= high is still at least the length of some walk i -> j (the simple path inside it).
- Lower clamp. A value below FLOOR is the length of a walk no simple path reaches (FLOOR < low), i.e. one through a
  negative cycle; FLOOR keeps sums of two entries inside the type.
- So each finite entry lies between the shortest walk i -> j and the shortest simple path i -> j: without a
  negative cycle reachable from i, both are the distance. A vertex v on a negative cycle ends with d[v][v] < 0 (the
  cycle split at any vertex), and d[v][v] < 0 proves a negative closed walk through v. Hence the source's row is
  exact unless some v has d[s][v] finite and d[v][v] < 0, which happens exactly when a negative cycle is reachable
  from s (`negative_cycle_vertex`).
int64: FLOOR = -2^62, CEIL = 2^62 - 1, INF = INT64_MAX (any graph with n < 2^31).
int32: FLOOR = -2^30, CEIL = 2^30 - 1, INF = INT32_MAX, allowed when FLOOR < low and high <= CEIL: sums of two
clamped entries lie in [-2^31, 2^31 - 2].

Optimistic int32 (`optimistic_int32`): the simple-path bound `high` is often far above every distance (a complete
graph whose skip arcs cost more than the chain they bypass: bound ~ n^2 x weight, distances ~ n x weight). Without
negative weights int32 is still exact wherever the distance is below CEIL: the shortest path to such an entry has
every subpath shorter than CEIL, so no sum along it is clamped, and every other candidate is a walk at least as long
(or CEIL, above the distance); an entry whose distance is CEIL or more ends at exactly CEIL. So a solve runs in
int32 and checks the matrix for CEIL (`saturated`): none, and every entry is exact; any, and the solve is done again
in int64 (and so is every later solve of that graph).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..graph.csr import CSRGraph

TILES = (16, 32, 64)
"""Tile sizes the GPU kernels are built for (16 x 16 threads, each thread (tile / 16)^2 entries)."""


@dataclass(frozen=True)
class Limits:
    bits: int
    dtype: type
    inf: int
    floor: int
    ceil: int


LIMITS = {
    64: Limits(64, np.int64, int(np.iinfo(np.int64).max), -(2**62), 2**62 - 1),
    32: Limits(32, np.int32, int(np.iinfo(np.int32).max), -(2**30), 2**30 - 1),
}


def int32_fits(low: int, high: int) -> bool:
    """Whether int32 entries are exact for a graph whose simple paths lie in [low, high] (packing_bounds)."""
    limits = LIMITS[32]
    return limits.floor < low and high <= limits.ceil


def choose_bits(requested: int, low: int, high: int) -> int:
    """The distance width: `requested` (32 or 64), or with 0 32 where int32_fits, else 64. A requested 32 that does
    not fit is a ValueError (the implementation turns it into UnsupportedGraphError)."""
    fits = int32_fits(low, high)
    if requested == 0:
        return 32 if fits else 64
    if requested == 32 and not fits:
        raise ValueError(f"int32 distances need simple-path lengths in ({LIMITS[32].floor}, {LIMITS[32].ceil}], "
                         f"but this graph's bounds are [{low}, {high}]")
    if requested not in LIMITS:
        raise ValueError(f"distance bits must be 0, 32 or 64, got {requested}")
    return requested


def optimistic_int32(requested: int, low: int, high: int) -> bool:
    """Whether to solve in int32 and check for saturation (the module docstring): asked for the automatic width
    (0), the bounds do not fit int32, and no weight is negative."""
    return requested == 0 and not int32_fits(low, high) and low >= 0


def saturated(matrix, n: int, n_pad: int, limits: Limits) -> bool:
    """Whether any of the n x n entries of an n_pad x n_pad matrix (numpy or CuPy, flat or square) reached CEIL."""
    return bool((matrix.reshape(n_pad, n_pad)[:n, :n] == limits.ceil).any())


def padded(n: int, tile: int) -> int:
    """n rounded up to a multiple of the tile (at least one tile)."""
    return max(1, -(-int(n) // int(tile))) * int(tile)


def matrix_bytes(n: int, tile: int, bits: int) -> int:
    """Device bytes of the n_pad x n_pad distance matrix."""
    return padded(n, tile) ** 2 * (bits // 8)


def initial_matrix(graph: CSRGraph, n_pad: int, limits: Limits) -> np.ndarray:
    """The matrix a solve starts from (see the module docstring), as the GPU builds it."""
    matrix = np.full((n_pad, n_pad), limits.inf, dtype=np.int64)
    np.fill_diagonal(matrix, 0)
    tails = np.repeat(np.arange(graph.n, dtype=np.int64), np.diff(np.asarray(graph.row_offsets)))
    heads = np.asarray(graph.column_ids, dtype=np.int64)
    weights = (np.ones(graph.m, np.int64) if graph.weights is None
               else np.asarray(graph.weights).astype(np.int64))
    np.minimum.at(matrix, (tails, heads), np.clip(weights, limits.floor, limits.ceil))
    return matrix.astype(limits.dtype)


def _candidates(a: np.ndarray, b: np.ndarray, limits: Limits) -> np.ndarray:
    """a + b clamped to [floor, ceil], INF where either is INF, as the kernels compute it (in int64: finite
    operands lie in [floor, ceil], so their sum fits)."""
    a64, b64 = a.astype(np.int64), b.astype(np.int64)
    finite = (a64 != limits.inf) & (b64 != limits.inf)
    total = np.where(finite, a64, 0) + np.where(finite, b64, 0)
    return np.where(finite, np.clip(total, limits.floor, limits.ceil), limits.inf)


def blocked_floyd_warshall(matrix: np.ndarray, tile: int, limits: Limits) -> int:
    """The GPU schedule on the host, in place: per block round b, (1) the diagonal tile closed over its k in order,
    (2) the tiles of row b and column b, each over the round's k in order with the closed diagonal tile, (3) every
    other tile, min over the round's k of column-b tile + row-b tile. Each step reads every operand before any
    write (the kernels' two barriers per k). Returns the block rounds."""
    n_pad = matrix.shape[0]
    assert n_pad % tile == 0 and matrix.shape == (n_pad, n_pad)
    rounds = n_pad // tile
    for b in range(rounds):
        t = slice(b * tile, (b + 1) * tile)
        diagonal = matrix[t, t]
        for k in range(tile):  # phase 1
            np.minimum(diagonal, _candidates(diagonal[:, k:k + 1], diagonal[k:k + 1, :], limits), out=diagonal)
        for other in range(rounds):  # phase 2
            if other == b:
                continue
            o = slice(other * tile, (other + 1) * tile)
            row, column = matrix[t, o], matrix[o, t]
            for k in range(tile):
                np.minimum(row, _candidates(diagonal[:, k:k + 1], row[k:k + 1, :], limits), out=row)
                np.minimum(column, _candidates(column[:, k:k + 1], diagonal[k:k + 1, :], limits), out=column)
        mask = np.ones(n_pad, bool)
        mask[t] = False
        rest = np.ix_(mask, mask)
        best = matrix[rest]
        for k in range(b * tile, (b + 1) * tile):  # phase 3
            np.minimum(best, _candidates(matrix[mask, k:k + 1], matrix[k:k + 1, mask], limits), out=best)
        matrix[rest] = best
    return rounds


def negative_cycle_vertex(matrix: np.ndarray, source: int, n: int, limits: Limits) -> int | None:
    """The least vertex v with d[source][v] finite and d[v][v] < 0 (a negative cycle reachable from the source),
    or None: the row is then exact."""
    row = matrix[source, :n]
    bad = np.flatnonzero((row != limits.inf) & (np.diagonal(matrix)[:n] < 0))
    return int(bad[0]) if bad.size else None


def model_all_pairs(graph: CSRGraph, tile: int = 32, bits: int = 64) -> tuple[np.ndarray, np.ndarray]:
    """(float64 n x n distances with inf where unreached, the raw final matrix) from the model."""
    limits = LIMITS[bits]
    matrix = initial_matrix(graph, padded(graph.n, tile), limits)
    blocked_floyd_warshall(matrix, tile, limits)
    distances = matrix[: graph.n, : graph.n].astype(np.float64)
    distances[matrix[: graph.n, : graph.n] == limits.inf] = np.inf
    return distances, matrix


def reference_all_pairs(graph: CSRGraph) -> np.ndarray:
    """All-pairs distances from scipy's Floyd-Warshall on the dense matrix of least arc weights (float64, inf where
    unreached); scipy's NegativeCycleError where the graph has a negative cycle. For tests (dense: small n)."""
    from scipy.sparse.csgraph import csgraph_from_dense, floyd_warshall

    n = graph.n
    dense = np.full((n, n), np.inf)
    tails = np.repeat(np.arange(n), np.diff(np.asarray(graph.row_offsets)))
    weights = np.ones(graph.m) if graph.weights is None else np.asarray(graph.weights, dtype=np.float64)
    np.minimum.at(dense, (tails, np.asarray(graph.column_ids, dtype=np.int64)), weights)
    loops = np.diagonal(dense).copy()
    np.fill_diagonal(dense, np.inf)
    result = floyd_warshall(csgraph_from_dense(dense, null_value=np.inf), directed=True)
    if (loops < 0).any():  # scipy ignores the diagonal: a negative self-loop is a negative cycle
        from scipy.sparse.csgraph import NegativeCycleError

        raise NegativeCycleError("a negative self-loop")
    return result
