// parDijkstra on the parallel bucket heap (parbucketheap-pardijkstra, sections 3.2 and 4.1): one persistent kernel
// per solve, one thread block per heap level. sssp_bench/kernels/bucket_heap.py is the specification: every step
// below mirrors a line of its BucketHeap.resolve / par_dijkstra_model, so the state after each Resolve, the order
// of extractions and the counters are the model's.
//
// Memory (global, allocated in prepare): level i's bucket B_i (capacity 3d4^i: a bucket of 2d4^i plus the signals
// merged into it), signal buffer S_i (d4^i) and scratch X_i (3d4^i), each a pair of arrays (priority int64, value
// int32) at offset 3P_i / P_i / 3P_i of its pool, P_i = d(4^i - 1)/3. Control per level (ctl, 8 long longs):
// |B_i|, |S_i|, the bound p_i as (priority, value) and done_i, the Resolve(i) finished. Resolve(i) touches levels i
// and i+1 only (and their scratch), so under the schedule (no two adjacent levels at once) every list has one
// owner at a time.
//
// Block 0 runs the rounds: FindMin over B_0 (least (priority, value), first position); S_0 = {(v, DEL)} (the
// element itself stays in B_0: Resolve(0)'s DeleteDuplicates removes it, the same state as the model's pop); then
// Resolve(0). A vertex already settled is dropped (one settled read per extraction); otherwise it is settled, its
// distance written, and its out-arcs (rows sorted by column in prepare, so updates come sorted by value) to
// unsettled targets (or all, without settled_check) go into S_0 in bulkUpdates of at most d, each followed by
// Resolve(0). Block i > 0 spins on the done words and runs Resolve(i) number k+1 once done_{i-1} >= 4(k+1) and
// done_{i+1} >= floor(k/4); block 0 starts Resolve(0) number j+1 once done_1 >= floor(j/4): Theorem 3.1 and
// Lemma 3.1, so adjacent levels never resolve at once and no grid barrier is needed.
//
// Hand-off between blocks: the writer's threads fence, the block syncs, thread 0 stores done (volatile); the waiting
// thread 0 reads it volatile, fences, its block syncs, and every read of a list or control word another block
// wrote goes through L2 (__ldcg), never a possibly stale L1 line.
//
// Block primitives (one block, blockDim.x threads, tiles of blockDim.x elements): Merge places each element by a
// binary search in the other list (lower bound for the first list, upper bound for the second: stable, the first
// list first on equal values); DeleteDuplicates keeps per value the element of least (priority, position), found
// by looking along the value's run (a DEL, priority -1, wins); compaction and the 2- and 3-way splits are block
// scans of packed flags (21 bits per class); Select is a radix select (8-bit digits) on priority - min over the
// candidates, then on the values that tie at the selected priority (deterministic, unlike the paper's randomized
// quickselect, so the split is the model's).
//
// End: when B_0 is empty, block 0 waits until no level may resolve (two identical snapshots of the done words),
// then looks for an element that is not a DEL in any level: none ends the solve (the finished word releases every
// block); one left (deletions broke the preconditions) is met with an empty operation, Resolve(0) of nothing.
// Overflow of a capacity (a broken invariant, never expected) or too many operations set the error word and end
// every block.
#include "common.cuh"

#define PD_DEL (-1LL)
#define PD_VALUE_MAX 0x7fffffff
#define PD_MAX_WARPS 32
#define PD_MAX_LEVELS 24  // d4^(L-1) >= n < 2^31 needs at most 17

#define PD_CTL_STRIDE 8
#define PD_B_SIZE 0
#define PD_S_SIZE 1
#define PD_BOUND_P 2
#define PD_BOUND_V 3
#define PD_DONE 4

// status words
#define PD_FINISHED 8
#define PD_ERROR 9          // 0, or PD_ERR_*
#define PD_ITERATIONS 10    // extractMins
#define PD_STALE 11         // extractMins of a vertex already settled
#define PD_BULK 12          // bulkUpdates (the source's included)
#define PD_EMPTY_OPS 13
#define PD_RESOLVE0_NS 14   // sum of the Resolve(0) times (%globaltimer), waits excluded
#define PD_RESOLVE0_COUNT 15
#define PD_WORDS 16

#define PD_ERR_OVERFLOW 1
#define PD_ERR_LAST_LEVEL 2
#define PD_ERR_OPERATIONS 3
#define PD_ERR_STALLED 4    // block 0 waited PD_STALL_NS on the levels below: a bug guard, never a hang (a legit
                            // wait is one deeper Resolve, far shorter on any graph this runs on)
#define PD_STALL_NS 60000000000ULL

typedef long long prio_t;

struct List {
    prio_t* p;
    vertex_t* v;
};

struct Heap {
    prio_t* bucket_p;
    vertex_t* bucket_v;
    prio_t* signal_p;
    vertex_t* signal_v;
    prio_t* scratch_p;
    vertex_t* scratch_v;
    long long* ctl;
    long long d;
    int levels;
};

struct Shared {
    unsigned long long warp_sums[PD_MAX_WARPS];
    unsigned long long total;
    long long red_a[PD_MAX_WARPS];
    long long red_b[PD_MAX_WARPS];
    long long red_c[PD_MAX_WARPS];
    long long out[4];
    unsigned hist[256];
    int flag;
};

__device__ __forceinline__ long long vload(const long long* a) { return *(const volatile long long*)a; }
__device__ __forceinline__ void vstore(long long* a, long long x) { *(volatile long long*)a = x; }
__device__ __forceinline__ word_t vload_word(const word_t* a) { return *(const volatile word_t*)a; }

// tests/emulation/ compiles this file for the host (PD_HOST_EMULATION: a thread per CUDA thread, shared memory and
// the timer from its shim); on the device these are shared memory and %globaltimer.
#ifndef PD_BLOCK_SHARED
#define PD_BLOCK_SHARED(type, name) __shared__ type name
#endif

__device__ __forceinline__ unsigned long long global_ns() {
#ifdef PD_HOST_EMULATION
    return emulated_ns();
#else
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
#endif
}

__device__ __forceinline__ long long unit(const Heap& h, int i) { return h.d << (2 * i); }  // d4^i
__device__ __forceinline__ long long prefix(const Heap& h, int i) { return h.d * (((1LL << (2 * i)) - 1) / 3); }
__device__ __forceinline__ List bucket(const Heap& h, int i) {
    long long o = 3 * prefix(h, i);
    return List{h.bucket_p + o, h.bucket_v + o};
}
__device__ __forceinline__ List signal(const Heap& h, int i) {
    long long o = prefix(h, i);
    return List{h.signal_p + o, h.signal_v + o};
}
__device__ __forceinline__ List scratch(const Heap& h, int i) {
    long long o = 3 * prefix(h, i);
    return List{h.scratch_p + o, h.scratch_v + o};
}

// (priority, value) <= (bp, bv), and not a DEL: an element that stays above (in a bucket of) the bound's level.
__device__ __forceinline__ bool is_small(prio_t p, vertex_t v, prio_t bp, vertex_t bv) {
    return p != PD_DEL && (p < bp || (p == bp && v <= bv));
}

// --- block-wide scans and reductions (every thread calls; they end with a barrier so shared can be reused) ------

__device__ unsigned long long block_exclusive_scan(unsigned long long x, unsigned long long* total, Shared& sh) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
    unsigned long long inclusive = warp_inclusive_sum(x);
    if (lane == 31) sh.warp_sums[warp] = inclusive;
    __syncthreads();
    if (warp == 0) {
        unsigned long long w = lane < warps ? sh.warp_sums[lane] : 0ULL;
        unsigned long long wi = warp_inclusive_sum(w);
        if (lane < warps) sh.warp_sums[lane] = wi - w;
        if (lane == 31) sh.total = wi;
    }
    __syncthreads();
    unsigned long long result = sh.warp_sums[warp] + inclusive - x;
    *total = sh.total;
    __syncthreads();
    return result;
}

__device__ long long block_sum(long long x, Shared& sh) {
    unsigned long long total;
    block_exclusive_scan((unsigned long long)x, &total, sh);
    return (long long)total;
}

// Lexicographic minimum of (a, b, c) over the block.
__device__ void block_min3(long long& a, long long& b, long long& c, Shared& sh) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) {
        long long oa = __shfl_xor_sync(0xffffffffu, a, offset);
        long long ob = __shfl_xor_sync(0xffffffffu, b, offset);
        long long oc = __shfl_xor_sync(0xffffffffu, c, offset);
        if (oa < a || (oa == a && (ob < b || (ob == b && oc < c)))) { a = oa; b = ob; c = oc; }
    }
    if (lane == 0) { sh.red_a[warp] = a; sh.red_b[warp] = b; sh.red_c[warp] = c; }
    __syncthreads();
    if (warp == 0) {
        a = lane < warps ? sh.red_a[lane] : DIST_INF;
        b = lane < warps ? sh.red_b[lane] : DIST_INF;
        c = lane < warps ? sh.red_c[lane] : DIST_INF;
#pragma unroll
        for (int offset = 16; offset > 0; offset >>= 1) {
            long long oa = __shfl_xor_sync(0xffffffffu, a, offset);
            long long ob = __shfl_xor_sync(0xffffffffu, b, offset);
            long long oc = __shfl_xor_sync(0xffffffffu, c, offset);
            if (oa < a || (oa == a && (ob < b || (ob == b && oc < c)))) { a = oa; b = ob; c = oc; }
        }
        if (lane == 0) { sh.out[0] = a; sh.out[1] = b; sh.out[2] = c; }
    }
    __syncthreads();
    a = sh.out[0]; b = sh.out[1]; c = sh.out[2];
    __syncthreads();
}

// Minimum of a and of b, maximum of c, over the block (independently).
__device__ void block_min_min_max(long long& a, long long& b, long long& c, Shared& sh) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) {
        a = min(a, __shfl_xor_sync(0xffffffffu, a, offset));
        b = min(b, __shfl_xor_sync(0xffffffffu, b, offset));
        c = max(c, __shfl_xor_sync(0xffffffffu, c, offset));
    }
    if (lane == 0) { sh.red_a[warp] = a; sh.red_b[warp] = b; sh.red_c[warp] = c; }
    __syncthreads();
    if (warp == 0) {
        a = lane < warps ? sh.red_a[lane] : DIST_INF;
        b = lane < warps ? sh.red_b[lane] : DIST_INF;
        c = lane < warps ? sh.red_c[lane] : -DIST_INF;
#pragma unroll
        for (int offset = 16; offset > 0; offset >>= 1) {
            a = min(a, __shfl_xor_sync(0xffffffffu, a, offset));
            b = min(b, __shfl_xor_sync(0xffffffffu, b, offset));
            c = max(c, __shfl_xor_sync(0xffffffffu, c, offset));
        }
        if (lane == 0) { sh.out[0] = a; sh.out[1] = b; sh.out[2] = c; }
    }
    __syncthreads();
    a = sh.out[0]; b = sh.out[1]; c = sh.out[2];
    __syncthreads();
}

// --- list primitives ---------------------------------------------------------------------------------------------

// Elements of values[0, count) below `value` (lower) or at most `value` (upper).
__device__ __forceinline__ long long rank_in(const vertex_t* values, long long count, vertex_t value, bool upper) {
    long long low = 0, high = count;
    while (low < high) {
        long long middle = low + ((high - low) >> 1);
        vertex_t at = __ldcg(values + middle);
        if (at < value || (upper && at == value)) low = middle + 1; else high = middle;
    }
    return low;
}

// out = Merge(a, b) by value, stable, a's elements first on equal values. out aliases neither.
__device__ void block_merge(List a, long long an, List b, long long bn, List out) {
    for (long long j = threadIdx.x; j < an; j += blockDim.x) {
        vertex_t value = __ldcg(a.v + j);
        long long at = j + rank_in(b.v, bn, value, false);
        out.p[at] = __ldcg(a.p + j);
        out.v[at] = value;
    }
    for (long long j = threadIdx.x; j < bn; j += blockDim.x) {
        vertex_t value = __ldcg(b.v + j);
        long long at = j + rank_in(a.v, an, value, true);
        out.p[at] = __ldcg(b.p + j);
        out.v[at] = value;
    }
    __threadfence_block();
    __syncthreads();
}

__device__ void block_copy(List from, long long count, List to) {
    for (long long j = threadIdx.x; j < count; j += blockDim.x) {
        to.p[j] = __ldcg(from.p + j);
        to.v[j] = __ldcg(from.v + j);
    }
    __threadfence_block();
    __syncthreads();
}

// out = DeleteDuplicates(in): per value the element of least (priority, position). Returns the count. out aliases
// no part of in.
__device__ long long block_delete_duplicates(List in, long long count, List out, Shared& sh) {
    long long written = 0;
    for (long long base = 0; base < count; base += blockDim.x) {
        long long j = base + threadIdx.x;
        bool keep = false;
        prio_t p = 0;
        vertex_t v = 0;
        if (j < count) {
            p = __ldcg(in.p + j);
            v = __ldcg(in.v + j);
            keep = true;
            for (long long k = j - 1; k >= 0 && __ldcg(in.v + k) == v; --k) {
                if (__ldcg(in.p + k) <= p) { keep = false; break; }
            }
            for (long long k = j + 1; keep && k < count && __ldcg(in.v + k) == v; ++k) {
                if (__ldcg(in.p + k) < p) keep = false;
            }
        }
        unsigned long long total;
        unsigned long long at = block_exclusive_scan(keep ? 1ULL : 0ULL, &total, sh);
        if (keep) {
            out.p[written + at] = p;
            out.v[written + at] = v;
        }
        written += (long long)total;
    }
    __threadfence_block();
    __syncthreads();
    return written;
}

// Elements of list[0, count) that are small for the bound (bp, bv).
__device__ long long block_count_small(List list, long long count, prio_t bp, vertex_t bv, Shared& sh) {
    long long mine = 0;
    for (long long j = threadIdx.x; j < count; j += blockDim.x) {
        if (is_small(__ldcg(list.p + j), __ldcg(list.v + j), bp, bv)) ++mine;
    }
    return block_sum(mine, sh);
}

// Split list[0, count) by class (0, 1, 2: `classify`) into three destinations, order kept. Destination 0 may be the
// list itself (an in-place compaction: each tile is read into registers before the scan's barriers, and writes land
// at or before the positions read). counts[c] receives each class's size; a null destination drops its class.
template <typename Classify>
__device__ void block_split3(List list, long long count, List* to, long long* counts, Classify classify,
                             Shared& sh) {
    long long written[3] = {0, 0, 0};
    for (long long base = 0; base < count; base += blockDim.x) {
        long long j = base + threadIdx.x;
        prio_t p = 0;
        vertex_t v = 0;
        int cls = -1;
        if (j < count) {
            p = __ldcg(list.p + j);
            v = __ldcg(list.v + j);
            cls = classify(p, v);
        }
        unsigned long long packed = cls < 0 ? 0ULL : (1ULL << (21 * cls));
        unsigned long long total;
        unsigned long long at = block_exclusive_scan(packed, &total, sh);
        if (cls >= 0 && to[cls].p != nullptr) {
            long long position = written[cls] + (long long)((at >> (21 * cls)) & 0x1fffffULL);
            to[cls].p[position] = p;
            to[cls].v[position] = v;
        }
#pragma unroll
        for (int c = 0; c < 3; ++c) written[c] += (long long)((total >> (21 * c)) & 0x1fffffULL);
    }
    __threadfence_block();
    __syncthreads();
    for (int c = 0; c < 3; ++c) counts[c] = written[c];
}

// One radix-select pass: among the keys (x) of candidates whose bits above `shift + 8` equal `high`, the 8-bit digit
// at `shift` holding the rank-th least (rank 1-based, updated to the rank within that digit). Keys via key_of
// (returns false for a non-candidate).
template <typename KeyOf>
__device__ void radix_pass(List list, long long count, int shift, unsigned long long& high, long long& rank,
                           KeyOf key_of, Shared& sh) {
    for (int b = threadIdx.x; b < 256; b += blockDim.x) sh.hist[b] = 0u;
    __syncthreads();
    for (long long j = threadIdx.x; j < count; j += blockDim.x) {
        unsigned long long x;
        if (!key_of(__ldcg(list.p + j), __ldcg(list.v + j), x)) continue;
        unsigned long long above = shift + 8 >= 64 ? 0ULL : (x >> (shift + 8));
        if (above == high) atomicAdd(&sh.hist[(x >> shift) & 255ULL], 1u);
    }
    __syncthreads();
    if (threadIdx.x < 32) {  // warp 0: lane l owns bins 8l .. 8l+7
        const int lane = threadIdx.x;
        long long mine = 0;
        for (int b = 0; b < 8; ++b) mine += sh.hist[8 * lane + b];
        long long inclusive = warp_inclusive_sum(mine);
        unsigned crossing = __ballot_sync(0xffffffffu, inclusive >= rank);
        int owner = __ffs(crossing) - 1;  // rank <= candidates matching, so some lane crosses
        if (lane == owner) {
            long long before = inclusive - mine;
            int digit = 8 * lane;
            while (before + (long long)sh.hist[digit] < rank) before += sh.hist[digit++];
            sh.out[0] = digit;
            sh.out[1] = rank - before;
        }
    }
    __syncthreads();
    high = (high << 8) | (unsigned long long)sh.out[0];
    rank = sh.out[1];
    __syncthreads();
}

// Select: the k-th least key (priority, value) (1 <= k <= candidates) among the elements of list[0, count) small
// for (lp, lv); keys are distinct (a deduplicated list).
__device__ void block_select(List list, long long count, prio_t lp, vertex_t lv, long long k, prio_t* out_p,
                             vertex_t* out_v, Shared& sh) {
    long long low = DIST_INF, unused = DIST_INF, top = -DIST_INF;
    for (long long j = threadIdx.x; j < count; j += blockDim.x) {
        prio_t p = __ldcg(list.p + j);
        if (is_small(p, __ldcg(list.v + j), lp, lv)) { low = min(low, p); top = max(top, p); }
    }
    block_min_min_max(low, unused, top, sh);
    const prio_t base = low;
    unsigned long long range = (unsigned long long)(top - low);
    int bits = range == 0ULL ? 0 : 64 - __clzll((long long)range);
    unsigned long long high = 0ULL;
    long long rank = k;
    auto priority_key = [&](prio_t p, vertex_t v, unsigned long long& x) {
        if (!is_small(p, v, lp, lv)) return false;
        x = (unsigned long long)(p - base);
        return true;
    };
    for (int shift = ((bits + 7) / 8 - 1) * 8; shift >= 0; shift -= 8) {
        radix_pass(list, count, shift, high, rank, priority_key, sh);
    }
    const prio_t chosen = base + (prio_t)high;
    // the values tied at the chosen priority: the rank-th least of them
    long long vmin = DIST_INF, tied = 0, vmax = -DIST_INF;
    for (long long j = threadIdx.x; j < count; j += blockDim.x) {
        prio_t p = __ldcg(list.p + j);
        vertex_t v = __ldcg(list.v + j);
        if (p == chosen && is_small(p, v, lp, lv)) { vmin = min(vmin, (long long)v); vmax = max(vmax, (long long)v); }
    }
    block_min_min_max(vmin, tied, vmax, sh);
    long long value;
    if (rank == 1) {
        value = vmin;
    } else {
        const long long value_base = vmin;
        unsigned long long value_range = (unsigned long long)(vmax - vmin);
        int value_bits = value_range == 0ULL ? 0 : 64 - __clzll((long long)value_range);
        unsigned long long value_high = 0ULL;
        auto value_key = [&](prio_t p, vertex_t v, unsigned long long& x) {
            if (p != chosen || !is_small(p, v, lp, lv)) return false;
            x = (unsigned long long)((long long)v - value_base);
            return true;
        };
        for (int shift = ((value_bits + 7) / 8 - 1) * 8; shift >= 0; shift -= 8) {
            radix_pass(list, count, shift, value_high, rank, value_key, sh);
        }
        value = value_base + (long long)value_high;
    }
    *out_p = chosen;
    *out_v = (vertex_t)value;
}

// --- Resolve(i): Algorithm 5, as BucketHeap.resolve. Every thread of block i calls it; returns 0 or PD_ERR_*. ------

__device__ int resolve(const Heap& h, int i, Shared& sh) {
    long long* c = h.ctl + (long long)i * PD_CTL_STRIDE;
    const bool last = i == h.levels - 1;
    const long long capacity = 2 * unit(h, i);
    List B = bucket(h, i), S = signal(h, i), X = scratch(h, i);
    long long nb = __ldcg(c + PD_B_SIZE), ns = __ldcg(c + PD_S_SIZE);
    prio_t bp = __ldcg(c + PD_BOUND_P);
    vertex_t bv = (vertex_t)__ldcg(c + PD_BOUND_V);
    long long* c1 = last ? nullptr : c + PD_CTL_STRIDE;
    List B1 = last ? List{nullptr, nullptr} : bucket(h, i + 1);
    List S1 = last ? List{nullptr, nullptr} : signal(h, i + 1);
    List X1 = last ? List{nullptr, nullptr} : scratch(h, i + 1);
    long long nb1 = last ? 0 : __ldcg(c1 + PD_B_SIZE), ns1 = last ? 0 : __ldcg(c1 + PD_S_SIZE);
    int error = 0;
    if (ns > 0) {  // lines 1-9: empty S_i
        if (ns + nb > 3 * unit(h, i)) return PD_ERR_OVERFLOW;
        block_merge(S, ns, B, nb, X);
        long long m = block_delete_duplicates(X, ns + nb, B, sh);
        long long small = block_count_small(B, m, bp, bv, sh);
        if (small > capacity) {  // lines 5-6: lower p_i
            if (last) return PD_ERR_LAST_LEVEL;
            block_select(B, m, bp, bv, capacity, &bp, &bv, sh);
        }
        List to[3] = {B, last ? List{nullptr, nullptr} : X, List{nullptr, nullptr}};  // keep in place, down
        long long counts[3];
        const prio_t keep_p = bp;
        const vertex_t keep_v = bv;
        block_split3(B, m, to, counts, [&](prio_t p, vertex_t v) { return is_small(p, v, keep_p, keep_v) ? 0 : 1; },
                     sh);
        nb = counts[0];
        ns = 0;
        if (!last && counts[1] > 0) {  // line 9: S_{i+1} = Merge(S_{i+1}, B'_i)
            if (ns1 + counts[1] > unit(h, i + 1)) return PD_ERR_OVERFLOW;
            block_merge(S1, ns1, X, counts[1], X1);
            block_copy(X1, ns1 + counts[1], S1);
            ns1 += counts[1];
        }
    }
    if (!last && nb < capacity && nb1 + ns1 > 0) {  // lines 10-17: fill B_i from level i+1
        if (nb1 + ns1 > 3 * unit(h, i + 1)) return PD_ERR_OVERFLOW;
        block_merge(S1, ns1, B1, nb1, X1);
        long long m = block_delete_duplicates(X1, ns1 + nb1, B1, sh);
        const prio_t below_p = __ldcg(c1 + PD_BOUND_P);
        const vertex_t below_v = (vertex_t)__ldcg(c1 + PD_BOUND_V);
        long long candidates = block_count_small(B1, m, below_p, below_v, sh);
        long long wanted = capacity - nb;
        if (candidates <= wanted) {
            bp = below_p;
            bv = below_v;
        } else {
            block_select(B1, m, below_p, below_v, wanted, &bp, &bv, sh);
        }
        const bool next_last = i + 1 == h.levels - 1;
        List to[3] = {X1, B1, next_last ? List{nullptr, nullptr} : S1};  // pulled, remain in place, back to S_{i+1}
        long long counts[3];
        const prio_t pull_p = bp;
        const vertex_t pull_v = bv;
        block_split3(B1, m, to, counts, [&](prio_t p, vertex_t v) {
            if (!is_small(p, v, below_p, below_v)) return 2;
            return is_small(p, v, pull_p, pull_v) ? 0 : 1;
        }, sh);
        if (counts[2] > unit(h, i + 1)) error = PD_ERR_OVERFLOW;
        block_merge(B, nb, X1, counts[0], X);  // line 16
        block_copy(X, nb + counts[0], B);
        nb += counts[0];
        nb1 = counts[1];
        ns1 = next_last ? 0 : counts[2];
    }
    if (threadIdx.x == 0) {
        c[PD_B_SIZE] = nb;
        c[PD_S_SIZE] = 0;
        c[PD_BOUND_P] = bp;
        c[PD_BOUND_V] = bv;
        if (!last) {
            c1[PD_B_SIZE] = nb1;
            c1[PD_S_SIZE] = ns1;
        }
    }
    __threadfence();
    __syncthreads();
    return error;
}

// --- the schedule --------------------------------------------------------------------------------------------------

// Thread 0 spins until Resolve(i) number done_i + 1 may start (or the solve is over); the block then goes on.
// Returns false when the finished word was set.
__device__ bool wait_turn(const Heap& h, int i, long long done_i, word_t* words, Shared& sh) {
    if (threadIdx.x == 0) {
        int go = 0;
        const unsigned long long started = i == 0 ? global_ns() : 0ULL;
        for (;;) {
            if (vload_word(words + PD_FINISHED)) break;
            if (i == 0 && global_ns() - started > PD_STALL_NS) {  // block 0 only: the others wait for the end
                atomicExch(words + PD_ERROR, (word_t)PD_ERR_STALLED);
                __threadfence();
                atomicExch(words + PD_FINISHED, 1ULL);
                break;
            }
            bool above = i == 0 || vload(h.ctl + (long long)(i - 1) * PD_CTL_STRIDE + PD_DONE) >= 4 * (done_i + 1);
            bool below = i == h.levels - 1 || vload(h.ctl + (long long)(i + 1) * PD_CTL_STRIDE + PD_DONE) >= done_i / 4;
            if (above && below) { go = 1; break; }
            __nanosleep(64);
        }
        __threadfence();
        sh.flag = go;
    }
    __syncthreads();
    bool go = sh.flag != 0;
    __syncthreads();
    return go;
}

__device__ void publish_done(const Heap& h, int i, long long done_i) {
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0) vstore(h.ctl + (long long)i * PD_CTL_STRIDE + PD_DONE, done_i);
}

__device__ void finish(word_t* words, int error) {
    if (threadIdx.x == 0) {
        if (error) atomicExch(words + PD_ERROR, (word_t)error);
        __threadfence();
        atomicExch(words + PD_FINISHED, 1ULL);
    }
}

// Block 0: Resolve(0) after an operation, when the schedule allows; its time (waits excluded) into the words.
// Returns 0, PD_ERR_*, or -1 when the solve was ended elsewhere.
__device__ int resolve0(const Heap& h, long long& done0, word_t* words, unsigned long long& ns_sum, Shared& sh) {
    if (!wait_turn(h, 0, done0, words, sh)) return -1;
    unsigned long long started = threadIdx.x == 0 ? global_ns() : 0ULL;
    int error = resolve(h, 0, sh);
    if (threadIdx.x == 0) ns_sum += global_ns() - started;
    ++done0;
    publish_done(h, 0, done0);
    return error;
}

// dist = DIST_INF, settled = 0, every level empty with an infinite bound, S_0 = {(source, 0)} (the first
// bulkUpdate), the words zeroed.
extern "C" __global__ void pardijkstra_init(dist_t* dist, int* settled, long long n, long long source, long long* ctl,
                                            int levels, prio_t* signal_p, vertex_t* signal_v, word_t* words) {
    long long stride = (long long)gridDim.x * blockDim.x;
    for (long long v = (long long)blockIdx.x * blockDim.x + threadIdx.x; v < n; v += stride) {
        dist[v] = DIST_INF;
        settled[v] = 0;
    }
    if (blockIdx.x == 0) {
        for (int j = threadIdx.x; j < levels * PD_CTL_STRIDE; j += blockDim.x) {
            int field = j % PD_CTL_STRIDE;
            ctl[j] = field == PD_BOUND_P ? DIST_INF
                     : field == PD_BOUND_V ? (long long)PD_VALUE_MAX
                     : j == PD_S_SIZE ? 1LL  // |S_0| = 1: the source
                     : 0LL;
        }
        if (threadIdx.x < PD_WORDS) words[threadIdx.x] = 0ULL;
        if (threadIdx.x == 0) {
            signal_p[0] = 0;
            signal_v[0] = (vertex_t)source;
        }
    }
}

// The persistent solve: gridDim.x == levels, blocks co-resident (cooperative launch, or a plain one checked against
// occupancy). Staging holds an extracted vertex's updates when it has more than d out-arcs.
extern "C" __global__ void __launch_bounds__(1024)
pardijkstra_solve(const offset_t* __restrict__ row_offsets, const vertex_t* __restrict__ column_ids,
                  const weight_t* __restrict__ weights, int unit_weights, dist_t* dist, int* settled,
                  prio_t* bucket_p, vertex_t* bucket_v, prio_t* signal_p, vertex_t* signal_v, prio_t* scratch_p,
                  vertex_t* scratch_v, prio_t* staging_p, vertex_t* staging_v, long long* ctl, long long d,
                  int levels, int settled_check, long long operation_cap, word_t* words,
                  unsigned long long* per_iteration, int count_relaxations) {
    PD_BLOCK_SHARED(Shared, sh);
    Heap h{bucket_p, bucket_v, signal_p, signal_v, scratch_p, scratch_v, ctl, d, levels};
    const int level = blockIdx.x;
    if (level > 0) {
        long long done = 0;
        while (wait_turn(h, level, done, words, sh)) {
            int error = resolve(h, level, sh);
            ++done;
            publish_done(h, level, done);
            if (error) {
                finish(words, error);
                break;
            }
        }
        return;
    }
    // block 0: the rounds
    long long done0 = 0, iterations = 0, stale = 0, bulk = 1, empty_ops = 0, operations = 1;
    unsigned long long ns_sum = 0ULL;
    int error = resolve0(h, done0, words, ns_sum, sh);  // the source's bulkUpdate
    List B0 = bucket(h, 0), S0 = signal(h, 0);
    while (error == 0) {
        if (operations > operation_cap) { error = PD_ERR_OPERATIONS; break; }
        long long nb = __ldcg(ctl + PD_B_SIZE);
        if (nb == 0) {  // B_0 empty: the end, unless elements are left deeper
            if (threadIdx.x == 0) {
                long long previous[PD_MAX_LEVELS];
                bool same = false;
                const unsigned long long started = global_ns();
                for (int round = 0; !same; ++round) {  // quiescent: no level may resolve, twice in a row
                    if (global_ns() - started > PD_STALL_NS) {
                        atomicExch(words + PD_ERROR, (word_t)PD_ERR_STALLED);
                        break;
                    }
                    bool pending = false;
                    same = round > 0;
                    for (int i = 0; i < levels; ++i) {
                        long long now = vload(ctl + (long long)i * PD_CTL_STRIDE + PD_DONE);
                        if (round > 0 && now != previous[i]) same = false;
                        previous[i] = now;
                        if (i > 0 && previous[i - 1] >= 4 * (now + 1)) pending = true;
                    }
                    if (pending) same = false;
                    if (!same) __nanosleep(128);
                }
                __threadfence();
            }
            __syncthreads();
            if (__ldcg(words + PD_ERROR)) {  // stalled
                error = -1;
                break;
            }
            int left = 0;
            for (int i = 0; i < levels; ++i) {
                const long long* c = ctl + (long long)i * PD_CTL_STRIDE;
                if (__ldcg(c + PD_B_SIZE) > 0) left = 1;
                List S = signal(h, i);
                long long ns = __ldcg(c + PD_S_SIZE);
                for (long long j = threadIdx.x; j < ns; j += blockDim.x) {
                    if (__ldcg(S.p + j) != PD_DEL) left = 1;
                }
            }
            if (!__syncthreads_or(left)) break;
            ++empty_ops;
            ++operations;
            error = resolve0(h, done0, words, ns_sum, sh);
            continue;
        }
        // extractMin: FindMin(B_0), least (priority, value), first position
        long long best_p = DIST_INF, best_v = DIST_INF, best_j = DIST_INF;
        for (long long j = threadIdx.x; j < nb; j += blockDim.x) {
            long long p = __ldcg(B0.p + j), v = __ldcg(B0.v + j);
            if (p < best_p || (p == best_p && (v < best_v || (v == best_v && j < best_j)))) {
                best_p = p; best_v = v; best_j = j;
            }
        }
        block_min3(best_p, best_v, best_j, sh);
        const vertex_t v = (vertex_t)best_v;
        const prio_t distance = best_p;
        if (threadIdx.x == 0) {
            S0.p[0] = PD_DEL;  // the element stays in B_0 until this DEL removes it
            S0.v[0] = v;
            ctl[PD_S_SIZE] = 1;
        }
        __threadfence_block();
        __syncthreads();
        const long long iteration = iterations++;
        ++operations;
        error = resolve0(h, done0, words, ns_sum, sh);
        if (error) break;
        if (settled[v]) {  // a stale copy (only without settled_check): dropped
            ++stale;
            continue;
        }
        __syncthreads();  // every thread read settled[v] before thread 0 sets it
        if (threadIdx.x == 0) {
            settled[v] = 1;
            dist[v] = distance;
        }
        __syncthreads();
        const offset_t begin = row_offsets[v], end = row_offsets[v + 1];
        const long long degree = end - begin;
        const bool direct = degree <= d;  // at most d updates: straight into S_0
        List into = direct ? S0 : List{staging_p, staging_v};
        long long updates = 0;
        for (offset_t base = begin; base < end; base += blockDim.x) {
            offset_t e = base + threadIdx.x;
            bool take = false;
            vertex_t u = 0;
            if (e < end) {
                u = column_ids[e];
                take = !settled_check || settled[u] == 0;
            }
            unsigned long long total;
            unsigned long long at = block_exclusive_scan(take ? 1ULL : 0ULL, &total, sh);
            if (take) {
                into.p[updates + (long long)at] = distance + arc_weight(weights, unit_weights, e);
                into.v[updates + (long long)at] = u;
            }
            updates += (long long)total;
        }
        __threadfence_block();
        __syncthreads();
        if (count_relaxations && threadIdx.x == 0) {
            per_iteration[2 * iteration] = (unsigned long long)degree;
            per_iteration[2 * iteration + 1] = (unsigned long long)updates;
        }
        for (long long start = 0; start < updates && error == 0; start += d) {  // bulkUpdates of at most d
            long long size = min(d, updates - start);
            if (!direct) block_copy(List{staging_p + start, staging_v + start}, size, S0);
            if (threadIdx.x == 0) ctl[PD_S_SIZE] = size;
            __syncthreads();
            ++bulk;
            ++operations;
            error = resolve0(h, done0, words, ns_sum, sh);
        }
    }
    if (error < 0) error = 0;  // ended elsewhere: that block set the error word
    if (threadIdx.x == 0) {
        words[PD_ITERATIONS] = (word_t)iterations;
        words[PD_STALE] = (word_t)stale;
        words[PD_BULK] = (word_t)bulk;
        words[PD_EMPTY_OPS] = (word_t)empty_ops;
        words[PD_RESOLVE0_NS] = (word_t)ns_sum;
        words[PD_RESOLVE0_COUNT] = (word_t)done0;
    }
    finish(words, error);
}
