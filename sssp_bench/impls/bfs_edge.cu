// Edge-parallel BFS, BFS-4K's "Edge Parall." column of Table 2: every level launches one thread per arc over an
// edge list (the arc tails beside the CSR's column ids); an arc whose tail is at the current level and whose
// head is unvisited gives the head the next level. O(E D) work for D levels, but no thread owns more than one arc.
#include "bfs_sweep.cuh"

// arc_tails[e] = the tail of arc e: the row u with row_offsets[u] <= e < row_offsets[u + 1] (a binary search).
// The same kernel as bf_edge.cu's bf_edge_arc_sources; each module looks up only kernels of its own source.
extern "C" __global__ void bfs_edge_arc_tails(const offset_t* __restrict__ row_offsets, long long n, long long m,
                                              vertex_t* arc_tails) {
    long long stride = (long long)gridDim.x * blockDim.x;
    for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < m; e += stride) {
        arc_tails[e] = (vertex_t)upper_bound(row_offsets + 1, n, e);
    }
}

// Level `level` over all m arcs. Without counting the head's level is a plain store (every writer writes the
// same value; see bfs_harish_level); with counting a compare-and-swap lets exactly one thread count each
// discovered vertex, which is the next level's frontier size.
extern "C" __global__ void bfs_edge_level(const vertex_t* __restrict__ arc_tails,
                                          const vertex_t* __restrict__ column_ids, long long m, level_t* levels,
                                          int level, word_t* words, int count) {
    bool discovered = false;
    unsigned long long found = 0, arcs = 0;
    long long stride = (long long)gridDim.x * blockDim.x;
    for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < m; e += stride) {
        if (levels[arc_tails[e]] != level) continue;
        ++arcs;
        vertex_t w = column_ids[e];
        if (levels[w] != LEVEL_INF) continue;
        discovered = true;
        if (!count) {
            levels[w] = level + 1;
        } else if (atomicCAS(&levels[w], LEVEL_INF, level + 1) == LEVEL_INF) {
            ++found;
        }
    }
    finish_level(words, level, discovered, found, arcs, count);
}
