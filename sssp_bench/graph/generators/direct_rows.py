"""dag, complete and fixed-degree: rows filled in place, each with distinct neighbours (parDijkstra, da2cf).

dag and complete can make every shortest path follow the chain 0 - 1 - ... - n-1 (chain_shortest): a skip arc
costs the chain it bypasses plus a uniform extra, so the hop diameter is V, as parDijkstra's Figures 5 and 6.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ..build import csr_from_edges
from ..rng import STREAM_NEIGHBOURS, STREAM_WEIGHTS, U64_ONE, random_below, random_word, stream_key, word_below
from .common import VERTICES, check_weights, edge_weights, generator, seed_param, weight_params
from .spec import INT32_MAX, Param, Params

_ROW_COUNTER_SHIFT = np.uint64(32)  # row v owns counters v * 2^32 + 0, 1, 2, ...


@njit(inline="always", cache=True)
def _sample_sorted_distinct(key, base, span, out):
    """Fill `out` with len(out) distinct numbers of [0, span), sorted, every subset equally likely.

    Rows denser than 1/32 scan all candidates (selection sampling, O(span) cheap draws); sparser rows draw
    with replacement, sort, drop repeats and top up (O(k log k) per round, repeats are rare). The cut-off is
    where the two cost about the same (measured: a 4096-of-30000 row is 10x faster scanned).
    """
    count = len(out)
    if count == 0:
        return
    word_index = np.uint64(0)
    if 32 * count >= span:
        chosen = 0
        for candidate in range(span):
            if word_below(random_word(key, base + word_index), span - candidate) < count - chosen:
                out[chosen] = candidate
                chosen += 1
                if chosen == count:
                    break
            word_index += U64_ONE
        return
    filled = 0
    while filled < count:
        for index in range(filled, count):
            out[index] = word_below(random_word(key, base + word_index), span)
            word_index += U64_ONE
        out.sort()
        filled = 1
        for index in range(1, count):
            if out[index] != out[filled - 1]:
                out[filled] = out[index]
                filled += 1


@njit(parallel=True, cache=True)
def _fill_dag_rows(row_offsets, key, column_ids):
    """Row i: i+1 first (the chain), then distinct sorted random targets among i+2 .. n-1."""
    n = len(row_offsets) - 1
    for vertex_index in prange(n):
        vertex = np.int64(vertex_index)
        start = row_offsets[vertex]
        end = row_offsets[vertex + 1]
        if end == start:
            continue
        column_ids[start] = vertex + 1
        row = column_ids[start + 1 : end]
        _sample_sorted_distinct(key, np.uint64(vertex) << _ROW_COUNTER_SHIFT, n - vertex - 2, row)
        for index in range(len(row)):
            row[index] += vertex + 2


@njit(parallel=True, cache=True)
def _fill_fixed_degree_rows(row_offsets, key, column_ids):
    """Row v: distinct sorted random neighbours among all vertices but v."""
    n = len(row_offsets) - 1
    for vertex_index in prange(n):
        vertex = np.int64(vertex_index)
        row = column_ids[row_offsets[vertex] : row_offsets[vertex + 1]]
        _sample_sorted_distinct(key, np.uint64(vertex) << _ROW_COUNTER_SHIFT, n - 1, row)
        for index in range(len(row)):
            if row[index] >= vertex:  # skip v itself: no self-loops, still sorted
                row[index] += 1


@njit(parallel=True, cache=True)
def _add_chain_lengths(row_offsets, column_ids, chain_prefix, weights):
    """Skip arc i -> j (j > i + 1) costs the chain it bypasses, chain_prefix[j] - chain_prefix[i], on top."""
    n = len(row_offsets) - 1
    for vertex_index in prange(n):
        vertex = np.int64(vertex_index)
        for at in range(row_offsets[vertex], row_offsets[vertex + 1]):
            target = column_ids[at]
            if target > vertex + 1:
                weights[at] += chain_prefix[target] - chain_prefix[vertex]


@njit(parallel=True, cache=True)
def _fill_complete_rows(n, key, wmin, wspan, chain_prefix, chain_shortest, column_ids, weights):
    for vertex_index in prange(n):
        vertex = np.int64(vertex_index)
        at = vertex * (n - 1)
        for other in range(n):
            if other == vertex:
                continue
            low = min(vertex, other)
            high = max(vertex, other)
            # the weight is a function of the unordered pair, so both arcs of the edge agree
            weight = wmin + word_below(random_word(key, np.uint64(low) * np.uint64(n) + np.uint64(high)), wspan)
            if chain_shortest and high - low >= 2:
                weight += chain_prefix[high] - chain_prefix[low]
            column_ids[at] = other
            weights[at] = weight
            at += 1


def _check_chain_shortest(params: Params) -> str | None:
    if not params["chain_shortest"]:
        return None
    if params["wmin"] < 1:
        return "chain_shortest needs wmin >= 1, so that every skip arc is strictly longer than the chain"
    longest = params["n"] * (params["wmax"] - 1)
    if longest > INT32_MAX:
        return (f"chain_shortest weights can reach n*(wmax-1) = {longest} > {INT32_MAX} (int32); "
                "lower n or wmax, or set chain_shortest=false")
    return None


def _build_complete(params: Params):
    n, wmin, wmax = params["n"], params["wmin"], params["wmax"]
    key = stream_key(params["seed"], STREAM_WEIGHTS)
    chain_prefix = np.zeros(n, dtype=np.int64)
    if n > 1:
        # the chain edge {i, i+1} has the same pair-hashed weight in the kernel: prefix sums of exactly those
        chain = np.arange(n - 1, dtype=np.uint64)
        chain_weights = wmin + random_below(key, chain * np.uint64(n) + chain + np.uint64(1), wmax - wmin)
        np.cumsum(chain_weights, out=chain_prefix[1:])
    row_offsets = np.arange(n + 1, dtype=np.int64) * (n - 1)
    column_ids = np.empty(n * (n - 1), dtype=np.int32)
    weights = np.empty(n * (n - 1), dtype=np.int32)
    _fill_complete_rows(n, key, np.int64(wmin), np.int64(wmax - wmin), chain_prefix, params["chain_shortest"],
                        column_ids, weights)
    return row_offsets, column_ids, weights, False


def _build_dag(params: Params):
    n, degree, seed = params["n"], params["degree"], params["seed"]
    vertices = np.arange(n, dtype=np.int64)
    # vertex i can reach only the n-1-i vertices after it, so the last rows are shorter than `degree`
    degrees = np.minimum(degree, n - 1 - vertices)
    row_offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(degrees, out=row_offsets[1:])
    column_ids = np.empty(row_offsets[-1], dtype=np.int32)
    _fill_dag_rows(row_offsets, stream_key(seed, STREAM_NEIGHBOURS), column_ids)
    weights = edge_weights(seed, len(column_ids), params["wmin"], params["wmax"])
    if params["chain_shortest"] and n > 1:
        chain_prefix = np.zeros(n, dtype=np.int64)
        np.cumsum(weights[row_offsets[:-2]], out=chain_prefix[1:])  # the chain arc opens every row but the last
        _add_chain_lengths(row_offsets, column_ids, chain_prefix, weights)
    return row_offsets, column_ids, weights, True


def _build_fixed_degree(params: Params):
    n, degree, seed = params["n"], params["degree"], params["seed"]
    row_offsets = np.arange(n + 1, dtype=np.int64) * degree
    neighbours = np.empty(n * degree, dtype=np.int32)
    _fill_fixed_degree_rows(row_offsets, stream_key(seed, STREAM_NEIGHBOURS), neighbours)
    weights = edge_weights(seed, len(neighbours), params["wmin"], params["wmax"])
    if not params["predecessor"]:
        return row_offsets, neighbours, weights, True
    # da2cf draws each vertex's predecessors, then stores the successor lists: in-degrees are all `degree`
    targets = np.repeat(np.arange(n, dtype=np.int32), degree)
    return (*csr_from_edges(n, neighbours, targets, weights, True), True)


def _check_fixed_degree(params: Params) -> str | None:
    if params["degree"] > params["n"] - 1:
        return f"degree={params['degree']} needs at least degree+1 vertices, n={params['n']}"
    return None


GENERATORS = [
    generator(
        "dag",
        "parBucketHeap DAG: arc i -> i+1 plus degree-1 random later targets; with chain_shortest every "
        "shortest path follows the chain, so D = V (parDijkstra Fig. 5: dag:n=30000,degree=4096)",
        {**VERTICES,
         "degree": Param(int, 16, "out-degree (the chain arc included); the last vertices have fewer", minimum=1),
         "chain_shortest": Param(bool, True, "skip arcs cost the chain they bypass plus a uniform extra (D = V)"),
         **seed_param(), **weight_params()},
        _build_dag, check_weights, _check_chain_shortest,
    ),
    generator(
        "complete",
        "complete undirected graph, n(n-1) arcs; with chain_shortest every shortest path follows "
        "0-1-...-n-1, so D = V (parDijkstra Fig. 6)",
        {"n": Param(int, 1024, "number of vertices", minimum=1, maximum=65536),
         "chain_shortest": Param(bool, True, "edge {i,j}, j > i+1, costs the chain between plus a uniform extra"),
         **seed_param(), **weight_params()},
        _build_complete, check_weights, _check_chain_shortest,
    ),
    generator(
        "fixed-degree",
        "every vertex has exactly `degree` distinct random out-neighbours (no self-loops), weights 1..10 "
        "(da2cf: degree 7; predecessor=true draws in-neighbours as da2cf did)",
        {**VERTICES,
         "degree": Param(int, 7, "out-degree of every vertex (in-degree with predecessor=true)", minimum=0),
         "predecessor": Param(bool, False, "draw each vertex's predecessors, store successors (in-degree fixed)"),
         **seed_param(), **weight_params(1, 11)},
        _build_fixed_degree, check_weights, _check_fixed_degree,
    ),
]
