"""Sequential Bellman-Ford, two ways: the queue-based one (SPFA) and the textbook one over all arcs.

Both solve single-source shortest paths with negative weights, and both stop with `NegativeCycleError` when a
negative cycle is reachable from the source (one that is not reachable does not matter: its vertices stay
unreached).

`cpu-bf-queue` is the queue-based Bellman-Ford of Sedgewick and Wayne (also called SPFA, Bellman-Ford-Moore):
a FIFO queue holds the vertices whose distance changed, with an in-queue flag so a vertex is queued at most
once at a time; popping a vertex relaxes its out-arcs. It is H-BF's "Bellman-Ford queue-based sequential"
(hbf-bellman-ford-kepler): the denominator of Figure 8's speedups, the first column of Table 2, the "Seq."
column of Table 3 (graphs with negative weights), and the queue-based line of Figure 9. For Figure 9 an
"iteration" here is one generation of the queue: the vertices queued while the previous generation was being
processed, i.e. the sequential analogue of H-BF's frontier F1 -> F2 step.
Negative cycles: every distance a vertex gets is the length of a walk from the source, and the walk's arc count
is kept beside it (path_arcs[v] = path_arcs[u] + 1). If that count reaches n the walk repeats a vertex x, whose
two visits are two successive distances of x, the later one strictly smaller; so the closed walk between them
has negative weight. Conversely a reachable negative cycle makes the counts grow without bound. So "count
reaches n" is an exact, early test.

`cpu-bf` is the textbook algorithm: up to n - 1 rounds, each relaxing every arc (in place, in CSR order), with
an early exit after a round that changes nothing; a change in an n-th round means a reachable negative cycle.
It is the course project's "sequential baseline version" (course-bellman-ford-delta-stepping, section 3.1: the
denominator of the edge-parallel and frontier-parallel speedups of section 4) and H-BF's "Bellman-Ford
queue-less sequential implementation" of Figure 9. The course project scans an edge list in input order; CSR
order (arcs grouped by source) is the same algorithm and the same number of rounds in the worst case.
Arcs out of a vertex that is still unreached are skipped (their relax could not succeed).

Counters: always `iterations` (rounds or queue generations); with `count_relaxations`, `relax_attempts` (arcs
examined out of reached vertices), `relaxations` (successful relaxes: distance improvements), and both per
iteration (`relax_attempts_per_iteration`, `relaxations_per_iteration`) for Figure 9.
"""

from __future__ import annotations

from ..graph.csr import CSRGraph
from ..kernels.arrays import KernelArrays, check_source, kernel_arrays, relax_counters, tiny_graph_like
from ..kernels.bellman_ford import run_spfa, run_textbook_bellman_ford
from .base import Implementation, Parameter, SolveResult


class _BellmanFordBase(Implementation):
    kind = "sssp"
    device = "cpu"
    negative_weights = True
    parameters = {
        "count_relaxations": Parameter(
            bool, False,
            "count relax attempts and relaxations (distance improvements), in total and per iteration; off when timing",
        ),
    }

    def _run(self, arrays: KernelArrays, source: int):
        raise NotImplementedError

    def prepare(self, graph: CSRGraph) -> None:
        self.graph = graph
        self.arrays = kernel_arrays(graph)
        self._run(tiny_graph_like(self.arrays), 0)  # compile (or load numba's cache) outside the timed solve

    def solve(self, source: int) -> SolveResult:
        source = check_source(self.graph, source)
        distances, unreached, (_, iterations, pushes, attempts, relaxations) = self._run(self.arrays, source)
        counters = {"iterations": int(iterations)}
        if pushes:
            counters["queue_pushes"] = int(pushes)
        if self.params["count_relaxations"]:
            counters.update(relax_counters(attempts, relaxations))
        return SolveResult(distances, unreached, counters)

    def teardown(self) -> None:
        self.arrays = None
        self.graph = None


class CpuBellmanFordQueue(_BellmanFordBase):
    name = "cpu-bf-queue"
    description = (
        "Queue-based sequential Bellman-Ford (SPFA: FIFO queue + in-queue flag, numba): H-BF's 'Bellman-Ford "
        "queue-based sequential', the denominator of its Figure 8 and Tables 2-3. Negative weights OK."
    )

    def _run(self, arrays: KernelArrays, source: int):
        return run_spfa(arrays, source, self.params["count_relaxations"])


class CpuBellmanFord(_BellmanFordBase):
    name = "cpu-bf"
    description = (
        "Textbook sequential Bellman-Ford: up to n-1 in-place rounds over all arcs with early exit (numba): the "
        "course project's sequential baseline and H-BF Figure 9's queue-less Bellman-Ford. Negative weights OK."
    )

    def _run(self, arrays: KernelArrays, source: int):
        return run_textbook_bellman_ford(arrays, source, self.params["count_relaxations"])
