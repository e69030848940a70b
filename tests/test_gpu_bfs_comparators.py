"""BFS-4K's Table 2 comparators (bfs-harish, bfs-vwarp, bfs-edge) against the CPU reference levels and the BFS
certificate, on a GPU (marker `gpu`).

Skipped as a whole without CuPy (module-level importorskip) and without a usable CUDA device (the autouse
fixture). Run on the device machine with `python -m pytest -q tests/test_gpu_bfs_comparators.py`.
"""

from __future__ import annotations


import numpy as np
import pytest

from sssp_bench import impls
from sssp_bench.graph.csr import CSRGraph, from_arcs
from sssp_bench.graph.generators import generate
from sssp_bench.gpu import runtime
from sssp_bench.impls.cpu_bfs import CpuBfs
from sssp_bench.graph.weights import apply_weights

from runs import make_config, run_rows, solves_all_ok
from gpu_battery import (  # noqa: F401
    GENERATED, NEGATIVE, assert_matches_reference, gpu_device, solve_each, some_sources,
)

cupy = pytest.importorskip("cupy")  # after the imports: none of them needs CuPy

pytestmark = pytest.mark.gpu

# Every registered GPU BFS but bfs4k (test_gpu_bfs4k.py) with its defaults, and the warp sizes Table 2 compares.
VARIANTS = [(name, {}) for name, cls in impls.registry().items() if cls.kind == "bfs" and cls.device == "gpu"
            and name != "bfs4k"] + [("bfs-vwarp", {"warp_size": warp_size}) for warp_size in (1, 4, 32)]
VARIANT_IDS = [name + "".join(f"-{key}={value}" for key, value in params.items()) for name, params in VARIANTS]


@pytest.fixture(params=VARIANTS, ids=VARIANT_IDS)
def variant(request):
    return request.param


def solve_all(name: str, graph: CSRGraph, sources, **params):
    """[(source, canonical levels, counters)] from one prepared implementation."""
    return [(source, levels, counters)
            for source, levels, counters, _ in solve_each(impls.get(name)(**params), graph, sources)]


def check_against_reference(variant, graph: CSRGraph, sources):
    name, params = variant
    assert_matches_reference(f"{name} {params}", graph, solve_each(impls.get(name)(**params), graph, sources),
                             kind="bfs")


@pytest.mark.parametrize("spec", GENERATED)
def test_generated_graphs_match_the_reference(variant, spec):
    graph = generate(spec)
    check_against_reference(variant, graph, some_sources(graph, 4))


def test_weights_are_ignored_even_negative_ones(variant):
    graph = generate("rmat:n=2048,m=16384,seed=11")
    sources = some_sources(graph)
    check_against_reference(variant, apply_weights(graph, "uniform:min=1,max=1000,seed=2"), sources)
    negative = apply_weights(generate("grid:rows=30,cols=30,seed=12"), NEGATIVE)
    assert negative.has_negative_weights()
    check_against_reference(variant, negative, some_sources(negative))
    unweighted = [levels for _, levels, _ in solve_all(variant[0], graph.with_weights(None), sources, **variant[1])]
    weighted = [levels for _, levels, _ in solve_all(variant[0], graph, sources, **variant[1])]
    assert all(np.array_equal(a, b) for a, b in zip(unweighted, weighted))


def test_small_and_odd_graphs(variant):
    name, params = variant
    one = from_arcs(1, [], [], np.zeros(0, np.int32), name="one-vertex")
    check_against_reference(variant, one, [0])
    one_loop = from_arcs(1, [0], [0], [3], name="one-vertex-self-loop")
    check_against_reference(variant, one_loop, [0])
    # parallel arcs (0->2 twice), self-loops, an isolated vertex (5) and one that points in but is unreachable (6)
    arcs = [(0, 1, 4), (0, 2, 3), (0, 2, 1), (2, 1, 2), (1, 3, 1), (2, 3, 5), (3, 3, 0), (3, 4, 0), (6, 0, 1),
            (1, 1, -7)]
    diamond = from_arcs(7, *zip(*arcs), name="diamond")
    check_against_reference(variant, diamond, [0, 6, 5])
    levels = solve_all(name, diamond, [0], **params)[0][1]
    assert list(levels) == [0, 1, 1, 2, 3, np.inf, np.inf]
    levels = solve_all(name, diamond, [6], **params)[0][1]
    assert list(levels) == [1, 2, 2, 3, 4, np.inf, 0]


def test_disconnected_graphs_and_a_source_without_out_arcs(variant):
    name, params = variant
    halves = from_arcs(8, [0, 1, 2, 4, 5, 6], [1, 2, 3, 5, 6, 7], [1, 2, 3, 4, 5, 6], name="two-chains")
    check_against_reference(variant, halves, [0, 4, 3])
    star = generate("star:n=500,directed=true,seed=2")
    check_against_reference(variant, star, [0, 17])
    (_, leaf, counters), = solve_all(name, star, [17], **params)
    assert leaf[17] == 0 and np.isinf(np.delete(leaf, 17)).all()
    assert counters["iterations"] == 1  # one level expanded, which discovered nothing
    sparse = generate("random:n=5000,m=3000,seed=15")  # many isolated vertices and small components
    check_against_reference(variant, sparse, some_sources(sparse, 4))


def test_a_graph_larger_than_one_wave_of_threads(variant):
    graph = generate("rmat:n=65536,m=1048576,seed=21")
    check_against_reference(variant, graph, some_sources(graph, 2))


@pytest.mark.parametrize("spec", ["rmat:n=4096,m=65536,seed=3", "chain:n=300,seed=6", "road:n=3000,seed=10"])
def test_counted_frontiers_are_those_of_the_sequential_bfs(variant, spec):
    name, params = variant
    graph = generate(spec)
    sources = some_sources(graph, 3)
    cpu = CpuBfs()
    cpu.prepare(graph)
    for source, levels, counters in solve_all(name, graph, sources, count_frontiers=True, **params):
        expected = cpu.solve(source).counters
        assert counters["frontier_sizes"] == expected["frontier_sizes"], (name, params, source)
        assert counters["iterations"] == expected["iterations"] == len(counters["frontier_sizes"])
        assert counters["visited"] == expected["visited"] == int(np.isfinite(levels).sum())
        assert counters["arcs_examined"] == expected["arcs_examined"]
    quiet = solve_all(name, graph, [source], **params)[0][2]  # the last source again, uncounted
    assert "frontier_sizes" not in quiet and quiet["iterations"] == counters["iterations"]
    if name == "bfs-vwarp":
        assert counters["warp_size"] == params.get("warp_size", 8)


def test_every_comparator_through_the_runner_with_the_device_certificate(tmp_path):
    text = """
        graphs:
          - {graph: "rmat:n=2048,m=16384,seed=2", label: rmat}
          - {graph: "grid:rows=24,cols=24,seed=1", label: grid-negative, weights: "negative:min=1,max=50,potential=20,seed=3"}
        implementations:
          - cpu-bfs
          - bfs-harish
          - {name: bfs-vwarp, params: {warp_size: [1, 8, 32]}}
          - {name: bfs-edge, params: {count_frontiers: [false, true]}}
        sources: {count: 4, seed: 1}
        warmup: 1
        baseline: cpu-bfs
        verification: {reference_sources: 2}
    """
    outcome, rows = run_rows(make_config(tmp_path, text, name="bfs"), run_id="bfs")
    solves = solves_all_ok(rows)
    gpu_rows = [row for row in solves if row["device"] == "gpu"]
    assert len(gpu_rows) == 2 * 6 * 4  # 2 graphs, 6 GPU variants, 4 sources
    assert all(row["kind"] == "bfs" for row in solves)
    assert all(row["timer"] == "cuda-event" and row["time_s"] > 0 for row in gpu_rows)
    assert all(row["certificate"] is True for row in solves)
    assert all(row["certificate_device"] == "gpu" for row in gpu_rows)
    assert runtime._graph_cache == {}  # released after the last graph
