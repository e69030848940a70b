"""communities: k dense clusters of consecutive ids plus sparse arcs between them (the course report's clustered)."""

from __future__ import annotations

import numpy as np

from ..build import csr_from_edges
from ..rng import (
    STREAM_ENDPOINTS,
    STREAM_EXTRA_EDGES,
    STREAM_INTER_CLUSTER,
    STREAM_NEIGHBOURS,
    random_below,
    stream_key,
)
from .common import VERTICES, check_weights, directed_param, edge_weights, generator, seed_param, weight_params
from .spec import Param, Params


def _build_communities(params: Params):
    n, clusters, seed, directed = params["n"], params["clusters"], params["seed"], params["directed"]
    starts = np.arange(clusters + 1, dtype=np.int64) * n // clusters  # cluster c is [starts[c], starts[c+1])
    per_edge = 1 if directed else 2

    def draw_sources(stream: int, count: int) -> tuple[np.ndarray, np.ndarray]:
        sources = random_below(stream_key(seed, stream), np.arange(count, dtype=np.uint64), n)
        return sources, np.searchsorted(starts, sources, side="right") - 1

    inside = round(n * params["intra_degree"] / per_edge)
    sources, cluster = draw_sources(STREAM_ENDPOINTS, inside)
    sizes = starts[cluster + 1] - starts[cluster]
    # uniform over the cluster minus the source itself: draw among size-1 and step over the source
    offsets = random_below(stream_key(seed, STREAM_NEIGHBOURS), np.arange(inside, dtype=np.uint64), sizes - 1)
    targets = starts[cluster] + offsets
    targets += targets >= sources

    between = round(n * params["inter_degree"] / per_edge)
    far_sources, far_cluster = draw_sources(STREAM_INTER_CLUSTER, between)
    far_sizes = starts[far_cluster + 1] - starts[far_cluster]
    # uniform over the vertices outside the source's cluster: draw among n-size and step over the cluster
    far_targets = random_below(stream_key(seed, STREAM_EXTRA_EDGES), np.arange(between, dtype=np.uint64), n - far_sizes)
    far_targets += far_sizes * (far_targets >= starts[far_cluster])

    weights = edge_weights(seed, inside + between, params["wmin"], params["wmax"])
    arrays = csr_from_edges(n, np.concatenate([sources, far_sources]), np.concatenate([targets, far_targets]),
                            weights, directed)
    return (*arrays, directed)


def _check_communities(params: Params) -> str | None:
    n, clusters = params["n"], params["clusters"]
    if clusters > n:
        return f"clusters={clusters} is more than n={n} vertices"
    if params["intra_degree"] > 0 and n // clusters < 2:
        return f"n={n} gives clusters of fewer than 2 vertices, which cannot hold arcs without self-loops"
    if params["inter_degree"] > 0 and clusters < 2:
        return "inter_degree > 0 needs at least 2 clusters"
    return None


GENERATORS = [
    generator(
        "communities",
        "k dense clusters of consecutive ids plus sparse arcs between clusters (course report's clustered)",
        {**VERTICES,
         "clusters": Param(int, 16, "number of clusters (near-equal blocks of consecutive ids)", minimum=1),
         "intra_degree": Param(float, 16.0, "mean out-degree inside a vertex's cluster", minimum=0.0),
         "inter_degree": Param(float, 0.5, "mean out-degree to other clusters", minimum=0.0),
         **directed_param(False, "false: store each edge as two arcs"), **seed_param(), **weight_params()},
        _build_communities, check_weights, _check_communities,
    ),
]
