"""What the papers' Table 1 lists about a graph, computed from its CSR.

directed, V, E (arcs; an undirected edge is two arcs), average out-degree, its standard deviation, maximum and
mode, an approximate diameter, self-loops, parallel arcs, the weight range, and the out-degree distribution
(for the log-log plot). Everything is one or two passes over the arcs; nothing allocates m entries.

The diameter is a lower bound by double-sweep BFS, in hops: a BFS from the vertex of highest out-degree, a
second BFS from the farthest vertex it reached, the larger eccentricity of the two. On undirected graphs and
road networks it is usually the exact diameter or close to it; on directed graphs it follows the arcs'
direction and can be smaller than a published undirected diameter.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numba
import numpy as np

from .csr import CSRGraph, characteristics
from ..kernels.bfs import bfs_levels


@numba.njit(cache=True)
def _self_loops_and_parallel_arcs(row_offsets, column_ids):
    """(self-loops, parallel arcs) where a parallel arc is any arc beyond the first between the same (u, v)."""
    self_loops = 0
    parallel = 0
    n = len(row_offsets) - 1
    scratch = np.empty(0, dtype=column_ids.dtype)
    for vertex in range(n):
        start, end = row_offsets[vertex], row_offsets[vertex + 1]
        degree = end - start
        if degree == 0:
            continue
        if len(scratch) < degree:
            scratch = np.empty(degree, dtype=column_ids.dtype)
        row = scratch[:degree]
        row[:] = column_ids[start:end]
        row.sort()
        for index in range(degree):
            if row[index] == vertex:
                self_loops += 1
            if index > 0 and row[index] == row[index - 1]:
                parallel += 1
    return self_loops, parallel


def approximate_diameter(graph: CSRGraph) -> int:
    """A lower bound on the hop diameter by double-sweep BFS (see the module docstring)."""
    if graph.n == 0 or graph.m == 0:
        return 0
    start = int(np.argmax(graph.out_degrees()))
    first = bfs_levels(graph, start)
    farthest = int(np.argmax(first))
    second = bfs_levels(graph, farthest)
    return int(max(first.max(), second.max()))  # unreached vertices are -1, below every level


def describe(graph: CSRGraph, diameter: bool = True) -> dict[str, Any]:
    """Table 1 facts: `characteristics` plus degree mode, self-loops, parallel arcs and the diameter."""
    facts = characteristics(graph)
    degrees = graph.out_degrees()
    if graph.n:
        facts["out_degree_mode"] = int(np.argmax(np.bincount(degrees)))
    row_offsets = np.ascontiguousarray(graph.row_offsets, dtype=np.int64)
    column_ids = np.ascontiguousarray(graph.column_ids, dtype=np.int32)
    facts["self_loops"], facts["parallel_arcs"] = (int(x) for x in _self_loops_and_parallel_arcs(row_offsets, column_ids))
    if diameter:
        facts["approx_diameter"] = approximate_diameter(graph)
    return facts


def degree_distribution(graph: CSRGraph) -> tuple[np.ndarray, np.ndarray]:
    """(degree, number of vertices with that out-degree) for every degree that occurs, degree 0 included."""
    counts = np.bincount(graph.out_degrees())
    present = np.flatnonzero(counts)
    return present, counts[present]


def plot_degree_distribution(graph: CSRGraph, path: Path) -> Path:
    """A log-log plot of the out-degree distribution, as the H-BF paper's Table 1 draws it."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    degrees, counts = degree_distribution(graph)
    positive = degrees > 0
    figure, axes = plt.subplots(figsize=(4.5, 3.2), dpi=120)
    axes.loglog(degrees[positive], counts[positive], ".", markersize=3)
    axes.set_xlabel("out-degree")
    axes.set_ylabel("vertices")
    axes.set_title(f"{graph.name}: out-degree distribution", fontsize=9)
    axes.grid(True, which="major", alpha=0.3)
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path)
    plt.close(figure)
    return path
