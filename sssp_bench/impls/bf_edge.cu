// The course project's edge-parallel Bellman-Ford (course-bellman-ford-delta-stepping, section 3.2).
//
// The graph as an edge list (arc sources beside the CSR's column ids and weights). Each round, each thread
// relaxes a contiguous chunk of `chunk` arcs, sized on the host from the graph and the device, with atomicMin;
// a per-block shared flag records a change, and one thread per block writes the global flag, which the host
// reads after the round to stop early.
#include "common.cuh"

// arc_sources[e] = the source vertex of arc e: one thread per arc, binary search in the row offsets.
extern "C" __global__ void bf_edge_arc_sources(const offset_t* __restrict__ row_offsets, long long n, long long m,
                                               vertex_t* arc_sources) {
    long long stride = (long long)gridDim.x * blockDim.x;
    for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < m; e += stride) {
        // the row u with row_offsets[u] <= e < row_offsets[u + 1]: upper_bound over row_offsets[1..n]
        arc_sources[e] = (vertex_t)upper_bound(row_offsets + 1, n, e);
    }
}

extern "C" __global__ void bf_edge_round(const vertex_t* __restrict__ arc_sources,
                                         const vertex_t* __restrict__ column_ids,
                                         const weight_t* __restrict__ weights, int unit_weights, long long m,
                                         long long chunk, dist_t* dist, word_t* words, int parity,
                                         int count_relaxations) {
    __shared__ int block_changed;
    if (threadIdx.x == 0) block_changed = 0;
    if (blockIdx.x == 0 && threadIdx.x == 0) words[W_CHANGED0 + (parity ^ 1)] = 0ULL;
    __syncthreads();
    long long thread = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long begin = thread * chunk;
    long long end = begin + chunk < m ? begin + chunk : m;
    bool changed = false;
    unsigned long long attempts = 0, improved = 0;
    for (long long e = begin; e < end; ++e) {
        dist_t du = dist[arc_sources[e]];
        if (du == DIST_INF) continue;
        ++attempts;
        if (relax(dist, column_ids[e], du, arc_weight(weights, unit_weights, e), words)) {
            changed = true;
            ++improved;
        }
    }
    if (changed) block_changed = 1;  // benign race: every writer writes 1
    __syncthreads();
    if (threadIdx.x == 0 && block_changed) words[W_CHANGED0 + parity] = 1ULL;
    if (count_relaxations) add_counts(words, attempts, improved);
}
