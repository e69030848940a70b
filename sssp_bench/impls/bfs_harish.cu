// Harish and Narayanan's BFS (HiPC 2007), as BFS-4K's related work and Table 2 describe it: no frontier queue;
// every level launches one thread per vertex, and a vertex whose level is the current one expands all its
// out-arcs, giving every unvisited neighbour the next level. O(V D + E) work for D levels.
#include "bfs_sweep.cuh"

// Level `level`: vertices at that level give their unvisited out-neighbours level + 1. A neighbour's level is
// written without an atomic: every writer in this launch writes the same value, and a vertex written during
// the launch is never at `level`, so a thread that reads it before or after the write skips it alike.
extern "C" __global__ void bfs_harish_level(const offset_t* __restrict__ row_offsets,
                                            const vertex_t* __restrict__ column_ids, long long n, level_t* levels,
                                            int level, word_t* words, int count) {
    bool discovered = false;
    unsigned long long frontier = 0, arcs = 0;
    long long stride = (long long)gridDim.x * blockDim.x;
    for (long long v = (long long)blockIdx.x * blockDim.x + threadIdx.x; v < n; v += stride) {
        if (levels[v] != level) continue;
        offset_t begin = row_offsets[v], end = row_offsets[v + 1];
        ++frontier;
        arcs += (unsigned long long)(end - begin);
        for (offset_t e = begin; e < end; ++e) {
            vertex_t w = column_ids[e];
            if (levels[w] == LEVEL_INF) {
                levels[w] = level + 1;
                discovered = true;
            }
        }
    }
    finish_level(words, level, discovered, frontier, arcs, count);
}
