"""Small hand-made graphs with known answers, shared by the baseline and verification tests; and the session's own
dataset cache.

Each `KnownGraph` is a graph, a source and the distances from it worked out by hand (np.inf = unreachable).
Built with `sssp_bench.csr.from_arcs` only, so these tests do not depend on the generators.

The tests never write into the checkout's datasets/ (nor wherever the shell's $SSSP_BENCH_DATASETS points): a test
through the runner gives its config tmp_path/datasets (runs.make_config), and `session_datasets` points
$SSSP_BENCH_DATASETS, which every command's --datasets defaults to, at a folder of pytest's own for the session, so
a command a test starts without --datasets (a make target, `sssp-bench run` in a subprocess) caches its graphs there.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np
import pytest
from hypothesis import settings

# CI explores the same examples every run, so a red CI can be reproduced; locally each run explores new ones.
settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")

from sssp_bench.graph.csr import CSRGraph, from_arcs

INF = np.inf

DATASETS_VARIABLE = "SSSP_BENCH_DATASETS"  # the --datasets option's environment variable (sssp_bench.cli)


@pytest.fixture(scope="session", autouse=True)
def session_datasets(tmp_path_factory):
    """The dataset cache of every command the session's tests start without --datasets, under pytest's tmp folder."""
    folder = tmp_path_factory.mktemp("datasets")
    before = os.environ.get(DATASETS_VARIABLE)
    os.environ[DATASETS_VARIABLE] = str(folder)
    yield folder
    if before is None:
        os.environ.pop(DATASETS_VARIABLE, None)
    else:
        os.environ[DATASETS_VARIABLE] = before


@dataclass(frozen=True)
class KnownGraph:
    graph: CSRGraph
    source: int
    expected: np.ndarray  # float64, np.inf where unreachable


def known(n, arcs, source, expected, weighted=True, directed=True, name="", float_weights=False) -> KnownGraph:
    """A KnownGraph from (u, v, w) triples (w ignored when not weighted)."""
    sources = [u for u, _, _ in arcs]
    targets = [v for _, v, _ in arcs]
    weights = None
    if weighted:
        weights = np.array([w for _, _, w in arcs], dtype=np.float32 if float_weights else np.int32)
    graph = from_arcs(n, sources, targets, weights, directed=directed, name=name)
    return KnownGraph(graph, source, np.array(expected, dtype=np.float64))


def diamond() -> KnownGraph:
    """Parallel arcs (0->2 weighs 1 and 3), a zero-weight self-loop at 3, a zero-weight arc 3->4, vertex 5 isolated
    and vertex 6 pointing into the graph but unreachable itself."""
    arcs = [(0, 1, 4), (0, 2, 3), (0, 2, 1), (2, 1, 2), (1, 3, 1), (2, 3, 5), (3, 3, 0), (3, 4, 0), (6, 0, 1)]
    return known(7, arcs, 0, [0, 3, 1, 4, 4, INF, INF], name="diamond")


def single_vertex() -> KnownGraph:
    return known(1, [], 0, [0], name="single-vertex")


def zero_weight_cycle() -> KnownGraph:
    """A reachable zero-weight cycle 1 -> 2 -> 1 and an unreachable vertex 4 with a zero-weight self-loop."""
    arcs = [(0, 1, 0), (1, 2, 0), (2, 1, 0), (2, 3, 2), (4, 4, 0), (4, 3, 0)]
    return known(5, arcs, 0, [0, 0, 0, 2, INF], name="zero-weight-cycle")


def negative_dag() -> KnownGraph:
    arcs = [(0, 1, 2), (0, 2, 5), (1, 2, -4), (2, 3, 1), (1, 3, 3)]
    return known(4, arcs, 0, [0, 2, -2, -1], name="negative-dag")


def reachable_negative_cycle() -> KnownGraph:
    """1 -> 2 -> 1 weighs -1 and the source reaches it; there are no distances (expected is meaningless)."""
    arcs = [(0, 1, 1), (1, 2, -2), (2, 1, 1), (2, 3, 1)]
    return known(4, arcs, 0, [0, -INF, -INF, -INF], name="reachable-negative-cycle")


def unreachable_negative_cycle() -> KnownGraph:
    """2 -> 3 -> 2 weighs -1, but the source 0 never gets there: the distances exist."""
    arcs = [(0, 1, 1), (2, 3, -2), (3, 2, 1), (3, 1, -5)]
    return known(4, arcs, 0, [0, 1, INF, INF], name="unreachable-negative-cycle")


def unweighted_undirected() -> KnownGraph:
    """Expected = BFS levels: edges 0-1, 1-2, 2-3, 0-4, 4-3 and a separate component 5-6."""
    edges = [(0, 1, 0), (1, 2, 0), (2, 3, 0), (0, 4, 0), (4, 3, 0), (5, 6, 0)]
    return known(7, edges, 0, [0, 1, 2, 2, 1, INF, INF], weighted=False, directed=False, name="unweighted")


def float_weighted() -> KnownGraph:
    arcs = [(0, 1, 0.5), (1, 2, 0.25), (0, 2, 1.0), (2, 3, 0.1), (3, 0, 0.0)]
    w = np.float32
    expected = [0.0, float(w(0.5)), float(w(0.5)) + float(w(0.25)), float(w(0.5)) + float(w(0.25)) + float(w(0.1))]
    return known(4, arcs, 0, expected, float_weights=True, name="float-weighted")


NON_NEGATIVE_CASES = {
    "diamond": diamond,
    "single-vertex": single_vertex,
    "zero-weight-cycle": zero_weight_cycle,
    "unweighted": unweighted_undirected,
    "float-weighted": float_weighted,
}


@pytest.fixture(params=sorted(NON_NEGATIVE_CASES))
def non_negative_case(request) -> KnownGraph:
    """Each graph with non-negative weights and a known answer, in turn."""
    return NON_NEGATIVE_CASES[request.param]()


@pytest.fixture
def diamond_case() -> KnownGraph:
    return diamond()


@pytest.fixture
def zero_cycle_case() -> KnownGraph:
    return zero_weight_cycle()


@pytest.fixture
def negative_dag_case() -> KnownGraph:
    return negative_dag()


@pytest.fixture
def reachable_negative_cycle_case() -> KnownGraph:
    return reachable_negative_cycle()


@pytest.fixture
def unreachable_negative_cycle_case() -> KnownGraph:
    return unreachable_negative_cycle()


@pytest.fixture
def unweighted_case() -> KnownGraph:
    return unweighted_undirected()


@pytest.fixture
def float_case() -> KnownGraph:
    return float_weighted()
