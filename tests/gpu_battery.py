"""What the GPU test modules share: the device fixture, the battery's generated graphs and sources, and the
check of solutions against the CPU reference and the certificate.

A GPU test module imports `gpu_device` (an autouse, module-scoped fixture: it skips the module without a usable
GPU and pins kernel faults on their launch) and uses `solve_each` / `assert_matches_reference` /
`assert_relax_counters`.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

from sssp_bench.graph.csr import CSRGraph, from_arcs
from sssp_bench.errors import NegativeCycleError
from sssp_bench.gpu import runtime
from sssp_bench.impls import canonical_distances
from sssp_bench.run.verify import certificate, compare, reference_distances

GENERATED = [
    "rmat:n=4096,m=65536,seed=3",
    "random:n=3000,m=24000,seed=4",
    "grid:rows=40,cols=50,seed=5",
    "chain:n=700,seed=6",
    "star:n=2000,seed=7",
    "dag:n=1500,degree=8,seed=8",
    "kron:scale=11,edgefactor=8,seed=9",
    "road:n=5000,seed=10",
]
"""One small graph of every generated class the battery covers."""

NEGATIVE = "negative:min=1,max=100,potential=50,seed=1"
"""Negative weights without a negative cycle (potentials), for the Bellman-Ford variants."""


@pytest.fixture(scope="module", autouse=True)
def gpu_device():
    cupy = pytest.importorskip("cupy")
    ok, why = runtime.gpu_status()
    if not ok:
        pytest.skip(f"no usable GPU: {why}")
    if cupy.cuda.runtime.getDeviceCount() < 1:
        pytest.skip("CuPy sees no CUDA device")
    os.environ[runtime.SYNC_CHECK_ENV] = "1"  # pin any kernel fault on its launch in these tests
    yield
    os.environ.pop(runtime.SYNC_CHECK_ENV, None)
    runtime.release_device_graphs()


def heavy_star(n: int = 2**20) -> CSRGraph:
    """Vertex 0 joined to every other vertex, and those in a ring, every arc weighing 2^31 - 1: each vertex has a
    heavy out-arc, so a simple path may weigh (n - 1) x (2^31 - 1), 51 bits for a million vertices; yet every
    shortest path is one spoke, and a solve takes a few rounds."""
    leaves = np.arange(1, n, dtype=np.int64)
    tails = np.concatenate([np.zeros(n - 1, np.int64), leaves])
    heads = np.concatenate([leaves, leaves % (n - 1) + 1])
    return from_arcs(n, tails, heads, np.full(tails.size, 2**31 - 1, np.int32), name="heavy-star")


def some_sources(graph: CSRGraph, count: int = 3) -> list[int]:
    """The first, last and middle vertex and the one of highest out-degree (distinct), at most `count`."""
    degrees = graph.out_degrees()
    picks = [0, graph.n - 1, graph.n // 2, int(np.argmax(degrees))]
    return list(dict.fromkeys(picks))[: max(count, 1)]


def solve_each(implementation, graph: CSRGraph, sources) -> list[tuple]:
    """[(source, canonical result or None, counters, NegativeCycleError or None)]: `implementation` prepared on
    `graph`, solved from each source (each result copied before the next solve overwrites it), torn down."""
    implementation.prepare(graph)
    results = []
    try:
        for source in sources:
            try:
                result = implementation.solve(source)
                results.append((source, canonical_distances(result), result.counters, None))
            except NegativeCycleError as error:
                results.append((source, None, {}, error))
    finally:
        implementation.teardown()
    return results


def assert_matches_reference(what: str, graph: CSRGraph, results, kind: str = "sssp") -> None:
    """Every solution of `results` (from solve_each) equals the CPU reference and passes the certificate."""
    for source, solution, _, error in results:
        assert error is None, f"{what} on {graph.name} from {source}: {error}"
        compared = compare(reference_distances(graph, source, kind=kind), solution)
        assert compared.ok, f"{what} on {graph.name} from {source}: {compared.message}"
        proof = certificate(graph, source, solution, kind=kind)
        assert proof.ok, f"{what} on {graph.name} from {source}: {proof.message}"


def assert_relax_counters(result) -> dict:
    """The relax counters of a counted solve add up; returns them for further checks."""
    counters = result.counters
    reached = int(np.isfinite(canonical_distances(result)).sum())
    assert counters["iterations"] >= 1
    assert counters["relaxations"] >= reached - 1  # every reached vertex but the source improved at least once
    assert counters["relax_attempts"] >= counters["relaxations"]
    assert sum(counters["relaxations_per_iteration"]) == counters["relaxations"]
    assert len(counters["relax_attempts_per_iteration"]) == counters["iterations"]
    return counters
