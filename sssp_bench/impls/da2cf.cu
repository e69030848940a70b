// DA2CF: Dijkstra's algorithm adapted to compound frontiers (da2cf-gpu-dijkstra-compound-frontiers, sections 3-5).
//
// The host runs the loop of Fig. 2: initialize; while mssp != INF { relax; mssp = minimum; update }. Every kernel
// here is one of its steps, one thread per vertex in blocks of DA2CF_BLOCK (the paper's 256):
//   da2cf_init                        initialize(c, f, u) from any source (the paper's source is vertex 0)
//   da2cf_relax_frontier[_plain]      relax_F on the lists (Fig. 3 left): atomicMin, or the deliberately racy
//                                     plain `if (c[j] > x) c[j] = x;` of FGPU_no_Atomic
//   da2cf_relax_unresolved[_cached]   relax_U on the predecessor lists (Fig. 3 right); _cached is UGPU_PLUS (4.2):
//                                     row offsets shared through shared memory, f read through the read-only cache
//   da2cf_matrix_relax_frontier[_plain], da2cf_matrix_relax_unresolved: section 5, chunks of u (rows) or of f and
//                                     c (columns) staged in shared memory by the block
//   da2cf_minimum1, da2cf_minimum2    Fig. 4 right (reduce3: two elements per thread, shared-memory tree) and the
//                                     second pass over the block minima (UGPU+2min); the host minimises the rest
//   da2cf_update                      Fig. 4 left: f[i] = u[i] && c[i] == mssp; those leave u
//   da2cf_matrix_fill                 the dense matrix from the CSR (prepare), parallel arcs keep the least weight
//
// Distances are int64 (common.cuh), f and u one byte each. Weights are non-negative (the Python side refuses
// others), so c[i] + w never overflows and the matrix holds them as unsigned with 0xffffffff for "no arc".
#include "common.cuh"

#define DA2CF_BLOCK 256
#define MATRIX_NO_ARC 0xffffffffu
typedef unsigned char flag_t;

__device__ __forceinline__ dist_t dist_min(dist_t a, dist_t b) { return a < b ? a : b; }

// One relax of relax_F: c[j] = min(c[j], x). True when it lowered c[j] (counted as a relaxation).
// ATOMIC: atomicMin, as the paper's FGPU. Otherwise the paper's FGPU_no_Atomic: a plain compare and store through
// a volatile pointer, so the compiler keeps one load and one store per arc, neither merged, hoisted nor made
// atomic; two frontier threads may both pass the compare and the larger value may land last (a lost race).
template <bool ATOMIC>
__device__ __forceinline__ bool relax_min(dist_t* c, vertex_t j, dist_t x) {
    if (ATOMIC) return x < atomicMin(&c[j], x);
    volatile dist_t* racy_c = c;
    if (racy_c[j] > x) {
        racy_c[j] = x;
        return true;
    }
    return false;
}

extern "C" __global__ void da2cf_init(dist_t* c, flag_t* f, flag_t* u, long long n, long long source,
                                      word_t* words) {
    long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        c[i] = i == source ? 0LL : DIST_INF;
        f[i] = i == source ? 1 : 0;
        u[i] = i == source ? 0 : 1;
    }
    if (blockIdx.x == 0 && threadIdx.x < N_WORDS) words[threadIdx.x] = 0ULL;
}

// ---- relax_F on the lists: each frontier vertex i relaxes its successors that are still unresolved ----------

template <bool ATOMIC>
__device__ __forceinline__ void relax_frontier_list(const offset_t* __restrict__ row_offsets,
                                                    const vertex_t* __restrict__ column_ids,
                                                    const weight_t* __restrict__ weights, int unit_weights,
                                                    const flag_t* f, const flag_t* u, dist_t* c, long long n,
                                                    word_t* words, int count_relaxations) {
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n || !f[i]) return;
    dist_t ci = c[i];  // resolved: nothing writes it during relax
    unsigned long long attempts = 0, improved = 0;
    offset_t end = row_offsets[i + 1];
    for (offset_t e = row_offsets[i]; e < end; ++e) {
        vertex_t j = column_ids[e];
        if (!u[j]) continue;
        ++attempts;
        if (relax_min<ATOMIC>(c, j, ci + arc_weight(weights, unit_weights, e))) ++improved;
    }
    if (count_relaxations) add_counts(words, attempts, improved);
}

extern "C" __global__ void __launch_bounds__(DA2CF_BLOCK)
da2cf_relax_frontier(const offset_t* __restrict__ row_offsets, const vertex_t* __restrict__ column_ids,
                     const weight_t* __restrict__ weights, int unit_weights, const flag_t* f, const flag_t* u,
                     dist_t* c, long long n, word_t* words, int count_relaxations) {
    relax_frontier_list<true>(row_offsets, column_ids, weights, unit_weights, f, u, c, n, words, count_relaxations);
}

extern "C" __global__ void __launch_bounds__(DA2CF_BLOCK)
da2cf_relax_frontier_plain(const offset_t* __restrict__ row_offsets, const vertex_t* __restrict__ column_ids,
                           const weight_t* __restrict__ weights, int unit_weights, const flag_t* f, const flag_t* u,
                           dist_t* c, long long n, word_t* words, int count_relaxations) {
    relax_frontier_list<false>(row_offsets, column_ids, weights, unit_weights, f, u, c, n, words, count_relaxations);
}

// ---- relax_U on the predecessor lists: each unresolved vertex i scans its predecessors for frontier ones -----
//
// Only thread i writes c[i], once, with the least candidate (the paper's c[i] = min(c[i], ...) per arc, kept in a
// register): no atomics. c[j] of a frontier predecessor is resolved, so no thread writes it during the kernel.
// CACHED (UGPU_PLUS): thread t loads in_offsets[i] into shared memory and reads in_offsets[i + 1] from its
// neighbour's slot (the block's last thread, or the last vertex's, loads both), and f is read through the
// read-only data cache (__ldg, the texture path of today's GPUs). Without CACHED, f is a plain pointer beside the
// written c, so the compiler cannot route it through that cache by itself.

template <bool CACHED>
__device__ __forceinline__ void relax_unresolved_list(const offset_t* __restrict__ in_offsets,
                                                      const vertex_t* __restrict__ in_tails,
                                                      const weight_t* __restrict__ in_weights, int unit_weights,
                                                      const flag_t* f, const flag_t* u, dist_t* c, long long n,
                                                      word_t* words, int count_relaxations) {
    __shared__ offset_t offsets[DA2CF_BLOCK + 1];
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    offset_t start = 0, end = 0;
    if (CACHED) {
        if (i < n) {
            offsets[threadIdx.x] = in_offsets[i];
            if (threadIdx.x == blockDim.x - 1 || i == n - 1) offsets[threadIdx.x + 1] = in_offsets[i + 1];
        }
        __syncthreads();  // every thread of the block reaches it: the returns come after
        if (i >= n || !u[i]) return;
        start = offsets[threadIdx.x];
        end = offsets[threadIdx.x + 1];
    } else {
        if (i >= n || !u[i]) return;
        start = in_offsets[i];
        end = in_offsets[i + 1];
    }
    dist_t old = c[i], best = old;
    unsigned long long attempts = 0;
    for (offset_t e = start; e < end; ++e) {
        vertex_t j = in_tails[e];
        flag_t in_frontier = CACHED ? __ldg(&f[j]) : f[j];
        if (!in_frontier) continue;
        ++attempts;
        best = dist_min(best, c[j] + arc_weight(in_weights, unit_weights, e));
    }
    if (best < old) c[i] = best;
    if (count_relaxations) add_counts(words, attempts, best < old ? 1ULL : 0ULL);
}

extern "C" __global__ void __launch_bounds__(DA2CF_BLOCK)
da2cf_relax_unresolved(const offset_t* __restrict__ in_offsets, const vertex_t* __restrict__ in_tails,
                       const weight_t* __restrict__ in_weights, int unit_weights, const flag_t* f, const flag_t* u,
                       dist_t* c, long long n, word_t* words, int count_relaxations) {
    relax_unresolved_list<false>(in_offsets, in_tails, in_weights, unit_weights, f, u, c, n, words,
                                 count_relaxations);
}

extern "C" __global__ void __launch_bounds__(DA2CF_BLOCK)
da2cf_relax_unresolved_cached(const offset_t* __restrict__ in_offsets, const vertex_t* __restrict__ in_tails,
                              const weight_t* __restrict__ in_weights, int unit_weights,
                              const flag_t* __restrict__ f, const flag_t* u, dist_t* c, long long n, word_t* words,
                              int count_relaxations) {
    relax_unresolved_list<true>(in_offsets, in_tails, in_weights, unit_weights, f, u, c, n, words,
                                count_relaxations);
}

// ---- section 5: the dense matrix (row = tail, column = head), one thread per vertex ---------------------------
//
// Both kernels sweep the vertices in chunks of DA2CF_BLOCK, each thread of the block staging one entry of the
// chunk in shared memory first. A block none of whose vertices has work (no frontier vertex for relax_F, no
// unresolved one for relax_U) leaves at once (__syncthreads_or, uniform over the block), before any staging.

template <bool ATOMIC>
__device__ __forceinline__ void matrix_relax_frontier(const unsigned int* __restrict__ matrix, const flag_t* f,
                                                      const flag_t* u, dist_t* c, long long n, word_t* words,
                                                      int count_relaxations) {
    __shared__ flag_t chunk_u[DA2CF_BLOCK];
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    int mine = i < n && f[i];
    if (!__syncthreads_or(mine)) return;
    dist_t ci = mine ? c[i] : 0;
    const unsigned int* row = matrix + (mine ? i : 0) * n;
    unsigned long long attempts = 0, improved = 0;
    for (long long base = 0; base < n; base += DA2CF_BLOCK) {
        long long k = base + threadIdx.x;
        chunk_u[threadIdx.x] = k < n ? u[k] : 0;
        __syncthreads();
        if (mine) {
            int size = (int)(n - base < DA2CF_BLOCK ? n - base : DA2CF_BLOCK);
            for (int t = 0; t < size; ++t) {
                if (!chunk_u[t]) continue;
                unsigned int w = row[base + t];
                if (w == MATRIX_NO_ARC) continue;
                ++attempts;
                if (relax_min<ATOMIC>(c, (vertex_t)(base + t), ci + (dist_t)w)) ++improved;
            }
        }
        __syncthreads();  // the chunk is read by every thread before the next one overwrites it
    }
    if (count_relaxations && mine) add_counts(words, attempts, improved);
}

extern "C" __global__ void __launch_bounds__(DA2CF_BLOCK)
da2cf_matrix_relax_frontier(const unsigned int* __restrict__ matrix, const flag_t* f, const flag_t* u, dist_t* c,
                            long long n, word_t* words, int count_relaxations) {
    matrix_relax_frontier<true>(matrix, f, u, c, n, words, count_relaxations);
}

extern "C" __global__ void __launch_bounds__(DA2CF_BLOCK)
da2cf_matrix_relax_frontier_plain(const unsigned int* __restrict__ matrix, const flag_t* f, const flag_t* u,
                                  dist_t* c, long long n, word_t* words, int count_relaxations) {
    matrix_relax_frontier<false>(matrix, f, u, c, n, words, count_relaxations);
}

// Thread j (unresolved) visits column j: matrix[k * n + j] for the frontier vertices k of each chunk, whose f and
// c the block staged (consecutive threads read consecutive columns: coalesced). c[k] is staged only for frontier
// k, which nothing writes during the kernel; only thread j writes c[j], once, at the end.
extern "C" __global__ void __launch_bounds__(DA2CF_BLOCK)
da2cf_matrix_relax_unresolved(const unsigned int* __restrict__ matrix, const flag_t* f, const flag_t* u, dist_t* c,
                              long long n, word_t* words, int count_relaxations) {
    __shared__ flag_t chunk_f[DA2CF_BLOCK];
    __shared__ dist_t chunk_c[DA2CF_BLOCK];
    long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    int mine = j < n && u[j];
    if (!__syncthreads_or(mine)) return;
    dist_t old = mine ? c[j] : DIST_INF, best = old;
    unsigned long long attempts = 0;
    for (long long base = 0; base < n; base += DA2CF_BLOCK) {
        long long k = base + threadIdx.x;
        flag_t in_frontier = k < n ? f[k] : 0;
        chunk_f[threadIdx.x] = in_frontier;
        chunk_c[threadIdx.x] = in_frontier ? c[k] : DIST_INF;
        __syncthreads();
        if (mine) {
            int size = (int)(n - base < DA2CF_BLOCK ? n - base : DA2CF_BLOCK);
            for (int t = 0; t < size; ++t) {
                if (!chunk_f[t]) continue;
                unsigned int w = matrix[(base + t) * n + j];
                if (w == MATRIX_NO_ARC) continue;
                ++attempts;
                best = dist_min(best, chunk_c[t] + (dist_t)w);
            }
        }
        __syncthreads();
    }
    if (mine && best < old) c[j] = best;
    if (count_relaxations && mine) add_counts(words, attempts, best < old ? 1ULL : 0ULL);
}

// Every arc (v, j) of the CSR into matrix[v * n + j], which the host filled with MATRIX_NO_ARC: parallel arcs keep
// the least weight (atomicMin on the unsigned entry; the weights are non-negative).
extern "C" __global__ void da2cf_matrix_fill(const offset_t* __restrict__ row_offsets,
                                             const vertex_t* __restrict__ column_ids,
                                             const weight_t* __restrict__ weights, int unit_weights, long long n,
                                             unsigned int* matrix) {
    long long stride = (long long)gridDim.x * blockDim.x;
    for (long long v = (long long)blockIdx.x * blockDim.x + threadIdx.x; v < n; v += stride) {
        for (offset_t e = row_offsets[v]; e < row_offsets[v + 1]; ++e) {
            unsigned int w = unit_weights ? 1u : (unsigned int)weights[e];
            atomicMin(&matrix[v * n + column_ids[e]], w);
        }
    }
}

// ---- minimum (Fig. 4 right) and update (Fig. 4 left) ----------------------------------------------------------

// The block's tree reduction of reduce3 (CUDA SDK 1.1): sdata holds one value per thread; blockDim.x is a power of
// two (DA2CF_BLOCK).
__device__ __forceinline__ void block_minimum(dist_t* sdata, dist_t* minimums) {
    unsigned int thid = threadIdx.x;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (thid < s) sdata[thid] = dist_min(sdata[thid], sdata[thid + s]);
        __syncthreads();
    }
    if (thid == 0) minimums[blockIdx.x] = sdata[0];
}

// minimum1: block b takes vertices [2 b B, 2 (b + 1) B), two per thread, u[i] ? c[i] : INF; one value per block.
extern "C" __global__ void __launch_bounds__(DA2CF_BLOCK)
da2cf_minimum1(const flag_t* __restrict__ u, const dist_t* __restrict__ c, long long n, dist_t* minimums) {
    __shared__ dist_t sdata[DA2CF_BLOCK];
    long long i = (long long)blockIdx.x * (2 * blockDim.x) + threadIdx.x;
    long long j = i + blockDim.x;
    dist_t data1 = i < n && u[i] ? c[i] : DIST_INF;
    dist_t data2 = j < n && u[j] ? c[j] : DIST_INF;
    sdata[threadIdx.x] = dist_min(data1, data2);
    block_minimum(sdata, minimums);
}

// minimum2: the same reduction over minimum1's block minima (UGPU+2min's second device pass).
extern "C" __global__ void __launch_bounds__(DA2CF_BLOCK)
da2cf_minimum2(const dist_t* __restrict__ values, long long count, dist_t* minimums) {
    __shared__ dist_t sdata[DA2CF_BLOCK];
    long long i = (long long)blockIdx.x * (2 * blockDim.x) + threadIdx.x;
    long long j = i + blockDim.x;
    sdata[threadIdx.x] = dist_min(i < count ? values[i] : DIST_INF, j < count ? values[j] : DIST_INF);
    block_minimum(sdata, minimums);
}

// update: the unresolved vertices at mssp make the next frontier and are resolved; every other f is cleared. The
// paper's Fig. 4 tests c[i] == mssp alone; u[i] is tested too, so that a resolved vertex at mssp (a zero-weight
// arc keeps mssp equal to the last one) does not rejoin the frontier. With counting, words[W_QUEUE] counts the
// frontier (cumulatively over the solve).
extern "C" __global__ void __launch_bounds__(DA2CF_BLOCK)
da2cf_update(const dist_t* __restrict__ c, flag_t* f, flag_t* u, long long n, long long mssp, word_t* words,
             int count_relaxations) {
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    flag_t joins = u[i] && c[i] == mssp;
    f[i] = joins;
    if (joins) {
        u[i] = 0;
        if (count_relaxations) atomicAdd(&words[W_QUEUE], 1ULL);
    }
}
