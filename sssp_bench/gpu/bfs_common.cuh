// Shared by the GPU BFS kernels (gpu_bfs_common.py): the level type, the unreached level and the solve start.
// Levels are int32 hop counts; LEVEL_INF (INT32_MAX) marks an unreached vertex (the SolveResult's sentinel).
#ifndef SSSP_BENCH_BFS_COMMON_CUH
#define SSSP_BENCH_BFS_COMMON_CUH

#include "common.cuh"

typedef int level_t;

#define LEVEL_INF 0x7fffffff

// Every BFS solve starts here: levels = LEVEL_INF except level(source) = 0, and the n_words status words zeroed.
extern "C" __global__ void bfs_init(level_t* levels, long long n, long long source, word_t* words, int n_words) {
    long long stride = (long long)gridDim.x * blockDim.x;
    for (long long v = (long long)blockIdx.x * blockDim.x + threadIdx.x; v < n; v += stride) {
        levels[v] = v == source ? 0 : LEVEL_INF;
    }
    if (blockIdx.x == 0) {
        for (int i = threadIdx.x; i < n_words; i += blockDim.x) words[i] = 0ULL;
    }
}

#endif  // SSSP_BENCH_BFS_COMMON_CUH
