// Load-balanced passes over the arcs of a CSR graph: which row (tail vertex) owns arc e.
//
// A pass over the arcs gives each block a tile of ARC_TILE consecutive arcs (ARC_ITEMS per thread, strided by
// the block size so a warp reads consecutive arcs). Thread 0 finds the rows that own the tile's first and last
// arc by binary search over all rows; every thread then finds its arcs' rows by binary search inside that
// range, which is small (a tile of 2048 arcs spans at most 2049 rows) and read from L1. Included by the
// on-device certificate (certificate.cu) and the roofline (roofline.cu).
#ifndef SSSP_BENCH_GPU_ARCS_CUH
#define SSSP_BENCH_GPU_ARCS_CUH

#include "common.cuh"

#define ARC_BLOCK 256
#define ARC_ITEMS 8
#define ARC_TILE (ARC_BLOCK * ARC_ITEMS)

// The row u in [low, high] that owns arc e: the largest u with row_offsets[u] <= e. Rows without arcs share
// their offset with the next row, so the largest such u is the one whose row really holds e.
__device__ __forceinline__ long long owning_row(const offset_t* __restrict__ row_offsets, long long low,
                                                long long high, long long e) {
    while (low < high) {
        long long middle = low + ((high - low + 1) >> 1);
        if (row_offsets[middle] <= e) low = middle; else high = middle - 1;
    }
    return low;
}

// The rows owning the first and last arc of the tile [tile_start, tile_start + ARC_TILE) clipped to m, found
// by thread 0 and shared with the block through `rows` (2 entries of shared memory). Call from every thread.
__device__ __forceinline__ void tile_rows(const offset_t* __restrict__ row_offsets, long long n, long long m,
                                          long long tile_start, long long* rows) {
    if (threadIdx.x == 0) {
        long long last = tile_start + ARC_TILE - 1;
        if (last >= m) last = m - 1;
        rows[0] = owning_row(row_offsets, 0, n - 1, tile_start);
        rows[1] = owning_row(row_offsets, rows[0], n - 1, last);
    }
    __syncthreads();
}

#endif  // SSSP_BENCH_GPU_ARCS_CUH
