"""floyd-warshall on a GPU (marker `gpu`): the full all-pairs matrix against scipy and against the numpy model of
the same blocked schedule (bit for bit, negative cycles included), every tile and distance width, the source rows
against the reference and the certificate, negative cycles, counters and the memory refusal.

Skipped without CuPy (module-level importorskip) and without a usable CUDA device (the autouse fixture)."""

from __future__ import annotations

import numpy as np
import pytest

cupy = pytest.importorskip("cupy")

from sssp_bench import impls  # noqa: E402
from sssp_bench.errors import NegativeCycleError  # noqa: E402
from sssp_bench.gpu import runtime  # noqa: E402
from sssp_bench.graph.csr import from_arcs  # noqa: E402
from sssp_bench.graph.generators import generate  # noqa: E402
from sssp_bench.graph.weights import apply_weights  # noqa: E402
from sssp_bench.kernels import floyd_warshall as fw  # noqa: E402

from gpu_battery import NEGATIVE, assert_matches_reference, gpu_device, solve_each, some_sources  # noqa: E402, F401

pytestmark = pytest.mark.gpu

NAME = "floyd-warshall"
GRAPHS = ["random:n=300,m=2400,seed=1", "grid:rows=13,cols=17,seed=2", "complete:n=200,seed=1",
          "dag:n=250,degree=6,seed=3", "rmat:n=256,m=2048,seed=4", "chain:n=100,seed=5"]
WIDTHS = [32, 64]


def gpu_all_pairs(graph, source=0, **params):
    """(float64 n x n from all_pairs(), raw int64 matrix, the solve's result) of one prepared solve."""
    implementation = impls.get(NAME)(**params)
    implementation.prepare(graph)
    try:
        result = implementation.solve(source)
        raw = implementation.all_pairs().get()
    finally:
        implementation.teardown()
    distances = raw.astype(np.float64)
    distances[raw == runtime.DIST_INF] = np.inf
    return distances, raw, result


def model_raw(graph, tile, bits):
    """The model's final matrix as all_pairs() returns it (n x n int64, DIST_INF where INF)."""
    _, matrix = fw.model_all_pairs(graph, tile, bits)
    square = matrix[: graph.n, : graph.n].astype(np.int64)
    square[matrix[: graph.n, : graph.n] == fw.LIMITS[bits].inf] = runtime.DIST_INF
    return square


@pytest.mark.parametrize("spec", GRAPHS)
@pytest.mark.parametrize("tile", fw.TILES)
@pytest.mark.parametrize("bits", WIDTHS)
def test_the_matrix_matches_scipy_and_the_model(spec, tile, bits):
    graph = generate(spec)
    distances, raw, result = gpu_all_pairs(graph, distance_bits=bits, tile=tile)
    assert np.array_equal(distances, fw.reference_all_pairs(graph)), (spec, tile, bits)
    assert np.array_equal(raw, model_raw(graph, tile, bits))
    counters = result.counters
    assert counters["pairs"] == graph.n ** 2 and counters["tile"] == tile and counters["distance_bits"] == bits
    assert counters["block_rounds"] == counters["iterations"] == fw.padded(graph.n, tile) // tile


@pytest.mark.parametrize("spec", ["random:n=150,m=3000,seed=3", "grid:rows=9,cols=11,seed=4", "complete:n=100,seed=2"])
def test_optimistic_int32_where_the_bounds_do_not_fit(spec):
    # weights raised by 2^24: the path bound is beyond int32, the distances are not; exact in int32, no widening
    graph = generate(spec)
    heavy = graph.with_weights(np.asarray(graph.weights).astype(np.int32) + np.int32(2**24))
    distances, raw, result = gpu_all_pairs(heavy)
    assert np.array_equal(distances, fw.reference_all_pairs(heavy))
    assert np.array_equal(raw, model_raw(heavy, 32, 32))
    assert (result.counters["distance_bits"], result.counters["widened"]) == (32, False)


def test_a_saturated_int32_solve_is_done_again_in_int64_and_so_are_later_ones():
    long_way = from_arcs(3, [0, 1], [1, 2], [2**30 - 10, 100], name="long-way")
    implementation = impls.get(NAME)()
    implementation.prepare(long_way)
    try:
        first = implementation.solve(0)
        assert (first.counters["distance_bits"], first.counters["widened"]) == (64, True)
        assert first.distances.get().tolist() == [0, 2**30 - 10, 2**30 + 90]
        second = implementation.solve(1)
        assert (second.counters["distance_bits"], second.counters["widened"]) == (64, False)
        assert second.distances.get().tolist()[1:] == [0, 100]
    finally:
        implementation.teardown()


@pytest.mark.parametrize("spec", ["rmat:n=300,m=2400,seed=11", "grid:rows=15,cols=15,seed=12",
                                  "complete:n=150,seed=13"])
@pytest.mark.parametrize("tile", fw.TILES)
def test_negative_weights_without_negative_cycles(spec, tile):
    graph = apply_weights(generate(spec), NEGATIVE)
    assert graph.has_negative_weights()
    for bits in WIDTHS:
        distances, raw, _ = gpu_all_pairs(graph, distance_bits=bits, tile=tile)
        assert np.array_equal(distances, fw.reference_all_pairs(graph))
        assert np.array_equal(raw, model_raw(graph, tile, bits))


@pytest.mark.parametrize("spec", ["random:n=333,m=3000,seed=6", "complete:n=200,seed=1", "road:n=500,seed=10"])
def test_rows_match_the_reference_and_the_certificate(spec):
    graph = generate(spec)
    for tile in fw.TILES:
        assert_matches_reference(f"{NAME} tile={tile}", graph,
                                 solve_each(impls.get(NAME)(tile=tile), graph, some_sources(graph, 4)))


def test_one_vertex_and_odd_graphs():
    one = from_arcs(1, [], [], np.zeros(0, np.int32), name="one-vertex")
    distances, _, result = gpu_all_pairs(one)
    assert distances.tolist() == [[0.0]] and result.counters["block_rounds"] == 1
    loop = from_arcs(1, [0], [0], [3], name="one-vertex-self-loop")
    assert gpu_all_pairs(loop)[0].tolist() == [[0.0]]
    arcs = [(0, 1, 4), (0, 2, 3), (0, 2, 1), (2, 1, 2), (1, 3, 1), (2, 3, 5), (3, 3, 0), (3, 4, 0), (6, 0, 1)]
    diamond = from_arcs(7, *zip(*arcs), name="diamond")
    for tile in fw.TILES:
        distances, _, result = gpu_all_pairs(diamond, tile=tile)
        assert list(distances[0]) == [0, 3, 1, 4, 4, np.inf, np.inf]
        assert np.array_equal(distances, fw.reference_all_pairs(diamond))
    unweighted = generate("rmat:n=200,m=1600,seed=14").with_weights(None)
    assert np.array_equal(gpu_all_pairs(unweighted)[0], fw.reference_all_pairs(unweighted))


def test_every_solve_recomputes_all_pairs():
    graph = generate("random:n=100,m=600,seed=7")
    implementation = impls.get(NAME)()
    implementation.prepare(graph)
    try:
        first = implementation.solve(0).distances.get()
        implementation.matrix.fill(0)  # a solve that reused the matrix would now return zeros
        second = implementation.solve(0).distances.get()
        assert np.array_equal(first, second)
        assert np.array_equal(implementation.solve(5).distances.get(), implementation.all_pairs().get()[5])
    finally:
        implementation.teardown()


@pytest.mark.parametrize("bits", WIDTHS)
@pytest.mark.parametrize("tile", fw.TILES)
def test_negative_cycles(bits, tile):
    # 1 -> 2 -> 1 weighs -2 and is reachable from 0; from 3 it is not, so 3's row is exact
    graph = from_arcs(5, [0, 1, 2, 2, 3], [1, 2, 1, 3, 4], [5, -3, 1, 2, 7], name="negative-cycle")
    results = solve_each(impls.get(NAME)(tile=tile, distance_bits=bits), graph, [0, 3, 4, 1])
    assert isinstance(results[0][3], NegativeCycleError) and results[0][3].vertex == 1
    assert isinstance(results[3][3], NegativeCycleError)
    assert_matches_reference(NAME, graph, results[1:3])
    # a heavy negative ring across tiles: saturated at the floor, matches the model bit for bit
    heaviest = -(2**31) if bits == 64 else -(2**20)  # int32 needs simple paths above -2^30
    ring = from_arcs(70, np.arange(70), (np.arange(70) + 1) % 70, [heaviest] + [5] * 69, name="heavy-ring")
    implementation = impls.get(NAME)(tile=tile, distance_bits=bits)
    implementation.prepare(ring)
    try:
        with pytest.raises(NegativeCycleError):
            implementation.solve(9)
        assert np.array_equal(implementation.all_pairs().get(), model_raw(ring, tile, bits))
    finally:
        implementation.teardown()


def test_relax_counters():
    graph = generate("rmat:n=512,m=4096,seed=16")
    implementation = impls.get(NAME)(count_relaxations=True)
    implementation.prepare(graph)
    try:
        counters = implementation.solve(0).counters
        finite = int((implementation.all_pairs().get() != runtime.DIST_INF).sum()) - graph.n
    finally:
        implementation.teardown()
    assert counters["relaxations"] >= finite  # every finite off-diagonal entry was lowered from INF at least once
    assert counters["relax_attempts"] >= counters["relaxations"] >= graph.m // 2
    assert len(counters["relaxations_per_iteration"]) == counters["iterations"] == 512 // 32
    assert sum(counters["relax_attempts_per_iteration"]) == counters["relax_attempts"]


def test_the_memory_refusal(monkeypatch):
    graph = generate("complete:n=1000,seed=1")
    monkeypatch.setattr(runtime, "free_device_bytes", lambda: (1 << 20, 80 << 30))
    with pytest.raises(runtime.DeviceMemoryError, match=r"n=1000: a 1024 x 1024 int32 matrix of 4194304 bytes"):
        impls.get(NAME)().prepare(graph)
    with pytest.raises(MemoryError):
        impls.get(NAME)(distance_bits=64).prepare(graph)
