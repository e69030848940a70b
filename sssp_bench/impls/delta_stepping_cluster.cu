// delta-stepping-cluster: near-far delta-stepping in one thread-block cluster of a Hopper GPU (sm_90): the frontier
// in the cluster's distributed shared memory, one hardware cluster barrier per level, no launch and no grid-wide
// barrier per level.
//
// Why: on a road graph the work of a level is a few hundred vertices and the solve is a thousand or more levels
// deep (USA-road-d.NY: 1,300 to 2,100 near-far levels), so the time is levels x the latency of one level. A launch
// or a grid-wide barrier per level costs several microseconds; a cluster barrier is a hardware barrier among the
// cluster's blocks (DSC_CLUSTER blocks of DSC_BLOCK threads, each on its own SM), and the queues live in shared
// memory, read by the other blocks through distributed shared memory (ld.shared::cluster).
//
// Levels: level L relaxes the vertices of its near queue: every block's queue of buffer L & 1 (shared memory, up to
// queue_cap entries each) and the spill of buffer L & 1 (global memory: what did not fit). An improvement of v to
// c goes to the next near queue (the pushing block's own buffer (L + 1) & 1) when c < thr, else onto the far pile.
// A vertex is pushed near at most once per level (stamp[v] = L, read beside the distance's atomicMin, written after
// it: a race between two improvers can push v twice, which costs a second relaxation, never a lost one) and is on
// the far pile at most once (in_far[v], likewise). The relaxer reads dist[u] when it relaxes u, so a vertex lowered
// again after it was pushed is relaxed at its newest distance.
// A level whose near queues are all empty splits the far pile instead (Davidson et al.'s Near-Far Pile): thr rises
// to max(thr + delta, the bucket above the least far distance pushed), entries whose distance fell below the old
// thr are stale (they went near when they fell) and are dropped, those below the new thr go to the next near queue,
// the rest are compacted into the other far buffer. A level with empty queues and an empty far pile ends the solve.
//
// Every thread of the cluster makes the same decisions: after the barrier it reads the counts of this level's queues
// (every block's, remotely, and the spill's), which nobody writes during the level. Counts rotate over three words
// (level % 3, and epoch % 3 for the far pile: an epoch is the time between two splits): the current one is read,
// the next one written, and the one after is zeroed, so no count is reset while another block may still read it.
// Work: a group of `group` lanes (a power of two up to 32) takes a queue entry and relaxes its arcs one per lane;
// when every block's queue fits one round of its groups (and nothing spilled), each block relaxes its own queue
// (local shared memory); otherwise the cluster's groups take entries of the concatenated queues in turn. A vertex of
// more than heavy_degree arcs is relaxed by its whole warp, 32 arcs at a time.
// Before a block exits, a last cluster barrier: no block's shared memory may go while another still reads it.
#include "common.cuh"

#ifndef DSC_CLUSTER
#define DSC_CLUSTER 8
#endif
#ifndef DSC_BLOCK
#define DSC_BLOCK 512
#endif
#define DSC_FULL 0xffffffffu
#define DSC_NO_STAMP 0xffffffffu

// control[] (word_t), one 128-byte line each
#define DSC_FAR_COUNT(i) ((i) * 16)          // far pile entries, by epoch % 3
#define DSC_FAR_MIN(i) (48 + (i) * 16)       // least distance pushed to (or kept on) the far pile, by epoch % 3
#define DSC_CONTROL_WORDS 96
// words[] (status words read back once per solve): common.cuh's, then these
#define DSC_LEVELS 8       // levels run (splits included)
#define DSC_SPLITS 9
#define DSC_POPS 10        // near-queue entries relaxed
#define DSC_NEAR_PUSHES 11
#define DSC_FAR_PUSHES 12
#define DSC_SPILLS 13      // near entries that did not fit a block's shared-memory queue
#define DSC_MAX_FRONTIER 14
#define DSC_ABORTED 15
#define DSC_CHAINED 16     // vertices relaxed as a hop inside a level (hops), not through a queue
// with count_relaxations, block 0's level profile (SM cycles, summed over levels): the barrier wait, the count reads
// and decision after it, and the longest of its warps' work (entries, arcs, pushes) in each level
#define DSC_PROFILE_BARRIER 17
#define DSC_PROFILE_COUNTS 18
#define DSC_PROFILE_WORK 19
#define DSC_WORDS 24

__device__ __forceinline__ unsigned cluster_rank() {
    unsigned rank;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
    return rank;
}

// Every thread of the cluster: its writes before (shared and global) are seen by every thread after.
__device__ __forceinline__ void cluster_barrier() {
    asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}

// The shared::cluster address of `local` (this block's shared memory) in the block of cluster rank `rank`.
__device__ __forceinline__ unsigned remote_address(const void* local, unsigned rank) {
    unsigned address, mapped;
    asm volatile("{ .reg .u64 a; cvta.to.shared.u64 a, %1; cvt.u32.u64 %0, a; }" : "=r"(address) : "l"(local));
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(mapped) : "r"(address), "r"(rank));
    return mapped;
}

__device__ __forceinline__ unsigned load_remote(unsigned address) {
    unsigned value;
    asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(value) : "r"(address) : "memory");
    return value;
}

__device__ __forceinline__ unsigned long long load_remote_u64(unsigned address) {
    unsigned long long value;
    asm volatile("ld.shared::cluster.u64 %0, [%1];" : "=l"(value) : "r"(address) : "memory");
    return value;
}

// Atomics on another block's shared memory (an address from remote_address).
__device__ __forceinline__ unsigned long long atomic_add_remote(unsigned address, unsigned long long value) {
    unsigned long long old;
    asm volatile("atom.shared::cluster.add.u64 %0, [%1], %2;" : "=l"(old) : "r"(address), "l"(value) : "memory");
    return old;
}

__device__ __forceinline__ unsigned set_remote_once(unsigned address, unsigned value) {  // 0 -> value: first wins
    unsigned old;
    asm volatile("atom.shared::cluster.cas.b32 %0, [%1], %2, %3;"
                 : "=r"(old) : "r"(address), "r"(0u), "r"(value) : "memory");
    return old;
}

__device__ __forceinline__ word_t load_word(const word_t* p) { return *(const volatile word_t*)p; }

struct Level {
    unsigned* queue_next;      // this block's shared-memory queue for the next level: vertices, their rows' first
    offset_t* begin_next;      // arcs and their degrees (an entry carries its row: the relaxer reads no offsets)
    unsigned* degree_next;
    unsigned* count_next;      // and its count (may pass queue_cap: the rest spilled)
    vertex_t* spill_next;      // the next level's spill, and its count
    unsigned spill_count_next;  // block 0's shared-memory words (remote addresses): the next spill's count
    unsigned abort_next;        // and the abort reason seen at the next level
    vertex_t* far_pile;        // the far pile of this epoch, its count and least distance
    word_t* far_count;
    word_t* far_min;
    long long capacity, thr;  // capacity: entries of each spill and far buffer
    unsigned queue_cap, stamp;  // stamp: the level's tag
    unsigned long long attempts, improved, near_pushes, far_pushes, spills;
};

// Where the lanes in `lanes` reserved cells from `base` on in `buffer` (one each, in lane order): the calling lane's
// v into its cell when `mine`; a cell past `cap` is not written, and the solve stops with the abort `reason`.
__device__ __forceinline__ void store_reserved(bool mine, unsigned lanes, word_t base, vertex_t v, vertex_t* buffer,
                                               long long cap, unsigned reason, Level& l) {
    if (!mine) return;
    word_t index = base + __popc(lanes & ((1u << (threadIdx.x & 31)) - 1u));
    if ((long long)index < cap) __stcg(buffer + index, v);
    else set_remote_once(l.abort_next, reason);
}

// Pushes v (its arcs [begin, end)) onto the next near queue for the lanes with `push` (warp-aggregated: one shared
// atomic per warp; what does not fit the block's queue goes to the spill, as a vertex alone). All 32 lanes call.
__device__ __forceinline__ void push_near(bool push, vertex_t v, offset_t begin, offset_t end, Level& l) {
    unsigned pushers = __ballot_sync(DSC_FULL, push);
    if (pushers == 0u) return;
    int lane = threadIdx.x & 31, leader = __ffs(pushers) - 1;
    unsigned below = __popc(pushers & ((1u << lane) - 1u));
    unsigned start = 0;
    if (lane == leader) start = atomicAdd(l.count_next, (unsigned)__popc(pushers));
    start = __shfl_sync(DSC_FULL, start, leader);
    unsigned slot = start + below;
    bool spill = push && slot >= l.queue_cap;
    if (push && !spill) {
        l.queue_next[slot] = (unsigned)v;
        l.begin_next[slot] = begin;
        l.degree_next[slot] = (unsigned)(end - begin);
    }
    unsigned spillers = __ballot_sync(DSC_FULL, spill);
    l.near_pushes += push ? 1 : 0;
    if (spillers == 0u) return;
    int first = __ffs(spillers) - 1;
    word_t base = 0;
    if (lane == first) base = atomic_add_remote(l.spill_count_next, (unsigned long long)__popc(spillers));
    base = __shfl_sync(DSC_FULL, base, first);
    store_reserved(spill, spillers, base, v, l.spill_next, l.capacity, 1u, l);
    l.spills += spill ? 1 : 0;
}

// Pushes v (now at distance c) onto the far pile for the lanes with `push`. All 32 lanes call.
__device__ __forceinline__ void push_far(bool push, vertex_t v, dist_t c, Level& l) {
    unsigned pushers = __ballot_sync(DSC_FULL, push);
    if (pushers == 0u) return;
    int lane = threadIdx.x & 31, leader = __ffs(pushers) - 1;
    word_t base = 0;
    long long least = warp_min(push ? c : DIST_INF);
    if (lane == leader) {
        base = atomicAdd(l.far_count, (word_t)__popc(pushers));
        atomicMin(l.far_min, (word_t)least);
    }
    base = __shfl_sync(DSC_FULL, base, leader);
    store_reserved(push, pushers, base, v, l.far_pile, l.capacity, 2u, l);
    l.far_pushes += push ? 1 : 0;
}

// Per solve: distances, stamps, far flags, the control and status words.
extern "C" __global__ void dsc_init(dist_t* dist, unsigned* stamp, unsigned char* in_far, word_t* control,
                                    word_t* words, long long n, long long source) {
    long long stride = (long long)gridDim.x * blockDim.x;
    for (long long v = (long long)blockIdx.x * blockDim.x + threadIdx.x; v < n; v += stride) {
        dist[v] = v == source ? 0LL : DIST_INF;
        stamp[v] = DSC_NO_STAMP;
        in_far[v] = 0;
    }
    if (blockIdx.x == 0 && threadIdx.x < DSC_CONTROL_WORDS) {
        bool least = threadIdx.x >= DSC_FAR_MIN(0) && threadIdx.x < DSC_FAR_MIN(3);
        control[threadIdx.x] = least ? (word_t)DIST_INF : 0ULL;
    }
    if (blockIdx.x == 0 && threadIdx.x < DSC_WORDS) words[threadIdx.x] = 0ULL;
}

extern "C" __global__ void __cluster_dims__(DSC_CLUSTER, 1, 1) __launch_bounds__(DSC_BLOCK, 1)
dsc_solve(const offset_t* __restrict__ row_offsets, const vertex_t* __restrict__ column_ids,
          const weight_t* __restrict__ weights, int unit_weights, dist_t* dist, unsigned* stamp,
          unsigned char* in_far, vertex_t* spill, vertex_t* far, word_t* control, word_t* words, long long source,
          long long delta, long long capacity, int queue_cap, long long heavy_degree,
          int group, int hops, int count_relaxations) {
    // two buffers of queue_cap entries: first arcs (8 bytes each, first for alignment), vertices, degrees
    extern __shared__ offset_t s_begin[];
    unsigned* s_queue = (unsigned*)(s_begin + 2 * queue_cap);
    unsigned* s_degree = s_queue + 2 * queue_cap;
    __shared__ unsigned s_count[3];        // this block's queue counts, by level % 3
    // block 0's alone (the others' stay unused), by level % 3: the spill's count and why the solve stops early (1: the
    // spill would have overflowed; 2: the far pile; 3: too many levels for the stamps). In shared memory: every thread
    // reads them after every barrier, and so no level reads global memory before its work (the count phase was no
    // shorter for it on an H200, 0.6 to 0.7 us a level either way: the remote reads themselves cost that).
    __shared__ unsigned long long s_spilled[3];
    __shared__ unsigned s_abort[3];
    __shared__ unsigned long long s_work[2];  // the profile: the level's longest warp work, by level & 1
    const unsigned rank = cluster_rank();
    const int tid = threadIdx.x, lane = tid & 31, part = tid % group;  // group: lanes per entry, a power of 2
    if (tid < 3) {
        s_count[tid] = 0u;
        s_spilled[tid] = 0ULL;
        s_abort[tid] = 0u;
    }
    if (tid < 2) s_work[tid] = 0ULL;
    const bool profile = count_relaxations && cluster_rank() == 0;
    long long work_started = 0, barrier_cycles = 0, count_cycles = 0, work_cycles = 0;
    __syncthreads();
    if (rank == 0 && tid == 0) {  // level 0: the source alone, in block 0's buffer 0
        s_queue[0] = (unsigned)source;
        s_begin[0] = row_offsets[source];
        s_degree[0] = (unsigned)(row_offsets[source + 1] - row_offsets[source]);
        s_count[0] = 1u;
    }
    Level l;
    l.capacity = capacity;
    l.queue_cap = (unsigned)queue_cap;
    l.thr = delta;
    l.attempts = l.improved = l.near_pushes = l.far_pushes = l.spills = 0ULL;
    unsigned long long pops = 0, chained = 0, splits = 0, max_frontier = 0;
    unsigned level = 0, epoch = 0;
    for (;; ++level) {
        long long arrived = 0;
        if (profile && lane == 0) {
            arrived = clock64();
            if (level > 0) atomicMax(&s_work[(level - 1) & 1], (unsigned long long)(arrived - work_started));
        }
        cluster_barrier();
        long long passed = profile && tid == 0 ? clock64() : 0;
        if (profile && tid == 0) {
            barrier_cycles += passed - arrived;
            if (level > 0) {
                work_cycles += (long long)s_work[(level - 1) & 1];
                s_work[(level - 1) & 1] = 0ULL;
            }
        }
        const unsigned now = level % 3, next = (level + 1) % 3, buffer = level & 1;
        // this level's queues: every block's count (the same in every thread), then the spill's
        const unsigned per_block = DSC_BLOCK / group;  // entries a block takes in one round
        unsigned counts[DSC_CLUSTER];  // indexed by compile-time constants only (unrolled): registers
        unsigned long long in_blocks = 0;
        unsigned own_count = 0;
        bool every_one_fits = true;
#pragma unroll
        for (int j = 0; j < DSC_CLUSTER; ++j) {
            unsigned c = load_remote(remote_address(&s_count[now], (unsigned)j));
            counts[j] = c < (unsigned)queue_cap ? c : (unsigned)queue_cap;
            in_blocks += counts[j];
            every_one_fits = every_one_fits && counts[j] <= per_block;
            if ((unsigned)j == rank) own_count = counts[j];
        }
        const unsigned long long spilled = load_remote_u64(remote_address(&s_spilled[now], 0u));
        const unsigned long long total = in_blocks + spilled;
        const unsigned aborted = load_remote(remote_address(&s_abort[now], 0u));
        if (tid == 0) s_count[(level + 2) % 3] = 0u;  // read by nobody until it is the next level's count again
        if (rank == 0 && tid == 0) {
            s_spilled[(level + 2) % 3] = 0ULL;
            s_abort[(level + 2) % 3] = 0u;
        }
        l.abort_next = remote_address(&s_abort[next], 0u);
        l.queue_next = s_queue + ((level + 1) & 1) * (unsigned)queue_cap;
        l.begin_next = s_begin + ((level + 1) & 1) * (unsigned)queue_cap;
        l.degree_next = s_degree + ((level + 1) & 1) * (unsigned)queue_cap;
        l.count_next = &s_count[next];
        l.spill_next = spill + (long long)((level + 1) & 1) * capacity;
        l.spill_count_next = remote_address(&s_spilled[next], 0u);
        l.stamp = level;
        if (aborted != 0u) break;
        if (level == DSC_NO_STAMP - 1u) {  // the next level's tag would be the empty stamp (2^32 - 1 levels)
            if (rank == 0 && tid == 0) set_remote_once(l.abort_next, 3u);
            continue;
        }
        if (profile && lane == 0) {
            work_started = clock64();
            if (tid == 0) count_cycles += work_started - passed;
        }
        if (total == 0) {
            // no near work: split the far pile (or stop when it is empty)
            const unsigned long long far_count = load_word(control + DSC_FAR_COUNT(epoch % 3));
            if (far_count == 0) break;
            const long long least = (long long)load_word(control + DSC_FAR_MIN(epoch % 3));
            const long long old_thr = l.thr;
            long long thr = old_thr + delta;
            if (least != DIST_INF && (least / delta + 1) * delta > thr) thr = (least / delta + 1) * delta;
            if (rank == 0 && tid == 0) {  // the epoch after next's words: last read at the split before this one
                control[DSC_FAR_COUNT((epoch + 2) % 3)] = 0ULL;
                control[DSC_FAR_MIN((epoch + 2) % 3)] = (word_t)DIST_INF;
            }
            const vertex_t* from = far + (long long)(epoch & 1) * capacity;
            l.far_pile = far + (long long)((epoch + 1) & 1) * capacity;
            l.far_count = control + DSC_FAR_COUNT((epoch + 1) % 3);
            l.far_min = control + DSC_FAR_MIN((epoch + 1) % 3);
            for (unsigned long long start = (unsigned long long)rank * DSC_BLOCK + (tid & ~31);
                 start < far_count; start += (unsigned long long)DSC_CLUSTER * DSC_BLOCK) {  // warp-uniform
                unsigned long long index = start + lane;
                bool valid = index < far_count;
                vertex_t v = valid ? __ldcg(from + index) : 0;
                dist_t d = valid ? __ldcg(dist + v) : DIST_INF;
                unsigned seen = valid ? __ldcg(stamp + v) : level;
                bool keep = valid && d >= thr;
                bool near = valid && d >= old_thr && d < thr;
                if (valid && !keep) in_far[v] = 0;  // stale or near: off the pile
                bool push = near && seen != level;
                if (push) __stcg(stamp + v, level);
                offset_t row = push ? row_offsets[v] : 0, row_end = push ? row_offsets[v + 1] : 0;
                push_near(push, v, row, row_end, l);
                push_far(keep, v, d, l);
                l.far_pushes -= keep ? 1 : 0;  // a kept entry is a move, not a push
            }
            l.thr = thr;
            ++epoch;
            ++splits;
            continue;
        }
        if (total > max_frontier) max_frontier = total;
        l.far_pile = far + (long long)(epoch & 1) * capacity;
        l.far_count = control + DSC_FAR_COUNT(epoch % 3);
        l.far_min = control + DSC_FAR_MIN(epoch % 3);
        // the entries this thread relaxes: its own block's queue when every queue fits one round of a block, else
        // the concatenation of the blocks' queues and the spill, dealt out over the cluster. A group of `group`
        // lanes takes one entry, its arcs one per lane: a vertex's arcs are relaxed side by side, not one after
        // another (one after another, a level cost the round trips of the warp's longest row, 6 us on NY).
        const bool own = every_one_fits && spilled == 0;
        const unsigned long long stride = own ? per_block : (unsigned long long)DSC_CLUSTER * per_block;
        const unsigned long long limit = own ? own_count : total;
        const unsigned long long first = own ? 0ULL : (unsigned long long)rank * per_block;
        const unsigned long long warp_first = (unsigned long long)((tid & ~31) / group);
        for (unsigned long long start = first; start + warp_first < limit; start += stride) {  // warp-uniform
            unsigned long long index = start + (unsigned long long)(tid / group);
            bool valid = index < limit;
            vertex_t u = 0;
            offset_t begin = 0, end = 0;
            if (valid) {
                if (own) {
                    const unsigned at = buffer * (unsigned)queue_cap + (unsigned)index;
                    u = (vertex_t)s_queue[at];
                    begin = s_begin[at];
                    end = begin + s_degree[at];
                } else {  // block j's queue holds entries [sum of counts before j, that + counts[j])
                    unsigned long long at = index;
                    int j = DSC_CLUSTER;
#pragma unroll
                    for (int k = 0; k < DSC_CLUSTER; ++k) {
                        if (j == DSC_CLUSTER) {
                            if (at < counts[k]) j = k; else at -= counts[k];
                        }
                    }
                    if (j < DSC_CLUSTER) {
                        const unsigned slot = buffer * (unsigned)queue_cap + (unsigned)at;
                        u = (vertex_t)load_remote(remote_address(s_queue + slot, (unsigned)j));
                        begin = (offset_t)load_remote_u64(remote_address(s_begin + slot, (unsigned)j));
                        end = begin + load_remote(remote_address(s_degree + slot, (unsigned)j));
                    } else {  // a spilled vertex comes without its row
                        u = __ldcg(spill + (long long)buffer * capacity + (long long)at);
                        begin = row_offsets[u];
                        end = row_offsets[u + 1];
                    }
                }
            }
            dist_t du = valid ? __ldcg(dist + u) : 0;  // in flight beside the first arcs' reads
            pops += valid && part == 0 ? 1 : 0;
            bool may_keep = false, has_kept = false;  // this hop may go on; this lane kept kept_v for it
            vertex_t kept_v = 0;
            offset_t kept_begin = 0, kept_end = 0;
            auto visit = [&](bool on, offset_t e, dist_t d, bool keepable) {
                vertex_t v = on ? column_ids[e] : 0;
                dist_t c = on ? d + arc_weight(weights, unit_weights, e) : 0;
                unsigned seen = on ? __ldcg(stamp + v) : 0u;          // in flight beside the atomicMin
                unsigned char flagged = on ? __ldcg(in_far + v) : 1;
                offset_t row = on ? row_offsets[v] : 0, row_end = on ? row_offsets[v + 1] : 0;  // for the entry
                bool improved = on && c < atomicMin(dist + v, c);
                l.attempts += on ? 1 : 0;
                l.improved += improved ? 1 : 0;
                bool near = improved && c < l.thr && seen != l.stamp;
                bool keep = near && keepable && may_keep && !has_kept;
                bool to_far = improved && c >= l.thr && flagged == 0;
                if (keep) {
                    has_kept = true;
                    kept_v = v;
                    kept_begin = row;
                    kept_end = row_end;
                }
                if (near && !keep) __stcg(stamp + v, l.stamp);
                if (to_far) in_far[v] = 1;
                push_near(near && !keep, v, row, row_end, l);
                push_far(to_far, v, c, l);
            };
            const unsigned group_lanes = (group == 32 ? DSC_FULL : (1u << group) - 1u) << (lane & ~(group - 1));
            for (int hop = 0;; ++hop) {  // warp-uniform
                may_keep = hop < hops;
                has_kept = false;
                // a vertex of more than heavy_degree arcs by the whole warp in turn, the others by their group
                bool big = valid && end - begin > heavy_degree;
                unsigned bigs = __ballot_sync(DSC_FULL, big && part == 0);
                while (bigs) {  // warp-uniform
                    int owner = __ffs(bigs) - 1;
                    bigs &= bigs - 1u;
                    offset_t row = __shfl_sync(DSC_FULL, begin, owner), row_end = __shfl_sync(DSC_FULL, end, owner);
                    dist_t d = __shfl_sync(DSC_FULL, du, owner);
                    for (offset_t chunk = row; chunk < row_end; chunk += 32) {
                        visit(chunk + lane < row_end, chunk + lane, d, false);
                    }
                }
                offset_t e = valid && !big ? begin + part : 0, stop = valid && !big ? end : 0;
                for (; __any_sync(DSC_FULL, e < stop); e += group) visit(e < stop, e, du, true);
                // the group goes on with the first vertex one of its lanes kept (a hop inside the level, with no
                // queue and no barrier); the others are pushed as usual
                unsigned keepers = __ballot_sync(DSC_FULL, has_kept) & group_lanes;
                int next_lane = keepers ? __ffs(keepers) - 1 : lane;
                bool push_back = has_kept && lane != next_lane;
                if (push_back) __stcg(stamp + kept_v, l.stamp);
                push_near(push_back, kept_v, kept_begin, kept_end, l);
                if (!__any_sync(DSC_FULL, keepers != 0u)) break;
                u = __shfl_sync(DSC_FULL, kept_v, next_lane);
                begin = __shfl_sync(DSC_FULL, kept_begin, next_lane);
                end = __shfl_sync(DSC_FULL, kept_end, next_lane);
                valid = keepers != 0u;
                du = valid ? __ldcg(dist + u) : 0;
                if (!valid) begin = end = 0;
                chained += valid && part == 0 ? 1 : 0;
            }
        }
    }
    cluster_barrier();  // no block leaves while another may still read its shared memory
    unsigned long long sums[7] = {pops, l.near_pushes, l.far_pushes, l.spills, l.attempts, l.improved, chained};
#pragma unroll
    for (int k = 0; k < 7; ++k) {
#pragma unroll
        for (int offset = 16; offset > 0; offset >>= 1) sums[k] += __shfl_xor_sync(DSC_FULL, sums[k], offset);
    }
    if (lane == 0) {
        if (sums[0]) atomicAdd(words + DSC_POPS, sums[0]);
        if (sums[1]) atomicAdd(words + DSC_NEAR_PUSHES, sums[1]);
        if (sums[2]) atomicAdd(words + DSC_FAR_PUSHES, sums[2]);
        if (sums[3]) atomicAdd(words + DSC_SPILLS, sums[3]);
        if (sums[6]) atomicAdd(words + DSC_CHAINED, sums[6]);
        if (count_relaxations) add_counts(words, sums[4], sums[5]);
    }
    if (rank == 0 && tid == 0) {
        words[DSC_LEVELS] = level;
        words[DSC_SPLITS] = splits;
        words[DSC_MAX_FRONTIER] = max_frontier;
        words[DSC_PROFILE_BARRIER] = (word_t)barrier_cycles;
        words[DSC_PROFILE_COUNTS] = (word_t)count_cycles;
        words[DSC_PROFILE_WORK] = (word_t)work_cycles;
        words[DSC_ABORTED] = s_abort[level % 3];
    }
}
