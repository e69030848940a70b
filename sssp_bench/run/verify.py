"""Is a distance vector right? A certificate check, an independent reference, and a compare.

Three tools, used together by the runner:

- `certificate(graph, source, distances)`: checks the optimality conditions of shortest paths directly on the
  graph, in one vectorised pass over the arcs (in chunks, so a 100M-arc graph never needs several m-sized
  temporaries). It needs no second solver, so it also works where no reference is affordable.
- `reference_distances(graph, source)`: the answer from code that shares nothing with the implementations under
  test where possible: `scipy.sparse.csgraph.dijkstra` for non-negative weights and BFS (unweighted mode); the
  numba queue-based Bellman-Ford of `impls.cpu_bellman_ford` for negative weights (scipy has no single-source
  negative-weight solver that is not O(nm)).
- `compare(expected, actual)`: exact for integer weights, relative tolerance for float weights.

All three take distances in canonical form (float64, np.inf where unreached; `impls.canonical_distances`).

Floating-point weights: float32 weights may be summed in float32 by a GPU code and in float64 here, so checks on
float-weighted graphs use a relative tolerance (`FLOAT_RTOL`, relative to the size of the path lengths involved).
Integer weights are summed exactly in float64 (below 2^53), and those checks are exact.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..graph.csr import CSRGraph

FLOAT_RTOL = 1e-5
"""Relative tolerance for float-weighted graphs: float32 sums over paths of thousands of arcs drift ~1e-6."""

CHUNK_ARCS = 1 << 22
"""Arcs per chunk of the certificate pass: each float64 temporary is 32 MiB, whatever m is."""


@dataclass
class CheckResult:
    """The outcome of a check: `ok`, a one-line `message` naming the first offence, and counts for reports."""

    ok: bool
    message: str
    counts: dict[str, Any] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return self.ok


def tolerance_for(graph: CSRGraph, kind: str = "sssp") -> float:
    """The relative tolerance checks on `graph` use: 0 (exact) unless it has float weights and kind is sssp."""
    if kind == "sssp" and graph.weights is not None and graph.weights.dtype.kind == "f":
        return FLOAT_RTOL
    return 0.0


def _format(value: float) -> str:
    if np.isinf(value):
        return "inf" if value > 0 else "-inf"
    return str(int(value)) if float(value).is_integer() and abs(value) < 2**53 else repr(float(value))


def _arc_sources(row_offsets: np.ndarray, start: int, stop: int) -> np.ndarray:
    """The source vertex of every arc in [start, stop), without touching rows outside the chunk."""
    first_row = int(np.searchsorted(row_offsets, start, side="right")) - 1
    last_row = int(np.searchsorted(row_offsets, stop, side="left"))  # rows first_row .. last_row - 1 overlap
    row_starts = np.clip(row_offsets[first_row:last_row], start, stop)
    row_ends = np.clip(row_offsets[first_row + 1 : last_row + 1], start, stop)
    return np.repeat(np.arange(first_row, last_row, dtype=np.int64), row_ends - row_starts)


def certificate(
    graph: CSRGraph,
    source: int,
    distances: np.ndarray,
    kind: str = "sssp",
    rtol: float | None = None,
    chunk_arcs: int = CHUNK_ARCS,
) -> CheckResult:
    """Check that `distances` (canonical float64, inf = unreached) are shortest distances from `source`.

    kind "sssp" (weights as stored, unweighted = 1) checks:
      1. d[source] == 0, and no d is NaN or -inf;
      2. no arc can still be relaxed: no arc (u, v) with d[u] finite and d[u] + w < d[v]. This also catches an
         infinite d[v] that a reached in-neighbour could reach;
      3. every reached vertex other than the source has a tight in-arc, d[u] + w == d[v] from a reached u != v
         (self-loops are ignored here: a zero-weight self-loop would otherwise vouch for any value). This catches
         a finite d on a vertex nothing reaches.
    kind "bfs" (levels; weights ignored, unit arcs) is the same with w = 1: level(source) 0, no arc spans more than
    one level forward, every reached vertex has a parent one level up; finite levels must also be whole numbers.

    `rtol` (default `tolerance_for(graph, kind)`): conditions 2 and 3 allow |d[u] + w - d[v]| up to
    rtol * (|d[u]| + |w|), for float weights; integer weights are checked exactly.

    What it proves, and what it cannot catch. With d[source] == 0, condition 2 forces d(v) <= true distance for
    every v (induction along a shortest path), so a value that is too large, or infinite where a path exists,
    never passes. Condition 3 gives every reached v a chain of tight arcs backwards; if that chain reaches the
    source, it is a path of weight d(v), so d(v) >= true distance and d is exact. The chain can only fail to
    reach the source by going round a cycle of tight arcs, and a cycle of tight arcs has total weight 0. So on a
    graph without zero-weight cycles the certificate is complete: it passes exactly the right distances. With
    zero-weight cycles (e.g. zero-weight arcs a -> b -> a, or longer ones; with negative weights also any cycle
    whose weights sum to 0) it cannot catch:
      - a zero-weight cycle that the source cannot reach, given equal finite values (say all 5): every vertex on
        it has a tight in-arc from its predecessor on the cycle, and nothing reached points into it;
      - a zero-weight cycle that is reached, given equal values *smaller* than its true distance D (say D - 1):
        arcs into it from outside give D >= D - 1 (not a relaxation), the cycle's own arcs are tight;
      - anything downstream of such a cycle that is consistent with the wrong values.
    The reference comparison (`reference_distances` + `compare`) covers these. A graph with a reachable negative
    cycle has no valid distances at all: every vector fails condition 2 somewhere on the cycle.
    """
    if kind not in ("sssp", "bfs"):
        raise ValueError(f"kind must be 'sssp' or 'bfs', not {kind!r}")
    d = np.asarray(distances, dtype=np.float64)
    n = graph.n
    what = "level" if kind == "bfs" else "distance"
    if d.shape != (n,):
        return CheckResult(False, f"{what}s have shape {d.shape}, expected ({n},) for n={n}")
    if not 0 <= source < n:
        return CheckResult(False, f"source {source} is not a vertex (n={n})")
    bad = np.flatnonzero(np.isnan(d) | (d == -np.inf))
    if len(bad):
        return CheckResult(False, f"vertex {bad[0]}: {what} is {_format(d[bad[0]])} ({len(bad)} such vertices)",
                           {"bad_values": int(len(bad))})
    if kind == "bfs":
        bad = np.flatnonzero(np.isfinite(d) & ((d < 0) | (d != np.floor(d))))
        if len(bad):
            return CheckResult(False, f"vertex {bad[0]}: level {_format(d[bad[0]])} is not a whole number >= 0",
                               {"bad_values": int(len(bad))})
    if d[source] != 0:
        return CheckResult(False, f"vertex {source} (the source): {what} is {_format(d[source])}, expected 0")

    rtol = tolerance_for(graph, kind) if rtol is None else rtol
    weights = None if kind == "bfs" else graph.weights
    row_offsets = np.asarray(graph.row_offsets)
    has_tight_in_arc = np.zeros(n, dtype=bool)
    relax_violations = 0
    first_violation: tuple[int, int, float] | None = None
    for start in range(0, graph.m, chunk_arcs):
        stop = min(start + chunk_arcs, graph.m)
        tails = _arc_sources(row_offsets, start, stop)
        heads = np.asarray(graph.column_ids[start:stop], dtype=np.int64)
        w = np.ones(stop - start) if weights is None else np.asarray(weights[start:stop], dtype=np.float64)
        d_tail = d[tails]
        candidate = d_tail + w                      # inf where the tail is unreached
        d_head = d[heads]
        slack = rtol * (np.abs(d_tail) + np.abs(w)) if rtol else 0.0
        with np.errstate(invalid="ignore"):        # inf - inf on unreached tails: NaN compares False, as wanted
            can_relax = candidate < d_head - slack  # inf < inf is False: unreached tails never count
            tight = np.isfinite(candidate) & (np.abs(candidate - d_head) <= slack) & (tails != heads)
        count = int(np.count_nonzero(can_relax))
        if count:
            relax_violations += count
            if first_violation is None:
                arc = int(np.argmax(can_relax))
                first_violation = (start + arc, int(tails[arc]), float(w[arc]))
        has_tight_in_arc[heads[tight]] = True

    unsupported = np.isfinite(d) & ~has_tight_in_arc
    unsupported[source] = False
    orphans = np.flatnonzero(unsupported)
    violation = None
    if first_violation is not None:
        arc, u, w_arc = first_violation
        v = int(graph.column_ids[arc])
        violation = (u, v, w_arc, float(d[u]), float(d[v]))
    orphan = (int(orphans[0]), float(d[orphans[0]])) if len(orphans) else None
    reached = int(np.count_nonzero(np.isfinite(d)))
    note = f" (relative tolerance {rtol:g})" if rtol else ""
    return certificate_verdict(n, kind, relax_violations, violation, int(len(orphans)), orphan, reached, note)


def certificate_verdict(n: int, kind: str, relax_violations: int, first_violation: tuple | None,
                        unsupported: int, first_unsupported: tuple | None, reached: int, note: str = "") -> CheckResult:
    """The certificate's verdict from its counts and first offences: shared by the pass above and the device
    pass (gpu/certificate.py), so both say the same thing about the same answer.

    first_violation: (u, v, w, d[u], d[v]) of the first arc that can still be relaxed, or None;
    first_unsupported: (v, d[v]) of the first reached vertex without a tight in-arc, or None.
    Both offences go in the message: a value too small on one vertex usually shows first as a relaxable arc out
    of it, so the vertex without a tight in-arc is the more telling half.
    """
    what = "level" if kind == "bfs" else "distance"
    problems = []
    if first_violation is not None:
        u, v, w_arc, du, dv = first_violation
        arc_name = f"arc {u}->{v}" if kind == "bfs" else f"arc {u}->{v} (w={_format(w_arc)})"
        problems.append(
            f"vertex {v}: {what} {_format(dv)}, but {arc_name} from {what} {_format(du)} gives "
            f"{_format(du + w_arc)} ({relax_violations} arcs can still be relaxed)"
        )
    counts: dict[str, Any] = {"relax_violations": relax_violations, "unsupported_vertices": unsupported}
    if first_unsupported is not None:
        v, dv = first_unsupported
        need = "no parent one level up" if kind == "bfs" else "no tight in-arc (d[u] + w == d[v] from a reached u)"
        problems.append(
            f"vertex {v}: {what} {_format(dv)} but {need}: too small, or unreachable and should be inf "
            f"({unsupported} such vertices)"
        )
    if problems:
        return CheckResult(False, "; and ".join(problems), counts)
    counts["reached"] = reached
    return CheckResult(True, f"certificate holds: {reached} of {n} vertices reached{note}", counts)


def scipy_matrix(graph: CSRGraph, unweighted: bool = False, keep_self_loops: bool = False):
    """The graph as a scipy CSR matrix that `scipy.sparse.csgraph` reads arc for arc.

    scipy pitfalls handled here: building a sparse matrix from (data, (row, col)) SUMS parallel arcs (and
    `sum_duplicates()` does the same), so parallel arcs are reduced to their minimum weight first. Explicit zero
    entries of a CSR matrix are arcs of weight 0 to csgraph (checked in tests/test_verify.py), so zero-weight
    arcs survive as long as nothing calls `eliminate_zeros()`. Self-loops are dropped unless `keep_self_loops`
    (they never shorten a path with non-negative weights; a negative one is a negative cycle, so a negative-weight
    solver such as scipy's bellman_ford needs them kept).
    """
    from scipy.sparse import csr_matrix

    n, m = graph.n, graph.m
    if unweighted or graph.weights is None:
        data = np.ones(m, dtype=np.float64)
    else:
        data = np.asarray(graph.weights, dtype=np.float64)
    columns = np.asarray(graph.column_ids, dtype=np.int32)
    rows = graph.arc_sources()
    self_loops = rows == columns
    keep_all = keep_self_loops or not self_loops.any()
    matrix = csr_matrix((data, columns, np.asarray(graph.row_offsets, dtype=np.int64)), shape=(n, n))
    if keep_all and matrix.has_canonical_format:  # sorted, no parallel arcs: use as is
        return matrix
    if not keep_all:
        rows, columns, data = rows[~self_loops], columns[~self_loops], data[~self_loops]
    order = np.lexsort((data, columns, rows))  # by arc, then by weight: the first of each arc is its minimum
    rows, columns, data = rows[order], columns[order], data[order]
    first = np.ones(len(rows), dtype=bool)
    first[1:] = (rows[1:] != rows[:-1]) | (columns[1:] != columns[:-1])
    rows, columns, data = rows[first], columns[first], data[first]
    deduplicated_offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=n), out=deduplicated_offsets[1:])
    return csr_matrix((data, columns, deduplicated_offsets), shape=(n, n))


def reference_distances(graph: CSRGraph, source: int, kind: str = "sssp") -> np.ndarray:
    """Canonical float64 distances (inf = unreached) from an independent solver.

    kind "bfs": scipy dijkstra in unweighted mode (hop counts). kind "sssp": scipy dijkstra when no weight is
    negative; otherwise the queue-based Bellman-Ford, which raises NegativeCycleError for a negative cycle
    reachable from the source.
    """
    from scipy.sparse.csgraph import dijkstra

    if kind not in ("sssp", "bfs"):
        raise ValueError(f"kind must be 'sssp' or 'bfs', not {kind!r}")
    if not 0 <= source < graph.n:
        raise ValueError(f"source {source} is not a vertex (n={graph.n})")
    if kind == "sssp" and graph.has_negative_weights():
        from ..kernels.bellman_ford import spfa_distances

        distances, unreached = spfa_distances(graph, source)
        canonical = distances.astype(np.float64)
        canonical[distances == unreached] = np.inf
        return canonical
    unweighted = kind == "bfs"
    return np.asarray(dijkstra(scipy_matrix(graph, unweighted), directed=True, indices=source, unweighted=unweighted),
                      dtype=np.float64)


def compare(expected: np.ndarray, actual: np.ndarray, rtol: float | None = None) -> CheckResult:
    """Do two canonical distance vectors agree? inf must match inf exactly; finite values exactly or within rtol.

    rtol None: exact when every finite expected value is a whole number (integer weights, BFS), else FLOAT_RTOL.
    Pass `tolerance_for(graph)` to decide by the graph's weight type instead.
    """
    expected = np.asarray(expected, dtype=np.float64)
    actual = np.asarray(actual, dtype=np.float64)
    if expected.shape != actual.shape:
        return CheckResult(False, f"shapes differ: expected {expected.shape}, got {actual.shape}")
    finite = np.isfinite(expected)
    if rtol is None:
        rtol = 0.0 if np.array_equal(expected[finite], np.floor(expected[finite])) else FLOAT_RTOL
    with np.errstate(invalid="ignore"):  # inf - inf
        if rtol:
            close = np.abs(actual - expected) <= rtol * np.maximum(np.abs(expected), 1.0)
        else:
            close = actual == expected
    same = np.where(finite, close, actual == expected)  # inf only matches inf (and NaN matches nothing)
    differing = np.flatnonzero(~same)
    counts = {"differing": int(len(differing)), "n": int(len(expected))}
    if len(differing):
        v = int(differing[0])
        how = f" (relative tolerance {rtol:g})" if rtol else ""
        return CheckResult(
            False,
            f"{len(differing)} of {len(expected)} distances differ{how}; first at vertex {v}: "
            f"expected {_format(expected[v])}, got {_format(actual[v])}",
            counts,
        )
    return CheckResult(True, f"all {len(expected)} distances agree" + (f" within {rtol:g}" if rtol else ""), counts)
