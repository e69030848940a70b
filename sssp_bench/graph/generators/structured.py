"""grid, chain and star: the course report's fixed shapes, with seeded uniform weights drawn per edge; da2cf-race:
the compound-frontier Dijkstra paper's counterexample (its section 4.3, Fig. 5 right), weighted so that a lost
write-after-write race leaves a wrong distance."""

from __future__ import annotations

import numpy as np

from ..build import csr_from_edges
from ..rng import STREAM_PERMUTATION, random_words, stream_key
from .common import VERTICES, check_weights, directed_param, edge_weights, generator, seed_param, weight_params
from .spec import INT32_MAX, Param, Params


def _build_grid(params: Params):
    rows, cols = params["rows"], params["cols"]
    vertices = np.arange(rows * cols, dtype=np.int64)
    column = vertices % cols
    # edge ids 2v (v -> right neighbour) and 2v + 1 (v -> neighbour below); weights are drawn by edge id
    right = vertices[column + 1 < cols]
    down = vertices[vertices + cols < rows * cols]
    edge_ids = np.sort(np.concatenate([2 * right, 2 * down + 1]))
    sources = edge_ids // 2
    targets = np.where(edge_ids % 2 == 0, sources + 1, sources + cols)
    all_weights = edge_weights(params["seed"], 2 * rows * cols, params["wmin"], params["wmax"])
    return (*csr_from_edges(rows * cols, sources, targets, all_weights[edge_ids], False), False)


def _check_grid(params: Params) -> str | None:
    if params["rows"] * params["cols"] > INT32_MAX:
        return f"rows*cols = {params['rows'] * params['cols']} vertices do not fit int32 vertex ids"
    return None


def _build_chain(params: Params):
    n = params["n"]
    sources = np.arange(n - 1, dtype=np.int32)
    weights = edge_weights(params["seed"], n - 1, params["wmin"], params["wmax"])
    return (*csr_from_edges(n, sources, sources + 1, weights, params["directed"]), params["directed"])


def _build_star(params: Params):
    n = params["n"]
    leaves = np.arange(1, n, dtype=np.int32)
    weights = edge_weights(params["seed"], n - 1, params["wmin"], params["wmax"])
    return (*csr_from_edges(n, np.zeros(n - 1, dtype=np.int32), leaves, weights, params["directed"]),
            params["directed"])


def _build_da2cf_race(params: Params):
    """Source 0 -> each middle vertex 1..n-2 (weight 1), each middle vertex -> the sink n-1 (weights 1..n-2, a
    seeded permutation: middle vertex i's rank among the counter-based words i-1 of the permutation stream)."""
    n = params["n"]
    middle = np.arange(1, n - 1, dtype=np.int32)
    words = random_words(stream_key(params["seed"], STREAM_PERMUTATION), np.arange(n - 2, dtype=np.uint64))
    rank = np.empty(n - 2, dtype=np.int64)
    rank[np.argsort(words, kind="stable")] = np.arange(n - 2)
    sources = np.concatenate([np.zeros(n - 2, np.int32), middle])
    targets = np.concatenate([middle, np.full(n - 2, n - 1, np.int32)])
    weights = np.concatenate([np.ones(n - 2, np.int32), (1 + rank).astype(np.int32)])
    return (*csr_from_edges(n, sources, targets, weights, params["directed"]), params["directed"])


GENERATORS = [
    generator(
        "grid",
        "2-D 4-neighbour grid, undirected: uniform low degree, diameter rows+cols-2 (course report's grid)",
        {"rows": Param(int, 100, "rows of the grid", minimum=1, maximum=INT32_MAX),
         "cols": Param(int, 100, "columns of the grid", minimum=1, maximum=INT32_MAX),
         **seed_param(), **weight_params()},
        _build_grid, check_weights, _check_grid,
    ),
    generator(
        "chain",
        "a path 0 - 1 - ... - n-1: diameter n-1, no parallelism to find (course report's chain)",
        {**VERTICES, **directed_param(False, "true: arcs i -> i+1 only"), **seed_param(), **weight_params()},
        _build_chain, check_weights,
    ),
    generator(
        "star",
        "hub 0 joined to n-1 leaves: the extreme degree imbalance (course report's star)",
        {**VERTICES, **directed_param(False, "true: arcs hub -> leaf only"), **seed_param(), **weight_params()},
        _build_star, check_weights,
    ),
    generator(
        "da2cf-race",
        "the compound-frontier Dijkstra paper's counterexample (Fig. 5 right): source 0 -> vertices 1..n-2 (weight 1) "
        "-> vertex n-1 (distinct weights 1..n-2, seeded order), so n-2 frontier vertices race to relax n-1 at once; "
        "the right d(n-1) is 2 from source 0, a lost race leaves 3..n-1",
        {"n": Param(int, 1024, "number of vertices (the paper's n = 1024)", minimum=3, maximum=INT32_MAX),
         **directed_param(True, "false: every arc also backwards, the paper's undirected version"), **seed_param()},
        _build_da2cf_race,
    ),
]
