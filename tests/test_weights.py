"""Weight assignments: seeded, int32, equal on both arcs of an undirected edge, and H-BF's negative arcs that
never make a negative cycle."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sssp_bench.graph.csr import from_arcs
from sssp_bench.errors import SpecError
from sssp_bench.graph.generators import generate
from sssp_bench.graph.weights import (
    apply_weights,
    canonical_weight_spec,
    parse_weight_spec,
    potential_transform,
    random_potentials,
    uniform_weights,
)


def bellman_ford(graph, source=None):
    """Tiny vectorised Bellman-Ford: distances from `source`, or from a virtual source joined to every vertex
    by a 0 arc (source=None), and whether a negative cycle remains after n rounds."""
    sources = graph.arc_sources()
    targets = graph.column_ids
    weights = graph.weights_or_ones().astype(np.int64)
    distances = np.zeros(graph.n) if source is None else np.full(graph.n, np.inf)
    if source is not None:
        distances[source] = 0
    for _ in range(graph.n + 1):
        candidate = distances[sources] + weights
        improved = distances.copy()
        np.minimum.at(improved, targets, candidate)
        if np.array_equal(improved, distances):
            return distances, False
        distances = improved
    return distances, True


@pytest.fixture(scope="module")
def random_graph():
    return generate("random:n=200,m=2000,seed=5")


def test_unit_and_keep(random_graph):
    unit = apply_weights(random_graph, "unit")
    assert unit.weights.dtype == np.int32 and np.all(unit.weights == 1)
    assert unit.meta["weights"]["kind"] == "unit" and unit.meta["provenance"] == random_graph.meta["provenance"]
    kept = apply_weights(random_graph, "keep")
    assert kept.weights is random_graph.weights and kept.meta["weights"] == {"kind": "keep", "spec": "keep"}
    assert apply_weights(random_graph, None).weights is random_graph.weights


def test_uniform_weights_are_seeded_and_in_range(random_graph):
    first = apply_weights(random_graph, "uniform:min=3,max=7,seed=3")
    again = apply_weights(random_graph, {"kind": "uniform", "min": 3, "max": 7, "seed": 3})
    other = apply_weights(random_graph, "uniform:min=3,max=7,seed=4")
    assert first.weights.dtype == np.int32 and set(np.unique(first.weights)) == {3, 4, 5, 6}
    np.testing.assert_array_equal(first.weights, again.weights)
    assert not np.array_equal(first.weights, other.weights)
    np.testing.assert_array_equal(first.column_ids, random_graph.column_ids)  # topology untouched
    assert first.meta["weights"] == {"kind": "uniform", "min": 3, "max": 7, "seed": 3,
                                     "spec": "uniform:max=7,min=3,seed=3"}


def test_uniform_weights_agree_on_both_arcs_of_an_undirected_edge():
    graph = apply_weights(generate("grid:rows=20,cols=20"), "uniform:min=1,max=1000,seed=9")
    sources, targets, weights = graph.arc_sources(), graph.column_ids, graph.weights
    lookup = {(int(u), int(v)): int(w) for u, v, w in zip(sources, targets, weights)}
    assert all(lookup[(v, u)] == w for (u, v), w in lookup.items())
    assert len(set(lookup.values())) > 100  # and they are not all the same


@pytest.mark.parametrize("spec", ["random:n=300,m=4000,seed=2", "grid:rows=17,cols=23,seed=1"])
@pytest.mark.parametrize("low, high", [(1, 100), (-(2**31), 2**31 - 1), (0, 2)])
def test_numpy_and_numba_draw_the_same_uniform_weights(monkeypatch, spec, low, high):
    from sssp_bench.graph import weights

    graph = generate(spec)  # a directed graph, then an undirected one (a weight per unordered pair)
    vectorised = weights.uniform_weights(graph, low, high, 7)
    monkeypatch.setattr(weights, "VECTORISED_ARCS", 0)  # numba's parallel loop, as on a graph of millions of arcs
    np.testing.assert_array_equal(vectorised, weights.uniform_weights(graph, low, high, 7))
    assert vectorised.dtype == np.int32 and vectorised.min() >= low and vectorised.max() < high


def test_negative_weights_make_negative_arcs_but_no_negative_cycle(random_graph):
    graph = apply_weights(random_graph, "negative:min=1,max=100,potential=50,seed=3")
    assert graph.weights.dtype == np.int32 and graph.directed
    assert graph.has_negative_weights() and np.mean(graph.weights < 0) > 0.05
    _, negative_cycle = bellman_ford(graph)
    assert not negative_cycle
    # shortest paths are those of the base weights, shifted by the potentials: d'(s,v) = d(s,v) + p(s) - p(v)
    base = apply_weights(random_graph, "uniform:min=1,max=100,seed=3")
    potentials = random_potentials(graph.n, 50, 3)
    shifted, _ = bellman_ford(graph, source=0)
    plain, _ = bellman_ford(base, source=0)
    reached = np.isfinite(plain)
    np.testing.assert_array_equal(shifted[reached], plain[reached] + potentials[0] - potentials[reached])
    assert graph.meta["weights"]["kind"] == "negative" and graph.meta["weights"]["potential"] == 50


def test_negative_on_an_undirected_graph_becomes_directed_and_keeps_cycles_non_negative():
    graph = apply_weights(generate("grid:rows=10,cols=10"), "negative:potential=200,seed=1")
    assert graph.directed and graph.meta["weights"]["from_undirected"] is True
    assert graph.has_negative_weights()
    assert not bellman_ford(graph)[1]


def test_negative_with_base_keep_shifts_the_graphs_own_weights():
    graph = from_arcs(3, [0, 1, 2], [1, 2, 0], [5, 5, 5])  # a cycle of weight 15
    shifted = apply_weights(graph, "negative:base=keep,potential=1000,seed=2")
    potentials = random_potentials(3, 1000, 2)
    np.testing.assert_array_equal(shifted.weights, [5 + potentials[0] - potentials[1], 5 + potentials[1] - potentials[2],
                                                    5 + potentials[2] - potentials[0]])
    assert shifted.weights.sum() == 15


def test_potential_transform_is_w_plus_p_u_minus_p_v():
    graph = from_arcs(3, [0, 0, 2], [1, 2, 1], [5, 1, 2])
    np.testing.assert_array_equal(potential_transform(graph, np.array([10, 0, 3])), [15, 8, 5])
    np.testing.assert_array_equal(potential_transform(graph, np.array([0, 10, 3])), [-5, -2, -5])
    unweighted = from_arcs(2, [0], [1])
    np.testing.assert_array_equal(potential_transform(unweighted, [0, 4]), [-3])


def test_overflow_is_refused_not_wrapped():
    graph = from_arcs(2, [0, 1], [1, 0], [2**31 - 10, 1])
    with pytest.raises(SpecError, match=r"overflow int32: arc 0 -> 1 would weigh 2147483649"):
        potential_transform(graph, np.array([11, 0]))
    heavy_both_ways = from_arcs(2, [0, 1], [1, 0], [2**31 - 10, 2**31 - 10])
    with pytest.raises(SpecError, match="overflow int32"):  # one of the two arcs goes up by |p(0) - p(1)|
        apply_weights(heavy_both_ways, "negative:base=keep,potential=2000000000,seed=1")
    with pytest.raises(SpecError, match="at most 2147483648"):
        parse_weight_spec("uniform:max=3G")
    with pytest.raises(SpecError, match="one potential per vertex"):
        potential_transform(graph, np.array([1, 2, 3]))


def test_canonical_weight_specs():
    assert canonical_weight_spec("uniform:seed=3,max=100") == canonical_weight_spec("uniform:max=1e2,min=1,seed=3")
    assert canonical_weight_spec({"kind": "negative", "seed": 2}) == (
        "negative:base=uniform,max=101,min=1,potential=50,seed=2")
    assert canonical_weight_spec(None) == "keep" and canonical_weight_spec("unit") == "unit"


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("gaussian", r"unknown weight assignment 'gaussian' \(known: keep, unit, uniform, negative\)"),
        ("uniform:mean=3", r"uniform has no parameter 'mean' \(allowed: max, min, seed\)"),
        ("unit:seed=3", r"unit has no parameter 'seed' \(allowed: none\)"),
        ("uniform:min", r"malformed pair 'min'"),
        ("uniform:min=x", r"parameter 'min' must be an integer"),
        ("uniform:min=5,max=5", r"min=5 must be below max=5"),
        ("negative:base=zero", r"parameter 'base' must be one of uniform, keep, got 'zero'"),
        ("negative:potential=0", r"parameter 'potential' must be at least 1"),
        ("negative:min=-5", r"negative needs min >= 0"),
        ({"min": 1}, r"needs a 'kind'"),
        ({"kind": "uniform", "min": True}, r"parameter 'min' must be an integer"),
        (42, r"weight spec must be a string"),
    ],
)
def test_bad_weight_specs_are_refused(spec, message):
    with pytest.raises(SpecError, match=message) as refused:
        parse_weight_spec(spec)
    assert "\n" not in str(refused.value)


@settings(max_examples=30, deadline=None)
@given(n=st.integers(2, 12), data=st.data(), potential=st.integers(1, 10**6), seed=st.integers(0, 2**32))
def test_potentials_never_create_a_negative_cycle(n, data, potential, seed):
    count = data.draw(st.integers(1, 40))
    sources = data.draw(st.lists(st.integers(0, n - 1), min_size=count, max_size=count))
    targets = data.draw(st.lists(st.integers(0, n - 1), min_size=count, max_size=count))
    weights = data.draw(st.lists(st.integers(0, 1000), min_size=count, max_size=count))
    graph = from_arcs(n, sources, targets, weights)
    shifted = apply_weights(graph, {"kind": "negative", "base": "keep", "potential": potential, "seed": seed})
    assert not bellman_ford(shifted)[1]


def test_uniform_weights_refuse_a_range_outside_int32(random_graph):
    with pytest.raises(SpecError, match="need"):
        uniform_weights(random_graph, 0, 2**32, 1)
