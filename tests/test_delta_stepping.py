"""cpu-delta-stepping against the reference on the shared battery, its parameters, counters and refusals; the delta
rule and light-first order the GPU variants share; and the GPU variants' modules without a GPU (registration,
parameters, the status-word indices against their .cu files).

The GPU kernels themselves are checked on a GPU by tests/test_gpu_delta_stepping.py (marker `gpu`).
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sssp_bench import impls
from sssp_bench.errors import ConfigError, UnsupportedGraphError
from sssp_bench.graph.csr import from_arcs
from sssp_bench.graph.generators import generate
from sssp_bench.graph.weights import apply_weights
from sssp_bench.impls import canonical_distances
from sssp_bench.kernels.arrays import kernel_arrays
from sssp_bench.kernels.delta_stepping import default_delta, light_first, max_weight
from sssp_bench.run.verify import certificate, compare, reference_distances

from delta_stepping_models import SLOTS, AsyncMachine, sync_steps
from gpu_battery import GENERATED, NEGATIVE, some_sources

NAME = "cpu-delta-stepping"


def solve_all(graph, sources, **params):
    """[(source, canonical distances, counters)] from one prepared cpu-delta-stepping."""
    implementation = impls.get(NAME)(**params)
    implementation.prepare(graph)
    try:
        results = []
        for source in sources:
            result = implementation.solve(source)
            results.append((source, canonical_distances(result), result.counters))
        return results
    finally:
        implementation.teardown()


def assert_solves(graph, sources, **params):
    results = solve_all(graph, sources, **params)
    for source, distances, _ in results:
        compared = compare(reference_distances(graph, source), distances)
        assert compared.ok, f"{NAME} {params} on {graph.name} from {source}: {compared.message}"
        proof = certificate(graph, source, distances)
        assert proof.ok, f"{NAME} {params} on {graph.name} from {source}: {proof.message}"
    return results


# serial_arcs 0: every phase through the parallel request/apply path; 2^40: every phase on one thread, in place
VARIANTS = [{}, {"serial_arcs": 0}, {"serial_arcs": 2**40}, {"delta": 1, "serial_arcs": 0}, {"delta": 2**40},
            {"threads": 1}]


@pytest.mark.parametrize("params", VARIANTS, ids=lambda p: ",".join(f"{k}={v}" for k, v in p.items()) or "default")
@pytest.mark.parametrize("spec", GENERATED)
def test_the_battery_matches_the_reference(spec, params):
    graph = generate(spec)
    assert_solves(graph, some_sources(graph, 4), **params)


@pytest.mark.parametrize("params", [{}, {"serial_arcs": 0, "delta": 1}], ids=["default", "parallel-delta1"])
def test_small_and_odd_graphs(params):
    one = from_arcs(1, [], [], np.zeros(0, np.int32), name="one-vertex")
    assert_solves(one, [0], **params)
    assert_solves(from_arcs(1, [0], [0], [3], name="one-vertex-self-loop"), [0], **params)
    # parallel arcs (0->2 weighs 1 and 3), a zero-weight self-loop, zero-weight arcs, an isolated vertex and one
    # that points in but is unreachable
    arcs = [(0, 1, 4), (0, 2, 3), (0, 2, 1), (2, 1, 2), (1, 3, 1), (2, 3, 5), (3, 3, 0), (3, 4, 0), (6, 0, 1)]
    diamond = from_arcs(7, *zip(*arcs), name="diamond")
    assert_solves(diamond, [0, 6, 5], **params)
    assert list(solve_all(diamond, [0], **params)[0][1]) == [0, 3, 1, 4, 4, np.inf, np.inf]
    zero_cycle = from_arcs(5, [0, 1, 2, 2, 4, 4], [1, 2, 1, 3, 4, 3], [0, 0, 0, 2, 0, 0], name="zero-cycle")
    assert_solves(zero_cycle, [0, 4], **params)
    halves = from_arcs(8, [0, 1, 2, 4, 5, 6], [1, 2, 3, 5, 6, 7], [1, 2, 3, 4, 5, 6], name="two-chains")
    assert_solves(halves, [0, 4, 3], **params)
    sparse = generate("random:n=5000,m=3000,seed=15")  # many isolated vertices and small components
    assert_solves(sparse, some_sources(sparse, 4), **params)


def test_unweighted_and_unit_weights():
    graph = generate("rmat:n=1024,m=8192,seed=14")
    for variant in (graph.with_weights(None), apply_weights(graph, "unit")):
        for params in ({}, {"serial_arcs": 0}):
            assert_solves(variant, some_sources(graph), **params)


def test_float_weights_are_solved_with_a_float_delta():
    graph = generate("rmat:n=2048,m=16384,seed=16")
    floats = graph.with_weights((graph.weights / 7).astype(np.float32))
    results = assert_solves(floats, some_sources(floats), serial_arcs=0)
    assert isinstance(results[0][2]["delta"], float)
    assert_solves(floats, some_sources(floats), delta=2)


def test_many_improvements_compact_the_piles():
    # every vertex of a complete graph improves again and again into ever lower buckets (delta 1): far more pile
    # pushes than vertices, so the owners' piles fill up and are compacted
    graph = generate("complete:n=300,chain_shortest=false,seed=3")
    assert_solves(graph, [0, 150], delta=1)
    assert_solves(graph, [0, 150], delta=1, serial_arcs=0)


def test_heavy_degree_vertices_are_shared_between_producers():
    graph = generate("star:n=20000,seed=7")  # the hub's 20K arcs in one phase, split between threads by arc ranges
    assert_solves(graph, [0, 17], serial_arcs=0)


def test_negative_weights_are_refused_with_a_clear_message():
    graph = apply_weights(generate("grid:rows=10,cols=10,seed=1"), NEGATIVE)
    with pytest.raises(UnsupportedGraphError, match="non-negative weights.*negative weight"):
        impls.get(NAME)().prepare(graph)


def test_parameters_are_validated():
    assert impls.get(NAME)(delta=7).params["delta"] == 7
    for bad in ({"delta": -1}, {"threads": -2}, {"serial_arcs": -1}):
        with pytest.raises(ConfigError):
            impls.get(NAME)(**bad)
    with pytest.raises(ConfigError, match="int"):
        impls.get(NAME)(delta=1.5)


def test_counters_add_up_and_say_how_the_solve_went():
    graph = generate("rmat:n=4096,m=65536,seed=3")
    (_, distances, counters), = solve_all(graph, [0], count_relaxations=True, serial_arcs=0)
    reached = int(np.isfinite(distances).sum())
    assert counters["iterations"] == counters["light_phases"] + counters["heavy_phases"] >= 1
    assert len(counters["relax_attempts_per_iteration"]) == len(counters["relaxations_per_iteration"]) \
        == counters["iterations"]
    assert sum(counters["relaxations_per_iteration"]) == counters["relaxations"] >= reached - 1
    assert counters["relax_attempts"] >= counters["relaxations"]
    assert counters["delta"] == default_delta(graph) and counters["buckets"] >= 1
    # a delta above every weight: no heavy arcs, one bucket per distance range of delta
    (_, _, wide), = solve_all(graph, [0], delta=2**40)
    assert wide["heavy_phases"] == 0 and wide["buckets"] == 1
    (_, _, quiet), = solve_all(graph, [0], serial_arcs=0)
    assert "relaxations" not in quiet and quiet["iterations"] == counters["iterations"]


def test_the_default_delta_rule():
    road = generate("road:n=5000,seed=10")  # sparse: C = 32
    rmat = generate("rmat:n=4096,m=65536,seed=3")  # average out-degree 16: C = 4
    for graph, factor in ((road, 32), (rmat, 4)):
        expected = max(1, round(factor * float(np.mean(graph.weights)) / (graph.m / graph.n)))
        assert default_delta(graph) == expected
    assert default_delta(rmat.with_weights(None)) == max(1, round(4 / 16))
    floats = rmat.with_weights(np.full(rmat.m, 0.5, np.float32))
    assert default_delta(floats) == pytest.approx(4 * 0.5 / 16)
    assert default_delta(from_arcs(3, [], [], np.zeros(0, np.int32))) == 1
    assert max_weight(rmat) == int(rmat.weights.max()) and max_weight(rmat.with_weights(None)) == 1


def test_light_first_keeps_each_rows_arcs_and_puts_the_light_ones_first():
    graph = generate("rmat:n=2048,m=16384,seed=4")
    arrays = kernel_arrays(graph)
    light_end, columns, weights, heavy = light_first(arrays, 30)
    assert heavy == int(np.count_nonzero(graph.weights > 30)) > 0
    rows = graph.row_offsets
    for u in range(graph.n):
        begin, end = rows[u], rows[u + 1]
        assert begin <= light_end[u] <= end
        assert (weights[begin:light_end[u]] <= 30).all() and (weights[light_end[u]:end] > 30).all()
        original = sorted(zip(graph.column_ids[begin:end], graph.weights[begin:end]))
        assert sorted(zip(columns[begin:end], weights[begin:end])) == original
    light_end, columns, weights, heavy = light_first(arrays, 1000)  # no heavy arc: the graph's own arrays
    assert heavy == 0 and columns is arrays.column_ids and (light_end == rows[1:]).all()


@st.composite
def graphs_and_sources(draw):
    n = draw(st.integers(1, 40))
    vertex = st.integers(0, n - 1)
    arcs = draw(st.lists(st.tuples(vertex, vertex, st.integers(0, 30)), max_size=3 * n))
    graph = from_arcs(n, [a[0] for a in arcs], [a[1] for a in arcs], np.array([a[2] for a in arcs], np.int32))
    return graph, draw(vertex), draw(st.sampled_from([1, 2, 5, 31]))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graphs_and_sources())
def test_small_deltas_on_random_graphs_through_the_parallel_path(case):
    graph, source, delta = case
    for params in ({"delta": delta, "serial_arcs": 0}, {"delta": delta}):
        (_, distances, _), = solve_all(graph, [source], **params)
        assert compare(reference_distances(graph, source), distances), params


# --- the GPU kernels' protocols, modelled on the CPU (tests/delta_stepping_models.py) ---------------------------

MODEL_GRAPHS = ["grid:rows=12,cols=12,seed=5", "rmat:n=256,m=2048,seed=3", "chain:n=80,seed=6", "road:n=300,seed=10",
                "complete:n=40,chain_shortest=false,seed=3", "star:n=100,seed=7", "random:n=200,m=300,seed=15",
                "dag:n=150,degree=6,seed=8"]


@pytest.mark.parametrize("spec", MODEL_GRAPHS + GENERATED[:3])
def test_the_persistent_kernels_step_machine(spec):
    graph = generate(spec)
    rng = random.Random(spec)
    for delta in (1, default_delta(graph), 2**40):
        for source in some_sources(graph, 3):
            distances, (light, heavy, splits, buckets) = sync_steps(graph, source, delta, rng)
            assert compare(reference_distances(graph, source), distances), (spec, delta, source)
            assert splits >= buckets - 1 and light >= buckets


@pytest.mark.parametrize("local", [False, True], ids=["rings", "local-queue"])
@pytest.mark.parametrize("spec", MODEL_GRAPHS)
def test_the_async_work_queue_under_random_interleavings(spec, local):
    graph = generate(spec)
    top = int(max_weight(graph))
    for requested in (1, 20, 10**6):
        for lookahead in (1, 4):
            delta = max(requested, top // (SLOTS - lookahead) + 1)  # as effective_delta raises it
            for workers, batch in ((3, 4), (7, 2)):
                # rings barely larger than a graph's worth: several solves on them wrap their laps
                machine = AsyncMachine(graph, delta, lookahead, cap=graph.n + workers * batch + 4, batch=batch,
                                       workers=workers, seed=hash((spec, requested, lookahead, workers)) & 0xFFFF,
                                       local=local)
                for source in (0, graph.n // 2, graph.n - 1, 0):
                    assert compare(reference_distances(graph, source), machine.solve(source)), \
                        (spec, delta, lookahead, workers, source)
