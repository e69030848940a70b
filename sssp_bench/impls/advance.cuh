// The load-balanced queue advance shared by `workfront.cu` (Davidson et al.'s Workfront Sweep) and `near_far.cu`
// (their Near-Far Pile): vertex queues whose entries carry the exclusive prefix sum of their out-degrees, built
// by block-aggregated pushes, and a tile-based advance that gives every thread the same number of arcs whatever
// the degrees (merge-path style: each block takes a tile of WF_TILE consecutive queue arcs).
//
// A queue is three arrays and one packed 64-bit counter:
//   vertices[i]    the i-th queued vertex (int32)
//   starts[i]      the number of arcs of entries 0..i-1 (int64): entry i owns queue arcs [starts[i], starts[i] + deg)
//   tile_first[k]  the entry that owns queue arc k * WF_TILE (int32), written by the push that covers it
//   counter        (entries << shift) | arcs, so ONE atomicAdd reserves both the slots and the arc range of a
//                  block's pushes: slot order and arc order agree, which makes `starts` an exclusive prefix sum
//                  in slot order without any scan. `shift` = bit length of m (a queue holds each vertex at most
//                  once, so arcs <= m < 2^shift and entries <= n < 2^(64 - shift); the host checks both).
// Only vertices with out-degree > 0 are queued (a vertex without out-arcs has nothing to relax), so every entry
// owns at least one arc: a tile overlaps at most WF_TILE + 1 entries.
//
// The advance: block b takes tiles b, b + gridDim.x, ...; it loads the tile's entries (vertex, row offset,
// distance read once per entry) into shared memory, then each thread relaxes WF_ITEMS arcs of the tile
// (coalesced, strided by the block size), finding its entry by binary search in shared memory. A vertex whose
// distance fell is pushed into the next queue once per round: a per-vertex round stamp (atomicExch) removes
// duplicates; the block gathers its pushes of a tile and reserves their slots with one atomicAdd. Near-Far
// classifies improved vertices by their new distance: below the threshold into the near
// queue, otherwise onto the far pile (a plain vertex list with its own stamp per epoch and a running minimum).
//
// Packed distances (kPacked, Near-Far's packed_dedup): each distance word holds (distance << dist_shift) | stamp,
// H-BF's 64-bit duplicate removal (its Algorithms 5 and 6) applied to both of Near-Far's destinations. An
// improvement writes its destination's stamp with the distance in ONE atomicMin, and the improvement whose
// atomicMin replaced another stamp pushes the vertex: no stamp arrays, no second read and atomicExch per improving
// arc. Stamps (packed_stamp): odd 2 x round + 1 for the near queue of a round, even 2 x (epoch + 1) for the far
// pile of an epoch (the split restamps the vertices it keeps for the next epoch's pile), 0 before either. A vertex
// piled far that falls below T later in the same round sees the far stamp and is queued near as well (the split
// drops its stale far entry). The host picks dist_shift so that every distance and every stamp fit (near_far.py).
//
// Launch with blockDim.x == WF_BLOCK (the loops and shared arrays assume it); any grid size works.
#ifndef SSSP_BENCH_ADVANCE_CUH
#define SSSP_BENCH_ADVANCE_CUH

#include "common.cuh"

#define WF_BLOCK 256
#define WF_ITEMS 2
#define WF_TILE (WF_BLOCK * WF_ITEMS)
// __launch_bounds__ of the round kernels: 6 blocks per SM fit in 40 registers without spills (left to itself
// ptxas took 48, 5 blocks per SM); 8 spill. Measured on an H200 with 10 sources, Near-Far on random 2Mv.128Me
// 3.49 ms with 6 against 3.77 ms with 5; on R-MAT 3Mv.20Me 2.55 against 2.62 ms.
#ifndef WF_MIN_BLOCKS
#define WF_MIN_BLOCKS 6
#endif
#define WF_FULL_MASK 0xffffffffu

__device__ __forceinline__ long long packed_entries(word_t packed, int shift) {
    return (long long)(packed >> shift);
}

__device__ __forceinline__ long long packed_arcs(word_t packed, int shift) {
    return (long long)(packed & ((1ULL << shift) - 1ULL));
}

__device__ __forceinline__ long long out_degree(const offset_t* __restrict__ row_offsets, vertex_t v) {
    return (long long)(row_offsets[v + 1] - row_offsets[v]);
}

// Claims v for a queue whose stamp is `stamp`: true for exactly one caller per stamp value. The plain read
// first skips the atomic for a vertex already claimed (stamps only change to the current value meanwhile).
__device__ __forceinline__ bool claim(int* stamps, vertex_t v, int stamp) {
    return stamps[v] != stamp && atomicExch(&stamps[v], stamp) != stamp;
}

// Packed relax: try word(v) = (candidate << dist_shift) | stamp. True when this thread's atomicMin lowered v's
// distance; *old is then the word it replaced (DIST_INF for an unreached vertex, else distance << dist_shift |
// stamp). Distances are non-negative here, so the signed atomicMin orders words by distance first; an equal
// distance is no improvement whatever the stamps.
__device__ __forceinline__ bool relax_packed(dist_t* dist, vertex_t v, dist_t candidate, int dist_shift,
                                             dist_t stamp, dist_t* old) {
    if (candidate >= (dist[v] >> dist_shift)) return false;
    *old = atomicMin(&dist[v], (candidate << dist_shift) | stamp);
    return candidate < (*old >> dist_shift);
}

// Plain relax for non-negative weights (no negative-cycle floor): like relax, and *old is the value replaced.
__device__ __forceinline__ bool relax_keeping_old(dist_t* dist, vertex_t v, dist_t candidate, dist_t* old) {
    if (candidate >= dist[v]) return false;
    *old = atomicMin(&dist[v], candidate);
    return candidate < *old;
}

// The stamp of packed_dedup's distance words for the near queue of round `round_stamp` - 1 (odd) or the far pile
// of epoch `epoch_stamp` - 1 (even): the stamps of FarPile and claim, kept apart so they never compare equal.
__device__ __forceinline__ dist_t packed_stamp(bool near, int round_stamp, int epoch_stamp) {
    return near ? 2LL * round_stamp + 1LL : 2LL * epoch_stamp;
}

#define WF_WARPS (WF_BLOCK / 32)

// The entries that a tile of queue arcs [tile * WF_TILE, high) overlaps: *first (the owner of its first arc,
// recorded by the push that covered it) and how many (through the next tile's owner, or the queue's last entry).
__device__ __forceinline__ int tile_entries(const int* __restrict__ tile_first, long long tile, long long high,
                                            word_t packed, int shift, int* first) {
    *first = tile_first[tile];
    int last = high < packed_arcs(packed, shift) ? tile_first[tile + 1] : (int)(packed_entries(packed, shift) - 1);
    return last - *first + 1;
}

// The entry that owns arc `relative` of a tile: the last one starting at or before it (s_start holds the tile's
// `entries` starts relative to the tile, ascending, the first 0).
__device__ __forceinline__ int tile_entry(const int* s_start, int entries, int relative) {
    int a = 0, b = entries - 1;
    while (a < b) {
        int middle = (a + b + 1) >> 1;
        if (s_start[middle] <= relative) a = middle; else b = middle - 1;
    }
    return a;
}

// Block-collective (every thread of the block calls it, blockDim.x == WF_BLOCK): reserves `value` units of
// *counter for this thread and returns the counter's value where they begin (anything when the whole block
// reserves nothing). A warp-shuffle scan inside each warp, then one of two ways, chosen per block:
// - few threads reserve (sparse pushes, as on R-MAT): ONE atomicAdd per block, warp 0 scanning the warp totals
//   in `s_warp` (WF_WARPS words of shared memory). One atomicAdd per warp made millions of same-address atomics
//   per R-MAT solve, serialised in one L2 slice (about 1 ns each), costing more than the relaxing did.
// - many do (dense pushes, as in the first rounds on a random graph): one atomicAdd per warp, no further
//   barrier; there the extra barrier and the wait on one atomic cost more than the atomics saved
//   (measured on an H200: Workfront Sweep 11.9 ms per-warp vs 14.2 ms per-block on random 2Mv.128Me).
// The caller puts a barrier between two calls that share `s_warp` (the advance's tile loop has one; its two
// pushes use two arrays).
#define WF_DENSE_PUSHERS (WF_BLOCK / 4)
__device__ __forceinline__ word_t block_reserve(word_t value, word_t* counter, word_t* s_warp) {
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    word_t scan = warp_inclusive_sum(value);
    if (lane == 31) s_warp[warp] = scan;
    int pushers = __syncthreads_count(value != 0ULL);  // also the barrier that publishes the warp totals
    if (pushers == 0) return 0ULL;
    if (pushers > WF_DENSE_PUSHERS) {
        word_t warp_total = __shfl_sync(WF_FULL_MASK, scan, 31);
        word_t base = 0ULL;
        if (lane == 0 && warp_total != 0ULL) base = atomicAdd(counter, warp_total);
        return __shfl_sync(WF_FULL_MASK, base, 0) + scan - value;
    }
    if (warp == 0) {
        word_t total = lane < WF_WARPS ? s_warp[lane] : 0ULL;
        word_t inclusive = warp_inclusive_sum(total);
        word_t block_total = __shfl_sync(WF_FULL_MASK, inclusive, WF_WARPS - 1);
        word_t base = 0ULL;
        if (lane == 0) base = atomicAdd(counter, block_total);
        base = __shfl_sync(WF_FULL_MASK, base, 0);
        if (lane < WF_WARPS) s_warp[lane] = base + inclusive - total;  // each warp's first unit
    }
    __syncthreads();
    return s_warp[warp] + scan - value;
}

// Block-collective: this thread's entries want[i] (vertex v[i], out-degree degree[i] > 0), i < WF_ITEMS, are
// appended to a queue. The packed counter adds up like a number (entries << shift | arcs, arcs < 2^shift), so
// one block_reserve of (count << shift) + arcs reserves both the slots and the arc range: slot order and arc
// order agree. Tile boundaries inside an entry's arc range get the entry as their owner.
__device__ __forceinline__ void block_push_entries(const bool* want, const vertex_t* v, const long long* degree,
                                                   word_t* counter, int shift, vertex_t* vertices,
                                                   long long* starts, int* tile_first, word_t* s_warp) {
    word_t count = 0ULL, arcs = 0ULL;
#pragma unroll
    for (int i = 0; i < WF_ITEMS; ++i) {
        if (want[i]) {
            count += 1ULL;
            arcs += (word_t)degree[i];
        }
    }
    word_t position = block_reserve((count << shift) + arcs, counter, s_warp);
    if (count == 0ULL) return;
    long long slot = (long long)(position >> shift);
    long long start = (long long)(position & ((1ULL << shift) - 1ULL));
#pragma unroll
    for (int i = 0; i < WF_ITEMS; ++i) {
        if (!want[i]) continue;
        vertices[slot] = v[i];
        starts[slot] = start;
        for (long long k = (start + WF_TILE - 1) / WF_TILE; k * WF_TILE < start + degree[i]; ++k) {
            tile_first[k] = (int)slot;
        }
        ++slot;
        start += degree[i];
    }
}

// Block-collective: this thread's vertices want[i] go onto the far pile, and the smallest distance pushed
// lowers *minimum (distances here are non-negative, so unsigned order is signed order). One atomicAdd and at
// most one atomicMin per warp that pushes; `s_warp` as for block_reserve.
__device__ __forceinline__ void block_push_far(const bool* want, const vertex_t* v, const dist_t* d,
                                               word_t* counter, word_t* minimum, vertex_t* pile, word_t* s_warp) {
    word_t count = 0ULL;
    dist_t smallest = DIST_INF;
#pragma unroll
    for (int i = 0; i < WF_ITEMS; ++i) {
        if (want[i]) {
            count += 1ULL;
            smallest = d[i] < smallest ? d[i] : smallest;
        }
    }
    word_t slot = block_reserve(count, counter, s_warp);
    if (__ballot_sync(WF_FULL_MASK, count != 0ULL) == 0u) return;  // warp-uniform: this warp pushes nothing
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) {
        dist_t other = __shfl_xor_sync(WF_FULL_MASK, smallest, offset);
        smallest = other < smallest ? other : smallest;
    }
    // read first: the minimum settles early, and one atomicMin per pushing warp on one word serialises in L2
    if ((threadIdx.x & 31) == 0 && smallest < (dist_t)*(volatile word_t*)minimum) {
        atomicMin(minimum, (word_t)smallest);
    }
#pragma unroll
    for (int i = 0; i < WF_ITEMS; ++i) {
        if (want[i]) pile[slot++] = v[i];
    }
}

// Where the near-far classification of an improved vertex goes (unused by the Workfront Sweep).
struct FarPile {
    dist_t threshold;   // new distance < threshold: near queue; otherwise the far pile
    vertex_t* pile;     // the single far pile, or with buckets the overflow pile
    word_t* counter;
    word_t* minimum;
    int* stamps;
    int stamp;
    // far_buckets (kRing): bucket a holds distances [a x delta, (a + 1) x delta); buckets below ring_end go to
    // list a % buckets (ring + (a % buckets) x n, its count ring_counts[a % buckets]), the rest onto the pile.
    vertex_t* ring;
    word_t* ring_counts;
    long long ring_end;
    dist_t ring_limit;  // ring_end x delta (saturated): the overflow pile's distances start there
    dist_t delta;
    int buckets;
    long long n;
};

#define NF_RING_MAX 16  // the most far buckets (their counters are status words)

// The far class of a distance d >= threshold: its bucket a = d / delta below ring_end, else ring_end (the
// overflow pile). A vertex sits in the list of its distance's class: an improvement pushes it exactly when the
// class changes (the entry it leaves behind is stale, and dropped when read: its distance is below the list's).
__device__ __forceinline__ long long far_class(const FarPile& far, dist_t d) {
    return d >= far.ring_limit ? far.ring_end : d / far.delta;
}

// Whether an improvement of a far vertex from `old` (DIST_INF: unreached) to `candidate` < old changes its far
// class: one division, for a candidate in a bucket (one in the overflow pile came from the overflow pile).
__device__ __forceinline__ bool far_class_changes(const FarPile& far, dist_t old, dist_t candidate) {
    if (old == DIST_INF) return true;
    return candidate < far.ring_limit && old >= (candidate / far.delta + 1) * far.delta;
}

// ring_end x delta, saturated at DIST_INF.
__device__ __forceinline__ dist_t far_ring_limit(long long ring_end, dist_t delta) {
    return ring_end > DIST_INF / delta ? DIST_INF : ring_end * delta;
}

// Block-collective: this thread's vertices want[i] go to the far class of their distance d[i] (far_class): a ring
// list, or the overflow pile, whose minimum d[i] lowers. Slots are counted with shared-memory atomics, then
// one atomicAdd per class and block reserves them. s_count (buckets + 1 counters) and *s_minimum must be 0 and
// DIST_INF on entry, with a barrier since; they are left so for the next call. Returns whether the block pushed.
__device__ __forceinline__ bool block_push_ring(const bool* want, const vertex_t* v, const dist_t* d,
                                                const FarPile& far, unsigned* s_count,
                                                word_t* s_base, word_t* s_minimum) {
    unsigned local[WF_ITEMS];
    int list[WF_ITEMS];
    bool any = false;
#pragma unroll
    for (int i = 0; i < WF_ITEMS; ++i) {
        list[i] = 0;
        local[i] = 0u;
        if (!want[i]) continue;
        any = true;
        long long klass = far_class(far, d[i]);
        list[i] = klass == far.ring_end ? far.buckets : (int)(klass % far.buckets);
        local[i] = atomicAdd(&s_count[list[i]], 1u);
        if (list[i] == far.buckets) atomicMin(s_minimum, (word_t)d[i]);
    }
    if (__syncthreads_or(any) == 0) return false;  // block-uniform: nothing pushed, the counts are still 0
    if (threadIdx.x <= (unsigned)far.buckets) {
        unsigned count = s_count[threadIdx.x];
        if (count != 0u) {
            bool overflow = threadIdx.x == (unsigned)far.buckets;
            s_base[threadIdx.x] = atomicAdd(overflow ? far.counter : &far.ring_counts[threadIdx.x], (word_t)count);
            if (overflow && *s_minimum < *(volatile word_t*)far.minimum) atomicMin(far.minimum, *s_minimum);
        }
        s_count[threadIdx.x] = 0u;  // only this thread touches it until the next call's barrier
        if (threadIdx.x == (unsigned)far.buckets) *s_minimum = (word_t)DIST_INF;
    }
    __syncthreads();
#pragma unroll
    for (int i = 0; i < WF_ITEMS; ++i) {
        if (!want[i]) continue;
        vertex_t* target = list[i] == far.buckets ? far.pile : far.ring + (long long)list[i] * far.n;
        target[s_base[list[i]] + local[i]] = v[i];
    }
    return true;
}

// One round of the advance over the input queue (`in_packed` its counter value). kNearFar: improved vertices
// go to the near queue or the far pile by their new distance; otherwise all go to the next queue. kPacked:
// distance words packed with stamps (dist_shift stamp bits; the stamp arrays are not used), else plain distances.
// kRing (near-far's far_buckets): the far side is bucketed (FarPile's ring), and a far vertex is pushed when its
// far class changes (far_class), read from the value the atomicMin replaced: no far stamps.
template <bool kNearFar, bool kPacked = false, bool kRing = false>
__device__ __forceinline__ void advance_queue(
        const offset_t* __restrict__ row_offsets, const vertex_t* __restrict__ column_ids,
        const weight_t* __restrict__ weights, int unit_weights, dist_t* dist,
        const vertex_t* __restrict__ in_vertices, const long long* __restrict__ in_starts,
        const int* __restrict__ in_tiles, word_t in_packed, int shift,
        vertex_t* out_vertices, long long* out_starts, int* out_tiles, word_t* out_counter,
        int* near_stamps, int near_stamp, FarPile far, word_t* words, int count_relaxations, int dist_shift = 0) {
    __shared__ int s_start[WF_TILE + 1];        // entry start relative to the tile (0 for the first entry)
    __shared__ long long s_base[WF_TILE + 1];   // row_offsets[u] - starts[i]: queue arc t is CSR arc base + t
    __shared__ dist_t s_du[WF_TILE + 1];        // dist[u], read once per entry and tile
    __shared__ word_t s_near_warp[WF_WARPS];     // the pushes' per-warp scan totals (block_reserve)
    __shared__ word_t s_far_warp[WF_WARPS];
    __shared__ unsigned s_ring_count[NF_RING_MAX + 1];  // kRing: block_push_ring's counts, bases and minimum
    __shared__ word_t s_ring_base[NF_RING_MAX + 1];
    __shared__ word_t s_ring_minimum;
    if (kRing && threadIdx.x <= NF_RING_MAX) {  // published by the first tile's barrier
        s_ring_count[threadIdx.x] = 0u;
        if (threadIdx.x == 0) s_ring_minimum = (word_t)DIST_INF;
    }

    long long arcs_total = packed_arcs(in_packed, shift);
    long long tiles = (arcs_total + WF_TILE - 1) / WF_TILE;
    unsigned long long attempts = 0, improved = 0;

    for (long long tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        long long low = tile * WF_TILE;
        long long high = low + WF_TILE < arcs_total ? low + WF_TILE : arcs_total;
        int first = 0;
        int entries = tile_entries(in_tiles, tile, high, in_packed, shift, &first);
        for (int j = threadIdx.x; j < entries; j += WF_BLOCK) {
            vertex_t u = in_vertices[first + j];
            long long start = in_starts[first + j];
            s_start[j] = start > low ? (int)(start - low) : 0;
            s_base[j] = (long long)row_offsets[u] - start;
            s_du[j] = kPacked ? dist[u] >> dist_shift : dist[u];
        }
        __syncthreads();
        bool want_near[WF_ITEMS], want_far[WF_ITEMS];
        vertex_t heads[WF_ITEMS];
        long long degrees[WF_ITEMS];
        dist_t candidates[WF_ITEMS];
#pragma unroll
        for (int item = 0; item < WF_ITEMS; ++item) {
            int relative = item * WF_BLOCK + threadIdx.x;
            long long t = low + relative;
            want_near[item] = want_far[item] = false;
            heads[item] = 0;
            degrees[item] = 0;
            candidates[item] = 0;
            if (t < high) {
                int a = tile_entry(s_start, entries, relative);
                offset_t e = s_base[a] + t;
                vertex_t v = column_ids[e];
                dist_t du = s_du[a];
                dist_t w = arc_weight(weights, unit_weights, e);
                ++attempts;
                dist_t stamp = 0LL, old = 0LL;
                if (kPacked) stamp = packed_stamp(!kNearFar || du + w < far.threshold, near_stamp, far.stamp);
                bool lowered = kPacked ? relax_packed(dist, v, du + w, dist_shift, stamp, &old)
                               : kRing ? relax_keeping_old(dist, v, du + w, &old)
                                       : relax(dist, v, du, w, words);
                if (lowered) {
                    ++improved;
                    dist_t candidate = du + w;
                    heads[item] = v;
                    candidates[item] = candidate;
                    // claim first, then read the degree: a vertex improved by several arcs of a round reads
                    // its row offsets once (a claimed vertex without out-arcs is simply not pushed). Packed: the
                    // improvement whose atomicMin replaced another stamp claims v.
                    bool near = !kNearFar || candidate < far.threshold;
                    bool claimed;
                    if (kRing && !near) {  // an unreached vertex has no class; a reached far one has a list
                        dist_t old_distance = kPacked ? (old == DIST_INF ? DIST_INF : old >> dist_shift) : old;
                        claimed = far_class_changes(far, old_distance, candidate);
                    } else {
                        claimed = kPacked ? (old & ((1LL << dist_shift) - 1LL)) != stamp
                                  : near ? claim(near_stamps, v, near_stamp) : claim(far.stamps, v, far.stamp);
                    }
                    if (claimed) {
                        long long degree = out_degree(row_offsets, v);
                        degrees[item] = degree;
                        want_near[item] = near && degree > 0;
                        want_far[item] = !near && degree > 0;
                    }
                }
            }
        }
        block_push_entries(want_near, heads, degrees, out_counter, shift, out_vertices, out_starts, out_tiles,
                           s_near_warp);
        if (kRing) {
            block_push_ring(want_far, heads, candidates, far, s_ring_count, s_ring_base, &s_ring_minimum);
        } else if (kNearFar) {
            block_push_far(want_far, heads, candidates, far.counter, far.minimum, far.pile, s_far_warp);
        }
        __syncthreads();  // the shared arrays are rewritten for the next tile
    }
    if (count_relaxations) add_counts(words, attempts, improved);
}

// Solve start shared by both: distances (dist = DIST_INF, 0 at the source), the stamp arrays zeroed, every
// status word zeroed, and the source queued as entry 0 of queue 0 when it has out-arcs. The caller's kernel
// then sets its own control words (block 0, thread 0, after this returns; the source's queue counter too).
__device__ __forceinline__ void frontier_init(dist_t* dist, int* stamps, long long stamp_count, long long n,
                                              long long source, long long source_degree, vertex_t* vertices,
                                              long long* starts, int* tile_first, word_t* words, int n_words) {
    long long stride = (long long)gridDim.x * blockDim.x;
    long long first = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    for (long long v = first; v < n; v += stride) dist[v] = v == source ? 0LL : DIST_INF;
    for (long long v = first; v < stamp_count; v += stride) stamps[v] = 0;
    for (long long k = first; k * WF_TILE < source_degree; k += stride) tile_first[k] = 0;
    if (first == 0) {
        for (int i = 0; i < n_words; ++i) words[i] = 0ULL;
        vertices[0] = (vertex_t)source;
        starts[0] = 0;
    }
}

// The end of a captured batch of rounds (CUDA graph replay): the round index the kernels read is
// words[base_word] + their round argument, so a graph of `rounds` rounds (arguments 0 .. rounds - 1) ends by
// moving the base on. Plain launches leave the base at zero and pass the absolute round.
extern "C" __global__ void advance_bump_base(word_t* words, int base_word, long long rounds) {
    if (blockIdx.x == 0 && threadIdx.x == 0) words[base_word] += (word_t)rounds;
}

#endif  // SSSP_BENCH_ADVANCE_CUH
