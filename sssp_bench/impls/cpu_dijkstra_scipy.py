"""`cpu-dijkstra-scipy`: scipy.sparse.csgraph.dijkstra behind the implementation interface, the compiled Dijkstra
(Cython, a Fibonacci heap, one core) a reviewer would reach for first, so that cpu-dijkstra is timed against it in
the same run, on the same graphs and sources (issue 36 holds cpu-dijkstra to within 1.2x of it).

prepare builds the matrix scipy reads (run/verify.py's `scipy_matrix`, the reference's own: parallel arcs reduced
to their lightest copy, zero-weight arcs kept, self-loops dropped), so a solve times what a scipy user's call costs:
scipy's input checks and one search, `dijkstra(matrix, indices=source)`. Distances float64, inf where unreached, as
scipy returns them (exact for integer weights: path sums below 2^53). Non-negative weights only. No counters:
scipy reports none.
"""

from __future__ import annotations

from ..graph.csr import CSRGraph
from ..kernels.arrays import check_source
from .base import Implementation, SolveResult


class CpuDijkstraScipy(Implementation):
    name = "cpu-dijkstra-scipy"
    kind = "sssp"
    device = "cpu"
    description = (
        "scipy.sparse.csgraph.dijkstra (Cython, Fibonacci heap, one core) on the graph's CSR matrix: the compiled "
        "Dijkstra that cpu-dijkstra is held to (issue 36). Non-negative weights only."
    )
    negative_weights = False
    parameters = {}

    def prepare(self, graph: CSRGraph) -> None:
        from ..run.verify import scipy_matrix  # scipy is imported when a graph is prepared, not with the registry

        self.refuse_negative_weights(graph)
        self.graph = graph
        self.matrix = scipy_matrix(graph)

    def solve(self, source: int) -> SolveResult:
        from scipy.sparse.csgraph import dijkstra

        source = check_source(self.graph, source)
        return SolveResult(dijkstra(self.matrix, directed=True, indices=source))

    def teardown(self) -> None:
        self.matrix = None
        self.graph = None
