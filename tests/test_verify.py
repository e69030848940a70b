"""Verification: the certificate (positive and negative cases, its documented blind spot), the scipy reference
(and the scipy pitfalls it avoids), and compare."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import dijkstra

from sssp_bench.graph.csr import from_arcs
from sssp_bench.graph.generators import generate
from sssp_bench.graph.weights import apply_weights
from sssp_bench.errors import NegativeCycleError
from sssp_bench.run.verify import (
    FLOAT_RTOL,
    CheckResult,
    certificate,
    compare,
    reference_distances,
    negative_weight_reference,
    scipy_matrix,
    tight_paths_needed,
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


def test_certificate_catches_values_that_only_a_zero_weight_cycle_vouches_for(zero_cycle_case):
    """Conditions 1-3 alone (no relaxable arc, a tight in-arc everywhere: all the certificate checked before) pass
    these wrong answers; the tight-path condition finds no path of tight arcs from the source to them."""
    graph = zero_cycle_case.graph
    wrong = np.array([0, -1, -1, 1, INF])  # cycle 1 <-> 2 at -1 (truth 0), and 3 consistent with it
    check = certificate(graph, 0, wrong)
    assert (check.counts["relax_violations"], check.counts["unsupported_vertices"]) == (0, 0)
    assert not check.ok and check.counts["unrooted_vertices"] == 2  # 1 and 2; 3 (arc 2->3 weighs 2) follows them
    assert "vertex 1: distance -1 but no path of tight arcs from the source reaches it" in check.message
    assert "(2 such vertices)" in check.message

    unreached_cycle = from_arcs(4, [0, 2, 3], [1, 3, 2], [1, 0, 0])  # 2 <-> 3 is a zero-weight cycle 0 never reaches
    check = certificate(unreached_cycle, 0, np.array([0, 1, 5, 5]))
    assert (check.counts["relax_violations"], check.counts["unsupported_vertices"]) == (0, 0)
    assert not check.ok and "vertex 2: distance 5" in check.message and "should be inf" in check.message
    assert certificate(unreached_cycle, 0, np.array([0, 1, INF, INF]))


def test_certificate_catches_a_zero_sum_cycle_of_negative_weights():
    """With negative weights a tight cycle needs no zero-weight arc: 1 -> 2 (+1), 2 -> 1 (-1) sums to 0."""
    graph = from_arcs(4, [0, 1, 2, 2], [1, 2, 1, 3], [5, 1, -1, -2])
    assert certificate(graph, 0, np.array([0, 5, 6, 4]))
    too_small = np.array([0, 3, 4, 2])  # 1 and 2 two below their distance, held up by each other; 3 follows
    check = certificate(graph, 0, too_small)
    assert (check.counts["relax_violations"], check.counts["unsupported_vertices"]) == (0, 0)
    assert not check.ok and check.counts["unrooted_vertices"] == 3 and "vertex 1: distance 3" in check.message


def test_certificate_catches_a_cycle_tight_only_within_the_float_tolerance():
    """Float weights: 1e-7 per arc is below the tolerance at distances near 1000, so 1 <-> 2 is a tight cycle."""
    graph = from_arcs(3, [0, 1, 2], [1, 2, 1], np.array([1000.0, 1e-7, 1e-7], dtype=np.float32))
    assert certificate(graph, 0, np.array([0, 1000, 1000 + 1e-7]))
    check = certificate(graph, 0, np.array([0, 999, 999]))
    assert (check.counts["relax_violations"], check.counts["unsupported_vertices"]) == (0, 0)
    assert not check.ok and check.counts["unrooted_vertices"] == 2


def test_right_answers_pass_where_tight_parents_also_form_zero_weight_cycles():
    """Every vertex of a reached zero-weight cycle has a tight in-arc from the cycle as well as the one that leads
    back to the source; the tight-path condition must find the latter (a BFS, not one chosen parent each)."""
    graph = from_arcs(5, [0, 1, 2, 2, 3, 4, 3], [1, 2, 1, 3, 4, 3, 1], [3, 0, 0, 0, 0, 0, 0])
    assert certificate(graph, 0, reference_distances(graph, 0)).counts["unrooted_vertices"] == 0
    for spec in ("uniform:min=0,max=3,seed=1", "negative:min=0,max=3,potential=9,seed=2"):
        weighted = apply_weights(generate("random:n=400,m=3000,seed=7"), spec)
        for source in (0, 17, 399):
            check = certificate(weighted, source, reference_distances(weighted, source))
            assert check.ok, (spec, source, check.message)


def wrong_answers_near(rng, graph, right: np.ndarray, tries: int = 6):
    """Wrong vectors near a right answer: a random set of vertices lowered or raised by 1; every unreached vertex
    given one finite value; and the vertices a random x reaches over tight arcs lowered by 1, which keeps
    conditions 1-3 whenever x lies on a cycle of tight arcs (weight 0)."""
    n = graph.n
    tails, heads = graph.arc_sources(), np.asarray(graph.column_ids)
    weights = np.asarray(graph.weights, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        tight = np.isfinite(right[tails]) & (right[tails] + weights == right[heads]) & (tails != heads)
    for _ in range(tries):
        values = right.copy()
        chosen = rng.random(n) < 0.5
        values[chosen & np.isfinite(values)] += rng.choice([-1.0, 1.0])
        yield values
        values = right.copy()
        values[~np.isfinite(right)] = 10.0
        yield values
        x = int(rng.integers(0, n))
        if np.isfinite(right[x]):
            closure, frontier = {x}, [x]
            while frontier:
                vertex = frontier.pop()
                for head in heads[tight & (tails == vertex)]:
                    if int(head) not in closure:
                        closure.add(int(head))
                        frontier.append(int(head))
            values = right.copy()
            values[sorted(closure)] -= 1
            yield values


@pytest.mark.parametrize("low", [0, -1])
def test_the_certificate_passes_exactly_the_right_answers(low):
    """Small random graphs with many weight-0 arcs (low 0) or negative ones (low -1, zero-sum cycles included):
    the certificate's verdict is the reference comparison's, for right answers and for wrong ones near them; some
    of the wrong ones pass conditions 1-3 and are caught by the tight-path condition alone."""
    rng = np.random.default_rng(12)
    caught_by_tight_paths = 0
    for trial in range(500):
        n = int(rng.integers(2, 8))
        m = int(rng.integers(1, 3 * n))
        graph = from_arcs(n, rng.integers(0, n, m), rng.integers(0, n, m), rng.integers(low, 3, m).astype(np.int32))
        source = int(rng.integers(0, n))
        try:
            right = reference_distances(graph, source)
        except NegativeCycleError:
            continue
        assert certificate(graph, source, right), trial
        for values in wrong_answers_near(rng, graph, right):
            check = certificate(graph, source, values)
            assert check.ok == compare(right, values).ok, (trial, list(values), check.message)
            if check.counts.get("unrooted_vertices"):
                caught_by_tight_paths += 1
    assert caught_by_tight_paths >= 10, caught_by_tight_paths


def test_the_tight_path_search_runs_only_where_a_weight_is_at_most_zero(diamond_case, float_case):
    positive = from_arcs(3, [0, 1], [1, 2], [1, 2])
    assert not tight_paths_needed(positive, np.array([0, 1, 3.0]))
    assert not tight_paths_needed(positive.with_weights(None), np.array([0, 1, 2.0]))
    assert tight_paths_needed(diamond_case.graph, diamond_case.expected)  # its zero-weight arcs
    assert tight_paths_needed(from_arcs(2, [0], [1], [-3]), np.array([0, -3.0]))
    # float weights: what counts as light scales with the distances, as the tolerance does
    assert tight_paths_needed(float_case.graph, float_case.expected, rtol=FLOAT_RTOL)  # its 0.0 arc
    light = from_arcs(2, [0, 1], [1, 0], np.array([1.0, 1e-3], dtype=np.float32))
    assert not tight_paths_needed(light, np.array([0, 1.0]), rtol=FLOAT_RTOL)
    assert tight_paths_needed(light, np.array([0, 1e4]), rtol=FLOAT_RTOL)  # 1e-3 is within 1e-5 of 1e4


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


def test_reference_raises_on_a_reachable_negative_cycle_naming_it(reachable_negative_cycle_case):
    with pytest.raises(NegativeCycleError, match=r"reachable from source 0: 1 -> 2 -> 1 \(2 arcs, weight -1\)"):
        reference_distances(reachable_negative_cycle_case.graph, 0)
    negative_loop = from_arcs(3, [0, 1, 1], [1, 1, 2], [2, -1, 4])
    with pytest.raises(NegativeCycleError, match=r"1 -> 1 \(1 arcs, weight -1\)"):
        reference_distances(negative_loop, 0)
    assert list(reference_distances(negative_loop, 2)) == [INF, INF, 0]  # from 2 the loop is out of reach


def random_negative_graph(rng, n: int, m: int, float_weights: bool = False):
    """Arcs with weights in [-3, 9], parallel arcs and self-loops included: negative cycles come and go."""
    tails, heads = rng.integers(0, n, m), rng.integers(0, n, m)
    weights = rng.integers(-3, 10, m)
    weights = (weights + rng.random(m)).astype(np.float32) if float_weights else weights.astype(np.int32)
    return from_arcs(n, tails, heads, weights)


@pytest.mark.parametrize("float_weights", [False, True])
def test_negative_weight_reference_agrees_with_scipys_bellman_ford(float_weights):
    """scipy's bellman_ford (O(nm), no shared code) on small graphs: the same distances (inf where unreached), and
    a negative cycle exactly where scipy finds one reachable from the source. Tiny chunks split rows."""
    from scipy.sparse.csgraph import NegativeCycleError as ScipyNegativeCycleError
    from scipy.sparse.csgraph import bellman_ford

    rng = np.random.default_rng(11)
    verdicts = {"distances": 0, "negative cycle": 0}
    for trial in range(150):
        n = int(rng.integers(1, 25))
        graph = random_negative_graph(rng, n, int(rng.integers(0, 3 * n)), float_weights)
        source = int(rng.integers(0, n))
        try:
            expected = bellman_ford(scipy_matrix(graph, keep_self_loops=True), directed=True, indices=source)
        except ScipyNegativeCycleError:
            expected = None
        for chunk_arcs in (1, 3, 1 << 20):
            if expected is None:
                with pytest.raises(NegativeCycleError):
                    negative_weight_reference(graph, source, chunk_arcs=chunk_arcs)
            else:
                got = negative_weight_reference(graph, source, chunk_arcs=chunk_arcs)
                assert compare(expected, got, rtol=tolerance_for(graph)), (trial, chunk_arcs)
        verdicts["negative cycle" if expected is None else "distances"] += 1
    assert min(verdicts.values()) >= 20, verdicts  # both kinds of answer were exercised


def test_negative_cycles_are_found_early_by_the_parent_pointers(monkeypatch):
    """A negative cycle behind a 300-vertex chain: found among the parent pointers at round 256 with the cycle named,
    or, with that look switched off, once a walk has as many arcs as the source reaches vertices."""
    from sssp_bench.run import verify

    chain = 300
    tails = list(range(chain)) + [chain, chain + 1]
    heads = list(range(1, chain + 1)) + [chain + 1, chain]
    graph = from_arcs(chain + 2, tails, heads, [1] * chain + [-2, 1])
    with pytest.raises(NegativeCycleError, match=r"300 -> 301 -> 300 \(2 arcs, weight -1\)"):
        reference_distances(graph, 0)
    monkeypatch.setattr(verify, "CYCLE_LOOK_FROM_ROUND", 10**9)
    with pytest.raises(NegativeCycleError, match="reachable from source 0"):
        reference_distances(graph, 0)


def test_the_negative_weight_reference_is_independent_of_the_bellman_ford_kernels(monkeypatch):
    """cpu-bf-queue and cpu-bf are judged by the reference on negative weights: it must not be their kernel. With the
    kernels broken on purpose (every distance one too high), the reference still gives the right answer."""
    from sssp_bench.kernels import bellman_ford as kernels
    from sssp_bench.kernels.arrays import kernel_arrays

    graph = apply_weights(generate("random:n=300,m=2400,seed=3"), "negative:min=1,max=50,potential=40,seed=4")
    right = reference_distances(graph, 0)
    for name in ("spfa_kernel", "textbook_bellman_ford_kernel"):
        real = getattr(kernels, name)

        def off_by_one(*args, real=real):
            result = real(*args)
            distances, source = args[5], args[4]
            reached = np.abs(distances) < 2**40  # not the unreached sentinel
            distances[reached & (np.arange(len(distances)) != source)] += 1
            return result

        monkeypatch.setattr(kernels, name, off_by_one)
    broken = kernels.run_spfa(kernel_arrays(graph), 0)[0]
    reached = np.isfinite(right)
    assert np.array_equal(broken[reached][1:], right[reached][1:] + 1)  # the kernels are broken (but at the source)...
    assert compare(right, reference_distances(graph, 0))  # ...and the reference does not notice: it never calls them


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
