// The load-balanced advance over a vertex queue (queue.cuh), generic over what a relaxation is and where an
// improved vertex goes, as Gunrock's advance operator is: the caller supplies a relax functor, called per arc,
// and a push functor, called per tile with the improved vertices (impls/workfront.cu is the simplest user).
//
// advance_queue: block b takes tiles b, b + gridDim.x, ... of ADVANCE_TILE consecutive queue arcs (merge-path
// style: every thread gets the same number of arcs whatever the degrees); it loads the tile's entries (the
// entry's first CSR arc and what the relax functor wants of its tail, once per entry and tile) into shared memory,
// then each thread relaxes ADVANCE_ITEMS arcs of the tile (coalesced, strided by the block size), finding its
// entry by binary search in shared memory. A relaxation that should push its head says where (PUSH_QUEUE or
// PUSH_OTHER); the advance reads the head's out-degree (after the relax functor claimed it, so a vertex improved
// by several arcs reads its row offsets once) and keeps it only with out-arcs. Then the push functor pushes the
// tile's items, block-collectively.
//
// for_each_in_tiles: the same tiles over a plain range [0, count) (a list, or one vertex's arcs): a visit functor
// fills each thread's items, the push functor pushes them.
//
// The relax functor (a struct; `Tail` is what an arc needs of its tail, dist_t or vertex_t):
//   vertex_t entry(const vertex_t* vertices, long long i)  the queue's i-th vertex (a load the functor may hint)
//   offset_t row(vertex_t u)                               u's first CSR arc
//   Tail tail(vertex_t u)                                  e.g. u's distance
//   int operator()(offset_t e, Tail tail, vertex_t* head, dist_t* distance)
//       relaxes arc e and returns PUSH_NONE, or where its head goes (then *head and *distance are set)
// The push functor: void operator()(const TileItems& items), block-collective (every thread calls it).
// The shared memory of the advance (AdvanceTile) and of the pushes is declared by the kernel, so a kernel's shared
// memory is read in one place.
//
// Launch with blockDim.x == ADVANCE_BLOCK (the loops and shared arrays assume it); any grid size works.
#ifndef SSSP_BENCH_GPU_ADVANCE_CUH
#define SSSP_BENCH_GPU_ADVANCE_CUH

#include "queue.cuh"

#define PUSH_NONE 0
#define PUSH_QUEUE 1  // the output queue
#define PUSH_OTHER 2  // the push functor's second destination, if it has one (a far pile, say)

// What one thread's ADVANCE_ITEMS items of a tile produced: item i's vertex, its out-degree and distance, and
// whether it goes to the output queue or to the other destination (never both).
struct TileItems {
    bool queued[ADVANCE_ITEMS];
    bool other[ADVANCE_ITEMS];
    vertex_t vertex[ADVANCE_ITEMS];
    long long degree[ADVANCE_ITEMS];
    dist_t distance[ADVANCE_ITEMS];

    __device__ __forceinline__ void clear(int i) {
        queued[i] = other[i] = false;
        vertex[i] = 0;
        degree[i] = 0;
        distance[i] = 0;
    }

    // Item i is vertex v (out-degree `out`, distance d), for destination `to`; kept only when it has out-arcs.
    __device__ __forceinline__ void take(int i, int to, vertex_t v, dist_t d, long long out) {
        vertex[i] = v;
        distance[i] = d;
        degree[i] = out;
        queued[i] = to == PUSH_QUEUE && out > 0;
        other[i] = to == PUSH_OTHER && out > 0;
    }
};

// The output queue of an advance: where its items marked `queued` are appended (block_push_entries).
struct QueueOut {
    vertex_t* vertices;
    long long* starts;
    int* tile_first;
    word_t* counter;  // the packed (entries << shift | arcs) counter
    int shift;
};

__device__ __forceinline__ QueueOut queue_out(vertex_t* vertices, long long* starts, int* tile_first,
                                              word_t* counter, int shift) {
    QueueOut out;
    out.vertices = vertices;
    out.starts = starts;
    out.tile_first = tile_first;
    out.counter = counter;
    out.shift = shift;
    return out;
}

// Block-collective: the items marked `queued` appended to `out` (s_warp: ADVANCE_WARPS words of shared memory,
// not shared with another push of the same tile).
__device__ __forceinline__ void push_queued(const TileItems& items, const QueueOut& out, word_t* s_warp) {
    block_push_entries(items.queued, items.vertex, items.degree, out.counter, out.shift, out.vertices, out.starts,
                       out.tile_first, s_warp);
}

// The push functor of an advance whose only destination is its output queue (s_warp: the kernel's ADVANCE_WARPS
// words of shared memory for block_reserve's per-warp scan totals).
struct QueuePush {
    QueueOut out;
    word_t* s_warp;

    __device__ __forceinline__ void operator()(const TileItems& items) { push_queued(items, out, s_warp); }
};

// The shared memory of advance_queue: a tile's entries (Tail: the relax functor's; the 4-byte arrays first, so a
// vertex_t tail needs no padding).
template <typename Tail>
struct AdvanceTile {
    int start[ADVANCE_TILE + 1];       // entry start relative to the tile (0 for the first entry)
    Tail tail[ADVANCE_TILE + 1];       // relax.tail(u), read once per entry and tile
    long long base[ADVANCE_TILE + 1];  // row offset - start: queue arc t is CSR arc base + t
};

// One advance over the input queue (its arrays and `in_packed`, its counter value): every arc of every entry
// relaxed by `relax`, the items it pushes handed to `push` tile by tile; `s` is the kernel's shared tile.
// Block-collective; block-uniform exit.
template <typename Relax, typename Push>
__device__ __forceinline__ void advance_queue(const offset_t* row_offsets, const vertex_t* in_vertices,
                                              const long long* in_starts, const int* in_tiles, word_t in_packed,
                                              int shift, Relax& relax, Push& push,
                                              AdvanceTile<typename Relax::Tail>& s) {
    long long arcs_total = packed_arcs(in_packed, shift);
    long long tiles = (arcs_total + ADVANCE_TILE - 1) / ADVANCE_TILE;
    for (long long tile = blockIdx.x; tile < tiles; tile += gridDim.x) {  // block-uniform
        long long low = tile * ADVANCE_TILE;
        long long high = low + ADVANCE_TILE < arcs_total ? low + ADVANCE_TILE : arcs_total;
        int first = 0;
        int entries = tile_entries(in_tiles, tile, high, in_packed, shift, &first);
        for (int j = threadIdx.x; j < entries; j += ADVANCE_BLOCK) {
            vertex_t u = relax.entry(in_vertices, first + j);
            long long start = in_starts[first + j];
            s.start[j] = start > low ? (int)(start - low) : 0;
            s.base[j] = (long long)relax.row(u) - start;
            s.tail[j] = relax.tail(u);
        }
        __syncthreads();
        TileItems items;
#pragma unroll
        for (int item = 0; item < ADVANCE_ITEMS; ++item) {
            int relative = item * ADVANCE_BLOCK + threadIdx.x;
            long long t = low + relative;
            items.clear(item);
            if (t < high) {
                int a = tile_entry(s.start, entries, relative);
                vertex_t head = 0;
                dist_t distance = 0;
                int to = relax(s.base[a] + t, s.tail[a], &head, &distance);
                if (to != PUSH_NONE) items.take(item, to, head, distance, out_degree(row_offsets, head));
            }
        }
        push(items);
        __syncthreads();  // the shared arrays are rewritten for the next tile
    }
}

// Items [0, count) in tiles of ADVANCE_TILE dealt to the blocks (ADVANCE_ITEMS per thread, strided by the
// block): visit(i, item, items) fills this thread's item `item` for index i, then push(items) pushes the tile's.
// Block-collective; block-uniform exit.
template <typename Visit, typename Push>
__device__ __forceinline__ void for_each_in_tiles(long long count, Visit& visit, Push& push) {
    long long stride = (long long)gridDim.x * ADVANCE_TILE;
    for (long long base = (long long)blockIdx.x * ADVANCE_TILE; base < count; base += stride) {  // block-uniform
        TileItems items;
#pragma unroll
        for (int item = 0; item < ADVANCE_ITEMS; ++item) {
            long long i = base + item * ADVANCE_BLOCK + threadIdx.x;
            items.clear(item);
            if (i < count) visit(i, item, items);
        }
        push(items);
        __syncthreads();  // the pushes' shared words are rewritten for the next tile
    }
}

#endif  // SSSP_BENCH_GPU_ADVANCE_CUH
