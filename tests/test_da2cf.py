"""DA2CF (da2cf-gpu-dijkstra-compound-frontiers) on the CPU: the numpy model of Fig. 2 (the paper's FCPU and UCPU)
gives exactly Dijkstra's distances in one iteration per distinct distance, and the GPU implementation's parameters,
variant names and refusals, which need no GPU. The kernels themselves run in test_gpu_da2cf.py."""

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
from sssp_bench.kernels.arrays import INT_UNREACHED, kernel_arrays
from sssp_bench.kernels.da2cf import MATRIX_NO_ARC, da2cf, dense_weights, distinct_distances, predecessor_csr
from sssp_bench.impls.da2cf import DA2CF_BLOCK, matrix_refusal, variant_name
from sssp_bench.run.verify import compare, reference_distances

INF = INT_UNREACHED
REPO = Path(__file__).resolve().parents[1]


def canonical(distances):
    out = distances.astype(np.float64)
    out[distances == INF] = np.inf
    return out


# --- the model: compound frontiers ------------------------------------------------------------------------------


def test_a_compound_frontier_resolves_every_vertex_at_the_least_distance_at_once():
    # 0 -> 1 (2), 0 -> 2 (2), 0 -> 3 (5), 1 -> 3 (1), 2 -> 4 (1), 3 -> 4 (9); 5 is unreachable.
    # Distances 0 | 2 2 | 3 3: Dijkstra settles 1 and 2 one at a time, DA2CF as one frontier {1, 2}, then {3, 4}.
    graph = from_arcs(6, [0, 0, 0, 1, 2, 3], [1, 2, 3, 3, 4, 4], [2, 2, 5, 1, 1, 9])
    for relax in ("frontier", "unresolved"):
        run = da2cf(graph, 0, relax)
        assert run.distances.tolist() == [0, 2, 2, 3, 3, INF]
        assert run.frontier_sizes == [1, 2, 2]  # {0}, {1, 2}, {3, 4}
        assert run.mssp == [2, 3, INF]          # the last iteration finds nothing left: the loop ends
        assert run.iterations == 3 == distinct_distances(run.distances)


@pytest.mark.parametrize("spec", ["fixed-degree:n=2000,degree=7,seed=1", "fixed-degree:n=1500,degree=7,predecessor=true",
                                  "rmat:n=1024,m=8192,seed=3", "grid:rows=20,cols=30,seed=5", "road:n=900,seed=3",
                                  "dag:n=300,degree=8,seed=2", "random:n=2000,m=1500,seed=4"])
@pytest.mark.parametrize("relax", ["frontier", "unresolved"])
def test_the_model_gives_dijkstras_distances_in_one_iteration_per_distinct_distance(spec, relax):
    graph = generate(spec)
    for source in (0, graph.n // 2):
        run = da2cf(graph, source, relax)
        assert compare(reference_distances(graph, source), canonical(run.distances)).ok
        assert run.iterations == distinct_distances(run.distances)
        assert sum(run.frontier_sizes) == int((run.distances != INF).sum())  # each reached vertex resolved once


def test_fcpu_and_ucpu_take_the_same_iterations_and_frontiers():
    graph = generate("fixed-degree:n=3000,degree=7,seed=9")
    forward, backward = da2cf(graph, 5, "frontier"), da2cf(graph, 5, "unresolved")
    np.testing.assert_array_equal(forward.distances, backward.distances)
    assert forward.frontier_sizes == backward.frontier_sizes and forward.mssp == backward.mssp


def test_large_frontiers_on_the_papers_graphs_need_few_iterations():
    # section 6: fixed degree 7, weights 1..10 -> "around 45" iterations for 11M vertices; far fewer than n here
    graph = generate("fixed-degree:n=20000,degree=7,seed=1")
    run = da2cf(graph, 0)
    assert run.iterations < 100 and max(run.frontier_sizes) > 1000


def test_zero_weights_may_split_one_distance_over_iterations_and_stay_exact():
    # 0 -(1)-> 1 -(0)-> 2 -(0)-> 3: one distance (1), three frontiers; a zero-weight self-loop changes nothing
    graph = from_arcs(4, [0, 1, 2, 3], [1, 2, 3, 3], [1, 0, 0, 0])
    for relax in ("frontier", "unresolved"):
        run = da2cf(graph, 0, relax)
        assert run.distances.tolist() == [0, 1, 1, 1]
        assert run.frontier_sizes == [1, 1, 1, 1] and run.iterations == 4 > distinct_distances(run.distances)


def test_unweighted_graphs_are_bfs_levels():
    graph = generate("grid:rows=10,cols=10,seed=1").with_weights(None)
    run = da2cf(graph, 0, "unresolved")
    rows, cols = np.divmod(np.arange(100), 10)
    np.testing.assert_array_equal(run.distances, rows + cols)
    assert run.iterations == 19


def test_the_race_graph_has_one_frontier_of_n_minus_2_vertices_racing_to_the_sink():
    n = 300
    graph = generate(f"da2cf-race:n={n},seed=3")
    run = da2cf(graph, 0)
    assert run.frontier_sizes == [1, n - 2, 1]
    assert run.distances[n - 1] == 2 and (run.distances[1 : n - 1] == 1).all()
    # every middle vertex offers the sink a different candidate, 2..n-1: a lost race leaves one of the larger
    into_sink = graph.weights[graph.column_ids == n - 1]
    assert sorted(into_sink.tolist()) == list(range(1, n - 1))


def test_the_predecessor_csr_is_the_transposed_graph():
    graph = from_arcs(4, [0, 0, 1, 2, 2, 3], [1, 2, 2, 0, 3, 3], [5, 6, 7, 8, 9, 1])
    preds = predecessor_csr(kernel_arrays(graph))
    assert preds.row_offsets.tolist() == [0, 1, 2, 4, 6]
    rows = [sorted(zip(preds.column_ids[a:b].tolist(), preds.weights[a:b].tolist()))
            for a, b in zip(preds.row_offsets[:-1], preds.row_offsets[1:])]
    assert rows == [[(2, 8)], [(0, 5)], [(0, 6), (1, 7)], [(2, 9), (3, 1)]]
    unit = predecessor_csr(kernel_arrays(graph.with_weights(None)))
    assert unit.unit_weights and len(unit.weights) == 0


def test_the_dense_matrix_keeps_the_least_of_parallel_arcs_and_marks_no_arc():
    graph = from_arcs(3, [0, 0, 0, 2], [2, 2, 1, 2], [7, 3, 0, 4])
    matrix = dense_weights(graph)
    assert matrix.dtype == np.uint32 and matrix.shape == (3, 3)
    assert matrix[0, 2] == 3 and matrix[0, 1] == 0 and matrix[2, 2] == 4
    assert matrix[1].tolist() == [MATRIX_NO_ARC] * 3 and MATRIX_NO_ARC > np.iinfo(np.int32).max


def test_the_model_refuses_negative_weights():
    graph = apply_weights(generate("grid:rows=5,cols=5,seed=1"), "negative:min=1,max=10,potential=5,seed=1")
    with pytest.raises(ValueError, match="non-negative"):
        da2cf(graph, 0)


# --- the GPU implementation's parameters, without a GPU -----------------------------------------------------------


@pytest.mark.parametrize(("params", "variant"), [
    ({}, "FGPU"),
    ({"atomic": False}, "FGPU_no_Atomic"),
    ({"relax": "unresolved"}, "UGPU"),
    ({"relax": "unresolved", "min_passes": 2}, "UGPU+2min"),
    ({"relax": "unresolved", "cached_reads": True}, "UGPU_PLUS"),
    ({"relax": "unresolved", "cached_reads": True, "min_passes": 2}, "UGPU_PLUS+2min"),
    ({"min_passes": 2}, "FGPU+2min"),
    ({"representation": "matrix"}, "FGPU-matrix"),
    ({"representation": "matrix", "atomic": False}, "FGPU_no_Atomic-matrix"),
    ({"representation": "matrix", "relax": "unresolved"}, "UGPU-matrix"),
])
def test_parameters_name_the_papers_variants(params, variant):
    implementation = impls.get("da2cf")(**params)
    assert implementation.variant == variant
    assert variant_name(**{**{"relax": "frontier", "atomic": True, "min_passes": 1, "cached_reads": False,
                              "representation": "list"}, **params}) == variant


def test_the_paper_has_no_unresolved_variant_without_atomics():
    with pytest.raises(ConfigError, match=r"parameter 'atomic' = false \(FGPU_no_Atomic\) needs relax='frontier'"):
        impls.get("da2cf")(relax="unresolved", atomic=False)


@pytest.mark.parametrize("params", [{"cached_reads": True},
                                    {"cached_reads": True, "relax": "unresolved", "representation": "matrix"}])
def test_cached_reads_is_ugpu_plus_on_the_lists_only(params):
    with pytest.raises(ConfigError, match="parameter 'cached_reads'"):
        impls.get("da2cf")(**params)


@pytest.mark.parametrize(("params", "message"), [
    ({"min_passes": 3}, r"'min_passes' must be one of \[1, 2\]"),
    ({"relax": "successors"}, r"'relax' must be one of \['frontier', 'unresolved'\]"),
    ({"representation": "dense"}, r"'representation' must be one of \['list', 'matrix'\]"),
    ({"atomic": "no"}, r"'atomic' must be bool"),
])
def test_bad_parameters_are_config_errors(params, message):
    with pytest.raises(ConfigError, match=message):
        impls.get("da2cf")(**params)


def test_negative_weights_are_refused_before_the_device_is_touched():
    graph = apply_weights(generate("grid:rows=5,cols=5,seed=1"), "negative:min=1,max=10,potential=5,seed=1")
    implementation = impls.get("da2cf")(relax="unresolved")
    with pytest.raises(UnsupportedGraphError, match="da2cf needs non-negative weights"):
        implementation.prepare(graph)


def test_a_matrix_that_does_not_fit_is_refused_in_one_line():
    assert matrix_refusal("da2cf", 1000, 10**6, 80 << 30) is None
    message = matrix_refusal("da2cf", 200_000, 10**8, 80 << 30)  # 149 GiB of matrix
    assert message and "\n" not in message
    assert message.startswith("da2cf: representation=matrix needs a 200000 x 200000 matrix of 149.01 GiB")
    assert message.endswith("use representation=list")


def test_the_block_size_matches_the_kernels():
    source = (REPO / "sssp_bench" / "impls" / "da2cf.cu").read_text()
    assert re.search(rf"#define DA2CF_BLOCK {DA2CF_BLOCK}\b", source)
    assert DA2CF_BLOCK & (DA2CF_BLOCK - 1) == 0  # minimum1's tree halves it down to one


def test_it_is_registered_as_a_gpu_sssp_implementation_for_non_negative_weights():
    cls = impls.get("da2cf")
    assert cls.device == "gpu" and cls.kind == "sssp" and not cls.negative_weights
    assert set(cls.parameters) == {"count_relaxations", "relax", "atomic", "min_passes", "cached_reads",
                                   "representation"}
