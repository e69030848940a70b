// delta-stepping, the course project's persistent kernel (course-bellman-ford-delta-stepping, section 3.2).
//
// One cooperative launch per solve; the grid (one wave of resident blocks) loops over steps separated by grid-wide
// barriers, and every thread takes the same decisions from the same control words, read after the barrier:
//
//   light phase  the current queue (vertices of the current bucket that entered it since the last phase): relax
//                their light arcs (weight <= delta; each row is ordered light first); an improved vertex whose new
//                distance stays in the bucket goes to the next (near) queue, one that falls in a later bucket to
//                the far pile. Every vertex that went through the bucket is listed once (settled list).
//   heavy step   when a light phase leaves the next queue empty: the heavy arcs of the settled list, once each
//                (they cannot land in the bucket), into the far pile.
//   split        the far pile's smallest pushed bucket b becomes current: entries now in b form the queue, those
//                in a later bucket the next pile, the rest (already settled lower) are dropped. A pushed minimum can
//                be stale (the vertex fell into the bucket being processed since); the split then moves nothing and
//                the next split takes the exact minimum of what it kept. An empty pile ends the solve.
//
// Queues: near and current alternate between two n-entry arrays (a vertex at most once per phase: near_tag holds
// the phase it was last queued for, a generation number instead of a cleared map); the far pile alternates between
// two n-entry arrays (a vertex at most once: far_flag, cleared when a split moves or drops it); the settled list is
// n entries (settled_tag holds the bucket ordinal it was listed in). Pushes are warp-aggregated: a ballot of the
// lanes that push, one atomicAdd by the first of them for the popc, each lane writing at its rank.
// A vertex of more than heavy_degree arcs (of the kind being relaxed) is relaxed by its whole warp, lanes striding
// over its arcs; the others each by their own lane. Every loop below is warp-uniform, so the ballots see all 32.
//
// Control words are rotated so that a word read for a decision is never written in the step that follows: a step
// t reads its queue size from DS_CUR0 + t % 3, writes the next size into DS_CUR0 + (t + 1) % 3 and zeroes
// DS_CUR0 + (t + 2) % 3; split k reads pile k % 2 (size DS_FAR0 + k % 3, least bucket DS_FARMIN0 + k % 3), writes
// kept entries to pile (k + 1) % 2 (whose words the split before zeroed) and zeroes the words k + 2; the settled
// list's size alternates with the bucket ordinal. Memory written by other blocks in this launch (distances, queues,
// words) is read with __ldcg (L2), never from a possibly stale L1 line; the pre-check of an atomicMin may read a
// stale distance, which can only be too high (distances only fall), costing at most a useless atomic.
//
// Grid barrier: cooperative groups' grid sync; compiled with DS_OWN_BARRIER (where cooperative_groups.h is not
// available to NVRTC), a sense-reversing barrier on two status words, correct because a cooperative launch keeps
// every block resident. The loop is capped at step_cap steps (DS_STUCK is set if reached: a bug guard; the phases
// of a bucket are at most its vertices plus one, so a solve needs far fewer).
#include "common.cuh"
#include "warp_relax.cuh"
#ifndef DS_OWN_BARRIER
#include <cooperative_groups.h>
#endif

#define DS_BLOCK 256
#define DS_FULL 0xffffffffu

#define DS_CUR0 8         // 3 words: entries of the queue step t reads, at DS_CUR0 + t % 3
#define DS_FAR0 11        // 3 words: entries of the far pile split k reads, at DS_FAR0 + k % 3
#define DS_FARMIN0 14     // 3 words: the least bucket pushed (or kept) into that pile, DS_NO_BUCKET when none
#define DS_SETTLED0 17    // 2 words: entries of the settled list of buckets of even / odd ordinal
#define DS_LIGHT 19       // light phases run
#define DS_HEAVY 20       // heavy steps run
#define DS_SPLITS 21      // splits run
#define DS_BUCKETS 22     // buckets opened with at least one vertex
#define DS_STUCK 23       // 1: the step cap was reached
#define DS_BARRIER_COUNT 24  // the fallback grid barrier's arrivals and generation
#define DS_BARRIER_GEN 25
#define DS_WORDS 32
#define DS_NO_BUCKET 0x7fffffffffffffffULL

#define DS_MODE_LIGHT 0
#define DS_MODE_HEAVY 1
#define DS_MODE_SPLIT 2

#ifndef DS_OWN_BARRIER
__device__ __forceinline__ void grid_barrier(word_t*) { cooperative_groups::this_grid().sync(); }
#else
__device__ void grid_barrier(word_t* words) {
    __syncthreads();
    if (threadIdx.x == 0) {
        volatile word_t* generation = words + DS_BARRIER_GEN;
        word_t seen = *generation;  // read before arriving: the last arrival moves it on
        __threadfence();
        if (atomicAdd(words + DS_BARRIER_COUNT, 1ULL) == (word_t)gridDim.x - 1ULL) {
            words[DS_BARRIER_COUNT] = 0ULL;  // reset before anyone can arrive at the next barrier
            __threadfence();
            atomicAdd(words + DS_BARRIER_GEN, 1ULL);
        } else {
            while (*generation == seen) __nanosleep(32);
        }
        __threadfence();
    }
    __syncthreads();
}
#endif

// Warp-aggregated push of v (lanes with `want`) onto queue[*counter ...]: one atomicAdd per warp. All 32 lanes call.
__device__ __forceinline__ void warp_push(bool want, vertex_t v, vertex_t* queue, word_t* counter) {
    unsigned mask = __ballot_sync(DS_FULL, want);
    if (mask == 0u) return;
    int lane = threadIdx.x & 31;
    int first = __ffs(mask) - 1;
    word_t base = 0ULL;
    if (lane == first) base = atomicAdd(counter, (word_t)__popc(mask));
    base = __shfl_sync(DS_FULL, base, first);
    if (want) queue[base + (word_t)__popc(mask & ((1u << lane) - 1u))] = v;
}

__device__ __forceinline__ word_t warp_min(word_t value) {
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) {
        word_t other = __shfl_xor_sync(DS_FULL, value, offset);
        value = other < value ? other : value;
    }
    return value;
}

__device__ __forceinline__ unsigned long long warp_sum(unsigned long long value) {
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) value += __shfl_xor_sync(DS_FULL, value, offset);
    return value;
}

// Where one step's improvements go.
struct Targets {
    dist_t* dist;
    long long delta;
    long long bucket;          // the current bucket
    bool near_allowed;         // light phase: improvements within the bucket go near
    vertex_t* near_queue;
    word_t* near_count;
    unsigned* near_tag;
    unsigned near_generation;  // the phase the near queue feeds
    vertex_t* pile;
    word_t* pile_count;
    int* far_flag;
    word_t far_min;            // this lane's least far bucket in this step
    unsigned long long attempts, improved;
};

// One arc per lane (lanes with `on`), then the warp's pushes. All 32 lanes call.
__device__ __forceinline__ void relax_arc(bool on, offset_t e, dist_t du, const vertex_t* __restrict__ column_ids,
                                         const weight_t* __restrict__ weights, int unit_weights, Targets& t) {
    vertex_t v;
    dist_t candidate;
    bool improved = try_relax_arc(on, e, du, column_ids, weights, unit_weights, t.dist, &t.attempts, &v,
                                  &candidate);
    long long bucket = improved ? candidate / t.delta : 0;
    bool to_near = improved && t.near_allowed && bucket <= t.bucket;
    bool to_far = improved && !to_near;
    if (improved) ++t.improved;
    if (to_far && (word_t)bucket < t.far_min) t.far_min = (word_t)bucket;
    bool push_near = to_near && atomicExch(&t.near_tag[v], t.near_generation) != t.near_generation;
    warp_push(push_near, v, t.near_queue, t.near_count);
    bool push_far = to_far && atomicExch(&t.far_flag[v], 1) == 0;
    warp_push(push_far, v, t.pile, t.pile_count);
}

// The arcs [begin, end) of each lane's vertex (valid lanes), through relax_arc (warp_relax.cuh's mapping). All 32
// lanes call.
__device__ __forceinline__ void relax_vertices(bool valid, dist_t du, offset_t begin, offset_t end,
                                               long long heavy_degree, const vertex_t* __restrict__ column_ids,
                                               const weight_t* __restrict__ weights, int unit_weights, Targets& t) {
    auto visit = [&](bool on, offset_t e, dist_t d) { relax_arc(on, e, d, column_ids, weights, unit_weights, t); };
    relax_warp_vertices(valid, du, begin, end, heavy_degree, visit);
}

// Per step: the warp's counts into the step's slot (count_relaxations), and its least far bucket into the pile's
// minimum word. All 32 lanes call.
__device__ __forceinline__ void finish_step(Targets& t, word_t* pile_min, unsigned long long* step_counts,
                                            int count_relaxations) {
    word_t least = warp_min(t.far_min);
    if ((threadIdx.x & 31) == 0 && least != DS_NO_BUCKET) atomicMin(pile_min, least);
    if (count_relaxations) {
        unsigned long long attempts = warp_sum(t.attempts), improved = warp_sum(t.improved);
        if ((threadIdx.x & 31) == 0 && (attempts || improved)) {
            atomicAdd(step_counts, attempts);
            atomicAdd(step_counts + 1, improved);
        }
    }
}

// dist = DIST_INF but dist[source] = 0, the tags unset, the status words zeroed, the first queue = {source}.
extern "C" __global__ void delta_stepping_init(dist_t* dist, unsigned* near_tag, int* far_flag,
                                               unsigned* settled_tag, vertex_t* queues, long long n, long long source,
                                               word_t* words) {
    long long stride = (long long)gridDim.x * blockDim.x;
    for (long long v = (long long)blockIdx.x * blockDim.x + threadIdx.x; v < n; v += stride) {
        dist[v] = v == source ? 0LL : DIST_INF;
        near_tag[v] = 0xffffffffu;
        far_flag[v] = 0;
        settled_tag[v] = 0xffffffffu;
    }
    if (blockIdx.x == 0 && threadIdx.x < DS_WORDS) {
        int i = threadIdx.x;
        words[i] = (i >= DS_FARMIN0 && i < DS_FARMIN0 + 3) ? DS_NO_BUCKET : (i == DS_CUR0 ? 1ULL : 0ULL);
        if (i == 0) queues[0] = (vertex_t)source;
    }
}

extern "C" __global__ void __launch_bounds__(DS_BLOCK)
delta_stepping_solve(const offset_t* __restrict__ row_offsets, const offset_t* __restrict__ light_end,
                     const vertex_t* __restrict__ column_ids, const weight_t* __restrict__ weights, int unit_weights,
                     dist_t* dist, vertex_t* queues, vertex_t* piles, vertex_t* settled, unsigned* near_tag,
                     int* far_flag, unsigned* settled_tag, long long n, long long delta, long long heavy_degree,
                     int has_heavy, long long step_cap, word_t* words, unsigned long long* step_counts,
                     int count_relaxations) {
    const int lane = threadIdx.x & 31;
    const long long warp = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const long long warps = ((long long)gridDim.x * blockDim.x) >> 5;
    const bool leader = blockIdx.x == 0 && threadIdx.x == 0;
    long long step = 0, phase = 0, split = 0, relax_steps = 0, bucket = 0;
    long long light_phases = 0, heavy_steps = 0, buckets = 1;
    unsigned ordinal = 0;  // buckets opened before the current one (settled_tag's generation)
    int mode = DS_MODE_LIGHT;
    for (;;) {
        if (step >= step_cap) {  // uniform: step is the same everywhere
            if (leader) words[DS_STUCK] = 1ULL;
            break;
        }
        word_t* next_count = words + DS_CUR0 + (step + 1) % 3;
        if (leader) words[DS_CUR0 + (step + 2) % 3] = 0ULL;  // read last in step - 1, written next in step + 1
        vertex_t* pile = piles + (split & 1) * n;
        word_t* pile_count = words + DS_FAR0 + split % 3;
        word_t* pile_min = words + DS_FARMIN0 + split % 3;
        word_t* settled_count = words + DS_SETTLED0 + (ordinal & 1u);
        if (mode == DS_MODE_SPLIT) {
            long long count = (long long)__ldcg(pile_count);
            if (count == 0) break;  // nothing left anywhere: the distances are final
            word_t target = __ldcg(pile_min);
            vertex_t* kept = piles + ((split + 1) & 1) * n;
            word_t* kept_count = words + DS_FAR0 + (split + 1) % 3;
            word_t* kept_min = words + DS_FARMIN0 + (split + 1) % 3;
            vertex_t* queue = queues + (phase & 1) * n;  // the next light phase's queue
            if (leader) {
                words[DS_FAR0 + (split + 2) % 3] = 0ULL;  // pile words split - 1 read; split + 1 fills them
                words[DS_FARMIN0 + (split + 2) % 3] = DS_NO_BUCKET;
                words[DS_SETTLED0 + ((ordinal + 1u) & 1u)] = 0ULL;  // the opened bucket's settled list
            }
            word_t least = DS_NO_BUCKET;
            for (long long base = warp * 32; base < count; base += warps * 32) {  // uniform per warp
                long long item = base + lane;
                bool valid = item < count;
                vertex_t v = valid ? __ldcg(pile + item) : 0;
                word_t b = valid ? (word_t)(__ldcg(dist + v) / delta) : 0ULL;
                bool move = valid && b == target;
                bool keep = valid && b > target;
                if (valid && !keep) far_flag[v] = 0;  // moved or stale: it leaves the pile (one entry per vertex)
                if (keep && b < least) least = b;
                warp_push(move, v, queue, next_count);
                warp_push(keep, v, kept, kept_count);
            }
            least = warp_min(least);
            if (lane == 0 && least != DS_NO_BUCKET) atomicMin(kept_min, least);
            grid_barrier(words);
            ++split;
            ++ordinal;
            ++step;
            bucket = (long long)target;
            if (__ldcg(next_count) > 0ULL) {
                mode = DS_MODE_LIGHT;
                ++buckets;
            }  // else: a stale minimum, split again at the exact one
            continue;
        }
        Targets t;
        t.dist = dist;
        t.delta = delta;
        t.bucket = bucket;
        t.near_allowed = mode == DS_MODE_LIGHT;
        t.near_queue = queues + ((phase + 1) & 1) * n;
        t.near_count = next_count;
        t.near_tag = near_tag;
        t.near_generation = (unsigned)(phase + 1);
        t.pile = pile;
        t.pile_count = pile_count;
        t.far_flag = far_flag;
        t.far_min = DS_NO_BUCKET;
        t.attempts = t.improved = 0ULL;
        if (mode == DS_MODE_LIGHT) {
            long long count = (long long)__ldcg(words + DS_CUR0 + step % 3);
            const vertex_t* queue = queues + (phase & 1) * n;
            for (long long base = warp * 32; base < count; base += warps * 32) {
                long long item = base + lane;
                bool valid = item < count;
                vertex_t u = valid ? __ldcg(queue + item) : 0;
                dist_t du = valid ? __ldcg(dist + u) : 0;
                bool listed = valid && has_heavy && atomicExch(&settled_tag[u], ordinal) != ordinal;
                warp_push(listed, u, settled, settled_count);
                relax_vertices(valid, du, valid ? row_offsets[u] : 0, valid ? light_end[u] : 0, heavy_degree,
                               column_ids, weights, unit_weights, t);
            }
        } else {  // the heavy step: the settled list's heavy arcs
            long long count = (long long)__ldcg(settled_count);
            for (long long base = warp * 32; base < count; base += warps * 32) {
                long long item = base + lane;
                bool valid = item < count;
                vertex_t u = valid ? __ldcg(settled + item) : 0;
                dist_t du = valid ? __ldcg(dist + u) : 0;
                relax_vertices(valid, du, valid ? light_end[u] : 0, valid ? row_offsets[u + 1] : 0, heavy_degree,
                               column_ids, weights, unit_weights, t);
            }
        }
        finish_step(t, pile_min, step_counts + 2 * relax_steps, count_relaxations);
        grid_barrier(words);
        ++relax_steps;
        ++step;
        if (mode == DS_MODE_LIGHT) {
            ++light_phases;
            ++phase;
            if (__ldcg(next_count) > 0ULL) continue;  // the bucket's next light phase
            mode = (has_heavy && __ldcg(settled_count) > 0ULL) ? DS_MODE_HEAVY : DS_MODE_SPLIT;
        } else {
            ++heavy_steps;
            mode = DS_MODE_SPLIT;
        }
    }
    if (leader) {
        words[DS_LIGHT] = (word_t)light_phases;
        words[DS_HEAVY] = (word_t)heavy_steps;
        words[DS_SPLITS] = (word_t)split;
        words[DS_BUCKETS] = (word_t)buckets;
    }
}
