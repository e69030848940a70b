// Hong, Kim, Oguntebi and Olukotun's static virtual warps (PPoPP 2011) for BFS, BFS-4K's "Static Virtual Warp"
// column of Table 2: level-synchronous and topology-driven like Harish's BFS, but a virtual warp of 2^warp_shift
// lanes (1 to 32, set before the run) owns one vertex, and its lanes stride over the vertex's arcs together, so
// a high-degree vertex is spread over the lanes instead of serialising one thread.
#include "bfs_sweep.cuh"

// Level `level` with virtual warps of 2^warp_shift lanes. The block size is a multiple of 32, so a virtual warp
// never straddles two physical warps. Levels are written without atomics (see bfs_harish_level).
extern "C" __global__ void bfs_vwarp_level(const offset_t* __restrict__ row_offsets,
                                           const vertex_t* __restrict__ column_ids, long long n, level_t* levels,
                                           int level, int warp_shift, word_t* words, int count) {
    const int lanes = 1 << warp_shift;
    const int lane = threadIdx.x & (lanes - 1);
    long long thread = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long warps_in_grid = ((long long)gridDim.x * blockDim.x) >> warp_shift;
    bool discovered = false;
    unsigned long long frontier = 0, arcs = 0;
    for (long long v = thread >> warp_shift; v < n; v += warps_in_grid) {
        // every lane reads the same level and offsets: one broadcast load per physical warp
        if (levels[v] != level) continue;
        offset_t begin = row_offsets[v], end = row_offsets[v + 1];
        if (lane == 0) {
            ++frontier;
            arcs += (unsigned long long)(end - begin);
        }
        for (offset_t e = begin + lane; e < end; e += lanes) {
            vertex_t w = column_ids[e];
            if (levels[w] == LEVEL_INF) {
                levels[w] = level + 1;
                discovered = true;
            }
        }
    }
    finish_level(words, level, discovered, frontier, arcs, count);
}
