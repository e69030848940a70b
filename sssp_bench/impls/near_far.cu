// Davidson et al.'s Near-Far Pile (the H-BF paper's "Near-Far Pile" comparator), non-negative weights only.
//
// A threshold T splits the work: the near queue holds vertices whose distance is below T, the far pile the
// others. Each round: (1) `near_far_advance` advances the near queue with the load-balanced advance of
// gpu/advance.cuh (NearFarRelax relaxes, NearFarPush pushes); an improved vertex goes to the next near queue when
// its new distance is below T, else onto the far pile (each once: round stamps for the near queue, epoch stamps
// for the far pile; near_far_pile.cuh); (2) when that left the near queue empty (Davidson et al.'s rule), or with
// fewer arcs than `refill_arcs` (a round that small costs the same latency however little it holds), T rises and
// `near_far_split` splits the far pile (otherwise it does nothing): entries whose distance fell below the old T
// are stale (they were queued near when they fell, this round or before) and dropped, those below the new T join
// the next near queue (none of them is there already: the advance queues near only below the old T), the rest
// form the next far pile. T rises by delta, or by a multiple of delta straight to the bucket of the smallest
// distance pushed onto the far pile, so empty buckets cost nothing (the minimum is kept as pushes happen;
// distances only fall, so it bounds the pile's true minimum from above and the jump never skips past a vertex
// that still needs work: anything below the new T goes near).
//
// Who decides the split: the last block of `near_far_advance` to finish (a block-done counter, one fence per
// block), which then sees the final size of the next near queue. It writes NF_SPLIT, and either carries the far
// state forward into the next slot or writes the new T and epoch there; `near_far_split` only reads these, so no
// block of it can see a near queue that another block is filling.
//
// Control state lives in three rotating slots of status words, NF_SLOT_WORDS each, from NF_SLOT0; slot r % 3 holds
// round r's input state: the near queue's packed counter, the far pile's size and minimum, T and the epoch (the
// number of splits so far; far pile e lives in half e % 2 of the pile array). Round r's advance appends to its own
// slot's far pile, writes the next near queue into slot (r + 1) % 3 and completes that slot (its last block: the
// far state carried forward, or the new T and epoch, the split then adding what it keeps), and resets slot
// (r + 2) % 3 (round r - 1's, read by nobody any more). The round index comes from the host; nothing else does, so
// the host can launch several rounds before it reads the words back, or replay them as a captured CUDA graph (the
// kernels' round is words[NF_BASE] + their round argument). Done when a slot's near queue and far pile are both
// empty (with far buckets, every list too: NF_PENDING); NF_ROUNDS counts the rounds that had work, NF_SPLITS the
// splits.
//
// Far buckets (far_buckets B > 0; near_far_advance_ring*, near_far_split_ring): the far side is B lists, bucket a
// (distances [a x delta, (a + 1) x delta)) in list a % B for a below the ring end (NF_RING_END), and an overflow
// pile (the epoch's half of the pile array) beyond it. A far improvement pushes its vertex when the class (bucket,
// or overflow) of its new distance differs from that of the value its atomicMin replaced: each vertex sits once
// in the list of its distance's class, the entries it left behind stale. The last advance block's warp 0 reads
// the B counters (NF_RING0 + k) and opens the lowest non-empty bucket at or above T / delta (split 1: T becomes
// its upper end, its live entries go near), or with none splits the overflow pile (split 2: T jumps as for the
// single pile, the ring restarts at the new T's bucket, every list emptied). NF_PENDING says a bucket still holds
// entries; the host's "done" needs it clear too.
//
// Distance words: plain int64 distances (near_far_advance, dist_shift 0), or packed with the stamp of the queue or
// pile that holds the vertex (near_far_advance_packed, kPacked: (distance << dist_shift) | stamp, and no stamp
// arrays; near_far_pile.cuh); the split reads a word's distance by the shift either way and restamps what it
// keeps, and near_far_unpack leaves plain distances at the end of a packed solve.
#include "near_far_pile.cuh"

#define NF_SLOT0 8
#define NF_SLOT_WORDS 7
#define NF_NEAR 0       // packed counter of the near queue (queue.cuh)
#define NF_FAR_COUNT 1  // far pile entries (with far buckets: the overflow pile's)
#define NF_FAR_MIN 2    // smallest distance pushed onto the far pile (DIST_INF when none)
#define NF_THRESHOLD 3  // T
#define NF_EPOCH 4      // splits so far (with far buckets: splits of the overflow pile)
#define NF_RING_END 5   // far buckets: the first bucket of the overflow pile
#define NF_PENDING 6    // far buckets: 1 when a bucket at or above T / delta holds entries
#define NF_ROUNDS 29
#define NF_SPLITS 30
#define NF_SPLIT 31        // round r's split: 0 none, 1 the far pile (far buckets: bucket NF_SPLIT_BUCKET), 2 overflow
#define NF_BLOCKS_DONE 32  // advance blocks finished this round; the last one resets it
#define NF_BASE 33         // added to the kernels' round argument (advance_bump_base, for graph replays)
#define NF_SPLIT_BUCKET 34  // far buckets: the bucket split 1 opens
#define NF_SPLIT_COUNT 35   // far buckets: the entries the split reads (the bucket's list, or the overflow pile)
#define NF_RING0 40        // far buckets: the entries of list k in word NF_RING0 + k (k < NF_RING_MAX)
#define NF_WORDS 56
static_assert(NF_WORDS == NF_RING0 + NF_RING_MAX, "a status word per far bucket list");

__device__ __forceinline__ word_t* nf_slot(word_t* words, long long round) {
    return words + NF_SLOT0 + NF_SLOT_WORDS * (round % 3);
}

__device__ __forceinline__ void nf_reset_slot(word_t* slot) {
    slot[NF_NEAR] = 0ULL;
    slot[NF_FAR_COUNT] = 0ULL;
    slot[NF_FAR_MIN] = (word_t)DIST_INF;
    slot[NF_THRESHOLD] = 0ULL;
    slot[NF_EPOCH] = 0ULL;
    slot[NF_RING_END] = 0ULL;
    slot[NF_PENDING] = 0ULL;
}

// The smallest old + k * delta above far_minimum (k >= 1), saturating at DIST_INF.
__device__ __forceinline__ dist_t nf_next_threshold(dist_t old_threshold, dist_t far_minimum, dist_t delta) {
    long long k = far_minimum >= old_threshold ? (far_minimum - old_threshold) / delta + 1 : 1;
    if (old_threshold >= DIST_INF || k > (DIST_INF - old_threshold) / delta) return DIST_INF;
    return old_threshold + k * delta;
}

// stamps: n near-queue stamps, then n far-pile stamps, zeroed only for plain distances (packed words carry
// their stamps, and the split writes stamps only when dist_shift is 0).
extern "C" __global__ void near_far_init(dist_t* dist, int* stamps, long long n, long long source,
                                         long long source_degree, vertex_t* vertices, long long* starts,
                                         int* tile_first, word_t* words, int shift, long long delta,
                                         int dist_shift, int far_buckets) {
    frontier_init(dist, stamps, dist_shift ? 0 : 2 * n, n, source, source_degree, vertices, starts, tile_first,
                  words, NF_WORDS);
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        for (int s = 0; s < 3; ++s) nf_reset_slot(nf_slot(words, s));
        word_t* first = nf_slot(words, 0);
        if (source_degree > 0) first[NF_NEAR] = (1ULL << shift) + (word_t)source_degree;
        first[NF_THRESHOLD] = (word_t)delta;  // the source (distance 0 < delta) is near
        first[NF_RING_END] = (word_t)(1 + far_buckets);  // buckets 1 .. far_buckets: the first far ones
    }
}

// The far-bucket decision of round r's last advance block, taken by its warp 0 (far buckets only): lane i looks
// at bucket T / delta + i of the ring. When the near queue needs refilling, the lowest non-empty bucket opens
// (split 1), or with every bucket empty a non-empty overflow pile is split (split 2: T jumps as for the single
// pile, the ring restarts at the new T's bucket, its lists emptied for the split to fill); otherwise nothing
// moves and the far state carries forward. Every word it needs is requested before any is used (atomics: L2,
// where the other blocks' pushes landed; T and the ring end were read when the kernel began), so the decision
// costs one round trip, as the single pile's does (a dependent read of the ring end cost 0.5 us a round on roads).
__device__ __forceinline__ void nf_ring_decide(word_t* words, word_t* current, word_t* next, dist_t threshold,
                                               long long epoch, long long ring_end, long long delta,
                                               int far_buckets, int shift, long long refill_arcs) {
    int lane = threadIdx.x;
    long long first = threshold / delta;  // T is a multiple of delta: its bucket is the first far one
    long long bucket = first + lane;
    bool looks = lane < far_buckets && bucket < ring_end;
    word_t held = looks ? atomicAdd(&words[NF_RING0 + bucket % far_buckets], 0ULL) : 0ULL;
    word_t near_out = 0ULL, far_count = 0ULL, far_min = 0ULL;
    if (lane == 0) {
        near_out = atomicAdd(&next[NF_NEAR], 0ULL);
        far_count = atomicAdd(&current[NF_FAR_COUNT], 0ULL);
        far_min = atomicMin(&current[NF_FAR_MIN], (word_t)DIST_INF);
    }
    unsigned nonempty = __ballot_sync(FULL_MASK, held != 0ULL);
    // refill_arcs >= 1, and every queued vertex has an arc: with 1, a split exactly when the near queue is empty
    bool refill = __shfl_sync(FULL_MASK, packed_arcs(near_out, shift) < refill_arcs ? 1 : 0, 0) != 0;
    far_count = __shfl_sync(FULL_MASK, far_count, 0);
    if (refill && nonempty == 0u && far_count != 0ULL) {  // split the overflow pile
        if (lane < far_buckets) words[NF_RING0 + lane] = 0ULL;  // every list empty: the split refills them
        if (lane == 0) {  // next[NF_FAR_COUNT] / [NF_FAR_MIN] stay reset for the entries the split keeps
            dist_t next_threshold = nf_next_threshold(threshold, (dist_t)far_min, (dist_t)delta);
            long long next_first = next_threshold / delta;
            next[NF_THRESHOLD] = (word_t)next_threshold;
            next[NF_EPOCH] = (word_t)(epoch + 1);
            next[NF_RING_END] = (word_t)(next_first < DIST_INF - far_buckets ? next_first + far_buckets : DIST_INF);
            next[NF_PENDING] = 0ULL;  // the split sets it when it fills a list
            words[NF_SPLIT_COUNT] = far_count;
            words[NF_SPLITS] += 1ULL;
            words[NF_SPLIT] = 2ULL;
        }
        return;
    }
    int opened = __ffs(nonempty) - 1;
    if (refill && nonempty != 0u && lane == opened) words[NF_SPLIT_COUNT] = held;
    if (lane != 0) return;
    next[NF_FAR_COUNT] = far_count;
    next[NF_FAR_MIN] = far_min;
    next[NF_EPOCH] = (word_t)epoch;
    next[NF_RING_END] = (word_t)ring_end;
    if (refill && nonempty != 0u) {  // open the lowest non-empty bucket
        next[NF_THRESHOLD] = (word_t)((first + opened + 1) * delta);
        next[NF_PENDING] = (nonempty >> opened) > 1u ? 1ULL : 0ULL;  // a bucket above the one opening
        words[NF_SPLIT_BUCKET] = (word_t)(first + opened);
        words[NF_SPLITS] += 1ULL;
        words[NF_SPLIT] = 1ULL;
    } else {
        next[NF_THRESHOLD] = (word_t)threshold;
        next[NF_PENDING] = nonempty != 0u ? 1ULL : 0ULL;
        words[NF_SPLIT] = 0ULL;
    }
}

// The advance's relax functor. kPacked: distance words packed with stamps (dist_shift stamp bits), else plain
// distances and stamp claims; kRing (far buckets): a far vertex is pushed when its far class changes (far_class),
// read from the value the atomicMin replaced: no far stamps.
template <bool kPacked, bool kRing>
struct NearFarRelax {
    typedef dist_t Tail;
    const offset_t* row_offsets;
    const vertex_t* column_ids;
    const weight_t* weights;
    int unit_weights;
    dist_t* dist;
    word_t* words;
    int* near_stamps;
    int near_stamp;
    FarPile far;
    int dist_shift;
    unsigned long long attempts;
    unsigned long long improved;

    __device__ __forceinline__ vertex_t entry(const vertex_t* vertices, long long i) const { return vertices[i]; }
    __device__ __forceinline__ offset_t row(vertex_t u) const { return row_offsets[u]; }
    __device__ __forceinline__ dist_t tail(vertex_t u) const { return kPacked ? dist[u] >> dist_shift : dist[u]; }

    __device__ __forceinline__ int operator()(offset_t e, dist_t du, vertex_t* head, dist_t* distance) {
        vertex_t v = column_ids[e];
        dist_t w = arc_weight(weights, unit_weights, e);
        ++attempts;
        dist_t stamp = 0LL, old = 0LL;
        if (kPacked) stamp = packed_stamp(du + w < far.threshold, near_stamp, far.stamp);
        bool lowered = kPacked ? relax_packed(dist, v, du + w, dist_shift, stamp, &old)
                       : kRing ? relax_keeping_old(dist, v, du + w, &old)
                               : relax(dist, v, du, w, words);
        if (!lowered) return PUSH_NONE;
        ++improved;
        dist_t candidate = du + w;
        *head = v;
        *distance = candidate;
        // claimed here, before the advance reads the degree: a vertex improved by several arcs of a round reads
        // its row offsets once. Packed: the improvement whose atomicMin replaced another stamp claims v.
        bool near = candidate < far.threshold;
        bool claimed;
        if (kRing && !near) {  // an unreached vertex has no class; a reached far one has a list
            dist_t old_distance = kPacked ? (old == DIST_INF ? DIST_INF : old >> dist_shift) : old;
            claimed = far_class_changes(far, old_distance, candidate);
        } else {
            claimed = kPacked ? (old & ((1LL << dist_shift) - 1LL)) != stamp
                      : near ? claim(near_stamps, v, near_stamp) : claim(far.stamps, v, far.stamp);
        }
        if (!claimed) return PUSH_NONE;
        return near ? PUSH_QUEUE : PUSH_OTHER;
    }
};

// Round r's advance, then (its last block) the split decision; kPacked and kRing as for NearFarRelax (far
// buckets: far_buckets lists of the pile array after its two overflow halves, FarPile's ring). The host compiles
// and looks up its four variants by name, near_far_advance<kPacked, kRing> (NVRTC name expressions, near_far.py).
template <bool kPacked, bool kRing>
__global__ void __launch_bounds__(ADVANCE_BLOCK, ADVANCE_MIN_BLOCKS)
near_far_advance(const offset_t* __restrict__ row_offsets, const vertex_t* __restrict__ column_ids,
                 const weight_t* __restrict__ weights, int unit_weights, dist_t* dist, vertex_t* vertices,
                 long long* starts, int* tile_first, int* stamps, vertex_t* piles, long long n,
                 long long tiles_per_queue, word_t* words, int shift, long long round_offset, long long delta,
                 long long refill_arcs, int count_relaxations, int dist_shift, int far_buckets) {
    __shared__ AdvanceTile<dist_t> s_tile;
    __shared__ word_t s_near_warp[ADVANCE_WARPS], s_far_warp[ADVANCE_WARPS];
    __shared__ RingScratch s_ring;
    __shared__ int last_block;
    long long round = (long long)words[NF_BASE] + round_offset;  // nobody writes NF_BASE during a round
    word_t* current = nf_slot(words, round);
    word_t* next = nf_slot(words, round + 1);
    word_t in_packed = current[NF_NEAR];
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        nf_reset_slot(nf_slot(words, round + 2));
        // the far count only grows during this kernel, and only when the near queue is not empty
        if (in_packed != 0ULL || current[NF_FAR_COUNT] != 0ULL || current[NF_PENDING] != 0ULL) {
            words[NF_ROUNDS] += 1ULL;
        }
    }
    long long epoch = (long long)current[NF_EPOCH];
    dist_t threshold = (dist_t)current[NF_THRESHOLD];
    long long ring_end = kRing ? (long long)current[NF_RING_END] : 0LL;
    if (in_packed != 0ULL) {  // block-uniform
        FarPile far = {};
        far.threshold = threshold;
        far.pile = piles + (epoch & 1) * n;
        far.counter = &current[NF_FAR_COUNT];
        far.minimum = &current[NF_FAR_MIN];
        far.stamps = stamps + n;
        far.stamp = kRing ? 0 : (int)(epoch + 1);  // kRing: far words carry stamp 0 (packed) and no claims
        if (kRing) {
            far.ring = piles + 2 * n;
            far.ring_counts = words + NF_RING0;
            far.ring_end = ring_end;
            far.ring_limit = far_ring_limit(ring_end, delta);
            far.delta = delta;
            far.buckets = far_buckets;
            far.n = n;
            ring_scratch_init(&s_ring);  // published by the first tile's barrier
        }
        long long in = round & 1, out = in ^ 1;
        NearFarRelax<kPacked, kRing> relax = {row_offsets, column_ids, weights, unit_weights, dist, words,
                                              stamps, (int)(round + 1), far, dist_shift, 0ULL, 0ULL};
        NearFarPush<kRing> push = {queue_out(vertices + out * n, starts + out * n,
                                             tile_first + out * tiles_per_queue, &next[NF_NEAR], shift),
                                   far, s_near_warp, s_far_warp, &s_ring, true, false};
        advance_queue(row_offsets, vertices + in * n, starts + in * n, tile_first + in * tiles_per_queue,
                      in_packed, shift, relax, push, s_tile);
        if (count_relaxations) add_counts(words, relax.attempts, relax.improved);
    }
    // The last block to finish decides whether this round's split runs. One fence per block, in the thread that
    // counts the block done, after the barrier (fences are cumulative: they cover the block's writes the barrier
    // ordered before it); a fence in every thread stalled R-MAT's large rounds (a fifth of the warp samples).
    __syncthreads();
    if (threadIdx.x == 0) {
        __threadfence();
        last_block = atomicAdd(&words[NF_BLOCKS_DONE], 1ULL) == (word_t)(gridDim.x - 1);
    }
    __syncthreads();
    if (!last_block || threadIdx.x >= (kRing ? 32 : 1)) return;
    __threadfence();
    if (kRing) {
        nf_ring_decide(words, current, next, threshold, epoch, ring_end, delta, far_buckets, shift,
                       refill_arcs);
        if (threadIdx.x == 0) words[NF_BLOCKS_DONE] = 0ULL;
        return;
    }
    word_t near_out = atomicAdd(&next[NF_NEAR], 0ULL);
    word_t far_count = atomicAdd(&current[NF_FAR_COUNT], 0ULL);
    word_t far_min = atomicMin(&current[NF_FAR_MIN], (word_t)DIST_INF);
    // refill_arcs >= 1, and every queued vertex has an arc: with 1, a split exactly when the near queue is empty
    if (far_count == 0ULL || packed_arcs(near_out, shift) >= refill_arcs) {  // no split: carry far, T forward
        next[NF_FAR_COUNT] = far_count;
        next[NF_FAR_MIN] = far_min;
        next[NF_THRESHOLD] = (word_t)threshold;
        next[NF_EPOCH] = (word_t)epoch;
        words[NF_SPLIT] = 0ULL;
    } else {  // next[NF_FAR_COUNT] / [NF_FAR_MIN] stay reset (0 / DIST_INF) for the entries the split keeps
        next[NF_THRESHOLD] = (word_t)nf_next_threshold(threshold, (dist_t)far_min, (dist_t)delta);
        next[NF_EPOCH] = (word_t)(epoch + 1);
        words[NF_SPLITS] += 1ULL;
        words[NF_SPLIT] = 1ULL;
    }
    words[NF_BLOCKS_DONE] = 0ULL;
}

#if !defined(__CUDACC_RTC__)
// nvcc (the CI compile check) instantiates here the variants NVRTC instantiates from the host's name expressions.
[[maybe_unused]] static decltype(&near_far_advance<false, false>) const near_far_advance_variants[] = {
    &near_far_advance<false, false>, &near_far_advance<true, false>, &near_far_advance<false, true>,
    &near_far_advance<true, true>};
#endif

// The split's visit functor (one far pile): entry i of the far pile of slot r % 3 goes to slot (r + 1) % 3's near
// queue below the new T, stays far at or above it (restamped for the next epoch's pile), or is dropped as stale
// below the old T (settled through the near queue). No claims (atomics) here: the pile holds each vertex once
// (its far stamp), and only vertices below the old T went near this round.
struct NearFarSplitVisit {
    const offset_t* row_offsets;
    dist_t* dist;
    int* stamps;
    const vertex_t* pile;
    long long n;
    dist_t old_threshold;
    dist_t new_threshold;
    int dist_shift;
    int far_stamp;

    __device__ __forceinline__ void operator()(long long i, int item, TileItems& items) const {
        vertex_t v = pile[i];
        dist_t d = dist[v] >> dist_shift;  // 0 unless packed
        items.vertex[item] = v;
        items.distance[item] = d;
        if (d < old_threshold) return;  // stale
        if (d < new_threshold) {
            items.degree[item] = out_degree(row_offsets, v);  // > 0: only such vertices are piled
            items.queued[item] = true;
        } else {  // stamped for the next epoch's pile (no advance runs during the split)
            if (dist_shift) dist[v] = (d << dist_shift) | packed_stamp(false, 0, far_stamp);
            else stamps[n + v] = far_stamp;
            items.other[item] = true;
        }
    }
};

// Round r's split (when NF_SPLIT says so): the far pile of slot r % 3 into slot (r + 1) % 3's near queue and
// far pile, by the old T (slot r % 3) and the new T (slot (r + 1) % 3, set by the advance's last block).
extern "C" __global__ void near_far_split(const offset_t* __restrict__ row_offsets, dist_t* dist,
                                          vertex_t* vertices, long long* starts, int* tile_first, int* stamps,
                                          vertex_t* piles, long long n, long long tiles_per_queue, word_t* words,
                                          int shift, long long round_offset, int dist_shift, long long delta,
                                          int far_buckets) {
    __shared__ word_t s_near_warp[ADVANCE_WARPS], s_far_warp[ADVANCE_WARPS];
    if (words[NF_SPLIT] == 0ULL) return;
    long long round = (long long)words[NF_BASE] + round_offset;
    word_t* current = nf_slot(words, round);
    word_t* next = nf_slot(words, round + 1);
    long long far_count = (long long)current[NF_FAR_COUNT];
    long long epoch = (long long)current[NF_EPOCH];
    long long out = (round + 1) & 1;
    NearFarSplitVisit visit = {row_offsets, dist, stamps, piles + (epoch & 1) * n, n, (dist_t)current[NF_THRESHOLD],
                               (dist_t)next[NF_THRESHOLD], dist_shift, (int)(epoch + 2)};
    FarPile kept = {};
    kept.pile = piles + ((epoch + 1) & 1) * n;
    kept.counter = &next[NF_FAR_COUNT];
    kept.minimum = &next[NF_FAR_MIN];
    NearFarPush<false> push = {queue_out(vertices + out * n, starts + out * n, tile_first + out * tiles_per_queue,
                                         &next[NF_NEAR], shift),
                               kept, s_near_warp, s_far_warp, nullptr, true, false};
    for_each_in_tiles(far_count, visit, push);
}

// The far-bucket split's visit functor: entry i of the list read (a bucket's list, or the overflow pile) is live
// when its distance is still in that list's class; a live one below the new T joins the next near queue, a live
// one at or above it (overflow split only) goes to the far class of its distance in the new ring.
struct NearFarRingSplitVisit {
    const offset_t* row_offsets;
    const dist_t* dist;
    const vertex_t* list;
    dist_t threshold;  // the new T
    long long delta;
    long long bucket;   // split 1: the bucket opened
    long long old_end;  // split 2: the old ring end
    bool overflow;
    int dist_shift;

    __device__ __forceinline__ void operator()(long long i, int item, TileItems& items) const {
        vertex_t v = list[i];
        dist_t d = dist[v] >> dist_shift;  // 0 unless packed; far words carry stamp 0
        items.vertex[item] = v;
        items.distance[item] = d;
        long long klass = d / delta;
        bool live = overflow ? klass >= old_end : klass == bucket;
        if (live && d < threshold) {
            items.degree[item] = out_degree(row_offsets, v);  // > 0: only such vertices are listed
            items.queued[item] = true;
        } else {  // overflow only: bucket a's live entries are below (a + 1) x delta = T
            items.other[item] = live;
        }
    }
};

// Round r's split with far buckets (when NF_SPLIT says so; the arguments are near_far_split's). Split 1 opens
// bucket a = NF_SPLIT_BUCKET: its list's entries whose distance is still in [a x delta, (a + 1) x delta) join
// the next near queue, the others (fallen lower since: their lower list or the near queue has them) are stale.
// Split 2 reads the overflow pile of slot r % 3: entries below the old ring end are stale (they fell into a
// bucket since, every one of which is empty now), the rest go near below the new T, into the new ring's lists
// below its end, else onto the next overflow pile (far_class with slot (r + 1) % 3's T and ring end).
extern "C" __global__ void near_far_split_ring(const offset_t* __restrict__ row_offsets, dist_t* dist,
                                               vertex_t* vertices, long long* starts, int* tile_first, int* stamps,
                                               vertex_t* piles, long long n, long long tiles_per_queue,
                                               word_t* words, int shift, long long round_offset, int dist_shift,
                                               long long delta, int far_buckets) {
    __shared__ word_t s_near_warp[ADVANCE_WARPS];
    __shared__ RingScratch s_ring;
    word_t split = words[NF_SPLIT];
    if (split == 0ULL) return;
    long long round = (long long)words[NF_BASE] + round_offset;
    word_t* current = nf_slot(words, round);
    word_t* next = nf_slot(words, round + 1);
    long long epoch = (long long)current[NF_EPOCH];
    long long bucket = (long long)words[NF_SPLIT_BUCKET];
    bool overflow = split == 2ULL;
    const vertex_t* list = overflow ? piles + (epoch & 1) * n : piles + 2 * n + (bucket % far_buckets) * n;
    long long count = (long long)words[NF_SPLIT_COUNT];
    FarPile far = {};  // the new ring (overflow split only)
    far.threshold = (dist_t)next[NF_THRESHOLD];
    far.pile = piles + ((epoch + 1) & 1) * n;
    far.counter = &next[NF_FAR_COUNT];
    far.minimum = &next[NF_FAR_MIN];
    far.ring = piles + 2 * n;
    far.ring_counts = words + NF_RING0;
    far.ring_end = (long long)next[NF_RING_END];
    far.ring_limit = far_ring_limit(far.ring_end, delta);
    far.delta = delta;
    far.buckets = far_buckets;
    far.n = n;
    ring_scratch_init(&s_ring);  // published by the tile loop's first barrier (block_reserve)
    long long out = (round + 1) & 1;
    NearFarRingSplitVisit visit = {row_offsets, dist, list, far.threshold, delta, bucket,
                                   (long long)current[NF_RING_END], overflow, dist_shift};
    NearFarPush<true> push = {queue_out(vertices + out * n, starts + out * n, tile_first + out * tiles_per_queue,
                                        &next[NF_NEAR], shift),
                              far, s_near_warp, nullptr, &s_ring, overflow, false};
    for_each_in_tiles(count, visit, push);
    if (push.pushed_far && threadIdx.x == 0) next[NF_PENDING] = 1ULL;  // may be overflow entries only: harmless
}

// After a packed solve: the distances alone (an unreached vertex's word is DIST_INF itself).
extern "C" __global__ void near_far_unpack(dist_t* dist, long long n, int dist_shift) {
    long long stride = (long long)gridDim.x * blockDim.x;
    for (long long v = (long long)blockIdx.x * blockDim.x + threadIdx.x; v < n; v += stride) {
        dist_t word = dist[v];
        dist[v] = word == DIST_INF ? DIST_INF : word >> dist_shift;
    }
}
