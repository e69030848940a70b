// The load-balanced queue advance shared by `workfront.cu` (Davidson et al.'s Workfront Sweep) and `near_far.cu`
// (their Near-Far Pile): vertex queues whose entries carry the exclusive prefix sum of their out-degrees, built
// by warp-aggregated pushes, and a tile-based advance that gives every thread the same number of arcs whatever
// the degrees (merge-path style: each block takes a tile of WF_TILE consecutive queue arcs).
//
// A queue is three arrays and one packed 64-bit counter:
//   vertices[i]    the i-th queued vertex (int32)
//   starts[i]      the number of arcs of entries 0..i-1 (int64): entry i owns queue arcs [starts[i], starts[i] + deg)
//   tile_first[k]  the entry that owns queue arc k * WF_TILE (int32), written by the push that covers it
//   counter        (entries << shift) | arcs, so ONE atomicAdd reserves both the slots and the arc range of a
//                  warp's pushes: slot order and arc order agree, which makes `starts` an exclusive prefix sum
//                  in slot order without any scan. `shift` = bit length of m (a queue holds each vertex at most
//                  once, so arcs <= m < 2^shift and entries <= n < 2^(64 - shift); the host checks both).
// Only vertices with out-degree > 0 are queued (a vertex without out-arcs has nothing to relax), so every entry
// owns at least one arc: a tile overlaps at most WF_TILE + 1 entries.
//
// The advance: block b takes tiles b, b + gridDim.x, ...; it loads the tile's entries (vertex, row offset,
// distance read once per entry) into shared memory, then each thread relaxes WF_ITEMS arcs of the tile
// (coalesced, strided by the block size), finding its entry by binary search in shared memory. A vertex whose
// distance fell is pushed into the next queue once per round: a per-vertex round stamp (atomicExch) removes
// duplicates. Near-Far classifies improved vertices by their new distance: below the threshold into the near
// queue, otherwise onto the far pile (a plain vertex list with its own stamp per epoch and a running minimum).
//
// Launch with blockDim.x == WF_BLOCK (the loops and shared arrays assume it); any grid size works.
#ifndef SSSP_BENCH_ADVANCE_CUH
#define SSSP_BENCH_ADVANCE_CUH

#include "common.cuh"

#define WF_BLOCK 256
#define WF_ITEMS 2
#define WF_TILE (WF_BLOCK * WF_ITEMS)
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

// Warp-collective (all 32 lanes must call it together): the lanes with `want` append (v, degree) to a queue.
// One atomicAdd per warp on the packed counter; each lane's start = the warp's arc base + the exclusive scan of
// the wanting lanes' degrees. Tile boundaries inside [start, start + degree) get this entry as their owner.
__device__ __forceinline__ void warp_push_entries(bool want, vertex_t v, long long degree, word_t* counter,
                                                  int shift, vertex_t* vertices, long long* starts,
                                                  int* tile_first) {
    unsigned mask = __ballot_sync(WF_FULL_MASK, want);
    if (mask == 0u) return;
    int lane = threadIdx.x & 31;
    long long scan = want ? degree : 0LL;  // inclusive scan of the degrees over the lanes
#pragma unroll
    for (int offset = 1; offset < 32; offset <<= 1) {
        long long other = __shfl_up_sync(WF_FULL_MASK, scan, offset);
        if (lane >= offset) scan += other;
    }
    long long arcs = __shfl_sync(WF_FULL_MASK, scan, 31);
    int leader = __ffs(mask) - 1;
    word_t old = 0ULL;
    if (lane == leader) old = atomicAdd(counter, ((word_t)__popc(mask) << shift) + (word_t)arcs);
    old = __shfl_sync(WF_FULL_MASK, old, leader);
    if (want) {
        long long slot = (long long)(old >> shift) + __popc(mask & ((1u << lane) - 1u));
        long long start = (long long)(old & ((1ULL << shift) - 1ULL)) + scan - degree;
        vertices[slot] = v;
        starts[slot] = start;
        for (long long k = (start + WF_TILE - 1) / WF_TILE; k * WF_TILE < start + degree; ++k) {
            tile_first[k] = (int)slot;
        }
    }
}

// Warp-collective: the lanes with `want` append v to the far pile; the pile's minimum pushed distance is kept
// in *minimum (one atomicMin per warp; distances here are non-negative, so unsigned order is signed order).
__device__ __forceinline__ void warp_push_far(bool want, vertex_t v, dist_t d, word_t* counter, word_t* minimum,
                                              vertex_t* pile) {
    unsigned mask = __ballot_sync(WF_FULL_MASK, want);
    if (mask == 0u) return;
    int lane = threadIdx.x & 31;
    dist_t smallest = want ? d : DIST_INF;
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) {
        dist_t other = __shfl_xor_sync(WF_FULL_MASK, smallest, offset);
        smallest = other < smallest ? other : smallest;
    }
    int leader = __ffs(mask) - 1;
    word_t old = 0ULL;
    if (lane == leader) {
        old = atomicAdd(counter, (word_t)__popc(mask));
        atomicMin(minimum, (word_t)smallest);
    }
    old = __shfl_sync(WF_FULL_MASK, old, leader);
    if (want) pile[old + __popc(mask & ((1u << lane) - 1u))] = v;
}

// Where the near-far classification of an improved vertex goes (unused by the Workfront Sweep).
struct FarPile {
    dist_t threshold;   // new distance < threshold: near queue; otherwise the far pile
    vertex_t* pile;
    word_t* counter;
    word_t* minimum;
    int* stamps;
    int stamp;
};

// One round of the advance over the input queue (`in_packed` its counter value). kNearFar: improved vertices
// go to the near queue or the far pile by their new distance; otherwise all go to the next queue.
template <bool kNearFar>
__device__ __forceinline__ void advance_queue(
        const offset_t* __restrict__ row_offsets, const vertex_t* __restrict__ column_ids,
        const weight_t* __restrict__ weights, int unit_weights, dist_t* dist,
        const vertex_t* __restrict__ in_vertices, const long long* __restrict__ in_starts,
        const int* __restrict__ in_tiles, word_t in_packed, int shift,
        vertex_t* out_vertices, long long* out_starts, int* out_tiles, word_t* out_counter,
        int* near_stamps, int near_stamp, FarPile far, word_t* words, int count_relaxations) {
    __shared__ int s_start[WF_TILE + 1];        // entry start relative to the tile (0 for the first entry)
    __shared__ long long s_base[WF_TILE + 1];   // row_offsets[u] - starts[i]: queue arc t is CSR arc base + t
    __shared__ dist_t s_du[WF_TILE + 1];        // dist[u], read once per entry and tile

    long long entries_total = packed_entries(in_packed, shift);
    long long arcs_total = packed_arcs(in_packed, shift);
    long long tiles = (arcs_total + WF_TILE - 1) / WF_TILE;
    unsigned long long attempts = 0, improved = 0;

    for (long long tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        long long low = tile * WF_TILE;
        long long high = low + WF_TILE < arcs_total ? low + WF_TILE : arcs_total;
        int first = in_tiles[tile];
        int last = high < arcs_total ? in_tiles[tile + 1] : (int)(entries_total - 1);
        int entries = last - first + 1;
        for (int j = threadIdx.x; j < entries; j += WF_BLOCK) {
            vertex_t u = in_vertices[first + j];
            long long start = in_starts[first + j];
            s_start[j] = start > low ? (int)(start - low) : 0;
            s_base[j] = (long long)row_offsets[u] - start;
            s_du[j] = dist[u];
        }
        __syncthreads();
#pragma unroll
        for (int item = 0; item < WF_ITEMS; ++item) {
            int relative = item * WF_BLOCK + threadIdx.x;
            long long t = low + relative;
            bool want_near = false, want_far = false;
            vertex_t v = 0;
            long long degree = 0;
            dist_t candidate = 0;
            if (t < high) {
                int a = 0, b = entries - 1;  // the last entry starting at or before t: s_start[a] <= relative
                while (a < b) {
                    int middle = (a + b + 1) >> 1;
                    if (s_start[middle] <= relative) a = middle; else b = middle - 1;
                }
                offset_t e = s_base[a] + t;
                v = column_ids[e];
                dist_t du = s_du[a];
                dist_t w = arc_weight(weights, unit_weights, e);
                ++attempts;
                if (relax(dist, v, du, w, words)) {
                    ++improved;
                    candidate = du + w;
                    degree = out_degree(row_offsets, v);
                    if (degree > 0) {
                        if (!kNearFar || candidate < far.threshold) {
                            want_near = claim(near_stamps, v, near_stamp);
                        } else {
                            want_far = claim(far.stamps, v, far.stamp);
                        }
                    }
                }
            }
            warp_push_entries(want_near, v, degree, out_counter, shift, out_vertices, out_starts, out_tiles);
            if (kNearFar) warp_push_far(want_far, v, candidate, far.counter, far.minimum, far.pile);
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
