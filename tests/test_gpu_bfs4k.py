"""bfs4k (BFS-4K) against the CPU reference levels and the BFS certificate, on a GPU (marker `gpu`): every
technique alone, all together and all off; frontiers that cross the single/multi-block threshold; heavy vertices
for dynamic parallelism (child grids and cooperative blocks); hash-table collisions from a tiny table; the
runner path with the device certificate.

Skipped as a whole without CuPy (module-level importorskip) and without a usable CUDA device (the autouse
fixture). Run on the device machine with `python -m pytest -q tests/test_gpu_bfs4k.py`.
"""

from __future__ import annotations


import numpy as np
import pytest

from sssp_bench import impls
from sssp_bench.graph.csr import CSRGraph, from_arcs
from sssp_bench.errors import ConfigError, UnsupportedGraphError
from sssp_bench.graph.generators import generate
from sssp_bench.impls.bfs4k import SWITCHES

from runs import make_config, run_rows, solves_all_ok
from gpu_battery import (  # noqa: F401
    GENERATED, assert_matches_reference, gpu_device, solve_each, some_sources,
)

cupy = pytest.importorskip("cupy")  # after the imports: none of them needs CuPy

pytestmark = pytest.mark.gpu

ALL_OFF = {**{switch: False for switch in SWITCHES}, "dynamic_parallelism": "off"}
TECHNIQUE_CONFIGS = {
    "all-on": {},
    "all-off": ALL_OFF,
    **{f"{switch}-alone": {**ALL_OFF, switch: True} for switch in SWITCHES},
    "dp-cooperative-alone": {**ALL_OFF, "dynamic_parallelism": "cooperative", "k3": 1},
    "k4-zero-no-edge-discover": {"k4": 0.0},
    "k1-32": {"k1": 32},
    "deferred-flush-off": {"deferred_flush": False},
    "all-off-and-deferred-flush-off": {**ALL_OFF, "deferred_flush": False},
    "spread-every-level": {"spread_degree": 0.0},
    "spread-handed-over-levels-only": {"spread_degree": 1e9},
}


def solve_all(graph: CSRGraph, sources, **params):
    """[(source, canonical levels, counters)] from one prepared bfs4k (levels copied before the next solve)."""
    return [(source, levels, counters)
            for source, levels, counters, _ in solve_each(impls.get("bfs4k")(**params), graph, sources)]


def check_against_reference(graph: CSRGraph, sources, **params):
    results = solve_each(impls.get("bfs4k")(**params), graph, sources)
    assert_matches_reference(f"bfs4k {params}", graph, results, kind="bfs")
    return [(source, levels, counters) for source, levels, counters, _ in results]


@pytest.mark.parametrize("spec", GENERATED)
def test_generated_graphs_match_the_reference(spec):
    graph = generate(spec)
    check_against_reference(graph, some_sources(graph, 4))


@pytest.mark.parametrize("config", list(TECHNIQUE_CONFIGS), ids=list(TECHNIQUE_CONFIGS))
@pytest.mark.parametrize("spec", ["rmat:n=4096,m=65536,seed=11", "grid:rows=60,cols=60,seed=12",
                                  "kron:scale=12,edgefactor=16,seed=13"])
def test_each_technique_alone_all_together_and_all_off(config, spec):
    graph = generate(spec)
    check_against_reference(graph, some_sources(graph, 3), **TECHNIQUE_CONFIGS[config])


@pytest.mark.parametrize("local_queue", [4, 16])
@pytest.mark.parametrize("spec", ["rmat:n=4096,m=65536,seed=17", "kron:scale=12,edgefactor=16,seed=18"])
def test_local_queue_lengths(spec, local_queue):
    graph = generate(spec)
    check_against_reference(graph, some_sources(graph, 3), local_queue=local_queue)
    check_against_reference(graph, some_sources(graph, 2), local_queue=local_queue, **ALL_OFF)
    check_against_reference(graph, some_sources(graph, 2), local_queue=local_queue, deferred_flush=False)


def test_small_and_odd_graphs():
    one = from_arcs(1, [], [], np.zeros(0, np.int32), name="one-vertex")
    check_against_reference(one, [0])
    one_loop = from_arcs(1, [0], [0], [3], name="one-vertex-self-loop")
    check_against_reference(one_loop, [0])
    # parallel arcs 0->2, self-loops, an isolated vertex (5) and one that points in but is unreachable (6)
    arcs = [(0, 1, 4), (0, 2, 3), (0, 2, 1), (2, 1, 2), (1, 3, 1), (2, 3, 5), (3, 3, 0), (3, 4, 0), (6, 0, 1),
            (0, 0, 1)]
    diamond = from_arcs(7, *zip(*arcs), name="diamond")
    for params in ({}, ALL_OFF):
        check_against_reference(diamond, [0, 6, 5], **params)
        levels = solve_all(diamond, [0], **params)[0][1]
        assert list(levels) == [0, 1, 1, 2, 3, np.inf, np.inf]


def test_disconnected_graphs_and_a_source_without_out_arcs():
    halves = from_arcs(8, [0, 1, 2, 4, 5, 6], [1, 2, 3, 5, 6, 7], [1, 2, 3, 4, 5, 6], name="two-chains")
    check_against_reference(halves, [0, 4, 3])
    star = generate("star:n=500,directed=true,seed=2")
    check_against_reference(star, [0, 17])
    (_, leaf, counters), = solve_all(star, [17])
    assert leaf[17] == 0 and np.isinf(np.delete(leaf, 17)).all()
    assert counters["iterations"] == 0
    sparse = generate("random:n=5000,m=3000,seed=15")  # many isolated vertices and small components
    check_against_reference(sparse, some_sources(sparse, 4))


@pytest.mark.parametrize("k5", [1.0, 0.01, 0.0, 5.0])
@pytest.mark.parametrize("spec", ["star:n=3000,seed=21", "grid:rows=100,cols=100,seed=22", "chain:n=3000,seed=23",
                                  "rmat:n=8192,m=65536,seed=24"])
def test_frontiers_crossing_the_single_and_multi_block_threshold(spec, k5):
    graph = generate(spec)
    check_against_reference(graph, some_sources(graph, 3), k5=k5)


def test_the_single_block_kernel_runs_level_after_level_in_one_launch():
    # a path from one end: 2999 levels of one vertex each, all in the one launch of the first step
    chain = generate("chain:n=3000,seed=23")
    (_, _, counters), = check_against_reference_counted(chain, [0])
    assert counters["iterations"] == 3000
    assert counters["single_block_levels"] == 3000 and counters["single_block_launches"] == 1
    # a 100 x 100 grid from a corner: frontiers up to 100 vertices, below the threshold of 1024
    grid = generate("grid:rows=100,cols=100,seed=22")
    (_, _, counters), = check_against_reference_counted(grid, [0])
    assert counters["single_block_levels"] == counters["iterations"] and counters["single_block_launches"] == 1
    # a threshold of 51 vertices: the growing diagonal goes multi-block, the shrinking one comes back
    (_, _, counters), = check_against_reference_counted(grid, [0], k5=0.05)
    assert 0 < counters["single_block_levels"] < counters["iterations"]
    assert counters["single_block_launches"] >= 2


def test_a_heavy_vertex_met_by_the_single_block_kernel_goes_multi_block():
    # the star's centre (vertex 0) is heavy: the single-block kernel stops its level and hands it over
    star = generate("star:n=5000,seed=31")
    for mode in ("cooperative", "off"):
        (_, _, counters), = check_against_reference_counted(star, [1], dynamic_parallelism=mode, k3=1, k2=1.0)
        assert counters["iterations"] == 3
        if mode == "cooperative":
            assert counters["single_block_levels"] < counters["iterations"]


def check_against_reference_counted(graph: CSRGraph, sources, **params):
    return check_against_reference(graph, sources, count_frontiers=True, **params)


@pytest.mark.parametrize("mode", ["cooperative", "child", "off"])
@pytest.mark.parametrize("spec,k3", [("star:n=5000,seed=31", 16), ("kron:scale=12,edgefactor=16,seed=32", 1),
                                     ("rmat:n=4096,m=65536,seed=33", 1)])
def test_heavy_vertices_with_dynamic_parallelism(spec, k3, mode):
    graph = generate(spec)
    try:
        results = check_against_reference(graph, some_sources(graph, 4), dynamic_parallelism=mode, k3=k3, k2=1.0,
                                          count_frontiers=True)
    except UnsupportedGraphError as error:  # child grids need CDP through CuPy
        pytest.skip(str(error))
    if mode == "child":  # the star's centre and kron's hubs are heavy: given to child grids
        assert sum(counters["child_grids"] for _, _, counters in results) > 0


def hub_reached_by_many_blocks(fan: int = 20000, hub_degree: int = 30000) -> CSRGraph:
    """Vertex 0 -> 1..fan (one level of many blocks), each of them -> the hub (fan + 1), the hub -> hub_degree
    leaves: every block that meets the hub may put it in F'."""
    hub = fan + 1
    tails = [0] * fan + list(range(1, fan + 1)) + [hub] * hub_degree
    heads = list(range(1, fan + 1)) + [hub] * fan + list(range(hub + 1, hub + 1 + hub_degree))
    return from_arcs(hub + 1 + hub_degree, tails, heads, np.ones(len(tails), np.int32), name="hub-of-a-fan")


@pytest.mark.parametrize("mode", ["cooperative", "child"])
def test_a_heavy_vertex_is_given_away_once_however_many_copies_the_frontier_holds(mode):
    graph = hub_reached_by_many_blocks()
    knobs = {"dynamic_parallelism": mode, "k2": 0.001, "k1": 32, "k4": 0.0, "single_block": False}  # heavy: the hub
    try:
        (_, _, claimed), = check_against_reference_counted(graph, [0], **knobs)
    except UnsupportedGraphError as error:  # child grids need CDP through CuPy
        pytest.skip(str(error))
    (_, _, copied), = check_against_reference_counted(graph, [0], heavy_claim=False, **knobs)
    assert copied["frontier_sizes"][2] > 1  # the hub sits in F more than once ...
    given = "child_grids" if mode == "child" else "heavy_list_entries"
    assert copied[given] > 1 and claimed[given] == 1  # ... and is expanded once


@pytest.mark.parametrize("k6", [1, 2, 32])
@pytest.mark.parametrize("spec", ["kron:scale=12,edgefactor=16,seed=41", "rmat:n=4096,m=65536,seed=42",
                                  "star:n=3000,seed=43"])
def test_hash_table_collisions_from_a_tiny_table(spec, k6):
    graph = generate(spec)
    check_against_reference(graph, some_sources(graph, 3), k6=k6)
    check_against_reference(graph, some_sources(graph, 2), k6=k6, single_block=False)


def test_duplicates_that_overflow_the_frontier_are_rebuilt_from_the_levels():
    # layers of 64 vertices, each vertex pointing at every vertex of the next layer: 4096 arcs per layer into
    # 64 new vertices, all examined at once, so without the hash table the next frontier can hold many
    # duplicates (more than n entries: the search stalls and the frontier is rebuilt from the levels)
    width, layers = 64, 4
    tails, heads = [], []
    for u in range(width):
        tails.append(0)
        heads.append(1 + u)
    for layer in range(layers - 1):
        for a in range(width):
            for b in range(width):
                tails.append(1 + layer * width + a)
                heads.append(1 + (layer + 1) * width + b)
    graph = from_arcs(1 + layers * width, tails, heads, np.ones(len(tails), np.int32), name="dense-layers")
    for params in ({}, {"hash_dedup": False, "single_block": False}, ALL_OFF):
        check_against_reference(graph, [0, 5], **params)


def test_counters_give_frontier_sizes_and_arcs_per_level():
    graph = generate("rmat:n=2048,m=16384,seed=16")
    (_, levels, counters), = solve_all(graph, [0], count_frontiers=True)
    reached = np.isfinite(levels)
    depth = counters["iterations"]
    assert depth == int(levels[reached].max()) + 1
    assert len(counters["frontier_sizes"]) == depth and len(counters["arcs_per_level"]) == depth
    assert counters["frontier_sizes"][0] == 1
    assert sum(counters["frontier_sizes"]) >= int(reached.sum())  # duplicates only add
    degrees = graph.out_degrees()
    assert sum(counters["arcs_per_level"]) >= int(degrees[reached].sum())
    (_, _, quiet), = solve_all(graph, [0])
    assert "frontier_sizes" not in quiet


def test_unit_weights_and_weighted_graphs_give_the_same_levels():
    graph = generate("rmat:n=1024,m=8192,seed=14")
    a = solve_all(graph, [0])[0][1]
    b = solve_all(graph.with_weights(None), [0])[0][1]
    assert np.array_equal(a, b)


def test_bad_knobs_are_config_errors():
    with pytest.raises(ConfigError, match="k1"):
        impls.get("bfs4k")(k1=3)
    with pytest.raises(ConfigError, match="dynamic_parallelism"):
        impls.get("bfs4k")(dynamic_parallelism="sometimes")


def test_bfs4k_through_the_runner_with_the_device_certificate(tmp_path):
    text = """
        graphs:
          - {graph: "kron:scale=11,edgefactor=16,seed=2", label: kron}
          - {graph: "grid:rows=24,cols=24,seed=1", label: grid}
        implementations:
          - cpu-bfs
          - bfs4k
          - {name: bfs4k, label: bfs4k-off, params: {warp_scan: false, binary_scan: false, virtual_warps: false,
             edge_discover: false, single_block: false, coalesced_writes: false, hash_dedup: false,
             dynamic_parallelism: "off", count_frontiers: true}}
        sources: {count: 4, seed: 1}
        warmup: 1
        baseline: cpu-bfs
        verification: {reference_sources: 2}
    """
    outcome, rows = run_rows(make_config(tmp_path, text, name="bfs4k"), run_id="bfs4k")
    solves = solves_all_ok(rows)
    gpu_rows = [row for row in solves if row["device"] == "gpu"]
    assert len(gpu_rows) == 2 * 2 * 4
    assert all(row["kind"] == "bfs" for row in solves)
    assert all(row["certificate"] is True for row in solves)
    assert all(row["certificate_device"] == "gpu" for row in gpu_rows)
