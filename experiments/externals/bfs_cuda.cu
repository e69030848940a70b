/* bfs-cuda GRAPH.gr SOURCE OUTPUT: level-synchronous BFS on the GPU (a thread per vertex, one kernel launch per
 * level, Harish and Narayanan's scheme) from SOURCE (0-based) on a DIMACS 9 graph (weights ignored); writes the n
 * levels to OUTPUT as raw little-endian int32 values, -1 where a vertex is unreached, and prints its own time,
 * `kernel time: MILLISECONDS ms`, measured with CUDA events around the levels (the graph's upload excluded).
 *
 * A reference program for sssp-bench's external kind (README: Bring your own implementation): a GPU program a
 * user built with nvcc, run as `external-bfs` with `unreached: -1` and a `time` rule in ms. tests/test_external.py
 * builds it with nvcc and runs it on a GPU (marker gpu). */
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "dimacs.h"

#define CHECK(call)                                                                                     \
    do {                                                                                                \
        cudaError_t status = (call);                                                                    \
        if (status != cudaSuccess) {                                                                    \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(status)); \
            exit(3);                                                                                    \
        }                                                                                               \
    } while (0)

__global__ void expand_level(const int64_t *offsets, const int32_t *targets, int32_t *levels, int32_t level,
                             int64_t n, int *changed) {
    int64_t v = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= n || levels[v] != level) return;
    for (int64_t a = offsets[v]; a < offsets[v + 1]; a++) {
        int32_t u = targets[a];
        if (levels[u] == -1) {  /* a race writes the same value: every writer is at level + 1 */
            levels[u] = level + 1;
            *changed = 1;
        }
    }
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: %s GRAPH.gr SOURCE OUTPUT (SOURCE 0-based; OUTPUT: n int32 levels, -1 unreached)\n",
                argv[0]);
        return 2;
    }
    dimacs_graph g = dimacs_read(argv[1]);
    int64_t source = dimacs_source(argv[2], g.n);

    int64_t *offsets;
    int32_t *targets, *levels;
    int *changed;
    CHECK(cudaMalloc(&offsets, sizeof(int64_t) * (g.n + 1)));
    CHECK(cudaMalloc(&targets, sizeof(int32_t) * (g.m + 1)));
    CHECK(cudaMalloc(&levels, sizeof(int32_t) * g.n));
    CHECK(cudaMalloc(&changed, sizeof(int)));
    CHECK(cudaMemcpy(offsets, g.offsets, sizeof(int64_t) * (g.n + 1), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(targets, g.targets, sizeof(int32_t) * g.m, cudaMemcpyHostToDevice));

    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    CHECK(cudaEventRecord(start));
    CHECK(cudaMemset(levels, 0xff, sizeof(int32_t) * g.n));  /* every level -1 */
    int32_t zero = 0;
    CHECK(cudaMemcpy(levels + source, &zero, sizeof(int32_t), cudaMemcpyHostToDevice));
    int blocks = (int)((g.n + 255) / 256);
    for (int32_t level = 0;; level++) {
        int host_changed = 0;
        CHECK(cudaMemcpy(changed, &host_changed, sizeof(int), cudaMemcpyHostToDevice));
        expand_level<<<blocks, 256>>>(offsets, targets, levels, level, g.n, changed);
        CHECK(cudaGetLastError());
        CHECK(cudaMemcpy(&host_changed, changed, sizeof(int), cudaMemcpyDeviceToHost));
        if (!host_changed) break;
    }
    CHECK(cudaEventRecord(stop));
    CHECK(cudaEventSynchronize(stop));
    float milliseconds = 0;
    CHECK(cudaEventElapsedTime(&milliseconds, start, stop));

    int32_t *host_levels = (int32_t *)malloc(sizeof(int32_t) * g.n);
    CHECK(cudaMemcpy(host_levels, levels, sizeof(int32_t) * g.n, cudaMemcpyDeviceToHost));
    write_values(argv[3], host_levels, sizeof(int32_t), g.n);
    printf("kernel time: %.6f ms\n", milliseconds);
    return 0;
}
