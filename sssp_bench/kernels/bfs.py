"""Sequential queue BFS (numba): the kernel of cpu-bfs (impls/cpu_bfs.py says what it is), and the BFS that
graph descriptions (the double-sweep diameter) and the roofline (hop depths) use."""

from __future__ import annotations

import numba
import numpy as np

from ..graph.csr import CSRGraph
from .arrays import check_source


BFS_UNREACHED = -1


@numba.njit(cache=True)
def bfs_kernel(row_offsets, column_ids, source, levels):
    """Fill `levels` (pre-set to -1) from `source`; returns (visited, arcs_examined, frontier_sizes)."""
    n = len(row_offsets) - 1
    queue = np.empty(n, np.int32)
    frontier_sizes = np.zeros(16, np.int64)
    levels[source] = 0
    queue[0] = source
    head = 0
    tail = 1
    arcs_examined = 0
    while head < tail:
        u = queue[head]
        head += 1
        level_u = levels[u]
        if level_u == len(frontier_sizes):  # levels grow one at a time, so one doubling suffices
            grown = np.zeros(2 * len(frontier_sizes), np.int64)
            grown[: len(frontier_sizes)] = frontier_sizes
            frontier_sizes = grown
        frontier_sizes[level_u] += 1
        start = row_offsets[u]
        end = row_offsets[u + 1]
        arcs_examined += end - start
        for arc in range(start, end):
            v = column_ids[arc]
            if levels[v] < 0:
                levels[v] = level_u + 1
                queue[tail] = v
                tail += 1
    depth = levels[queue[tail - 1]] + 1  # the last vertex discovered is on the deepest level
    return tail, arcs_examined, frontier_sizes[:depth]


@numba.njit(parallel=True, cache=True)
def bfs_depths_kernel(row_offsets, column_ids, sources, depths, reached_vertices, reached_arcs):
    """bfs_kernel from each source, the sources spread over the cores: each source's deepest level, the vertices
    it reaches and the arcs leaving them (what the roofline needs, without keeping a levels array per source)."""
    n = len(row_offsets) - 1
    for index in numba.prange(len(sources)):
        levels = np.full(n, BFS_UNREACHED, np.int32)
        visited, arcs, frontier_sizes = bfs_kernel(row_offsets, column_ids, sources[index], levels)
        depths[index] = len(frontier_sizes) - 1
        reached_vertices[index] = visited
        reached_arcs[index] = arcs


def bfs_depths(graph: CSRGraph, sources) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(depth, reached vertices, arcs out of them) per source, as int64 arrays; the BFS of many sources in
    parallel (a 4M-vertex graph's 100 sources took 113 s one at a time on the device's host)."""
    row_offsets = np.ascontiguousarray(graph.row_offsets, dtype=np.int64)
    column_ids = np.ascontiguousarray(graph.column_ids, dtype=np.int32)
    checked = np.array([check_source(graph, int(source)) for source in sources], dtype=np.int64)
    depths = np.zeros(len(checked), np.int64)
    reached_vertices = np.zeros(len(checked), np.int64)
    reached_arcs = np.zeros(len(checked), np.int64)
    bfs_depths_kernel(row_offsets, column_ids, checked, depths, reached_vertices, reached_arcs)
    return depths, reached_vertices, reached_arcs


def bfs_levels(graph: CSRGraph, source: int) -> np.ndarray:
    """int32 BFS levels from `source`, -1 where unreached."""
    row_offsets = np.ascontiguousarray(graph.row_offsets, dtype=np.int64)
    column_ids = np.ascontiguousarray(graph.column_ids, dtype=np.int32)
    levels = np.full(graph.n, BFS_UNREACHED, dtype=np.int32)
    bfs_kernel(row_offsets, column_ids, np.int64(check_source(graph, source)), levels)
    return levels
