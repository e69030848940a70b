"""Verification: the certificate (positive and negative cases, its documented blind spot), the scipy reference
(and the scipy pitfalls it avoids), and compare."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import dijkstra

from sssp_bench.graph.csr import from_arcs
from sssp_bench.errors import NegativeCycleError
from sssp_bench.run.verify import (
    FLOAT_RTOL,
    CheckResult,
    certificate,
    compare,
    reference_distances,
    scipy_matrix,
    tolerance_for,
)

INF = np.inf


# --- certificate: right answers pass ---------------------------------------------------------------------------------


def test_certificate_accepts_the_known_answers(non_negative_case):
    case = non_negative_case
    check = certificate(case.graph, case.source, case.expected)
    assert isinstance(check, CheckResult)
    assert check.ok, check.message
    assert check.counts["reached"] == np.isfinite(case.expected).sum()


def test_certificate_accepts_negative_weight_distances(negative_dag_case, unreachable_negative_cycle_case):
    for case in (negative_dag_case, unreachable_negative_cycle_case):
        assert certificate(case.graph, case.source, case.expected)


def test_certificate_uses_a_relative_tolerance_for_float_weights(float_case):
    summed_in_float32 = case_distances_in_float32(float_case)
    assert not np.array_equal(summed_in_float32, float_case.expected)  # rounding differs from float64 sums...
    check = certificate(float_case.graph, 0, summed_in_float32)
    assert check, check.message                                      # ...but within the tolerance
    assert "relative tolerance" in check.message
    assert not certificate(float_case.graph, 0, summed_in_float32, rtol=0.0)


def case_distances_in_float32(case):
    w = np.float32
    return np.array([0, w(0.5), w(0.5) + w(0.25), w(0.5) + w(0.25) + w(0.1)], dtype=np.float32).astype(np.float64)


def test_certificate_works_in_chunks_across_row_boundaries(diamond_case):
    """Chunks of 1..3 arcs split rows (and skip empty rows): same verdicts as one pass."""
    case = diamond_case
    wrong = case.expected.copy()
    wrong[4] = 3
    for chunk_arcs in (1, 2, 3):
        assert certificate(case.graph, 0, case.expected, chunk_arcs=chunk_arcs)
        chunked = certificate(case.graph, 0, wrong, chunk_arcs=chunk_arcs)
        assert chunked.message == certificate(case.graph, 0, wrong).message


# --- certificate: wrong answers fail, naming the vertex --------------------------------------------------------------


@pytest.mark.parametrize(
    "vertex, value, complaint",
    [
        (3, 5, "can still be relaxed"),         # too large: arc 1->3 gives 4
        (3, 3, "no tight in-arc"),               # too small: no in-arc gives 3 (and 3->4 relaxes)
        (0, 1, "expected 0"),                    # wrong source distance
        (4, INF, "can still be relaxed"),        # reached vertex marked unreachable: arc 3->4 gives 4
        (5, 7, "should be inf"),  # unreachable vertex given a finite distance
        (6, 0, "should be inf"),  # ... even one with out-arcs that would be tight
        (2, np.nan, "is nan"),
    ],
)
def test_certificate_rejects_a_wrong_entry_naming_the_vertex(diamond_case, vertex, value, complaint):
    distances = diamond_case.expected.copy()
    distances[vertex] = value
    check = certificate(diamond_case.graph, 0, distances)
    assert not check.ok
    assert f"vertex {vertex}" in check.message
    assert complaint in check.message


def test_certificate_counts_every_violation(diamond_case):
    distances = diamond_case.expected.copy()
    distances[1] = distances[2] = 9  # arcs 0->1 and 0->2 (both parallel copies) can be relaxed
    check = certificate(diamond_case.graph, 0, distances)
    assert check.counts["relax_violations"] == 3
    assert "vertex 1" in check.message


def test_certificate_rejects_a_wrong_length_and_a_bad_source(diamond_case):
    assert "shape" in certificate(diamond_case.graph, 0, diamond_case.expected[:-1]).message
    assert "not a vertex" in certificate(diamond_case.graph, 9, diamond_case.expected).message


def test_certificate_on_a_reachable_negative_cycle_always_fails(reachable_negative_cycle_case):
    graph = reachable_negative_cycle_case.graph
    for guess in ([0, 1, -1, 0], [0, -100, -102, -101], [0, 1, INF, INF]):
        assert not certificate(graph, 0, np.array(guess, dtype=float))


def test_zero_weight_self_loop_does_not_vouch_for_its_vertex(zero_cycle_case):
    """Vertex 4's zero-weight self-loop is a tight arc into 4 for any value; self-loops are ignored for tightness."""
    distances = zero_cycle_case.expected.copy()
    distances[4] = 2  # 4 -> 3 (w 0) is consistent with d[3] = 2, and 4 -> 4 is "tight"
    check = certificate(zero_cycle_case.graph, 0, distances)
    assert not check.ok and "vertex 4" in check.message


def test_certificate_blind_spot_zero_weight_cycles_need_the_reference(zero_cycle_case):
    """As documented: values too small on a reached zero-weight cycle pass the certificate; compare catches them."""
    graph = zero_cycle_case.graph
    wrong = np.array([0, -1, -1, 1, INF])  # cycle 1 <-> 2 at -1 (truth 0), and 3 consistent with it
    assert certificate(graph, 0, wrong).ok
    check = compare(reference_distances(graph, 0), wrong)
    assert not check.ok and "vertex 1" in check.message

    unreached_cycle = from_arcs(4, [0, 2, 3], [1, 3, 2], [1, 0, 0])  # 2 <-> 3 is a zero-weight cycle 0 never reaches
    assert certificate(unreached_cycle, 0, np.array([0, 1, 5, 5])).ok
    assert not compare(reference_distances(unreached_cycle, 0), np.array([0, 1, 5, 5]))


# --- certificate: BFS form --------------------------------------------------------------------------------------------


def test_bfs_certificate(unweighted_case, diamond_case):
    assert certificate(unweighted_case.graph, 0, unweighted_case.expected, kind="bfs")
    levels = np.array([0, 1, 1, 2, 3, INF, INF])  # the diamond's levels: its weights are ignored
    assert certificate(diamond_case.graph, 0, levels, kind="bfs")
    assert not certificate(diamond_case.graph, 0, diamond_case.expected, kind="bfs")  # distances are not levels

    skipping = levels.copy()
    skipping[4] = 4  # arc 3->4 spans two levels
    check = certificate(diamond_case.graph, 0, skipping, kind="bfs")
    assert not check.ok and "vertex 4" in check.message and "arc 3->4" in check.message

    no_parent = levels.copy()
    no_parent[4] = 2  # can't be: its only parent 3 is on level 2 as well
    check = certificate(diamond_case.graph, 0, no_parent, kind="bfs")
    assert not check.ok and "vertex 4" in check.message and "no parent one level up" in check.message

    fractional = levels.copy()
    fractional[1] = 0.5
    check = certificate(diamond_case.graph, 0, fractional, kind="bfs")
    assert not check.ok and "vertex 1" in check.message and "whole number" in check.message


# --- reference -------------------------------------------------------------------------------------------------------


def test_scipy_keeps_explicit_zeros_as_arcs_and_sums_coo_duplicates():
    """The scipy behaviour `scipy_matrix` relies on and the pitfall it avoids."""
    zero_arc = csr_matrix((np.array([0.0, 3.0]), np.array([1, 2]), np.array([0, 1, 2, 2])), shape=(3, 3))
    assert list(dijkstra(zero_arc, indices=0)) == [0, 0, 3]  # the explicit 0 is an arc of weight 0
    summed = csr_matrix((np.array([5.0, 2.0]), (np.array([0, 0]), np.array([1, 1]))), shape=(2, 2))
    assert list(dijkstra(summed, indices=0)) == [0, 7]  # (data, (row, col)) added the parallel arcs: wrong


def test_scipy_matrix_keeps_the_minimum_parallel_arc_and_zero_weights():
    graph = from_arcs(3, [0, 0, 1, 1, 1], [1, 1, 2, 1, 2], [5, 2, 0, 0, 4])  # unsorted row 1, a self-loop
    assert stored_arcs(scipy_matrix(graph)) == {(0, 1): 2.0, (1, 2): 0.0}  # explicit zero kept, loop dropped
    assert stored_arcs(scipy_matrix(graph, keep_self_loops=True)) == {(0, 1): 2.0, (1, 1): 0.0, (1, 2): 0.0}
    assert list(reference_distances(graph, 0)) == [0, 2, 2]


def stored_arcs(matrix) -> dict[tuple[int, int], float]:
    """Every stored entry of a scipy CSR matrix, explicit zeros included, as {(row, column): weight}."""
    rows = np.repeat(np.arange(matrix.shape[0]), np.diff(matrix.indptr))
    assert len(set(zip(rows.tolist(), matrix.indices.tolist()))) == matrix.nnz  # no parallel entries left
    return {(int(r), int(c)): float(w) for r, c, w in zip(rows, matrix.indices, matrix.data)}


def test_reference_on_the_known_graphs(non_negative_case, negative_dag_case, unreachable_negative_cycle_case):
    for case in (non_negative_case, negative_dag_case, unreachable_negative_cycle_case):
        assert compare(case.expected, reference_distances(case.graph, case.source))


def test_reference_raises_on_a_reachable_negative_cycle(reachable_negative_cycle_case):
    with pytest.raises(NegativeCycleError):
        reference_distances(reachable_negative_cycle_case.graph, 0)


def test_reference_bfs_levels_ignore_weights(diamond_case):
    assert list(reference_distances(diamond_case.graph, 0, kind="bfs")) == [0, 1, 1, 2, 3, INF, INF]


# --- compare ---------------------------------------------------------------------------------------------------------


def test_compare_exact_for_whole_numbers():
    assert compare([0, 1, INF], [0, 1, INF])
    check = compare([0, 1, 2, INF, 5], [0, 1, 3, 4, 6])
    assert not check.ok
    assert check.counts["differing"] == 3
    assert "3 of 5" in check.message and "vertex 2" in check.message and "expected 2, got 3" in check.message


def test_compare_inf_only_matches_inf():
    assert "vertex 1: expected inf, got 4" in compare([0, INF], [0, 4]).message
    assert "vertex 1: expected 4, got inf" in compare([0, 4], [0, INF]).message
    assert not compare([0, 4], [0, np.nan])


def test_compare_relative_tolerance_for_float_distances(float_case):
    expected = float_case.expected
    assert compare(expected, expected * (1 + FLOAT_RTOL / 10))
    assert not compare(expected, expected * (1 + FLOAT_RTOL * 10))
    assert not compare([0, 2], [0, 2 + 1e-9], rtol=0.0)
    assert compare([0, 2], [0, 2 + 1e-9], rtol=tolerance_for(float_case.graph))


def test_compare_shapes():
    assert "shapes differ" in compare([0, 1], [0, 1, 2]).message


def test_tolerance_for(diamond_case, float_case, unweighted_case):
    assert tolerance_for(diamond_case.graph) == 0.0
    assert tolerance_for(unweighted_case.graph) == 0.0
    assert tolerance_for(float_case.graph) == FLOAT_RTOL
    assert tolerance_for(float_case.graph, kind="bfs") == 0.0
