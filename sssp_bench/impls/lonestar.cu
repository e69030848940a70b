// LoneStar-GPU-style topology-driven Bellman-Ford (the H-BF paper's "LoneStar" column).
//
// One thread per vertex, every round: a reached vertex u relaxes all its out-arcs with atomicMin on the
// int64 distances (common.cuh). The host repeats rounds until one changes no distance. Updates are in place:
// a round may already see distances lowered earlier in the same round.
#include "common.cuh"

extern "C" __global__ void lonestar_round(const offset_t* __restrict__ row_offsets,
                                          const vertex_t* __restrict__ column_ids,
                                          const weight_t* __restrict__ weights, int unit_weights, int n,
                                          dist_t* dist, word_t* words, int parity, int count_relaxations) {
    // The next round's changed-flag is zeroed here: nothing reads or writes it during this round.
    if (blockIdx.x == 0 && threadIdx.x == 0) words[W_CHANGED0 + (parity ^ 1)] = 0ULL;
    int u = blockIdx.x * blockDim.x + threadIdx.x;
    if (u >= n) return;
    dist_t du = dist[u];
    if (du == DIST_INF) return;
    offset_t begin = row_offsets[u], end = row_offsets[u + 1];
    bool changed = false;
    unsigned long long improved = 0;
    for (offset_t e = begin; e < end; ++e) {
        if (relax(dist, column_ids[e], du, arc_weight(weights, unit_weights, e), words)) {
            changed = true;
            ++improved;
        }
    }
    if (changed) words[W_CHANGED0 + parity] = 1ULL;
    if (count_relaxations) add_counts(words, (unsigned long long)(end - begin), improved);
}
