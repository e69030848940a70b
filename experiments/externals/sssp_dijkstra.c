/* sssp-dijkstra GRAPH.gr SOURCE OUTPUT: Dijkstra's algorithm with a binary heap (lazy deletion) from SOURCE
 * (0-based) on a DIMACS 9 graph with non-negative integer weights; writes the n distances to OUTPUT as raw
 * little-endian int64 values, INT64_MAX where a vertex is unreached (on a little-endian host, as every host
 * sssp-bench runs on is).
 *
 * A reference program for sssp-bench's external kind (README: Bring your own implementation): it is what a
 * user's own binary looks like to the harness, and configs/externals.yaml builds it (`build: cc -O2 ...`) and
 * runs it beside cpu-dijkstra. It reports no time of its own: its rows carry the process's wall time. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "dimacs.h"

typedef struct { int64_t distance; int32_t vertex; } entry;

static void push(entry *heap, int64_t *size, entry item) {
    int64_t at = (*size)++;
    while (at > 0) {
        int64_t parent = (at - 1) / 2;
        if (heap[parent].distance <= item.distance) break;
        heap[at] = heap[parent];
        at = parent;
    }
    heap[at] = item;
}

static entry pop(entry *heap, int64_t *size) {
    entry top = heap[0], last = heap[--(*size)];
    int64_t at = 0;
    for (;;) {
        int64_t child = 2 * at + 1;
        if (child >= *size) break;
        if (child + 1 < *size && heap[child + 1].distance < heap[child].distance) child++;
        if (heap[child].distance >= last.distance) break;
        heap[at] = heap[child];
        at = child;
    }
    heap[at] = last;
    return top;
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: %s GRAPH.gr SOURCE OUTPUT (SOURCE 0-based; OUTPUT: n int64 distances)\n", argv[0]);
        return 2;
    }
    dimacs_graph g = dimacs_read(argv[1]);
    int64_t source = dimacs_source(argv[2], g.n);
    for (int64_t a = 0; a < g.m; a++) {
        if (g.weights[a] < 0) {
            fprintf(stderr, "%s: arc %lld weighs %lld; Dijkstra needs non-negative weights\n", argv[1],
                    (long long)a, (long long)g.weights[a]);
            return 2;
        }
    }
    int64_t *distance = (int64_t *)malloc(sizeof(int64_t) * (size_t)g.n);
    entry *heap = (entry *)malloc(sizeof(entry) * (size_t)(g.m + 1));
    int64_t size = 0;
    for (int64_t v = 0; v < g.n; v++) distance[v] = INT64_MAX;
    distance[source] = 0;
    push(heap, &size, (entry){0, (int32_t)source});
    while (size > 0) {
        entry top = pop(heap, &size);
        if (top.distance > distance[top.vertex]) continue;  /* a stale entry */
        for (int64_t a = g.offsets[top.vertex]; a < g.offsets[top.vertex + 1]; a++) {
            int64_t candidate = top.distance + g.weights[a];
            if (candidate < distance[g.targets[a]]) {
                distance[g.targets[a]] = candidate;
                push(heap, &size, (entry){candidate, g.targets[a]});
            }
        }
    }
    write_values(argv[3], distance, sizeof(int64_t), g.n);
    return 0;
}
