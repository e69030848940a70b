"""The seeded source picker every implementation shares (GAP's SourcePicker, replayable by the verifier).

Sources are drawn from a seeded permutation of the vertices, skipping vertices with no out-arcs and keeping
only those that reach at least `min_reached` vertices (the H-BF paper used 10^5; the default is
min(10^5, 10% of V)). The list is cached per graph and seed beside the graph file, so every implementation,
every run and the verifier see the same sources.
"""

from __future__ import annotations

import json
from pathlib import Path

import numba
import numpy as np

from .csr import CSRGraph
from ..jsonfile import write_json_atomic

PAPER_MIN_REACHED = 100_000


def default_min_reached(n: int) -> int:
    return max(1, min(PAPER_MIN_REACHED, n // 10))


@numba.njit(cache=True)
def _reaches_at_least(row_offsets, column_ids, source, threshold, visited, queue):
    """BFS from `source` that stops as soon as `threshold` vertices are reached.

    `visited` is all-False on entry and is restored to all-False on exit, so one buffer serves every candidate
    and a rejected candidate costs only the part of the graph it reaches.
    """
    visited[source] = True
    queue[0] = source
    head, tail = 0, 1
    while head < tail and tail < threshold:
        vertex = queue[head]
        head += 1
        for arc in range(row_offsets[vertex], row_offsets[vertex + 1]):
            target = column_ids[arc]
            if not visited[target]:
                visited[target] = True
                queue[tail] = target
                tail += 1
                if tail >= threshold:
                    break
    for index in range(tail):
        visited[queue[index]] = False
    return tail >= threshold


def pick_sources(graph: CSRGraph, count: int = 100, seed: int = 1, min_reached: int | None = None) -> list[int]:
    """Up to `count` distinct sources, in the order drawn; fewer only when fewer vertices qualify."""
    if min_reached is None:
        min_reached = default_min_reached(graph.n)
    min_reached = min(min_reached, graph.n)
    degrees = graph.out_degrees()
    candidates = np.random.default_rng(seed).permutation(graph.n).astype(np.int64)
    candidates = candidates[degrees[candidates] > 0]
    row_offsets = np.asarray(graph.row_offsets)
    column_ids = np.asarray(graph.column_ids)
    visited = np.zeros(graph.n, dtype=np.bool_)
    queue = np.empty(graph.n, dtype=np.int32)
    chosen: list[int] = []
    for candidate in candidates:
        if _reaches_at_least(row_offsets, column_ids, candidate, min_reached, visited, queue):
            chosen.append(int(candidate))
            if len(chosen) == count:
                break
    return chosen


def cached_sources(
    graph: CSRGraph, cache_path: Path | None, count: int, seed: int, min_reached: int | None
) -> list[int]:
    """`pick_sources`, cached in a JSON file keyed by everything that decides the list."""
    resolved_min = default_min_reached(graph.n) if min_reached is None else min_reached
    key = {"count": count, "seed": seed, "min_reached": resolved_min, "n": graph.n, "m": graph.m}
    if cache_path is not None and cache_path.exists():
        try:
            cached = json.loads(cache_path.read_text())
            if cached.get("key") == key:
                return [int(source) for source in cached["sources"]]
        except (json.JSONDecodeError, KeyError, TypeError):
            pass  # a damaged cache is recomputed, never trusted
    sources = pick_sources(graph, count, seed, resolved_min)
    if cache_path is not None:
        cache_path.parent.mkdir(parents=True, exist_ok=True)
        write_json_atomic(cache_path, {"key": key, "sources": sources}, indent=None)
    return sources


def sources_cache_path(graph_path: Path, count: int, seed: int, min_reached: int | None) -> Path:
    reached = "auto" if min_reached is None else str(min_reached)
    return graph_path.with_name(f"{graph_path.name}.sources-c{count}-s{seed}-r{reached}.json")
