"""H-BF (`hbf`) against the CPU reference and the certificate, on a GPU (marker `gpu`), for every optimization on,
every one off, and each one on alone.

Skipped as a whole without CuPy (module-level importorskip) and without a usable CUDA device (the autouse
fixture). The "child" configurations (CUDA dynamic parallelism) skip, saying why, where the -rdc=true module
cannot be compiled and linked on the device.
"""

from __future__ import annotations


import numpy as np
import pytest

cupy = pytest.importorskip("cupy")

from sssp_bench.graph.csr import CSRGraph, from_arcs
from sssp_bench.errors import NegativeCycleError, UnsupportedGraphError
from sssp_bench.graph.generators import generate
from sssp_bench.impls.hbf import HBF, packing_bounds, virtual_warp_shape
from sssp_bench.graph.weights import apply_weights

from runs import make_config, run_rows, solves_all_ok
from gpu_battery import (  # noqa: F401
    GENERATED, NEGATIVE, assert_matches_reference, assert_relax_counters, gpu_device, solve_each, some_sources,
)

pytestmark = pytest.mark.gpu

ALL_OFF = {"edge_classification": False, "dedup64": False, "coalesced_enqueue": False, "virtual_warps": False,
           "cache_hints": False, "dynamic_parallelism": "off", "block_expansion": False,
           "grid_expansion": "off"}
BLOCK = {"grid_expansion": "off"}  # the block expansion whatever the degrees (auto would pick the grid one)
PAPER = {"block_expansion": False, "grid_expansion": "off"}  # the paper's expansion: dynamic virtual warps
CONFIGS = {
    "all-on": {},  # the grid expansion where some vertex is above tdp, the block expansion elsewhere
    "all-on-block": BLOCK,
    "all-on-tdp64": {**BLOCK, "tdp": 64},
    "all-on-child-tdp64": {**BLOCK, "dynamic_parallelism": "child", "tdp": 64},
    "all-on-chunk32-tdp64": {**BLOCK, "chunk_entries": 32, "tdp": 64},
    "all-on-chunk128": {**BLOCK, "chunk_entries": 128},
    "all-on-auto-tdp64": {"tdp": 64},  # grid_expansion auto: the grid expansion wherever a vertex has > 64 arcs
    "all-on-grid": {"grid_expansion": "on"},
    "all-on-grid-plain-launches": {"grid_expansion": "on", "graphs": False},
    "paper-all-on": PAPER,
    "paper-all-on-child-tdp64": {**PAPER, "dynamic_parallelism": "child", "tdp": 64},
    "paper-plain-launches-vpw3": {**PAPER, "graphs": False, "vertices_per_vw": 3, "blocks_per_sm": 2},
    "paper-vpw-auto-tdp64": {**PAPER, "vertices_per_vw": 0, "tdp": 64},
    "all-off": ALL_OFF,
    "only-edge-classification": {**ALL_OFF, "edge_classification": True},
    "only-dedup64": {**ALL_OFF, "dedup64": True},
    "only-coalesced-enqueue": {**ALL_OFF, "coalesced_enqueue": True},
    "only-virtual-warps": {**ALL_OFF, "virtual_warps": True},
    "only-cache-hints": {**ALL_OFF, "cache_hints": True},
    "only-cooperative-tdp64": {**ALL_OFF, "dynamic_parallelism": "cooperative", "tdp": 64},
    "only-child-tdp64": {**ALL_OFF, "dynamic_parallelism": "child", "tdp": 64},
    "only-block-expansion": {**ALL_OFF, "block_expansion": True},
    "only-grid-expansion": {**ALL_OFF, "dedup64": True, "grid_expansion": "on"},  # needs dedup64
}


def prepared(graph: CSRGraph, **params):
    implementation = HBF(**params)
    try:
        implementation.prepare(graph)
    except UnsupportedGraphError as error:
        if "dynamic parallelism" in str(error):
            pytest.skip(str(error))
        raise
    return implementation


def solutions(graph: CSRGraph, sources, **params):
    """solve_each for hbf with `params`; a build without dynamic parallelism skips the child configurations."""
    try:
        return solve_each(HBF(**params), graph, sources)
    except UnsupportedGraphError as error:
        if "dynamic parallelism" in str(error):
            pytest.skip(str(error))
        raise


def solve_all(graph: CSRGraph, sources, **params):
    """[(source, canonical distances or None, the NegativeCycleError or None)] from one prepared hbf."""
    return [(source, distances, error) for source, distances, _, error in solutions(graph, sources, **params)]


def check_against_reference(graph: CSRGraph, sources, **params):
    assert_matches_reference(f"hbf {params}", graph, solutions(graph, sources, **params))


@pytest.mark.parametrize("config", CONFIGS)
@pytest.mark.parametrize("spec", GENERATED)
def test_generated_graphs_match_the_reference(config, spec):
    graph = generate(spec)
    check_against_reference(graph, some_sources(graph, 4), **CONFIGS[config])


@pytest.mark.parametrize("config", CONFIGS)
def test_negative_weights_without_negative_cycles(config):
    for spec in ("rmat:n=2048,m=16384,seed=11", "grid:rows=30,cols=30,seed=12", "random:n=2000,m=12000,seed=13"):
        graph = apply_weights(generate(spec), NEGATIVE)
        assert graph.has_negative_weights()
        check_against_reference(graph, some_sources(graph, 3), **CONFIGS[config])


@pytest.mark.parametrize("config", CONFIGS)
def test_a_reachable_negative_cycle_is_reported(config):
    params = CONFIGS[config]
    # 1 -> 2 -> 1 weighs -2 and is reachable from 0; from 3 it is not, so 3's distances exist.
    graph = from_arcs(5, [0, 1, 2, 2, 3], [1, 2, 1, 3, 4], [5, -3, 1, 2, 7], name="negative-cycle")
    (_, _, error), = solve_all(graph, [0], **params)
    assert isinstance(error, NegativeCycleError) and "negative cycle" in str(error)
    check_against_reference(graph, [3, 4], **params)
    loop = from_arcs(3, [0, 1, 1], [1, 1, 2], [1, -1, 1], name="negative-self-loop")
    (_, _, error), = solve_all(loop, [0], **params)
    assert isinstance(error, NegativeCycleError)
    ring_size = 300
    ring = from_arcs(ring_size, np.arange(ring_size), (np.arange(ring_size) + 1) % ring_size,
                     [-1] + [0] * (ring_size - 1), name="negative-ring")
    (_, _, error), = solve_all(ring, [5], **params)
    assert isinstance(error, NegativeCycleError)


@pytest.mark.parametrize("config", CONFIGS)
def test_small_and_odd_graphs(config):
    params = CONFIGS[config]
    one = from_arcs(1, [], [], np.zeros(0, np.int32), name="one-vertex")
    check_against_reference(one, [0], **params)
    one_loop = from_arcs(1, [0], [0], [3], name="one-vertex-self-loop")
    check_against_reference(one_loop, [0], **params)
    # parallel arcs (0->2 weighs 1 and 3, also out of the source), a zero-weight self-loop, zero-weight arcs, an
    # isolated vertex and one that points in but is unreachable
    arcs = [(0, 1, 4), (0, 2, 3), (0, 2, 1), (2, 1, 2), (1, 3, 1), (2, 3, 5), (3, 3, 0), (3, 4, 0), (6, 0, 1)]
    diamond = from_arcs(7, *zip(*arcs), name="diamond")
    check_against_reference(diamond, [0, 6, 5], **params)
    assert list(solve_all(diamond, [0], **params)[0][1]) == [0, 3, 1, 4, 4, np.inf, np.inf]
    zero_cycle = from_arcs(5, [0, 1, 2, 2, 4, 4], [1, 2, 1, 3, 4, 3], [0, 0, 0, 2, 0, 0], name="zero-cycle")
    check_against_reference(zero_cycle, [0, 4], **params)
    # every vertex with a self-loop (msdoor, circuit5M_dc), plus many parallel arcs, all weights 0 in one copy
    graph = generate("random:n=2000,m=16000,seed=21")
    n = graph.n
    tails = np.concatenate([graph.arc_sources(), np.arange(n), np.arange(n), np.arange(0, n, 7)])
    heads = np.concatenate([graph.column_ids, np.arange(n), np.arange(n), (np.arange(0, n, 7) + 1) % n])
    weights = np.concatenate([graph.weights, np.full(2 * n, 5), np.full(len(range(0, n, 7)), 2)]).astype(np.int32)
    loops = from_arcs(n, tails, heads, weights, name="self-loops-and-parallel-arcs")
    check_against_reference(loops, some_sources(loops), **params)
    check_against_reference(loops.with_weights(np.zeros(loops.m, np.int32)), [0, 3], **params)


@pytest.mark.parametrize("config", CONFIGS)
def test_in_degree_one_chains_and_out_degree_zero_sinks(config):
    params = CONFIGS[config]
    # a binary tree: every vertex but the root has in-degree 1, the leaves have out-degree 0; plus a few chains
    # hanging off, and sinks fed by several arcs (one of them negative)
    n = 4095
    children = np.arange(1, n)
    tails = list((children - 1) // 2) + [0, 5, 9, 9, 4094]
    heads = list(children) + [4094, 4094, 4093, 4094, 3]
    weights = list((children * 37) % 50 + 1) + [1000, 3, 2, -1, 4]
    tree = from_arcs(n, tails, heads, weights, name="tree-with-sinks")
    check_against_reference(tree, [0, 1, 9, 4094], **params)
    chains = from_arcs(8, [0, 1, 2, 4, 5, 6], [1, 2, 3, 5, 6, 7], [1, 2, 3, 4, 5, 6], name="two-chains")
    check_against_reference(chains, [0, 4, 3], **params)


def marking_on_the_host(graph: CSRGraph):
    """What hbf's prepare builds on the device, from the host CSR: which vertices have parallel out-arcs, the sinks
    (out-degree 0, some in-arc) in vertex order, and each sink's in-arcs as a sorted list of (tail, weight)."""
    tails, heads = graph.arc_sources(), np.asarray(graph.column_ids)
    weights = np.ones(graph.m, np.int64) if graph.weights is None else np.asarray(graph.weights)
    keys = tails.astype(np.int64) * graph.n + heads
    unique_keys, counts = np.unique(keys, return_counts=True)
    parallel = np.zeros(graph.n, bool)
    parallel[unique_keys[counts > 1] // graph.n] = True
    out_degrees = np.asarray(graph.out_degrees())
    into_sink = (out_degrees[heads] == 0) & (heads != tails)
    sinks = np.unique(heads[into_sink])
    arcs = {int(v): sorted(zip(tails[into_sink & (heads == v)].tolist(), weights[into_sink & (heads == v)].tolist()))
            for v in sinks}
    return parallel, sinks, arcs


@pytest.mark.parametrize("spec", ["random:n=3000,m=9000,seed=31", "rmat:n=4096,m=65536,seed=32",
                                  "grid:rows=20,cols=30,seed=3", "star:n=5000,directed=true,seed=4"])
def test_the_marking_finds_parallel_arcs_and_groups_the_sinks_in_arcs(spec):
    graph = generate(spec)
    n = graph.n  # plus parallel arcs, self-loops and arcs into new sinks (the last 50 vertices have no out-arcs)
    extra_tails = np.concatenate([np.arange(0, n - 50, 13), np.arange(0, n - 50, 17), np.arange(n - 50) % 97])
    extra_heads = np.concatenate([(np.arange(0, n - 50, 13) + 1) % (n - 50), np.arange(0, n - 50, 17),
                                  n - 50 + np.arange(n - 50) % 50])
    tails = np.concatenate([graph.arc_sources(), extra_tails, extra_tails[:40]])
    heads = np.concatenate([graph.column_ids, extra_heads, extra_heads[:40]])
    weights = np.arange(tails.size, dtype=np.int32) % 91 + 1
    keep = tails < n - 50
    marked = from_arcs(n, tails[keep], heads[keep], weights[keep], name=f"{graph.name}-marked")
    parallel, sinks, arcs = marking_on_the_host(marked)
    assert parallel.any() and sinks.size > 0
    implementation = prepared(marked)
    assert (implementation.source_has_parallel_arcs == parallel).all()
    assert implementation.sink_count == sinks.size
    assert (implementation.sinks[:sinks.size].get() == sinks).all()
    offsets, sink_tails = implementation.sink_offsets.get(), implementation.sink_tails.get()
    sink_weights = implementation.sink_weights.get()
    assert offsets[0] == 0 and offsets[-1] == sum(len(listed) for listed in arcs.values())
    for k, v in enumerate(sinks):
        run = slice(offsets[k], offsets[k + 1])
        assert sorted(zip(sink_tails[run].tolist(), sink_weights[run].tolist())) == arcs[int(v)], v
    check_against_reference(marked, some_sources(marked, 3))
    implementation.teardown()


def test_the_marking_of_a_graph_without_sinks_or_parallel_arcs():
    ring = from_arcs(5, [0, 1, 2, 3, 4], [1, 2, 3, 4, 0], [1, 1, 1, 1, 1], name="ring")
    implementation = prepared(ring)
    assert implementation.sink_count == 0 and not implementation.source_has_parallel_arcs.any()
    assert list(solve_all(ring, [2])[0][1]) == [3, 4, 0, 1, 2]
    implementation.teardown()


@pytest.mark.parametrize("config", CONFIGS)
def test_disconnected_graphs_and_a_source_without_out_arcs(config):
    params = CONFIGS[config]
    star = generate("star:n=500,directed=true,seed=2")
    check_against_reference(star, [0, 17], **params)
    leaf = solve_all(star, [17], **params)[0][1]
    assert leaf[17] == 0 and np.isinf(np.delete(leaf, 17)).all()
    sparse = generate("random:n=5000,m=3000,seed=15")  # many isolated vertices and small components
    check_against_reference(sparse, some_sources(sparse, 4), **params)


@pytest.mark.parametrize("config", CONFIGS)
def test_vertices_above_the_dynamic_parallelism_threshold(config):
    params = CONFIGS[config]
    hub = generate("star:n=12000,seed=3")  # the centre's degree is far above tdp = 4096
    check_against_reference(hub, [0, 1, 5000], **params)
    rmat = generate("rmat:n=16384,m=262144,seed=22")  # hundreds of vertices above tdp = 64
    check_against_reference(rmat, some_sources(rmat, 3), **params)
    negative = apply_weights(rmat, NEGATIVE)
    check_against_reference(negative, some_sources(negative, 2), **params)


@pytest.mark.parametrize("config", ["all-on", "all-on-tdp64", "all-off", "only-dedup64", "all-on-child-tdp64",
                                    "all-on-grid", "only-grid-expansion"])
def test_counters(config):
    graph = generate("rmat:n=2048,m=16384,seed=16")
    implementation = prepared(graph, count_relaxations=True, **CONFIGS[config])
    counters = assert_relax_counters(implementation.solve(0))
    assert len(counters["frontier_sizes"]) == counters["iterations"] and counters["frontier_sizes"][0] == 1
    if CONFIGS[config].get("dedup64", True):
        assert max(counters["frontier_sizes"]) <= graph.n  # no duplicates in a frontier
    implementation.teardown()
    quiet = prepared(graph, **CONFIGS[config])
    assert "relaxations" not in quiet.solve(0).counters
    quiet.teardown()


def test_auto_takes_the_grid_expansion_only_where_a_vertex_is_above_tdp():
    hub = generate("star:n=12000,seed=3")  # the centre's degree is far above tdp = 4096
    mesh = generate("grid:rows=30,cols=30,seed=1")
    for graph, params, expected in ((hub, {}, 1), (mesh, {}, 0), (mesh, {"tdp": 2}, 1), (hub, {"dedup64": False}, 0)):
        implementation = prepared(graph, **params)
        assert implementation.solve(0).counters["grid_expansion"] == expected, (graph.name, params)
        implementation.teardown()


def test_dedup64_removes_duplicates_and_classification_saves_relaxations():
    graph = generate("random:n=20000,m=400000,seed=23")  # small diameter: many duplicates without dedup64

    def counted(**params):
        implementation = prepared(graph, count_relaxations=True, **params)
        counters = implementation.solve(0).counters
        implementation.teardown()
        return counters

    plain, dedup = counted(**ALL_OFF), counted(**{**ALL_OFF, "dedup64": True})
    assert sum(dedup["frontier_sizes"]) <= sum(plain["frontier_sizes"])
    assert all(size <= graph.n for size in dedup["frontier_sizes"])
    loops = from_arcs(graph.n, np.concatenate([graph.arc_sources(), np.arange(graph.n)]),
                      np.concatenate([graph.column_ids, np.arange(graph.n)]),
                      np.concatenate([graph.weights, np.ones(graph.n, np.int32)]), name="with-loops")
    graph = loops
    assert counted(**{**ALL_OFF, "edge_classification": True})["relax_attempts"] < counted(**ALL_OFF)["relax_attempts"]


def test_the_packed_words_refuse_distances_that_do_not_fit():
    n = 1 << 12  # 13-bit iteration numbers leave 51 distance bits
    tails, heads = np.arange(n - 1), np.arange(1, n)
    huge = from_arcs(n, tails, heads, np.full(n - 1, 2**31 - 1, np.int32), name="huge-weights")
    low, high = packing_bounds(huge)
    assert low == 0 and high == (n - 1) * (2**31 - 1)  # fits 51 bits: accepted
    check_against_reference(huge, [0])
    wide = from_arcs(n, tails, heads, np.where(tails % 2 == 0, 2**31 - 1, -(2**31)).astype(np.int32), name="wide")
    check_against_reference(wide, [0, 1])
    big = from_arcs(1 << 20, np.arange((1 << 20) - 1), np.arange(1, 1 << 20),
                    np.full((1 << 20) - 1, 2**31 - 1, np.int32), name="too-wide")  # 21-bit iterations, 43 bits left
    with pytest.raises(UnsupportedGraphError, match="dedup64"):
        HBF().prepare(big)
    without = HBF(dedup64=False)
    without.prepare(big)
    without.teardown()
    assert virtual_warp_shape(10, 270336) == (5, 1) and virtual_warp_shape(10**7, 270336)[0] == 2


def test_parameters_are_checked():
    with pytest.raises(Exception, match="dynamic_parallelism"):
        HBF(dynamic_parallelism="sometimes")
    with pytest.raises(Exception, match="tdp"):
        HBF(tdp=0)
    with pytest.raises(Exception, match="blocks_per_sm"):
        HBF(blocks_per_sm=9)


def test_a_tiny_run_through_the_runner_is_all_ok(tmp_path):
    from sssp_bench.impls import registry

    try:  # the runner imports every registered module; another one mid-edit must not fail hbf's tests
        registry()
    except Exception as error:  # noqa: BLE001
        pytest.skip(f"the implementation registry does not import here ({type(error).__name__}: {error})")
    text = """
        graphs:
          - {graph: "rmat:n=2048,m=16384,seed=2", label: rmat}
          - {graph: "grid:rows=24,cols=24,seed=1", label: grid-negative, weights: "negative:min=1,max=50,potential=20,seed=3"}
        implementations:
          - cpu-dijkstra
          - hbf
          - {name: hbf, label: hbf-all-off, params: {edge_classification: false, dedup64: false, coalesced_enqueue: false, virtual_warps: false, cache_hints: false, dynamic_parallelism: "off"}}
          - {name: hbf, label: hbf-tdp64, params: {tdp: 64, count_relaxations: true}}
        sources: {count: 4, seed: 1}
        warmup: 1
        baseline: null
        verification: {reference_sources: 2}
    """
    outcome, rows = run_rows(make_config(tmp_path, text, name="gpu"), run_id="gpu")
    gpu_rows = [row for row in solves_all_ok(rows, may_refuse=("cpu-dijkstra",)) if row["device"] == "gpu"]
    assert len(gpu_rows) == 3 * 2 * 4
    assert all(row["timer"] == "cuda-event" and row["time_s"] > 0 and row["certificate"] is True for row in gpu_rows)
