// delta-stepping-async: asynchronous delta-stepping in the spirit of Wang, Fussell and Lin's ADDS (PPoPP'21):
// persistent warps pull work from a device work queue organised by bucket, and no grid-wide barrier separates the
// buckets. ADDS's work efficiency is not reached (delta_stepping_async.py's docstring has the pops per vertex).
//
// The work queue: AS_SLOTS ring slots, slot s holding the entries of bucket labels congruent to s; a label is
// distance / delta. Each slot is a ring of `cap` 64-bit entries with monotonic head and tail counters (kept across
// solves: every solve consumes all it pushed); an entry is (lap parity << 63 | label << 32 | vertex), the parity of
// its lap (index / cap) telling a reader whether the cell already holds the entry it claimed or an older one.
//
// A worker warp: lane 0 reads base (the lowest label that may hold work) and takes up to 32 entries from the first
// non-empty slot among labels base .. base + lookahead - 1 (the slot's busy count raised first, then a CAS on its
// head, a few tries per slot); finding the slot of label base empty and no warp still working on its entries (busy),
// and its tail unchanged when read again after busy, it moves base on by one (CAS). Busy is raised before the head
// moves, so that taken entries are never uncounted: the other order let base pass a batch just taken, and on through
// every label to the next busy slot. The tail is read again because a warp may push into the slot and release it
// between the first reads and the busy read (the CPU model of the queue found it, in ring-only mode).
// Each lane then waits for its cell's entry, and claims the vertex with a CAS of qb[v] (the label of v's live entry)
// from the entry's label to NONE: a vertex pushed again since, to a lower label, has another live entry, and this
// one is stale (skipped). The claim is followed by a fence and the distance read, and a pusher's distance atomicMin
// is followed by a fence and its qb atomicMin: either the claim comes first and the pusher sees NONE and pushes
// again, or the claimer reads the lowered distance. So no improvement is lost.
// An improvement of v to distance d pushes (v, label) when the label, max(d / delta, base as last read), is below
// qb[v] (atomicMin): at most one unconsumed entry per vertex and label. A label below base (a base read before it
// moved) is raised to base so that it lands in the window. Pushes are warp-aggregated per slot: lanes are grouped by
// target slot (match_any), each group's first lane reserves the group's cells with one atomicAdd on the tail.
//
// The window: every pushed label is below base + AS_SLOTS, since a taken label is below base + lookahead and a
// push adds at most floor(max weight / delta) + 1 (the host raises delta until floor(max weight / delta) <=
// AS_SLOTS - 1 - lookahead), so a slot holds one label at a time but for the rare entry of a label pushed after
// base had already moved past it; such an entry is still claimed by its own label (the claim never looks at the
// slot), only later. A slot thus holds at most about one entry per vertex (cap = n plus every thread's claimed,
// unread cell and a margin); a reservation that would overrun that is detected (AS_ABORT = 1) and the solve fails
// loudly rather than corrupting a cell.
//
// The local queue (local_queue on): an improvement whose label is at most the label of the batch being relaxed (the
// bucket the warp is working on) is kept by the warp itself, in a 32-entry queue in shared memory, and becomes its
// next batch, instead of going through a ring: a chain of improvements inside one bucket (a road's light phases)
// costs a few dependent memory accesses per hop, not a push, a scan, a claim and a wait. A kept item is not
// recorded in qb; it is relaxed only if the vertex's distance is still the one it was kept with (otherwise whoever
// lowered it pushed or kept it in turn). When the local queue is full, the improvement goes to its ring as usual.
// The ring batch's entries stay counted in their slot's busy until the warp's local queue is empty: base cannot
// move past a bucket while a warp still follows a chain inside it. Released at the first batch instead, the next
// buckets were taken while the chains still lowered distances below them, and every vertex was relaxed 11 to 30
// times (USA-road-d.NY and a 512 x 512 grid on an H100, at every delta and lookahead tried).
//
// Termination: `pending` counts entries pushed (or kept) and not yet processed; a warp adds its pushes before
// writing them and subtracts the entries it took after relaxing them (and after their pushes). It is 0 exactly when
// every queue is empty and no warp holds work, and then nothing can push again: a warp finding no work and pending
// 0 exits.
// Every wait (for a cell's entry, for work) is bounded: past timeout_cycles a warp sets AS_ABORT = 2 and all exit.
//
// Memory written by other warps during the launch (distances, qb, cells, counters) is read through L2 (__ldcg or
// volatile); the distance pre-check before an atomicMin may see a stale value, only ever too high.
#include "common.cuh"
#include "warp_relax.cuh"

#define AS_BLOCK 256
#define AS_WARPS (AS_BLOCK / 32)
#define AS_LOCAL 32       // a warp's local queue: one batch
#define AS_FULL 0xffffffffu
#define AS_SLOTS 64
#define AS_NONE 0xffffffffu
#define AS_LINE 16        // words per 128-byte line: each hot counter on a line of its own

// control[] (word_t), one 128-byte line each
#define AS_BASE 0         // the lowest label that may hold work
#define AS_PENDING 16     // entries pushed and not yet processed
#define AS_ABORT 32       // 1: a slot would overflow; 2: a warp waited past the timeout
#define AS_CONTROL_WORDS 48
// slots[] (word_t): slot s's head, tail and busy (entries taken and not yet processed) on line s
#define AS_HEAD(s) ((s) * AS_LINE)
#define AS_TAIL(s) ((s) * AS_LINE + 1)
#define AS_BUSY(s) ((s) * AS_LINE + 2)
#define AS_SLOT_WORDS (AS_SLOTS * AS_LINE)
// words[] (the status words read back once per solve): common.cuh's, then these
#define AS_POPS 8         // entries taken
#define AS_STALE 9        // entries skipped (their vertex had a live entry of a lower label)
#define AS_PUSHES 10
#define AS_LABELS 11      // the highest label taken, plus one
#define AS_ABORTED 12     // the abort reason, copied from control[AS_ABORT]
#define AS_KEPT 13        // improvements a warp kept in its local queue
#define AS_WORDS 16

__device__ __forceinline__ word_t load_volatile(const word_t* p) { return *(const volatile word_t*)p; }

__device__ __forceinline__ word_t lap_bit(word_t index, long long cap) {
    return (((index / (word_t)cap) & 1ULL) ^ 1ULL) << 63;  // lap 0 writes 1: a zeroed ring holds no entry
}

__device__ __forceinline__ unsigned long long warp_sum(unsigned long long value) {
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) value += __shfl_xor_sync(AS_FULL, value, offset);
    return value;
}

// Sets the abort reason (the first one wins).
__device__ __forceinline__ void abort_solve(word_t* control, word_t reason) {
    atomicCAS(control + AS_ABORT, 0ULL, reason);
}

struct Worker {
    dist_t* dist;
    unsigned* qb;
    word_t* cells;
    word_t* control;
    word_t* slots;
    long long cap, guard, delta;
    word_t base;  // the base read when the batch was taken: pushed labels are raised to it
    word_t label;  // the label of the batch being relaxed: improvements up to it may stay in the warp
    bool local;    // local_queue
    vertex_t* local_v;  // this warp's local queue (shared memory) and its length (warp-uniform)
    dist_t* local_d;
    int local_count;
    unsigned long long attempts, improved, pushes, kept;
};

// Pushes (v, label) for the lanes with `push`: pending first (with `kept` items the warp keeps), then per target
// slot one reservation and the cells. All 32 lanes call.
__device__ __forceinline__ void warp_enqueue(bool push, vertex_t v, word_t label, int kept, Worker& w) {
    unsigned pushers = __ballot_sync(AS_FULL, push);
    if (pushers == 0u && kept == 0) return;
    int lane = threadIdx.x & 31;
    if (lane == 0) {
        atomicAdd(w.control + AS_PENDING, (word_t)(__popc(pushers) + kept));
        __threadfence();  // counted before any of the entries can be seen, taken and subtracted
    }
    __syncwarp();
    if (pushers == 0u) return;
    int slot = push ? (int)(label % AS_SLOTS) : -1;
    unsigned group = __match_any_sync(AS_FULL, slot);
    int first = __ffs(group) - 1;
    word_t size = (word_t)__popc(group);
    word_t start = 0ULL;
    bool overflow = false;
    if (push && lane == first) {
        start = atomicAdd(w.slots + AS_TAIL(slot), size);
        // every cell up to start + size must have been read: the ones not yet taken plus at most `guard` taken
        // but unread (one per thread of the grid)
        overflow = (long long)(start + size - load_volatile(w.slots + AS_HEAD(slot))) > w.cap - w.guard;
    }
    start = __shfl_sync(AS_FULL, start, first);
    overflow = __shfl_sync(AS_FULL, overflow, first);
    if (push) {
        if (overflow) {
            abort_solve(w.control, 1ULL);
        } else {
            word_t index = start + (word_t)__popc(group & ((1u << lane) - 1u));
            word_t entry = lap_bit(index, w.cap) | (label << 32) | (word_t)(unsigned)v;
            __stcg(w.cells + (long long)slot * w.cap + (long long)(index % (word_t)w.cap), entry);
            ++w.pushes;
        }
    }
}

// One arc per lane (lanes with `on`). All 32 lanes call.
__device__ __forceinline__ void relax_arc(bool on, offset_t e, dist_t du, const vertex_t* __restrict__ column_ids,
                                         const weight_t* __restrict__ weights, int unit_weights, Worker& w) {
    vertex_t v;
    dist_t candidate;
    bool improved = try_relax_arc(on, e, du, column_ids, weights, unit_weights, w.dist, &w.attempts, &v,
                                  &candidate);
    if (!__any_sync(AS_FULL, improved)) return;
    word_t label = improved ? (word_t)(candidate / w.delta) : 0ULL;
    // in the batch's bucket (or below): kept by the warp while its local queue has room
    bool near = improved && w.local && label <= w.label;
    unsigned nears = __ballot_sync(AS_FULL, near);
    int lane = threadIdx.x & 31;
    int slot = w.local_count + __popc(nears & ((1u << lane) - 1u));
    bool keep = near && slot < AS_LOCAL;
    if (keep) {
        w.local_v[slot] = v;
        w.local_d[slot] = candidate;
        ++w.kept;
    }
    int kept = min(__popc(nears), AS_LOCAL - w.local_count);
    w.local_count += kept;
    if (improved) ++w.improved;
    bool to_ring = improved && !keep;
    if (__any_sync(AS_FULL, to_ring)) __threadfence();  // the distance before qb: see the claim's fence
    if (label < w.base) label = w.base;
    bool push = to_ring && atomicMin(&w.qb[v], (unsigned)label) > (unsigned)label;
    warp_enqueue(push, v, label, kept, w);
}

// The arcs [begin, end) of each lane's vertex (valid lanes), through relax_arc (warp_relax.cuh's mapping). All 32
// lanes call.
__device__ __forceinline__ void relax_vertices(bool valid, dist_t du, offset_t begin, offset_t end,
                                               long long heavy_degree, const vertex_t* __restrict__ column_ids,
                                               const weight_t* __restrict__ weights, int unit_weights, Worker& w) {
    auto visit = [&](bool on, offset_t e, dist_t d) { relax_arc(on, e, d, column_ids, weights, unit_weights, w); };
    relax_warp_vertices(valid, du, begin, end, heavy_degree, visit);
}

// Per solve: distances, qb, the control and status words; the source's entry pushed at label 0 (slot 0). The rings'
// head, tail and cells carry over from the last solve, which consumed everything it pushed.
extern "C" __global__ void delta_async_init(dist_t* dist, unsigned* qb, word_t* cells, word_t* control,
                                            word_t* slots, word_t* words, long long n, long long source,
                                            long long cap) {
    long long stride = (long long)gridDim.x * blockDim.x;
    for (long long v = (long long)blockIdx.x * blockDim.x + threadIdx.x; v < n; v += stride) {
        dist[v] = v == source ? 0LL : DIST_INF;
        qb[v] = v == source ? 0u : AS_NONE;
    }
    if (blockIdx.x == 0 && threadIdx.x < AS_CONTROL_WORDS) {
        control[threadIdx.x] = threadIdx.x == AS_PENDING ? 1ULL : 0ULL;  // the source's entry is pending
    }
    if (blockIdx.x == 0 && threadIdx.x < AS_WORDS) words[threadIdx.x] = 0ULL;
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        word_t index = slots[AS_TAIL(0)];
        cells[index % (word_t)cap] = lap_bit(index, cap) | (word_t)(unsigned)source;  // label 0, slot 0
        slots[AS_TAIL(0)] = index + 1ULL;
    }
}

extern "C" __global__ void __launch_bounds__(AS_BLOCK)
delta_async_solve(const offset_t* __restrict__ row_offsets, const vertex_t* __restrict__ column_ids,
                  const weight_t* __restrict__ weights, int unit_weights, dist_t* dist, unsigned* qb, word_t* cells,
                  word_t* control, word_t* slots, word_t* words, long long cap, long long guard, long long delta,
                  int lookahead, long long heavy_degree, long long timeout_cycles, int local_queue,
                  int count_relaxations) {
    __shared__ vertex_t s_local_v[AS_WARPS][AS_LOCAL];
    __shared__ dist_t s_local_d[AS_WARPS][AS_LOCAL];
    const int lane = threadIdx.x & 31;
    Worker w;
    w.dist = dist;
    w.qb = qb;
    w.cells = cells;
    w.control = control;
    w.slots = slots;
    w.cap = cap;
    w.guard = guard;
    w.delta = delta;
    w.label = 0ULL;
    w.local = local_queue != 0;
    w.local_v = s_local_v[threadIdx.x >> 5];
    w.local_d = s_local_d[threadIdx.x >> 5];
    w.local_count = 0;
    w.attempts = w.improved = w.pushes = w.kept = 0ULL;
    unsigned long long pops = 0, stale = 0;
    word_t labels = 0;
    long long idle_since = -1;  // lane 0's
    int held_slot = -1;         // lane 0's: the slot of the ring batch whose local chain the warp is following
    word_t held = 0ULL;         // and the entries it took from it, still counted in the slot's busy
    unsigned backoff = 32;
    for (;;) {
        bool valid = false, live = false;
        vertex_t u = 0;
        dist_t du = 0;
        offset_t begin = 0, end = 0;
        int taken = 0, slot = -1;  // slot -1: a local batch
        if (w.local_count > 0) {  // the warp's own items first: the bucket it is working on
            __syncwarp();  // the items written by other lanes of the warp
            taken = w.local_count;
            valid = lane < taken;
            if (valid) {
                u = w.local_v[lane];
                du = w.local_d[lane];
            }
            __syncwarp();  // read before the next items are written
            w.local_count = 0;
            if (valid) {
                begin = row_offsets[u];  // independent of the check below: both loads in flight at once
                end = row_offsets[u + 1];
                live = __ldcg(dist + u) == du;  // lowered since: the one who lowered it relaxes it
                stale += live ? 0 : 1;
            }
        } else {
            // lane 0 looks for work: up to 32 entries of the lowest non-empty slot in the window
            int action = 0;  // 1: exit
            word_t head = 0, label = 0;
            if (lane == 0) {
                if (load_volatile(control + AS_ABORT) != 0ULL) {
                    action = 1;
                } else {
                    word_t base = load_volatile(control + AS_BASE);
                    for (int j = 0; j < lookahead && taken == 0; ++j) {
                        word_t at = base + (word_t)j;
                        int s = (int)(at % AS_SLOTS);
                        for (int attempt = 0; attempt < 4; ++attempt) {  // a failed CAS: another warp took some
                            word_t h = load_volatile(slots + AS_HEAD(s));
                            word_t t = load_volatile(slots + AS_TAIL(s));
                            if (h >= t) {
                                if (j == 0) {
                                    __threadfence();  // head and tail before busy: see the taker's order below
                                    if (load_volatile(slots + AS_BUSY(s)) == 0ULL) {
                                        // the tail again: a warp may have pushed here and released its batch
                                        // between the reads above (the pusher's tail is fenced before its release)
                                        __threadfence();
                                        if (load_volatile(slots + AS_TAIL(s)) == t) {
                                            atomicCAS(control + AS_BASE, base, base + 1ULL);  // label base is done
                                        }
                                    }
                                }
                                break;
                            }
                            word_t k = t - h < 32ULL ? t - h : 32ULL;
                            // busy before the head (see above)
                            atomicAdd(slots + AS_BUSY(s), k);
                            __threadfence();
                            if (atomicCAS(slots + AS_HEAD(s), h, h + k) != h) {
                                atomicAdd(slots + AS_BUSY(s), (word_t)0 - k);
                            } else {
                                slot = s;
                                head = h;
                                label = at;
                                taken = (int)k;
                                if (at + 1ULL > labels) labels = at + 1ULL;
                                break;
                            }
                        }
                    }
                    if (taken == 0) {
                        if (load_volatile(control + AS_PENDING) == 0ULL) {
                            action = 1;  // every queue empty and no warp holds work: done
                        } else {
                            long long now = clock64();
                            if (idle_since < 0) idle_since = now;
                            if (now - idle_since > timeout_cycles) {
                                abort_solve(control, 2ULL);
                                action = 1;
                            }
                        }
                    } else {
                        idle_since = -1;
                    }
                }
            }
            if (__shfl_sync(AS_FULL, action, 0) == 1) break;
            taken = __shfl_sync(AS_FULL, taken, 0);
            if (taken == 0) {  // nothing in the window yet while others work: wait a little
                __nanosleep(backoff);
                backoff = backoff < 2048u ? backoff * 2u : 2048u;
                continue;
            }
            backoff = 32;
            slot = __shfl_sync(AS_FULL, slot, 0);
            head = __shfl_sync(AS_FULL, head, 0);
            w.label = __shfl_sync(AS_FULL, label, 0);
            // each lane its entry: wait until the pusher that reserved the cell has written it
            valid = lane < taken;
            if (valid) {
                word_t index = head + (word_t)lane;
                const word_t* cell = cells + (long long)slot * cap + (long long)(index % (word_t)cap);
                word_t want = lap_bit(index, cap);
                word_t entry = load_volatile(cell);
                long long waiting_since = clock64();
                while ((entry & (1ULL << 63)) != want) {
                    if (clock64() - waiting_since > timeout_cycles || load_volatile(control + AS_ABORT) != 0ULL) {
                        abort_solve(control, 2ULL);
                        valid = false;
                        break;
                    }
                    __nanosleep(32);
                    entry = load_volatile(cell);
                }
                if (valid) {
                    u = (vertex_t)(entry & 0xffffffffULL);
                    unsigned at = (unsigned)((entry >> 32) & 0x7fffffffULL);
                    begin = row_offsets[u];  // in flight during the claim
                    end = row_offsets[u + 1];
                    live = atomicCAS(&qb[u], at, AS_NONE) == at;
                    stale += live ? 0 : 1;
                }
            }
            __threadfence();  // the claim before the distance: see the pusher's fence
            du = live ? __ldcg(dist + u) : 0;
        }
        w.base = __shfl_sync(AS_FULL, load_volatile(control + AS_BASE), 0);
        relax_vertices(live, du, live ? begin : 0, live ? end : 0, heavy_degree, column_ids, weights, unit_weights,
                       w);
        __syncwarp();
        if (lane == 0) {  // after this batch's pushes and kept items were counted (by this lane, on the same word)
            pops += (unsigned long long)taken;
            if (slot >= 0) {  // a ring batch: its bucket stays busy until the chain it started in the warp is done
                held_slot = slot;
                held = (word_t)taken;
            }
            if (w.local_count == 0 && held_slot >= 0) {
                __threadfence();  // the batch's pushes (their tails) before its bucket stops being busy
                atomicAdd(slots + AS_BUSY(held_slot), (word_t)0 - held);
                held_slot = -1;
                held = 0ULL;
            }
            atomicAdd(control + AS_PENDING, (word_t)0 - (word_t)taken);
        }
    }
    // the warp's counts
    unsigned long long pushes = warp_sum(w.pushes), stale_all = warp_sum(stale), kept = warp_sum(w.kept);
    unsigned long long attempts = warp_sum(w.attempts), improved = warp_sum(w.improved);
    if (lane == 0) {
        if (pops) atomicAdd(words + AS_POPS, pops);
        if (stale_all) atomicAdd(words + AS_STALE, stale_all);
        if (pushes) atomicAdd(words + AS_PUSHES, pushes);
        if (kept) atomicAdd(words + AS_KEPT, kept);
        if (labels) atomicMax(words + AS_LABELS, labels);
        if (count_relaxations) add_counts(words, attempts, improved);
        word_t reason = load_volatile(control + AS_ABORT);
        if (reason) words[AS_ABORTED] = reason;
    }
}

// After an aborted solve: empty rings (counters and cells) for the next one.
extern "C" __global__ void delta_async_reset(word_t* cells, word_t* slots, long long cells_total) {
    long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < cells_total; i += stride) cells[i] = 0ULL;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < AS_SLOT_WORDS; i += stride) {
        slots[i] = 0ULL;
    }
}
