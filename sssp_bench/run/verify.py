"""Is a distance vector right? A certificate check, an independent reference, and a compare.

Three tools, used together by the runner:

- `certificate(graph, source, distances)`: checks the optimality conditions of shortest paths directly on the
  graph, in one vectorised pass over the arcs (in chunks, so a 100M-arc graph never needs several m-sized
  temporaries), plus, where some arc weighs <= 0, a BFS over the tight arcs (every reached vertex must be reached
  from the source over them). It needs no second solver, so it also works where no reference is affordable, and
  it passes exactly the right distances.
- `reference_distances(graph, source)`: the answer from code that shares nothing with the implementations under
  test: `scipy.sparse.csgraph.dijkstra` for non-negative weights and BFS (unweighted mode); for negative weights
  scipy's Dijkstra again, on weights made non-negative by potentials from a Bellman-Ford written here for the
  purpose (`negative_weight_reference`: Johnson's reweighting; scipy's own bellman_ford and johnson are O(nm)).
  Never the kernels of cpu-bf-queue or cpu-bf, which the reference judges.
- `compare(expected, actual)`: exact for integer weights, relative tolerance for float weights.

All three take distances in canonical form (float64, np.inf where unreached; `impls.canonical_distances`).

Floating-point weights: float32 weights may be summed in float32 by a GPU code and in float64 here, so checks on
float-weighted graphs use a relative tolerance (`FLOAT_RTOL`, relative to the size of the path lengths involved).
Integer weights are summed exactly in float64 (below 2^53), and those checks are exact.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numba
import numpy as np

from ..errors import NegativeCycleError
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
    reached: tuple[int, int] | None = None  # (reached vertices, their out-arcs) where the check counted them

    def __bool__(self) -> bool:
        return self.ok


def tolerance_for(graph: CSRGraph, kind: str = "sssp") -> float:
    """The relative tolerance checks on `graph` use: 0 (exact) unless it has float weights and kind is sssp."""
    if kind == "sssp" and graph.weights is not None and graph.weights.dtype.kind == "f":
        return FLOAT_RTOL
    return 0.0


def format_value(value: float) -> str:
    """A distance as messages write it: a whole number without ".0", inf and -inf by name, else repr."""
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
         a finite d on a vertex nothing reaches;
      4. where the graph has an arc of weight <= 0 (`tight_paths_needed`), and 1-3 hold: every reached vertex is
         reached from the source over tight arcs (a BFS over the tight arcs: `tight_reachable`). Where no arc out
         of a reached vertex is negative and the weights are integers, the BFS starts from the source and from
         every vertex with a tight in-arc of weight > 0 (an "anchor") and follows the weight-0 tight arcs alone:
         the same verdict (below), and few rounds for the device twin, whose BFS goes in rounds.
    kind "bfs" (levels; weights ignored, unit arcs) is the same with w = 1: level(source) 0, no arc spans more than
    one level forward, every reached vertex has a parent one level up; finite levels must also be whole numbers.

    `rtol` (default `tolerance_for(graph, kind)`): conditions 2-4 allow |d[u] + w - d[v]| up to
    rtol * (|d[u]| + |w|), for float weights; integer weights are checked exactly.

    What it proves. With d[source] == 0, condition 2 forces d(v) <= true distance for every v (induction along a
    shortest path), so a value that is too large, or infinite where a path exists, never passes. Condition 4
    gives every reached v a path of tight arcs from the source, of weight d(v), so d(v) >= true distance: d is
    exact. The certificate is complete: it passes exactly the right distances.
    Why condition 4 is needed only where some weight is <= 0. Condition 3 gives every reached v a chain of tight
    arcs backwards; the chain can only fail to reach the source by going round a cycle of tight arcs, and a cycle
    of tight arcs has total weight 0 (within the tolerance, for float weights). With every weight > 0 there is no
    such cycle (for float weights: every weight > rtol * (max |d| + max |w|), so no cycle is tight even within
    the tolerance), every chain ends at the source, and 3 implies 4: the BFS is skipped. Where some arc weighs
    <= 0 (zero-weight arcs a -> b -> a; with negative weights any cycle whose weights sum to 0), conditions 1-3
    alone pass wrong answers that condition 4 catches:
      - a zero-weight cycle that the source cannot reach, given equal finite values (say all 5): every vertex on
        it has a tight in-arc from its predecessor on the cycle, and nothing reached points into it;
      - a zero-weight cycle that is reached, given equal values *smaller* than its true distance D (say D - 1):
        arcs into it from outside give D >= D - 1 (not a relaxation), the cycle's own arcs are tight;
      - anything downstream of such a cycle that is consistent with the wrong values.
    A graph with a reachable negative cycle has no valid distances at all: every vector fails condition 2 somewhere
    on the cycle.
    The anchored search of condition 4 gives the same verdict. Every vertex a tight path from the source reaches is
    found by it (follow the path back to its last arc of weight > 0: its head is an anchor, and only weight-0 arcs
    follow). Conversely, if some reached vertex is on no tight path from the source, take one, v, of least d:
    a tight in-arc of weight > 0 into v would come from a smaller d, hence from a vertex on a tight path, so v
    has none, and neither has any vertex that reaches v over weight-0 tight arcs (same d as v, also on no tight
    path): the anchored search misses v too. So it fails exactly the answers the plain search fails; the count
    of vertices it misses ("unrooted_vertices") is a part of those no tight path reaches.
    Cost: one pass over the arcs in chunks; with condition 4, the tight arcs (about one per reached vertex, more
    with many zero-weight arcs) are kept as (tail, head) pairs and searched once by scipy's BFS.
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
        return CheckResult(False, f"vertex {bad[0]}: {what} is {format_value(d[bad[0]])} ({len(bad)} such vertices)",
                           {"bad_values": int(len(bad))})
    if kind == "bfs":
        bad = np.flatnonzero(np.isfinite(d) & ((d < 0) | (d != np.floor(d))))
        if len(bad):
            return CheckResult(False, f"vertex {bad[0]}: level {format_value(d[bad[0]])} is not a whole number >= 0",
                               {"bad_values": int(len(bad))})
    if d[source] != 0:
        return CheckResult(False, f"vertex {source} (the source): {what} is {format_value(d[source])}, expected 0")

    rtol = tolerance_for(graph, kind) if rtol is None else rtol
    weights = None if kind == "bfs" else graph.weights
    check_paths = kind == "sssp" and tight_paths_needed(graph, d, rtol)
    tight_arcs: list[tuple[np.ndarray, ...]] = []  # condition 4's tight (tail, head, weight > 0), per chunk
    negative_reached_arc = False  # an arc out of a reached vertex weighs < 0: condition 4 searches all tight arcs
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
        if check_paths:
            tight_arcs.append((tails[tight].astype(np.int32), heads[tight].astype(np.int32), w[tight] > 0))
            negative_reached_arc = negative_reached_arc or bool(np.any((w < 0) & np.isfinite(d_tail)))

    unsupported = np.isfinite(d) & ~has_tight_in_arc
    unsupported[source] = False
    orphans = np.flatnonzero(unsupported)
    violation = None
    if first_violation is not None:
        arc, u, w_arc = first_violation
        v = int(graph.column_ids[arc])
        violation = (u, v, w_arc, float(d[u]), float(d[v]))
    orphan = (int(orphans[0]), float(d[orphans[0]])) if len(orphans) else None
    unrooted_count, unrooted = 0, None
    if check_paths and not relax_violations and not len(orphans):
        tails, heads, positive = (np.concatenate([chunk[i] for chunk in tight_arcs]) for i in range(3))
        starts = np.array([source])
        if not rtol and not negative_reached_arc:  # the anchored search: anchors and the source, weight-0 arcs
            anchors = np.zeros(n, dtype=bool)
            anchors[heads[positive]] = True
            anchors[source] = True
            starts, tails, heads = np.flatnonzero(anchors), tails[~positive], heads[~positive]
        cut_off = np.flatnonzero(np.isfinite(d) & ~tight_reachable(n, starts, tails, heads))
        if len(cut_off):
            unrooted_count, unrooted = int(len(cut_off)), (int(cut_off[0]), float(d[cut_off[0]]))
    reached = int(np.count_nonzero(np.isfinite(d)))
    note = f" (relative tolerance {rtol:g})" if rtol else ""
    return certificate_verdict(n, kind, relax_violations, violation, int(len(orphans)), orphan, reached, note,
                               unrooted=unrooted_count, first_unrooted=unrooted)


def tight_paths_needed(graph: CSRGraph, distances: np.ndarray, rtol: float = 0.0) -> bool:
    """Does condition 4 of `certificate` (every reached vertex reached over tight arcs) need checking?

    Only where a cycle of tight arcs can exist: with integer weights (rtol 0), where some arc weighs <= 0; with
    a tolerance, where some weight is <= rtol * (max |d| + max |w|), the most that a tight cycle's arcs can weigh
    on average. Unweighted graphs (every arc 1) never need it. One pass over the weights (vectorised)."""
    if graph.weights is None or graph.m == 0:
        return False
    weights = np.asarray(graph.weights)
    lightest = float(weights.min())
    if not rtol:
        return lightest <= 0
    finite = np.asarray(distances, dtype=np.float64)
    finite = finite[np.isfinite(finite)]
    largest_distance = float(np.abs(finite).max()) if len(finite) else 0.0
    heaviest = max(abs(lightest), abs(float(weights.max())))
    return lightest <= rtol * (largest_distance + heaviest)


def tight_reachable(n: int, starts: np.ndarray, tails: np.ndarray, heads: np.ndarray) -> np.ndarray:
    """bool[n]: the vertices reached from any of `starts` over the arcs (tails[i], heads[i]) (scipy's BFS, from an
    extra vertex n with an arc to each start)."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import breadth_first_order

    starts = np.asarray(starts, dtype=np.int64)
    rows = np.concatenate([np.asarray(tails, dtype=np.int64), np.full(len(starts), n, dtype=np.int64)])
    columns = np.concatenate([np.asarray(heads, dtype=np.int64), starts])
    # Parallel pairs are summed into one entry of weight >= 1: a BFS needs only that the entry is there.
    arcs = csr_matrix((np.ones(len(rows)), (rows, columns)), shape=(n + 1, n + 1))
    reached = np.zeros(n + 1, dtype=bool)
    reached[breadth_first_order(arcs, n, directed=True, return_predecessors=False)] = True
    return reached[:n]


def certificate_verdict(n: int, kind: str, relax_violations: int, first_violation: tuple | None,
                        unsupported: int, first_unsupported: tuple | None, reached: int, note: str = "",
                        unrooted: int = 0, first_unrooted: tuple | None = None) -> CheckResult:
    """The certificate's verdict from its counts and first offences: shared by the pass above and the device
    pass (gpu/certificate.py), so both say the same thing about the same answer.

    first_violation: (u, v, w, d[u], d[v]) of the first arc that can still be relaxed, or None;
    first_unsupported: (v, d[v]) of the first reached vertex without a tight in-arc, or None;
    first_unrooted: (v, d[v]) of the first reached vertex that no path of tight arcs from the source reaches, or
    None (condition 4: counted only where it is checked, when conditions 2 and 3 hold).
    Both offences of 2 and 3 go in the message: a value too small on one vertex usually shows first as a
    relaxable arc out of it, so the vertex without a tight in-arc is the more telling half.
    """
    what = "level" if kind == "bfs" else "distance"
    problems = []
    if first_violation is not None:
        u, v, w_arc, du, dv = first_violation
        arc_name = f"arc {u}->{v}" if kind == "bfs" else f"arc {u}->{v} (w={format_value(w_arc)})"
        problems.append(
            f"vertex {v}: {what} {format_value(dv)}, but {arc_name} from {what} {format_value(du)} gives "
            f"{format_value(du + w_arc)} ({relax_violations} arcs can still be relaxed)"
        )
    counts: dict[str, Any] = {"relax_violations": relax_violations, "unsupported_vertices": unsupported,
                              "unrooted_vertices": unrooted}
    if first_unsupported is not None:
        v, dv = first_unsupported
        need = "no parent one level up" if kind == "bfs" else "no tight in-arc (d[u] + w == d[v] from a reached u)"
        problems.append(
            f"vertex {v}: {what} {format_value(dv)} but {need}: too small, or unreachable and should be inf "
            f"({unsupported} such vertices)"
        )
    if first_unrooted is not None:
        v, dv = first_unrooted
        problems.append(
            f"vertex {v}: {what} {format_value(dv)} but no path of tight arcs from the source reaches it (only a "
            f"cycle of weight 0 vouches for it): too small, or unreachable and should be inf ({unrooted} such vertices)"
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
    order = np.argsort(rows.astype(np.int64) * n + columns)  # by arc (one int64 key sorts 4x faster than lexsort)
    rows, columns, data = rows[order], columns[order], data[order]
    first = np.ones(len(rows), dtype=bool)
    first[1:] = (rows[1:] != rows[:-1]) | (columns[1:] != columns[:-1])
    starts = np.flatnonzero(first)
    data = np.minimum.reduceat(data, starts) if len(starts) else data  # each arc's lightest parallel copy
    rows, columns = rows[starts], columns[starts]
    deduplicated_offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=n), out=deduplicated_offsets[1:])
    return csr_matrix((data, columns, deduplicated_offsets), shape=(n, n))


def reference_distances(graph: CSRGraph, source: int, kind: str = "sssp") -> np.ndarray:
    """Canonical float64 distances (inf = unreached) from an independent solver.

    kind "bfs": scipy dijkstra in unweighted mode (hop counts). kind "sssp": scipy dijkstra when no weight is
    negative; otherwise `negative_weight_reference`, which raises NegativeCycleError for a negative cycle
    reachable from the source (and only for one reachable from it).
    """
    from scipy.sparse.csgraph import dijkstra

    if kind not in ("sssp", "bfs"):
        raise ValueError(f"kind must be 'sssp' or 'bfs', not {kind!r}")
    if not 0 <= source < graph.n:
        raise ValueError(f"source {source} is not a vertex (n={graph.n})")
    if kind == "sssp" and graph.has_negative_weights():
        return negative_weight_reference(graph, source)
    unweighted = kind == "bfs"
    return np.asarray(dijkstra(scipy_matrix(graph, unweighted), directed=True, indices=source, unweighted=unweighted),
                      dtype=np.float64)


CYCLE_LOOK_FROM_ROUND = 256
"""Bellman-Ford rounds after which `bellman_ford_potentials` first looks for a negative cycle among its parent
pointers (then at every power of two): each look costs O(n), and graphs without one rarely need more rounds."""


def negative_weight_reference(graph: CSRGraph, source: int, chunk_arcs: int = CHUNK_ARCS) -> np.ndarray:
    """Distances from `source` on a graph with negative weights, from code that shares nothing with the
    implementations under test (cpu-bf-queue and cpu-bf's numba kernels, the GPU codes); NegativeCycleError when
    a negative cycle is reachable from the source.

    Johnson's reweighting, in two steps:
      1. potentials p: distances from the source by a Bellman-Ford in rounds written for this module
         (`bellman_ford_potentials`), which also finds reachable negative cycles, naming one;
      2. the distances: scipy's Dijkstra on the reduced weights w(u,v) + p(u) - p(v), plus p(v) - p(source).
    For *any* potentials whose reduced weights are >= 0 on the reached arcs, step 2 gives the exact distances: a
    path's reduced weight is its weight plus p(source) - p(v). That is checked here (exactly for integer weights;
    within FLOAT_RTOL for float weights, the negative slack clipped to 0), so the numbers come from scipy's
    Dijkstra whatever step 1 got wrong, short of a wrong negative-cycle verdict, and that verdict names its cycle.
    Why not scipy alone: scipy.sparse.csgraph's bellman_ford always runs n - 1 rounds over every arc (O(nm), no
    early exit; it ignores negative cycles the source cannot reach, like this function), and its johnson runs its
    Bellman-Ford over every arc n times too and refuses a graph with a negative cycle anywhere, reachable or not.
    Both agree with this function on small graphs (tests/test_verify.py); neither finishes on a million arcs.
    Unreached vertices are inf; parallel arcs count with their lightest weight; a negative self-loop is a
    negative cycle. Memory: a few n-sized arrays, the graph as a scipy matrix, and one m-sized float64 array.
    """
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import dijkstra

    matrix = scipy_matrix(graph, keep_self_loops=True)
    potentials = bellman_ford_potentials(matrix, source)
    reached = np.isfinite(potentials)
    finite_potentials = np.where(reached, potentials, 0.0)
    rtol = tolerance_for(graph)
    indptr = np.asarray(matrix.indptr, dtype=np.int64)
    reduced = np.empty(len(matrix.data), dtype=np.float64)
    for start in range(0, len(reduced), chunk_arcs):
        stop = min(start + chunk_arcs, len(reduced))
        tails = _arc_sources(indptr, start, stop)
        heads = matrix.indices[start:stop]
        w = matrix.data[start:stop]
        # Arcs out of unreached vertices are never scanned from the source: 0 keeps them legal for Dijkstra.
        chunk = np.where(reached[tails], w + finite_potentials[tails] - finite_potentials[heads], 0.0)
        infeasible = chunk < -rtol * (np.abs(finite_potentials[tails]) + np.abs(w))
        if infeasible.any():
            arc = int(np.argmax(infeasible))
            raise RuntimeError(f"reference: Bellman-Ford potentials are not feasible at arc {int(tails[arc])}->"
                               f"{int(heads[arc])} (reduced weight {chunk[arc]!r}): a bug in run/verify.py")
        reduced[start:stop] = np.maximum(chunk, 0.0)
    reweighted = csr_matrix((reduced, matrix.indices, matrix.indptr), shape=matrix.shape)
    distances = np.asarray(dijkstra(reweighted, directed=True, indices=source), dtype=np.float64)
    return np.where(reached & np.isfinite(distances), distances + finite_potentials - finite_potentials[source],
                    np.inf)


def bellman_ford_potentials(matrix, source: int) -> np.ndarray:
    """Shortest distances from `source` on a scipy CSR matrix that may hold negative weights (inf = unreached),
    by Bellman-Ford in rounds (`_bellman_ford_rounds`, numba, written for this module alone); NegativeCycleError
    for a negative cycle reachable from the source, naming the cycle where one is found.

    Round r relaxes the out-arcs of the vertices whose label fell in round r - 1 (round 1: the source's), each
    reading its label as it is then. A label only ever falls, and is the weight of a walk from the source whose
    last arc is (parent[v], v), of weight parent_weight[v]. After round r every label is at most the lightest
    walk of <= r arcs, so without a reachable negative cycle no label falls after round n_r - 1 (n_r: the vertices
    the source reaches, by scipy's BFS), and a label that falls in round n_r proves a reachable negative cycle.
    Sooner, from round CYCLE_LOOK_FROM_ROUND on at every power of two, the parent pointers are searched for a
    cycle (O(n)): a parent cycle whose arc weights sum below 0 is a negative cycle the source reaches.
    """
    from scipy.sparse.csgraph import breadth_first_order

    n = matrix.shape[0]
    indptr = np.asarray(matrix.indptr, dtype=np.int64)
    indices = np.asarray(matrix.indices, dtype=np.int64)
    weights = np.asarray(matrix.data, dtype=np.float64)
    reachable = len(breadth_first_order(matrix, source, directed=True, return_predecessors=False))
    distances = np.full(n, np.inf)
    parent = np.full(n, -1, dtype=np.int64)
    parent_weight = np.zeros(n, dtype=np.float64)
    negative, rounds, vertex = _bellman_ford_rounds(indptr, indices, weights, np.int64(source), np.int64(reachable),
                                                    np.int64(CYCLE_LOOK_FROM_ROUND), distances, parent, parent_weight)
    if not negative:
        return distances
    cycle = _parent_cycle_through(parent, int(vertex)) if vertex >= 0 else None
    if cycle is None or float(parent_weight[cycle].sum()) >= 0:
        raise NegativeCycleError(f"reference: negative cycle reachable from source {source}: labels still fall in "
                                 f"round {rounds}, and the source reaches only {reachable} vertices")
    shown = " -> ".join(str(v) for v in cycle[:8]) + (" -> ..." if len(cycle) > 8 else "") + f" -> {cycle[0]}"
    raise NegativeCycleError(f"reference: negative cycle reachable from source {source}: {shown} ({len(cycle)} arcs, "
                             f"weight {format_value(float(parent_weight[cycle].sum()))})", vertex=cycle[0])


def _parent_cycle_through(parent: np.ndarray, vertex: int) -> list[int] | None:
    """The cycle of parent pointers through `vertex` in arc order, from its lowest vertex; None if there is none."""
    cycle = [vertex]
    for _ in range(len(parent)):
        predecessor = int(parent[cycle[-1]])
        if predecessor < 0:
            return None
        if predecessor == vertex:
            cycle.reverse()  # parents point backwards: reversed, the cycle reads in arc order
            lowest = cycle.index(min(cycle))
            return cycle[lowest:] + cycle[:lowest]  # so the message does not depend on where the search began
        cycle.append(predecessor)
    return None


@numba.njit(cache=True)
def _negative_parent_cycle(parent, parent_weight):
    """A vertex on a cycle of the parent pointers whose arcs weigh < 0 in all, or -1: each vertex is walked once
    (a walk stops at a root, at a vertex an earlier walk saw, or back on itself: a cycle), so O(n)."""
    n = len(parent)
    walk = np.zeros(n, np.int64)  # which walk (start + 1) saw the vertex; 0: none yet
    for start in range(n):
        if walk[start] or parent[start] < 0:
            continue
        vertex = start
        while vertex >= 0 and walk[vertex] == 0:
            walk[vertex] = start + 1
            vertex = parent[vertex]
        if vertex >= 0 and walk[vertex] == start + 1:  # this walk came back to `vertex`: a cycle
            total = parent_weight[vertex]
            other = parent[vertex]
            while other != vertex:
                total += parent_weight[other]
                other = parent[other]
            if total < 0:
                return vertex
    return -1


@numba.njit(cache=True)
def _bellman_ford_rounds(indptr, indices, weights, source, reachable, look_from, distances, parent, parent_weight):
    """The rounds of `bellman_ford_potentials`, in place on distances / parent / parent_weight (inf, -1, 0 on
    entry). Returns (negative cycle found, rounds, a vertex on a negative parent cycle or -1)."""
    n = len(distances)
    current = np.empty(max(n, 1), np.int64)
    following = np.empty(max(n, 1), np.int64)
    queued = np.zeros(n, np.bool_)
    distances[source] = 0.0
    current[0] = source
    count = 1
    rounds = 0
    look = look_from
    while count:
        rounds += 1
        next_count = 0
        for i in range(count):
            u = current[i]
            label = distances[u]
            for arc in range(indptr[u], indptr[u + 1]):
                v = indices[arc]
                candidate = label + weights[arc]
                if candidate < distances[v]:
                    distances[v] = candidate
                    parent[v] = u
                    parent_weight[v] = weights[arc]
                    if not queued[v]:
                        queued[v] = True
                        following[next_count] = v
                        next_count += 1
        for i in range(next_count):
            queued[following[i]] = False
        current, following = following, current
        count = next_count
        if count and rounds >= reachable:  # a label fell in round n_r: only a negative cycle allows that
            return True, rounds, _negative_parent_cycle(parent, parent_weight)
        if count and rounds >= look:
            look *= 2
            vertex = _negative_parent_cycle(parent, parent_weight)
            if vertex >= 0:
                return True, rounds, vertex
    return False, rounds, -1


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
            f"expected {format_value(expected[v])}, got {format_value(actual[v])}",
            counts,
        )
    return CheckResult(True, f"all {len(expected)} distances agree" + (f" within {rtol:g}" if rtol else ""), counts)
