"""Weight assignments: give a graph's topology other int32 weights, seeded, before a run.

Spec language (the generators' one, see `sssp_bench.graph.generators.spec`), or the same as a dict from a YAML config:
    keep                                           the graph's own weights (the default)
    unit                                           every arc weighs 1 (BFS-like SSSP)
    uniform:min=1,max=101,seed=1                   uniform integers in [min, max)
    negative:min=1,max=101,potential=50,seed=1,base=uniform
                                                   H-BF's second graph set: negative arcs, no negative cycle
    {kind: uniform, min: 1, max: 100, seed: 3}     dict form of the same

`negative` starts from base weights w (uniform [min, max), or the graph's own with base=keep), draws seeded
integer potentials p(v) in [0, potential) and sets w'(u,v) = w(u,v) + p(u) - p(v). Around any cycle the
potentials cancel, so every cycle keeps its (non-negative) weight: arcs go negative, cycles never do, and
shortest paths are those of w, with d'(s,v) = d(s,v) + p(s) - p(v). An undirected edge's two arcs get
different weights (w + p(u) - p(v) one way, w + p(v) - p(u) the other), so the result is a directed graph
(both arcs still stored) and `meta["weights"]["from_undirected"]` says so.

Undirected graphs get the same base weight on both arcs of an edge: the weight is a hash of
(min(u,v), max(u,v), seed), vectorised; directed graphs hash the arc's position. Weights stay int32: a sum that
would leave int32 is refused with a SpecError, never wrapped. The assignment is recorded in
`graph.meta["weights"]`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit, prange

from .csr import CSRGraph
from ..errors import SpecError
from .generators.spec import INT32_MAX, Param, canonical_from_params, resolve_params, split_spec
from .rng import STREAM_POTENTIALS, STREAM_WEIGHTS, random_below, random_word, stream_key, uniform_ints, word_below

INT32_MIN = -(2**31)
_EXAMPLE = "uniform:min=1,max=100,seed=3"


def _range_params() -> dict[str, Param]:
    return {
        "min": Param(int, 1, "smallest weight (inclusive)", minimum=INT32_MIN, maximum=INT32_MAX),
        "max": Param(int, 101, "weights are drawn from [min, max)", minimum=INT32_MIN + 1, maximum=INT32_MAX + 1),
        "seed": Param(int, 1, "seed of the weight stream", minimum=0, maximum=2**63 - 1),
    }


WEIGHT_KINDS: dict[str, dict[str, Param]] = {
    "keep": {},
    "unit": {},
    "uniform": _range_params(),
    "negative": {
        **_range_params(),
        "potential": Param(int, 50, "potentials p(v) are drawn from [0, potential)", minimum=1, maximum=INT32_MAX),
        "base": Param(str, "uniform", "base weights before the potentials: uniform [min, max) or the graph's own",
                      choices=("uniform", "keep")),
    },
}

WEIGHT_DESCRIPTIONS = {
    "keep": "the graph's own weights",
    "unit": "every arc weighs 1",
    "uniform": "seeded uniform int32 weights in [min, max)",
    "negative": "H-BF's negative arcs without negative cycles: w + p(u) - p(v) with seeded potentials p",
}


def parse_weight_spec(spec: str | dict[str, Any] | None) -> dict[str, Any]:
    """'uniform:min=1,max=100,seed=3' or {kind: uniform, ...} -> {"kind": "uniform", every parameter filled in}.

    None means keep. Unknown kind or key, malformed pair, wrong type or empty range => SpecError.
    """
    if spec is None:
        spec = "keep"
    if isinstance(spec, dict):
        where = f"weight spec {spec!r}"
        if "kind" not in spec:
            raise SpecError(f"{where}: needs a 'kind' (one of {', '.join(WEIGHT_KINDS)})")
        kind = spec["kind"]
        given = [(str(key), value) for key, value in spec.items() if key != "kind"]
    elif isinstance(spec, str):
        where = f"weight spec {spec!r}"
        kind, given = split_spec(spec, "weight", _EXAMPLE)
    else:
        raise SpecError(f"weight spec must be a string like {_EXAMPLE!r} or a mapping, got {type(spec).__name__}")
    if kind not in WEIGHT_KINDS:
        raise SpecError(f"{where}: unknown weight assignment {kind!r} (known: {', '.join(WEIGHT_KINDS)})")
    params = resolve_params(kind, given, WEIGHT_KINDS[kind], where)
    if "min" in params and params["min"] >= params["max"]:
        raise SpecError(f"{where}: min={params['min']} must be below max={params['max']} (weights are drawn from [min, max))")
    if kind == "negative" and params["base"] == "uniform" and params["min"] < 0:
        # potentials keep every cycle's weight: only non-negative base weights promise no negative cycle
        raise SpecError(f"{where}: negative needs min >= 0 (the potentials make the negative arcs), got {params['min']}")
    return {"kind": kind, **params}


def canonical_weight_spec(spec: str | dict[str, Any] | None) -> str:
    """Every parameter written out, sorted, e.g. 'uniform:max=101,min=1,seed=1' ('keep' and 'unit' stay bare)."""
    params = parse_weight_spec(spec)
    kind = params.pop("kind")
    return canonical_from_params(kind, params) if params else kind


@njit(parallel=True, cache=True)
def _uniform_arc_weights(row_offsets, column_ids, key, low, span, symmetric, out):
    n = len(row_offsets) - 1
    for vertex_index in prange(n):
        vertex = np.int64(vertex_index)  # prange indices may be unsigned: int64 keeps the arithmetic integral
        for at in range(row_offsets[vertex], row_offsets[vertex + 1]):
            if symmetric:
                # both arcs of an undirected edge hash the same unordered pair, so they get the same weight
                other = np.int64(column_ids[at])
                counter = np.uint64(min(vertex, other)) * np.uint64(n) + np.uint64(max(vertex, other))
            else:
                counter = np.uint64(at)
            out[at] = low + word_below(random_word(key, counter), span)


VECTORISED_ARCS = 1 << 22
"""Up to this many arcs, uniform weights are drawn with NumPy, not numba's parallel loop: its first call in a process
loads it and starts numba's threads, 0.3 to 0.4 s (soc-Epinions1's weights, 508k arcs, in every worker process of a
`run --workers` on a 64-core H200 host), where NumPy takes about 10 ms. Both draw the same weights."""


def uniform_weights(graph: CSRGraph, low: int, high: int, seed: int) -> np.ndarray:
    """int32[m] uniform in [low, high): per arc for a directed graph, per unordered pair for an undirected one."""
    if not INT32_MIN <= low < high <= INT32_MAX + 1:
        raise SpecError(f"uniform weights: need {INT32_MIN} <= min < max <= {INT32_MAX + 1}, got [{low}, {high})")
    key, symmetric = stream_key(seed, STREAM_WEIGHTS), not graph.directed
    if graph.m <= VECTORISED_ARCS:
        return _uniform_arc_weights_vectorised(graph, key, low, high - low, symmetric)
    out = np.empty(graph.m, dtype=np.int32)
    _uniform_arc_weights(np.asarray(graph.row_offsets), np.asarray(graph.column_ids), key, np.int64(low),
                         np.int64(high - low), symmetric, out)
    return out


def _uniform_arc_weights_vectorised(graph: CSRGraph, key: np.uint64, low: int, span: int,
                                    symmetric: bool) -> np.ndarray:
    """_uniform_arc_weights in NumPy: the same counters, the same words, the same weights."""
    if symmetric:
        tails = graph.arc_sources().astype(np.uint64)
        heads = np.asarray(graph.column_ids).astype(np.uint64)
        counters = np.minimum(tails, heads) * np.uint64(graph.n) + np.maximum(tails, heads)
    else:
        counters = np.arange(graph.m, dtype=np.uint64)
    return (np.int64(low) + random_below(key, counters, span)).astype(np.int32)


def random_potentials(n: int, potential: int, seed: int) -> np.ndarray:
    """Seeded int32 potentials p(v), uniform in [0, potential)."""
    return uniform_ints(stream_key(seed, STREAM_POTENTIALS), n, 0, potential)


@njit(parallel=True, cache=True)
def _shift_by_potentials(row_offsets, column_ids, weights, potentials, out, overflowed):
    n = len(row_offsets) - 1
    for vertex_index in prange(n):
        vertex = np.int64(vertex_index)
        for at in range(row_offsets[vertex], row_offsets[vertex + 1]):
            shifted = np.int64(weights[at]) + np.int64(potentials[vertex]) - np.int64(potentials[column_ids[at]])
            if shifted < -2147483648 or shifted > 2147483647:
                overflowed[vertex] = True  # reported by the caller; the out value is not used then
                shifted = 0
            out[at] = shifted


def potential_transform(graph: CSRGraph, potentials) -> np.ndarray:
    """int32 weights w(u,v) + p(u) - p(v) (the graph's weights, or 1 when unweighted); SpecError on overflow.

    Every cycle keeps its weight, so a graph without negative cycles gets none, whatever the potentials.
    """
    potentials = np.asarray(potentials)
    if potentials.shape != (graph.n,):
        raise SpecError(f"potential_transform: need one potential per vertex ({graph.n}), got shape {potentials.shape}")
    if potentials.dtype.kind not in "iu":
        raise SpecError(f"potential_transform: potentials must be integers, got {potentials.dtype}")
    if graph.n and (potentials.min() < INT32_MIN or potentials.max() > INT32_MAX):
        raise SpecError("potential_transform: potentials must fit int32")
    weights = np.asarray(graph.weights_or_ones())
    if weights.dtype.kind != "i":
        raise SpecError(f"potential_transform: needs integer weights, the graph has {weights.dtype}")
    out = np.empty(graph.m, dtype=np.int32)
    overflowed = np.zeros(graph.n, dtype=np.bool_)
    if graph.m:
        _shift_by_potentials(np.asarray(graph.row_offsets), np.asarray(graph.column_ids), weights,
                             potentials.astype(np.int64), out, overflowed)
    if overflowed.any():
        vertex = int(np.flatnonzero(overflowed)[0])
        start, end = int(graph.row_offsets[vertex]), int(graph.row_offsets[vertex + 1])
        targets = np.asarray(graph.column_ids[start:end]).astype(np.int64)
        shifted = weights[start:end].astype(np.int64) + int(potentials[vertex]) - potentials[targets].astype(np.int64)
        bad = int(np.flatnonzero((shifted < INT32_MIN) | (shifted > INT32_MAX))[0])
        raise SpecError(
            f"potential weights overflow int32: arc {vertex} -> {int(targets[bad])} would weigh {int(shifted[bad])}; "
            "lower the weights or the potential range"
        )
    return out


def apply_weights(graph: CSRGraph, spec: str | dict[str, Any] | None = "keep") -> CSRGraph:
    """The same topology with the weights a weight spec names; the assignment goes to meta["weights"]."""
    params = parse_weight_spec(spec)
    kind = params["kind"]
    record = {**params, "spec": canonical_weight_spec(params)}
    if kind == "keep":
        return graph.with_weights(graph.weights, {"weights": record})
    if kind == "unit":
        return graph.with_weights(np.ones(graph.m, dtype=np.int32), {"weights": record})
    if kind == "uniform":
        return graph.with_weights(uniform_weights(graph, params["min"], params["max"], params["seed"]), {"weights": record})

    # negative
    if params["base"] == "keep":
        base = graph
    else:
        base = graph.with_weights(uniform_weights(graph, params["min"], params["max"], params["seed"]))
    potentials = random_potentials(graph.n, params["potential"], params["seed"])
    weights = potential_transform(base, potentials)
    if not graph.directed:
        record["from_undirected"] = True  # the two arcs of an edge now differ: the graph is directed
    return CSRGraph(graph.row_offsets, graph.column_ids, weights, True, graph.name, {**graph.meta, "weights": record})


__all__ = [
    "WEIGHT_DESCRIPTIONS",
    "WEIGHT_KINDS",
    "apply_weights",
    "canonical_weight_spec",
    "parse_weight_spec",
    "potential_transform",
    "random_potentials",
    "uniform_weights",
]
