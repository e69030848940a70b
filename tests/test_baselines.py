"""The CPU baselines: known answers on hand-made graphs, and agreement with scipy and each other on random ones."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.sparse.csgraph import bellman_ford as scipy_bellman_ford
from scipy.sparse.csgraph import NegativeCycleError as ScipyNegativeCycleError

from sssp_bench.graph.csr import from_arcs, read_csr, write_csr
from sssp_bench.errors import NegativeCycleError, UnsupportedGraphError
from sssp_bench.impls import canonical_distances, registry
from sssp_bench.impls.cpu_bellman_ford import CpuBellmanFord, CpuBellmanFordQueue
from sssp_bench.impls.cpu_bfs import CpuBfs
from sssp_bench.impls.cpu_bfs_parallel import CpuBfsParallel
from sssp_bench.kernels.arrays import INT_UNREACHED
from sssp_bench.impls.cpu_dijkstra import CpuDijkstra
from sssp_bench.run.verify import certificate, compare, reference_distances, scipy_matrix

# Every registered CPU implementation, by what it solves and accepts: a new CPU baseline is checked here as soon as
# its module exists. Not the external programs (impls/external.py), which run a program a config names
# (tests/test_external.py).
CPU_BASELINES = [cls for cls in registry().values() if cls.device == "cpu" and not cls.name.startswith("external")]
SSSP_BASELINES = [cls for cls in CPU_BASELINES if cls.kind == "sssp"]
NEGATIVE_WEIGHT_BASELINES = [cls for cls in SSSP_BASELINES if cls.negative_weights]
COUNTING_BASELINES = [cls for cls in SSSP_BASELINES if "count_relaxations" in cls.parameters]
BFS_BASELINES = [cls for cls in CPU_BASELINES if cls.kind == "bfs"]
# cpu-bfs-parallel's directions: GAPBS's switch, top-down only (alpha 1), bottom-up from the first step (alpha 10^9)
PARALLEL_BFS_DIRECTIONS = [{}, {"alpha": 1}, {"alpha": 10**9, "beta": 10**9}]


def solve(implementation_class, graph, source, **params):
    """prepare, solve, teardown: the runner's lifecycle for one source; returns the SolveResult."""
    implementation = implementation_class(**params)
    implementation.prepare(graph)
    try:
        return implementation.solve(source)
    finally:
        implementation.teardown()


def distances_of(implementation_class, graph, source, **params) -> np.ndarray:
    return canonical_distances(solve(implementation_class, graph, source, **params))


# --- the contract ---------------------------------------------------------------------------------------------------


def test_registry_has_the_cpu_baselines_with_their_attributes():
    known = registry()
    expected = {
        "cpu-dijkstra": ("sssp", False), "cpu-bf-queue": ("sssp", True), "cpu-bf": ("sssp", True),
        "cpu-bfs": ("bfs", True), "cpu-delta-stepping": ("sssp", False), "cpu-bfs-parallel": ("bfs", True),
        "cpu-dijkstra-scipy": ("sssp", False),
    }
    for name, (kind, negative_weights) in expected.items():
        implementation_class = known[name]
        assert implementation_class.kind == kind
        assert implementation_class.device == "cpu"
        assert implementation_class.negative_weights is negative_weights
        assert implementation_class.description


def test_count_relaxations_is_a_bool_parameter_defaulting_to_off():
    for implementation_class in COUNTING_BASELINES:
        assert implementation_class.parameters["count_relaxations"].default is False
        assert implementation_class().params["count_relaxations"] is False


# --- known answers --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("implementation_class", SSSP_BASELINES, ids=lambda c: c.name)
def test_sssp_baselines_on_known_graphs(implementation_class, non_negative_case):
    """Parallel arcs, self-loops, zero-weight arcs and cycles, unreachable vertices, one vertex, float weights."""
    case = non_negative_case
    result = distances_of(implementation_class, case.graph, case.source)
    assert compare(case.expected, result)


@pytest.mark.parametrize("implementation_class", BFS_BASELINES, ids=lambda c: c.name)
def test_bfs_levels_on_known_graphs(implementation_class, unweighted_case, diamond_case):
    assert compare(unweighted_case.expected, distances_of(implementation_class, unweighted_case.graph, 0))
    # Weights are ignored: on the diamond, levels are hop counts (0->1 and 0->2 directly, 3 via 1, 4 via 3).
    assert compare([0, 1, 1, 2, 3, np.inf, np.inf], distances_of(implementation_class, diamond_case.graph, 0))


@pytest.mark.parametrize("implementation_class", BFS_BASELINES, ids=lambda c: c.name)
def test_bfs_result_is_int32_levels_with_minus_one_unreached(implementation_class, diamond_case):
    result = solve(implementation_class, diamond_case.graph, 0)
    assert result.distances.dtype == np.int32
    assert result.unreached == -1
    assert result.distances[5] == -1
    assert {key: result.counters[key] for key in ("iterations", "visited", "frontier_sizes")} == {
        "iterations": 4, "visited": 5, "frontier_sizes": [1, 2, 1, 1]}
    if implementation_class is CpuBfs:  # every out-arc of a visited vertex; bottom-up steps may examine fewer
        assert result.counters["arcs_examined"] == 8


def test_distance_dtypes_and_sentinels(diamond_case, float_case, unweighted_case):
    integer = solve(CpuDijkstra, diamond_case.graph, 0)
    assert integer.distances.dtype == np.int64 and integer.unreached == INT_UNREACHED
    assert integer.distances[5] == INT_UNREACHED
    unweighted = solve(CpuBellmanFordQueue, unweighted_case.graph, 0)
    assert unweighted.distances.dtype == np.int64
    floating = solve(CpuBellmanFord, float_case.graph, 0)
    assert floating.distances.dtype == np.float64 and floating.unreached == np.inf


@pytest.mark.parametrize("implementation_class", NEGATIVE_WEIGHT_BASELINES, ids=lambda c: c.name)
def test_bellman_ford_on_a_negative_weight_dag(implementation_class, negative_dag_case):
    case = negative_dag_case
    assert compare(case.expected, distances_of(implementation_class, case.graph, case.source))


@pytest.mark.parametrize("implementation_class", NEGATIVE_WEIGHT_BASELINES, ids=lambda c: c.name)
def test_bellman_ford_raises_on_a_reachable_negative_cycle(implementation_class, reachable_negative_cycle_case):
    with pytest.raises(NegativeCycleError, match="negative cycle") as raised:
        solve(implementation_class, reachable_negative_cycle_case.graph, 0)
    assert raised.value.vertex is not None


@pytest.mark.parametrize("implementation_class", NEGATIVE_WEIGHT_BASELINES, ids=lambda c: c.name)
def test_bellman_ford_ignores_an_unreachable_negative_cycle(implementation_class, unreachable_negative_cycle_case):
    case = unreachable_negative_cycle_case
    assert compare(case.expected, distances_of(implementation_class, case.graph, case.source))


@pytest.mark.parametrize("implementation_class", NEGATIVE_WEIGHT_BASELINES, ids=lambda c: c.name)
def test_bellman_ford_detects_a_negative_self_loop_at_the_source(implementation_class):
    graph = from_arcs(1, [0], [0], [-1])
    with pytest.raises(NegativeCycleError):
        solve(implementation_class, graph, 0)


def test_dijkstra_refuses_negative_weights(negative_dag_case):
    with pytest.raises(UnsupportedGraphError, match="non-negative"):
        CpuDijkstra().prepare(negative_dag_case.graph)


@pytest.mark.parametrize("implementation_class", CPU_BASELINES, ids=lambda c: c.name)
def test_a_source_outside_the_graph_is_refused(implementation_class, diamond_case):
    implementation = implementation_class()
    implementation.prepare(diamond_case.graph)
    with pytest.raises(ValueError, match="not a vertex"):
        implementation.solve(7)


@pytest.mark.parametrize("implementation_class", CPU_BASELINES, ids=lambda c: c.name)
def test_baselines_read_memmapped_graphs(implementation_class, diamond_case, tmp_path):
    """A graph read from disk has read-only memmapped arrays (a separate numba specialisation)."""
    path = write_csr(diamond_case.graph, tmp_path / "diamond.csr")
    graph = read_csr(path)
    assert not graph.column_ids.flags.writeable
    kind = implementation_class.kind
    assert compare(reference_distances(graph, 0, kind), distances_of(implementation_class, graph, 0))


def test_prepare_once_solve_many_sources(diamond_case):
    implementation = CpuBellmanFordQueue()
    implementation.prepare(diamond_case.graph)
    for source in range(diamond_case.graph.n):
        expected = reference_distances(diamond_case.graph, source)
        assert compare(expected, canonical_distances(implementation.solve(source)))
    implementation.teardown()


# --- counters -------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("implementation_class", COUNTING_BASELINES, ids=lambda c: c.name)
def test_relaxation_counters_only_when_asked(implementation_class, diamond_case):
    # one thread where there are threads: a parallel solve's iterations depend on how its threads met the work
    params = {"threads": 1} if "threads" in implementation_class.parameters else {}
    quiet = solve(implementation_class, diamond_case.graph, 0, **params)
    assert "iterations" in quiet.counters
    assert not {"relaxations", "relax_attempts", "relaxations_per_iteration"} & set(quiet.counters)
    counted = solve(implementation_class, diamond_case.graph, 0, count_relaxations=True, **params)
    assert counted.counters["iterations"] == quiet.counters["iterations"]
    assert 0 < counted.counters["relaxations"] <= counted.counters["relax_attempts"]
    if implementation_class is not CpuDijkstra:
        per_iteration = counted.counters["relaxations_per_iteration"]
        assert len(per_iteration) == counted.counters["iterations"]
        assert sum(per_iteration) == counted.counters["relaxations"]
        assert sum(counted.counters["relax_attempts_per_iteration"]) == counted.counters["relax_attempts"]


def test_dijkstra_examines_each_reached_vertex_arcs_once(diamond_case):
    graph = diamond_case.graph
    counters = solve(CpuDijkstra, graph, 0, count_relaxations=True).counters
    reached = np.isfinite(diamond_case.expected)
    assert counters["settled"] == reached.sum()
    assert counters["relax_attempts"] == graph.out_degrees()[reached].sum()


def test_dijkstra_decreases_keys_instead_of_pushing_again(diamond_case):
    # in the diamond, 2 is reached at 3 then 1 (parallel arcs), 1 at 4 then 3 (via 2), 3 at 6 then 4 (via 1): three
    # improvements of vertices already in the heap, each a decrease-key, so every vertex enters the heap once
    counters = solve(CpuDijkstra, diamond_case.graph, 0).counters
    assert counters["heap_pushes"] == counters["heap_pops"] == counters["settled"] == 5
    assert counters["decrease_keys"] == 3


def test_textbook_bellman_ford_rounds_end_with_one_that_changes_nothing(negative_dag_case):
    counters = solve(CpuBellmanFord, negative_dag_case.graph, 0, count_relaxations=True).counters
    assert counters["relaxations_per_iteration"][-1] == 0
    assert counters["iterations"] <= negative_dag_case.graph.n


# --- properties on random graphs ------------------------------------------------------------------------------------


@st.composite
def random_graphs(draw, max_n=40, max_arcs=120, min_weight=0, max_weight=20, allow_undirected=True):
    """(graph, source): up to max_n vertices, arcs with self-loops and deliberate parallel arcs, int weights."""
    n = draw(st.integers(1, max_n))
    vertex = st.integers(0, n - 1)
    m = draw(st.integers(0, min(max_arcs, 3 * n)))  # a fixed count: short random lists would leave most unreached
    arcs = draw(st.lists(st.tuples(vertex, vertex, st.integers(min_weight, max_weight)), min_size=m, max_size=m))
    if arcs:  # parallel copies of some arcs with other weights
        which = st.integers(0, len(arcs) - 1)
        copies = draw(st.lists(st.tuples(which, st.integers(min_weight, max_weight)), max_size=10))
        arcs += [(arcs[i][0], arcs[i][1], w) for i, w in copies]
    directed = draw(st.booleans()) if allow_undirected else True
    graph = from_arcs(n, [a[0] for a in arcs], [a[1] for a in arcs], np.array([a[2] for a in arcs], dtype=np.int32),
                      directed=directed)
    return graph, draw(vertex)


PROPERTY_SETTINGS = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@PROPERTY_SETTINGS
@given(random_graphs())
def test_baselines_agree_with_scipy_and_pass_the_certificate(graph_and_source):
    graph, source = graph_and_source
    expected = reference_distances(graph, source)
    for implementation_class in SSSP_BASELINES:
        solved = solve(implementation_class, graph, source)
        result = canonical_distances(solved)
        assert compare(expected, result), implementation_class.name
        check = certificate(graph, source, result)
        assert check, f"{implementation_class.name}: {check.message}"
        if implementation_class is CpuDijkstra:  # a heap out of order would still converge, but settle twice
            assert solved.counters["settled"] == np.isfinite(expected).sum()


@PROPERTY_SETTINGS
@given(random_graphs(), st.data())
def test_bellman_ford_with_potential_shifted_negative_weights(graph_and_source, data):
    """w'(u,v) = w(u,v) + p(u) - p(v) keeps every cycle's weight (>= 0) but makes arcs negative.

    Along any path P from s to v the potentials telescope: w'(P) = w(P) + p(s) - p(v), so the same paths are
    shortest and d'(v) = d(v) + p(s) - p(v) (equivalently d(v) = d'(v) - p(s) + p(v)); unreachable stays inf.
    """
    graph, source = graph_and_source
    if not graph.directed:  # an undirected edge stores one weight both ways, which a potential cannot shift
        graph = from_arcs(graph.n, graph.arc_sources(), graph.column_ids, graph.weights)
    potential = np.array(data.draw(st.lists(st.integers(-30, 30), min_size=graph.n, max_size=graph.n)), dtype=np.int64)
    tails = graph.arc_sources()
    shifted = graph.with_weights((graph.weights + potential[tails] - potential[graph.column_ids]).astype(np.int32))
    original = distances_of(CpuDijkstra, graph, source)
    expected = original + potential[source] - potential  # inf stays inf
    for implementation_class in NEGATIVE_WEIGHT_BASELINES:
        result = distances_of(implementation_class, shifted, source)
        assert compare(expected, result), implementation_class.name
        check = certificate(shifted, source, result)
        assert check, f"{implementation_class.name}: {check.message}"


@PROPERTY_SETTINGS
@given(random_graphs(max_n=12, max_arcs=30, min_weight=-6, max_weight=10, allow_undirected=False))
def test_bellman_ford_variants_match_scipy_on_arbitrary_negative_weights(graph_and_source):
    """Negative cycles, reachable or not: both variants raise exactly when scipy's bellman_ford does."""
    graph, source = graph_and_source
    try:
        expected = scipy_bellman_ford(scipy_matrix(graph, keep_self_loops=True), directed=True, indices=source)
    except ScipyNegativeCycleError:
        expected = None
    for implementation_class in NEGATIVE_WEIGHT_BASELINES:
        if expected is None:
            with pytest.raises(NegativeCycleError):
                distances_of(implementation_class, graph, source)
        else:
            result = distances_of(implementation_class, graph, source)
            assert compare(expected, result), implementation_class.name
            assert certificate(graph, source, result)


@PROPERTY_SETTINGS
@given(random_graphs())
def test_bfs_levels_equal_unit_weight_dijkstra(graph_and_source):
    graph, source = graph_and_source
    expected = distances_of(CpuDijkstra, graph.with_weights(None), source)
    for implementation_class, params in [(CpuBfs, {})] + [(CpuBfsParallel, p) for p in PARALLEL_BFS_DIRECTIONS]:
        levels = distances_of(implementation_class, graph, source, **params)
        assert compare(expected, levels), (implementation_class.name, params)
        assert certificate(graph, source, levels, kind="bfs")
