"""The parallel CPU kernels' machinery (issue 36): the atomics and the spin barrier of kernels/atomics.py, and the
rare paths of cpu-delta-stepping and cpu-bfs-parallel that the shared battery seldom reaches (a full frontier, an
empty chunk pool, a full far pile, a forced direction), each checked against the reference.

Every test runs the workers the way a solve does: numba's own threads, as many as this machine gives (2 in CI).
"""

from __future__ import annotations

import time

import numba
import numpy as np
import pytest

from sssp_bench import impls
from sssp_bench.graph.csr import from_arcs, read_csr, write_csr
from sssp_bench.graph.generators import generate
from sssp_bench.graph.weights import apply_weights
from sssp_bench.impls import SolveResult, canonical_distances
from sssp_bench.kernels import atomics
from sssp_bench.kernels.arrays import kernel_arrays
from sssp_bench.kernels.atomics import (ABORT, RegionAborted, atomic_add, atomic_cas, atomic_load, atomic_min,
                                        atomic_or, atomic_store, barrier_wait, claim_size, new_control,
                                        numba_threads, raise_if_aborted, reset_control, to_bits)
from sssp_bench.kernels.bfs import bfs_levels
from sssp_bench.kernels.bfs_parallel import BfsWorkspace, run_bfs, transpose
from sssp_bench.kernels.delta_stepping import DeltaSteppingWorkspace, STAT_FAR, run_delta_stepping
from sssp_bench.run.verify import compare, reference_distances

from gpu_battery import GENERATED, some_sources

THREADS = numba.config.NUMBA_NUM_THREADS


# --- atomics ------------------------------------------------------------------------------------------------------


@numba.njit
def _each_atomic(words, small):
    a = atomic_add(words, 0, 5)            # 10 -> 15, returns 10
    b = atomic_min(words, 1, -3)           # 7 -> -3, returns 7
    c = atomic_min(words, 1, 4)            # stays -3
    d = atomic_cas(words, 2, 0, 9)         # 0 -> 9, returns 0
    e = atomic_cas(words, 2, 0, 11)        # 9 stays, returns 9
    f = atomic_or(words, 3, 6)             # 1 -> 7, returns 1
    atomic_store(words, 4, 42)
    g = atomic_cas(small, 0, -1, 3)        # int32: -1 -> 3
    return a, b, c, d, e, f, atomic_load(words, 4), g, atomic_load(small, 0)


def test_each_atomic_returns_the_old_value_and_leaves_the_new_one():
    words = np.array([10, 7, 0, 1, 0], np.int64)
    small = np.array([-1], np.int32)
    assert _each_atomic(words, small) == (10, 7, -3, 0, 9, 1, 42, -1, 3)
    assert list(words) == [15, -3, 9, 7, 42] and small[0] == 3


@numba.njit
def _bits(values):
    out = np.empty(len(values), np.int64)
    for i in range(len(values)):
        out[i] = to_bits(values[i])
    return out


def test_non_negative_doubles_order_as_their_bits():
    values = np.array([0.0, 1e-300, 0.5, 1.0, 1.5, 2.0**52 + 1, 1e300, np.inf])
    bits = _bits(values)
    assert (bits == values.view(np.int64)).all()
    assert (np.diff(bits) > 0).all()  # so an atomic min on the bits is a min of the distances


@numba.njit(parallel=True)
def _count_together(words, control, threads, rounds):
    """Each worker adds 1 per round between barriers; after each barrier every worker must see all the adds."""
    for worker in numba.prange(threads):
        for round_ in range(rounds):
            atomic_add(words, 0, 1)
            barrier_wait(control, threads)
            if atomic_load(words, 0) < (round_ + 1) * threads:
                atomic_add(words, 1, 1)  # a worker got past the barrier before everyone arrived
            barrier_wait(control, threads)


def test_the_barrier_holds_every_worker_until_all_arrive():
    words = np.zeros(2, np.int64)
    control = new_control()
    _count_together(words, control, THREADS, 500)
    assert words[0] == 500 * THREADS and words[1] == 0
    assert control[ABORT] == 0


@numba.njit
def _wait_alone(control, threads):
    return barrier_wait(control, threads)


def test_a_worker_left_alone_at_a_barrier_gives_up_and_the_caller_says_why():
    # what a threading layer that runs the workers one after another would do: the first never sees the second
    control = new_control()
    reset_control(control, patience=1)
    start = time.perf_counter()
    assert _wait_alone(control, 2) is False
    assert 1 <= time.perf_counter() - start < 30 and control[ABORT] == 1
    assert _wait_alone(control, 2) is False  # a latecomer leaves at once
    with pytest.raises(RegionAborted, match=r"cpu-x: a worker waited 1 s at a barrier .* did not run the 2 workers"):
        raise_if_aborted("cpu-x", control, 2)


def test_claims_shrink_on_small_frontiers():
    assert claim_size(10_000, 16, 64) == 64
    assert claim_size(640, 16, 64) == 10   # four claims a worker
    assert claim_size(3, 16, 64) == 1


def test_the_threading_layer_is_known_and_runs_workers_at_once():
    assert atomics.threading_layer() in atomics.CONCURRENT_LAYERS
    atomics.check_concurrent_layer("cpu-x", THREADS)  # no error with the layers numba picks here
    with numba_threads(1):
        assert numba.get_num_threads() == 1
    assert numba.get_num_threads() == THREADS


# --- cpu-delta-stepping's rare paths --------------------------------------------------------------------------------


def solve_kernel(graph, source, delta, **workspace_args):
    """Distances of run_delta_stepping on every thread, checked against the reference; returns the workspace."""
    arrays = kernel_arrays(graph)
    workspace = DeltaSteppingWorkspace(arrays, delta, THREADS, **workspace_args)
    with numba_threads(THREADS):
        distances, unreached, totals, _, _ = run_delta_stepping(workspace, source)
    compared = compare(reference_distances(graph, source), canonical_distances(SolveResult(distances, unreached)))
    assert compared.ok, f"{graph.name} from {source}, delta {delta}, {workspace_args}: {compared.message}"
    return workspace, totals


@pytest.mark.parametrize("spec", ["road:n=5000,seed=10", "rmat:n=4096,m=65536,seed=3", "star:n=2000,seed=7"])
def test_a_frontier_too_small_for_a_bucket_leaves_the_rest_in_the_lists(spec):
    graph = generate(spec)
    for capacity in (1, 7, 100):
        for source in some_sources(graph, 2):
            solve_kernel(graph, source, 50, capacity=capacity)


def test_an_empty_chunk_pool_runs_the_solve_again_with_a_larger_one():
    graph = generate("rmat:n=4096,m=65536,seed=3")
    workspace, _ = solve_kernel(graph, 0, 30, pool_chunks=1)
    assert workspace.reruns >= 1 and len(workspace.link) >= 2
    reruns, chunks = workspace.reruns, len(workspace.link)
    with numba_threads(THREADS):  # the grown pool stays for the next solve
        run_delta_stepping(workspace, 5)
    assert workspace.reruns == reruns and len(workspace.link) == chunks


def test_buckets_beyond_the_window_wait_on_the_far_pile():
    # delta 1 and weights up to 10^6: improvements land up to 10^6 buckets ahead, past the 4,096-bucket window
    graph = apply_weights(generate("road:n=3000,seed=2"), "uniform:min=1,max=1000000,seed=3")
    workspace, totals = solve_kernel(graph, 0, 1)
    assert workspace.window == 4096 and workspace.far_capacity > 0 and totals[STAT_FAR] > 0
    workspace.far_capacity = 1  # a far pile that overflows at once: run again with a larger one
    with numba_threads(THREADS):
        distances, _, _, _, _ = run_delta_stepping(workspace, 0)
    assert workspace.reruns >= 1 and compare(reference_distances(graph, 0), canonical_distances(
        SolveResult(distances, np.iinfo(np.int64).max)))


def test_without_bucket_fusion_or_with_it_only_the_distances_agree():
    graph = generate("grid:rows=40,cols=50,seed=5")
    for fuse_limit in (0, 1, 10**9):
        implementation = impls.get("cpu-delta-stepping")(fuse_limit=fuse_limit)
        implementation.prepare(graph)
        result = implementation.solve(0)
        assert compare(reference_distances(graph, 0), canonical_distances(result))
        if fuse_limit == 0:
            assert result.counters["fused_vertices"] == 0
        implementation.teardown()


# --- cpu-bfs-parallel -----------------------------------------------------------------------------------------------

# alpha 1: top-down only (the frontier's out-arcs never exceed the arcs left); alpha 10^9: bottom-up from the first
# step, and with beta 10^9 until the end, with beta 1 back to top-down as soon as the frontier stops growing
DIRECTIONS = [{}, {"alpha": 1}, {"alpha": 10**9, "beta": 10**9}, {"alpha": 10**9, "beta": 1}]


@pytest.mark.parametrize("params", DIRECTIONS, ids=lambda p: ",".join(f"{k}={v}" for k, v in p.items()) or "default")
@pytest.mark.parametrize("spec", GENERATED + ["random:n=5000,m=3000,seed=15"])
def test_parallel_bfs_levels_match_the_sequential_bfs(spec, params):
    graph = generate(spec)
    for threads in sorted({1, THREADS}):
        implementation = impls.get("cpu-bfs-parallel")(threads=threads, **params)
        implementation.prepare(graph)
        for source in some_sources(graph, 4):
            result = implementation.solve(source)
            expected = bfs_levels(graph, source)
            assert (result.distances == expected).all(), (spec, params, threads, source)
            counters = result.counters
            assert counters["frontier_sizes"] == np.bincount(expected[expected >= 0]).tolist()
            assert counters["iterations"] == expected.max() + 1 and counters["visited"] == (expected >= 0).sum()
            if params.get("alpha") == 1:
                assert counters["bottom_up_steps"] == 0
            if params.get("beta") == 10**9:
                assert counters["top_down_steps"] <= 1  # one when the source has no out-arc
        implementation.teardown()


def test_the_bottom_up_steps_of_a_directed_graph_read_its_transpose(tmp_path):
    # a directed graph whose in-arcs differ from its out-arcs; read back from disk (read-only memmapped arrays)
    arcs = [(0, 1), (0, 2), (1, 3), (2, 3), (3, 4), (4, 0), (5, 0), (2, 6), (6, 7), (7, 6)]
    graph = from_arcs(8, *zip(*arcs), name="directed")
    graph = read_csr(write_csr(graph, tmp_path / "directed.csr"))
    in_offsets, in_columns = transpose(np.asarray(graph.row_offsets), np.asarray(graph.column_ids))
    assert in_offsets.tolist() == [0, 2, 3, 4, 6, 7, 7, 9, 10]
    assert in_columns.tolist() == [4, 5, 0, 0, 1, 2, 3, 2, 7, 6]
    workspace = BfsWorkspace(np.asarray(graph.row_offsets), np.asarray(graph.column_ids), in_offsets, in_columns,
                             THREADS)
    with numba_threads(THREADS):
        for source in range(graph.n):
            for alpha, beta in ((1, 10**9), (15, 18)):
                levels, _, _ = run_bfs(workspace, source, alpha, beta)
                assert (levels == bfs_levels(graph, source)).all(), (source, alpha)


def test_bad_bfs_parameters_are_refused():
    from sssp_bench.errors import ConfigError

    for bad in ({"alpha": 0}, {"beta": -1}, {"threads": -1}):
        with pytest.raises(ConfigError, match="cpu-bfs-parallel"):
            impls.get("cpu-bfs-parallel")(**bad)
