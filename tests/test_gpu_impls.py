"""Every GPU implementation against the CPU reference and the certificate, on a GPU (marker `gpu`).

Skipped as a whole without CuPy (module-level importorskip) and without a usable CUDA device (the autouse
fixture). Run them on the device machine with `make gpu-test` (or `python -m pytest -m gpu -q`).

The real-file tests read USA-road-d.NY and wiki-Vote from SSSP_BENCH_REAL_DATASETS, `.carry/datasets` or
`../shared/datasets`, whichever holds them, and skip when none does.
"""

from __future__ import annotations

import gzip
import os
from pathlib import Path

import numpy as np
import pytest

cupy = pytest.importorskip("cupy")

from sssp_bench import impls  # noqa: E402
from sssp_bench.graph.csr import CSRGraph, from_arcs  # noqa: E402
from sssp_bench.errors import NegativeCycleError, UnsupportedGraphError  # noqa: E402
from sssp_bench.graph.generators import generate  # noqa: E402
from sssp_bench.gpu import runtime  # noqa: E402
from sssp_bench.impls import canonical_distances  # noqa: E402
from sssp_bench.impls.near_far import auto_delta, auto_far_buckets  # noqa: E402
from sssp_bench.run import roofline  # noqa: E402
from sssp_bench.run.verify import compare, reference_distances  # noqa: E402
from sssp_bench.graph.weights import apply_weights  # noqa: E402

from runs import make_config, run_rows, solves_all_ok
from gpu_battery import (  # noqa: E402, F401
    GENERATED, NEGATIVE, assert_matches_reference, assert_relax_counters, gpu_device, heavy_star, solve_each,
    some_sources,
)

pytestmark = pytest.mark.gpu

# Every registered GPU SSSP implementation, with its default parameters: a new one is checked here as soon as its
# module exists (hbf's parameter combinations have their own battery, test_gpu_hbf.py).
GPU_IMPLEMENTATIONS = [name for name, cls in impls.registry().items() if cls.device == "gpu" and cls.kind == "sssp"]
NEGATIVE_OK = [name for name in GPU_IMPLEMENTATIONS if impls.get(name).negative_weights]
QUEUE_IMPLEMENTATIONS = ["workfront", "near-far"]  # device-driven rounds, batched readbacks
REPO = Path(__file__).resolve().parents[1]


def solve_all(name: str, graph: CSRGraph, sources, **params):
    """[(source, canonical distances or None, the NegativeCycleError or None)] from one prepared implementation."""
    return [(source, distances, error)
            for source, distances, _, error in solve_each(impls.get(name)(**params), graph, sources)]


def check_against_reference(name: str, graph: CSRGraph, sources, **params):
    assert_matches_reference(name, graph, solve_each(impls.get(name)(**params), graph, sources))


@pytest.mark.parametrize("name", GPU_IMPLEMENTATIONS)
@pytest.mark.parametrize("spec", GENERATED)
def test_generated_graphs_match_the_reference(name, spec):
    graph = generate(spec)
    check_against_reference(name, graph, some_sources(graph, 4))


@pytest.mark.parametrize("name", NEGATIVE_OK)
@pytest.mark.parametrize("spec", ["rmat:n=2048,m=16384,seed=11", "grid:rows=30,cols=30,seed=12",
                                  "random:n=2000,m=12000,seed=13"])
def test_negative_weights_without_negative_cycles(name, spec):
    graph = apply_weights(generate(spec), NEGATIVE)
    assert graph.has_negative_weights()
    check_against_reference(name, graph, some_sources(graph, 3))


@pytest.mark.parametrize("name", GPU_IMPLEMENTATIONS)
def test_unweighted_and_unit_weights(name):
    graph = generate("rmat:n=1024,m=8192,seed=14")
    check_against_reference(name, graph.with_weights(None), some_sources(graph))
    check_against_reference(name, apply_weights(graph, "unit"), some_sources(graph))


@pytest.mark.parametrize("name", NEGATIVE_OK)
def test_a_reachable_negative_cycle_is_reported(name):
    # 1 -> 2 -> 1 weighs -2 and is reachable from 0; from 3 it is not, so 3's distances exist.
    graph = from_arcs(5, [0, 1, 2, 2, 3], [1, 2, 1, 3, 4], [5, -3, 1, 2, 7], name="negative-cycle")
    (_, _, error), = solve_all(name, graph, [0])
    assert isinstance(error, NegativeCycleError) and "negative cycle" in str(error)
    check_against_reference(name, graph, [3, 4])


@pytest.mark.parametrize("name", NEGATIVE_OK)
def test_a_negative_self_loop_and_a_long_negative_cycle(name):
    loop = from_arcs(3, [0, 1, 1], [1, 1, 2], [1, -1, 1], name="negative-self-loop")
    (_, _, error), = solve_all(name, loop, [0])
    assert isinstance(error, NegativeCycleError)
    ring_size = 300
    ring = from_arcs(ring_size, np.arange(ring_size), (np.arange(ring_size) + 1) % ring_size,
                     [-1] + [0] * (ring_size - 1), name="negative-ring")
    (_, _, error), = solve_all(name, ring, [5])
    assert isinstance(error, NegativeCycleError)


@pytest.mark.parametrize("name", GPU_IMPLEMENTATIONS)
def test_small_and_odd_graphs(name):
    one = from_arcs(1, [], [], np.zeros(0, np.int32), name="one-vertex")
    check_against_reference(name, one, [0])
    one_loop = from_arcs(1, [0], [0], [3], name="one-vertex-self-loop")
    check_against_reference(name, one_loop, [0])
    # parallel arcs (0->2 weighs 1 and 3), a zero-weight self-loop, zero-weight arcs, an isolated vertex and
    # one that points in but is unreachable (the tests' diamond)
    arcs = [(0, 1, 4), (0, 2, 3), (0, 2, 1), (2, 1, 2), (1, 3, 1), (2, 3, 5), (3, 3, 0), (3, 4, 0), (6, 0, 1)]
    diamond = from_arcs(7, *zip(*arcs), name="diamond")
    check_against_reference(name, diamond, [0, 6, 5])
    distances = solve_all(name, diamond, [0])[0][1]
    assert list(distances) == [0, 3, 1, 4, 4, np.inf, np.inf]
    zero_cycle = from_arcs(5, [0, 1, 2, 2, 4, 4], [1, 2, 1, 3, 4, 3], [0, 0, 0, 2, 0, 0], name="zero-cycle")
    check_against_reference(name, zero_cycle, [0, 4])


@pytest.mark.parametrize("name", GPU_IMPLEMENTATIONS)
def test_disconnected_graphs_and_a_source_without_out_arcs(name):
    # two chains that never meet, and a directed star: a leaf has no out-arcs
    halves = from_arcs(8, [0, 1, 2, 4, 5, 6], [1, 2, 3, 5, 6, 7], [1, 2, 3, 4, 5, 6], name="two-chains")
    check_against_reference(name, halves, [0, 4, 3])
    star = generate("star:n=500,directed=true,seed=2")
    check_against_reference(name, star, [0, 17])
    leaf = solve_all(name, star, [17])[0][1]
    assert leaf[17] == 0 and np.isinf(np.delete(leaf, 17)).all()
    sparse = generate("random:n=5000,m=3000,seed=15")  # many isolated vertices and small components
    check_against_reference(name, sparse, some_sources(sparse, 4))


@pytest.mark.parametrize("name", GPU_IMPLEMENTATIONS)
def test_counters_and_float_weights(name):
    graph = generate("rmat:n=2048,m=16384,seed=16")
    implementation = impls.get(name)(count_relaxations=True)
    implementation.prepare(graph)
    assert_relax_counters(implementation.solve(0))
    implementation.teardown()
    quiet = impls.get(name)()
    quiet.prepare(graph)
    assert "relaxations" not in quiet.solve(0).counters
    quiet.teardown()
    floats = graph.with_weights(graph.weights.astype(np.float32))
    with pytest.raises(UnsupportedGraphError, match="float32"):
        impls.get(name)().prepare(floats)


def test_the_device_graph_is_shared_and_released():
    graph = generate("grid:rows=20,cols=20,seed=1")
    first, second = impls.get("lonestar")(), impls.get("bf-frontier")()
    first.prepare(graph)
    second.prepare(graph)
    assert first.dgraph is second.dgraph
    first.teardown()
    second.teardown()
    runtime.release_device_graphs()
    third = impls.get("bf-edge")()
    third.prepare(graph)
    assert third.dgraph is not None and third.dgraph.host is graph
    third.teardown()


def test_modules_compile_once_per_device_for_its_architecture():
    path = REPO / "sssp_bench" / "impls" / "lonestar.cu"
    module = runtime.load_module(path)
    assert runtime.load_module(path) is module
    assert module.arch == "sm_" + str(cupy.cuda.Device().compute_capability)  # a cubin for this device, not PTX
    assert module.options[: len(runtime.COMPILE_OPTIONS)] == runtime.COMPILE_OPTIONS


def test_a_graph_that_does_not_fit_is_refused_with_the_numbers(monkeypatch):
    graph = generate("rmat:n=1024,m=8192,seed=17")
    runtime.release_device_graphs()
    monkeypatch.setattr(runtime, "free_device_bytes", lambda: (1 << 20, 80 << 30))
    with pytest.raises(runtime.DeviceMemoryError) as caught:
        impls.get("bf-edge")().prepare(graph)
    assert isinstance(caught.value, MemoryError) and "GiB" in str(caught.value) and "free" in str(caught.value)


def test_launch_refuses_python_scalars():
    module = runtime.load_module(REPO / "sssp_bench" / "impls" / "lonestar.cu")
    dist = cupy.empty(4, dtype=np.int64)
    words = cupy.zeros(8, dtype=np.uint64)
    with pytest.raises(TypeError, match="numpy scalar"):
        runtime.launch(module.function("sssp_init"), 1, 32, (dist, 4, np.int64(0), words))
    runtime.launch(module.function("sssp_init"), 1, 32, (dist, np.int64(4), np.int64(1), words))
    assert dist.get().tolist() == [runtime.DIST_INF, 0, runtime.DIST_INF, runtime.DIST_INF]


# --- workfront and near-far ----------------------------------------------------------------------------------


def test_near_far_refuses_negative_weights():
    graph = apply_weights(generate("grid:rows=10,cols=10,seed=1"), NEGATIVE)
    implementation = impls.get("near-far")()
    with pytest.raises(UnsupportedGraphError, match="non-negative weights"):
        implementation.prepare(graph)
    implementation.teardown()


@pytest.mark.parametrize("spec", ["rmat:n=4096,m=65536,seed=3", "grid:rows=30,cols=40,seed=5", "road:n=3000,seed=10",
                                  "random:n=3000,m=24000,seed=4"])
def test_near_far_delta_values_give_the_same_distances(spec):
    graph = generate(spec)
    sources = some_sources(graph, 3)
    runs = {}
    for delta in (1, 0, 2**40):  # one-wide buckets, the automatic default, everything near (a Workfront Sweep)
        implementation = impls.get("near-far")(delta=delta)
        implementation.prepare(graph)
        try:
            runs[delta] = []
            for source in sources:  # copied before the next solve overwrites the device distances
                result = implementation.solve(source)
                runs[delta].append((canonical_distances(result), result.counters))
        finally:
            implementation.teardown()
    for index, source in enumerate(sources):
        expected = reference_distances(graph, source)
        for delta, results in runs.items():
            distances, counters = results[index]
            compared = compare(expected, distances)
            assert compared.ok, f"near-far delta={delta} on {spec} from {source}: {compared.message}"
            assert counters["delta"] == (delta or auto_delta(graph))
    assert all(counters["splits"] == 0 for _, counters in runs[2**40])
    assert any(counters["splits"] > 0 for _, counters in runs[1])


@pytest.mark.parametrize("spec", ["rmat:n=4096,m=65536,seed=3", "grid:rows=30,cols=40,seed=5", "road:n=3000,seed=10",
                                  "random:n=3000,m=24000,seed=4", "chain:n=700,seed=6"])
@pytest.mark.parametrize("delta", [1, 0])
def test_near_far_packed_and_plain_distance_words_give_the_same_distances(spec, delta):
    graph = generate(spec)
    for packed in (True, False):
        results = solve_each(impls.get("near-far")(delta=delta, packed_dedup=packed), graph, some_sources(graph, 3))
        assert_matches_reference(f"near-far packed_dedup={packed}", graph, results)
        assert all(counters["packed_dedup"] == int(packed) for _, _, counters, _ in results)


@pytest.mark.parametrize("spec", ["rmat:n=4096,m=65536,seed=3", "grid:rows=30,cols=40,seed=5", "road:n=3000,seed=10",
                                  "random:n=3000,m=24000,seed=4", "chain:n=700,seed=6"])
@pytest.mark.parametrize("delta", [1, 0])
def test_near_far_far_buckets_give_the_same_distances(spec, delta):
    graph = generate(spec)
    sources = some_sources(graph, 3)
    # -1: automatic (8 or 0 by average degree); 0: one far pile; 1: every split but the next bucket's goes through
    # the overflow pile; 16: the most lists
    for far_buckets in (-1, 0, 1, 3, 16):
        expected = auto_far_buckets(graph) if far_buckets < 0 else far_buckets
        for packed in (True, False):
            label = f"near-far far_buckets={far_buckets} packed_dedup={packed}"
            results = solve_each(impls.get("near-far")(delta=delta, far_buckets=far_buckets, packed_dedup=packed),
                                 graph, sources)
            assert_matches_reference(label, graph, results)
            assert all(counters["far_buckets"] == expected for _, _, counters, _ in results)


def test_near_far_keeps_plain_distances_when_packed_words_cannot_hold_them():
    graph = heavy_star()  # distances may need 51 bits: too many to leave room for the stamps
    results = solve_each(impls.get("near-far")(), graph, [0])
    assert_matches_reference("near-far", graph, results)
    assert results[0][2]["packed_dedup"] == 0


@pytest.mark.parametrize("spec", ["rmat:n=4096,m=65536,seed=3", "grid:rows=30,cols=40,seed=5", "road:n=3000,seed=10"])
def test_near_far_refilling_a_small_near_queue_early_gives_the_same_distances(spec):
    graph = generate(spec)
    sources = some_sources(graph, 3)
    splits = {}
    # 1: split only when the near queue is empty; 64: also when it holds a few vertices; 2^40: after every round
    # that leaves anything on the far pile
    for refill_arcs in (1, 64, 2**40):
        implementation = impls.get("near-far")(delta=1, refill_arcs=refill_arcs)
        implementation.prepare(graph)
        try:
            splits[refill_arcs] = 0
            for source in sources:
                result = implementation.solve(source)
                compared = compare(reference_distances(graph, source), canonical_distances(result))
                assert compared.ok, f"near-far refill_arcs={refill_arcs} on {spec} from {source}: {compared.message}"
                splits[refill_arcs] += result.counters["splits"]
        finally:
            implementation.teardown()
    assert all(count > 0 for count in splits.values())


@pytest.mark.parametrize("name", QUEUE_IMPLEMENTATIONS)
@pytest.mark.parametrize("spec", ["chain:n=700,seed=6", "grid:rows=40,cols=40,seed=19"])
def test_graph_replays_batched_launches_and_one_round_per_readback_agree(name, spec):
    graph = generate(spec)  # hundreds of rounds: batches of up to 16
    variants = {"graphs": impls.get(name)(), "launches": impls.get(name)(graphs=False),
                "counted": impls.get(name)(count_relaxations=True)}
    for implementation in variants.values():
        implementation.prepare(graph)
    assert variants["graphs"].batch_graphs and not variants["launches"].batch_graphs
    assert not variants["counted"].batch_graphs
    try:
        for source in (0, graph.n // 2, graph.n - 1):
            results = {}
            for key, implementation in variants.items():  # each copied before its next solve
                result = implementation.solve(source)
                results[key] = (canonical_distances(result), result.counters)
            expected = reference_distances(graph, source)
            for key, (distances, counters) in results.items():
                assert compare(expected, distances).ok, f"{name} ({key}) from {source}"
            counted = results["counted"][1]
            sizes = counted["frontier_sizes"]
            assert len(sizes) == len(counted["relaxations_per_iteration"]) == counted["iterations"]
            assert counted["iterations"] == 0 or (sizes[0] == 1 and min(sizes) >= 1)
            if spec.startswith("chain"):  # one vertex a round: the round counts do not depend on timing
                iterations = {key: counters["iterations"] for key, (_, counters) in results.items()}
                assert len(set(iterations.values())) == 1 and iterations["counted"] > 1, iterations
    finally:
        for implementation in variants.values():
            implementation.teardown()


@pytest.mark.parametrize("name", QUEUE_IMPLEMENTATIONS)
def test_queues_larger_than_one_grid_of_tiles(name):
    # about 1M arcs: a full queue has more 512-arc tiles than one wave of blocks, so blocks take several tiles
    graph = generate("rmat:n=65536,m=1048576,seed=21")
    check_against_reference(name, graph, some_sources(graph, 2))


# --- real graphs ------------------------------------------------------------------------------------------------


def _real_file(name: str) -> Path:
    candidates = [os.environ.get("SSSP_BENCH_REAL_DATASETS"), REPO / ".carry" / "datasets",
                  REPO.parent / "shared" / "datasets"]
    for folder in candidates:
        if folder and (Path(folder) / name).is_file():
            return Path(folder) / name
    pytest.skip(f"{name} not found in {[str(c) for c in candidates if c]}")


def _read_real(path: Path) -> CSRGraph:
    """The graph through sssp_bench.formats when it exists; else a minimal reader of the two formats used here
    (DIMACS .gr: 'a u v w', 1-based; SNAP: 'u v' per line, '#' comments, ids relabelled densely)."""
    try:  # sssp_bench.formats is being written in parallel: use it once it reads these files
        from sssp_bench.datasets import formats

        for reader_name in ("read_graph", "read", "load"):
            reader = getattr(formats, reader_name, None)
            if callable(reader):
                graph = reader(path)
                if isinstance(graph, CSRGraph):
                    return graph
    except Exception:  # not there yet, or not this API: the minimal reader below
        pass
    with gzip.open(path, "rt") as handle:
        lines = [line for line in handle if line and line[0] not in "#cp\n"]
    if path.name.endswith(".gr.gz"):
        table = np.array([line.split()[1:4] for line in lines], dtype=np.int64)
        n = int(table[:, :2].max())
        return from_arcs(n, table[:, 0] - 1, table[:, 1] - 1, table[:, 2].astype(np.int32), name=path.name)
    table = np.array([line.split()[:2] for line in lines], dtype=np.int64)
    ids, dense = np.unique(table, return_inverse=True)
    dense = dense.reshape(table.shape)
    return from_arcs(len(ids), dense[:, 0], dense[:, 1], None, name=path.name)


@pytest.mark.parametrize("name", GPU_IMPLEMENTATIONS)
def test_usa_road_ny(name):
    graph = _read_real(_real_file("USA-road-d.NY.gr.gz"))
    limit = impls.get(name).parameters.get("max_vertices")
    if limit is not None and graph.n > limit.default:  # all pairs of 264K vertices: refused up front, not tried
        with pytest.raises(UnsupportedGraphError, match="max_vertices"):
            impls.get(name)().prepare(graph)
        return
    check_against_reference(name, graph, [0, graph.n // 3])


@pytest.mark.parametrize("name", GPU_IMPLEMENTATIONS)
def test_wiki_vote(name):
    graph = _read_real(_real_file("wiki-Vote.txt.gz"))
    if graph.weights is None:
        graph = apply_weights(graph, "uniform:min=1,max=100,seed=1")
    check_against_reference(name, graph, some_sources(graph, 3))
    if impls.get(name).negative_weights:
        check_against_reference(name, apply_weights(graph, "negative:min=1,max=100,potential=50,seed=2,base=keep"),
                                some_sources(graph, 2))


# --- through the runner -------------------------------------------------------------------------------------


def test_a_tiny_run_through_the_runner_is_all_ok(tmp_path):
    text = """
        graphs:
          - {graph: "rmat:n=2048,m=16384,seed=2", label: rmat}
          - {graph: "grid:rows=24,cols=24,seed=1", label: grid-negative, weights: "negative:min=1,max=50,potential=20,seed=3"}
        implementations: [cpu-dijkstra, cpu-bf-queue, lonestar, bf-edge, bf-frontier, workfront, near-far]
        sources: {count: 4, seed: 1}
        warmup: 1
        baseline: null
        verification: {reference_sources: 2}
    """
    outcome, rows = run_rows(make_config(tmp_path, text, name="gpu"), run_id="gpu")
    solves = solves_all_ok(rows, may_refuse=("cpu-dijkstra", "near-far"))
    gpu_rows = [row for row in solves if row["device"] == "gpu"]
    assert len(gpu_rows) == 4 * 2 * 4 + 1 * 4  # near-far refuses the negative grid
    assert all(row["timer"] == "cuda-event" and row["time_s"] > 0 and row["end_to_end_s"] >= 0 for row in gpu_rows)
    assert all(row["certificate"] is True for row in solves)
    assert all(row["timer"] == "host" for row in solves if row["device"] == "cpu")
    assert runtime._graph_cache == {}  # released after the last graph


def test_a_graph_that_does_not_fit_becomes_an_out_of_memory_row_and_the_run_goes_on(tmp_path, monkeypatch):
    text = """
        graphs:
          - {graph: "grid:rows=10,cols=10,seed=1", label: small}
          - {graph: "grid:rows=12,cols=12,seed=2", label: next}
        implementations: [bf-edge]
        sources: {count: 2, seed: 1}
        baseline: null
    """
    config = make_config(tmp_path, text, name="oom")
    real_free = runtime.free_device_bytes
    calls = []

    def free_bytes():  # the first graph sees a nearly full device, the second the real one
        calls.append(1)
        return (1 << 20, 80 << 30) if len(calls) == 1 else real_free()

    def no_roofline():  # the run's roofline measurement would take the faked first call
        raise RuntimeError("not measured in this test")

    runtime.release_device_graphs()
    monkeypatch.setattr(roofline, "measure_device", no_roofline)
    monkeypatch.setattr(runtime, "free_device_bytes", free_bytes)
    outcome, rows = run_rows(config, run_id="oom")
    first = [row for row in rows if row["graph"] == "small"]
    assert [(row["phase"], row["status"]) for row in first] == [("prepare", "out_of_memory")]
    assert "needs" in first[0]["message"] and "free" in first[0]["message"]
    assert all(row["status"] == "ok" for row in rows if row["graph"] == "next")
