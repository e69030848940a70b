// The far side of Davidson et al.'s Near-Far Pile (near_far.cu): where the advance's push functor puts an
// improved vertex whose new distance is at or above the threshold T, and how a distance word carries a stamp.
//
// The far pile: a plain vertex list with its own stamp per epoch (each vertex piled once per epoch) and a running
// minimum of the distances pushed. Far buckets (kRing, near_far.py's far_buckets): bucket a holds distances
// [a x delta, (a + 1) x delta); buckets below the ring end go to list a % buckets, the rest onto an overflow pile.
//
// Packed distances (near_far.py's packed_dedup): each distance word holds (distance << dist_shift) | stamp, H-BF's
// 64-bit duplicate removal (its Algorithms 5 and 6) applied to both destinations. An improvement writes its
// destination's stamp with the distance in ONE atomicMin, and the improvement whose atomicMin replaced another
// stamp pushes the vertex: no stamp arrays, no second read and atomicExch per improving arc. Stamps
// (packed_stamp): odd 2 x round + 1 for the near queue of a round, even 2 x (epoch + 1) for the far pile of an
// epoch (the split restamps the vertices it keeps for the next epoch's pile), 0 before either. A vertex piled far
// that falls below T later in the same round sees the far stamp and is queued near as well (the split drops its
// stale far entry). The host picks dist_shift so that every distance and every stamp fit (near_far.py).
#ifndef SSSP_BENCH_NEAR_FAR_PILE_CUH
#define SSSP_BENCH_NEAR_FAR_PILE_CUH

#include "advance.cuh"

#define NF_RING_MAX 16  // the most far buckets (their counters are status words)

// Where the near-far classification of an improved vertex goes.
struct FarPile {
    dist_t threshold;   // new distance < threshold: near queue; otherwise the far pile
    vertex_t* pile;     // the single far pile, or with buckets the overflow pile
    word_t* counter;
    word_t* minimum;
    int* stamps;
    int stamp;
    // far buckets (kRing): bucket a holds distances [a x delta, (a + 1) x delta); buckets below ring_end go to
    // list a % buckets (ring + (a % buckets) x n, its count ring_counts[a % buckets]), the rest onto the pile.
    vertex_t* ring;
    word_t* ring_counts;
    long long ring_end;
    dist_t ring_limit;  // ring_end x delta (saturated): the overflow pile's distances start there
    dist_t delta;
    int buckets;
    long long n;
};

// The shared memory of block_push_ring: per-class counts and bases, and the overflow pile's minimum.
struct RingScratch {
    unsigned count[NF_RING_MAX + 1];
    word_t base[NF_RING_MAX + 1];
    word_t minimum;
};

// Sets the block's RingScratch as block_push_ring expects it on entry (published by the caller's next barrier).
__device__ __forceinline__ void ring_scratch_init(RingScratch* s) {
    if (threadIdx.x <= NF_RING_MAX) {
        s->count[threadIdx.x] = 0u;
        if (threadIdx.x == 0) s->minimum = (word_t)DIST_INF;
    }
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

// The stamp of packed distance words for the near queue of round `round_stamp` - 1 (odd) or the far pile of epoch
// `epoch_stamp` - 1 (even): the stamps of FarPile and claim, kept apart so they never compare equal.
__device__ __forceinline__ dist_t packed_stamp(bool near, int round_stamp, int epoch_stamp) {
    return near ? 2LL * round_stamp + 1LL : 2LL * epoch_stamp;
}

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

// Block-collective: this thread's vertices want[i] go onto the far pile, and the smallest distance pushed
// lowers *minimum (distances here are non-negative, so unsigned order is signed order). One atomicAdd and at
// most one atomicMin per warp that pushes; `s_warp` as for block_reserve.
__device__ __forceinline__ void block_push_far(const bool* want, const vertex_t* v, const dist_t* d,
                                               word_t* counter, word_t* minimum, vertex_t* pile, word_t* s_warp) {
    word_t count = 0ULL;
    dist_t smallest = DIST_INF;
#pragma unroll
    for (int i = 0; i < ADVANCE_ITEMS; ++i) {
        if (want[i]) {
            count += 1ULL;
            smallest = d[i] < smallest ? d[i] : smallest;
        }
    }
    word_t slot = block_reserve(count, counter, s_warp);
    if (__ballot_sync(FULL_MASK, count != 0ULL) == 0u) return;  // warp-uniform: this warp pushes nothing
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) {
        dist_t other = __shfl_xor_sync(FULL_MASK, smallest, offset);
        smallest = other < smallest ? other : smallest;
    }
    // read first: the minimum settles early, and one atomicMin per pushing warp on one word serialises in L2
    if ((threadIdx.x & 31) == 0 && smallest < (dist_t)*(volatile word_t*)minimum) {
        atomicMin(minimum, (word_t)smallest);
    }
#pragma unroll
    for (int i = 0; i < ADVANCE_ITEMS; ++i) {
        if (want[i]) pile[slot++] = v[i];
    }
}

// Block-collective: this thread's vertices want[i] go to the far class of their distance d[i] (far_class): a ring
// list, or the overflow pile, whose minimum d[i] lowers. Slots are counted with shared-memory atomics, then
// one atomicAdd per class and block reserves them. `s` must be as ring_scratch_init leaves it on entry, with a
// barrier since; it is left so for the next call. Returns whether the block pushed.
__device__ __forceinline__ bool block_push_ring(const bool* want, const vertex_t* v, const dist_t* d,
                                                const FarPile& far, RingScratch* s) {
    unsigned local[ADVANCE_ITEMS];
    int list[ADVANCE_ITEMS];
    bool any = false;
#pragma unroll
    for (int i = 0; i < ADVANCE_ITEMS; ++i) {
        list[i] = 0;
        local[i] = 0u;
        if (!want[i]) continue;
        any = true;
        long long klass = far_class(far, d[i]);
        list[i] = klass == far.ring_end ? far.buckets : (int)(klass % far.buckets);
        local[i] = atomicAdd(&s->count[list[i]], 1u);
        if (list[i] == far.buckets) atomicMin(&s->minimum, (word_t)d[i]);
    }
    if (__syncthreads_or(any) == 0) return false;  // block-uniform: nothing pushed, the counts are still 0
    if (threadIdx.x <= (unsigned)far.buckets) {
        unsigned count = s->count[threadIdx.x];
        if (count != 0u) {
            bool overflow = threadIdx.x == (unsigned)far.buckets;
            s->base[threadIdx.x] = atomicAdd(overflow ? far.counter : &far.ring_counts[threadIdx.x], (word_t)count);
            if (overflow && s->minimum < *(volatile word_t*)far.minimum) atomicMin(far.minimum, s->minimum);
        }
        s->count[threadIdx.x] = 0u;  // only this thread touches it until the next call's barrier
        if (threadIdx.x == (unsigned)far.buckets) s->minimum = (word_t)DIST_INF;
    }
    __syncthreads();
#pragma unroll
    for (int i = 0; i < ADVANCE_ITEMS; ++i) {
        if (!want[i]) continue;
        vertex_t* target = list[i] == far.buckets ? far.pile : far.ring + (long long)list[i] * far.n;
        target[s->base[list[i]] + local[i]] = v[i];
    }
    return true;
}

// The push functor of the Near-Far advances and splits: the items marked `queued` into the next near queue, those
// marked `other` onto the far side: the far pile, or with kRing (and `far_pushes`, block-uniform) the far class of
// their distance. `pushed_far`: whether a ring push of this block pushed anything. The shared scratch is the
// kernel's: ADVANCE_WARPS words each for the near and far pushes' scans (block_reserve), and kRing's RingScratch.
template <bool kRing>
struct NearFarPush {
    QueueOut near;
    FarPile far;
    word_t* s_near_warp;
    word_t* s_far_warp;  // one far pile only
    RingScratch* s_ring;  // kRing only, initialised by ring_scratch_init
    bool far_pushes;
    bool pushed_far;

    __device__ __forceinline__ void operator()(const TileItems& items) {
        push_queued(items, near, s_near_warp);
        if (kRing) {
            if (far_pushes) pushed_far |= block_push_ring(items.other, items.vertex, items.distance, far, s_ring);
        } else {
            block_push_far(items.other, items.vertex, items.distance, far.counter, far.minimum, far.pile,
                           s_far_warp);
        }
    }
};

#endif  // SSSP_BENCH_NEAR_FAR_PILE_CUH
