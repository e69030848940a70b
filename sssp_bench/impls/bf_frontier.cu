// The course project's frontier Bellman-Ford on CSR (course-bellman-ford-delta-stepping, section 3.3).
//
// Two frontiers. Each iteration: (1) gather the out-degree of every frontier vertex (and clear its
// "in the next frontier" flag); (2) an inclusive prefix sum of those degrees (CuPy's scan; the course project
// summed on the CPU); (3) one thread per frontier arc finds its frontier vertex by binary search in the sums,
// relaxes the arc with atomicMin, and pushes an improved head into the next frontier once (flag array with
// atomicExch). The host reads the next frontier's size back and swaps the frontiers.
#include "common.cuh"

// Besides the distances, clears the "in the next frontier" flags and puts the source in the first frontier.
extern "C" __global__ void bf_frontier_init(int* in_next, long long n, long long source, vertex_t* frontier) {
    long long stride = (long long)gridDim.x * blockDim.x;
    for (long long v = (long long)blockIdx.x * blockDim.x + threadIdx.x; v < n; v += stride) in_next[v] = 0;
    if (blockIdx.x == 0 && threadIdx.x == 0) frontier[0] = (vertex_t)source;
}

extern "C" __global__ void bf_frontier_degrees(const offset_t* __restrict__ row_offsets,
                                               const vertex_t* __restrict__ frontier, long long size,
                                               long long* degrees, int* in_next, word_t* words) {
    if (blockIdx.x == 0 && threadIdx.x == 0) words[W_QUEUE] = 0ULL;  // the next frontier starts empty
    long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < size; i += stride) {
        vertex_t u = frontier[i];
        degrees[i] = row_offsets[u + 1] - row_offsets[u];
        in_next[u] = 0;  // u may join the next frontier again if it improves during this iteration
    }
}

// `scan` holds the inclusive prefix sums of the frontier's degrees; scan[size - 1] is the number of arcs.
extern "C" __global__ void bf_frontier_relax(const offset_t* __restrict__ row_offsets,
                                             const vertex_t* __restrict__ column_ids,
                                             const weight_t* __restrict__ weights, int unit_weights,
                                             const vertex_t* __restrict__ frontier, long long size,
                                             const long long* __restrict__ scan, dist_t* dist, int* in_next,
                                             vertex_t* next_frontier, word_t* words, int count_relaxations) {
    long long arcs = scan[size - 1];
    long long stride = (long long)gridDim.x * blockDim.x;
    unsigned long long attempts = 0, improved = 0;
    for (long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x; t < arcs; t += stride) {
        long long i = upper_bound(scan, size, t);
        long long before = i ? scan[i - 1] : 0;
        vertex_t u = frontier[i];
        offset_t e = row_offsets[u] + (t - before);
        vertex_t v = column_ids[e];
        ++attempts;
        if (relax(dist, v, dist[u], arc_weight(weights, unit_weights, e), words)) {
            ++improved;
            if (atomicExch(&in_next[v], 1) == 0) {
                unsigned long long slot = atomicAdd(&words[W_QUEUE], 1ULL);
                next_frontier[slot] = v;
            }
        }
    }
    if (count_relaxations) add_counts(words, attempts, improved);
}
