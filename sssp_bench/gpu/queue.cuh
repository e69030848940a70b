// Vertex queues for load-balanced advances (advance.cuh): each entry carries the exclusive prefix sum of the
// queue's out-degrees, built by block-aggregated pushes without a scan.
//
// A queue is three arrays and one packed 64-bit counter:
//   vertices[i]    the i-th queued vertex (int32)
//   starts[i]      the number of arcs of entries 0..i-1 (int64): entry i owns queue arcs [starts[i], starts[i] + deg)
//   tile_first[k]  the entry that owns queue arc k * ADVANCE_TILE (int32), written by the push that covers it
//   counter        (entries << shift) | arcs, so ONE atomicAdd reserves both the slots and the arc range of a
//                  block's pushes: slot order and arc order agree, which makes `starts` an exclusive prefix sum
//                  in slot order without any scan. `shift` = bit length of m (a queue holds each vertex at most
//                  once, so arcs <= m < 2^shift and entries <= n < 2^(64 - shift); the host checks both:
//                  sssp_bench/gpu/queues.py).
// Only vertices with out-degree > 0 are queued (a vertex without out-arcs has nothing to relax), so every entry
// owns at least one arc: a tile overlaps at most ADVANCE_TILE + 1 entries.
//
// Launch the kernels that push with blockDim.x == ADVANCE_BLOCK (the pushes' scans assume it).
#ifndef SSSP_BENCH_GPU_QUEUE_CUH
#define SSSP_BENCH_GPU_QUEUE_CUH

#include "common.cuh"

#define ADVANCE_BLOCK 256
#define ADVANCE_ITEMS 2
#define ADVANCE_TILE (ADVANCE_BLOCK * ADVANCE_ITEMS)
#define ADVANCE_WARPS (ADVANCE_BLOCK / 32)
#define FULL_MASK 0xffffffffu
// __launch_bounds__ minimum blocks per SM of the advance kernels: 6 fit in 40 registers without spills (left to
// itself ptxas takes 48 and 5 blocks per SM; 8 spill), and 6 ran faster than 5 (experiments/hbf/notes/workfront.md).
#ifndef ADVANCE_MIN_BLOCKS
#define ADVANCE_MIN_BLOCKS 6
#endif

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

// The entries that a tile of queue arcs [tile * ADVANCE_TILE, high) overlaps: *first (the owner of its first arc,
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

// Block-collective (every thread of the block calls it, blockDim.x == ADVANCE_BLOCK): reserves `value` units of
// *counter for this thread and returns the counter's value where they begin (anything when the whole block
// reserves nothing). A warp-shuffle scan inside each warp, then one of two ways, chosen per block:
// - few threads reserve (sparse pushes): ONE atomicAdd per block, warp 0 scanning the warp totals in `s_warp`
//   (ADVANCE_WARPS words of shared memory): one atomicAdd per warp made millions of same-address atomics per
//   solve on R-MAT, serialised in one L2 slice, costing more than the relaxing did.
// - many do (dense pushes, as in the first rounds on a random graph): one atomicAdd per warp, no further
//   barrier; there the extra barrier and the wait on one atomic cost more than the atomics saved.
// The caller puts a barrier between two calls that share `s_warp`.
#define ADVANCE_DENSE_PUSHERS (ADVANCE_BLOCK / 4)
__device__ __forceinline__ word_t block_reserve(word_t value, word_t* counter, word_t* s_warp) {
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    word_t scan = warp_inclusive_sum(value);
    if (lane == 31) s_warp[warp] = scan;
    int pushers = __syncthreads_count(value != 0ULL);  // also the barrier that publishes the warp totals
    if (pushers == 0) return 0ULL;
    if (pushers > ADVANCE_DENSE_PUSHERS) {
        word_t warp_total = __shfl_sync(FULL_MASK, scan, 31);
        word_t base = 0ULL;
        if (lane == 0 && warp_total != 0ULL) base = atomicAdd(counter, warp_total);
        return __shfl_sync(FULL_MASK, base, 0) + scan - value;
    }
    if (warp == 0) {
        word_t total = lane < ADVANCE_WARPS ? s_warp[lane] : 0ULL;
        word_t inclusive = warp_inclusive_sum(total);
        word_t block_total = __shfl_sync(FULL_MASK, inclusive, ADVANCE_WARPS - 1);
        word_t base = 0ULL;
        if (lane == 0) base = atomicAdd(counter, block_total);
        base = __shfl_sync(FULL_MASK, base, 0);
        if (lane < ADVANCE_WARPS) s_warp[lane] = base + inclusive - total;  // each warp's first unit
    }
    __syncthreads();
    return s_warp[warp] + scan - value;
}

// Block-collective: this thread's entries want[i] (vertex v[i], out-degree degree[i] > 0), i < ADVANCE_ITEMS, are
// appended to a queue. The packed counter adds up like a number (entries << shift | arcs, arcs < 2^shift), so
// one block_reserve of (count << shift) + arcs reserves both the slots and the arc range: slot order and arc
// order agree. Tile boundaries inside an entry's arc range get the entry as their owner.
__device__ __forceinline__ void block_push_entries(const bool* want, const vertex_t* v, const long long* degree,
                                                   word_t* counter, int shift, vertex_t* vertices,
                                                   long long* starts, int* tile_first, word_t* s_warp) {
    word_t count = 0ULL, arcs = 0ULL;
#pragma unroll
    for (int i = 0; i < ADVANCE_ITEMS; ++i) {
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
    for (int i = 0; i < ADVANCE_ITEMS; ++i) {
        if (!want[i]) continue;
        vertices[slot] = v[i];
        starts[slot] = start;
        for (long long k = (start + ADVANCE_TILE - 1) / ADVANCE_TILE; k * ADVANCE_TILE < start + degree[i]; ++k) {
            tile_first[k] = (int)slot;
        }
        ++slot;
        start += degree[i];
    }
}

// A solve's start for queues deduplicated by stamp arrays: distances (dist = DIST_INF, 0 at the source), the
// stamp arrays zeroed, every status word zeroed, and the source queued as entry 0 of queue 0 when it has
// out-arcs. The caller's kernel then sets its own control words (block 0, thread 0, after this returns; the
// source's queue counter too).
__device__ __forceinline__ void frontier_init(dist_t* dist, int* stamps, long long stamp_count, long long n,
                                              long long source, long long source_degree, vertex_t* vertices,
                                              long long* starts, int* tile_first, word_t* words, int n_words) {
    long long stride = (long long)gridDim.x * blockDim.x;
    long long first = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    for (long long v = first; v < n; v += stride) dist[v] = v == source ? 0LL : DIST_INF;
    for (long long v = first; v < stamp_count; v += stride) stamps[v] = 0;
    for (long long k = first; k * ADVANCE_TILE < source_degree; k += stride) tile_first[k] = 0;
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

#endif  // SSSP_BENCH_GPU_QUEUE_CUH
