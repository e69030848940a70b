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
//
// Tight paths (condition 4 of verify.certificate), run by the host only where the arc pass counted a reached arc
// of weight <= 0 and the other conditions hold: every reached vertex must be reached from the source over tight
// arcs. The source is rooted; where no reached arc is negative, so is every vertex with a tight in-arc of weight
// > 0 (tight_anchors: verify.certificate's anchored search, same verdict, and the rounds below then only cross
// weight-0 arcs). In rounds, until a round roots no new vertex:
//   1. tight_parents: each reached vertex not yet rooted picks a tight in-arc (u, v), preferring a rooted u, then
//      one of weight > 0 (d[u] < d[v]: with non-negative weights such parents never close a cycle), then any:
//      a 64-bit atomicMin on (class << 32 | u);
//   2. tight_jump_init + tight_jump (ceil(log2 n) launches): pointer jumping over the chosen parents, rooted
//      vertices and vertices without a parent pointing at themselves. Jumping in place is safe: a pointer only
//      ever moves to an ancestor, and one launch at least doubles the distance it has jumped;
//   3. tight_settle: a vertex whose pointer ends on a rooted vertex is rooted; the others are counted, the
//      smallest kept.
// A chosen parent may sit on a cycle of weight-0 tight arcs while another tight in-arc leads to the source; the
// next round's choice prefers a rooted parent, so a right answer is never failed: at the fixed point no unrooted
// vertex has a tight in-arc from a rooted one, so the rooted vertices are exactly those reached over tight arcs.
// Each round roots at least the next BFS level over the tight arcs; in practice a few rounds do (1 to 3 on R-MAT
// graphs, 17 on a grid with 25% weight-0 arcs: certificate.py has the numbers).
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
#define C_LIGHT_ARCS 9           // out-arcs of reached vertices that weigh <= 0 (where tight cycles can be)
#define C_NEWLY_ROOTED 10        // tight paths: vertices rooted in this round
#define C_UNROOTED 11            // tight paths: reached vertices still not rooted after this round
#define C_FIRST_UNROOTED 12      // the smallest such vertex (all ones when none)
#define C_NEGATIVE_ARCS 13       // out-arcs of reached vertices that weigh < 0 (none: the anchored search)
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
        bool first = word == C_FIRST_BAD || word == C_FIRST_ARC || word == C_FIRST_UNSUPPORTED ||
                     word == C_FIRST_UNROOTED;
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
    unsigned long long violations = 0, first_arc = NONE, light = 0, negative = 0;
    for (int item = 0; item < ARC_ITEMS; ++item) {
        long long e = tile_start + (long long)item * ARC_BLOCK + threadIdx.x;
        if (e >= m) break;
        long long u = owning_row(row_offsets, low, high, e);
        long long du = (long long)dist[u];
        if (du == unreached) continue;
        vertex_t v = column_ids[e];
        long long dv = (long long)dist[v];
        long long w = arc_weight(weights, unit_weights, e);
        if (w <= 0) ++light;
        if (w < 0) ++negative;
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
    light = warp_sum(light);
    negative = warp_sum(negative);
    if ((threadIdx.x & 31) == 0 && light) atomicAdd(&words[C_LIGHT_ARCS], light);
    if ((threadIdx.x & 31) == 0 && negative) atomicAdd(&words[C_NEGATIVE_ARCS], negative);
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

// ---------------------------------------------------------------------------------------------- tight paths

// Start the tight-path rounds: only the source is rooted, and no vertex has a parent yet.
extern "C" __global__ void tight_paths_reset(unsigned char* rooted, word_t* parent_key, long long n,
                                             long long source) {
    long long stride = (long long)gridDim.x * blockDim.x;
    for (long long v = (long long)blockIdx.x * blockDim.x + threadIdx.x; v < n; v += stride) {
        rooted[v] = v == source;
        parent_key[v] = NONE;
    }
}

// The anchors (where no reached arc is negative): every head of a tight arc of weight > 0 is rooted. Plain
// stores of the same value: no race matters.
template <typename D>
__device__ __forceinline__ void tight_anchors(const offset_t* __restrict__ row_offsets,
                                              const vertex_t* __restrict__ column_ids,
                                              const weight_t* __restrict__ weights, int unit_weights, long long n,
                                              long long m, const D* __restrict__ dist, long long unreached,
                                              unsigned char* rooted) {
    __shared__ long long rows[2];
    long long tile_start = (long long)blockIdx.x * ARC_TILE;
    if (tile_start >= m) return;  // the whole block: before any barrier
    tile_rows(row_offsets, n, m, tile_start, rows);
    long long low = rows[0], high = rows[1];
    for (int item = 0; item < ARC_ITEMS; ++item) {
        long long e = tile_start + (long long)item * ARC_BLOCK + threadIdx.x;
        if (e >= m) break;
        long long w = arc_weight(weights, unit_weights, e);
        if (w <= 0) continue;
        vertex_t v = column_ids[e];
        long long dv = (long long)dist[v];
        if (dv == unreached) continue;
        long long u = owning_row(row_offsets, low, high, e);
        long long du = (long long)dist[u];
        if (du == unreached || u == (long long)v) continue;
        long long candidate = (long long)((unsigned long long)du + (unsigned long long)w);
        bool overflow = ((du ^ candidate) & (w ^ candidate)) < 0;
        if (!overflow && candidate == dv) rooted[v] = 1;
    }
}

extern "C" __global__ void __launch_bounds__(ARC_BLOCK) tight_anchors_i64(
        const offset_t* __restrict__ row_offsets, const vertex_t* __restrict__ column_ids,
        const weight_t* __restrict__ weights, int unit_weights, long long n, long long m,
        const long long* __restrict__ dist, long long unreached, unsigned char* rooted) {
    tight_anchors<long long>(row_offsets, column_ids, weights, unit_weights, n, m, dist, unreached, rooted);
}

extern "C" __global__ void __launch_bounds__(ARC_BLOCK) tight_anchors_i32(
        const offset_t* __restrict__ row_offsets, const vertex_t* __restrict__ column_ids,
        const weight_t* __restrict__ weights, int unit_weights, long long n, long long m,
        const int* __restrict__ dist, long long unreached, unsigned char* rooted) {
    tight_anchors<int>(row_offsets, column_ids, weights, unit_weights, n, m, dist, unreached, rooted);
}

// Step 1: every tight arc (u, v) into a reached, unrooted v offers u as v's parent; the lowest key wins:
// class 0 for a rooted u, 1 for w > 0, 2 otherwise, then the lowest u.
template <typename D>
__device__ __forceinline__ void tight_parents(const offset_t* __restrict__ row_offsets,
                                              const vertex_t* __restrict__ column_ids,
                                              const weight_t* __restrict__ weights, int unit_weights, long long n,
                                              long long m, const D* __restrict__ dist, long long unreached,
                                              const unsigned char* __restrict__ rooted, word_t* parent_key) {
    __shared__ long long rows[2];
    long long tile_start = (long long)blockIdx.x * ARC_TILE;
    if (tile_start >= m) return;  // the whole block: before any barrier
    tile_rows(row_offsets, n, m, tile_start, rows);
    long long low = rows[0], high = rows[1];
    for (int item = 0; item < ARC_ITEMS; ++item) {
        long long e = tile_start + (long long)item * ARC_BLOCK + threadIdx.x;
        if (e >= m) break;
        vertex_t v = column_ids[e];
        if (rooted[v]) continue;
        long long dv = (long long)dist[v];
        if (dv == unreached) continue;
        long long u = owning_row(row_offsets, low, high, e);
        if (u == (long long)v) continue;  // a self-loop never vouches
        long long du = (long long)dist[u];
        if (du == unreached) continue;
        long long w = arc_weight(weights, unit_weights, e);
        long long candidate = (long long)((unsigned long long)du + (unsigned long long)w);
        bool overflow = ((du ^ candidate) & (w ^ candidate)) < 0;
        if (overflow || candidate != dv) continue;
        word_t preference = rooted[u] ? 0ULL : (w > 0 ? 1ULL : 2ULL);
        word_t key = (preference << 32) | (word_t)u;
        if (key < parent_key[v]) atomicMin(&parent_key[v], key);
    }
}

extern "C" __global__ void __launch_bounds__(ARC_BLOCK) tight_parents_i64(
        const offset_t* __restrict__ row_offsets, const vertex_t* __restrict__ column_ids,
        const weight_t* __restrict__ weights, int unit_weights, long long n, long long m,
        const long long* __restrict__ dist, long long unreached, const unsigned char* __restrict__ rooted,
        word_t* parent_key) {
    tight_parents<long long>(row_offsets, column_ids, weights, unit_weights, n, m, dist, unreached, rooted,
                             parent_key);
}

extern "C" __global__ void __launch_bounds__(ARC_BLOCK) tight_parents_i32(
        const offset_t* __restrict__ row_offsets, const vertex_t* __restrict__ column_ids,
        const weight_t* __restrict__ weights, int unit_weights, long long n, long long m,
        const int* __restrict__ dist, long long unreached, const unsigned char* __restrict__ rooted,
        word_t* parent_key) {
    tight_parents<int>(row_offsets, column_ids, weights, unit_weights, n, m, dist, unreached, rooted, parent_key);
}

// Step 2a: the pointers to jump along (a rooted vertex or one without a parent points at itself); the parent
// keys are cleared for the next round, and so are the round's words.
extern "C" __global__ void tight_jump_init(const unsigned char* __restrict__ rooted, word_t* parent_key,
                                           vertex_t* up, long long n, word_t* words) {
    long long stride = (long long)gridDim.x * blockDim.x;
    for (long long v = (long long)blockIdx.x * blockDim.x + threadIdx.x; v < n; v += stride) {
        word_t key = parent_key[v];
        up[v] = (rooted[v] || key == NONE) ? (vertex_t)v : (vertex_t)(key & 0xffffffffULL);
        parent_key[v] = NONE;
    }
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        words[C_NEWLY_ROOTED] = 0ULL;
        words[C_UNROOTED] = 0ULL;
        words[C_FIRST_UNROOTED] = NONE;
    }
}

// Step 2b: one doubling, in place (see the top of the file for why that is safe).
extern "C" __global__ void tight_jump(vertex_t* up, long long n) {
    long long stride = (long long)gridDim.x * blockDim.x;
    for (long long v = (long long)blockIdx.x * blockDim.x + threadIdx.x; v < n; v += stride) {
        vertex_t next = up[v];
        vertex_t further = ((volatile vertex_t*)up)[next];
        if (further != next) up[v] = further;
    }
}

// Step 3: a reached, unrooted vertex whose pointer ends on a rooted vertex is rooted; the rest are counted.
// The vertices that end a pointer chain are rooted already or are not rooted here (they point at themselves, or
// into a cycle), so no thread's verdict depends on another thread's write.
template <typename D>
__device__ __forceinline__ void tight_settle(long long n, const D* __restrict__ dist, long long unreached,
                                             unsigned char* rooted, const vertex_t* __restrict__ up,
                                             word_t* words) {
    unsigned long long newly = 0, unrooted = 0, first_unrooted = NONE;
    long long stride = (long long)gridDim.x * blockDim.x;
    for (long long v = (long long)blockIdx.x * blockDim.x + threadIdx.x; v < n; v += stride) {
        if (rooted[v] || (long long)dist[v] == unreached) continue;
        if (rooted[up[v]]) {
            rooted[v] = 1;
            ++newly;
        } else {
            ++unrooted;
            if ((unsigned long long)v < first_unrooted) first_unrooted = (unsigned long long)v;
        }
    }
    add_offences(words, C_UNROOTED, C_FIRST_UNROOTED, unrooted, first_unrooted);
    newly = warp_sum(newly);
    if ((threadIdx.x & 31) == 0 && newly) atomicAdd(&words[C_NEWLY_ROOTED], newly);
}

extern "C" __global__ void tight_settle_i64(long long n, const long long* __restrict__ dist, long long unreached,
                                            unsigned char* rooted, const vertex_t* __restrict__ up, word_t* words) {
    tight_settle<long long>(n, dist, unreached, rooted, up, words);
}

extern "C" __global__ void tight_settle_i32(long long n, const int* __restrict__ dist, long long unreached,
                                            unsigned char* rooted, const vertex_t* __restrict__ up, word_t* words) {
    tight_settle<int>(n, dist, unreached, rooted, up, words);
}
