"""random, rmat and kron: every edge drawn on its own from its counters, uniform or by R-MAT recursion.

Edge i's endpoints and weight depend only on i, so the CSR builder's count and scatter passes each draw the
edges afresh (no edge list is kept: peak memory stays near the CSR itself) and threads cannot change a byte.

  * Parallel arcs are kept as drawn, as GTGraph and Graph500 emit them; self-loops are redrawn (random, rmat;
    Graph500 kron keeps its self-loops unless self_loops=false).
  * R-MAT with n not a power of two: the recursion runs on the next power of two and an arc with an endpoint
    outside [0, n) is redrawn (like a self-loop), so the graph has exactly n vertices and m arcs and keeps the
    R-MAT skew, conditioned on both endpoints being < n.
  * `m` counts arcs as stored (H-BF's tables count an undirected edge twice): an undirected graph draws m/2 edges.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from ..build import count_arcs_per_source, csr_by_counting_sort, scatter_arcs
from ..rng import (
    STREAM_ENDPOINTS,
    STREAM_PERMUTATION,
    STREAM_WEIGHTS,
    U64_HALF_BITS,
    U64_LOW_HALF,
    U64_ONE,
    random_word,
    stream_key,
    word_below,
)
from .common import VERTICES, check_weights, directed_param, generator, seed_param, weight_params
from .spec import Param, Params, format_value

_EDGE_COUNTER_SHIFT = np.uint64(24)  # edge i owns counters i * 2^24 + 0, 1, 2, ... (its draws and redraws)

# What the builder's passes need to draw edge i: endpoints (uniform, or R-MAT with cumulative quadrant thresholds
# over `levels` levels), an optional relabelling, and the weight.
DrawnEdges = namedtuple("DrawnEdges", "n num_edges key levels thresholds recursive self_loops permutation "
                                      "weight_key wmin wspan")


@njit(inline="always", cache=True)
def _draw_endpoints(key, edge, n, levels, thresholds, recursive, self_loops, permutation):
    """Endpoints of edge number `edge`: uniform, or by R-MAT recursion; redrawn while invalid.

    Each edge owns counters edge * 2^24 + 0, 1, 2...; attempts take the next words, so redraws stay seeded.
    """
    base = np.uint64(edge) << _EDGE_COUNTER_SHIFT
    word_index = np.uint64(0)
    source = np.int64(0)
    target = np.int64(0)
    threshold_a = thresholds[0]
    threshold_ab = thresholds[1]
    threshold_abc = thresholds[2]
    while True:
        if recursive:
            source = np.int64(0)
            target = np.int64(0)
            word = np.uint64(0)
            for level in range(levels):
                # a word holds two 32-bit draws: one quadrant choice per level
                if level & 1 == 0:
                    word = random_word(key, base + word_index)
                    word_index += U64_ONE
                    draw = word & U64_LOW_HALF
                else:
                    draw = word >> U64_HALF_BITS
                # branch-free quadrant choice (random branches mispredict; this is 3x faster):
                # source bit set in c and d (draw >= a+b), target bit set in b and d
                source_bit = np.int64(draw >= threshold_ab)
                target_bit = np.int64((draw >= threshold_a) & (draw < threshold_ab)) | np.int64(draw >= threshold_abc)
                source = (source << 1) | source_bit
                target = (target << 1) | target_bit
        else:
            word = random_word(key, base + word_index)
            word_index += U64_ONE
            source = np.int64(((word & U64_LOW_HALF) * np.uint64(n)) >> U64_HALF_BITS)
            target = np.int64(((word >> U64_HALF_BITS) * np.uint64(n)) >> U64_HALF_BITS)
        if source < n and target < n and (self_loops or source != target):
            break
    if len(permutation):
        source = np.int64(permutation[source])
        target = np.int64(permutation[target])
    return source, target


@njit(inline="always", cache=True)
def _drawn_edge(edges, edge):
    source, target = _draw_endpoints(edges.key, edge, edges.n, edges.levels, edges.thresholds, edges.recursive,
                                     edges.self_loops, edges.permutation)
    # the weight belongs to the edge, so both arcs of an undirected edge carry it
    weight = edges.wmin + word_below(random_word(edges.weight_key, np.uint64(edge)), edges.wspan)
    return source, target, weight


@njit(parallel=True, cache=True)
def _count_drawn(n, edges, directed, num_chunks):
    return count_arcs_per_source(n, edges.num_edges, _drawn_edge, edges, directed, num_chunks)


@njit(parallel=True, cache=True)
def _scatter_drawn(edges, directed, cursors, column_ids, weights):
    scatter_arcs(edges.num_edges, _drawn_edge, edges, directed, cursors, column_ids, weights)


def _drawn_arcs_csr(
    n: int, num_edges: int, seed: int, directed: bool, wmin: int, wmax: int, *,
    quadrants: tuple[float, float, float, float] | None = None, self_loops: bool = False,
    permutation: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """CSR of `num_edges` drawn edges: uniform endpoints, or R-MAT when `quadrants` = (a, b, c, d) is given."""
    recursive = quadrants is not None
    levels = max(0, (n - 1).bit_length())  # recursion depth: the next power of two >= n
    if recursive:
        a, b, c, _ = quadrants
        cumulative = (a, a + b, a + b + c)
        thresholds = np.array([min(round(p * 2**32), 2**32) for p in cumulative], dtype=np.uint64)
    else:
        thresholds = np.zeros(3, dtype=np.uint64)
    permutation = np.empty(0, dtype=np.int32) if permutation is None else permutation
    edges = DrawnEdges(n, num_edges, stream_key(seed, STREAM_ENDPOINTS), levels, thresholds, recursive, self_loops,
                       permutation, stream_key(seed, STREAM_WEIGHTS), np.int64(wmin), np.int64(wmax - wmin))
    return csr_by_counting_sort(n, _count_drawn, _scatter_drawn, edges, directed)


@njit(cache=True)
def _seeded_permutation(n, key):
    """Fisher-Yates with counter-based draws: a permutation of range(n) that depends only on the key."""
    permutation = np.arange(n).astype(np.int32)
    for index in range(n - 1, 0, -1):
        other = word_below(random_word(key, np.uint64(index)), index + 1)
        permutation[index], permutation[other] = permutation[other], permutation[index]
    return permutation


# ----------------------------------------------------------------------------------------------------------

_ARC_COUNT = {"m": Param(int, 131072, "number of arcs stored (an undirected graph draws m/2 edges)", minimum=0,
                         maximum=2**40)}


def _quadrant_params(a: float, b: float, c: float, d: float) -> dict[str, Param]:
    return {
        "a": Param(float, a, "probability of the top-left quadrant (source bit 0, target bit 0)", 0.0, 1.0),
        "b": Param(float, b, "probability of the top-right quadrant (source bit 0, target bit 1)", 0.0, 1.0),
        "c": Param(float, c, "probability of the bottom-left quadrant (source bit 1, target bit 0)", 0.0, 1.0),
        "d": Param(float, d, "probability of the bottom-right quadrant; a + b + c + d = 1", 0.0, 1.0),
    }


def _check_arc_count(params: Params) -> str | None:
    if not params["directed"] and params["m"] % 2:
        return f"m={params['m']} is odd, but an undirected graph stores each edge as two arcs"
    if params["n"] < 2 and params["m"] > 0:
        return "n must be at least 2 to draw arcs without self-loops"
    return None


def _check_quadrants(params: Params) -> str | None:
    quadrants = [params[key] for key in "abcd"]
    if min(quadrants) <= 0 or abs(sum(quadrants) - 1) > 1e-9:
        return f"a, b, c, d must be positive and sum to 1, got {', '.join(map(format_value, quadrants))}"
    return None


def _check_kron(params: Params) -> str | None:
    if not params["self_loops"] and params["scale"] < 1:
        return "scale must be at least 1 to draw edges without self-loops"
    return None


def _build_random(params: Params):
    p = params
    return (*_drawn_arcs_csr(p["n"], p["m"] if p["directed"] else p["m"] // 2, p["seed"], p["directed"],
                             p["wmin"], p["wmax"]), p["directed"])


def _build_rmat(params: Params):
    p = params
    quadrants = (p["a"], p["b"], p["c"], p["d"])
    arrays = _drawn_arcs_csr(p["n"], p["m"] if p["directed"] else p["m"] // 2, p["seed"], p["directed"],
                             p["wmin"], p["wmax"], quadrants=quadrants)
    return (*arrays, p["directed"])


def _build_kron(params: Params):
    p = params
    n = 1 << p["scale"]
    # Graph500 relabels the vertices with a random permutation so that the degree skew is not visible in the ids
    permutation = _seeded_permutation(n, stream_key(p["seed"], STREAM_PERMUTATION))
    arrays = _drawn_arcs_csr(n, p["edgefactor"] * n, p["seed"], p["directed"], p["wmin"], p["wmax"],
                             quadrants=(p["a"], p["b"], p["c"], p["d"]), self_loops=p["self_loops"],
                             permutation=permutation)
    return (*arrays, p["directed"])


GENERATORS = [
    generator(
        "random",
        "GTGraph G(n,m): m arcs with uniform random endpoints, self-loops redrawn "
        "(H-BF and BFS-4K random.2Mv.128Me: random:n=2M,m=128M)",
        {**VERTICES, **_ARC_COUNT, **directed_param(True, "false: store each edge as two arcs"),
         **seed_param(), **weight_params()},
        _build_random, check_weights, _check_arc_count,
    ),
    generator(
        "rmat",
        "GTGraph R-MAT: m arcs placed by recursive quadrant choice, skewed degrees, self-loops redrawn "
        "(H-BF rmat.3Mv.20Me: rmat:n=3M,m=20M; BFS-4K rmat.2Mv.128Me)",
        {**VERTICES, **_ARC_COUNT, **_quadrant_params(0.45, 0.15, 0.15, 0.25),
         **directed_param(True, "false: store each edge as two arcs"), **seed_param(), **weight_params()},
        _build_rmat, check_weights, _check_arc_count, _check_quadrants,
    ),
    generator(
        "kron",
        "Graph500 Kronecker: 2^scale vertices, edgefactor*2^scale edges, labels permuted, undirected, "
        "self-loops and duplicates kept as Graph500 (BFS-4K kron_g500-lon20: kron:scale=20)",
        {"scale": Param(int, 16, "log2 of the number of vertices", minimum=0, maximum=30),
         "edgefactor": Param(int, 16, "edges per vertex (an undirected edge is stored as two arcs)", minimum=0,
                             maximum=2**20),
         **_quadrant_params(0.57, 0.19, 0.19, 0.05),
         "self_loops": Param(bool, True, "keep self-loops as Graph500 does (false: redraw them)"),
         **directed_param(False, "true: keep each drawn edge as one arc"), **seed_param(), **weight_params()},
        _build_kron, check_weights, _check_quadrants, _check_kron,
    ),
]
