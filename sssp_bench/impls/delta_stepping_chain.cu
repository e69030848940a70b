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
// bucket k in slot k % slot_count, each slot a circular array of `cap` cells with one packed word (head << 32 |
// tail) and a pending count (entries pushed into it and not yet finished, chains included). Warps take entries only
// from the current bucket `cur`; when its slot is empty and its pending count is zero, no entry of bucket cur exists
// or can appear (only the relaxation of a bucket-cur vertex pushes into bucket cur), and an idle warp moves cur on.
// slot_count exceeds max weight / delta + 2, so an entry pushed while cur is current lands in a slot that holds no
// other bucket's entries.
//
// Entries: (low 32 bits of the distance pushed << 32 | vertex). A relaxer reads dist[v] and relaxes v only if its
// low 32 bits still match: every improvement has one owner (the lane whose atomicMin made it), who either chains
// into it or pushes it, so a vertex is relaxed once per improvement that nobody overtook, never twice for the same
// distance (a 2^32 coincidence would relax it once more: a wasted relaxation, never a wrong distance).
//
// Pushes: lanes pushing into the same slot form a group (match_any); its first lane adds the group to the slot's
// pending count and to the total, fences, and reserves cells with one atomicAdd on the packed word. A cell holds
// EMPTY until written; the taker waits for its value and writes EMPTY back. A lane finishing an entry (its chain
// ended) fences, then subtracts it from its slot's pending count and from the total: an entry's pushes are counted
// before the entry stops counting, so the total is zero only when no entry exists and none is being relaxed, which
// ends the solve.
//
// Taking: a warp whose 32 lanes are idle has lane 0 read cur and the slot's packed word and CAS the head forward by
// up to 32 entries. A warp that read cur just before cur moved on may take a later bucket's entries: relaxed early,
// which costs work order, never correctness (any relaxation order reaches the same fixed point).
#include "common.cuh"

#define DC_FULL 0xffffffffu
#define DC_EMPTY 0xffffffffffffffffULL

// control[] (word_t), each on its own 128-byte line
#define DC_CUR 0          // the current bucket
#define DC_TOTAL 16       // entries pushed and not yet finished, over all slots
#define DC_DONE 32        // set when the total reached zero
#define DC_ABORT 48       // the first abort reason
#define DC_CONTROL_WORDS 64
// slots[]: per slot its packed (head << 32 | tail) word and its pending count, each on its own line
#define DC_SLOT_LINE 32
#define DC_SLOT_WORD(s) ((s) * DC_SLOT_LINE)
#define DC_SLOT_PENDING(s) ((s) * DC_SLOT_LINE + 16)
// words[] (status words read back once per solve): common.cuh's, then these
#define DC_POPS 8         // entries taken from the work queue
#define DC_STALE 9        // entries whose vertex had been lowered again since
#define DC_RELAXED 10     // vertices relaxed (entries that were not stale, plus chained hops)
#define DC_CHAINED 11     // vertices relaxed as a chain's next hop, not through the queue
#define DC_PUSHES 12
#define DC_BUCKETS 13     // times cur moved on
#define DC_ABORTED 14
#define DC_IDLE_POLLS 15  // polls of an idle warp that found nothing to take
#define DC_WORDS 16

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
                                   long long n, long long source, int slot_count, long long cells_total) {
    long long stride = (long long)gridDim.x * blockDim.x;
    long long first = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    for (long long v = first; v < n; v += stride) dist[v] = v == source ? 0LL : DIST_INF;
    for (long long i = first; i < cells_total; i += stride) cells[i] = DC_EMPTY;  // cells_total: 0 or every cell
    for (long long i = first; i < (long long)slot_count * DC_SLOT_LINE; i += stride) {
        slots[i] = (i == DC_SLOT_WORD(0) || i == DC_SLOT_PENDING(0)) ? 1ULL : 0ULL;  // the source's entry
    }
    for (long long i = first; i < DC_CONTROL_WORDS; i += stride) control[i] = i == DC_TOTAL ? 1ULL : 0ULL;
    for (long long i = first; i < DC_WORDS; i += stride) words[i] = 0ULL;
    if (first == 0) cells[0] = dc_entry((vertex_t)source, 0LL);
}

// Pushes (v, d) into bucket d / delta for the calling lanes (any subset of the warp).
__device__ __forceinline__ void dc_push(vertex_t v, dist_t d, long long delta, int slot_count, long long cap,
                                        long long guard, word_t* cells, word_t* control, word_t* slots,
                                        unsigned long long& pushes) {
    int lane = threadIdx.x & 31;
    int slot = (int)((d / delta) % slot_count);
    unsigned active = __activemask();
    unsigned group = __match_any_sync(active, slot);
    int leader = __ffs(group) - 1;
    word_t size = (word_t)__popc(group);
    word_t packed = 0ULL;
    if (lane == leader) {
        atomicAdd(slots + DC_SLOT_PENDING(slot), size);
        atomicAdd(control + DC_TOTAL, size);
        __threadfence();  // counted before any of the entries can be taken and finished
        packed = atomicAdd(slots + DC_SLOT_WORD(slot), size);
    }
    packed = __shfl_sync(group, packed, leader);
    unsigned tail = (unsigned)packed + (unsigned)__popc(group & ((1u << lane) - 1u));
    unsigned head = (unsigned)(packed >> 32);
    // every cell below tail + 1 must have been read: those not taken yet plus at most `guard` taken but unread
    if ((long long)(tail - head) + 1 > cap - guard) {
        dc_abort(control, 1ULL);
        return;
    }
    __stcg(cells + (long long)slot * cap + (long long)(tail % (unsigned long long)cap), dc_entry(v, d));
    ++pushes;
}

// Ends the calling lanes' entries (any subset of the warp): each subtracts its entry from its slot and the total.
__device__ __forceinline__ void dc_finish(int slot, word_t* control, word_t* slots) {
    __threadfence();  // this lane's pushes and counts before its entry stops counting
    int lane = threadIdx.x & 31;
    unsigned active = __activemask();
    unsigned group = __match_any_sync(active, slot);
    int leader = __ffs(group) - 1;
    if (lane == leader) {
        word_t size = (word_t)__popc(group);
        atomicAdd(slots + DC_SLOT_PENDING(slot), (word_t)0 - size);
        atomicAdd(control + DC_TOTAL, (word_t)0 - size);
    }
}

// The solve: every warp takes entries of the current bucket, 32 at a time, and each lane relaxes its entry's vertex
// and the chain that follows from it; launched with every block resident or not (no warp waits on a warp that has
// not started: an entry is only waited for by the warp that took it, after its pusher reserved it).
extern "C" __global__ void dc_solve(const offset_t* __restrict__ row_offsets, const vertex_t* __restrict__ column_ids,
                                    const weight_t* __restrict__ weights, int unit_weights, dist_t* dist,
                                    word_t* cells, word_t* control, word_t* slots, word_t* words, long long cap,
                                    long long guard, int slot_count, long long delta, int chain,
                                    long long timeout_cycles, int count_relaxations) {
    int lane = threadIdx.x & 31;
    bool have = false;        // this lane holds an entry (or a chain's next hop)
    vertex_t v = 0;
    unsigned expect = 0u;     // the low 32 bits of the distance v is to be relaxed at
    int item_slot = 0;        // the slot its entry was taken from (where it counts)
    int chain_left = 0;
    unsigned long long pops = 0, stale = 0, relaxed = 0, chained = 0, pushes = 0, attempts = 0, improved = 0;
    unsigned long long buckets = 0, idle_polls = 0;
    long long idle_since = clock64();
    unsigned backoff = 0;
    while (true) {
        unsigned idle = __ballot_sync(DC_FULL, !have);
        if (idle == DC_FULL) {
            // state 0: took k entries at head of slot; 1: nothing to take now; 2: the solve ended or aborted
            int state = 1, slot = 0;
            unsigned head = 0u, k = 0u;
            if (lane == 0) {
                if (dc_load(control + DC_DONE) != 0ULL || dc_load(control + DC_ABORT) != 0ULL) {
                    state = 2;
                } else {
                    word_t cur = dc_load(control + DC_CUR);
                    slot = (int)(cur % (word_t)slot_count);
                    word_t packed = dc_load(slots + DC_SLOT_WORD(slot));
                    unsigned h = (unsigned)(packed >> 32), t = (unsigned)packed;
                    if (t != h) {
                        unsigned take = min(t - h, 32u);
                        if (atomicCAS(slots + DC_SLOT_WORD(slot), packed, packed + ((word_t)take << 32)) == packed) {
                            state = 0;
                            head = h;
                            k = take;
                        }
                    } else if (dc_load(slots + DC_SLOT_PENDING(slot)) == 0ULL) {
                        // bucket cur is finished: end the solve if nothing is left anywhere, else move cur on
                        if (dc_load(control + DC_TOTAL) == 0ULL) {
                            atomicExch(control + DC_DONE, 1ULL);
                            state = 2;
                        } else if (atomicCAS(control + DC_CUR, cur, cur + 1ULL) == cur) {
                            ++buckets;
                        }
                    } else {
                        ++idle_polls;
                    }
                }
            }
            state = __shfl_sync(DC_FULL, state, 0);
            if (state == 2) break;
            if (state == 1) {
                if (lane == 0 && clock64() - idle_since > timeout_cycles) dc_abort(control, 2ULL);
                backoff = backoff ? min(backoff * 2u, 256u) : 16u;
                __nanosleep(backoff);
                continue;
            }
            backoff = 0;
            idle_since = clock64();
            slot = __shfl_sync(DC_FULL, slot, 0);
            head = __shfl_sync(DC_FULL, head, 0);
            k = __shfl_sync(DC_FULL, k, 0);
            if ((unsigned)lane < k) {
                word_t* cell = cells + (long long)slot * cap + (long long)((head + lane) % (unsigned long long)cap);
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
                    v = (vertex_t)(unsigned)entry;
                    expect = (unsigned)(entry >> 32);
                    item_slot = slot;
                    chain_left = chain;
                    ++pops;
                }
            }
            continue;
        }
        if (!have) continue;  // idle lanes wait for the warp's busy ones (the warp takes work when all are idle)
        dist_t d = dc_load_dist(dist + v);
        offset_t begin = row_offsets[v], end = row_offsets[v + 1];
        if ((unsigned)d != expect) {  // lowered again since: its new owner relaxes it
            ++stale;
            have = false;
            dc_finish(item_slot, control, slots);
            continue;
        }
        ++relaxed;
        long long bucket = d / delta;
        vertex_t next = -1;
        dist_t next_d = 0;
        for (offset_t e = begin; e < end; ++e) {
            vertex_t u = column_ids[e];
            dist_t candidate = d + arc_weight(weights, unit_weights, e);
            ++attempts;
            if (candidate >= dist[u]) continue;  // a stale read is only ever too high
            dist_t old = atomicMin(dist + u, candidate);
            if (candidate >= old) continue;
            ++improved;
            if (next < 0 && chain_left > 0 && candidate / delta == bucket) {
                next = u;
                next_d = candidate;
            } else {
                dc_push(u, candidate, delta, slot_count, cap, guard, cells, control, slots, pushes);
            }
        }
        if (next >= 0) {
            v = next;
            expect = (unsigned)next_d;
            --chain_left;
            ++chained;
        } else {
            have = false;
            dc_finish(item_slot, control, slots);
        }
    }
    // the warp's counts
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
        if (count_relaxations) add_counts(words, attempts, improved);
        word_t reason = dc_load(control + DC_ABORT);
        if (reason) words[DC_ABORTED] = reason;
    }
}
