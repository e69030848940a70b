"""floyd-warshall on the CPU: its parameters and refusals, the memory estimate and distance width, and the numpy
model of its blocked three-phase schedule (sssp_bench/kernels/floyd_warshall.py) against scipy's all-pairs
Floyd-Warshall. The GPU kernels themselves: tests/test_gpu_floyd_warshall.py."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from sssp_bench import impls
from sssp_bench.errors import ConfigError, UnsupportedGraphError
from sssp_bench.graph.csr import from_arcs
from sssp_bench.graph.generators import generate
from sssp_bench.graph.weights import apply_weights
from sssp_bench.impls import floyd_warshall as module
from sssp_bench.impls.gpu_common import packing_bounds
from sssp_bench.kernels import floyd_warshall as fw
from sssp_bench.run.verify import reference_distances

NEGATIVE = "negative:min=1,max=100,potential=50,seed=1"
SMALL = ["random:n=70,m=300,seed=1", "grid:rows=7,cols=9,seed=2", "complete:n=45,seed=1", "dag:n=50,degree=3,seed=3",
         "rmat:n=64,m=400,seed=4"]


def test_registered_with_its_docstring():
    cls = impls.get("floyd-warshall")
    assert cls is module.FloydWarshall
    assert cls.device == "gpu" and cls.kind == "sssp" and cls.negative_weights
    assert "Figure 6" in module.__doc__ and "blocked" in cls.description.lower()
    assert cls.parameters["tile"].default == 32 and cls.parameters["tile"].choices == fw.TILES


@pytest.mark.parametrize("params", [{"tile": 48}, {"tile": "32"}, {"distance_bits": 16}, {"max_vertices": 1.5},
                                    {"block": 8}])
def test_parameters_are_validated(params):
    with pytest.raises(ConfigError):
        impls.get("floyd-warshall")(**params)


def test_refusals_before_the_device():
    graph = generate("random:n=300,m=1000,seed=1")
    with pytest.raises(UnsupportedGraphError, match=r"n=300 vertices, over max_vertices=200"):
        impls.get("floyd-warshall")(max_vertices=200).prepare(graph)
    floats = graph.with_weights(graph.weights.astype(np.float32))
    with pytest.raises(UnsupportedGraphError, match="float32"):
        impls.get("floyd-warshall")().prepare(floats)
    heavy = from_arcs(3, [0, 1], [1, 2], [2**30, 2**30], name="heavy")
    with pytest.raises(UnsupportedGraphError, match="int32 distances"):
        impls.get("floyd-warshall")(distance_bits=32).prepare(heavy)


def test_memory_estimate():
    assert fw.padded(1, 32) == 32 and fw.padded(64, 32) == 64 and fw.padded(65, 32) == 96 and fw.padded(0, 16) == 16
    assert fw.matrix_bytes(100, 32, 64) == 128 * 128 * 8
    assert fw.matrix_bytes(100, 16, 32) == 112 * 112 * 4
    graph = generate("complete:n=200,seed=1")
    expected = 224 * 224 * 4 + 8 * 201 + 8 * graph.m + 8 * 200
    assert module.device_bytes(graph, 32, 32) == expected
    # the Figure 6 sizes: V = 32k in int32 is 4 GiB, in int64 8 GiB
    assert fw.matrix_bytes(32768, 32, 32) == 2**32 and fw.matrix_bytes(32768, 64, 64) == 2**33


def test_distance_width():
    assert fw.choose_bits(0, *packing_bounds(generate("complete:n=200,seed=1"))) == 32
    assert fw.choose_bits(64, *packing_bounds(generate("complete:n=200,seed=1"))) == 64
    heavy = from_arcs(3, [0, 1], [1, 2], [2**30, 2**30])
    assert fw.choose_bits(0, *packing_bounds(heavy)) == 64
    assert fw.int32_fits(-(2**30) + 1, 2**30 - 1) and not fw.int32_fits(-(2**30), 0) and not fw.int32_fits(0, 2**30)
    with pytest.raises(ValueError):
        fw.choose_bits(32, *packing_bounds(heavy))


def test_kernel_names_are_templates_of_the_cu_file():
    source = Path(module.__file__).with_name("floyd_warshall.cu").read_text()
    templates = set(re.findall(r"template\s*<[^>]*>\s*__global__\s+void\s+(?:__launch_bounds__\([^)]*\)\s+)?(\w+)\(",
                               source))
    for tile in fw.TILES:
        for bits in (32, 64):
            for count in (False, True):
                names = module.kernel_names(tile, bits, count)
                assert {name.split("<")[0] for name in names.values()} <= templates
                # every instance is also instantiated for nvcc (the CI compile check)
                for key in ("diagonal", "panels", "rest"):
                    assert f"FW_PHASES({module.kernel_type(bits)}, {tile}, {'true' if count else 'false'})" in source
    assert "#define FW_SIDE 16" in source and f"#define FW_CYCLE_VERTEX {module.FW_CYCLE_VERTEX}" in source


def test_optimistic_int32_is_exact_without_saturation_and_says_when_it_saturates():
    ceil = fw.LIMITS[32].ceil
    # a heavy arc no shortest path uses: the path bound does not fit int32, the distances do
    bypassed = from_arcs(3, [0, 1, 0], [1, 2, 2], [1, 1, 2**31 - 1], name="bypassed")
    low, high = packing_bounds(bypassed)
    assert not fw.int32_fits(low, high) and fw.optimistic_int32(0, low, high)
    distances, matrix = fw.model_all_pairs(bypassed, 16, 32)
    assert not fw.saturated(matrix, 3, 16, fw.LIMITS[32])
    assert np.array_equal(distances, fw.reference_all_pairs(bypassed))
    # a distance of 2^30 + 90 cannot be held: the entry ends at exactly CEIL, and the check says so
    long_way = from_arcs(3, [0, 1], [1, 2], [2**30 - 10, 100], name="long-way")
    _, matrix = fw.model_all_pairs(long_way, 16, 32)
    assert matrix[0, 2] == ceil and fw.saturated(matrix, 3, 16, fw.LIMITS[32])
    assert fw.model_all_pairs(long_way, 16, 64)[0][0, 2] == 2**30 + 90
    # only the automatic width is optimistic, and never with a negative weight
    assert not fw.optimistic_int32(64, low, high) and not fw.optimistic_int32(0, -1, high)
    assert not fw.optimistic_int32(0, *packing_bounds(generate("complete:n=200,seed=1")))  # fits: plain int32


@pytest.mark.parametrize("spec", ["complete:n=100,seed=2", "random:n=150,m=3000,seed=3", "grid:rows=9,cols=11,seed=4"])
def test_optimistic_int32_on_graphs_with_heavy_unused_weights(spec):
    # the generator's weights, each raised by 2^24: bounds far beyond int32, distances (at most ~200 arcs) within
    graph = generate(spec)
    heavy = graph.with_weights(np.asarray(graph.weights, dtype=np.int64).astype(np.int32) + np.int32(2**24))
    assert fw.optimistic_int32(0, *packing_bounds(heavy))
    reference = fw.reference_all_pairs(heavy)
    distances, matrix = fw.model_all_pairs(heavy, 32, 32)
    held = matrix[:heavy.n, :heavy.n] != fw.LIMITS[32].ceil  # every entry below CEIL is exact, saturated or not
    assert np.array_equal(distances[held], reference[held])
    assert (reference[~held] >= fw.LIMITS[32].ceil).all()
    assert fw.saturated(matrix, heavy.n, matrix.shape[0], fw.LIMITS[32]) == (not held.all())


@pytest.mark.parametrize("spec", SMALL)
@pytest.mark.parametrize("weights", [None, NEGATIVE])
def test_the_blocked_model_matches_scipy(spec, weights):
    graph = generate(spec)
    if weights:
        graph = apply_weights(graph, weights)
    reference = fw.reference_all_pairs(graph)
    for tile in fw.TILES:
        for bits in (32, 64):
            distances, matrix = fw.model_all_pairs(graph, tile, bits)
            assert np.array_equal(distances, reference), (spec, weights, tile, bits)
            assert fw.negative_cycle_vertex(matrix, 0, graph.n, fw.LIMITS[bits]) is None


def test_the_model_on_odd_graphs():
    one = from_arcs(1, [], [], np.zeros(0, np.int32), name="one")
    assert fw.model_all_pairs(one, 16)[0].tolist() == [[0.0]]
    arcs = [(0, 1, 4), (0, 2, 3), (0, 2, 1), (2, 1, 2), (1, 3, 1), (2, 3, 5), (3, 3, 0), (3, 4, 0), (6, 0, 1)]
    diamond = from_arcs(7, *zip(*arcs), name="diamond")
    distances, _ = fw.model_all_pairs(diamond, 16, 32)
    assert list(distances[0]) == [0, 3, 1, 4, 4, np.inf, np.inf]
    assert np.array_equal(distances, fw.reference_all_pairs(diamond))
    unweighted = generate("rmat:n=100,m=600,seed=14").with_weights(None)
    assert np.array_equal(fw.model_all_pairs(unweighted, 32)[0], fw.reference_all_pairs(unweighted))


@pytest.mark.parametrize("bits", [32, 64])
def test_negative_cycles_in_the_model(bits):
    limits = fw.LIMITS[bits]
    # 1 -> 2 -> 1 weighs -2 and is reachable from 0; from 3 it is not, so 3's row is exact
    graph = from_arcs(5, [0, 1, 2, 2, 3], [1, 2, 1, 3, 4], [5, -3, 1, 2, 7], name="negative-cycle")
    _, matrix = fw.model_all_pairs(graph, 16, bits)
    assert fw.negative_cycle_vertex(matrix, 0, graph.n, limits) == 1
    for source in (3, 4):
        assert fw.negative_cycle_vertex(matrix, source, graph.n, limits) is None
        row = matrix[source, :graph.n].astype(np.float64)
        row[matrix[source, :graph.n] == limits.inf] = np.inf
        assert np.array_equal(row, reference_distances(graph, source))
    loop = from_arcs(3, [0, 1, 1], [1, 1, 2], [1, -1, 1])
    assert fw.negative_cycle_vertex(fw.model_all_pairs(loop, 16, bits)[1], 0, 3, limits) == 1
    # a long ring across several tiles, and a heavy negative cycle the saturation holds at the floor
    ring_size = 70
    ring = from_arcs(ring_size, np.arange(ring_size), (np.arange(ring_size) + 1) % ring_size,
                     [-1] + [0] * (ring_size - 1))
    _, matrix = fw.model_all_pairs(ring, 16, bits)
    assert fw.negative_cycle_vertex(matrix, 5, ring_size, limits) == 0
    heavy = from_arcs(40, np.arange(40), (np.arange(40) + 1) % 40, [-(2**31)] * 40)
    _, matrix = fw.model_all_pairs(heavy, 16, bits)
    assert matrix.min() == limits.floor if bits == 32 else limits.floor <= matrix.min() < -(2**39)
    assert fw.negative_cycle_vertex(matrix, 7, 40, limits) == 0
