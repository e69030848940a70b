// bfs4k's expansion machinery (bfs4k.cu): work sources, the visited filter with the shared-memory hash table,
// local queues in registers and their two-level exclusive prefix sum. BFS-4K sections 5.1-5.6 and 6.
#ifndef SSSP_BENCH_BFS4K_EXPAND_CUH
#define SSSP_BENCH_BFS4K_EXPAND_CUH

#include "bfs_common.cuh"

// Status words beyond common.cuh's 8 (bfs4k.py mirrors them).
#define B4_LEVEL 8            // the level of the current frontier's vertices
#define B4_SIZE0 9            // entries in frontier buffer 0; buffer 1 is word 10. Level d's frontier: buffer d & 1
#define B4_HANDOFF 11         // the single-block kernel left this level to the multi-block kernel (a heavy vertex)
#define B4_EXPANDED 12        // the multi-block kernel expanded this level: bfs4k_next_level moves on
#define B4_HEAVY 13           // the heavy list: entries << HEAVY_SHIFT | tiles, one atomicAdd per heavy vertex
#define B4_STALLED 14         // the next frontier overflowed its buffer: the host rebuilds it from the levels
#define B4_ARCS 15            // arcs of this level's frontier (counting)
#define B4_CHILDREN 16        // child grids launched in this level
#define B4_LEVELS_DONE 17     // levels expanded so far
#define B4_CHILDREN_TOTAL 18  // child grids launched in all levels
#define B4_BLOCKS_DONE 19     // blocks of the multi-block (or heavy) grid that finished this level
#define B4_SINGLE_RUNS 20     // single-block launches that expanded at least one level (or handed one over)
#define B4_SINGLE_LEVELS 21   // levels the single-block kernel expanded
#define B4_HEAVY_TOTAL 22     // heavy-list entries of all levels (counting)
#define B4_WORDS_USED 23

#define HEAVY_SHIFT 40
#define HEAVY_TILE_MASK ((1ULL << HEAVY_SHIFT) - 1ULL)

// The technique switches (bfs4k.py FLAG_BITS).
#define F_WARP_SCAN 1
#define F_BINARY_SCAN 2
#define F_VIRTUAL_WARPS 4
#define F_EDGE_DISCOVER 8
#define F_SINGLE_BLOCK 16
#define F_COALESCED_WRITES 32
#define F_HASH_DEDUP 64
#define F_DP_CHILD 128
#define F_DP_COOPERATIVE 256
#define F_COUNT 512
#define F_NARROW 1024         // arc indices and 32 x the largest degree fit in int: 32-bit shuffles and scans
#define F_HEAVY_CLAIM 2048    // a heavy vertex is given away once per level (heavy_claims)
#define F_DEFERRED_FLUSH 4096 // local queues written out when half full, not after every round (run_rounds)
#define F_SPREAD 8192         // multi-block levels spread a small frontier over all groups (batch_span)

#ifndef BFS4K_Q
#define BFS4K_Q 8             // local queue entries per thread = arcs a thread examines between two flushes
#endif
#define FULL_MASK 0xffffffffu
#define NO_HEAVY 0x7fffffffffffffffLL

// Per-block variables beside the hash table (Figure 8's "kernel variables"); bfs4k.py reserves VAR_BYTES.
struct BlockScratch {
    long long warp_base[32];
    int warp_total[32];
    int thread_counts[1024];        // the shared-memory scan (warp_scan off)
    // single-block kernel, per level (index level % 3, so that the next level's counters can be zeroed at the
    // start of a level, with no barrier of their own): entries of F' reserved so far, and the out-arcs of the
    // frontier vertices read so far (each clamped to 2^18, above the largest budget)
    unsigned long long reserved[3];
    unsigned level_arcs[3];
    unsigned long long arcs;        // single-block kernel: arcs of this level (counting)
    unsigned round_flags[3];        // run_rounds: the decisions of a round (flush, stop), by round % 3
    int hand_over;                  // single-block kernel: a heavy vertex was read: the level goes multi-block
    int last_block;                 // this block is the last of its grid to finish the level
};
static_assert(sizeof(BlockScratch) + 64 <= 4672, "bfs4k.py VAR_BYTES must cover BlockScratch");

struct Context {
    const offset_t* row_offsets = nullptr;
    const vertex_t* column_ids = nullptr;
    level_t* levels = nullptr;
    level_t next_level = 0;
    int flags = 0;
    int k1 = 1, k3 = 16, k7 = 10;
    float k4 = 2.0f;
    BlockScratch* scratch = nullptr;
    unsigned long long* table = nullptr;   // the hash table (shared memory), table_mask + 1 entries
    unsigned table_mask = 0;
    int* out_shared = nullptr;              // F' in shared memory (single-block kernel) ...
    long long shared_capacity = 0;
    int* out_global = nullptr;              // ... and in global memory beyond it
    long long global_capacity = 0;
    int size_word = 0;
    unsigned long long* counter = nullptr;  // F' entries reserved (a status word, or scratch.reserved)
    bool counter_in_shared = false;
    word_t* words = nullptr;
    int* heavy_vertices = nullptr;
    long long* heavy_first_tile = nullptr;
    long long heavy_capacity = 0;
    long long heavy_degree = NO_HEAVY;      // out-degree from which a vertex is given away (Section 5.3)
    int* heavy_claims = nullptr;            // per vertex: the stamp of the solve that last gave it away (or none)
    int solve_stamp = 0;
    int block_size = 0;
    int child_hash_entries = 0;
    unsigned long long arcs = 0ULL;         // this thread's share of the level's arcs (counting)
    bool single = false;                    // the single-block kernel: heavy vertices and big levels hand over
    bool spread = true;                     // short batches on a small frontier (batch_span): the single-block
                                            // kernel always; the multi-block one with F_SPREAD or a handed-over level
    unsigned* level_arcs = nullptr;         // single-block kernel: this level's out-arcs read (shared) ...
    unsigned arc_budget = 0u;               // ... and how many it may have
    unsigned read_arcs = 0u;                // single-block kernel: out-arcs of the vertices read this round
};

__device__ bool give_away_heavy(const Context& ctx, vertex_t u, long long begin, long long end);

__device__ __forceinline__ unsigned lane_id() { return threadIdx.x & 31u; }

// ---------------------------------------------------------------------------------------------------------------
// Section 6: duplicate detection, a hash table in shared memory of (vertex << 32 | thread id) words
// ---------------------------------------------------------------------------------------------------------------

__device__ __forceinline__ void clear_table(const Context& ctx, int entries) {
    if (!(ctx.flags & F_HASH_DEDUP)) return;
    for (int i = threadIdx.x; i < entries; i += blockDim.x) ctx.table[i] = ~0ULL;
}

// Figure 11: write (v, thread) at hash(v), read the slot back; a duplicate when another thread of the block
// wrote v there. Of the threads that race on v, the last to write v keeps it (it reads its own word, or a
// different vertex's), so a discovered vertex always stays in the frontier at least once.
__device__ __forceinline__ bool is_duplicate(const Context& ctx, vertex_t v) {
    volatile unsigned long long* table = ctx.table;
    unsigned slot = ((unsigned)v * 2654435761u) >> 7 & ctx.table_mask;
    unsigned long long mine = ((unsigned long long)(unsigned)v << 32) | threadIdx.x;
    table[slot] = mine;
    unsigned long long seen = table[slot];
    return (seen >> 32) == (unsigned)v && (unsigned)seen != threadIdx.x;
}

// ---------------------------------------------------------------------------------------------------------------
// Local queues (registers; indices resolved at compile time so they stay in registers)
// ---------------------------------------------------------------------------------------------------------------

__device__ __forceinline__ void queue_push(int (&queue)[BFS4K_Q], int& count, int v) {
#pragma unroll
    for (int k = 0; k < BFS4K_Q; ++k)
        if (k == count) queue[k] = v;
    count += 1;
}

// A head found unvisited when the round's levels were read: checked again (this thread, or another, may have
// reached it since), then its level is set and the hash table decides whether it is a duplicate. Filtering
// before writing (Section 4).
__device__ __forceinline__ void admit_head(const Context& ctx, vertex_t v, int (&queue)[BFS4K_Q], int& count) {
    if (ctx.levels[v] != LEVEL_INF) return;
    ctx.levels[v] = ctx.next_level;
    if ((ctx.flags & F_HASH_DEDUP) && is_duplicate(ctx, v)) return;
    queue_push(queue, count, v);
}

// ---------------------------------------------------------------------------------------------------------------
// Section 5.1: two-level exclusive prefix sum
// ---------------------------------------------------------------------------------------------------------------

// Warp scans: common.cuh's warp_inclusive_sum.

// Arc indices and degree sums: one 32-bit shuffle (or scan) instead of two when they fit (F_NARROW).
__device__ __forceinline__ long long shfl_arc(bool narrow, unsigned mask, long long value, int source, int width) {
    return narrow ? (long long)__shfl_sync(mask, (int)value, source, width) : __shfl_sync(mask, value, source, width);
}

__device__ __forceinline__ long long warp_inclusive_sum_arcs(bool narrow, long long value) {
    return narrow ? (long long)warp_inclusive_sum((int)value) : warp_inclusive_sum(value);
}

// Warp level: (exclusive offset, warp total) of `count`. Binary variant (ballot + popc) when every lane has 0
// or 1; shuffles (warp_scan) or a Hillis-Steele scan in shared memory otherwise.
__device__ __forceinline__ void warp_exclusive(const Context& ctx, int count, int& exclusive, int& total) {
    unsigned lane = lane_id();
    if ((ctx.flags & F_BINARY_SCAN) && __all_sync(FULL_MASK, count <= 1)) {
        unsigned ballot = __ballot_sync(FULL_MASK, count > 0);
        exclusive = __popc(ballot & ((1u << lane) - 1u));
        total = __popc(ballot);
        return;
    }
    if (ctx.flags & F_WARP_SCAN) {
        int inclusive = warp_inclusive_sum(count);
        exclusive = inclusive - count;
        total = __shfl_sync(FULL_MASK, inclusive, 31);
        return;
    }
    volatile int* cell = ctx.scratch->thread_counts + (threadIdx.x & ~31u);
    cell[lane] = count;
    __syncwarp();
    for (int offset = 1; offset < 32; offset <<= 1) {
        int other = lane >= (unsigned)offset ? cell[lane - offset] : 0;
        __syncwarp();
        cell[lane] += other;
        __syncwarp();
    }
    exclusive = cell[lane] - count;
    total = cell[31];
    __syncwarp();
}

__device__ __forceinline__ void emit(const Context& ctx, long long position, int v) {
    if (position < ctx.shared_capacity) ctx.out_shared[position] = v;
    else if (position < ctx.global_capacity) ctx.out_global[position] = v;
}

// Writes every thread's local queue into F': warp offsets, block offsets (warp totals in shared memory), one
// reservation per block, then the writes, coalesced by the induced scheme of Section 5.6 when the warp holds
// at least K7 vertices: the first min(queue lengths) entries go out lane by lane (one coalesced store each),
// the rest at prefix-sum offsets. Every thread of the block must call it.
__device__ void flush_queues(const Context& ctx, int (&queue)[BFS4K_Q], int count) {
    BlockScratch* scratch = ctx.scratch;
    unsigned lane = lane_id(), warp = threadIdx.x >> 5, warps = (blockDim.x + 31) >> 5;
    int exclusive, total;
    warp_exclusive(ctx, count, exclusive, total);
    if (lane == 0) scratch->warp_total[warp] = total;
    __syncthreads();
    if (warp == 0) {
        if (ctx.flags & F_WARP_SCAN) {
            int mine = lane < warps ? scratch->warp_total[lane] : 0;
            int inclusive = warp_inclusive_sum(mine);
            int block_total = __shfl_sync(FULL_MASK, inclusive, 31);
            unsigned long long base = 0ULL;
            if (lane == 0 && block_total > 0) {
                if (ctx.counter_in_shared) { base = *ctx.counter; *ctx.counter = base + block_total; }
                else base = atomicAdd(ctx.counter, (unsigned long long)block_total);
            }
            base = __shfl_sync(FULL_MASK, base, 0);
            if (lane < warps) scratch->warp_base[lane] = (long long)base + inclusive - mine;
        } else if (lane == 0) {
            long long block_total = 0;
            for (unsigned w = 0; w < warps; ++w) block_total += scratch->warp_total[w];
            unsigned long long base = 0ULL;
            if (block_total > 0) {
                if (ctx.counter_in_shared) { base = *ctx.counter; *ctx.counter = base + block_total; }
                else base = atomicAdd(ctx.counter, (unsigned long long)block_total);
            }
            long long running = (long long)base;
            for (unsigned w = 0; w < warps; ++w) {
                scratch->warp_base[w] = running;
                running += scratch->warp_total[w];
            }
        }
    }
    __syncthreads();
    if (total == 0) return;
    long long warp_base = scratch->warp_base[warp];
    if ((ctx.flags & F_COALESCED_WRITES) && total >= ctx.k7) {
        int least = count;
#pragma unroll
        for (int offset = 16; offset > 0; offset >>= 1) least = min(least, __shfl_xor_sync(FULL_MASK, least, offset));
#pragma unroll
        for (int r = 0; r < BFS4K_Q; ++r)
            if (r < least) emit(ctx, warp_base + (long long)r * 32 + lane, queue[r]);
        int rest = count - least;
        int rest_inclusive = warp_inclusive_sum(rest);
        long long rest_base = warp_base + 32LL * least + (rest_inclusive - rest);
#pragma unroll
        for (int k = 0; k < BFS4K_Q; ++k)
            if (k >= least && k < count) emit(ctx, rest_base + (k - least), queue[k]);
    } else {
#pragma unroll
        for (int k = 0; k < BFS4K_Q; ++k)
            if (k < count) emit(ctx, warp_base + exclusive + k, queue[k]);
    }
}

// Rounds of at most BFS4K_Q arcs per thread until every thread of the block is out of work. A round first takes
// its arcs and issues their column loads, then the heads' level loads, then filters: the loads of a round are
// in flight together instead of one dependent chain per arc. The local queues are written out (flush_queues,
// two block barriers and a reservation in F') after a round in which a thread of the block holds BFS4K_FLUSH_AT
// vertices or more, at the end, and before a hand-over; meanwhile a warp takes BFS4K_Q minus its longest queue
// arcs a round (F_DEFERRED_FLUSH; off: a flush after every round). In a level whose heads are mostly reached
// already, the flush was most of a round's latency: one round, one barrier. The per-round decisions (flush,
// stop) are bits that threads set in round_flags[round % 3] before the round's barrier and all read after it,
// so every thread takes the same branch. After that barrier thread 0 clears the slot of round + 2: the slot of
// round - 1, which every thread read before arriving at this barrier and nobody sets before the next one.
// True (the same in every thread) when the single-block kernel stopped the level to hand it over.
#define BFS4K_FLUSH_AT (BFS4K_Q / 2)
#define ROUND_FLUSH 1u
#define ROUND_STOP 2u
template <class Source>
__device__ bool run_rounds(Source& source, Context& ctx) {
    unsigned* round_flags = ctx.scratch->round_flags;
    if (threadIdx.x < 3) round_flags[threadIdx.x] = 0u;
    __syncthreads();
    bool deferred = (ctx.flags & F_DEFERRED_FLUSH) != 0;
    int queue[BFS4K_Q];
    int count = 0;
    bool more, stop;
    for (unsigned round = 0;; ++round) {
        // uniform in the warp (the sources' shuffles need every lane of a virtual warp), and count + take <= Q
        int take = BFS4K_Q - __reduce_max_sync(FULL_MASK, (unsigned)count);
        int heads[BFS4K_Q];
#pragma unroll
        for (int step = 0; step < BFS4K_Q; ++step) {
            long long arc = step < take ? source.next_arc(ctx) : -1;
            heads[step] = arc >= 0 ? ctx.column_ids[arc] : -1;
        }
        level_t seen[BFS4K_Q];
#pragma unroll
        for (int step = 0; step < BFS4K_Q; ++step) seen[step] = heads[step] >= 0 ? ctx.levels[heads[step]] : 0;
#pragma unroll
        for (int step = 0; step < BFS4K_Q; ++step)
            if (heads[step] >= 0 && seen[step] == LEVEL_INF) admit_head(ctx, heads[step], queue, count);
        unsigned bits = deferred && count >= BFS4K_FLUSH_AT ? ROUND_FLUSH : 0u;  // off: every round flushes
        if (ctx.single) {  // the frontier's out-arcs read this round, one shared atomic per warp
            unsigned sum = __reduce_add_sync(FULL_MASK, ctx.read_arcs);
            ctx.read_arcs = 0u;
            if (lane_id() == 0 && sum) atomicAdd(ctx.level_arcs, sum);
            // the level goes multi-block: seen at least by the thread that set hand_over or crossed the budget
            if (ctx.scratch->hand_over || *ctx.level_arcs > ctx.arc_budget) bits |= ROUND_STOP;
        }
        unsigned* slot = &round_flags[round % 3];
        if (bits) atomicOr(slot, bits);
        more = __syncthreads_or(!source.done());
        unsigned decided = *slot;
        if (threadIdx.x == 0) round_flags[(round + 2) % 3] = 0u;
        if (!deferred || decided || !more) {
            flush_queues(ctx, queue, count);
            count = 0;
        }
        stop = (decided & ROUND_STOP) != 0;
        if (stop || !more) break;
    }
    __syncthreads();  // the last flush's writes to F' are seen by the whole block (the single-block kernel reads them)
    return stop;
}

// A vertex of `degree` out-arcs read by the single-block kernel, counted for the level's arc budget: clamped to
// 2^18 (more than any budget), so that a level's sum fits 32 bits.
__device__ __forceinline__ void count_single_arcs(Context& ctx, long long degree) {
    ctx.read_arcs += (unsigned)(degree < (1LL << 18) ? degree : (1LL << 18));
}

// ---------------------------------------------------------------------------------------------------------------
// Work sources: each call gives this thread at most one arc (-1: none this step)
// ---------------------------------------------------------------------------------------------------------------

// The vertices a group (virtual warp, or warp for edge-discover) of `lanes` lanes takes at a time, when `groups`
// groups share a frontier of `size`: with `spread`, `lanes` when there are vertices enough to keep every group busy
// that way, else fewer, down to 1, so that every group gets a vertex; without, always `lanes`. Batches of a full
// warp's width whatever the frontier size left all but size / 32 warps idle on a small frontier of high-degree
// vertices: on an R-MAT stand-in of com-youtube, 2,055 vertices with 764K arcs went to 65 of 3,168 warps and took
// 174 us (H200). But on a frontier of low-degree vertices the spread only wakes more blocks: the multi-block levels
// of a road graph took ~4 us more each (Context::spread says when to spread).
__device__ __forceinline__ long long batch_span(long long size, long long groups, int lanes, bool spread) {
    if (!spread) return lanes;
    long long per_group = (size + groups - 1) / (groups > 0 ? groups : 1);
    return per_group < 1 ? 1 : per_group > lanes ? lanes : per_group;
}

// Section 5.2: virtual warps of `width` lanes. A virtual warp takes batches of `span` (batch_span, at most
// `width`) consecutive frontier vertices (batch b, b + stride, ...): lane j < span reads vertex j of the batch and
// its row offsets (one coalesced read of the frontier, the row-offset reads in flight together), then the lanes
// walk the batch's vertices one after the other, the offsets shared by shuffles (the read side of Section 5.6),
// reading each vertex's arcs `width` apart (coalesced). A heavy vertex is given away by the lane that read it.
// Lanes of a virtual warp move together.
struct VirtualWarpSource {
    const int* frontier;
    long long size, batch, stride, batches, base, end, my_first, my_last;
    int width, span, lane, slot;
    unsigned group_mask;

    __device__ void start(const Context& ctx, const int* frontier_, long long size_, int width_, long long thread,
                          long long threads) {
        frontier = frontier_;
        size = size_;
        width = width_;
        lane = (int)(thread & (width - 1));
        stride = threads / width;
        span = (int)batch_span(size, stride, width, ctx.spread);
        batches = (size + span - 1) / span;
        batch = thread / width - stride;  // the first advance moves to thread / width
        slot = span - 1;
        base = end = my_first = my_last = 0;
        unsigned first_lane = lane_id() & ~(unsigned)(width - 1);
        group_mask = width == 32 ? FULL_MASK : ((1u << width) - 1u) << first_lane;
    }

    __device__ bool done() const { return base >= end && slot + 1 >= span && batch + stride >= batches; }

    __device__ long long next_arc(Context& ctx) {
        while (base >= end) {
            if (slot + 1 < span) {
                slot += 1;
            } else {
                if (batch + stride >= batches) return -1;
                batch += stride;
                slot = 0;
                long long index = batch * span + lane;
                my_first = my_last = 0;
                if (lane < span && index < size) {
                    vertex_t u = frontier[index];
                    my_first = ctx.row_offsets[u];
                    my_last = ctx.row_offsets[u + 1];
                    ctx.arcs += (unsigned long long)(my_last - my_first);
                    if (ctx.single) count_single_arcs(ctx, my_last - my_first);
                    if (my_last - my_first >= ctx.heavy_degree && give_away_heavy(ctx, u, my_first, my_last))
                        my_first = my_last;
                }
            }
            bool narrow = (ctx.flags & F_NARROW) != 0;
            base = shfl_arc(narrow, group_mask, my_first, slot, width);
            end = shfl_arc(narrow, group_mask, my_last, slot, width);
        }
        long long arc = base + lane;
        base += width;
        return arc < end ? arc : -1;
    }
};

// Section 5.4: edge-discover. A warp takes 32 frontier vertices (fewer on a small frontier: batch_span), scans
// their degrees with shuffles and gives arc k of the chunk to lane k mod 32, found by a shuffle binary search over
// the inclusive sums. Extended variant: when the next 32 arcs all belong to the vertex that owned the previous
// step's last arc (a medium or large degree), every lane takes it without searching. All 32 lanes of the warp call
// next_arc together.
struct EdgeDiscoverSource {
    const int* frontier;
    long long size, span, chunk, chunk_stride, position, total;
    long long inclusive, exclusive, first_arc;
    int owner;  // the vertex (lane index) of the previous step's last arc, -1 at a new chunk

    __device__ void start(const Context& ctx, const int* frontier_, long long size_, long long warp, long long warps) {
        frontier = frontier_;
        size = size_;
        chunk_stride = warps;
        span = batch_span(size, warps, 32, ctx.spread);
        chunk = warp - warps;
        position = total = 0;
        inclusive = exclusive = first_arc = 0;
        owner = -1;
    }

    __device__ bool done() const { return position >= total && (chunk + chunk_stride) * span >= size; }

    __device__ long long next_arc(Context& ctx) {
        unsigned lane = lane_id();
        bool narrow = (ctx.flags & F_NARROW) != 0;
        while (position >= total) {
            if ((chunk + chunk_stride) * span >= size) return -1;
            chunk += chunk_stride;
            long long index = chunk * span + lane;
            long long degree = 0;
            first_arc = 0;
            if (lane < span && index < size) {
                vertex_t u = frontier[index];
                long long first = ctx.row_offsets[u], last = ctx.row_offsets[u + 1];
                ctx.arcs += (unsigned long long)(last - first);
                degree = last - first;
                first_arc = first;
                if (ctx.single) count_single_arcs(ctx, degree);
                if (degree >= ctx.heavy_degree && give_away_heavy(ctx, u, first, last)) degree = 0;
            }
            inclusive = warp_inclusive_sum_arcs(narrow, degree);
            exclusive = inclusive - degree;
            total = shfl_arc(narrow, FULL_MASK, inclusive, 31, 32);
            position = 0;
            owner = -1;
        }
        long long k = position + lane;
        int mine;
        long long owner_exclusive = shfl_arc(narrow, FULL_MASK, exclusive, owner < 0 ? 0 : owner, 32);
        long long owner_inclusive = shfl_arc(narrow, FULL_MASK, inclusive, owner < 0 ? 0 : owner, 32);
        if (owner >= 0 && owner_exclusive <= position && position + 32 <= owner_inclusive) {
            mine = owner;  // the extended variant: no search
        } else {
            mine = 0;
#pragma unroll
            for (int half = 16; half > 0; half >>= 1) {
                long long probe = shfl_arc(narrow, FULL_MASK, inclusive, mine + half - 1, 32);
                if (probe <= k) mine += half;
            }
        }
        long long start = shfl_arc(narrow, FULL_MASK, first_arc, mine, 32);
        long long skip = shfl_arc(narrow, FULL_MASK, exclusive, mine, 32);
        owner = __shfl_sync(FULL_MASK, mine, 31);
        position += 32;
        return k < total ? start + (k - skip) : -1;
    }
};

// An arc range shared by the block: thread t takes begin + t, begin + t + blockDim, ... (child grids, heavy tiles).
struct RangeSource {
    long long next, end;

    __device__ void start(long long begin, long long end_) {
        next = begin + threadIdx.x;
        end = end_;
    }

    __device__ bool done() const { return next >= end; }

    __device__ long long next_arc(Context&) {
        if (next >= end) return -1;
        long long arc = next;
        next += blockDim.x;
        return arc;
    }
};

#endif  // SSSP_BENCH_BFS4K_EXPAND_CUH
