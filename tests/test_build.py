"""The CSR builder: every edge source gives the rows a stable sort would, in O(n + m)."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from sssp_bench.graph.build import csr_from_arcs, csr_from_edges
from sssp_bench.graph.csr import from_arcs


def sorted_arc_rows(sources, targets, weights):
    order = np.lexsort((weights, targets, sources))
    return np.stack([sources[order], targets[order], weights[order]], axis=1)


@settings(max_examples=40, deadline=None)
@given(data=st.data(), n=st.integers(1, 30), directed=st.booleans())
def test_counting_sort_builder_matches_the_stable_argsort_one(data, n, directed):
    count = data.draw(st.integers(0, 80))
    sources = np.array(data.draw(st.lists(st.integers(0, n - 1), min_size=count, max_size=count)), dtype=np.int64)
    targets = np.array(data.draw(st.lists(st.integers(0, n - 1), min_size=count, max_size=count)), dtype=np.int64)
    weights = np.arange(count, dtype=np.int32) * 3 + 1
    row_offsets, column_ids, out_weights = csr_from_edges(n, sources, targets, weights, directed)
    expected = from_arcs(n, sources, targets, weights, directed=directed)
    np.testing.assert_array_equal(row_offsets, expected.row_offsets)
    if directed:  # same arcs in the same order: input order within every row
        np.testing.assert_array_equal(column_ids, expected.column_ids)
        np.testing.assert_array_equal(out_weights, expected.weights)
    else:  # from_arcs lists all forward arcs before all backward ones; the builder keeps edge order
        sources_of_arcs = np.repeat(np.arange(n), np.diff(row_offsets))
        np.testing.assert_array_equal(
            sorted_arc_rows(sources_of_arcs, column_ids.astype(np.int64), out_weights.astype(np.int64)),
            sorted_arc_rows(sources_of_arcs, expected.column_ids.astype(np.int64), expected.weights.astype(np.int64)),
        )


def test_undirected_edges_give_both_arcs_in_edge_order_and_keep_their_weight_type():
    # edges {0,1} 0.5, {2,0} 1.5, {0,2} 2.5 (a parallel edge)
    row_offsets, column_ids, weights = csr_from_edges(3, [0, 2, 0], [1, 0, 2], np.float32([0.5, 1.5, 2.5]),
                                                      directed=False, weight_dtype=np.float32)
    assert row_offsets.tolist() == [0, 3, 4, 6]
    assert column_ids.tolist() == [1, 2, 2, 0, 0, 0]
    assert weights.dtype == np.float32 and weights.tolist() == [0.5, 1.5, 2.5, 0.5, 1.5, 2.5]


def test_in_place_and_scattering_csr_builds_agree():
    rng = np.random.default_rng(3)
    n, m = 1000, 300_000  # several 65536-slot buckets
    sources = rng.integers(0, n, m).astype(np.int32)
    targets = rng.integers(0, n, m).astype(np.int32)
    weights = rng.standard_normal(m).astype(np.float32)
    in_place = csr_from_arcs(n, [sources.copy(), targets.copy(), weights.copy()], False)
    scattered = csr_from_arcs(n, [sources.copy(), targets.copy(), weights.copy()], False, keep_positions=True)
    reference = from_arcs(n, sources, targets, weights)
    for built in (in_place, scattered):
        assert np.array_equal(built[0], reference.row_offsets)
        assert np.array_equal(built[1], reference.column_ids)
        assert np.array_equal(built[2], reference.weights)
    unweighted = csr_from_arcs(n, [sources.copy(), targets.copy(), None], False)
    assert unweighted[2] is None and np.array_equal(unweighted[1], reference.column_ids)
