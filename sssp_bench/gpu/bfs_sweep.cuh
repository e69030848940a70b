// Shared by the topology-driven BFS comparators (bfs_harish.cu, bfs_vwarp.cu, bfs_edge.cu): every level is one
// kernel over all vertices (or all arcs), and the host stops after the first level that discovers nothing.
//
// Status words (bfs_harish.py mirrors the indices): a level L kernel sets BFS_DISCOVERED0 + (L & 1) when it
// gave some vertex level L + 1, and zeroes the other parity's word, which the host read after level L - 1, so
// the next level starts from a clear flag without an extra launch. With counting on, BFS_COUNTED and BFS_ARCS
// accumulate over the whole solve (the host takes differences per level).
#ifndef SSSP_BENCH_BFS_SWEEP_CUH
#define SSSP_BENCH_BFS_SWEEP_CUH

#include "bfs_common.cuh"

#define BFS_DISCOVERED0 0  // "level L discovered a vertex", L even ...
#define BFS_DISCOVERED1 1  // ... and L odd
#define BFS_COUNTED 2      // frontier vertices expanded (or, bfs_edge, vertices discovered), counting only
#define BFS_ARCS 3         // arcs out of frontier vertices, counting only

// The end of every level kernel. Every thread of the block must call it (it synchronises the block), and the
// block size must be a multiple of 32 (the counts are summed per warp with shuffles).
__device__ __forceinline__ void finish_level(word_t* words, int level, bool discovered, unsigned long long counted,
                                             unsigned long long arcs, int count) {
    if (blockIdx.x == 0 && threadIdx.x == 0) words[BFS_DISCOVERED0 + ((level + 1) & 1)] = 0ULL;
    // One store per block rather than one per discovering thread.
    if (__syncthreads_or(discovered) && threadIdx.x == 0) words[BFS_DISCOVERED0 + (level & 1)] = 1ULL;
    if (count) {
        for (int offset = 16; offset > 0; offset >>= 1) {
            counted += __shfl_down_sync(0xffffffffu, counted, offset);
            arcs += __shfl_down_sync(0xffffffffu, arcs, offset);
        }
        if ((threadIdx.x & 31) == 0) {
            if (counted) atomicAdd(&words[BFS_COUNTED], counted);
            if (arcs) atomicAdd(&words[BFS_ARCS], arcs);
        }
    }
}

#endif  // SSSP_BENCH_BFS_SWEEP_CUH
