"""pardijkstra on a GPU (marker `gpu`): against the CPU reference and the certificate on the shared battery and on the
paper's graph classes (dag, complete, fixed-degree), with d = 1, 2, 7 and the default (the maximum out-degree),
warps_per_block 1, 8 and 32, settled_check off on the paper's DAG and on graphs with cycles (the re-extractions are
dropped, so the distances stay right and `stale_extractions` counts them), the counters against the bucket-heap
model, resolve0_ns, count_relaxations, several solves on one preparation, and the refusals.

tests/test_gpu_impls.py also runs it at its defaults on its battery (every registered GPU implementation).
Skipped without CuPy (module-level importorskip) and without a usable GPU (gpu_battery's autouse fixture).
"""

from __future__ import annotations

import numpy as np
import pytest

cupy = pytest.importorskip("cupy")

from sssp_bench import impls  # noqa: E402
from sssp_bench.errors import UnsupportedGraphError  # noqa: E402
from sssp_bench.gpu import runtime  # noqa: E402
from sssp_bench.graph.generators import generate  # noqa: E402
from sssp_bench.graph.weights import apply_weights  # noqa: E402
from sssp_bench.kernels.bucket_heap import default_d, par_dijkstra_model  # noqa: E402

from gpu_battery import (  # noqa: E402, F401
    GENERATED, NEGATIVE, assert_matches_reference, assert_relax_counters, gpu_device, solve_each, some_sources,
)

pytestmark = pytest.mark.gpu

NAME = "pardijkstra"

PAPER_GRAPHS = [
    "dag:n=2000,degree=64,seed=1",                     # Figure 5's class (D = V)
    "complete:n=300,seed=2",                           # Figure 6's class (D = V)
    "complete:n=200,chain_shortest=false,seed=3",
    "fixed-degree:n=3000,degree=7,seed=4",
]


def check(graph, sources, **params):
    results = solve_each(impls.get(NAME)(**params), graph, sources)
    assert_matches_reference(f"{NAME} {params}", graph, results)
    return results


@pytest.mark.parametrize("spec", GENERATED)
def test_the_battery_with_the_default_and_small_d(spec):
    graph = generate(spec)
    check(graph, some_sources(graph, 3))
    check(graph, some_sources(graph, 2), d=2)


@pytest.mark.parametrize("d", [1, 2, 7, 0])
@pytest.mark.parametrize("spec", PAPER_GRAPHS)
def test_the_papers_graph_classes_with_every_d(spec, d):
    graph = generate(spec)
    if d == 1 and graph.m > 50_000:
        graph = generate(spec.replace("n=2000", "n=500").replace("n=300", "n=120"))  # d = 1: a Resolve(0) per arc
    results = check(graph, some_sources(graph, 2), d=d)
    for _, _, counters, _ in results:
        assert counters["d"] == (d or default_d(graph))
        assert counters["stale_extractions"] == 0  # with the settled check a DEL always catches the stale copies


@pytest.mark.parametrize("warps", [1, 8, 32])
@pytest.mark.parametrize("spec", ["rmat:n=4096,m=65536,seed=3", "dag:n=1500,degree=8,seed=8",
                                  "grid:rows=40,cols=50,seed=5"])
def test_warps_per_block(spec, warps):
    graph = generate(spec)
    check(graph, some_sources(graph, 2), warps_per_block=warps)
    check(graph, some_sources(graph, 1), warps_per_block=warps, d=3)


def test_without_the_settled_check_the_papers_dag_needs_no_extra_extraction():
    # section 4.3: on its DAG from the first vertex (every shortest path follows the chain, so vertices settle in
    # topological order) no update ever targets a settled vertex
    graph = generate("dag:n=3000,degree=32,seed=5")
    (_, _, counters, _), = check(graph, [0], settled_check=False)
    assert counters["stale_extractions"] == 0 and counters["iterations"] == graph.n


@pytest.mark.parametrize("spec", ["random:n=3000,m=24000,seed=4", "complete:n=200,chain_shortest=false,seed=3",
                                  "grid:rows=40,cols=50,seed=5", "dag:n=1500,degree=8,seed=8"])
def test_without_the_settled_check_on_other_graphs_the_distances_stay_right(spec):
    # updates of settled vertices enter the heap on graphs with cycles (not on the paper's DAG, whatever the source); their
    # re-extractions are dropped by the one settled read per extraction: right distances, more rounds
    graph = generate(spec)
    sources = some_sources(graph, 2)
    results = check(graph, sources, settled_check=False)
    checked = check(graph, sources)
    for (_, _, unchecked_counters, _), (_, _, checked_counters, _) in zip(results, checked):
        assert unchecked_counters["iterations"] == checked_counters["iterations"] + unchecked_counters[
            "stale_extractions"]
    if not spec.startswith("dag"):
        assert any(counters["stale_extractions"] > 0 for _, _, counters, _ in results)


@pytest.mark.parametrize("d, settled_check", [(0, True), (1, True), (3, False)])
@pytest.mark.parametrize("spec", ["random:n=300,m=2400,seed=2", "grid:rows=15,cols=20,seed=5",
                                  "complete:n=64,chain_shortest=false,seed=3"])
def test_counters_equal_the_models(spec, d, settled_check):
    # keys (priority, value) make every Resolve deterministic: the kernel's run is the model's, whatever the timing
    graph = generate(spec)
    for source, _, counters, _ in check(graph, [0, graph.n // 2], d=d, settled_check=settled_check):
        model = par_dijkstra_model(graph, source, d, settled_check)
        assert counters["iterations"] == model.iterations
        assert counters["stale_extractions"] == model.stale_extractions
        assert counters["bulk_updates"] == model.bulk_updates
        assert counters["empty_ops"] == model.empty_ops == 0
        assert counters["resolves_per_level"] == model.resolves_per_level
        assert counters["levels"] == model.levels and counters["d"] == model.d


def test_resolve0_ns_is_reported_for_every_d():
    # Figure 3's counter: the mean device time of a Resolve(0) (its trend against d is the benchmark's to show,
    # experiments/parbucketheap/pbh-fig3-resolve.yaml, not a test's)
    graph = generate("dag:n=2000,degree=256,seed=6")
    for d in (16, 256):
        (_, _, counters, _), = check(graph, [0], d=d)
        assert counters["resolve0_ns"] > 0 and counters["d"] == d


def test_count_relaxations_and_many_solves_on_one_preparation():
    graph = generate("rmat:n=2048,m=16384,seed=16")
    implementation = impls.get(NAME)(count_relaxations=True)
    implementation.prepare(graph)
    try:
        for source in some_sources(graph, 4):
            result = implementation.solve(source)
            counters = assert_relax_counters(result)
            assert counters["relax_attempts"] == int(
                np.diff(graph.row_offsets)[np.isfinite(pardijkstra_distances(result))].sum())
    finally:
        implementation.teardown()


def pardijkstra_distances(result):
    distances = result.distances.get().astype(np.float64)
    distances[result.distances.get() == runtime.DIST_INF] = np.inf
    return distances


def test_unweighted_and_unsorted_rows():
    graph = generate("kron:scale=11,edgefactor=8,seed=9")  # rows not sorted by column: prepare sorts a copy
    check(graph.with_weights(None), some_sources(graph, 2))
    check(graph, some_sources(graph, 2))


def test_refusals():
    graph = apply_weights(generate("grid:rows=10,cols=10,seed=1"), NEGATIVE)
    with pytest.raises(UnsupportedGraphError, match="non-negative weights"):
        impls.get(NAME)().prepare(graph)
    floats = generate("grid:rows=10,cols=10,seed=1")
    floats = floats.with_weights(floats.weights.astype(np.float32))
    with pytest.raises(UnsupportedGraphError, match="float32"):
        impls.get(NAME)().prepare(floats)


def test_a_heap_that_does_not_fit_is_refused_in_one_line(monkeypatch):
    graph = generate("rmat:n=1024,m=8192,seed=17")
    runtime.release_device_graphs()
    monkeypatch.setattr(runtime, "free_device_bytes", lambda: (1 << 20, 80 << 30))
    with pytest.raises(runtime.DeviceMemoryError, match="bucket heap of .* levels") as caught:
        impls.get(NAME)().prepare(graph)
    assert "\n" not in str(caught.value)
