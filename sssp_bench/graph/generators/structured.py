"""grid, chain and star: the course report's fixed shapes, with seeded uniform weights drawn per edge."""

from __future__ import annotations

import numpy as np

from ..build import csr_from_edges
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
]
