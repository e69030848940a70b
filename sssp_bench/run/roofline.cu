// The roofline's device measurements (sssp_bench/roofline.py).
//
// roofline_arc_tails: the tail (owning row) of every arc, int32, once per graph (not timed).
// roofline_relax_all: the least work any SSSP must do on the graph, one pass that relaxes every arc exactly
//   once: one thread per arc reads its tail's distance, adds the weight and atomicMin's the head's distance,
//   keeping the old value to see whether it improved, as a solver does (a block that improved anything sets a
//   flag word, as the solvers' changed flags do). The tail distances are a separate, read-only array, so no
//   arc is ever skipped: every arc is live whatever the order the threads run in.
// roofline_chase: one thread follows a random cyclic permutation for `steps` dependent loads, starting where
//   the previous launch stopped (so repeats never revisit addresses a previous one left in L2). Plain global
//   loads (no __restrict__, so not the read-only path), as a solver's reads of its distances are.
#include "arcs.cuh"

extern "C" __global__ void __launch_bounds__(ARC_BLOCK) roofline_arc_tails(const offset_t* __restrict__ row_offsets,
                                                                            long long n, long long m,
                                                                            vertex_t* __restrict__ tails) {
    __shared__ long long rows[2];
    long long tile_start = (long long)blockIdx.x * ARC_TILE;
    if (tile_start >= m) return;  // the whole block: before any barrier
    tile_rows(row_offsets, n, m, tile_start, rows);
    long long low = rows[0], high = rows[1];
    for (int item = 0; item < ARC_ITEMS; ++item) {
        long long e = tile_start + (long long)item * ARC_BLOCK + threadIdx.x;
        if (e >= m) break;
        tails[e] = (vertex_t)owning_row(row_offsets, low, high, e);
    }
}

extern "C" __global__ void roofline_relax_all(const vertex_t* __restrict__ tails,
                                              const vertex_t* __restrict__ column_ids,
                                              const weight_t* __restrict__ weights, int unit_weights, long long m,
                                              const dist_t* __restrict__ tail_dist, dist_t* dist, word_t* words) {
    long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    int improved = 0;
    if (e < m) {
        dist_t candidate = tail_dist[tails[e]] + arc_weight(weights, unit_weights, e);
        dist_t old = atomicMin(&dist[column_ids[e]], candidate);
        improved = candidate < old;
    }
    if (__syncthreads_or(improved) && threadIdx.x == 0) words[W_CHANGED0] = 1ULL;
}

extern "C" __global__ void roofline_chase(const unsigned int* next, long long steps,
                                          unsigned int* position) {
    if (blockIdx.x != 0 || threadIdx.x != 0) return;
    unsigned int i = position[0];
    for (long long step = 0; step < steps; ++step) i = next[i];
    position[0] = i;
}
