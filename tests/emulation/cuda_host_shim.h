// Just enough of CUDA to run a block-synchronous kernel on the host, for tests without a GPU: every CUDA thread is an
// OS thread; __syncthreads is a per-block std::barrier, warp shuffles and ballots exchange through per-warp slots
// between two warp barriers (all 32 lanes must call, as with a full mask on the device), atomics are atomic_ref,
// __ldcg and volatile loads are plain loads of memory other threads write, fences are seq_cst fences. It checks the
// kernel's logic (indexing, scans, the schedule between blocks), not the GPU memory model or its performance.
#pragma once
#include <algorithm>
#include <array>
#include <atomic>
#include <barrier>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

using std::max;
using std::min;

#define PD_HOST_EMULATION 1
#define __global__
#define __device__
#define __forceinline__ inline
#define __launch_bounds__(x)
#define __restrict__ __restrict

struct emu_dim3 {
    unsigned x, y, z;
};

inline thread_local emu_dim3 threadIdx{0, 0, 0};
inline thread_local emu_dim3 blockIdx{0, 0, 0};
inline emu_dim3 blockDim{1, 1, 1};
inline emu_dim3 gridDim{1, 1, 1};

struct EmuWarp {
    std::barrier<> barrier{32};
    std::array<unsigned long long, 32> slots{};
};

struct EmuBlock {
    explicit EmuBlock(unsigned threads) : barrier(threads), warps(threads / 32), shared(1 << 16) {
        for (auto& warp : warps) warp = std::make_unique<EmuWarp>();
    }
    std::barrier<> barrier;
    std::vector<std::unique_ptr<EmuWarp>> warps;
    std::vector<unsigned char> shared;
    std::atomic<int> vote{0};
};

inline thread_local EmuBlock* emu_block = nullptr;

template <typename T>
T* emulated_block_shared() {
    static_assert(sizeof(T) <= (1 << 16), "shared memory");
    return reinterpret_cast<T*>(emu_block->shared.data());
}
#define PD_BLOCK_SHARED(type, name) type& name = *emulated_block_shared<type>()

inline unsigned long long emulated_ns() {
    return (unsigned long long)std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch()).count();
}

inline void __syncthreads() { emu_block->barrier.arrive_and_wait(); }

inline int __syncthreads_or(int predicate) {
    if (predicate) emu_block->vote.store(1);
    emu_block->barrier.arrive_and_wait();
    int result = emu_block->vote.load();
    emu_block->barrier.arrive_and_wait();
    if (threadIdx.x == 0) emu_block->vote.store(0);
    emu_block->barrier.arrive_and_wait();
    return result;
}

inline void __threadfence() { std::atomic_thread_fence(std::memory_order_seq_cst); }
inline void __threadfence_block() { std::atomic_thread_fence(std::memory_order_seq_cst); }
inline void __nanosleep(unsigned) { std::this_thread::yield(); }

inline int __ffs(unsigned x) { return __builtin_ffs((int)x); }
inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll((unsigned long long)x); }

template <typename T>
T emu_exchange(T value, int source_lane) {
    static_assert(sizeof(T) <= 8, "shuffle of at most 8 bytes");
    EmuWarp& warp = *emu_block->warps[threadIdx.x / 32];
    unsigned long long bits = 0;
    std::memcpy(&bits, &value, sizeof(T));
    warp.slots[threadIdx.x % 32] = bits;
    warp.barrier.arrive_and_wait();
    unsigned long long got = warp.slots[source_lane];
    warp.barrier.arrive_and_wait();
    T result;
    std::memcpy(&result, &got, sizeof(T));
    return result;
}

template <typename T>
T __shfl_xor_sync(unsigned, T value, int mask) { return emu_exchange(value, (int)(threadIdx.x % 32) ^ mask); }

template <typename T>
T __shfl_up_sync(unsigned, T value, unsigned delta) {
    int lane = (int)(threadIdx.x % 32);
    return emu_exchange(value, lane >= (int)delta ? lane - (int)delta : lane);
}

template <typename T>
T __shfl_sync(unsigned, T value, int source) { return emu_exchange(value, source & 31); }

inline unsigned __ballot_sync(unsigned, int predicate) {
    EmuWarp& warp = *emu_block->warps[threadIdx.x / 32];
    warp.slots[threadIdx.x % 32] = predicate ? 1ULL : 0ULL;
    warp.barrier.arrive_and_wait();
    unsigned mask = 0;
    for (int lane = 0; lane < 32; ++lane) mask |= warp.slots[lane] ? (1u << lane) : 0u;
    warp.barrier.arrive_and_wait();
    return mask;
}

template <typename T>
T __ldcg(const T* address) { return *(const volatile T*)address; }

template <typename T>
T atomicAdd(T* address, T value) { return std::atomic_ref<T>(*address).fetch_add(value); }

template <typename T>
T atomicExch(T* address, T value) { return std::atomic_ref<T>(*address).exchange(value); }

template <typename T>
T atomicMin(T* address, T value) {
    std::atomic_ref<T> ref(*address);
    T old = ref.load();
    while (value < old && !ref.compare_exchange_weak(old, value)) {
    }
    return old;
}

// Runs kernel() with `grid` blocks of `block` threads (a multiple of 32), all at once, and waits for them.
template <typename Kernel>
void emulated_launch(unsigned grid, unsigned block, Kernel kernel) {
    gridDim = {grid, 1, 1};
    blockDim = {block, 1, 1};
    std::vector<std::unique_ptr<EmuBlock>> blocks;
    for (unsigned b = 0; b < grid; ++b) blocks.push_back(std::make_unique<EmuBlock>(block));
    std::vector<std::thread> threads;
    for (unsigned b = 0; b < grid; ++b) {
        for (unsigned t = 0; t < block; ++t) {
            threads.emplace_back([&, b, t] {
                blockIdx = {b, 0, 0};
                threadIdx = {t, 0, 0};
                emu_block = blocks[b].get();
                kernel();
            });
        }
    }
    for (auto& thread : threads) thread.join();
}
