// The shortest-path certificate on the device (sssp_bench/gpu/certificate.py; the host twin is
// sssp_bench.verify.certificate): one load-balanced pass over the arcs, then one pass over the vertices, on
// the implementation's own distance array (int64 or int32, with its own "unreached" sentinel).
//
// Arc pass, for every arc (u, v, w) whose tail is reached (w = 1 for BFS levels and unweighted graphs):
//   - it can still be relaxed when v is unreached or d[u] + w < d[v]: counted, and the smallest such arc
//     index kept (the host names it);
//   - it is tight when v is reached, u != v (self-loops never vouch) and d[u] + w == d[v]: v is marked.
//   d[u] + w is computed in int64 with overflow detected (a sum beyond INT64_MAX relaxes only an unreached
//   head and is never tight; one below INT64_MIN relaxes everything), so no planted value can wrap around.
// Vertex pass, for every reached vertex: counted (and its out-arcs), a negative BFS level counted as a bad
// value, and a vertex other than the source with no tight in-arc counted as unsupported; the smallest
// offender of each kind kept. The source's raw value is stored for the host's d[source] == 0 check.
#include "arcs.cuh"

// The result words, read back by the host in one copy.
#define C_BAD 0                  // reached vertices with an invalid value (BFS: a negative level)
#define C_FIRST_BAD 1            // the smallest such vertex (all ones when none)
#define C_VIOLATIONS 2           // arcs that can still be relaxed
#define C_FIRST_ARC 3            // the smallest such arc index (all ones when none)
#define C_UNSUPPORTED 4          // reached vertices other than the source with no tight in-arc
#define C_FIRST_UNSUPPORTED 5    // the smallest such vertex (all ones when none)
#define C_REACHED 6              // reached vertices
#define C_SOURCE_VALUE 7         // the source's raw value (int64 bits)
#define C_REACHED_ARCS 8         // out-arcs of reached vertices
#define C_WORDS 16

#define NONE 0xffffffffffffffffULL
#define FULL_MASK 0xffffffffu

__device__ __forceinline__ unsigned long long warp_sum(unsigned long long value) {
    for (int offset = 16; offset > 0; offset >>= 1) value += __shfl_down_sync(FULL_MASK, value, offset);
    return value;
}

// Adds a count and lowers a "first offender" word: one atomic each per warp, and none when there is nothing.
__device__ __forceinline__ void add_offences(word_t* words, int count_word, int first_word,
                                             unsigned long long count, unsigned long long first) {
    count = warp_sum(count);
    first = warp_min(first);
    if ((threadIdx.x & 31) == 0 && count) {
        atomicAdd(&words[count_word], count);
        atomicMin(&words[first_word], first);
    }
}

// Zero the tight-in-arc marks and set the words (counts 0, "first" words all ones).
extern "C" __global__ void certificate_reset(word_t* words, unsigned char* tight, long long n) {
    long long stride = (long long)gridDim.x * blockDim.x;
    for (long long v = (long long)blockIdx.x * blockDim.x + threadIdx.x; v < n; v += stride) tight[v] = 0;
    if (blockIdx.x == 0 && threadIdx.x < C_WORDS) {
        int word = threadIdx.x;
        bool first = word == C_FIRST_BAD || word == C_FIRST_ARC || word == C_FIRST_UNSUPPORTED;
        words[word] = first ? NONE : 0ULL;
    }
}

template <typename D>
__device__ __forceinline__ void certificate_arcs(const offset_t* __restrict__ row_offsets,
                                                 const vertex_t* __restrict__ column_ids,
                                                 const weight_t* __restrict__ weights, int unit_weights,
                                                 long long n, long long m, const D* __restrict__ dist,
                                                 long long unreached, unsigned char* tight, word_t* words) {
    __shared__ long long rows[2];
    long long tile_start = (long long)blockIdx.x * ARC_TILE;
    if (tile_start >= m) return;  // the whole block: before any barrier
    tile_rows(row_offsets, n, m, tile_start, rows);
    long long low = rows[0], high = rows[1];
    unsigned long long violations = 0, first_arc = NONE;
    for (int item = 0; item < ARC_ITEMS; ++item) {
        long long e = tile_start + (long long)item * ARC_BLOCK + threadIdx.x;
        if (e >= m) break;
        long long u = owning_row(row_offsets, low, high, e);
        long long du = (long long)dist[u];
        if (du == unreached) continue;
        vertex_t v = column_ids[e];
        long long dv = (long long)dist[v];
        long long w = arc_weight(weights, unit_weights, e);
        long long candidate = (long long)((unsigned long long)du + (unsigned long long)w);
        bool overflow = ((du ^ candidate) & (w ^ candidate)) < 0;
        bool head_reached = dv != unreached;
        bool can_relax, is_tight;
        if (overflow) {
            can_relax = w < 0 || !head_reached;
            is_tight = false;
        } else {
            can_relax = !head_reached || candidate < dv;
            is_tight = head_reached && candidate == dv && u != (long long)v;
        }
        if (can_relax) {
            ++violations;
            if ((unsigned long long)e < first_arc) first_arc = (unsigned long long)e;
        }
        if (is_tight && !tight[v]) tight[v] = 1;
    }
    add_offences(words, C_VIOLATIONS, C_FIRST_ARC, violations, first_arc);
}

template <typename D>
__device__ __forceinline__ void certificate_vertices(const offset_t* __restrict__ row_offsets, long long n,
                                                     long long source, const D* __restrict__ dist,
                                                     long long unreached, int bfs,
                                                     const unsigned char* __restrict__ tight, word_t* words) {
    unsigned long long bad = 0, first_bad = NONE, unsupported = 0, first_unsupported = NONE;
    unsigned long long reached = 0, reached_arcs = 0;
    long long stride = (long long)gridDim.x * blockDim.x;
    for (long long v = (long long)blockIdx.x * blockDim.x + threadIdx.x; v < n; v += stride) {
        long long dv = (long long)dist[v];
        if (v == source) words[C_SOURCE_VALUE] = (word_t)dv;
        if (dv == unreached) continue;
        ++reached;
        reached_arcs += (unsigned long long)(row_offsets[v + 1] - row_offsets[v]);
        if (bfs && dv < 0) {
            ++bad;
            if ((unsigned long long)v < first_bad) first_bad = (unsigned long long)v;
        }
        if (v != source && !tight[v]) {
            ++unsupported;
            if ((unsigned long long)v < first_unsupported) first_unsupported = (unsigned long long)v;
        }
    }
    add_offences(words, C_BAD, C_FIRST_BAD, bad, first_bad);
    add_offences(words, C_UNSUPPORTED, C_FIRST_UNSUPPORTED, unsupported, first_unsupported);
    reached = warp_sum(reached);
    reached_arcs = warp_sum(reached_arcs);
    if ((threadIdx.x & 31) == 0 && reached) {
        atomicAdd(&words[C_REACHED], reached);
        atomicAdd(&words[C_REACHED_ARCS], reached_arcs);
    }
}

extern "C" __global__ void __launch_bounds__(ARC_BLOCK) certificate_arcs_i64(
        const offset_t* __restrict__ row_offsets, const vertex_t* __restrict__ column_ids,
        const weight_t* __restrict__ weights, int unit_weights, long long n, long long m,
        const long long* __restrict__ dist, long long unreached, unsigned char* tight, word_t* words) {
    certificate_arcs<long long>(row_offsets, column_ids, weights, unit_weights, n, m, dist, unreached, tight, words);
}

extern "C" __global__ void __launch_bounds__(ARC_BLOCK) certificate_arcs_i32(
        const offset_t* __restrict__ row_offsets, const vertex_t* __restrict__ column_ids,
        const weight_t* __restrict__ weights, int unit_weights, long long n, long long m,
        const int* __restrict__ dist, long long unreached, unsigned char* tight, word_t* words) {
    certificate_arcs<int>(row_offsets, column_ids, weights, unit_weights, n, m, dist, unreached, tight, words);
}

extern "C" __global__ void certificate_vertices_i64(const offset_t* __restrict__ row_offsets, long long n,
                                                    long long source, const long long* __restrict__ dist,
                                                    long long unreached, int bfs,
                                                    const unsigned char* __restrict__ tight, word_t* words) {
    certificate_vertices<long long>(row_offsets, n, source, dist, unreached, bfs, tight, words);
}

extern "C" __global__ void certificate_vertices_i32(const offset_t* __restrict__ row_offsets, long long n,
                                                    long long source, const int* __restrict__ dist,
                                                    long long unreached, int bfs,
                                                    const unsigned char* __restrict__ tight, word_t* words) {
    certificate_vertices<int>(row_offsets, n, source, dist, unreached, bfs, tight, words);
}
