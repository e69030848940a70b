"""Sequential Dijkstra with a lazy-deletion binary heap: the papers' "Boost Dijkstra" CPU baseline.

Dijkstra's algorithm settles vertices in increasing distance order, taking each from a min-priority queue. Here
the queue is a binary heap of (tentative distance, vertex) entries with lazy deletion: an improvement pushes a
new entry instead of decreasing a key, and an entry whose key is larger than the vertex's current distance is
stale and skipped when popped. That is O((n + m) log m) work, the usual fast sequential SSSP for non-negative
weights.

Where the papers use it:
- H-BF (hbf-bellman-ford-kepler), Table 2 column "Boost Dijkstra Seq. [41]" and the Dijkstra line of Figure 9
  (relax operations; Boost uses a relaxed heap, the asymptotics and the order of settling are the same);
- the course project (course-bellman-ford-delta-stepping), section 5: the "sequential Dijkstra baseline" (C++
  STL priority queue, i.e. also a lazy binary heap) that delta-stepping speedups are measured against;
- DA2CF (da2cf-gpu-dijkstra-compound-frontiers), Figures 6-7 compare to "FH", a Fibonacci-heap Dijkstra from
  SPLIB; a binary heap stands in for it here.

Dijkstra is only correct for non-negative weights, so `prepare` refuses a graph with a negative weight.

Counters: `iterations` = `settled` (vertices taken from the heap with their final distance), `heap_pushes`,
`heap_pops`; with `count_relaxations`, `relax_attempts` (arcs examined), `relaxations` (distance improvements)
and both per iteration (`relax_attempts_per_iteration`, `relaxations_per_iteration`, the names the Bellman-Ford
baselines use) for H-BF's Figure 9. Dijkstra has no rounds, so an iteration here is one heap pop that settles a
vertex (stale pops relax nothing and are not iterations): the figure describes Dijkstra as "a very long
horizontal line", one short step per settled vertex, each relaxing that vertex's out-arcs. The per-iteration
lists therefore have one entry per reached vertex (n entries on a connected graph: count on small graphs or few
sources).
"""

from __future__ import annotations

import numba
import numpy as np

from ..graph.csr import CSRGraph
from ..errors import UnsupportedGraphError
from .base import Implementation, Parameter, SolveResult
from .cpu_common import KernelArrays, check_source, kernel_arrays, relax_counters, tiny_graph_like


@numba.njit(cache=True)
def _sift_up(keys, vertices, position):
    key = keys[position]
    vertex = vertices[position]
    while position > 0:
        parent = (position - 1) >> 1
        if keys[parent] <= key:
            break
        keys[position] = keys[parent]
        vertices[position] = vertices[parent]
        position = parent
    keys[position] = key
    vertices[position] = vertex


@numba.njit(cache=True)
def _sift_down(keys, vertices, size):
    key = keys[0]
    vertex = vertices[0]
    position = 0
    while True:
        child = 2 * position + 1
        if child >= size:
            break
        if child + 1 < size and keys[child + 1] < keys[child]:
            child += 1
        if keys[child] >= key:
            break
        keys[position] = keys[child]
        vertices[position] = vertices[child]
        position = child
    keys[position] = key
    vertices[position] = vertex


@numba.njit(cache=True)
def dijkstra_kernel(row_offsets, column_ids, weights, unit_weights, source, distances, count_relaxations):
    """Fill `distances` (pre-set to the unreached sentinel) from `source`.

    Returns (settled, heap_pushes, heap_pops, attempts_per_iteration, relaxations_per_iteration): with
    `count_relaxations` the arrays hold one entry per settled vertex (its arcs examined, its improvements),
    else they are empty.
    """
    n = len(row_offsets) - 1
    capacity = max(16, n)  # grows by doubling: lazy deletion can hold up to m + 1 entries, usually far fewer
    keys = np.empty(capacity, distances.dtype)
    vertices = np.empty(capacity, np.int32)
    size = 0
    settled = 0
    pushes = 0
    pops = 0
    attempts_per_iteration = np.zeros(n if count_relaxations else 0, np.int64)
    relaxations_per_iteration = np.zeros(n if count_relaxations else 0, np.int64)

    distances[source] = 0
    keys[0] = 0
    vertices[0] = source
    size = 1
    pushes = 1
    while size > 0:
        key = keys[0]
        u = vertices[0]
        size -= 1
        pops += 1
        if size > 0:
            keys[0] = keys[size]
            vertices[0] = vertices[size]
            _sift_down(keys, vertices, size)
        if key > distances[u]:
            continue  # stale: u was settled with a smaller key already
        iteration = settled
        settled += 1
        for arc in range(row_offsets[u], row_offsets[u + 1]):
            v = column_ids[arc]
            candidate = key + (1 if unit_weights else weights[arc])
            if count_relaxations:
                attempts_per_iteration[iteration] += 1
            if candidate < distances[v]:
                distances[v] = candidate
                if count_relaxations:
                    relaxations_per_iteration[iteration] += 1
                if size == capacity:
                    capacity *= 2
                    grown_keys = np.empty(capacity, keys.dtype)
                    grown_vertices = np.empty(capacity, np.int32)
                    grown_keys[:size] = keys[:size]
                    grown_vertices[:size] = vertices[:size]
                    keys = grown_keys
                    vertices = grown_vertices
                keys[size] = candidate
                vertices[size] = v
                _sift_up(keys, vertices, size)
                size += 1
                pushes += 1
    if count_relaxations:
        return settled, pushes, pops, attempts_per_iteration[:settled], relaxations_per_iteration[:settled]
    return settled, pushes, pops, attempts_per_iteration, relaxations_per_iteration


def _run_dijkstra(arrays: KernelArrays, source: int, count_relaxations: bool):
    distances, unreached = arrays.new_distances()
    counts = dijkstra_kernel(
        arrays.row_offsets, arrays.column_ids, arrays.weights, arrays.unit_weights, np.int64(source), distances,
        bool(count_relaxations),
    )
    return distances, unreached, counts


class CpuDijkstra(Implementation):
    name = "cpu-dijkstra"
    kind = "sssp"
    device = "cpu"
    description = (
        "Sequential Dijkstra, lazy-deletion binary heap (numba): the papers' Boost/STL Dijkstra CPU baseline "
        "(H-BF Table 2, course project section 5). Non-negative weights only."
    )
    negative_weights = False
    parameters = {
        "count_relaxations": Parameter(
            bool, False,
            "count relax attempts (arcs examined) and relaxations (distance improvements), in total and per settled "
            "vertex (H-BF Figure 9); off when timing"
        ),
    }

    def prepare(self, graph: CSRGraph) -> None:
        if graph.has_negative_weights():
            raise UnsupportedGraphError(
                f"{self.name} needs non-negative weights, but {graph.name or 'the graph'} has a negative weight "
                f"(min {graph.weights.min()}); use cpu-bf-queue or cpu-bf"
            )
        self.graph = graph
        self.arrays = kernel_arrays(graph)
        _run_dijkstra(tiny_graph_like(self.arrays), 0, self.params["count_relaxations"])  # compile outside timing

    def solve(self, source: int) -> SolveResult:
        source = check_source(self.graph, source)
        distances, unreached, counts = _run_dijkstra(self.arrays, source, self.params["count_relaxations"])
        settled, pushes, pops, attempts, relaxations = counts
        counters = {
            "iterations": int(settled), "settled": int(settled), "heap_pushes": int(pushes), "heap_pops": int(pops),
        }
        if self.params["count_relaxations"]:
            counters.update(relax_counters(attempts, relaxations))
        return SolveResult(distances, unreached, counters)

    def teardown(self) -> None:
        self.arrays = None
        self.graph = None
