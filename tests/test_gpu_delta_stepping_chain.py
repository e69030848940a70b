"""delta-stepping-chain on a GPU (marker `gpu`): against the CPU reference and the certificate on the shared battery,
with deltas from 1 (one bucket per distance, the most slots) to huge (one bucket), chains off, short and unbounded,
grids of one block to a full wave, block sizes, zero and huge weights, many solves on one preparation (the ring's
cells and counters carry over), the counters' bookkeeping, USA-road-d.NY when present, and a run through the runner.

tests/test_gpu_impls.py also runs it at its defaults on its battery (every registered GPU implementation). Skipped
without CuPy (module-level importorskip) and without a usable GPU (gpu_battery's autouse fixture).
"""

from __future__ import annotations

import numpy as np
import pytest

cupy = pytest.importorskip("cupy")

from sssp_bench import impls  # noqa: E402
from sssp_bench.errors import UnsupportedGraphError  # noqa: E402
from sssp_bench.graph.csr import from_arcs  # noqa: E402
from sssp_bench.graph.generators import generate  # noqa: E402
from sssp_bench.impls.delta_stepping_chain import SLOT_LIMIT  # noqa: E402

from gpu_battery import (  # noqa: E402, F401
    GENERATED, assert_matches_reference, gpu_device, solve_each, some_sources,
)
from runs import make_config, run_rows, solves_all_ok  # noqa: E402

pytestmark = pytest.mark.gpu

NAME = "delta-stepping-chain"


def check(graph, sources, **params):
    results = solve_each(impls.get(NAME)(**params), graph, sources)
    assert_matches_reference(f"{NAME} {params}", graph, results)
    return results


@pytest.mark.parametrize("delta", [1, 0, 2**40], ids=["delta1", "auto", "huge"])
@pytest.mark.parametrize("spec", GENERATED)
def test_the_battery_with_small_and_large_deltas(spec, delta):
    graph = generate(spec)
    check(graph, some_sources(graph, 4), delta=delta)


@pytest.mark.parametrize("chain", [0, 1, 3])
@pytest.mark.parametrize("spec", ["road:n=5000,seed=10", "grid:rows=40,cols=50,seed=5", "chain:n=700,seed=6",
                                  "rmat:n=4096,m=65536,seed=3"])
def test_chains_off_short_and_unbounded_give_the_same_distances(spec, chain):
    graph = generate(spec)
    check(graph, some_sources(graph, 3), chain=chain)


@pytest.mark.parametrize("stripes", [1, 3, 32])
@pytest.mark.parametrize("spec", ["road:n=5000,seed=10", "grid:rows=40,cols=50,seed=5", "rmat:n=4096,m=65536,seed=3"])
def test_one_to_many_stripes_per_bucket(spec, stripes):
    graph = generate(spec)
    results = check(graph, some_sources(graph, 3), stripes=stripes)
    assert all(counters["stripes"] == stripes for _, _, counters, _ in results)


@pytest.mark.parametrize("blocks,block", [(1, 64), (1, 256), (4, 128), (0, 128)])
def test_one_block_to_a_full_wave(blocks, block):
    graph = generate("road:n=20000,seed=3")
    results = check(graph, some_sources(graph, 3), blocks=blocks, block=block)
    assert all(counters["block"] == block for _, _, counters, _ in results)


def test_many_solves_on_one_preparation_reuse_the_ring():
    # every solve hands the ring back empty (each cell taken and emptied); the next one starts at position 0
    graph = generate("road:n=8000,seed=4")
    check(graph, list(range(0, graph.n, graph.n // 40))[:40], delta=1)


def test_zero_weights_parallel_arcs_and_huge_weights():
    arcs = [(0, 1, 0), (1, 2, 0), (2, 0, 0), (0, 3, 2**31 - 1), (0, 3, 5), (3, 4, 0), (4, 5, 2**31 - 1), (6, 0, 1)]
    graph = from_arcs(7, *zip(*arcs), name="zero-and-huge")
    for delta in (1, 0, 2**40):  # delta 1 is raised: max weight / delta + 3 buckets must fit the ring
        results = check(graph, [0, 3, 6], delta=delta)
        assert all(counters["slots"] <= SLOT_LIMIT for _, _, counters, _ in results)
    zero = from_arcs(4, [0, 1, 2, 3], [1, 2, 3, 0], [0, 0, 0, 0], name="zero-ring")
    check(zero, [0, 2])


def test_a_single_vertex_and_an_unreachable_rest():
    no_arcs = np.array([], dtype=np.int32)
    check(from_arcs(1, no_arcs, no_arcs, no_arcs, name="one"), [0])
    check(from_arcs(5, [1, 2], [2, 3], [4, 4], name="island"), [0, 1, 4])


def test_counters_keep_their_books():
    graph = generate("road:n=20000,seed=5")
    for chain in (0, 2**30):
        for _, distances, counters, _ in solve_each(impls.get(NAME)(chain=chain, count_relaxations=True), graph,
                                                     some_sources(graph, 2)):
            # every entry taken was pushed (the source's entry is the init's); a relaxed vertex is an entry that was
            # not stale or a chained hop; each improvement is pushed or chained
            assert counters["pops"] == counters["pushes"] + 1
            assert counters["relaxed"] == counters["pops"] - counters["stale_pops"] + counters["chained"]
            assert counters["relaxations"] == counters["pushes"] + counters["chained"]
            if chain == 0:
                assert counters["chained"] == 0
            assert counters["relaxed"] >= int(np.isfinite(distances).sum())  # each reached vertex at least once


def test_negative_weights_are_refused():
    graph = from_arcs(3, [0, 1], [1, 2], [5, -2], name="negative")
    implementation = impls.get(NAME)()
    with pytest.raises(UnsupportedGraphError):
        implementation.prepare(graph)
    implementation.teardown()


def test_usa_road_ny():
    from test_gpu_impls import _read_real, _real_file  # the shared reader of the real files (skips without them)

    graph = _read_real(_real_file("USA-road-d.NY.gr.gz"))
    sources = [0, graph.n // 3, graph.n - 1]
    results = check(graph, sources, count_relaxations=True)
    check(graph, sources[:1], delta=5_000)
    check(graph, sources[:1], chain=0)
    counters = results[0][2]
    print(NAME, "on USA-road-d.NY:", {key: value for key, value in counters.items()
                                      if not key.endswith("_per_iteration")})


def test_a_tiny_run_through_the_runner(tmp_path):
    text = """
        graphs:
          - {graph: "road:n=4000,seed=1", label: road}
          - {graph: "grid:rows=30,cols=30,seed=2", label: grid}
        implementations: [delta-stepping-chain, {name: delta-stepping-chain, label: no-chains, params: {chain: 0}}]
        sources: {count: 5, seed: 1}
        verification: {reference_sources: 2}
    """
    _, rows = run_rows(make_config(tmp_path, text, name="chain"), run_id="chain")
    solves = solves_all_ok(rows)
    assert len(solves) == 2 * 2 * 5
    assert all(row["certificate"] is True for row in solves)
