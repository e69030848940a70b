// Blocked all-pairs Floyd-Warshall (Venkataraman et al.), the comparator of parbucketheap-pardijkstra's Figure 6.
//
// The n_pad x n_pad matrix (row-major, D = int or long long) is built from the CSR by fw_fill and fw_arcs, then each
// block round b runs three kernels: fw_diagonal (tile (b, b) closed over its k in shared memory, one block),
// fw_panels (the other tiles of row b and column b, one block each, with the closed diagonal tile) and fw_rest
// (every other tile: min over the round's k of column-b tile + row-b tile, staged through shared memory in chunks
// of up to 32 k). Blocks are 16 x 16 threads; thread (ty, tx) owns the tile entries (ty + 16 r, tx + 16 c),
// r, c < TILE / 16. fw_row copies the source's row out as int64 distances and flags a negative cycle reachable from
// the source. Every candidate is saturated to [floor, ceil] (sssp_bench/kernels/floyd_warshall.py says why that is
// exact for the source's row and cannot overflow), INF where an operand is INF.
#include "common.cuh"

#define FW_SIDE 16
#define FW_THREADS (FW_SIDE * FW_SIDE)
#define FW_CYCLE_VERTEX 6  // status word: least vertex v with d[s][v] finite and d[v][v] < 0 (UINT64_MAX if none)

template <typename D> struct FwLimits;
template <> struct FwLimits<long long> {
    static constexpr long long inf = 0x7fffffffffffffffLL;
    static constexpr long long floor = -0x4000000000000000LL;
    static constexpr long long ceil = 0x3fffffffffffffffLL;
};
template <> struct FwLimits<int> {
    static constexpr int inf = 0x7fffffff;
    static constexpr int floor = -0x40000000;
    static constexpr int ceil = 0x3fffffff;
};

template <typename D>
__device__ __forceinline__ D fw_clamp(D x) {
    x = x < FwLimits<D>::floor ? FwLimits<D>::floor : x;
    return x > FwLimits<D>::ceil ? FwLimits<D>::ceil : x;
}

// min(current, a + b) saturated; counts a finite candidate as an attempt and a lowering as a relaxation.
template <typename D, bool COUNT>
__device__ __forceinline__ D fw_relax(D current, D a, D b, unsigned long long& attempts, unsigned long long& improved) {
    if (a == FwLimits<D>::inf || b == FwLimits<D>::inf) return current;
    D candidate = fw_clamp<D>(a + b);  // a, b in [floor, ceil]: the sum fits D
    if (COUNT) {
        ++attempts;
        if (candidate < current) ++improved;
    }
    return candidate < current ? candidate : current;
}

template <bool COUNT>
__device__ __forceinline__ void fw_add_counts(word_t* words, unsigned long long attempts, unsigned long long improved) {
    if (COUNT) add_counts(words, attempts, improved);
}

// Every entry INF, the diagonal 0; the status words reset (FW_CYCLE_VERTEX to UINT64_MAX).
template <typename D>
__global__ void fw_fill(D* matrix, long long n_pad, word_t* words) {
    long long total = n_pad * n_pad;
    long long stride = (long long)gridDim.x * blockDim.x;
    for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < total; e += stride) {
        matrix[e] = (e / n_pad == e % n_pad) ? (D)0 : FwLimits<D>::inf;
    }
    if (blockIdx.x == 0 && threadIdx.x < N_WORDS) words[threadIdx.x] = threadIdx.x == FW_CYCLE_VERTEX ? ~0ULL : 0ULL;
}

// entry (u, v) = min over the arcs u -> v of their (clamped) weight: one thread per arc, its tail by binary search.
template <typename D, bool COUNT>
__global__ void fw_arcs(const offset_t* __restrict__ row_offsets, const vertex_t* __restrict__ column_ids,
                        const weight_t* __restrict__ weights, int unit_weights, long long n, long long m,
                        long long n_pad, D* matrix, word_t* words) {
    long long stride = (long long)gridDim.x * blockDim.x;
    unsigned long long attempts = 0, improved = 0;
    for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < m; e += stride) {
        long long u = upper_bound(row_offsets + 1, n, e);
        long long v = column_ids[e];
        dist_t w = arc_weight(weights, unit_weights, e);
        D clamped = (D)(w < (dist_t)FwLimits<D>::floor ? (dist_t)FwLimits<D>::floor
                        : w > (dist_t)FwLimits<D>::ceil ? (dist_t)FwLimits<D>::ceil : w);
        D old = atomicMin(&matrix[u * n_pad + v], clamped);
        if (COUNT) {
            ++attempts;
            if (clamped < old) ++improved;
        }
    }
    fw_add_counts<COUNT>(words, attempts, improved);
}

// Phase 1: tile (b, b) closed over its TILE k in order, in shared memory. One block.
template <typename D, int TILE, bool COUNT>
__global__ void __launch_bounds__(FW_THREADS) fw_diagonal(D* matrix, long long n_pad, long long b, word_t* words) {
    constexpr int R = TILE / FW_SIDE;
    __shared__ D tile[TILE][TILE];
    const int ty = threadIdx.y, tx = threadIdx.x;
    D* base = matrix + (b * TILE) * n_pad + b * TILE;
#pragma unroll
    for (int r = 0; r < R; ++r)
#pragma unroll
        for (int c = 0; c < R; ++c) tile[ty + FW_SIDE * r][tx + FW_SIDE * c] = base[(ty + FW_SIDE * r) * n_pad + tx + FW_SIDE * c];
    __syncthreads();
    unsigned long long attempts = 0, improved = 0;
    D next[R][R];
    for (int k = 0; k < TILE; ++k) {
#pragma unroll
        for (int r = 0; r < R; ++r)
#pragma unroll
            for (int c = 0; c < R; ++c) {
                int i = ty + FW_SIDE * r, j = tx + FW_SIDE * c;
                next[r][c] = fw_relax<D, COUNT>(tile[i][j], tile[i][k], tile[k][j], attempts, improved);
            }
        __syncthreads();  // every operand of step k read before any write
#pragma unroll
        for (int r = 0; r < R; ++r)
#pragma unroll
            for (int c = 0; c < R; ++c) tile[ty + FW_SIDE * r][tx + FW_SIDE * c] = next[r][c];
        __syncthreads();
    }
#pragma unroll
    for (int r = 0; r < R; ++r)
#pragma unroll
        for (int c = 0; c < R; ++c) base[(ty + FW_SIDE * r) * n_pad + tx + FW_SIDE * c] = tile[ty + FW_SIDE * r][tx + FW_SIDE * c];
    fw_add_counts<COUNT>(words, attempts, improved);
}

// Phase 2: grid (tiles - 1, 2). blockIdx.y 0: tile (b, t) of row b, own[i][j] = min(own, diag[i][k] + own[k][j]);
// 1: tile (t, b) of column b, own[i][j] = min(own, own[i][k] + diag[k][j]); t = blockIdx.x, skipping b. The own
// tile in shared memory, the closed diagonal tile read from global memory (final since fw_diagonal).
template <typename D, int TILE, bool COUNT>
__global__ void __launch_bounds__(FW_THREADS) fw_panels(D* matrix, long long n_pad, long long b, word_t* words) {
    constexpr int R = TILE / FW_SIDE;
    __shared__ D own[TILE][TILE];
    const int ty = threadIdx.y, tx = threadIdx.x;
    const long long t = blockIdx.x < b ? (long long)blockIdx.x : (long long)blockIdx.x + 1;
    const bool row_panel = blockIdx.y == 0;
    D* base = row_panel ? matrix + (b * TILE) * n_pad + t * TILE : matrix + (t * TILE) * n_pad + b * TILE;
    const D* diag = matrix + (b * TILE) * n_pad + b * TILE;
#pragma unroll
    for (int r = 0; r < R; ++r)
#pragma unroll
        for (int c = 0; c < R; ++c) own[ty + FW_SIDE * r][tx + FW_SIDE * c] = base[(ty + FW_SIDE * r) * n_pad + tx + FW_SIDE * c];
    __syncthreads();
    unsigned long long attempts = 0, improved = 0;
    D next[R][R];
    for (int k = 0; k < TILE; ++k) {
#pragma unroll
        for (int r = 0; r < R; ++r)
#pragma unroll
            for (int c = 0; c < R; ++c) {
                int i = ty + FW_SIDE * r, j = tx + FW_SIDE * c;
                D a = row_panel ? diag[i * n_pad + k] : own[i][k];
                D bk = row_panel ? own[k][j] : diag[k * n_pad + j];
                next[r][c] = fw_relax<D, COUNT>(own[i][j], a, bk, attempts, improved);
            }
        __syncthreads();
#pragma unroll
        for (int r = 0; r < R; ++r)
#pragma unroll
            for (int c = 0; c < R; ++c) own[ty + FW_SIDE * r][tx + FW_SIDE * c] = next[r][c];
        __syncthreads();
    }
#pragma unroll
    for (int r = 0; r < R; ++r)
#pragma unroll
        for (int c = 0; c < R; ++c) base[(ty + FW_SIDE * r) * n_pad + tx + FW_SIDE * c] = own[ty + FW_SIDE * r][tx + FW_SIDE * c];
    fw_add_counts<COUNT>(words, attempts, improved);
}

// Phase 3: grid (tiles, tiles); tile (bi, bj) with bi, bj != b: min over the round's k of (bi, b)[i][k] + (b, bj)[k][j],
// the thread's R x R entries in registers, the two panels staged through shared memory KC k at a time.
template <typename D, int TILE, bool COUNT>
__global__ void __launch_bounds__(FW_THREADS) fw_rest(D* matrix, long long n_pad, long long b, word_t* words) {
    constexpr int R = TILE / FW_SIDE;
    constexpr int KC = TILE < 32 ? TILE : 32;
    const long long bi = blockIdx.y, bj = blockIdx.x;
    if (bi == b || bj == b) return;
    __shared__ D column_part[TILE][KC];  // rows of tile bi, columns k of tile b
    __shared__ D row_part[KC][TILE];     // rows k of tile b, columns of tile bj
    const int ty = threadIdx.y, tx = threadIdx.x;
    const int thread = ty * FW_SIDE + tx;
    D* base = matrix + (bi * TILE) * n_pad + bj * TILE;
    const D* column_panel = matrix + (bi * TILE) * n_pad + b * TILE;
    const D* row_panel = matrix + (b * TILE) * n_pad + bj * TILE;
    D current[R][R];
#pragma unroll
    for (int r = 0; r < R; ++r)
#pragma unroll
        for (int c = 0; c < R; ++c) current[r][c] = base[(ty + FW_SIDE * r) * n_pad + tx + FW_SIDE * c];
    unsigned long long attempts = 0, improved = 0;
    for (int k0 = 0; k0 < TILE; k0 += KC) {
        for (int e = thread; e < TILE * KC; e += FW_THREADS) {
            column_part[e / KC][e % KC] = column_panel[(e / KC) * n_pad + k0 + e % KC];
            row_part[e / TILE][e % TILE] = row_panel[(k0 + e / TILE) * n_pad + e % TILE];
        }
        __syncthreads();
#pragma unroll 4
        for (int k = 0; k < KC; ++k) {
            D a[R], bk[R];
#pragma unroll
            for (int r = 0; r < R; ++r) a[r] = column_part[ty + FW_SIDE * r][k];
#pragma unroll
            for (int c = 0; c < R; ++c) bk[c] = row_part[k][tx + FW_SIDE * c];
#pragma unroll
            for (int r = 0; r < R; ++r)
#pragma unroll
                for (int c = 0; c < R; ++c) current[r][c] = fw_relax<D, COUNT>(current[r][c], a[r], bk[c], attempts, improved);
        }
        __syncthreads();
    }
#pragma unroll
    for (int r = 0; r < R; ++r)
#pragma unroll
        for (int c = 0; c < R; ++c) base[(ty + FW_SIDE * r) * n_pad + tx + FW_SIDE * c] = current[r][c];
    fw_add_counts<COUNT>(words, attempts, improved);
}

// The source's row as int64 distances (DIST_INF where unreached); FW_CYCLE_VERTEX = the least v with d[s][v] finite
// and d[v][v] < 0 (a negative cycle reachable from the source), and W_FLOOR set, when there is one.
template <typename D>
__global__ void fw_row(const D* __restrict__ matrix, long long n, long long n_pad, long long source, dist_t* dist,
                       word_t* words) {
    long long stride = (long long)gridDim.x * blockDim.x;
    for (long long v = (long long)blockIdx.x * blockDim.x + threadIdx.x; v < n; v += stride) {
        D x = matrix[source * n_pad + v];
        bool reached = x != FwLimits<D>::inf;
        dist[v] = reached ? (dist_t)x : DIST_INF;
        if (reached && matrix[v * n_pad + v] < (D)0) {
            atomicMin(&words[FW_CYCLE_VERTEX], (word_t)v);
            words[W_FLOOR] = 1ULL;
        }
    }
}

#if !defined(__CUDACC_RTC__)
// nvcc (the CI compile check) instantiates here what NVRTC instantiates from the host's name expressions.
#define FW_PHASES(D, TILE, COUNT)                                                              \
    template __global__ void fw_diagonal<D, TILE, COUNT>(D*, long long, long long, word_t*);  \
    template __global__ void fw_panels<D, TILE, COUNT>(D*, long long, long long, word_t*);    \
    template __global__ void fw_rest<D, TILE, COUNT>(D*, long long, long long, word_t*);
FW_PHASES(int, 16, false)
FW_PHASES(int, 16, true)
FW_PHASES(int, 32, false)
FW_PHASES(int, 32, true)
FW_PHASES(int, 64, false)
FW_PHASES(int, 64, true)
FW_PHASES(long long, 16, false)
FW_PHASES(long long, 16, true)
FW_PHASES(long long, 32, false)
FW_PHASES(long long, 32, true)
FW_PHASES(long long, 64, false)
FW_PHASES(long long, 64, true)
#undef FW_PHASES
template __global__ void fw_fill<int>(int*, long long, word_t*);
template __global__ void fw_fill<long long>(long long*, long long, word_t*);
template __global__ void fw_arcs<int, false>(const offset_t*, const vertex_t*, const weight_t*, int, long long,
                                             long long, long long, int*, word_t*);
template __global__ void fw_arcs<int, true>(const offset_t*, const vertex_t*, const weight_t*, int, long long,
                                            long long, long long, int*, word_t*);
template __global__ void fw_arcs<long long, false>(const offset_t*, const vertex_t*, const weight_t*, int, long long,
                                                   long long, long long, long long*, word_t*);
template __global__ void fw_arcs<long long, true>(const offset_t*, const vertex_t*, const weight_t*, int, long long,
                                                  long long, long long, long long*, word_t*);
template __global__ void fw_row<int>(const int*, long long, long long, long long, dist_t*, word_t*);
template __global__ void fw_row<long long>(const long long*, long long, long long, long long, dist_t*, word_t*);
#endif
