"""The parallel bucket heap model (sssp_bench/kernels/bucket_heap.py), the specification of pardijkstra.cu: against a
dictionary-and-heapq priority queue on random operation sequences, with the preconditions of Theorem 3.1 asserted
at every Resolve and the heap property checked after every operation; and parDijkstra on it against the CPU
reference on generated graphs, in both settled-check modes."""

from __future__ import annotations

import heapq
import random

import numpy as np
import pytest

from sssp_bench.graph.generators import generate
from sssp_bench.kernels.arrays import INT_UNREACHED
from sssp_bench.kernels.bucket_heap import (
    DEL, BucketHeap, default_d, delete_duplicates, level_count, merge, par_dijkstra_model, sorted_rows,
)
from sssp_bench.run.verify import reference_distances


class ReferenceQueue:
    """The same operations on a dict of live values and a lazy heapq."""

    def __init__(self) -> None:
        self.live: dict[int, int] = {}
        self.heap: list[tuple[int, int]] = []

    def update(self, value: int, priority: int) -> None:
        if priority < self.live.get(value, INT_UNREACHED):
            self.live[value] = priority
            heapq.heappush(self.heap, (priority, value))

    def delete(self, value: int) -> None:
        self.live.pop(value, None)

    def extract_min(self) -> tuple[int, int] | None:
        while self.heap:
            priority, value = heapq.heappop(self.heap)
            if self.live.get(value) == priority:
                del self.live[value]
                return value, priority
        return None


def run_sequence(seed: int, n: int, d: int, steps: int, max_priority: int) -> BucketHeap:
    """Random extractMins, deletes and bulkUpdates (sizes 1..d, often exactly d, with repeated values) on both
    queues; a deleted or extracted value is never updated again (deletion is final, see the model's docstring)."""
    rng = random.Random(seed)
    heap = BucketHeap(n, d, check_preconditions=True)
    reference = ReferenceQueue()
    dead: set[int] = set()
    for _ in range(steps):
        roll = rng.random()
        alive = [v for v in range(n) if v not in dead]
        if roll < 0.45 and alive:
            size = d if rng.random() < 0.5 else rng.randint(1, d)
            hot = rng.sample(alive, min(len(alive), 3))  # a few values updated again and again
            values = sorted(rng.choice(hot) if rng.random() < 0.3 else rng.choice(alive) for _ in range(size))
            updates = [(v, rng.randint(0, max_priority)) for v in values]
            heap.bulk_update(updates)
            for value, priority in updates:
                reference.update(value, priority)
        elif roll < 0.55 and reference.live:
            value = rng.choice(sorted(reference.live))
            heap.delete(value)
            reference.delete(value)
            dead.add(value)
        else:
            got, want = heap.extract_min(), reference.extract_min()
            assert got == want, f"step {_}: extractMin gave {got}, expected {want}"
            if got is not None:
                dead.add(got[0])
        heap.assert_invariants()
    while True:  # drain
        got, want = heap.extract_min(), reference.extract_min()
        assert got == want
        if got is None:
            break
    assert not heap.has_elements()
    return heap


@pytest.mark.parametrize("d", [1, 2, 3, 8])
@pytest.mark.parametrize("seed", range(4))
def test_the_heap_matches_heapq_on_random_operation_sequences(seed, d):
    heap = run_sequence(seed, n=200, d=d, steps=600, max_priority=50)  # priorities collide often
    assert heap.violations == []
    assert heap.levels >= 2  # deeper levels did resolve
    assert heap.done[1] > 0


def test_many_updates_of_one_value_keep_the_least():
    heap = BucketHeap(n=10, d=4, check_preconditions=True)
    for priority in (9, 7, 8, 3):
        heap.bulk_update([(5, priority)] * 4)  # a full bulkUpdate, all of one value
    heap.bulk_update([(1, 4), (2, 4), (5, 6)])
    assert [heap.extract_min(), heap.extract_min(), heap.extract_min(), heap.extract_min()] == [
        (5, 3), (1, 4), (2, 4), None]


def test_a_delete_annihilates_every_copy_in_every_level():
    # value 0's first copy sinks deep (d = 1: a level per factor of 4); lower copies follow; after its delete none
    # may come back up
    heap = BucketHeap(n=64, d=1, check_preconditions=True)
    heap.bulk_update([(0, 1000)])
    for value in range(1, 64):
        heap.bulk_update([(value, value)])
    heap.bulk_update([(0, 500)])
    heap.bulk_update([(0, 2)])
    heap.delete(0)
    out = []
    while (element := heap.extract_min()) is not None:
        out.append(element)
        heap.assert_invariants()
    assert out == [(value, value) for value in range(1, 64)]


def test_deletion_is_final_an_update_after_it_may_be_lost():
    # documented limitation of priority-based DELs (the paper's -1): the delete of 3 travels down behind the new
    # update of 3, and when the update is pushed into the same signal buffer the DEL wins; Dijkstra never does this
    heap = BucketHeap(n=16, d=1)
    for value in range(8):
        heap.bulk_update([(value, 10 + value)])
    heap.delete(3)
    heap.bulk_update([(3, 100)])
    out = []
    while (element := heap.extract_min()) is not None:
        out.append(element)
    assert (3, 100) not in out and len(out) == 7


def test_helpers():
    assert merge([(1, 5), (3, 1)], [(1, 2), (2, 0)]) == [(1, 5), (1, 2), (2, 0), (3, 1)]  # first list first on ties
    assert delete_duplicates([(1, 5), (1, 2), (2, 0), (2, DEL), (2, 0), (3, 1)]) == [(1, 2), (2, DEL), (3, 1)]
    assert [level_count(n, 4) for n in (1, 4, 5, 16, 17, 64, 65)] == [1, 1, 2, 2, 3, 3, 4]
    graph = generate("random:n=50,m=400,seed=1")
    offsets, columns, weights, _ = sorted_rows(graph)
    for v in range(graph.n):
        row = columns[offsets[v]:offsets[v + 1]]
        assert (np.diff(row) >= 0).all()
    assert default_d(graph) == int(np.diff(graph.row_offsets).max())


def as_float(distances):
    out = distances.astype(np.float64)
    out[distances == INT_UNREACHED] = np.inf
    return out


GRAPHS = [
    "dag:n=300,degree=8,seed=1",
    "random:n=300,m=2400,seed=2",
    "complete:n=64,seed=3",
    "complete:n=64,chain_shortest=false,seed=3",
    "fixed-degree:n=300,degree=7,seed=4",
    "grid:rows=15,cols=20,seed=5",
    "rmat:n=512,m=4096,seed=6",
    "chain:n=100,seed=7",
]


@pytest.mark.parametrize("d", [0, 1, 2, 7])
@pytest.mark.parametrize("spec", GRAPHS)
def test_par_dijkstra_model_equals_dijkstra(spec, d):
    graph = generate(spec)
    for source in (0, graph.n // 2):
        result = par_dijkstra_model(graph, source, d, check_preconditions=True)
        assert np.array_equal(as_float(result.distances), reference_distances(graph, source))
        assert result.violations == [] and result.empty_ops == 0
        assert result.stale_extractions == 0  # with the settled check a DEL always catches the stale copies
        assert result.iterations == len(result.extracted) == int((result.distances != INT_UNREACHED).sum())
        assert result.resolves_per_level[0] == result.iterations + result.bulk_updates  # one Resolve(0) per operation


def test_without_the_settled_check_a_dag_from_its_first_vertex_needs_no_more_extractions():
    # the paper's DAG mode (section 4.3): on its DAG (every shortest path along the chain) vertices settle in
    # topological order, so no update ever targets a settled vertex
    graph = generate("dag:n=300,degree=8,seed=1")
    checked = par_dijkstra_model(graph, 0)
    unchecked = par_dijkstra_model(graph, 0, settled_check=False, check_preconditions=True)
    assert np.array_equal(as_float(unchecked.distances), reference_distances(graph, 0))
    assert unchecked.stale_extractions == 0
    assert unchecked.resolves_per_level == checked.resolves_per_level


@pytest.mark.parametrize("spec", ["random:n=300,m=2400,seed=2", "complete:n=64,chain_shortest=false,seed=3",
                                  "grid:rows=15,cols=20,seed=5"])
def test_without_the_settled_check_a_non_dag_reextracts_vertices_but_keeps_the_distances(spec):
    # updates of settled vertices enter the heap; their re-extractions are dropped (one settled read per extraction),
    # so the distances stay right at the price of extra rounds
    graph = generate(spec)
    result = par_dijkstra_model(graph, 0, settled_check=False, check_preconditions=True)
    assert np.array_equal(as_float(result.distances), reference_distances(graph, 0))
    assert result.stale_extractions > 0
    assert result.iterations == len(result.extracted) + result.stale_extractions
