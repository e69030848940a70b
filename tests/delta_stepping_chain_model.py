"""A Python model of delta_stepping_chain.cu's protocol, for tests/test_delta_stepping_chain_model.py to run on the
CPU: the ring of bucket slots striped into queues (one packed head/tail and one finished count each), cells that
are EMPTY until their pusher writes them, warps taking up to `take` entries by a CAS on the packed word, lanes that
check an entry's distance, relax, chain into one improvement inside the bucket and push the others, the finish
count, the current bucket's move, and the end of the solve (every finished count equal to its tail).

Each lane is a generator that yields at every access to shared state; a scheduler runs a random ready lane each
step, so a push's reservation and its cell write, a take and its cell read, and a finish and a bucket's move
interleave in every way the random schedule finds. Memory is sequentially consistent here: the fences the .cu
argues for are not tested, only the protocol's logic. Kept in line with the .cu by hand.
"""

from __future__ import annotations

import random

from sssp_bench.kernels.arrays import kernel_arrays

from delta_stepping_models import interleaved

INF = 2**63 - 1
EMPTY = None


class ChainMachine:
    """Shared state of one solve, and the lanes that run it."""

    def __init__(self, graph, source: int, delta: int, slot_count: int, stripes: int, chain: int, warps: int,
                 take: int, rng: random.Random):
        arrays = kernel_arrays(graph)
        self.row_offsets, self.columns, self.weights = arrays.row_offsets, arrays.column_ids, arrays.weights
        self.delta, self.slot_count, self.stripes, self.chain = delta, slot_count, stripes, chain
        self.take, self.rng = take, rng
        queues = slot_count * stripes
        self.dist = [INF] * graph.n
        self.dist[source] = 0
        self.heads, self.tails, self.finished = [0] * queues, [0] * queues, [0] * queues
        self.cells: list[dict[int, tuple[int, int]]] = [dict() for _ in range(queues)]  # position -> (vertex, dist)
        self.cells[0][0] = (source, 0)
        self.tails[0] = 1
        self.cur, self.done = 0, False
        self.counts = {"pops": 0, "stale": 0, "relaxed": 0, "chained": 0, "pushes": 0, "buckets": 0}
        self.lanes = [self._warp(w) for w in range(warps)]

    def _queue(self, d: int, stripe: int) -> int:
        return (d // self.delta) % self.slot_count * self.stripes + stripe

    def _push(self, vertex: int, d: int, stripe: int):
        queue = self._queue(d, stripe)
        position = self.tails[queue]  # the atomicAdd on the packed word reserves the cell
        self.tails[queue] += 1
        yield
        self.cells[queue][position] = (vertex, d)  # written after the reservation: a taker may be waiting for it
        self.counts["pushes"] += 1
        yield

    def _relax(self, entry: tuple[int, int, int], stripe: int):
        """One taken entry (vertex, low bits of its distance, queue), its chain and its finish."""
        vertex, expect, queue = entry
        d = self.dist[vertex]
        yield
        if d != expect:
            self.counts["stale"] += 1
        else:
            chain_left = self.chain
            while True:
                self.counts["relaxed"] += 1
                bucket = d // self.delta
                improved = []
                for arc in range(self.row_offsets[vertex], self.row_offsets[vertex + 1]):
                    head = int(self.columns[arc])
                    candidate = d + int(self.weights[arc])
                    old = self.dist[head]  # the atomicMin
                    if candidate < old:
                        self.dist[head] = candidate
                        improved.append((candidate, head))
                    yield
                keep = None
                if chain_left > 0:
                    inside = [item for item in improved if item[0] // self.delta == bucket]
                    keep = min(inside) if inside else None
                for candidate, head in improved:
                    if (candidate, head) != keep:
                        yield from self._push(head, candidate, stripe)
                if keep is None:
                    break
                d, vertex = keep  # a chained hop is not checked: a newer owner relaxes it too
                chain_left -= 1
                self.counts["chained"] += 1
        self.finished[queue] += 1  # after this lane's pushes
        yield

    def _warp(self, warp: int):
        stripe = warp % self.stripes
        while not self.done:
            cur = self.cur
            yield
            first = cur % self.slot_count * self.stripes
            taken = None
            all_empty_finished = True
            for j in range(self.stripes):
                queue = first + (stripe + j) % self.stripes
                head, tail = self.heads[queue], self.tails[queue]
                yield
                if tail != head:
                    all_empty_finished = False
                    count = min(tail - head, self.take)
                    if (self.heads[queue], self.tails[queue]) == (head, tail):
                        self.heads[queue] = head + count  # the CAS on the packed word succeeded
                        taken = (queue, head, count)
                        yield
                        break
                    yield
                elif self.finished[queue] != tail:
                    all_empty_finished = False
                yield
            if taken is not None:
                queue, head, count = taken
                entries = []
                for position in range(head, head + count):
                    while position not in self.cells[queue]:  # reserved, not yet written
                        yield
                    vertex, d = self.cells[queue].pop(position)
                    entries.append((vertex, d, queue))
                    self.counts["pops"] += 1
                    yield
                # the warp's lanes relax side by side; here one after another, each interleaved with other warps
                yield from interleaved([self._relax(entry, stripe) for entry in entries], self.rng)
                continue
            if not all_empty_finished:
                yield
                continue
            # finished counts of the bucket's stripes first, then their tails: equal sums end the bucket
            done = sum(self.finished[first + j] for j in range(self.stripes))
            yield
            pushed = sum(self.tails[first + j] for j in range(self.stripes))
            yield
            if done != pushed:
                continue
            total_done = sum(self.finished)
            yield
            if total_done == sum(self.tails):
                self.done = True
                return
            if self.cur == cur:  # the CAS moving cur on
                self.cur = cur + 1
                self.counts["buckets"] += 1
            yield

    def run(self, step_limit: int = 5_000_000) -> list[int]:
        for steps, _ in enumerate(interleaved(self.lanes, self.rng)):
            if steps > step_limit:
                raise RuntimeError("the model did not end: a lost entry or a bucket that never moved on")
        return self.dist
