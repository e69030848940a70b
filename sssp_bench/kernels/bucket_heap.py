"""The parallel bucket heap (parBucketHeap) and parDijkstra, executed sequentially in Python: the specification and
verifier of `impls/pardijkstra.cu`, which mirrors it step for step (paper: parbucketheap-pardijkstra, sections 3.2,
3.2.1 and 4.1).

The structure. Levels 0 .. L-1, each a bucket B_i and a signal buffer S_i of elements (priority, value), every list
sorted by value; capacities 2d*4^i (B_i) and d*4^i (S_i). Level i keeps a bound p_i: every element of B_j, j <= i,
is <= p_i and every element of a deeper level is > p_i; the last level's bound is infinite. extractMin takes the
least element of B_0 (FindMin) and signals its value's deletion into S_0; bulkUpdate puts up to d updates (sorted
by value) into S_0; after each of these operations Resolve(0) runs (Algorithm 5: merge S_i into B_i, delete
duplicates, move what is above p_i to S_{i+1}, lower p_i by a select when B_i overflows, fill B_i from level i+1
when it is short). Resolve(i), i > 0, runs after every 4th Resolve(i-1) (Theorem 3.1), and never at the same time
as Resolve(i-1) or Resolve(i+1) (Lemma 3.1).

What the paper leaves open, decided here (the kernel does the same):
- Keys. Priorities compare as the pair (priority, value), so every element of a deduplicated list has a distinct
  key, p_i is such a pair and Select returns one exact split: the state after every Resolve is a function of the
  operations alone, whatever the order the levels ran in, so the kernel's counters equal this model's.
- Levels. L is the least L with d*4^(L-1) >= n (ceil(log4(n/d)) + 1, the paper's block count): the last level then
  holds every value (at most n after deduplication) without overflowing, so its bound stays infinite and it never
  moves elements further down.
- Bounds start infinite: an empty heap keeps what it gets in B_0 until the first select lowers p_0.
- DEL (priority -1, as the paper's implementation). DeleteDuplicates keeps, per value, the element of least
  (priority, position): a DEL wins its value and removes every other copy. A DEL never stays in a bucket: the split
  sends it to S_{i+1} as if its priority were infinite (so FindMin never sees one, and Count and Select ignore
  them), it goes on annihilating older copies level after level (the fill merges S_{i+1} into B_{i+1} before
  pulling anything up, so a stale copy can never pass its DEL), and it is dropped at the last level. Priority-based
  deletion is final: an update of a value after its delete may be annihilated by that DEL when the two meet. Dijkstra
  never updates a settled vertex when it checks the settled array; without the check (DAG mode) such updates are
  stale anyway (their priority is >= the settled distance).
- Fill (line 10) runs when B_i is short and level i+1 holds anything; it pulls only elements <= p_{i+1} (the
  candidates), the k = 2d*4^i - |B_i| least; with k or fewer candidates it pulls them all and p_i becomes p_{i+1}.
  (With Theorem 3.1's preconditions there are always more than k; deletions can shrink a bucket below them.)
  Pulled elements are merged into B_i without deduplication (a value may then sit twice in B_i, the stale copy
  behind the live one; the DEL of the live one removes it at the next Resolve), as Algorithm 5 line 16 has it.
- Merge is stable with the first list first on equal values: Merge(S_i, B_i) (line 2), Merge(S_{i+1}, B') (line 9),
  Merge(S_{i+1}, B_{i+1}) (line 11), Merge(B_i, B'_{i+1}) (line 16). FindMin takes the least key, first position.
- Schedule: done[i] counts finished Resolve(i) (Resolve(0) includes its operation). Resolve(i), i > 0, number k+1
  may start when done[i-1] >= 4(k+1) (Theorem 3.1); Resolve(i) number j+1 may start only when
  done[i+1] >= floor(j/4) (Lemma 3.1: Res_{i+1}(k) -> Res_i(4k+1)). The paper's "c_{i-1} = 4c_i and
  c_{i+1} >= 4c_i" is read this way. Together they keep adjacent levels from resolving at once.
- An empty B_0 with elements left deeper (possible only when deletions broke the preconditions) is met with an
  empty operation: Resolve(0) with S_0 empty, which advances the schedule until a fill reaches B_0 (`empty_ops`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numba
import numpy as np

from ..graph.csr import CSRGraph
from .arrays import INT_UNREACHED, kernel_arrays

DEL = -1
"""The priority of a delete signal (the paper's implementation: priorities are non-negative)."""

INF_KEY = (INT_UNREACHED, np.iinfo(np.int32).max)
"""The bound of a level that holds everything below it: above every real key."""


def level_count(n: int, d: int) -> int:
    """The least L with d*4^(L-1) >= n, i.e. ceil(log4(n/d)) + 1 (at least 1)."""
    levels = 1
    while d * 4 ** (levels - 1) < n:
        levels += 1
    return levels


def key(element: tuple[int, int]) -> tuple[int, int]:
    value, priority = element
    return priority, value


def is_small(element: tuple[int, int], bound: tuple[int, int]) -> bool:
    """Below or at the bound and not a DEL (a DEL always goes down)."""
    return element[1] != DEL and key(element) <= bound


def merge(first: list, second: list) -> list:
    """Stable merge by value, `first`'s elements before `second`'s on equal values (the kernel: each element's rank
    in the other list by binary search, lower bound for `first`, upper bound for `second`)."""
    out, i, j = [], 0, 0
    while i < len(first) and j < len(second):
        if second[j][0] < first[i][0]:
            out.append(second[j])
            j += 1
        else:
            out.append(first[i])
            i += 1
    return out + first[i:] + second[j:]


def delete_duplicates(elements: list) -> list:
    """Per value, the element of least (priority, position): a DEL (priority -1) wins and removes the others."""
    out = []
    for element in elements:
        if out and out[-1][0] == element[0]:
            if element[1] < out[-1][1]:
                out[-1] = element
        else:
            out.append(element)
    return out


def select(elements: list, k: int) -> tuple[int, int]:
    """The k-th least key (1-based) of `elements` (distinct keys, k <= len)."""
    return sorted(key(e) for e in elements)[k - 1]


class PreconditionError(AssertionError):
    """A precondition of Algorithm 1 or 5 does not hold (check_preconditions)."""


@dataclass
class BucketHeap:
    """The parBucketHeap for values 0 .. n-1 with bulk size d, its operations run in the order of section 3.2.1."""

    n: int
    d: int
    check_preconditions: bool = False
    levels: int = 0
    buckets: list = field(default_factory=list)
    signals: list = field(default_factory=list)
    bounds: list = field(default_factory=list)
    done: list = field(default_factory=list)
    empty_ops: int = 0
    bulk_updates: int = 0
    extract_mins: int = 0
    violations: list = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.d < 1:
            raise ValueError(f"d must be >= 1, got {self.d}")
        self.levels = level_count(self.n, self.d)
        self.buckets = [[] for _ in range(self.levels)]
        self.signals = [[] for _ in range(self.levels)]
        self.bounds = [INF_KEY] * self.levels
        self.done = [0] * self.levels

    # -- sizes ------------------------------------------------------------------------------------------------------

    def bucket_capacity(self, i: int) -> int:
        return 2 * self.d * 4 ** i

    def signal_capacity(self, i: int) -> int:
        return self.d * 4 ** i

    def largest_nonempty_level(self) -> int:
        """The paper's l: the deepest level holding an element that is not a DEL (-1 when none)."""
        for i in reversed(range(self.levels)):
            if self.buckets[i] or any(e[1] != DEL for e in self.signals[i]):
                return i
        return -1

    def has_elements(self) -> bool:
        return self.largest_nonempty_level() >= 0

    def check(self, condition: bool, what: str) -> None:
        if not condition:
            self.violations.append(what)
            if self.check_preconditions:
                raise PreconditionError(what)

    # -- operations (Algorithms 1 and 4), each followed by Resolve(0) and what the schedule then allows ----------

    def extract_min(self) -> tuple[int, int] | None:
        """(value, priority) of the least element, deleted (its DEL resolves down the levels); None if B_0 is empty."""
        self.check(not self.signals[0], "extractMin: |S_0| = 0")
        bucket = self.buckets[0]
        if not bucket:
            return None
        if self.check_preconditions and self.largest_nonempty_level() > 0:
            self.check(len(bucket) >= self.d, f"extractMin: |B_0| = {len(bucket)} >= d = {self.d}")
        position = min(range(len(bucket)), key=lambda j: key(bucket[j]))
        element = bucket.pop(position)
        self.signals[0] = [(element[0], DEL)]
        self.extract_mins += 1
        self.operation_done()
        return element

    def bulk_update(self, updates: list[tuple[int, int]]) -> None:
        """Insert or lower (value, priority) for up to d values, sorted by value (Algorithm 4)."""
        self.check(not self.signals[0], "bulkUpdate: |S_0| = 0")
        if len(updates) > self.d:
            raise ValueError(f"bulkUpdate of {len(updates)} > d = {self.d} elements")
        if any(updates[j][0] > updates[j + 1][0] for j in range(len(updates) - 1)):
            raise ValueError("bulkUpdate needs its updates sorted by value")
        self.signals[0] = list(updates)
        self.bulk_updates += 1
        self.operation_done()

    def delete(self, value: int) -> None:
        """Algorithm 3 (final: the value must not be updated again, see the module docstring)."""
        self.check(not self.signals[0], "delete: |S_0| = 0")
        self.signals[0] = [(value, DEL)]
        self.operation_done()

    def empty_op(self) -> None:
        """Resolve(0) with nothing new: advances the schedule so deeper levels refill B_0."""
        self.empty_ops += 1
        self.operation_done()

    def operation_done(self) -> None:
        self.check(self.may_resolve_after(0), "Resolve(0) waits for Resolve(1)")
        self.resolve(0)
        self.done[0] += 1
        self.run_schedule()

    # -- the schedule of Theorem 3.1 and Lemma 3.1, run sequentially ---------------------------------------------

    def may_resolve_after(self, i: int) -> bool:
        """Lemma 3.1: Resolve(i) number j+1 waits for Resolve(i+1) number floor(j/4)."""
        return i == self.levels - 1 or self.done[i + 1] >= self.done[i] // 4

    def may_resolve(self, i: int) -> bool:
        """Block i > 0 starts its next Resolve: 4 more Resolve(i-1) done, and the level below it caught up."""
        return self.done[i - 1] >= 4 * (self.done[i] + 1) and self.may_resolve_after(i)

    def run_schedule(self) -> None:
        progress = True
        while progress:
            progress = False
            for i in range(1, self.levels):
                if self.may_resolve(i):
                    self.resolve(i)
                    self.done[i] += 1
                    progress = True

    # -- Resolve(i), Algorithm 5 ---------------------------------------------------------------------------------

    def check_resolve_preconditions(self, i: int) -> None:
        d, top = self.d, self.largest_nonempty_level()
        self.check(len(self.signals[i]) <= d * 4 ** i, f"Resolve({i}): |S_{i}| = {len(self.signals[i])} <= d4^i")
        if i < top:
            self.check(len(self.buckets[i]) >= d * 4 ** i, f"Resolve({i}): |B_{i}| = {len(self.buckets[i])} >= d4^i")
        if i + 1 < self.levels:
            below = len(self.signals[i + 1])
            self.check(below <= d * 4 ** (i + 1) - d * 4 ** i, f"Resolve({i}): |S_{i+1}| = {below} <= d4^(i+1) - d4^i")
            if i + 1 < top:
                size = len(self.buckets[i + 1])
                self.check(size >= d * 4 ** (i + 1) + d * 4 ** i, f"Resolve({i}): |B_{i+1}| = {size} >= d4^(i+1) + d4^i")

    def resolve(self, i: int) -> None:
        self.check_resolve_preconditions(i)
        last = i == self.levels - 1
        capacity = self.bucket_capacity(i)
        bucket = self.buckets[i]
        if self.signals[i]:  # lines 1-9: empty S_i
            merged = delete_duplicates(merge(self.signals[i], bucket))
            self.signals[i] = []
            small = [e for e in merged if is_small(e, self.bounds[i])]
            if len(small) > capacity:  # lines 5-6: lower p_i
                assert not last, "the last level never overflows (it holds at most n values)"
                self.bounds[i] = select(small, capacity)
            bucket = [e for e in merged if is_small(e, self.bounds[i])]
            down = [e for e in merged if not is_small(e, self.bounds[i])]
            if last:
                assert all(e[1] == DEL for e in down)  # DELs end here
            else:
                self.signals[i + 1] = merge(self.signals[i + 1], down)
        if not last and len(bucket) < capacity and (self.buckets[i + 1] or self.signals[i + 1]):  # lines 10-17
            merged = delete_duplicates(merge(self.signals[i + 1], self.buckets[i + 1]))
            below_bound = self.bounds[i + 1]
            candidates = [e for e in merged if is_small(e, below_bound)]
            wanted = capacity - len(bucket)
            if len(candidates) <= wanted:
                self.bounds[i] = below_bound
            else:
                self.bounds[i] = select(candidates, wanted)
            pulled = [e for e in candidates if key(e) <= self.bounds[i]]
            bucket = merge(bucket, pulled)
            self.buckets[i + 1] = [e for e in candidates if key(e) > self.bounds[i]]
            rest = [e for e in merged if not is_small(e, below_bound)]
            if i + 1 == self.levels - 1:
                assert all(e[1] == DEL for e in rest)  # DELs end at the last level
                rest = []
            self.signals[i + 1] = rest
        self.buckets[i] = bucket
        self.check(len(self.signals[i]) == 0, f"Resolve({i}) postcondition: |S_{i}| = 0")
        if not last and self.largest_nonempty_level() > i:
            self.check(len(bucket) == capacity or not (self.buckets[i + 1] or self.signals[i + 1]),
                       f"Resolve({i}) postcondition: |B_{i}| = {len(bucket)} = 2d4^i")

    # -- the heap property, for tests ----------------------------------------------------------------------------

    def assert_invariants(self) -> None:
        """Lists sorted by value and within capacity, no DEL in a bucket, every bucket element <= its bound and
        every element of a deeper level above it, bounds non-decreasing."""
        for i in range(self.levels):
            bucket, signals = self.buckets[i], self.signals[i]
            for lst in (bucket, signals):
                assert all(lst[j][0] <= lst[j + 1][0] for j in range(len(lst) - 1)), f"level {i} not sorted by value"
            assert all(e[1] != DEL for e in bucket), f"a DEL in B_{i}"
            assert len(bucket) + len(signals) <= 3 * self.d * 4 ** i or i == self.levels - 1
            assert len(signals) <= self.signal_capacity(i), f"|S_{i}| = {len(signals)} over capacity"
            assert all(key(e) <= self.bounds[i] for e in bucket), f"B_{i} above p_{i}"
            if i + 1 < self.levels:
                assert self.bounds[i] <= self.bounds[i + 1]
                for deeper in range(i + 1, self.levels):
                    for e in self.buckets[deeper] + self.signals[deeper]:
                        assert e[1] == DEL or key(e) > self.bounds[i], f"{e} at level {deeper} <= p_{i}"
        assert self.bounds[-1] == INF_KEY


@dataclass
class ModelResult:
    distances: np.ndarray
    iterations: int                 # extractMins
    stale_extractions: int          # extractMins of an already settled vertex (dropped)
    bulk_updates: int
    empty_ops: int
    resolves_per_level: list[int]
    levels: int
    d: int
    extracted: list[int]            # the extraction order (vertex ids)
    violations: list[str]


def sorted_rows(graph: CSRGraph) -> tuple[np.ndarray, np.ndarray, np.ndarray, bool]:
    """(row_offsets, column_ids, weights, unit_weights) with each row's arcs sorted by column id (stable), so an
    extracted vertex's updates are already sorted by value (prepare does this once per graph). Rows are sorted
    each on its own, in parallel: one global sort of 200M arcs took 45 s of a device call's prepare."""
    arrays = kernel_arrays(graph)
    order = _row_sort_order(arrays.row_offsets, arrays.column_ids)
    weights = arrays.weights if arrays.unit_weights else arrays.weights[order]
    return arrays.row_offsets, arrays.column_ids[order], weights, arrays.unit_weights


@numba.njit(parallel=True, cache=True)
def _row_sort_order(row_offsets, columns):
    """The arc permutation that sorts every row by column id, stably (parallel arcs keep their order)."""
    order = np.empty(columns.size, dtype=np.int64)
    for row in numba.prange(row_offsets.size - 1):
        start, end = row_offsets[row], row_offsets[row + 1]
        order[start:end] = start + np.argsort(columns[start:end], kind="mergesort")
    return order


def default_d(graph: CSRGraph) -> int:
    """The paper's d: the maximum out-degree (at least 1), so one bulkUpdate carries all of a vertex's updates."""
    degrees = np.diff(np.asarray(graph.row_offsets))
    return max(1, int(degrees.max()) if len(degrees) else 1)


def par_dijkstra_model(graph: CSRGraph, source: int, d: int = 0, settled_check: bool = True,
                       check_preconditions: bool = False) -> ModelResult:
    """parDijkstra (section 4.1.1) on the BucketHeap: extractMin, settle, the out-arcs to unsettled targets as
    bulkUpdates of at most d (in column order); settled_check False skips the per-arc settled test (the paper's DAG
    mode, section 4.3). An extracted vertex already settled is dropped in both modes (one read per extraction), so
    a re-extraction never changes a distance."""
    d = d or default_d(graph)
    row_offsets, columns, weights, unit = sorted_rows(graph)
    n = graph.n
    heap = BucketHeap(n, d, check_preconditions)
    distances = np.full(n, INT_UNREACHED, dtype=np.int64)
    settled = np.zeros(n, dtype=bool)
    extracted, stale = [], 0
    heap.bulk_update([(int(source), 0)])
    while True:
        element = heap.extract_min()
        if element is None:
            if heap.has_elements():
                heap.empty_op()
                continue
            break
        v, priority = element
        if settled[v]:
            stale += 1
            continue
        settled[v] = True
        distances[v] = priority
        extracted.append(int(v))
        updates = []
        for arc in range(row_offsets[v], row_offsets[v + 1]):
            u = int(columns[arc])
            if settled_check and settled[u]:
                continue
            updates.append((u, priority + (1 if unit else int(weights[arc]))))
        for start in range(0, len(updates), d):
            heap.bulk_update(updates[start:start + d])
    return ModelResult(distances, heap.extract_mins, stale, heap.bulk_updates, heap.empty_ops, list(heap.done),
                       heap.levels, d, extracted, heap.violations)
