// H-BF: Busato and Bombieri's frontier Bellman-Ford for Kepler (hbf-bellman-ford-kepler, sections 4 and 5).
//
// One kernel per frontier propagation step (Algorithm 3): the frontier's vertices are dequeued, each one's
// out-arcs relaxed, and improved vertices enqueued into the next frontier. Every optimization is a bit of
// `flags`, uniform over the launch:
//   HBF_CLASSIFY   edge classification (section 4.1, Algorithm 4): the top two bits of each column id carry the
//                  arc's class (marked in prepare): self-loops and arcs into out-degree-0 vertices are skipped
//                  (the sinks are settled at the end by hbf_settle_sinks), arcs into in-degree-1 vertices are
//                  stored without an atomic. The source's arcs are handled by hbf_source in the first
//                  iteration with direct stores (unless the source has parallel arcs, which would race).
//   HBF_DEDUP      duplicate removal (section 4.2, Algorithms 5 and 6): distance and iteration number share one
//                  64-bit word (see "Packing" below) updated by ONE atomicMin; a vertex is enqueued only when the
//                  word it replaced carried another iteration, so a frontier holds each vertex at most once.
//                  Without it, distances are plain int64 and every improvement enqueues (duplicates allowed).
//   HBF_COALESCE   coalesced enqueue (section 5.1): lanes collect pushes in a small register queue, a warp-shuffle
//                  prefix sum places them in the warp's slot in shared memory, and a full slot goes to the global
//                  frontier with one atomicAdd per warp and consecutive stores. Without it: one atomicAdd per push.
//   HBF_HINTS      cache modifiers (section 5.1): frontier and row offsets by streaming loads (__ldcs), arcs and
//                  weights through the read-only path (__ldg), distances from L2 only (__ldcg). Without: plain loads.
//   HBF_DP_COOP    heavy vertices (degree > tdp, section 5.3) are not expanded by their virtual warp but listed,
//                  and hbf_heavy, launched right after, spreads each listed vertex's arcs over the whole grid.
//   HBF_DP_CHILD   heavy vertices get a child kernel (CUDA dynamic parallelism, compiled only with HBF_CDP and
//                  -rdc=true); the parent never waits for it (no device-side synchronisation on CDP2): the
//                  children relax and enqueue, and the stream's next kernel starts after them.
//   HBF_COUNT      relax attempts and improvements into the status words.
//   HBF_VWARPS     dynamic virtual warps (section 5.2): each iteration kernel sizes them on the device from the
//                  frontier size in the status words: lanes of 2^vw_shift threads (vw_shift = log2 of the previous
//                  power of two of resident threads / frontier size, clamped to [2, 5]), each taking runs of
//                  `per_vw` consecutive frontier entries over a grid-stride loop. Without: one thread per entry.
//   HBF_BLOCKX     block expansion (ours, for Hopper; it takes precedence over HBF_VWARPS): a block takes a chunk
//                  of consecutive frontier entries (the frontier spread over the whole grid, at most HBF_BLOCK
//                  each), scans their degrees in shared memory and deals the chunk's arcs to its threads in
//                  order, a thread finding its entry by binary search, so no lane idles on a short list and the
//                  column reads are coalesced across entries (the load balance of the Workfront Sweep's advance,
//                  within a block, without carrying degree prefix sums in the frontier).
// The grid expansion (ours, for Hopper) is not a flag but its own kernels, hbf_grid_*: see "grid expansion" below.
//
// Iterations are driven from the device: iteration i = words[HBF_BASE] + the kernel's round argument, its input
// frontier is frontiers[i % 2] with words[HBF_QUEUE0 + i % 3] entries, its output frontiers[(i + 1) % 2] counted
// in words[HBF_QUEUE0 + (i + 1) % 3]; it zeroes words[HBF_QUEUE0 + (i + 2) % 3] (iteration i - 1's input, which
// iteration i + 1 fills). So the host can launch iterations in batches without reading sizes back (CUDA graphs
// captured once, replayed in batches of 16 to 64 iterations, each ending with hbf_bump_base); iterations after
// the frontier emptied do nothing. An iteration number reaching the cap (n) with a non-empty frontier sets
// HBF_CAPPED instead of running (a reachable negative cycle; it also keeps the packed tags below all-ones).
//
// Packing (HBF_DEDUP): word = (distance - low) << tag_bits | iteration, unsigned. tag_bits (<= 31) holds every
// iteration index 0..n-1 and the all-ones "never enqueued" tag; the 64 - tag_bits high bits hold the distance
// biased by `low`, a lower bound of every simple path's length (the host derives it from the negative weights),
// with all ones meaning unreached. Without a negative cycle every tentative distance is the length of a simple
// path, so it lies in [low, high] and the host checks high - low fits; a candidate below `low` therefore proves
// a reachable negative cycle (W_FLOOR is set and the candidate clamped), and a candidate above the field is never
// an improvement. Order of words = order of distances, ties broken by the smaller iteration, so atomicMin keeps
// the smallest distance and the returned old word tells whether this iteration already enqueued the vertex.
//
// Status words (24): common.cuh's 0..7 (W_FLOOR, W_ATTEMPTS, W_RELAXATIONS), the three rotating frontier
// counters, the heavy-list and child counters by iteration parity (iteration i zeroes the pair i - 1 used), the
// overflow flag, the iteration base, the count of iterations with a non-empty frontier, the cap flag, and the block
// expansion's three rotating chunk counters (iteration i zeroes the one i - 1 used).
#include "advance.cuh"  // common.cuh, and the grid expansion's packed queues and load-balanced advance

#define HBF_BLOCK 256
#define HBF_WARPS (HBF_BLOCK / 32)
#ifndef HBF_CHUNK_ENTRIES
#define HBF_CHUNK_ENTRIES HBF_BLOCK  // HBF_BLOCKX: the most frontier entries a block claims at a time (chunk_entries)
#endif
static_assert(HBF_CHUNK_ENTRIES >= 32 && HBF_CHUNK_ENTRIES <= HBF_BLOCK, "a chunk is 32 to HBF_BLOCK entries");
#define HBF_LOCAL 4       // register queue per lane (coalesced enqueue)
#define HBF_SLOT 256      // shared-memory slot per warp, in vertices (>= 32 * HBF_LOCAL)
#define HBF_FULL 0xffffffffu
#ifndef HBF_MIN_BLOCKS
#define HBF_MIN_BLOCKS 1   // hbf_iteration's __launch_bounds__ minimum blocks per SM (see hbf.py)
#endif

#define HBF_CLASSIFY 1
#define HBF_DEDUP 2
#define HBF_COALESCE 4
#define HBF_HINTS 8
#define HBF_DP_COOP 16
#define HBF_DP_CHILD 32
#define HBF_COUNT 64
#define HBF_VWARPS 128
#define HBF_BLOCKX 256

#define HBF_CLASS_SHIFT 30
#define HBF_ID_MASK 0x3fffffff
#define HBF_NORMAL 0u     // relax with atomicMin
#define HBF_IN1 1u        // the target has in-degree 1: only this arc writes it, a plain store
#define HBF_SINK 2u       // the target has out-degree 0: settled by hbf_settle_sinks
#define HBF_LOOP 3u       // a self-loop of weight >= 0: never improves anything

#define HBF_QUEUE0 8       // 8, 9, 10: frontier sizes, by iteration % 3
#define HBF_HEAVY0 11      // 11, 12: heavy-list sizes, by iteration % 2
#define HBF_OVERFLOW 13
#define HBF_CHILD0 14      // 14, 15: child launches, by iteration % 2
#define HBF_BASE 16        // added to every iteration kernel's round argument
#define HBF_ROUNDS 17      // iterations with a non-empty frontier (the source's included)
#define HBF_CAPPED 18      // an iteration numbered n found a non-empty frontier
#define HBF_CHUNK0 19      // 19, 20, 21: HBF_BLOCKX's next chunk to claim, by iteration % 3
#define HBF_WORDS 24

__device__ __forceinline__ long long hbf_min(long long a, long long b) { return a < b ? a : b; }

// Everything a relaxation needs, uniform over a launch: the arguments every kernel of an iteration shares (in this
// order, ahead of its own), and the iteration.
struct HbfContext {
    const offset_t* row_offsets;
    const vertex_t* columns;  // marked column ids with HBF_CLASSIFY, the plain ones otherwise
    const weight_t* weights;
    int unit_weights;
    word_t* info;             // packed words with HBF_DEDUP, int64 distances otherwise
    long long capacity;       // entries of each frontier half (frontiers + h x capacity)
    word_t* words;
    int flags;
    int iteration;
    int tag_bits;
    long long low;
};

// --- loads with and without the paper's cache modifiers ---------------------------------------------------------

__device__ __forceinline__ offset_t hbf_offset(const HbfContext& c, vertex_t u) {
    return (c.flags & HBF_HINTS) ? __ldcs(c.row_offsets + u) : c.row_offsets[u];
}

__device__ __forceinline__ vertex_t hbf_frontier_entry(const vertex_t* frontier, long long i, int flags) {
    return (flags & HBF_HINTS) ? __ldcs(frontier + i) : frontier[i];
}

__device__ __forceinline__ vertex_t hbf_column(const HbfContext& c, offset_t e) {
    return (c.flags & HBF_HINTS) ? __ldg(c.columns + e) : c.columns[e];
}

__device__ __forceinline__ dist_t hbf_weight(const HbfContext& c, offset_t e) {
    if (c.unit_weights) return 1LL;
    return (dist_t)((c.flags & HBF_HINTS) ? __ldg(c.weights + e) : c.weights[e]);
}

__device__ __forceinline__ word_t hbf_word(const HbfContext& c, vertex_t v) {
    return (c.flags & HBF_HINTS) ? __ldcg(c.info + v) : c.info[v];
}

__device__ __forceinline__ word_t hbf_tag_mask(int tag_bits) { return (1ULL << tag_bits) - 1ULL; }
__device__ __forceinline__ word_t hbf_inf_field(int tag_bits) { return ~0ULL >> tag_bits; }

// The distance of a packed word or an int64 distance (DIST_INF when unreached).
__device__ __forceinline__ dist_t hbf_unpacked(const HbfContext& c, word_t word) {
    if (!(c.flags & HBF_DEDUP)) return (dist_t)word;
    word_t field = word >> c.tag_bits;
    return field == hbf_inf_field(c.tag_bits) ? DIST_INF : (dist_t)field + c.low;
}

// The distance of u (DIST_INF when unreached).
__device__ __forceinline__ dist_t hbf_distance(const HbfContext& c, vertex_t u) {
    return hbf_unpacked(c, hbf_word(c, u));
}

// --- the relax step (Algorithms 4 and 6) -------------------------------------------------------------------------

// Try dist(v) = du + w. `plain`: this thread is the only writer of v in this iteration (an in-degree-1 target or
// a source arc), so a plain store replaces the atomic; `fresh`: v is known to be unreached (the source's arcs
// without parallel arcs), so not even a read is needed. Returns true when v must join the next frontier;
// *improved tells whether the distance fell.
__device__ __forceinline__ bool hbf_relax(const HbfContext& c, vertex_t v, dist_t du, dist_t w, bool plain,
                                          bool fresh, bool* improved) {
    dist_t candidate = du + w;
    if (c.flags & HBF_DEDUP) {
        if (candidate < c.low) {  // below every simple path: a negative cycle
            candidate = c.low;
            c.words[W_FLOOR] = 1ULL;
        }
        word_t field = (word_t)(candidate - c.low);
        if (field >= hbf_inf_field(c.tag_bits)) return false;  // above every simple path: never an improvement
        word_t packed = (field << c.tag_bits) | (word_t)c.iteration;
        word_t old = ~0ULL;
        if (!fresh) {
            old = hbf_word(c, v);
            if (field >= (old >> c.tag_bits)) return false;
        }
        if (plain) {
            c.info[v] = packed;
        } else {
            old = atomicMin(c.info + v, packed);
            if (field >= (old >> c.tag_bits)) return false;
        }
        *improved = true;
        return (old & hbf_tag_mask(c.tag_bits)) != (word_t)c.iteration;  // Algorithm 6's test
    }
    if (candidate < DIST_FLOOR) {
        candidate = DIST_FLOOR;
        c.words[W_FLOOR] = 1ULL;
    }
    dist_t* dist = (dist_t*)c.info;
    if (!fresh && candidate >= (dist_t)hbf_word(c, v)) return false;
    if (plain) {
        dist[v] = candidate;
    } else if (candidate >= atomicMin(dist + v, candidate)) {
        return false;
    }
    *improved = true;
    return true;
}

// --- the enqueue (section 5.1) --------------------------------------------------------------------------------

struct HbfEnqueue {
    vertex_t* next;
    word_t* counter;
    long long capacity;
    word_t* words;
    vertex_t* slot;       // this warp's slot in shared memory (coalesced only)
    bool coalesced;
    int count;            // entries in this lane's register queue
    int fill;             // entries in the warp's slot (warp-uniform)
    vertex_t queue[HBF_LOCAL];

    __device__ void store(long long at, vertex_t v) {
        if (at < capacity) next[at] = v;
        else words[HBF_OVERFLOW] = 1ULL;  // only possible without dedup64; the host reports it
    }

    // Warp-collective: a full slot to the global frontier, one atomicAdd, consecutive (coalesced) stores.
    __device__ void flush() {
        __syncwarp();
        if (fill == 0) return;
        int lane = threadIdx.x & 31;
        unsigned long long base = 0ULL;
        if (lane == 0) base = atomicAdd(counter, (unsigned long long)fill);
        base = __shfl_sync(HBF_FULL, base, 0);
        for (int j = lane; j < fill; j += 32) store((long long)base + j, slot[j]);
        __syncwarp();
        fill = 0;
    }

    // Warp-collective: every lane's register queue to the slot, at offsets from a warp-shuffle prefix sum.
    __device__ void drain() {
        int scan = warp_inclusive_sum(count);
        int total = __shfl_sync(HBF_FULL, scan, 31);
        if (fill + total > HBF_SLOT) flush();
        int at = fill + scan - count;
#pragma unroll
        for (int j = 0; j < HBF_LOCAL; ++j) {
            if (j < count) slot[at + j] = queue[j];
        }
        fill += total;
        count = 0;
        __syncwarp();
    }

    // Warp-collective when coalesced (every lane calls it, `want` or not).
    __device__ void push(bool want, vertex_t v) {
        if (!coalesced) {
            if (want) store((long long)atomicAdd(counter, 1ULL), v);
            return;
        }
        if (want) {
#pragma unroll
            for (int j = 0; j < HBF_LOCAL; ++j) {  // unrolled so the queue stays in registers
                if (j == count) queue[j] = v;
            }
            ++count;
        }
        if (__any_sync(HBF_FULL, count == HBF_LOCAL)) drain();
    }

    // Block-collective (every thread of the block calls it): whatever is left in the register queues and the
    // warps' slots goes to the frontier with ONE atomicAdd per block (warp 0 scans the warps' fills in `s_fill`).
    // One atomicAdd per warp here made ~8 same-address atomics per block per iteration, serialised in L2.
    __device__ void finish(word_t* s_fill) {
        if (!coalesced) return;
        drain();
        int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
        if (lane == 0) s_fill[warp] = (word_t)fill;
        __syncthreads();
        if (warp == 0) {
            word_t mine = lane < HBF_WARPS ? s_fill[lane] : 0ULL;
            word_t inclusive = warp_inclusive_sum(mine);
            word_t total = __shfl_sync(HBF_FULL, inclusive, HBF_WARPS - 1);
            word_t base = 0ULL;
            if (lane == 0 && total != 0ULL) base = atomicAdd(counter, total);
            base = __shfl_sync(HBF_FULL, base, 0);
            if (lane < HBF_WARPS) s_fill[lane] = base + inclusive - mine;
        }
        __syncthreads();
        word_t base = s_fill[warp];
        for (int j = lane; j < fill; j += 32) store((long long)base + j, slot[j]);
        fill = 0;
    }
};

__device__ __forceinline__ HbfEnqueue hbf_enqueue(vertex_t* next, word_t* counter, long long capacity,
                                                  word_t* words, int flags, vertex_t* slot) {
    HbfEnqueue out;
    out.next = next;
    out.counter = counter;
    out.capacity = capacity;
    out.words = words;
    out.slot = slot;
    out.coalesced = (flags & HBF_COALESCE) != 0;
    out.count = 0;
    out.fill = 0;
    return out;
}

// One arc e out of a vertex at distance du: its class and the relaxation. Returns true when the head (*head) must
// join the next frontier.
__device__ __forceinline__ bool hbf_arc(const HbfContext& c, offset_t e, dist_t du, bool source_arcs,
                                        bool source_fresh, vertex_t* head, unsigned long long& attempts,
                                        unsigned long long& improvements) {
    vertex_t raw = hbf_column(c, e);
    unsigned kind = HBF_NORMAL;
    vertex_t v = raw;
    if (c.flags & HBF_CLASSIFY) {
        kind = (unsigned)raw >> HBF_CLASS_SHIFT;
        v = raw & HBF_ID_MASK;
    }
    *head = v;
    if (kind >= HBF_SINK) return false;
    bool improved = false;
    bool plain = kind == HBF_IN1 || (source_arcs && source_fresh);
    bool want = hbf_relax(c, v, du, hbf_weight(c, e), plain, plain && source_arcs, &improved);
    ++attempts;
    improvements += improved ? 1ULL : 0ULL;
    return want;
}

// hbf_arc, then the push (warp-collective: every lane of the warp calls it together; `active` false for lanes
// without an arc this step).
__device__ __forceinline__ void hbf_step(const HbfContext& c, HbfEnqueue& out, bool active, offset_t e, dist_t du,
                                         bool source_arcs, bool source_fresh, unsigned long long& attempts,
                                         unsigned long long& improvements) {
    bool want = false;
    vertex_t v = 0;
    if (active) want = hbf_arc(c, e, du, source_arcs, source_fresh, &v, attempts, improvements);
    out.push(want, v);
}

// The arcs start + first, start + first + step, ... below stop of one vertex (the source, a heavy vertex or a
// child kernel's vertex), warp-uniformly. Called by every thread of the launch.
__device__ void hbf_relax_range(const HbfContext& c, HbfEnqueue& out, dist_t du, offset_t first, offset_t stop,
                                long long step, bool source_arcs, bool source_fresh,
                                unsigned long long& attempts, unsigned long long& improvements) {
    offset_t e = first;
    bool active = e < stop;
    while (__any_sync(HBF_FULL, active)) {
        hbf_step(c, out, active, e, du, source_arcs, source_fresh, attempts, improvements);
        e += step;
        active = e < stop;
    }
}

__device__ __forceinline__ HbfContext hbf_context(const offset_t* row_offsets, const vertex_t* columns,
                                                  const weight_t* weights, int unit_weights, word_t* info,
                                                  long long capacity, word_t* words, int flags, int tag_bits,
                                                  long long low, int iteration) {
    HbfContext c;
    c.row_offsets = row_offsets;
    c.columns = columns;
    c.weights = weights;
    c.unit_weights = unit_weights;
    c.info = info;
    c.capacity = capacity;
    c.words = words;
    c.flags = flags;
    c.iteration = iteration;
    c.tag_bits = tag_bits;
    c.low = low;
    return c;
}

__device__ __forceinline__ void hbf_add_counts(const HbfContext& c, unsigned long long attempts,
                                               unsigned long long improvements) {
    if (c.flags & HBF_COUNT) add_counts(c.words, attempts, improvements);
}

__device__ __forceinline__ int hbf_queue_word(int iteration) { return HBF_QUEUE0 + iteration % 3; }

// The iteration a batched kernel runs: the base word (moved on by hbf_bump_base) plus its round argument.
__device__ __forceinline__ int hbf_iteration_index(const word_t* words, int round_offset) {
    return (int)((long long)words[HBF_BASE] + round_offset);
}

// An iteration's output: frontiers[(i + 1) % 2], counted in its queue word; `slots`: the block's warp slots.
__device__ __forceinline__ HbfEnqueue hbf_output(const HbfContext& c, vertex_t* frontiers,
                                                 vertex_t (*slots)[HBF_SLOT]) {
    return hbf_enqueue(frontiers + ((c.iteration + 1) & 1) * c.capacity, &c.words[hbf_queue_word(c.iteration + 1)],
                       c.capacity, c.words, c.flags, slots[threadIdx.x >> 5]);
}

// Block-collective: the inclusive scan of `value` over the block's threads (a warp-shuffle scan, then the warps'
// totals through `s_warp_total`, HBF_WARPS words of shared memory), and the block's sum in *total. The caller puts
// a barrier before `s_warp_total` is written again.
__device__ __forceinline__ long long hbf_block_inclusive_scan(long long value, long long* s_warp_total,
                                                              long long* total) {
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    long long scan = warp_inclusive_sum(value);
    if (lane == 31) s_warp_total[warp] = scan;
    __syncthreads();
    long long sum = 0;
#pragma unroll
    for (int w = 0; w < HBF_WARPS; ++w) {
        if (w < warp) scan += s_warp_total[w];
        sum += s_warp_total[w];
    }
    *total = sum;
    return scan;
}

// --- dynamic parallelism (section 5.3) -------------------------------------------------------------------------

// A heavy vertex's arcs over a whole child grid (HBF_DP_CHILD; compiled only for the -rdc=true module).
extern "C" __global__ void __launch_bounds__(HBF_BLOCK) hbf_child(
    const offset_t* row_offsets, const vertex_t* columns, const weight_t* weights, int unit_weights, word_t* info,
    long long capacity, word_t* words, int flags, int tag_bits, long long low, vertex_t* frontiers, int iteration,
    vertex_t u) {
    __shared__ vertex_t slots[HBF_WARPS][HBF_SLOT];
    __shared__ word_t s_fill[HBF_WARPS];
    HbfContext c = hbf_context(row_offsets, columns, weights, unit_weights, info, capacity, words, flags, tag_bits,
                               low, iteration);
    HbfEnqueue out = hbf_output(c, frontiers, slots);
    offset_t start = hbf_offset(c, u), stop = hbf_offset(c, u + 1);
    dist_t du = hbf_distance(c, u);  // read now: the freshest value when the child runs
    long long step = (long long)gridDim.x * blockDim.x;
    unsigned long long attempts = 0ULL, improvements = 0ULL;
    hbf_relax_range(c, out, du, start + (long long)blockIdx.x * blockDim.x + threadIdx.x, stop, step, false, false,
                    attempts, improvements);
    out.finish(s_fill);
    hbf_add_counts(c, attempts, improvements);
}

// A heavy vertex found by a virtual warp: a child grid (up to `child_limit` per iteration), else the heavy list.
__device__ __forceinline__ void hbf_dispatch_heavy(const HbfContext& c, vertex_t* frontiers, vertex_t u,
                                                   long long degree, vertex_t* heavy, long long child_limit) {
#if defined(HBF_CDP)
    if (c.flags & HBF_DP_CHILD) {
        if ((long long)atomicAdd(&c.words[HBF_CHILD0 + (c.iteration & 1)], 1ULL) < child_limit) {
            unsigned blocks = (unsigned)hbf_min((degree + HBF_BLOCK - 1) / HBF_BLOCK, 1024LL);
            hbf_child<<<blocks, HBF_BLOCK>>>(c.row_offsets, c.columns, c.weights, c.unit_weights, c.info, c.capacity,
                                             c.words, c.flags, c.tag_bits, c.low, frontiers, c.iteration, u);
            return;
        }
    }
#endif
    heavy[atomicAdd(&c.words[HBF_HEAVY0 + (c.iteration & 1)], 1ULL)] = u;
}

// --- the kernels --------------------------------------------------------------------------------------------------

// Distances (or packed words) to unreached, the source's to 0; the status words zeroed; frontier 0 = {source};
// the iteration base and the iteration count start at `first_iteration` (1 when hbf_source runs iteration 0).
extern "C" __global__ void hbf_init(word_t* info, long long n, long long source, int flags, int tag_bits,
                                    long long low, vertex_t* frontiers, word_t* words, int first_iteration) {
    long long stride = (long long)gridDim.x * blockDim.x;
    word_t unreached = (flags & HBF_DEDUP) ? ~0ULL : (word_t)DIST_INF;
    // the source's word: distance 0, the all-ones tag of a vertex no iteration has enqueued
    word_t at_source = (flags & HBF_DEDUP) ? (((word_t)(0LL - low) << tag_bits) | hbf_tag_mask(tag_bits)) : 0ULL;
    for (long long v = (long long)blockIdx.x * blockDim.x + threadIdx.x; v < n; v += stride) {
        info[v] = v == source ? at_source : unreached;
    }
    if (blockIdx.x == 0 && threadIdx.x < HBF_WORDS) {
        word_t value = 0ULL;
        if (threadIdx.x == HBF_QUEUE0) value = 1ULL;
        if (threadIdx.x == HBF_BASE || threadIdx.x == HBF_ROUNDS) value = (word_t)first_iteration;
        words[threadIdx.x] = value;
    }
    if (blockIdx.x == 0 && threadIdx.x == 0) frontiers[0] = (vertex_t)source;
}

// Iteration 0 with edge classification: the source's arcs, written directly (section 4.1, the source class).
// `fresh`: the source has no parallel arcs, so each target is written once and is unreached before.
extern "C" __global__ void __launch_bounds__(HBF_BLOCK) hbf_source(
    const offset_t* row_offsets, const vertex_t* columns, const weight_t* weights, int unit_weights, word_t* info,
    long long capacity, word_t* words, int flags, int tag_bits, long long low, vertex_t* frontiers, vertex_t source,
    int fresh) {
    __shared__ vertex_t slots[HBF_WARPS][HBF_SLOT];
    __shared__ word_t s_fill[HBF_WARPS];
    HbfContext c = hbf_context(row_offsets, columns, weights, unit_weights, info, capacity, words, flags, tag_bits,
                               low, 0);
    HbfEnqueue out = hbf_output(c, frontiers, slots);
    offset_t start = hbf_offset(c, source), stop = hbf_offset(c, source + 1);
    long long step = (long long)gridDim.x * blockDim.x;
    unsigned long long attempts = 0ULL, improvements = 0ULL;
    hbf_relax_range(c, out, 0LL, start + (long long)blockIdx.x * blockDim.x + threadIdx.x, stop, step, true,
                    fresh != 0, attempts, improvements);
    out.finish(s_fill);
    hbf_add_counts(c, attempts, improvements);
}

// One frontier propagation step (Algorithm 3's loop body), sized on the device. With HBF_VWARPS, virtual warp k
// (2^vw_shift lanes) takes entries [k * per_vw, (k + 1) * per_vw), then k + all virtual warps of the grid, ...;
// its lanes split each entry's arcs (lane j takes arcs j, j + width, ...). per_vw: `fixed_per_vw` when > 0,
// else as many as cover the frontier in one pass of the grid (at most 32, the paper's bound). Entries of
// degree > tdp go to hbf_dispatch_heavy instead (when a dynamic-parallelism mode is on).
extern "C" __global__ void __launch_bounds__(HBF_BLOCK, HBF_MIN_BLOCKS) hbf_iteration(
    const offset_t* row_offsets, const vertex_t* columns, const weight_t* weights, int unit_weights, word_t* info,
    long long capacity, word_t* words, int flags, int tag_bits, long long low, vertex_t* frontiers, int round_offset,
    long long fixed_per_vw, long long tdp, vertex_t* heavy, long long child_limit, long long cap) {
    __shared__ vertex_t slots[HBF_WARPS][HBF_SLOT];
    __shared__ word_t s_fill[HBF_WARPS];
    __shared__ long long s_end[HBF_BLOCK];  // HBF_BLOCKX: inclusive scan of the chunk's degrees
    __shared__ offset_t s_row[HBF_BLOCK];
    __shared__ vertex_t s_vertex[HBF_BLOCK];
    __shared__ long long s_warp_total[HBF_WARPS];
    __shared__ long long s_next_chunk;
    int iteration = hbf_iteration_index(words, round_offset);
    long long size = (long long)words[hbf_queue_word(iteration)];
    // The counters the next iteration fills are zeroed even past the cap (a stale one would read as a frontier)
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        words[hbf_queue_word(iteration + 2)] = 0ULL;
        words[HBF_HEAVY0 + ((iteration + 1) & 1)] = 0ULL;
        words[HBF_CHILD0 + ((iteration + 1) & 1)] = 0ULL;
        words[HBF_CHUNK0 + (iteration + 2) % 3] = 0ULL;  // iteration - 1's, done with
        if (size != 0) words[iteration >= cap ? HBF_CAPPED : HBF_ROUNDS] += 1ULL;
    }
    if (size == 0 || iteration >= cap) return;  // block-uniform: every thread returns
    const vertex_t* frontier = frontiers + (iteration & 1) * capacity;
    HbfContext c = hbf_context(row_offsets, columns, weights, unit_weights, info, capacity, words, flags, tag_bits,
                               low, iteration);
    HbfEnqueue out = hbf_output(c, frontiers, slots);
    bool split_heavy = (flags & (HBF_DP_COOP | HBF_DP_CHILD)) != 0;
    unsigned long long attempts = 0ULL, improvements = 0ULL;
    if (flags & HBF_BLOCKX) {
        // Chunks of `chunk` entries, as many per block as spread the frontier over the whole grid, so a small
        // frontier still reaches every SM (one dependent chain per block) and a large one gives each block a
        // full chunk to balance. Block b takes chunk b first, then claims the next free one from a counter
        // (dynamic, so a block held up by a chunk of long lists takes fewer chunks; the claim is issued before
        // the chunk's work and read after it, which hides its latency).
        long long chunk = hbf_min((size + gridDim.x - 1) / gridDim.x, (long long)HBF_CHUNK_ENTRIES);
        word_t* chunk_counter = &words[HBF_CHUNK0 + iteration % 3];
        for (long long current = blockIdx.x; current * chunk < size; current = s_next_chunk) {  // block-uniform
            long long first = current * chunk;
            long long claimed = 0;
            if (threadIdx.x == 0) claimed = (long long)gridDim.x + (long long)atomicAdd(chunk_counter, 1ULL);
            long long j = first + threadIdx.x;
            long long degree = 0;
            offset_t row = 0;
            vertex_t u = 0;
            if (threadIdx.x < chunk && j < size) {
                u = hbf_frontier_entry(frontier, j, flags);
                row = hbf_offset(c, u);
                degree = hbf_offset(c, u + 1) - row;
                if (split_heavy && degree > tdp) {
                    hbf_dispatch_heavy(c, frontiers, u, degree, heavy, child_limit);
                    degree = 0;
                }
            }
            long long total = 0;
            long long scan = hbf_block_inclusive_scan(degree, s_warp_total, &total);
            s_end[threadIdx.x] = scan;
            s_row[threadIdx.x] = row;
            s_vertex[threadIdx.x] = u;
            __syncthreads();
            int entries = (int)hbf_min(chunk, size - first);
            int a = 0;  // this thread's entry: its arcs only move forward, so the search starts from the last one
            for (long long base = 0; base < total; base += HBF_BLOCK) {  // block-uniform
                long long t = base + threadIdx.x;
                bool active = t < total;
                offset_t e = 0;
                dist_t d = 0;
                if (active) {
                    int b = entries - 1;  // the first entry whose inclusive end is above t
                    while (a < b) {
                        int middle = (a + b) >> 1;
                        if (s_end[middle] > t) b = middle; else a = middle + 1;
                    }
                    e = s_row[a] + (t - (a > 0 ? s_end[a - 1] : 0LL));
                    // the tail's distance read per arc, beside its column: an improvement made earlier in this
                    // iteration is used at once (read once per chunk, meshes took 1.3-1.5x the relax attempts)
                    d = hbf_distance(c, s_vertex[a]);
                }
                hbf_step(c, out, active, e, d, false, false, attempts, improvements);
            }
            if (threadIdx.x == 0) s_next_chunk = claimed;
            __syncthreads();  // publishes s_next_chunk; the shared arrays are rewritten for the next chunk
        }
        out.finish(s_fill);
        hbf_add_counts(c, attempts, improvements);
        return;
    }
    long long threads = (long long)gridDim.x * blockDim.x;
    int vw_shift = 0;
    long long per_vw = fixed_per_vw > 0 ? fixed_per_vw : 1;
    if (flags & HBF_VWARPS) {
        long long ratio = threads / size;
        int log_ratio = ratio > 0 ? 63 - __clzll(ratio) : 0;
        vw_shift = log_ratio < 2 ? 2 : (log_ratio > 5 ? 5 : log_ratio);
        if (fixed_per_vw <= 0) {
            per_vw = ((size << vw_shift) + threads - 1) / threads;
            per_vw = per_vw < 1 ? 1 : (per_vw > 32 ? 32 : per_vw);
        }
    }
    long long thread = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long width = 1LL << vw_shift;
    long long lane = thread & (width - 1);
    long long vw = thread >> vw_shift;
    long long vws = threads >> vw_shift;
    long long item = vw * per_vw, item_end = hbf_min(item + per_vw, size);
    offset_t e = 0, stop = 0;
    dist_t du = 0;

    // Moves this lane to its next arc: the next entry of its run, the next run of its virtual warp, or done.
    auto next_arc = [&]() -> bool {
        while (e >= stop) {
            if (item >= item_end) {
                if (item_end >= size) return false;
                vw += vws;
                item = vw * per_vw;
                item_end = hbf_min(item + per_vw, size);
                if (item >= size) return false;
            }
            vertex_t u = hbf_frontier_entry(frontier, item, flags);
            ++item;
            offset_t start = hbf_offset(c, u), end = hbf_offset(c, u + 1);
            if (split_heavy && end - start > tdp) {
                if (lane == 0) hbf_dispatch_heavy(c, frontiers, u, end - start, heavy, child_limit);
                continue;
            }
            du = hbf_distance(c, u);
            e = start + lane;
            stop = end;
        }
        return true;
    };

    bool active = item < size && next_arc();
    while (__any_sync(HBF_FULL, active)) {
        hbf_step(c, out, active, e, du, false, false, attempts, improvements);
        if (active) {
            e += width;
            active = next_arc();
        }
    }
    out.finish(s_fill);
    hbf_add_counts(c, attempts, improvements);
}

// The cooperative expansion of this iteration's heavy list (HBF_DP_COOP, and HBF_DP_CHILD's overflow), load-
// balanced: the listed vertices' arcs, concatenated in list order, are cut into tiles of HBF_BLOCK arcs dealt to
// the blocks round-robin, so a few huge vertices and many merely heavy ones alike spread over the whole grid.
// Every block walks the list in pieces of HBF_BLOCK entries: a block scan of the piece's degrees in shared memory
// places its arcs, and each thread finds the entry of its arc by binary search there.
extern "C" __global__ void __launch_bounds__(HBF_BLOCK) hbf_heavy(
    const offset_t* row_offsets, const vertex_t* columns, const weight_t* weights, int unit_weights, word_t* info,
    long long capacity, word_t* words, int flags, int tag_bits, long long low, vertex_t* frontiers, int round_offset,
    const vertex_t* heavy, long long cap) {
    __shared__ vertex_t slots[HBF_WARPS][HBF_SLOT];
    __shared__ word_t s_fill[HBF_WARPS];
    __shared__ long long s_end[HBF_BLOCK];  // inclusive scan of the piece's degrees
    __shared__ offset_t s_row[HBF_BLOCK];
    __shared__ dist_t s_du[HBF_BLOCK];
    __shared__ long long s_warp_total[HBF_WARPS];
    int iteration = hbf_iteration_index(words, round_offset);
    if (iteration >= cap) return;
    long long count = (long long)words[HBF_HEAVY0 + (iteration & 1)];  // nobody pushes during this kernel
    if (count == 0) return;  // block-uniform
    HbfContext c = hbf_context(row_offsets, columns, weights, unit_weights, info, capacity, words, flags, tag_bits,
                               low, iteration);
    HbfEnqueue out = hbf_output(c, frontiers, slots);
    long long grid = gridDim.x;
    long long done = 0;  // arcs of the earlier pieces (block-uniform)
    unsigned long long attempts = 0ULL, improvements = 0ULL;
    for (long long piece = 0; piece < count; piece += HBF_BLOCK) {
        long long j = piece + threadIdx.x;
        long long degree = 0;
        offset_t row = 0;
        dist_t du = 0;
        if (j < count) {
            vertex_t u = heavy[j];
            row = hbf_offset(c, u);
            degree = hbf_offset(c, u + 1) - row;
            du = hbf_distance(c, u);
        }
        long long total = 0;
        long long scan = hbf_block_inclusive_scan(degree, s_warp_total, &total);
        s_end[threadIdx.x] = scan;
        s_row[threadIdx.x] = row;
        s_du[threadIdx.x] = du;
        __syncthreads();
        long long low = done, high = done + total;
        long long first_tile = low / HBF_BLOCK;
        long long tile = first_tile + (((long long)blockIdx.x - first_tile % grid) % grid + grid) % grid;
        for (; tile * HBF_BLOCK < high; tile += grid) {  // block-uniform
            long long t = tile * HBF_BLOCK + threadIdx.x;
            bool active = t >= low && t < high;
            offset_t e = 0;
            dist_t d = 0;
            if (active) {
                long long local = t - low;
                int a = 0, b = HBF_BLOCK - 1;  // the first entry whose inclusive end is above local
                while (a < b) {
                    int middle = (a + b) >> 1;
                    if (s_end[middle] > local) b = middle; else a = middle + 1;
                }
                e = s_row[a] + (local - (a > 0 ? s_end[a - 1] : 0LL));
                d = s_du[a];
            }
            hbf_step(c, out, active, e, d, false, false, attempts, improvements);
        }
        done = high;
        __syncthreads();  // the shared arrays are rewritten for the next piece
    }
    out.finish(s_fill);
    hbf_add_counts(c, attempts, improvements);
}

// --- grid expansion (ours, for Hopper) ----------------------------------------------------------------------------
//
// The Workfront Sweep's load balance (gpu/advance.cuh) under H-BF's relax: each frontier entry carries the exclusive
// prefix sum of the frontier's out-degrees (`starts`, written by block-aggregated pushes that reserve slots and
// arcs with ONE atomicAdd on a packed (entries << shift | arcs) queue word), so an iteration cuts the frontier's
// arcs into tiles of ADVANCE_TILE and every thread of the grid relaxes ADVANCE_ITEMS arcs whatever the degrees: no
// chunk of long lists holds a block up, and no vertex needs dynamic parallelism. Needs dedup64: a frontier then
// holds each vertex once, so it never has more than n entries and m arcs (the bounds of the packed word). Only
// vertices with out-arcs are queued (the advance reads a pushed head's out-degree with plain loads, not __ldcs:
// it is read again as an entry). The frontier's half h (iteration & 1) is frontiers/starts + h * capacity and
// tile_first + h * tiles_per_queue.

// The grid expansion's relax functor: hbf_arc on each arc, the head pushed when Algorithm 6's test says so. The
// tail's distance is read per arc, as the block expansion does, so an improvement made earlier in the iteration is
// used at once (read once per entry and tile, as the Workfront Sweep does, meshes took 1.4x the time). It is a
// plain load whatever cache_hints says, so that L1 serves the entry's other arcs (a stale word only weakens a
// candidate: a tail improved during the iteration is in the next frontier anyway).
struct HbfGridRelax {
    typedef vertex_t Tail;  // the tail itself
    HbfContext c;
    unsigned long long attempts;
    unsigned long long improvements;

    __device__ __forceinline__ vertex_t entry(const vertex_t* vertices, long long i) const {
        return hbf_frontier_entry(vertices, i, c.flags);
    }
    __device__ __forceinline__ offset_t row(vertex_t u) const { return hbf_offset(c, u); }
    __device__ __forceinline__ vertex_t tail(vertex_t u) const { return u; }

    __device__ __forceinline__ int operator()(offset_t e, vertex_t u, vertex_t* head, dist_t* distance) {
        dist_t du = hbf_unpacked(c, c.info[u]);  // plain: see above
        return hbf_arc(c, e, du, false, false, head, attempts, improvements) ? PUSH_QUEUE : PUSH_NONE;
    }
};

// hbf_grid_source's visit functor: arc `start + i` of the source, written directly (the source class); its head
// pushed when it must join frontier 1.
struct HbfSourceVisit {
    HbfContext c;
    offset_t start;
    bool fresh;
    unsigned long long attempts;
    unsigned long long improvements;

    __device__ __forceinline__ void operator()(long long i, int item, TileItems& items) {
        vertex_t head = 0;
        if (hbf_arc(c, start + i, 0LL, true, fresh, &head, attempts, improvements)) {
            items.take(item, PUSH_QUEUE, head, 0LL, out_degree(c.row_offsets, head));
        }
    }
};

// Iteration 0 without edge classification: the source as the frontier's only entry, owning every tile of its arcs.
extern "C" __global__ void hbf_grid_init(word_t* words, long long* starts, int* tile_first, int shift,
                                         long long source_degree) {
    long long stride = (long long)gridDim.x * blockDim.x;
    for (long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x; k * ADVANCE_TILE < source_degree;
         k += stride) {
        tile_first[k] = 0;
    }
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        starts[0] = 0;
        words[HBF_QUEUE0] = (1ULL << shift) | (word_t)source_degree;  // hbf_init counted the entry alone
    }
}

// Iteration 0 with edge classification (hbf_source's job): the source's arcs written directly, in tiles of
// ADVANCE_TILE arcs dealt to the blocks, their heads pushed into frontier half 1.
extern "C" __global__ void __launch_bounds__(ADVANCE_BLOCK) hbf_grid_source(
    const offset_t* row_offsets, const vertex_t* columns, const weight_t* weights, int unit_weights, word_t* info,
    long long capacity, word_t* words, int flags, int tag_bits, long long low, vertex_t* frontiers, long long* starts,
    int* tile_first, long long tiles_per_queue, int shift, vertex_t source, int fresh) {
    __shared__ word_t s_warp[ADVANCE_WARPS];
    HbfContext c = hbf_context(row_offsets, columns, weights, unit_weights, info, capacity, words, flags, tag_bits,
                               low, 0);
    offset_t start = hbf_offset(c, source);
    long long degree = hbf_offset(c, source + 1) - start;
    HbfSourceVisit visit = {c, start, fresh != 0, 0ULL, 0ULL};
    QueuePush push = {queue_out(frontiers + capacity, starts + capacity, tile_first + tiles_per_queue,
                                &words[hbf_queue_word(1)], shift),
                      s_warp};
    for_each_in_tiles(degree, visit, push);
    hbf_add_counts(c, visit.attempts, visit.improvements);
}

// One frontier propagation step with the grid expansion: advance_queue over the frontier with HbfGridRelax. Two
// loads ignore cache_hints: the tail's word (HbfGridRelax) and a pushed head's degree, read again from its row
// offsets as an entry next iteration (the streaming hint marks it evict-first); with both hinted, all else on
// was slower than cache_hints off (experiments/hbf/notes/hbf.md). The counters bookkeeping is hbf_iteration's.
extern "C" __global__ void __launch_bounds__(ADVANCE_BLOCK, ADVANCE_MIN_BLOCKS) hbf_grid_iteration(
    const offset_t* row_offsets, const vertex_t* columns, const weight_t* weights, int unit_weights, word_t* info,
    long long capacity, word_t* words, int flags, int tag_bits, long long low, vertex_t* frontiers, long long* starts,
    int* tile_first, long long tiles_per_queue, int shift, int round_offset, long long cap) {
    __shared__ AdvanceTile<vertex_t> s_tile;
    __shared__ word_t s_warp[ADVANCE_WARPS];
    int iteration = hbf_iteration_index(words, round_offset);
    word_t in_packed = words[hbf_queue_word(iteration)];
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        words[hbf_queue_word(iteration + 2)] = 0ULL;  // iteration - 1's input, which iteration + 1 fills
        if (in_packed != 0ULL) words[iteration >= cap ? HBF_CAPPED : HBF_ROUNDS] += 1ULL;
    }
    if (in_packed == 0ULL || iteration >= cap) return;  // block-uniform: every thread returns
    HbfContext c = hbf_context(row_offsets, columns, weights, unit_weights, info, capacity, words, flags, tag_bits,
                               low, iteration);
    long long in = iteration & 1, out = in ^ 1;
    HbfGridRelax relax = {c, 0ULL, 0ULL};
    QueuePush push = {queue_out(frontiers + out * capacity, starts + out * capacity,
                                tile_first + out * tiles_per_queue, &words[hbf_queue_word(iteration + 1)], shift),
                      s_warp};
    advance_queue(c.row_offsets, frontiers + in * capacity, starts + in * capacity, tile_first + in * tiles_per_queue,
                  in_packed, shift, relax, push, s_tile);
    hbf_add_counts(c, relax.attempts, relax.improvements);
}

// The end of a captured batch of `rounds` iterations (CUDA graph replay): the base moves on.
extern "C" __global__ void hbf_bump_base(word_t* words, long long rounds) {
    if (blockIdx.x == 0 && threadIdx.x == 0) words[HBF_BASE] += (word_t)rounds;
}

// After the last iteration with dedup64: the packed words back to int64 distances (DIST_INF where unreached).
extern "C" __global__ void hbf_unpack(const word_t* info, dist_t* dist, long long n, int tag_bits, long long low) {
    long long stride = (long long)gridDim.x * blockDim.x;
    word_t inf_field = hbf_inf_field(tag_bits);
    for (long long v = (long long)blockIdx.x * blockDim.x + threadIdx.x; v < n; v += stride) {
        word_t field = info[v] >> tag_bits;
        dist[v] = field == inf_field ? DIST_INF : (dist_t)field + low;
    }
}

// The extra kernel of section 4.1's out-degree class: each out-degree-0 vertex with in-arcs takes the minimum over
// them (their tails are final by now and none is a sink), one thread per sink, no atomics. The in-arcs of sink
// k are sink_tails/sink_weights[sink_offsets[k] .. sink_offsets[k + 1]).
extern "C" __global__ void hbf_settle_sinks(dist_t* dist, const vertex_t* sinks, const long long* sink_offsets,
                                            const vertex_t* sink_tails, const weight_t* sink_weights,
                                            int unit_weights, long long count, word_t* words, int flags) {
    long long stride = (long long)gridDim.x * blockDim.x;
    unsigned long long attempts = 0ULL, improvements = 0ULL;
    for (long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x; k < count; k += stride) {
        vertex_t v = sinks[k];
        dist_t best = dist[v];
        for (long long a = sink_offsets[k]; a < sink_offsets[k + 1]; ++a) {
            dist_t du = dist[sink_tails[a]];
            if (du == DIST_INF) continue;
            ++attempts;
            dist_t candidate = du + (unit_weights ? 1LL : (dist_t)sink_weights[a]);
            if (candidate < best) best = candidate;
        }
        if (best < dist[v]) {
            dist[v] = best;
            ++improvements;
        }
    }
    if (flags & HBF_COUNT) add_counts(words, attempts, improvements);
}

// Each vertex's in-degree, for hbf_mark (in_degree zeroed by the caller). Not cupy.bincount: its first call in a
// process imports cupyx and SciPy (0.3 to 0.5 s of every worker process's first hbf, measured on an H200 host).
extern "C" __global__ void hbf_in_degrees(const vertex_t* __restrict__ columns, long long m,
                                          unsigned long long* in_degree) {
    long long stride = (long long)gridDim.x * blockDim.x;
    for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < m; e += stride)
        atomicAdd(in_degree + columns[e], 1ULL);
}

// The marking phase of section 4.1 (in prepare): each arc's column id with its class in the top two bits. One
// thread per arc; its tail is found by binary search in the row offsets (row_offsets + 1 is the inclusive scan
// of the out-degrees). `in_degree` counts every arc into a vertex, self-loops and parallel arcs included.
// A negative self-loop is a negative cycle: it stays a normal arc, so relaxing it reports the cycle.
extern "C" __global__ void hbf_mark(const offset_t* __restrict__ row_offsets, const vertex_t* __restrict__ columns,
                                    const weight_t* __restrict__ weights, int unit_weights, long long n, long long m,
                                    const long long* __restrict__ in_degree, vertex_t* marked) {
    long long stride = (long long)gridDim.x * blockDim.x;
    for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < m; e += stride) {
        vertex_t tail = (vertex_t)upper_bound(row_offsets + 1, n, e);
        vertex_t v = columns[e];
        unsigned kind = HBF_NORMAL;
        if (v == tail) kind = arc_weight(weights, unit_weights, e) >= 0 ? HBF_LOOP : HBF_NORMAL;
        else if (row_offsets[v + 1] == row_offsets[v]) kind = HBF_SINK;
        else if (in_degree[v] == 1) kind = HBF_IN1;
        marked[e] = (vertex_t)(((unsigned)v) | (kind << HBF_CLASS_SHIFT));
    }
}

// --- what the source and sink classes need, built on the device in prepare --------------------------------------
// Built with CuPy's sort, argsort, unique, nonzero and mask indexing, this cost the first hbf of every process about
// 0.3 s more than a later one (one of those calls imports cupyx and SciPy's sparse package, 0.5 s under cProfile,
// and each generic kernel loads at its first use): measured on H200 hosts, in every worker of a 4-GPU run. These
// kernels load with the module.

// A 64-bit mixer (splitmix64's finaliser) spreading (tail, head) keys over the hash set's slots.
__device__ __forceinline__ unsigned long long hbf_mix(unsigned long long key) {
    key ^= key >> 30;
    key *= 0xbf58476d1ce4e5b9ULL;
    key ^= key >> 27;
    key *= 0x94d049bb133111ebULL;
    return key ^ (key >> 31);
}

// The vertices with parallel out-arcs (u->v twice), whose first iteration must relax with atomics: every arc's
// (tail, head) key goes into an open-addressing hash set (linear probing; key + 1, so 0 marks a free slot), and an
// arc that finds its key already there flags its tail. The set has slot_mask + 1 slots, a power of two >= 2m, so
// probes stay short. Rows need not be sorted (the CSR keeps the input order within a row).
extern "C" __global__ void hbf_parallel_arcs(const offset_t* __restrict__ row_offsets,
                                             const vertex_t* __restrict__ columns, long long n, long long m,
                                             unsigned long long* slots, unsigned long long slot_mask,
                                             unsigned char* has_parallel_arcs) {
    long long stride = (long long)gridDim.x * blockDim.x;
    for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < m; e += stride) {
        long long tail = upper_bound(row_offsets + 1, n, e);
        unsigned long long key = (unsigned long long)tail * (unsigned long long)n + (unsigned)columns[e] + 1ULL;
        for (unsigned long long slot = hbf_mix(key) & slot_mask;; slot = (slot + 1ULL) & slot_mask) {
            unsigned long long held = atomicCAS(slots + slot, 0ULL, key);
            if (held == 0ULL) break;
            if (held == key) {
                has_parallel_arcs[tail] = 1;
                break;
            }
        }
    }
}

// The sinks (out-degree 0, at least one in-arc), in vertex order, and where each one's in-arcs go, by an exclusive
// prefix sum over the vertices in three kernels: each tile's totals (hbf_sink_tile_sums), the tiles' offsets
// (hbf_sink_tile_offsets, one block), then each sink's place (hbf_sink_places). Every arc into a sink is of the
// sink class (a sink has no self-loop), so a sink's in-degree is its number of sink-class in-arcs.
#define HBF_SCAN_ITEMS 8                               // consecutive vertices per thread
#define HBF_SCAN_TILE (HBF_BLOCK * HBF_SCAN_ITEMS)     // vertices per block

__device__ __forceinline__ long long hbf_sink_arcs_of(const offset_t* row_offsets, const long long* in_degree,
                                                      long long v) {
    return row_offsets[v + 1] == row_offsets[v] ? in_degree[v] : 0LL;
}

// The exclusive prefix sums of `sinks` and `arcs` over the block's threads (blockDim.x == HBF_BLOCK), and the block's
// totals; every thread calls it.
__device__ void hbf_block_exclusive(long long& sinks, long long& arcs, long long& total_sinks, long long& total_arcs) {
    __shared__ long long s_sinks[HBF_BLOCK / 32 + 1], s_arcs[HBF_BLOCK / 32 + 1];
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    long long inclusive_sinks = warp_inclusive_sum(sinks), inclusive_arcs = warp_inclusive_sum(arcs);
    if (lane == 31) {
        s_sinks[warp] = inclusive_sinks;
        s_arcs[warp] = inclusive_arcs;
    }
    __syncthreads();
    if (warp == 0) {
        long long warp_sinks = lane < HBF_BLOCK / 32 ? s_sinks[lane] : 0LL;
        long long warp_arcs = lane < HBF_BLOCK / 32 ? s_arcs[lane] : 0LL;
        long long before_sinks = warp_inclusive_sum(warp_sinks), before_arcs = warp_inclusive_sum(warp_arcs);
        if (lane < HBF_BLOCK / 32) {
            s_sinks[lane] = before_sinks - warp_sinks;
            s_arcs[lane] = before_arcs - warp_arcs;
        }
        if (lane == 31) {
            s_sinks[HBF_BLOCK / 32] = before_sinks;
            s_arcs[HBF_BLOCK / 32] = before_arcs;
        }
    }
    __syncthreads();
    sinks = s_sinks[warp] + inclusive_sinks - sinks;
    arcs = s_arcs[warp] + inclusive_arcs - arcs;
    total_sinks = s_sinks[HBF_BLOCK / 32];
    total_arcs = s_arcs[HBF_BLOCK / 32];
    __syncthreads();  // the shared words are free for the next call
}

// This thread's vertices of its block's tile: [first, first + HBF_SCAN_ITEMS), clipped to n.
__device__ __forceinline__ long long hbf_scan_first() {
    return (long long)blockIdx.x * HBF_SCAN_TILE + (long long)threadIdx.x * HBF_SCAN_ITEMS;
}

// The sinks and their in-arcs among this thread's vertices, as exclusive prefix sums over the block's threads, and
// the block's totals; every thread of the block calls it. `in_degree` is not __restrict__: hbf_sink_places writes
// each vertex's cursor over it, after this thread has read that vertex's in-degree.
__device__ void hbf_scan_tile(const offset_t* __restrict__ row_offsets, const long long* in_degree, long long n,
                              long long& sinks_before, long long& arcs_before, long long& total_sinks,
                              long long& total_arcs) {
    long long first = hbf_scan_first();
    sinks_before = arcs_before = 0;
    for (long long v = first; v < first + HBF_SCAN_ITEMS && v < n; ++v) {
        long long into = hbf_sink_arcs_of(row_offsets, in_degree, v);
        sinks_before += into > 0;
        arcs_before += into;
    }
    hbf_block_exclusive(sinks_before, arcs_before, total_sinks, total_arcs);
}

extern "C" __global__ void hbf_sink_tile_sums(const offset_t* __restrict__ row_offsets,
                                              const long long* __restrict__ in_degree, long long n,
                                              long long* tile_sums) {
    long long sinks_before, arcs_before, total_sinks, total_arcs;
    hbf_scan_tile(row_offsets, in_degree, n, sinks_before, arcs_before, total_sinks, total_arcs);
    if (threadIdx.x == 0) {
        tile_sums[2 * blockIdx.x] = total_sinks;
        tile_sums[2 * blockIdx.x + 1] = total_arcs;
    }
}

// One block: the tiles' totals become their exclusive offsets, in place; totals[0, 1] = all sinks, all their arcs.
extern "C" __global__ void hbf_sink_tile_offsets(long long* tile_sums, long long tiles, long long* totals) {
    long long carry_sinks = 0, carry_arcs = 0;
    for (long long base = 0; base < tiles; base += HBF_BLOCK) {
        long long t = base + threadIdx.x;
        long long sinks = t < tiles ? tile_sums[2 * t] : 0LL, arcs = t < tiles ? tile_sums[2 * t + 1] : 0LL;
        long long total_sinks, total_arcs;
        hbf_block_exclusive(sinks, arcs, total_sinks, total_arcs);
        if (t < tiles) {
            tile_sums[2 * t] = carry_sinks + sinks;
            tile_sums[2 * t + 1] = carry_arcs + arcs;
        }
        carry_sinks += total_sinks;
        carry_arcs += total_arcs;
    }
    if (threadIdx.x == 0) {
        totals[0] = carry_sinks;
        totals[1] = carry_arcs;
    }
}

// Sink k = the k-th sink in vertex order: sinks[k] = v, sink_offsets[k] = where its in-arcs start, and cursor[v]
// the same (hbf_sink_arcs moves it along); sink_offsets[count] = every sink's arcs. `cursor` may be `in_degree`
// itself (hbf.py passes it so): a thread writes a vertex's cursor only after reading that vertex's in-degree, and no
// thread reads another's vertices.
extern "C" __global__ void hbf_sink_places(const offset_t* __restrict__ row_offsets, const long long* in_degree,
                                           long long n, const long long* __restrict__ tile_offsets, long long count,
                                           long long all_arcs, vertex_t* sinks, long long* sink_offsets,
                                           unsigned long long* cursor) {
    long long sinks_before, arcs_before, total_sinks, total_arcs;
    hbf_scan_tile(row_offsets, in_degree, n, sinks_before, arcs_before, total_sinks, total_arcs);
    long long first = hbf_scan_first();
    long long k = tile_offsets[2 * blockIdx.x] + sinks_before, place = tile_offsets[2 * blockIdx.x + 1] + arcs_before;
    for (long long v = first; v < first + HBF_SCAN_ITEMS && v < n; ++v) {
        long long into = hbf_sink_arcs_of(row_offsets, in_degree, v);
        if (into == 0) continue;
        sinks[k] = (vertex_t)v;
        sink_offsets[k] = place;
        cursor[v] = (unsigned long long)place;
        ++k;
        place += into;
    }
    if (blockIdx.x == 0 && threadIdx.x == 0) sink_offsets[count] = all_arcs;
}

// Each sink-class arc's tail and weight into its sink's run (the order within a run is the atomics' order: the
// sink kernel takes a minimum, which no order changes).
extern "C" __global__ void hbf_sink_arcs(const offset_t* __restrict__ row_offsets, const vertex_t* __restrict__ marked,
                                         const weight_t* __restrict__ weights, int unit_weights, long long n,
                                         long long m, unsigned long long* cursor, vertex_t* sink_tails,
                                         weight_t* sink_weights) {
    long long stride = (long long)gridDim.x * blockDim.x;
    for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < m; e += stride) {
        unsigned word = (unsigned)marked[e];
        if ((word >> HBF_CLASS_SHIFT) != HBF_SINK) continue;
        long long place = (long long)atomicAdd(cursor + (word & HBF_ID_MASK), 1ULL);
        sink_tails[place] = (vertex_t)upper_bound(row_offsets + 1, n, e);
        if (!unit_weights) sink_weights[place] = weights[e];
    }
}
