// delta-stepping-chain: asynchronous delta-stepping in which each lane follows its own chain of improvements
// inside the current bucket, for road networks, whose shortest-path trees are a thousand arcs deep.
//
// Why: on USA-road-d.NY every level-synchronous design pays the tree's depth (854 to 1,199 arcs) times the cost of a
// level (a launch, a grid barrier or a cluster barrier plus the level's dependent loads: 4 to 10 us), and
// delta-stepping-async's hop goes through its ring (about ten serialised atomics). Here a hop that stays in the
// bucket costs what the relaxation itself costs: the lane that lowers dist[u] to a value in the bucket it is working
// on relaxes u next, with no queue, no barrier and no claim. Only what leaves the bucket, or a second improvement of
// the same vertex step, goes through the work queue.
//
// Buckets: bucket k holds the distances [k delta, (k + 1) delta). The work queue is a ring of `slot_count` slots,
// bucket k in slot k % slot_count, each slot `stripes` queues, each a circular array of `cap` cells with one packed
// word (head << 32 | tail: entries taken and pushed) and a count of entries finished (relaxed, their chains
// included). A warp pushes into its own stripe and takes from its own first, then from the others: with one queue
// per bucket every push, take and poll of the GPU met on one word (NY: 7.86 ms with one stripe, 5.83 with 16). Warps take
// entries only from the current bucket `cur`; when its stripes' finished counts equal their tails, no entry of bucket
// cur is waiting or being relaxed, so none can appear (only the relaxation of a bucket-cur vertex pushes into bucket
// cur), and an idle warp moves cur on; when every slot's finished count equals its tail, the solve is over.
// slot_count exceeds max weight / delta + 2, so an entry pushed while cur is current lands in a slot that holds no
// other bucket's entries. A lane pushes its improvements with one atomicAdd on the packed word per slot they go to
// (their cells' positions), and ends its entry with a fence (its pushes before its finish) and an atomicAdd on the
// finished count.
//
// Entries: (low 32 bits of the distance pushed << 32 | vertex). A relaxer reads dist[v] and relaxes v only if its
// low 32 bits still match: every improvement has one owner (the lane whose atomicMin made it), who either chains
// into it or pushes it, so an entry is relaxed at most once per improvement that nobody overtook (a 2^32 coincidence
// would relax it once more: a wasted relaxation, never a wrong distance). A chained hop is not checked: a lane that
// was overtaken relaxes its vertex at a stale distance, whose atomicMins fail where the newer owner's succeed.
//
// Relaxing a vertex of at most DC_UNROLL arcs, a lane loads all its arcs, then issues all the heads' atomicMins beside
// the heads' rows (so the next hop's row is at hand), then reserves its pushes' cells: a chained hop costs three
// dependent rounds of memory. It chains into the improved head of least distance inside the bucket and pushes the
// others. Larger vertices go arc by arc.
//
// Taking: a warp with at least DC_TAKE_IDLE idle lanes (default: all 32) has lane 0 read cur and the slot's packed word
// and CAS the head forward by up to as many entries as it has idle lanes; its busy lanes then go on with their hops. A warp that read cur just before cur moved on may take a later bucket's entries: relaxed early,
// which costs work order, never correctness (any relaxation order reaches the same fixed point).
#include "common.cuh"

#define DC_FULL 0xffffffffu
#define DC_EMPTY 0xffffffffffffffffULL

// control[] (word_t), each on its own 128-byte line
#define DC_CUR 0          // the current bucket
#define DC_DONE 32        // set when every entry pushed was finished
#define DC_ABORT 48       // the first abort reason
#define DC_CONTROL_WORDS 64
// slots[]: per slot its packed (head << 32 | tail) word and its finished count, each on its own line
#define DC_SLOT_LINE 32
#define DC_SLOT_WORD(s) ((s) * DC_SLOT_LINE)
#define DC_SLOT_FINISHED(s) ((s) * DC_SLOT_LINE + 16)
#ifndef DC_TAKE_IDLE
#define DC_TAKE_IDLE 32   // a warp takes entries when this many of its lanes are idle (32: only when all are)
#endif
#ifndef DC_BACKOFF_MAX
#define DC_BACKOFF_MAX 32   // ns an idle warp sleeps at most between polls (256: 8% slower on NY; 2,048: 40%)
#endif
#ifndef DC_UNROLL
#define DC_UNROLL 8       // arcs a lane relaxes side by side (road vertices have 2 to 4)
#endif
// words[] (status words read back once per solve): common.cuh's, then these
#define DC_POPS 8         // entries taken from the work queue
#define DC_STALE 9        // entries whose vertex had been lowered again since
#define DC_RELAXED 10     // vertices relaxed (entries that were not stale, plus chained hops)
#define DC_CHAINED 11     // vertices relaxed as a chain's next hop, not through the queue
#define DC_PUSHES 12
#define DC_BUCKETS 13     // times cur moved on
#define DC_ABORTED 14
#define DC_IDLE_POLLS 15  // polls of an idle warp that found nothing to take
// with count_relaxations, a profile at the SM clock: lane-cycles spent relaxing (a hop from its distance read to its
// last push), the longest warp's cycles from start to exit, and the batches taken
#define DC_BUSY_CYCLES 16
#define DC_SPAN_CYCLES 17
#define DC_BATCHES 18
#define DC_WORDS 24

__device__ __forceinline__ word_t dc_load(const word_t* p) { return *(const volatile word_t*)p; }
__device__ __forceinline__ dist_t dc_load_dist(const dist_t* p) { return *(const volatile dist_t*)p; }

__device__ __forceinline__ word_t dc_entry(vertex_t v, dist_t d) {
    return ((word_t)(unsigned)d << 32) | (word_t)(unsigned)v;
}

__device__ __forceinline__ void dc_abort(word_t* control, word_t reason) { atomicCAS(control + DC_ABORT, 0ULL, reason); }

__device__ __forceinline__ unsigned long long dc_warp_sum(unsigned long long value) {
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) value += __shfl_xor_sync(DC_FULL, value, offset);
    return value;
}

// Per solve: distances, the control and status words, the slots' words, the source's entry in slot 0's first cell.
// The cells are EMPTY from prepare (or the last aborted solve's refill): a finished solve took every cell it filled.
extern "C" __global__ void dc_init(dist_t* dist, word_t* cells, word_t* control, word_t* slots, word_t* words,
                                   long long n, long long source, int queues, long long cells_total) {
    long long stride = (long long)gridDim.x * blockDim.x;
    long long first = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    for (long long v = first; v < n; v += stride) dist[v] = v == source ? 0LL : DIST_INF;
    for (long long i = first; i < cells_total; i += stride) cells[i] = DC_EMPTY;  // cells_total: 0 or every cell
    for (long long i = first; i < (long long)queues * DC_SLOT_LINE; i += stride) {
        slots[i] = i == DC_SLOT_WORD(0) ? 1ULL : 0ULL;  // the source's entry: slot 0's (stripe 0's) tail is 1
    }
    for (long long i = first; i < DC_CONTROL_WORDS; i += stride) control[i] = 0ULL;
    for (long long i = first; i < DC_WORDS; i += stride) words[i] = 0ULL;
    if (first == 0) cells[0] = dc_entry((vertex_t)source, 0LL);
}

// Ends the calling lanes' entries (any subset of the warp): each adds its entry to its slot's finished count.
__device__ __forceinline__ void dc_finish(int slot, word_t* slots) {
    __threadfence();  // this lane's pushes before its entry counts as finished
    int lane = threadIdx.x & 31;
    unsigned active = __activemask();
    unsigned group = __match_any_sync(active, slot);
    if (lane == __ffs(group) - 1) atomicAdd(slots + DC_SLOT_FINISHED(slot), (word_t)__popc(group));
}

// Whether every entry pushed into any queue was finished (the calling warp's 32 lanes, each reading some queues):
// all the finished counts first, then a fence, then all the tails. The finished total read before the fence is at
// most the entries finished then, which is at most those pushed then (an entry's pushes come before its finish),
// which is at most the tail total read after it: equal totals mean that at the fence nothing was waiting or being
// relaxed, and so nothing could be pushed again.
__device__ __forceinline__ bool dc_all_finished(const word_t* slots, int queues) {
    unsigned long long done = 0ULL, pushed = 0ULL;
    for (int q = threadIdx.x & 31; q < queues; q += 32) done += (unsigned)dc_load(slots + DC_SLOT_FINISHED(q));
    __syncwarp();
    __threadfence();
    for (int q = threadIdx.x & 31; q < queues; q += 32) pushed += (unsigned)dc_load(slots + DC_SLOT_WORD(q));
    return dc_warp_sum(done) == dc_warp_sum(pushed);
}

// Reserves `count` cells of `slot` for one lane's pushes: the position of the first; an overflow aborts (-1).
__device__ __forceinline__ long long dc_reserve(int slot, unsigned count, long long cap, long long guard,
                                                word_t* control, word_t* slots) {
    word_t packed = atomicAdd(slots + DC_SLOT_WORD(slot), (word_t)count);
    unsigned tail = (unsigned)packed, head = (unsigned)(packed >> 32);
    // every cell below tail + count must have been read: those not taken yet plus at most `guard` taken but unread
    if ((long long)(tail - head) + count > cap - guard) {
        dc_abort(control, 1ULL);
        return -1;
    }
    return (long long)tail;
}

// Relaxes v (at distance d, its arcs [begin, end), in bucket `bucket`): every improvement is pushed, except the one
// of least distance inside the bucket, which becomes the lane's next hop (next = -1: none) when may_chain. A vertex
// of at most DC_UNROLL arcs goes in three dependent rounds: its arcs; the heads' atomicMins beside their rows (the
// next hop's row is then at hand); one reservation per slot pushed into. Larger vertices go arc by arc.
__device__ __forceinline__ void dc_relax(dist_t d, offset_t begin, offset_t end, long long bucket, bool may_chain,
                                         const offset_t* __restrict__ row_offsets,
                                         const vertex_t* __restrict__ column_ids,
                                         const weight_t* __restrict__ weights, int unit_weights, dist_t* dist,
                                         long long delta, int slot_count, int stripes, int stripe, long long cap,
                                         long long guard, word_t* cells, word_t* control, word_t* slots, vertex_t& next,
                                         dist_t& next_d, offset_t& next_begin, offset_t& next_end,
                                         unsigned long long& pushes, unsigned long long& attempts,
                                         unsigned long long& improved) {
    next = -1;
    long long degree = end - begin;
    attempts += (unsigned long long)degree;
    if (degree <= DC_UNROLL) {
        vertex_t heads[DC_UNROLL];
        dist_t candidates[DC_UNROLL], old[DC_UNROLL];
        offset_t firsts[DC_UNROLL], lasts[DC_UNROLL];
        int targets[DC_UNROLL];
#pragma unroll
        for (int i = 0; i < DC_UNROLL; ++i) {
            if (i < degree) {
                heads[i] = column_ids[begin + i];
                candidates[i] = d + arc_weight(weights, unit_weights, begin + i);
            }
        }
#pragma unroll
        for (int i = 0; i < DC_UNROLL; ++i) {
            if (i < degree) {
                old[i] = atomicMin(dist + heads[i], candidates[i]);
                firsts[i] = row_offsets[heads[i]];
                lasts[i] = row_offsets[heads[i] + 1];
            }
        }
        int keep = -1;
        dist_t least = DIST_INF;
        unsigned to_push = 0u;
#pragma unroll
        for (int i = 0; i < DC_UNROLL; ++i) {
            if (i < degree && candidates[i] < old[i]) {
                ++improved;
                targets[i] = (int)((candidates[i] / delta) % slot_count) * stripes + stripe;  // its queue
                to_push |= 1u << i;
                if (may_chain && candidates[i] / delta == bucket && candidates[i] < least) {
                    keep = i;
                    least = candidates[i];
                }
            }
        }
#pragma unroll
        for (int i = 0; i < DC_UNROLL; ++i) {
            if (i == keep) {
                next = heads[i];
                next_d = candidates[i];
                next_begin = firsts[i];
                next_end = lasts[i];
                to_push &= ~(1u << i);
            }
        }
        while (to_push) {  // one reservation per slot among this lane's pushes (mostly one)
            int slot = -1;
            unsigned count = 0u;
#pragma unroll
            for (int i = 0; i < DC_UNROLL; ++i) {
                if ((to_push >> i) & 1u) {
                    if (slot < 0) slot = targets[i];
                    if (targets[i] == slot) ++count;
                }
            }
            long long position = dc_reserve(slot, count, cap, guard, control, slots);
#pragma unroll
            for (int i = 0; i < DC_UNROLL; ++i) {
                if (((to_push >> i) & 1u) && targets[i] == slot) {
                    if (position >= 0) {
                        __stcg(cells + (long long)slot * cap + position % cap, dc_entry(heads[i], candidates[i]));
                        ++position;
                        ++pushes;
                    }
                    to_push &= ~(1u << i);
                }
            }
        }
        return;
    }
    for (offset_t e = begin; e < end; ++e) {
        vertex_t u = column_ids[e];
        dist_t candidate = d + arc_weight(weights, unit_weights, e);
        if (candidate >= dist[u]) continue;  // a stale read is only ever too high
        dist_t previous = atomicMin(dist + u, candidate);
        if (candidate >= previous) continue;
        ++improved;
        if (next < 0 && may_chain && candidate / delta == bucket) {
            next = u;
            next_d = candidate;
            next_begin = row_offsets[u];
            next_end = row_offsets[u + 1];
        } else {
            int slot = (int)((candidate / delta) % slot_count) * stripes + stripe;  // its queue
            long long position = dc_reserve(slot, 1u, cap, guard, control, slots);
            if (position >= 0) {
                __stcg(cells + (long long)slot * cap + position % cap, dc_entry(u, candidate));
                ++pushes;
            }
        }
    }
}

// The solve: every warp takes entries of the current bucket, 32 at a time, and each lane relaxes its entry's vertex
// and the chain that follows from it; launched with every block resident or not (no warp waits on a warp that has
// not started: an entry is only waited for by the warp that took it, after its pusher reserved it).
extern "C" __global__ void __launch_bounds__(256) dc_solve(const offset_t* __restrict__ row_offsets, const vertex_t* __restrict__ column_ids,
                                    const weight_t* __restrict__ weights, int unit_weights, dist_t* dist,
                                    word_t* cells, word_t* control, word_t* slots, word_t* words, long long cap,
                                    long long guard, int slot_count, int stripes, long long delta, int chain,
                                    long long timeout_cycles, int count_relaxations) {
    int lane = threadIdx.x & 31;
    int stripe = (int)(((long long)blockIdx.x * blockDim.x + threadIdx.x) / 32 % stripes);  // this warp's stripe
    int queues = slot_count * stripes;
    bool have = false;        // this lane holds an entry (or a chain's next hop)
    bool from_queue = false;  // ... an entry taken from the queue, not yet checked and without its row
    vertex_t v = 0;
    dist_t d = 0;
    offset_t begin = 0, end = 0;
    unsigned expect = 0u;     // the low 32 bits of the distance v is to be relaxed at
    int item_slot = 0;        // the slot its entry was taken from (where it counts as finished)
    int chain_left = 0;
    unsigned long long pops = 0, stale = 0, relaxed = 0, chained = 0, pushes = 0, attempts = 0, improved = 0;
    unsigned long long buckets = 0, idle_polls = 0, busy_cycles = 0, batches = 0;
    long long started = clock64();
    long long idle_since = started;
    unsigned backoff = 0;
    while (true) {
        unsigned idle = __ballot_sync(DC_FULL, !have);
        if (idle == DC_FULL || __popc(idle) >= DC_TAKE_IDLE) {
            // state 0: took k entries at head of slot; 1: nothing to take now; 2: the solve ended or aborted;
            // 3: bucket cur looks finished (every lane then checks every slot)
            int state = 1, slot = 0;
            unsigned head = 0u, k = 0u;
            word_t cur = 0ULL;
            if (lane == 0) {
                if (dc_load(control + DC_DONE) != 0ULL || dc_load(control + DC_ABORT) != 0ULL) {
                    state = 2;
                } else {
                    cur = dc_load(control + DC_CUR);
                    int first = (int)(cur % (word_t)slot_count) * stripes;  // the bucket's stripes, ours first
                    bool empty = true, finished = true;
                    for (int j = 0; j < stripes && state != 0; ++j) {
                        int q = first + (stripe + j) % stripes;
                        word_t packed = dc_load(slots + DC_SLOT_WORD(q));
                        unsigned h = (unsigned)(packed >> 32), t = (unsigned)packed;
                        if (t != h) {
                            empty = false;
                            unsigned take = min(t - h, (unsigned)__popc(idle));
                            if (atomicCAS(slots + DC_SLOT_WORD(q), packed, packed + ((word_t)take << 32)) == packed) {
                                state = 0;
                                slot = q;
                                head = h;
                                k = take;
                            }
                        } else if ((unsigned)dc_load(slots + DC_SLOT_FINISHED(q)) != t) {
                            finished = false;
                        }
                    }
                    if (state != 0 && empty && finished) {
                        // every stripe empty and seemingly finished: read again in the safe order (finished, then
                        // the tail, which a finished entry's pushes are in) before moving cur on
                        // (all finished counts, one fence, all tails: equal sums mean that at the fence no
                        // entry of the bucket was waiting or being relaxed, see dc_all_finished)
                        unsigned long long done = 0ULL, pushed = 0ULL;
                        for (int j = 0; j < stripes; ++j) done += (unsigned)dc_load(slots + DC_SLOT_FINISHED(first + j));
                        __threadfence();
                        for (int j = 0; j < stripes; ++j) pushed += (unsigned)dc_load(slots + DC_SLOT_WORD(first + j));
                        if (done == pushed) state = 3;
                    } else if (state != 0) {
                        ++idle_polls;
                    }
                }
            }
            state = __shfl_sync(DC_FULL, state, 0);
            if (state == 2) break;
            if (state == 3) {  // bucket cur is finished: end the solve if nothing is left anywhere, else move cur on
                if (dc_all_finished(slots, queues)) {
                    if (lane == 0) atomicExch(control + DC_DONE, 1ULL);
                    break;
                }
                if (lane == 0 && atomicCAS(control + DC_CUR, cur, cur + 1ULL) == cur) ++buckets;
                continue;
            }
            if (state == 1 && idle == DC_FULL) {
                if (lane == 0 && clock64() - idle_since > timeout_cycles) dc_abort(control, 2ULL);
                backoff = backoff ? min(backoff * 2u, (unsigned)DC_BACKOFF_MAX) : 16u;
                __nanosleep(backoff);
                continue;
            }
            // state 0 (entries taken), or nothing taken while some lanes are busy: those go on relaxing
            if (state == 0) {
                backoff = 0;
                idle_since = clock64();
                ++batches;
                slot = __shfl_sync(DC_FULL, slot, 0);
                head = __shfl_sync(DC_FULL, head, 0);
                k = __shfl_sync(DC_FULL, k, 0);
            }
            unsigned rank = (unsigned)__popc(idle & ((1u << lane) - 1u));  // this idle lane's place among them
            if (state == 0 && !have && rank < k) {
                word_t* cell = cells + (long long)slot * cap + (long long)((head + rank) % (unsigned long long)cap);
                word_t entry = __ldcg(cell);
                long long waiting_since = clock64();
                unsigned spins = 0u;
                while (entry == DC_EMPTY) {  // reserved, not yet written: its pusher is about to
                    if ((++spins & 1023u) == 0u &&
                        (clock64() - waiting_since > timeout_cycles || dc_load(control + DC_ABORT) != 0ULL)) {
                        dc_abort(control, 2ULL);  // a push that overflowed never writes its cell
                        break;
                    }
                    entry = dc_load(cell);
                }
                if (entry != DC_EMPTY) {
                    __stcg(cell, DC_EMPTY);
                    have = true;
                    from_queue = true;
                    v = (vertex_t)(unsigned)entry;
                    expect = (unsigned)(entry >> 32);
                    item_slot = slot;
                    chain_left = chain;
                    ++pops;
                }
            }
        }
        if (!have) continue;  // idle lanes wait for the warp's busy ones
        long long hop_started = count_relaxations ? clock64() : 0LL;
        if (from_queue) {  // an entry: its distance (still the one pushed?) and its row, side by side
            d = dc_load_dist(dist + v);
            begin = row_offsets[v];
            end = row_offsets[v + 1];
            from_queue = false;
            if ((unsigned)d != expect) {  // lowered again since: its new owner relaxes it
                ++stale;
                have = false;
                dc_finish(item_slot, slots);
                continue;
            }
        }
        ++relaxed;
        vertex_t next;
        dist_t next_d = 0;
        offset_t next_begin = 0, next_end = 0;
        dc_relax(d, begin, end, d / delta, chain_left > 0, row_offsets, column_ids, weights, unit_weights, dist,
                 delta, slot_count, stripes, stripe, cap, guard, cells, control, slots, next, next_d, next_begin,
                 next_end, pushes,
                 attempts, improved);
        if (count_relaxations) busy_cycles += (unsigned long long)(clock64() - hop_started);
        if (next >= 0) {  // the chain goes on with a vertex this lane just lowered (a later owner may relax it too)
            v = next;
            d = next_d;
            begin = next_begin;
            end = next_end;
            --chain_left;
            ++chained;
        } else {
            have = false;
            dc_finish(item_slot, slots);
        }
    }
    // the warp's counts
    unsigned long long span = (unsigned long long)(clock64() - started);
    busy_cycles = dc_warp_sum(busy_cycles);
    pops = dc_warp_sum(pops);
    stale = dc_warp_sum(stale);
    relaxed = dc_warp_sum(relaxed);
    chained = dc_warp_sum(chained);
    pushes = dc_warp_sum(pushes);
    attempts = dc_warp_sum(attempts);
    improved = dc_warp_sum(improved);
    if (lane == 0) {
        if (pops) atomicAdd(words + DC_POPS, pops);
        if (stale) atomicAdd(words + DC_STALE, stale);
        if (relaxed) atomicAdd(words + DC_RELAXED, relaxed);
        if (chained) atomicAdd(words + DC_CHAINED, chained);
        if (pushes) atomicAdd(words + DC_PUSHES, pushes);
        if (buckets) atomicAdd(words + DC_BUCKETS, buckets);
        if (idle_polls) atomicAdd(words + DC_IDLE_POLLS, idle_polls);
        if (count_relaxations) {
            add_counts(words, attempts, improved);
            atomicAdd(words + DC_BUSY_CYCLES, busy_cycles);
            atomicMax(words + DC_SPAN_CYCLES, span);
            atomicAdd(words + DC_BATCHES, batches);
        }
        word_t reason = dc_load(control + DC_ABORT);
        if (reason) words[DC_ABORTED] = reason;
    }
}
