// bfs4k: BFS-4K (Busato & Bombieri), frontier BFS with the paper's Kepler techniques (bfs4k.py says which
// section each one comes from and which parameter switches it).
//
// One BFS level expands the frontier F (level d) into F' (level d + 1). Every kernel reads its state from the
// status words (level, frontier sizes, flags), so the host launches steps without reading anything back:
//   bfs4k_single      one block of 1024 threads; runs whole levels while the frontier is small, keeping F and F'
//                     in shared memory (Figure 8a);
//   bfs4k_multi       the whole device; expands one level whose frontier is large (Figure 8b); its last block to
//                     finish moves to the next level;
//   bfs4k_heavy       the cooperative stand-in for dynamic parallelism: heavy vertices listed by bfs4k_multi are
//                     expanded by whole blocks, tiles of K3 x block arcs; its last block moves to the next level;
//   bfs4k_next_level  one thread: moves to the next level after bfs4k_multi and its child grids finished
//                     (dynamic_parallelism "child" only: a parent grid cannot tell when its children are done).
// A step that finds nothing to do returns at once, so batches of steps can be launched (or replayed as CUDA
// graphs) past the end of the search.
//
// Expansion (bfs4k_expand.cuh): threads take arcs from a work source (virtual warps, edge-discover or an arc
// range), filter the head (visited check, then the shared-memory hash table), keep new vertices in a local
// queue of registers and, every BFS4K_Q arcs, write the queues out with a two-level exclusive prefix sum and
// one atomicAdd per block.
#include "bfs_common.cuh"
#include "bfs4k_expand.cuh"

// ---------------------------------------------------------------------------------------------------------------
// Dynamic parallelism (BFS4K_CDP, compiled with -rdc=true): a child grid per heavy vertex, fire and forget.
// CDP2 (CUDA 12+, Hopper) has no device-side synchronisation: the parent never waits; the parent grid counts as
// finished only when its children are, so bfs4k_next_level (next in the stream) sees everything they wrote.
// ---------------------------------------------------------------------------------------------------------------

extern "C" __global__ void bfs4k_child(const vertex_t* __restrict__ column_ids, level_t* levels, level_t next_level,
                                       long long arc_begin, long long arc_end, int* next_frontier, long long capacity,
                                       word_t* words, int size_word, int flags, int k3, int k7, int hash_entries) {
    extern __shared__ unsigned long long bfs4k_dynamic_shared[];
    __shared__ BlockScratch scratch;
    Context ctx;
    ctx.row_offsets = nullptr;
    ctx.column_ids = column_ids;
    ctx.levels = levels;
    ctx.next_level = next_level;
    ctx.flags = flags;
    ctx.k7 = k7;
    ctx.scratch = &scratch;
    ctx.table = bfs4k_dynamic_shared;
    ctx.table_mask = (unsigned)hash_entries - 1u;
    ctx.out_shared = nullptr;
    ctx.shared_capacity = 0;
    ctx.out_global = next_frontier;
    ctx.global_capacity = capacity;
    ctx.counter = &words[size_word];
    ctx.counter_in_shared = false;
    ctx.heavy_degree = 0x7fffffffffffffffLL;
    clear_table(ctx, hash_entries);
    __syncthreads();
    long long tile = (long long)k3 * blockDim.x;
    long long begin = arc_begin + (long long)blockIdx.x * tile;
    long long end = begin + tile < arc_end ? begin + tile : arc_end;
    RangeSource source;
    source.start(begin, end);
    run_rounds(source, ctx);
}

#ifdef BFS4K_CDP
#define BFS4K_CHILD_LIMIT 1024ULL  // child grids per level (the device runtime's pending-launch pool is finite)

__device__ bool launch_child(const Context& ctx, long long begin, long long end) {
    unsigned long long slot = atomicAdd(&ctx.words[B4_CHILDREN], 1ULL);
    if (slot >= BFS4K_CHILD_LIMIT) return false;
    long long tile = (long long)ctx.k3 * ctx.block_size;
    unsigned blocks = (unsigned)((end - begin + tile - 1) / tile);
    bfs4k_child<<<blocks, ctx.block_size, (size_t)ctx.child_hash_entries * 8>>>(
        ctx.column_ids, ctx.levels, ctx.next_level, begin, end, ctx.out_global, ctx.global_capacity, ctx.words,
        ctx.size_word, ctx.flags, ctx.k3, ctx.k7, ctx.child_hash_entries);
    return cudaGetLastError() == cudaSuccess;
}
#endif

// A heavy frontier vertex (out-degree >= heavy_degree) is given away by the one thread that read it: to a child
// grid (dynamic_parallelism "child"), else to the heavy list that bfs4k_heavy expands after this kernel. False
// when neither took it (child limit and full list): the caller expands it itself.
__device__ bool give_away_heavy(const Context& ctx, vertex_t u, long long begin, long long end) {
    if (ctx.single) {  // the single-block kernel hands the level over after this round (it has no helpers)
        ctx.scratch->hand_over = 1;
        return true;
    }
    // A hub reached by many blocks in one level sits in F once per block (the hash tables are per block); only the
    // first copy to stamp it is expanded, the others are dropped (they would walk all its arcs again).
    if (ctx.heavy_claims && atomicExch(&ctx.heavy_claims[u], ctx.solve_stamp) == ctx.solve_stamp) return true;
#ifdef BFS4K_CDP
    if ((ctx.flags & F_DP_CHILD) && launch_child(ctx, begin, end)) return true;
#endif
    long long tile = (long long)ctx.k3 * ctx.block_size;
    unsigned long long tiles = (unsigned long long)((end - begin + tile - 1) / tile);
    unsigned long long packed = atomicAdd(&ctx.words[B4_HEAVY], (1ULL << HEAVY_SHIFT) | tiles);
    unsigned long long index = packed >> HEAVY_SHIFT;
    if (index >= (unsigned long long)ctx.heavy_capacity) return false;
    ctx.heavy_vertices[index] = u;
    ctx.heavy_first_tile[index] = (long long)(packed & HEAVY_TILE_MASK);
    return true;
}

// ---------------------------------------------------------------------------------------------------------------
// The kernels' shared argument list
// ---------------------------------------------------------------------------------------------------------------

#define BFS4K_ARGS                                                                                              \
    const offset_t *__restrict__ row_offsets, const vertex_t *__restrict__ column_ids, level_t *levels,         \
        int *frontiers, long long capacity, word_t *words, long long *level_log, int *heavy_vertices,           \
        long long *heavy_first_tile, int *heavy_claims, long long heavy_capacity, long long heavy_degree,        \
        int flags, int k1, float k4, int k3, int k7, long long threshold, int hash_entries, int child_hash_entries

__device__ void fill_context(Context& ctx, BFS4K_ARGS, level_t level, BlockScratch* scratch,
                             unsigned long long* table, int table_entries) {
    ctx.row_offsets = row_offsets;
    ctx.column_ids = column_ids;
    ctx.levels = levels;
    ctx.next_level = level + 1;
    ctx.flags = flags;
    ctx.k1 = k1;
    ctx.k3 = k3;
    ctx.k4 = k4;
    ctx.k7 = k7;
    ctx.scratch = scratch;
    ctx.table = table;
    ctx.table_mask = (unsigned)table_entries - 1u;
    ctx.out_shared = nullptr;
    ctx.shared_capacity = 0;
    ctx.out_global = frontiers + (long long)((level + 1) & 1) * capacity;
    ctx.global_capacity = capacity;
    ctx.size_word = B4_SIZE0 + ((level + 1) & 1);
    ctx.counter = &words[ctx.size_word];
    ctx.counter_in_shared = false;
    ctx.words = words;
    ctx.heavy_vertices = heavy_vertices;
    ctx.heavy_first_tile = heavy_first_tile;
    ctx.heavy_capacity = heavy_capacity;
    ctx.heavy_degree = (flags & (F_DP_CHILD | F_DP_COOPERATIVE)) ? heavy_degree : 0x7fffffffffffffffLL;
    if (flags & F_HEAVY_CLAIM) {  // heavy_claims[capacity] (capacity = n) holds this solve's stamp
        ctx.heavy_claims = heavy_claims;
        ctx.solve_stamp = heavy_claims[capacity];
    }
    ctx.block_size = blockDim.x;
    ctx.child_hash_entries = child_hash_entries;
}

// How a level of `size` frontier vertices is spread over `threads` threads: 0 for edge-discover (size <
// threads / K4; never for K4 = 0, as the paper uses it), else the virtual warp width, nearest_pow2(threads /
// size) in [K1, 32] (1 without virtual warps).
__device__ __forceinline__ int level_width(const Context& ctx, long long size, long long threads) {
    if ((ctx.flags & F_EDGE_DISCOVER) && ctx.k4 > 0.0f && (double)size * (double)ctx.k4 < (double)threads) return 0;
    int width = 1;
    if (ctx.flags & F_VIRTUAL_WARPS) {
        long long ratio = threads / (size > 0 ? size : 1);
        width = 32;
        while (width > 1 && width > ratio) width >>= 1;
        if (width < ctx.k1) width = ctx.k1;
    }
    return width;
}

// The blocks (of `block` threads, a multiple of 32) that get any frontier vertex: both sources hand vertices out
// in thread order, a batch (batch_span) to a warp (edge-discover) or to a virtual warp of `width` lanes.
__device__ __forceinline__ long long busy_blocks(int width, long long size, long long block, long long grid,
                                                bool spread) {
    int lanes = width == 0 ? 32 : width;
    long long span = batch_span(size, grid * block / lanes, lanes, spread);
    long long busy_threads = (size + span - 1) / span * lanes;
    long long blocks = (busy_threads + block - 1) / block;
    return blocks < grid ? blocks : grid;
}

// Expand the frontier F[0, size) of level ctx.next_level - 1 with `threads` threads (this one is `thread`).
// True when the single-block kernel stopped the level to hand it over (run_rounds).
__device__ bool expand_level(Context& ctx, const int* frontier, long long size, long long thread, long long threads) {
    int width = level_width(ctx, size, threads);
    if (width == 0) {
        EdgeDiscoverSource source;
        source.start(ctx, frontier, size, thread >> 5, threads >> 5);
        return run_rounds(source, ctx);
    } else {
        VirtualWarpSource source;
        source.start(ctx, frontier, size, width, thread, threads);
        return run_rounds(source, ctx);
    }
}

// ---------------------------------------------------------------------------------------------------------------
// Level bookkeeping after a multi-block level: by the last block to finish (no extra kernel per level), or by
// bfs4k_next_level when child grids may still be running (dynamic_parallelism "child")
// ---------------------------------------------------------------------------------------------------------------

// F' becomes F, the per-level words are reset. Volatile: other blocks' atomics and writes, not a stale copy.
__device__ void finish_level(word_t* words_, long long* level_log, long long capacity, int flags) {
    volatile word_t* words = words_;
    long long level = (long long)words[B4_LEVEL];
    unsigned long long next_size = words[B4_SIZE0 + ((level + 1) & 1)];
    if (flags & F_COUNT) {
        level_log[2 * level] = (long long)words[B4_SIZE0 + (level & 1)];
        level_log[2 * level + 1] = (long long)words[B4_ARCS];
        words[B4_HEAVY_TOTAL] = words[B4_HEAVY_TOTAL] + (words[B4_HEAVY] >> HEAVY_SHIFT);
    }
    words[B4_SIZE0 + (level & 1)] = 0ULL;
    words[B4_LEVEL] = (word_t)(level + 1);
    words[B4_EXPANDED] = 0ULL;
    words[B4_HANDOFF] = 0ULL;
    words[B4_HEAVY] = 0ULL;
    words[B4_CHILDREN_TOTAL] = words[B4_CHILDREN_TOTAL] + words[B4_CHILDREN];
    words[B4_CHILDREN] = 0ULL;
    words[B4_ARCS] = 0ULL;
    words[B4_BLOCKS_DONE] = 0ULL;
    words[B4_LEVELS_DONE] = words[B4_LEVELS_DONE] + 1ULL;
    if (next_size > (unsigned long long)capacity) words[B4_STALLED] = 1ULL;
}

// Each of `blocks` blocks calls it once, all its threads together, after its last write of the level: true in
// the last block to get here (a fence, then one atomicAdd per block), which then sees every block's writes.
__device__ bool last_block_to_finish(word_t* words, BlockScratch& scratch, long long blocks) {
    __syncthreads();
    if (threadIdx.x == 0) {  // one fence, after the barrier: cumulative, it covers the whole block's writes
        __threadfence();
        unsigned long long done = atomicAdd(&words[B4_BLOCKS_DONE], 1ULL);
        scratch.last_block = done + 1ULL == (unsigned long long)blocks;
        if (scratch.last_block) __threadfence();
    }
    __syncthreads();
    return scratch.last_block != 0;
}

// ---------------------------------------------------------------------------------------------------------------
// Single-block kernel: whole levels in one block while the frontier has at most `threshold` vertices
// ---------------------------------------------------------------------------------------------------------------

// Dynamic shared memory: the hash table (hash_entries words), then F and F' (threshold ints each).
// One launch runs level after level, with block barriers between them and nothing read back by the host, until
// the next frontier is empty or outgrows the threshold (F' spills to global memory beyond it; the multi-block
// kernel next in the step takes it), or the level goes multi-block: a heavy vertex (the multi-block kernel has
// dynamic parallelism, Section 5.3) or more than SINGLE_ARCS_PER_VERTEX x threshold out-arcs (not in the paper:
// a few hubs are not "limited parallelism", and one block would walk their arcs alone). Both are noticed while
// the level runs (the degrees are counted as the vertices are read) and end it after the current round: F and
// what F' holds so far go to global memory and the multi-block kernel expands the whole level again (heads
// already reached are filtered out), so nothing is lost and no pass over the frontier precedes a level.
#define SINGLE_ARCS_PER_VERTEX 32
extern "C" __global__ void __launch_bounds__(1024, 1) bfs4k_single(BFS4K_ARGS) {
    extern __shared__ unsigned long long bfs4k_dynamic_shared[];
    __shared__ BlockScratch scratch;
    if (words[B4_STALLED] || words[B4_HANDOFF]) return;
    level_t level = (level_t)words[B4_LEVEL];
    long long size = (long long)words[B4_SIZE0 + (level & 1)];
    if (size == 0 || size > threshold) return;

    unsigned long long* table = bfs4k_dynamic_shared;
    int* current = (int*)(table + hash_entries);
    int* next = current + threshold;
    const int* global_current = frontiers + (long long)(level & 1) * capacity;
    for (long long i = threadIdx.x; i < size; i += blockDim.x) current[i] = global_current[i];
    Context ctx;
    fill_context(ctx, row_offsets, column_ids, levels, frontiers, capacity, words, level_log, heavy_vertices,
                 heavy_first_tile, heavy_claims, heavy_capacity, heavy_degree, flags, k1, k4, k3, k7, threshold,
                 hash_entries, child_hash_entries, level, &scratch, table, hash_entries);
    ctx.single = true;
    ctx.arc_budget = (unsigned)(SINGLE_ARCS_PER_VERTEX * threshold);
    ctx.shared_capacity = threshold;
    ctx.counter_in_shared = true;
    clear_table(ctx, hash_entries);
    if (threadIdx.x == 0) {
        for (int i = 0; i < 3; ++i) {
            scratch.reserved[i] = 0ULL;
            scratch.level_arcs[i] = 0u;
        }
        scratch.arcs = 0ULL;
        scratch.hand_over = 0;
    }
    __syncthreads();
    bool counting = (flags & F_COUNT) != 0;
    long long levels_done = 0;
    while (true) {
        // This level's counters are index level % 3. The next level's were last read two levels ago, and this
        // level's barriers separate zeroing them here from their use there.
        int slot = (int)(level % 3);
        if (threadIdx.x == 0) {
            scratch.reserved[(slot + 1) % 3] = 0ULL;
            scratch.level_arcs[(slot + 1) % 3] = 0u;
        }
        ctx.next_level = level + 1;
        ctx.out_shared = next;
        ctx.out_global = frontiers + (long long)((level + 1) & 1) * capacity;
        ctx.counter = &scratch.reserved[slot];
        ctx.level_arcs = &scratch.level_arcs[slot];
        bool hand_over = expand_level(ctx, current, size, threadIdx.x, blockDim.x);
        // the last round's barriers made F' and its count final in shared memory
        long long next_size = (long long)scratch.reserved[slot];
        if (counting) {
            if (ctx.arcs) atomicAdd(&scratch.arcs, ctx.arcs);
            ctx.arcs = 0ULL;
            __syncthreads();
        }
        if (hand_over) {  // this level goes multi-block, with what F' holds so far
            int* global_out = frontiers + (long long)(level & 1) * capacity;
            for (long long i = threadIdx.x; i < size; i += blockDim.x) global_out[i] = current[i];
            long long in_shared = next_size < threshold ? next_size : threshold;
            for (long long i = threadIdx.x; i < in_shared; i += blockDim.x) ctx.out_global[i] = next[i];
            if (threadIdx.x == 0) {
                words[B4_LEVEL] = (word_t)level;
                words[B4_SIZE0 + (level & 1)] = (word_t)size;
                words[B4_SIZE0 + ((level + 1) & 1)] = (word_t)next_size;
                words[B4_HANDOFF] = 1ULL;
                words[B4_LEVELS_DONE] += (word_t)levels_done;
                words[B4_SINGLE_LEVELS] += (word_t)levels_done;
                words[B4_SINGLE_RUNS] += 1ULL;
            }
            return;
        }
        if (counting && threadIdx.x == 0) {
            level_log[2 * (long long)level] = size;
            level_log[2 * (long long)level + 1] = (long long)scratch.arcs;
        }
        level += 1;
        levels_done += 1;
        if (next_size == 0 || next_size > threshold) {
            int* global_out = frontiers + (long long)(level & 1) * capacity;
            long long in_shared = next_size < threshold ? next_size : threshold;
            for (long long i = threadIdx.x; i < in_shared; i += blockDim.x) global_out[i] = next[i];
            if (threadIdx.x == 0) {
                words[B4_LEVEL] = (word_t)level;
                words[B4_SIZE0 + (level & 1)] = (word_t)next_size;
                words[B4_SIZE0 + ((level + 1) & 1)] = 0ULL;
                words[B4_LEVELS_DONE] += (word_t)levels_done;
                words[B4_SINGLE_LEVELS] += (word_t)levels_done;
                words[B4_SINGLE_RUNS] += 1ULL;
                if (next_size > capacity) words[B4_STALLED] = 1ULL;
            }
            return;
        }
        if (counting && threadIdx.x == 0) scratch.arcs = 0ULL;  // added to again after the next level's barriers
        int* swap = current;
        current = next;
        next = swap;
        size = next_size;
    }
}

// ---------------------------------------------------------------------------------------------------------------
// Multi-block kernel: one level over the whole device
// ---------------------------------------------------------------------------------------------------------------

// Blocks that get no frontier vertex (a small frontier) skip the expansion but still check in (a block that
// returned at once could start after the bookkeeping and mistake the next level for its own), and the last block
// to finish does the level's bookkeeping, unless bfs4k_heavy has heavy vertices to expand first (then its last
// block does) or child grids may still be running (then bfs4k_next_level, next in the stream).
extern "C" __global__ void bfs4k_multi(BFS4K_ARGS) {
    extern __shared__ unsigned long long bfs4k_dynamic_shared[];
    __shared__ BlockScratch scratch;
    if (words[B4_STALLED]) return;
    level_t level = (level_t)words[B4_LEVEL];
    long long size = (long long)words[B4_SIZE0 + (level & 1)];
    if (size == 0) return;
    bool handed_over = words[B4_HANDOFF] != 0ULL;
    if ((flags & F_SINGLE_BLOCK) && size <= threshold && !handed_over) return;
    bool child_grids = (flags & F_DP_CHILD) != 0;
    if (child_grids && blockIdx.x == 0 && threadIdx.x == 0) words[B4_EXPANDED] = 1ULL;
    Context ctx;
    fill_context(ctx, row_offsets, column_ids, levels, frontiers, capacity, words, level_log, heavy_vertices,
                 heavy_first_tile, heavy_claims, heavy_capacity, heavy_degree, flags, k1, k4, k3, k7, threshold,
                 hash_entries, child_hash_entries, level, &scratch, bfs4k_dynamic_shared, hash_entries);
    // a level the single-block kernel handed over holds heavy vertices or many arcs: spread it whatever the graph
    ctx.spread = (flags & F_SPREAD) || handed_over;
    long long threads = (long long)gridDim.x * blockDim.x;
    if (blockIdx.x < busy_blocks(level_width(ctx, size, threads), size, blockDim.x, gridDim.x, ctx.spread)) {
        clear_table(ctx, hash_entries);
        __syncthreads();
        const int* frontier = frontiers + (long long)(level & 1) * capacity;
        expand_level(ctx, frontier, size, (long long)blockIdx.x * blockDim.x + threadIdx.x, threads);
        if ((flags & F_COUNT) && ctx.arcs) atomicAdd(&words[B4_ARCS], ctx.arcs);
    }
    if (child_grids) return;
    if (last_block_to_finish(words, scratch, gridDim.x) && threadIdx.x == 0) {
        volatile word_t* status = words;
        if (status[B4_HEAVY] != 0ULL) status[B4_BLOCKS_DONE] = 0ULL;  // bfs4k_heavy's blocks check in next
        else finish_level(words, level_log, capacity, flags);
    }
}

// ---------------------------------------------------------------------------------------------------------------
// Heavy vertices, cooperatively: tiles of K3 x block arcs, one block per tile (grid-stride)
// ---------------------------------------------------------------------------------------------------------------

extern "C" __global__ void bfs4k_heavy(BFS4K_ARGS) {
    extern __shared__ unsigned long long bfs4k_dynamic_shared[];
    __shared__ BlockScratch scratch;
    if (words[B4_STALLED]) return;
    unsigned long long packed = words[B4_HEAVY];
    if (packed == 0ULL) return;
    long long entries = (long long)(packed >> HEAVY_SHIFT);
    if (entries > heavy_capacity) entries = heavy_capacity;
    long long tiles = (long long)(packed & HEAVY_TILE_MASK);
    level_t level = (level_t)words[B4_LEVEL];
    Context ctx;
    fill_context(ctx, row_offsets, column_ids, levels, frontiers, capacity, words, level_log, heavy_vertices,
                 heavy_first_tile, heavy_claims, heavy_capacity, heavy_degree, flags, k1, k4, k3, k7, threshold,
                 hash_entries, child_hash_entries, level, &scratch, bfs4k_dynamic_shared, hash_entries);
    // Blocks without a tile return at once: one that starts after the bookkeeping finds the heavy list empty.
    long long busy = tiles < (long long)gridDim.x ? tiles : (long long)gridDim.x;
    if (blockIdx.x >= busy) return;
    clear_table(ctx, hash_entries);
    __syncthreads();
    long long tile_arcs = (long long)k3 * blockDim.x;
    for (long long tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        // the entry whose tiles cover this one: the last with first_tile <= tile (first tiles increase)
        long long low = 0, high = entries;
        while (low < high) {
            long long middle = (low + high) >> 1;
            if (heavy_first_tile[middle] <= tile) low = middle + 1; else high = middle;
        }
        long long begin = 0, end = 0;
        if (low > 0) {
            long long entry = low - 1;
            vertex_t u = heavy_vertices[entry];
            long long first = row_offsets[u], last = row_offsets[u + 1];
            begin = first + (tile - heavy_first_tile[entry]) * tile_arcs;
            end = begin + tile_arcs < last ? begin + tile_arcs : last;
            if (begin > end) begin = end;
        }
        RangeSource source;
        source.start(begin, end);
        run_rounds(source, ctx);
    }
    if (flags & F_DP_CHILD) return;  // bfs4k_next_level moves on
    if (last_block_to_finish(words, scratch, busy) && threadIdx.x == 0) finish_level(words, level_log, capacity, flags);
}

// ---------------------------------------------------------------------------------------------------------------
// Level bookkeeping with child grids
// ---------------------------------------------------------------------------------------------------------------

// After bfs4k_multi, its children and bfs4k_heavy (dynamic_parallelism "child"): the grid that launched children
// counts as finished only when they are, so only a kernel after it sees all they wrote.
extern "C" __global__ void bfs4k_next_level(word_t* words, long long* level_log, long long capacity, int flags) {
    if (threadIdx.x != 0 || blockIdx.x != 0) return;
    if (words[B4_STALLED] || !words[B4_EXPANDED]) return;
    finish_level(words, level_log, capacity, flags);
}

// The search starts from F = {source} at level 0, with a new stamp for the heavy claims (heavy_claims[stamp_index];
// no slot without them: stamp_index < 0).
extern "C" __global__ void bfs4k_start(int* frontiers, word_t* words, long long source, int* heavy_claims,
                                       long long stamp_index) {
    if (threadIdx.x == 0 && blockIdx.x == 0) {
        frontiers[0] = (int)source;
        words[B4_SIZE0] = 1ULL;
        if (stamp_index >= 0) heavy_claims[stamp_index] += 1;
    }
}

// Frontier overflow (duplicates beyond the buffer): F' is rebuilt exactly from the levels, after
// bfs4k_rebuild_reset. Rare: without duplicates a frontier never exceeds n entries.
extern "C" __global__ void bfs4k_rebuild_reset(word_t* words) {
    if (threadIdx.x == 0 && blockIdx.x == 0) {
        words[B4_SIZE0 + (words[B4_LEVEL] & 1)] = 0ULL;
        words[B4_STALLED] = 0ULL;
    }
}

extern "C" __global__ void bfs4k_rebuild(const level_t* levels, long long n, int* frontiers, long long capacity,
                                         word_t* words) {
    long long level = (long long)words[B4_LEVEL];
    int* out = frontiers + (level & 1) * capacity;
    word_t* counter = &words[B4_SIZE0 + (level & 1)];
    long long stride = (long long)gridDim.x * blockDim.x;
    for (long long base = (long long)blockIdx.x * blockDim.x; base < n; base += stride) {
        long long v = base + threadIdx.x;
        bool mine = v < n && levels[v] == (level_t)level;
        unsigned ballot = __ballot_sync(0xffffffffu, mine);
        unsigned long long first = 0ULL;
        int lane = threadIdx.x & 31;
        if (lane == 0 && ballot) first = atomicAdd(counter, (unsigned long long)__popc(ballot));
        first = __shfl_sync(0xffffffffu, first, 0);
        if (mine) out[first + __popc(ballot & ((1u << lane) - 1u))] = (int)v;
    }
}
