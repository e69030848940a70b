// Shared by every sssp-bench kernel: types, the distance sentinels, the status words and the relax step.
//
// Compiled by NVRTC on the device (sssp_bench/gpu/runtime.py expands this header into each .cu source, so the
// kernel cache is keyed on it too) and by nvcc in the CI compile check. No standard headers: NVRTC has none.
//
// Distances are int64 (`long long`) whatever the weights: int32 weights summed along a path of up to 2^31 arcs
// stay inside +-2^62, so no real distance overflows. DIST_INF (INT64_MAX) marks an unreached vertex; it is
// the `unreached` sentinel of the SolveResult. A negative cycle makes distances fall without bound: every
// candidate below DIST_FLOOR (-2^62) is clamped to it and W_FLOOR is set. No shortest distance can be that
// small (it is at least -(n-1) * 2^31 > -2^62), so a set W_FLOOR proves a negative cycle reachable from the
// source, and clamping keeps du + w (du >= -2^62, |w| < 2^31) from ever overflowing.
#ifndef SSSP_BENCH_GPU_COMMON_CUH
#define SSSP_BENCH_GPU_COMMON_CUH

typedef long long dist_t;
typedef long long offset_t;  // CSR row offsets (int64 on disk and on the device)
typedef int vertex_t;        // column ids are int32
typedef int weight_t;        // int32 weights (float32 graphs are refused for now)
typedef unsigned long long word_t;

#define DIST_INF 0x7fffffffffffffffLL
#define DIST_FLOOR (-0x4000000000000000LL)

// The status words: one small array per solve, read back by the host once per round (one copy of 64 bytes).
#define W_CHANGED0 0      // "some distance changed" in rounds of parity 0 ...
#define W_CHANGED1 1      // ... and parity 1: round r sets word r&1 and zeroes word (r+1)&1 for the next round
#define W_FLOOR 2         // set when a candidate reached DIST_FLOOR: a negative cycle
#define W_ATTEMPTS 3      // relax attempts (count_relaxations only)
#define W_RELAXATIONS 4   // successful relaxations: distance improvements (count_relaxations only)
#define W_QUEUE 5         // frontier kernels: entries pushed into the next frontier
#define N_WORDS 8

// The weight of arc e: 1 on an unweighted graph (whose weights pointer is a dummy never read).
__device__ __forceinline__ dist_t arc_weight(const weight_t* __restrict__ weights, int unit_weights, offset_t e) {
    return unit_weights ? 1LL : (dist_t)weights[e];
}

// Try dist[v] = du + w. True when it lowered dist[v] (this thread's atomicMin won against the old value).
// The plain read first skips the atomic when it cannot win: distances only fall, so a stale read is larger
// than the current value and at worst costs a useless atomic.
__device__ __forceinline__ bool relax(dist_t* dist, vertex_t v, dist_t du, dist_t w, word_t* words) {
    dist_t candidate = du + w;
    if (candidate < DIST_FLOOR) {
        candidate = DIST_FLOOR;
        words[W_FLOOR] = 1ULL;
    }
    if (candidate >= dist[v]) return false;
    dist_t old = atomicMin(&dist[v], candidate);
    return candidate < old;
}

// First index i in [0, count) with inclusive_scan[i] > t (the frontier entry that owns arc number t).
__device__ __forceinline__ long long upper_bound(const long long* __restrict__ inclusive_scan, long long count,
                                                 long long t) {
    long long low = 0, high = count;
    while (low < high) {
        long long middle = low + ((high - low) >> 1);
        if (inclusive_scan[middle] > t) high = middle; else low = middle + 1;
    }
    return low;
}

// Adds this thread's counts to the status words (only called when counting).
// The inclusive sum of `value` over the lanes of the calling warp (warp shuffles; every lane of the warp calls it).
template <typename T>
__device__ __forceinline__ T warp_inclusive_sum(T value) {
    int lane = threadIdx.x & 31;
#pragma unroll
    for (int offset = 1; offset < 32; offset <<= 1) {
        T other = __shfl_up_sync(0xffffffffu, value, offset);
        if (lane >= offset) value += other;
    }
    return value;
}

// The least `value` over the lanes of the calling warp, in every lane (every lane of the warp calls it).
template <typename T>
__device__ __forceinline__ T warp_min(T value) {
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) {
        T other = __shfl_xor_sync(0xffffffffu, value, offset);
        if (other < value) value = other;
    }
    return value;
}

__device__ __forceinline__ void add_counts(word_t* words, unsigned long long attempts, unsigned long long improved) {
    if (attempts) atomicAdd(&words[W_ATTEMPTS], attempts);
    if (improved) atomicAdd(&words[W_RELAXATIONS], improved);
}

// Every solve starts here: dist = DIST_INF except dist[source] = 0, and the status words zeroed.
extern "C" __global__ void sssp_init(dist_t* dist, long long n, long long source, word_t* words) {
    long long stride = (long long)gridDim.x * blockDim.x;
    for (long long v = (long long)blockIdx.x * blockDim.x + threadIdx.x; v < n; v += stride) {
        dist[v] = v == source ? 0LL : DIST_INF;
    }
    if (blockIdx.x == 0 && threadIdx.x < N_WORDS) words[threadIdx.x] = 0ULL;
}

#endif  // SSSP_BENCH_GPU_COMMON_CUH
