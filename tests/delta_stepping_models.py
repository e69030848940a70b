"""Python models of the GPU delta-stepping kernels' protocols, for tests/test_delta_stepping.py to run on the CPU.

They mirror sssp_bench/impls/delta_stepping.cu, delta_stepping_async.cu and delta_stepping_cluster.cu step for step
(kept in line by hand) and check the protocols' logic, not the CUDA: memory is sequentially consistent here, so
fences are not tested.

- `sync_steps`: the persistent kernel's step machine (light phases, heavy steps, splits; rotated control words, the
  far pile's flag, generation tags), each step's items taken in a random order.
- `AsyncMachine`: the work queue of delta-stepping-async (ring slots with monotonic head and tail and lap parity,
  qb claims, the base window, busy counts, local queues, the pending count), with warps as generators that yield at
  every access to shared state and are scheduled at random, over several solves on one set of rings.
- `cluster_levels`: delta_stepping_cluster.cu's level machine (per-block queues with spills, rotating count words,
  the far pile's splits, stamps, hops), each level's groups in a random order, stale stamp reads on request.
"""

from __future__ import annotations

import random

import numpy as np

from sssp_bench.kernels.arrays import kernel_arrays
from sssp_bench.kernels.delta_stepping import light_first

INF = 2**63 - 1
NO_BUCKET = 2**63 - 1
NONE = 0xFFFFFFFF
SLOTS = 64  # AS_SLOTS


def interleaved(generators, rng: random.Random):
    """Runs `generators` to their ends, one step of a random unfinished one at a time, yielding after each step: the
    scheduler of the models whose warps (or lanes) are generators that yield at every access to shared state."""
    running = list(generators)
    while running:
        generator = rng.choice(running)
        try:
            next(generator)
        except StopIteration:
            running.remove(generator)
        yield


def canonical(distances) -> np.ndarray:
    return np.array([np.inf if d in (None, INF) else d for d in distances], dtype=np.float64)


def sync_steps(graph, source: int, delta: int, rng: random.Random):
    """(distances, (light phases, heavy steps, splits, buckets)) by delta_stepping.cu's step machine."""
    n = graph.n
    arrays = kernel_arrays(graph)
    light_end, columns, weights, heavy_arcs = light_first(arrays, delta)
    has_heavy = heavy_arcs > 0
    rows = arrays.row_offsets

    def weight(e):
        return 1 if arrays.unit_weights else int(weights[e])

    dist = [INF] * n
    dist[source] = 0
    near_tag, far_flag, settled_tag = [0xFFFFFFFF] * n, [0] * n, [0xFFFFFFFF] * n
    queues, piles, settled = [[0] * n, [0] * n], [[0] * n, [0] * n], [0] * n
    words = [0] * 32
    for i in range(14, 17):
        words[i] = NO_BUCKET
    words[8] = 1
    queues[0][0] = source
    step = phase = split = bucket = ordinal = 0
    light = heavy = 0
    buckets = 1
    mode = "light"

    def push(queue, counter, v):
        queue[words[counter]] = v
        words[counter] += 1

    while True:
        assert step < 8 * n + 64, "stuck"
        next_count = 8 + (step + 1) % 3
        words[8 + (step + 2) % 3] = 0
        pile, pile_count, pile_min = piles[split & 1], 11 + split % 3, 14 + split % 3
        settled_count = 17 + (ordinal & 1)
        if mode == "split":
            count = words[pile_count]
            if count == 0:
                break
            target = words[pile_min]
            kept, kept_count, kept_min = piles[(split + 1) & 1], 11 + (split + 1) % 3, 14 + (split + 1) % 3
            queue = queues[phase & 1]
            words[11 + (split + 2) % 3], words[14 + (split + 2) % 3] = 0, NO_BUCKET
            words[17 + ((ordinal + 1) & 1)] = 0
            for item in rng.sample(range(count), count):
                v = pile[item]
                b = dist[v] // delta
                if b == target:
                    far_flag[v] = 0
                    push(queue, next_count, v)
                elif b > target:
                    push(kept, kept_count, v)
                    words[kept_min] = min(words[kept_min], b)
                else:
                    far_flag[v] = 0  # settled in an earlier bucket: stale
            split += 1
            ordinal += 1
            step += 1
            bucket = target
            if words[next_count] > 0:
                mode = "light"
                buckets += 1
            continue
        near_queue, generation = queues[(phase + 1) & 1], (phase + 1) & 0xFFFFFFFF

        def relax(du, begin, end, near_allowed):
            for e in range(begin, end):
                v = int(columns[e])
                candidate = du + weight(e)
                if candidate < dist[v]:
                    dist[v] = candidate
                    b = candidate // delta
                    if near_allowed and b <= bucket:
                        if near_tag[v] != generation:
                            near_tag[v] = generation
                            push(near_queue, next_count, v)
                    else:
                        words[pile_min] = min(words[pile_min], b)
                        if far_flag[v] == 0:
                            far_flag[v] = 1
                            push(pile, pile_count, v)

        if mode == "light":
            count = words[8 + step % 3]
            queue = queues[phase & 1]
            for item in rng.sample(range(count), count):
                u = queue[item]
                if has_heavy and settled_tag[u] != ordinal:
                    settled_tag[u] = ordinal
                    push(settled, settled_count, u)
                relax(dist[u], rows[u], light_end[u], True)
        else:
            for item in range(words[settled_count]):
                u = settled[item]
                relax(dist[u], light_end[u], rows[u + 1], False)
        step += 1
        if mode == "light":
            light += 1
            phase += 1
            if words[next_count] > 0:
                continue
            mode = "heavy" if has_heavy and words[settled_count] > 0 else "split"
        else:
            heavy += 1
            mode = "split"
    return canonical(dist), (light, heavy, split, buckets)


class AsyncMachine:
    """delta_stepping_async.cu's work queue with `workers` warps of `batch` lanes, rings of `cap` cells."""

    def __init__(self, graph, delta: int, lookahead: int, cap: int, batch: int, workers: int, seed: int,
                 local: bool = False):
        self.g, self.n = graph, graph.n
        self.delta, self.lookahead, self.cap, self.batch, self.workers = delta, lookahead, cap, batch, workers
        self.local = local
        self.rng = random.Random(seed)
        self.head, self.tail, self.busy = [0] * SLOTS, [0] * SLOTS, [0] * SLOTS
        self.cells = [[None] * cap for _ in range(SLOTS)]  # (lap parity, label, vertex)

    def lap(self, index: int) -> int:
        return ((index // self.cap) & 1) ^ 1

    def solve(self, source: int) -> np.ndarray:
        self.dist = [None] * self.n
        self.dist[source] = 0
        self.qb = [NONE] * self.n
        self.qb[source] = 0
        self.base, self.pending, self.abort = 0, 1, 0
        index = self.tail[0]
        self.cells[0][index % self.cap] = (self.lap(index), 0, source)
        self.tail[0] = index + 1
        self.stats = dict(pops=0, stale=0, pushes=0, kept=0)
        self.holding: dict[int, int] = {}  # warp -> the label of the ring batch (and chain) it holds busy
        self.out_of_order = 0  # batches taken at lookahead 1 while another warp still held a lower label
        for steps, _ in enumerate(interleaved([self.warp(index) for index in range(self.workers)], self.rng)):
            assert steps < 10_000_000, "no termination"
        assert not self.abort, f"aborted ({self.abort})"
        assert self.pending == 0 and not any(self.busy) and self.head == self.tail
        assert self.stats["pops"] == self.stats["pushes"] + self.stats["kept"] + 1
        return canonical(self.dist)

    def claim_batch(self, me: int):
        """Lane 0's search (a generator): returns (slot, first index, count, label), or None when nothing was found."""
        base = self.base
        for j in range(self.lookahead):
            label = base + j
            s = label % SLOTS
            for _ in range(4):
                yield
                head, tail = self.head[s], self.tail[s]
                if head >= tail:
                    if j == 0:
                        yield
                        if self.busy[s] == 0:
                            yield
                            # the tail again: a push and a release between the two reads above
                            if self.tail[s] == tail:
                                yield
                                if self.base == base:  # CAS
                                    self.base = base + 1
                    break
                count = min(self.batch, tail - head)
                yield
                self.busy[s] += count  # before the head: taken entries are never uncounted
                yield
                if self.head[s] == head:  # CAS
                    self.head[s] = head + count
                    if self.lookahead == 1 and any(held < label for held in self.holding.values()):
                        self.out_of_order += 1
                    self.holding[me] = label
                    return s, head, count, label
                yield
                self.busy[s] -= count
        return None

    def warp(self, me: int):
        rows, columns, weights = self.g.row_offsets, self.g.column_ids, self.g.weights
        local: list[tuple[int, int]] = []
        label = 0
        held_slot, held = None, 0  # the ring batch whose local chain the warp follows: its slot stays busy
        while True:
            yield
            items = []
            if local:
                batch, local = local, []
                for v, d in batch:
                    yield
                    if self.dist[v] == d:
                        items.append((v, d))
                    else:
                        self.stats["stale"] += 1
                taken, slot = len(batch), None
            else:
                if self.abort:
                    return
                found = yield from self.claim_batch(me)
                if found is None:
                    yield
                    if self.pending == 0:
                        return
                    continue
                slot, first, taken, label = found
                entries = []
                for i in range(taken):
                    index = first + i
                    for _ in range(100_000):
                        yield
                        cell = self.cells[slot][index % self.cap]
                        if cell is not None and cell[0] == self.lap(index):
                            break
                    else:
                        raise AssertionError("a reserved cell was never written")
                    entries.append(cell)
                for _, entry_label, u in entries:
                    yield
                    if self.qb[u] == entry_label:  # CAS: claimed
                        self.qb[u] = NONE
                        yield
                        items.append((u, self.dist[u]))
                    else:
                        self.stats["stale"] += 1
            yield
            base = self.base
            for u, du in items:
                for e in range(rows[u], rows[u + 1]):
                    v = int(columns[e])
                    candidate = du + int(weights[e])
                    yield
                    if self.dist[v] is not None and candidate >= self.dist[v]:
                        continue
                    self.dist[v] = candidate
                    raw = candidate // self.delta
                    if self.local and raw <= label and len(local) < self.batch:
                        self.pending += 1
                        local.append((v, candidate))
                        self.stats["kept"] += 1
                        continue
                    yield
                    pushed_label = max(raw, base)
                    assert pushed_label < self.base + SLOTS, "a label beyond the ring window"
                    if pushed_label < self.qb[v]:  # atomicMin
                        self.qb[v] = pushed_label
                        self.pending += 1
                        yield
                        s = pushed_label % SLOTS
                        index = self.tail[s]
                        self.tail[s] = index + 1
                        yield
                        if index + 1 - self.head[s] > self.cap - self.workers * self.batch:
                            self.abort = 1
                            return
                        yield
                        self.cells[s][index % self.cap] = (self.lap(index), pushed_label, v)
                        self.stats["pushes"] += 1
            yield
            self.stats["pops"] += taken
            if slot is not None:
                held_slot, held = slot, taken
            if not local and held_slot is not None:
                self.busy[held_slot] -= held
                held_slot, held = None, 0
                del self.holding[me]
            self.pending -= taken


def cluster_levels(graph, source: int, delta: int, rng: random.Random, blocks: int = 4, block_threads: int = 64,
                   group: int = 4, queue_cap: int = 16, hops: int = 0, stale_stamps: float = 0.0,
                   heavy_degree: int = 32):
    """(distances, counters) by delta_stepping_cluster.cu's level machine: each block's two shared-memory queue
    buffers of `queue_cap` entries (vertex, first arc, degree) and their counts rotating by level % 3, the spill and
    its rotating count, the far pile's two buffers with counts and least distances rotating by epoch % 3, stamps and
    far flags; a level's groups (one entry each, `hops` more vertices inside the level) run in a random order. With
    `stale_stamps`, that fraction of stamp reads see the stamp as it was when the level began (a race between two
    improvers of a vertex in the kernel: a duplicate entry, never a lost one)."""
    n = graph.n
    rows = np.asarray(graph.row_offsets)
    columns = np.asarray(graph.column_ids)
    weights = None if graph.weights is None else np.asarray(graph.weights)
    no_stamp = 0xFFFFFFFF
    dist = [INF] * n
    dist[source] = 0
    stamp = [no_stamp] * n
    in_far = [0] * n
    queues = [[[None] * queue_cap for _ in range(2)] for _ in range(blocks)]
    counts = [[0, 0, 0] for _ in range(blocks)]
    spill = [[], []]
    spill_count = [0, 0, 0]
    far = [[], []]
    far_count = [0, 0, 0]
    far_min = [INF] * 3
    queues[0][0][0] = (source, int(rows[source]), int(rows[source + 1] - rows[source]))
    counts[0][0] = 1
    per_block = block_threads // group
    thr, epoch, level = delta, 0, 0
    counters = {"levels": 0, "splits": 0, "pops": 0, "near_pushes": 0, "far_pushes": 0, "spills": 0, "chained": 0}

    def row(v):
        return int(rows[v]), int(rows[v + 1])

    def push_near(block, v, nxt, buffer):
        slot = counts[block][nxt]
        counts[block][nxt] += 1
        counters["near_pushes"] += 1
        begin, end = row(v)
        if slot < queue_cap:
            queues[block][buffer][slot] = (v, begin, end - begin)
        else:  # a vertex alone, its row read by whoever relaxes it
            index = spill_count[nxt]
            spill_count[nxt] += 1
            counters["spills"] += 1
            if index < len(spill[buffer]):
                spill[buffer][index] = v
            else:
                spill[buffer].append(v)

    def push_far(v, d, pile, word):
        index = far_count[word]
        far_count[word] += 1
        far_min[word] = min(far_min[word], d)
        if index < len(far[pile]):
            far[pile][index] = v
        else:
            far[pile].append(v)

    while True:
        now, nxt, buffer = level % 3, (level + 1) % 3, level & 1
        clamped = [min(counts[j][now], queue_cap) for j in range(blocks)]
        spilled = spill_count[now]
        total = sum(clamped) + spilled
        for j in range(blocks):
            counts[j][(level + 2) % 3] = 0
        spill_count[(level + 2) % 3] = 0
        level_stamps = list(stamp) if stale_stamps else None
        if total == 0:
            count = far_count[epoch % 3]
            if count == 0:
                break
            least = far_min[epoch % 3]
            old_thr, new_thr = thr, thr + delta
            if least != INF and (least // delta + 1) * delta > new_thr:
                new_thr = (least // delta + 1) * delta
            far_count[(epoch + 2) % 3] = 0
            far_min[(epoch + 2) % 3] = INF
            entries = list(far[epoch & 1][:count])
            rng.shuffle(entries)
            for v in entries:
                d = dist[v]
                keep, near = d >= new_thr, old_thr <= d < new_thr
                if not keep:
                    in_far[v] = 0
                if near and stamp[v] != level:
                    stamp[v] = level
                    push_near(rng.randrange(blocks), v, nxt, (level + 1) & 1)
                if keep:
                    push_far(v, d, (epoch + 1) & 1, (epoch + 1) % 3)
            thr = new_thr
            epoch += 1
            counters["splits"] += 1
            level += 1
            continue
        own = all(c <= per_block for c in clamped) and spilled == 0
        tasks = []  # (processing block, entry)
        if own:
            for j in range(blocks):
                tasks += [(j, queues[j][buffer][i]) for i in range(clamped[j])]
        else:
            entries = [queues[j][buffer][i] for j in range(blocks) for i in range(clamped[j])]
            entries += [(v, *row(v)[:1], row(v)[1] - row(v)[0]) for v in spill[buffer][:spilled]]
            tasks = [((index // per_block) % blocks, entry) for index, entry in enumerate(entries)]
        rng.shuffle(tasks)
        for block, (u, begin, degree) in tasks:
            counters["pops"] += 1
            end = begin + degree
            for hop in range(hops + 1):
                du = dist[u]
                kept = None
                for e in range(begin, end):
                    v = int(columns[e])
                    c = du + (1 if weights is None else int(weights[e]))
                    stale = level_stamps is not None and rng.random() < stale_stamps
                    seen = level_stamps[v] if stale else stamp[v]
                    flagged = in_far[v]
                    if not c < dist[v]:
                        continue
                    dist[v] = c
                    if c < thr and seen != level:
                        if kept is None and hop < hops and end - begin <= heavy_degree:  # a warp's vertex: no hop
                            kept = v
                        else:
                            stamp[v] = level
                            push_near(block, v, nxt, (level + 1) & 1)
                    elif c >= thr and flagged == 0:
                        in_far[v] = 1
                        counters["far_pushes"] += 1
                        push_far(v, c, epoch & 1, epoch % 3)
                if kept is None:
                    break
                u = kept
                begin, end = row(u)
                counters["chained"] += 1
        level += 1
    counters["levels"] = level
    return canonical(dist), counters
