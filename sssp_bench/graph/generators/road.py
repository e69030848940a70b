"""road: a road-like map (stands in for DIMACS USA-road in H-BF).

Points on a jittered near-square lattice; a random spanning tree keeps the map connected, and other lattice
neighbours are joined with the probability that brings the mean degree to `degree` (~2.5, as road networks);
weights are proportional to a road's length. The hop diameter is about 2 sqrt(n).
"""

from __future__ import annotations

import math

import numpy as np

from ..build import csr_from_edges
from ..rng import STREAM_EXTRA_EDGES, STREAM_JITTER, STREAM_TREE, random_unit, stream_key
from .common import VERTICES, check_weights, generator, seed_param, weight_params
from .spec import Param, Params


def _build_road(params: Params):
    n, seed, jitter = params["n"], params["seed"], params["jitter"]
    wmin, wmax = params["wmin"], params["wmax"]
    cols = max(1, math.isqrt(n - 1) + 1) if n > 1 else 1  # ceil(sqrt(n)): a near-square lattice
    vertices = np.arange(n, dtype=np.int64)
    row, column = vertices // cols, vertices % cols
    # edge ids: 2v is v -> right neighbour, 2v + 1 is v -> neighbour below
    is_edge = np.zeros(2 * n, dtype=bool)
    is_edge[0::2] = (column + 1 < cols) & (vertices + 1 < n)
    is_edge[1::2] = vertices + cols < n

    # a random spanning tree keeps the map connected: every vertex but 0 joins its left or upper neighbour
    # (forced on the first row and column); it has n-1 edges, mean degree ~2, and no cycle since parents come first
    go_up = random_unit(stream_key(seed, STREAM_TREE), vertices) < 0.5
    go_up = np.where(row == 0, False, np.where(column == 0, True, go_up))
    children = vertices[1:]
    tree_ids = np.where(go_up[1:], 2 * (children - cols) + 1, 2 * (children - 1))
    in_tree = np.zeros(2 * n, dtype=bool)
    in_tree[tree_ids] = True

    # then keep each other lattice edge with the probability that brings the mean degree to `degree`
    spare = int(is_edge.sum()) - (n - 1)
    wanted = params["degree"] * n / 2 - (n - 1)
    keep_probability = min(1.0, max(0.0, wanted / spare)) if spare > 0 else 0.0
    keep = random_unit(stream_key(seed, STREAM_EXTRA_EDGES), np.arange(2 * n, dtype=np.uint64)) < keep_probability
    edge_ids = np.flatnonzero(in_tree | (is_edge & keep))

    sources = edge_ids // 2
    targets = np.where(edge_ids % 2 == 0, sources + 1, sources + cols)
    jitter_key = stream_key(seed, STREAM_JITTER)
    x = column + jitter * (2 * random_unit(jitter_key, 2 * vertices) - 1)
    y = row + jitter * (2 * random_unit(jitter_key, 2 * vertices + 1) - 1)
    length = np.hypot(x[targets] - x[sources], y[targets] - y[sources])
    # weight proportional to length: the longest possible road (two jittered neighbours) costs wmax - 1
    longest = math.hypot(1 + 2 * jitter, 2 * jitter)
    weights = np.clip(np.ceil(length * ((wmax - 1) / longest)), wmin, wmax - 1).astype(np.int32)
    return (*csr_from_edges(n, sources, targets, weights, False), False)


GENERATORS = [
    generator(
        "road",
        "road-like: jittered near-square lattice, spanning tree plus near-neighbour roads to mean degree ~2.5, "
        "weights proportional to length, diameter ~2*sqrt(n) (stands in for DIMACS USA-road in H-BF)",
        {**VERTICES,
         "degree": Param(float, 2.5, "mean degree (arcs per vertex), 2 (a tree) to 4 (the full lattice)", 2.0, 4.0),
         "jitter": Param(float, 0.3, "how far a point may move off its lattice site, in lattice spacings",
                         0.0, 0.49),
         **seed_param(), **weight_params(1, 1001)},
        _build_road, check_weights,
    ),
]
