// Davidson et al.'s Workfront Sweep (the H-BF paper's "WorkFront Sweep" comparator): queue-based Bellman-Ford.
//
// Each round advances the whole queue with the load-balanced advance of gpu/advance.cuh (equal arcs per thread,
// atomicMin relaxations: WorkfrontRelax) and builds the next queue from the improved vertices, each once (round
// stamps).
// Rounds are driven from the device: the round index comes from the host (or from WF_BASE plus a fixed
// argument, when a batch of rounds is replayed as a CUDA graph), the queue sizes never do, so the host can
// launch several rounds before it reads the status words back (a round with an empty queue does nothing).
// Status words beyond common.cuh's eight:
//   WF_QUEUE0 + r % 3   the packed counter of round r's input queue (= round r - 1's output). Round r reads
//                       it, fills WF_QUEUE0 + (r + 1) % 3, and zeroes WF_QUEUE0 + (r + 2) % 3 (round r - 1's
//                       input, read by nobody any more), so the next round's output counter starts at zero.
//   WF_ROUNDS           rounds whose input queue was not empty: the iterations.
//   WF_BASE             added to the kernel's round argument (advance_bump_base): graphs replay fixed arguments.
// Queues alternate between the two halves of the queue arrays (round r reads half r % 2).
#include "advance.cuh"

#define WF_QUEUE0 8
#define WF_ROUNDS 11
#define WF_BASE 12
#define WF_WORDS 16

// The advance's relax functor: atomicMin on plain int64 distances (common.cuh's relax, with the negative-cycle
// floor), and an improved vertex claimed for the next queue by this round's stamp.
struct WorkfrontRelax {
    typedef dist_t Tail;
    const offset_t* row_offsets;
    const vertex_t* column_ids;
    const weight_t* weights;
    int unit_weights;
    dist_t* dist;
    int* stamps;
    int stamp;
    word_t* words;
    unsigned long long attempts;
    unsigned long long improved;

    __device__ __forceinline__ vertex_t entry(const vertex_t* vertices, long long i) const { return vertices[i]; }
    __device__ __forceinline__ offset_t row(vertex_t u) const { return row_offsets[u]; }
    __device__ __forceinline__ dist_t tail(vertex_t u) const { return dist[u]; }

    __device__ __forceinline__ int operator()(offset_t e, dist_t du, vertex_t* head, dist_t* distance) {
        vertex_t v = column_ids[e];
        dist_t w = arc_weight(weights, unit_weights, e);
        ++attempts;
        if (!relax(dist, v, du, w, words)) return PUSH_NONE;
        ++improved;
        *head = v;
        *distance = du + w;
        return claim(stamps, v, stamp) ? PUSH_QUEUE : PUSH_NONE;
    }
};

extern "C" __global__ void workfront_init(dist_t* dist, int* stamps, long long n, long long source,
                                          long long source_degree, vertex_t* vertices, long long* starts,
                                          int* tile_first, word_t* words, int shift) {
    frontier_init(dist, stamps, n, n, source, source_degree, vertices, starts, tile_first, words, WF_WORDS);
    if (blockIdx.x == 0 && threadIdx.x == 0 && source_degree > 0) {
        words[WF_QUEUE0] = (1ULL << shift) + (word_t)source_degree;
    }
}

extern "C" __global__ void __launch_bounds__(ADVANCE_BLOCK, ADVANCE_MIN_BLOCKS)
workfront_round(const offset_t* __restrict__ row_offsets, const vertex_t* __restrict__ column_ids,
                const weight_t* __restrict__ weights, int unit_weights, dist_t* dist, vertex_t* vertices,
                long long* starts, int* tile_first, int* stamps, long long n, long long tiles_per_queue,
                word_t* words, int shift, long long round_offset, int count_relaxations) {
    __shared__ AdvanceTile<dist_t> s_tile;
    __shared__ word_t s_warp[ADVANCE_WARPS];  // the push's per-warp scan totals (block_reserve)
    long long round = (long long)words[WF_BASE] + round_offset;  // nobody writes WF_BASE during a round
    word_t in_packed = words[WF_QUEUE0 + round % 3];
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        words[WF_QUEUE0 + (round + 2) % 3] = 0ULL;
        if (in_packed != 0ULL) words[WF_ROUNDS] += 1ULL;  // only this thread writes it during a round
    }
    if (in_packed == 0ULL) return;  // the whole block leaves: no warp is left inside a collective
    long long in = round & 1, out = in ^ 1;
    WorkfrontRelax relax = {row_offsets, column_ids, weights, unit_weights, dist, stamps, (int)(round + 1), words,
                            0ULL, 0ULL};
    QueuePush push = {queue_out(vertices + out * n, starts + out * n, tile_first + out * tiles_per_queue,
                                &words[WF_QUEUE0 + (round + 1) % 3], shift),
                      s_warp};
    advance_queue(row_offsets, vertices + in * n, starts + in * n, tile_first + in * tiles_per_queue, in_packed,
                  shift, relax, push, s_tile);
    if (count_relaxations) add_counts(words, relax.attempts, relax.improved);
}
