// A warp relaxing the out-arcs of its lanes' vertices, the course project's delta-stepping mapping (section 3.2):
// a vertex of more than heavy_degree arcs by the whole warp, its arcs strided over the lanes (coalesced reads of the
// adjacency); a lighter one by its own lane. Shared by delta_stepping.cu and delta_stepping_async.cu, which differ
// in what they do with an improved head, so the walk is templated on it: `visit(on, e, du)`, called by all 32
// lanes together (warp-collective), relaxes arc e from a tail at distance du in the lanes where `on`.
#ifndef SSSP_BENCH_GPU_WARP_RELAX_CUH
#define SSSP_BENCH_GPU_WARP_RELAX_CUH

#include "common.cuh"

#define WARP_RELAX_FULL 0xffffffffu

// Relax arc e from a tail at distance du where `on`: counts the attempt and returns whether this thread's
// atomicMin lowered the head's distance. *head and *candidate are the head and the candidate distance (0 where
// not `on`). The plain read first skips the atomic that cannot win, as common.cuh's relax does.
__device__ __forceinline__ bool try_relax_arc(bool on, offset_t e, dist_t du, const vertex_t* __restrict__ column_ids,
                                              const weight_t* __restrict__ weights, int unit_weights, dist_t* dist,
                                              unsigned long long* attempts, vertex_t* head, dist_t* candidate) {
    *head = 0;
    *candidate = 0;
    if (!on) return false;
    *head = column_ids[e];
    *candidate = du + arc_weight(weights, unit_weights, e);
    ++*attempts;
    return *candidate < dist[*head] && *candidate < atomicMin(&dist[*head], *candidate);
}

// The arcs [begin, end) of each lane's vertex (lanes with `valid`), heavy vertices by the whole warp in turn, the
// others by their own lane. All 32 lanes call.
template <typename Visit>
__device__ __forceinline__ void relax_warp_vertices(bool valid, dist_t du, offset_t begin, offset_t end,
                                                    long long heavy_degree, Visit& visit) {
    int lane = threadIdx.x & 31;
    bool big = valid && end - begin > heavy_degree;
    unsigned bigs = __ballot_sync(WARP_RELAX_FULL, big);
    while (bigs) {  // warp-uniform: bigs is the same in every lane
        int owner = __ffs(bigs) - 1;
        bigs &= bigs - 1u;
        offset_t first = __shfl_sync(WARP_RELAX_FULL, begin, owner);
        offset_t last = __shfl_sync(WARP_RELAX_FULL, end, owner);
        dist_t d = __shfl_sync(WARP_RELAX_FULL, du, owner);
        for (offset_t chunk = first; chunk < last; chunk += 32) {  // uniform bounds
            offset_t e = chunk + lane;
            visit(e < last, e, d);
        }
    }
    offset_t e = (valid && !big) ? begin : 0;
    offset_t stop = (valid && !big) ? end : 0;
    for (; __any_sync(WARP_RELAX_FULL, e < stop); ++e) visit(e < stop, e, du);  // at most heavy_degree iterations
}

#endif  // SSSP_BENCH_GPU_WARP_RELAX_CUH
