"""delta-stepping, delta-stepping-async and delta-stepping-cluster on a GPU (marker `gpu`): against the CPU reference
and the certificate on the shared battery, with small and large deltas, heavy_degree 0, 1 and huge, the lookahead
window's extremes, the barrier fallbacks, many solves on one preparation (the async rings carry over and wrap), the
abort path, counters, the cluster variant's cluster sizes, lanes, hops and spills, USA-road-d.NY when present, and a
run through the runner.

tests/test_gpu_impls.py also runs all three at their defaults on its battery (every registered GPU implementation).
Skipped without CuPy (module-level importorskip) and without a usable GPU (gpu_battery's autouse fixture).
"""

from __future__ import annotations

import numpy as np
import pytest

cupy = pytest.importorskip("cupy")

from sssp_bench import impls  # noqa: E402
from sssp_bench.errors import UnsupportedGraphError  # noqa: E402
from sssp_bench.graph.csr import from_arcs  # noqa: E402
from sssp_bench.graph.generators import generate  # noqa: E402
from sssp_bench.gpu import runtime  # noqa: E402
from sssp_bench.graph.weights import apply_weights  # noqa: E402
from sssp_bench.impls import canonical_distances  # noqa: E402
from sssp_bench.impls.delta_stepping import BARRIER_MODES, DeltaStepping  # noqa: E402
from sssp_bench.impls.delta_stepping_async import AS_SLOTS, effective_delta  # noqa: E402
from sssp_bench.kernels.delta_stepping import default_delta, max_weight  # noqa: E402
from sssp_bench.run.verify import compare, reference_distances  # noqa: E402

from gpu_battery import (  # noqa: E402, F401
    GENERATED, NEGATIVE, assert_matches_reference, assert_relax_counters, gpu_device, solve_each, some_sources,
)
from runs import make_config, run_rows, solves_all_ok  # noqa: E402

pytestmark = pytest.mark.gpu

VARIANTS = ["delta-stepping", "delta-stepping-async", "delta-stepping-cluster"]


def check(name, graph, sources, **params):
    results = solve_each(impls.get(name)(**params), graph, sources)
    assert_matches_reference(f"{name} {params}", graph, results)
    return results


@pytest.mark.parametrize("name", VARIANTS)
@pytest.mark.parametrize("delta", [1, 0, 2**40], ids=["delta1", "auto", "huge"])
@pytest.mark.parametrize("spec", GENERATED)
def test_the_battery_with_small_and_large_deltas(name, spec, delta):
    graph = generate(spec)
    check(name, graph, some_sources(graph, 4), delta=delta)


@pytest.mark.parametrize("name", VARIANTS)
@pytest.mark.parametrize("heavy_degree", [0, 1, 2**40])
@pytest.mark.parametrize("spec", ["rmat:n=4096,m=65536,seed=3", "star:n=2000,seed=7", "road:n=5000,seed=10",
                                  "kron:scale=11,edgefactor=8,seed=9"])
def test_heavy_degree_zero_one_and_huge(name, spec, heavy_degree):
    # 0: every vertex with an arc is relaxed by a whole warp; 1: all but those of one arc; huge: one lane each
    graph = generate(spec)
    check(name, graph, some_sources(graph, 3), heavy_degree=heavy_degree)
    check(name, graph, some_sources(graph, 2), heavy_degree=heavy_degree, delta=1)


@pytest.mark.parametrize("spec", ["rmat:n=4096,m=65536,seed=3", "grid:rows=40,cols=50,seed=5", "chain:n=700,seed=6"])
def test_every_barrier_mode_gives_the_same_distances(spec):
    graph = generate(spec)
    sources = some_sources(graph, 3)
    for mode in BARRIER_MODES:
        implementation = DeltaStepping(delta=1 if spec.startswith("chain") else 0)
        implementation.cooperative_modes = (mode,)
        results = solve_each(implementation, graph, sources)
        assert_matches_reference(f"delta-stepping barrier={mode[0]}", graph, results)
        assert all(counters["barrier"] == mode[0] for _, _, counters, _ in results)


@pytest.mark.parametrize("blocks_per_sm", [1, 2])
def test_a_smaller_grid_in_every_barrier_mode(blocks_per_sm):
    graph = generate("grid:rows=40,cols=50,seed=5")
    for mode in BARRIER_MODES:
        implementation = DeltaStepping(blocks_per_sm=blocks_per_sm)
        implementation.cooperative_modes = (mode,)
        results = solve_each(implementation, graph, some_sources(graph, 2))
        assert_matches_reference(f"delta-stepping blocks_per_sm={blocks_per_sm} barrier={mode[0]}", graph, results)
        sms = int(runtime.device_attributes()["MultiProcessorCount"])
        assert all(sms <= counters["blocks"] <= blocks_per_sm * sms for _, _, counters, _ in results)


GRID_SYNC_PROBE = r"""
#include <cooperative_groups.h>
extern "C" __global__ void probe(int* out) { cooperative_groups::this_grid().sync(); out[0] = 1; }
"""
PLAIN_PROBE = r"""extern "C" __global__ void probe(int* out) { out[0] = 1; }"""


def compiles_here(code: str, cooperative: bool) -> bool:
    """Whether CuPy compiles `code` on this device, as a cooperative module (relocatable, linked with cudadevrt) or
    not: a fresh compile of a kernel of its own, not through the runtime's caches or delta_stepping.cu."""
    try:
        cupy.RawModule(code=code, options=("--std=c++17",), enable_cooperative_groups=cooperative).compile()
        return True
    except Exception:  # noqa: BLE001 - any failure means this toolchain cannot build that mode
        return False


def expected_barrier_mode() -> str:
    """The grid barrier delta-stepping must choose here (its docstring): cooperative groups' grid sync wherever NVRTC
    compiles it; its own barrier, launched cooperatively, where only cooperative_groups.h is missing; a plain launch
    where no cooperative module builds."""
    if compiles_here(GRID_SYNC_PROBE, cooperative=True):
        return "grid-sync"
    return "own" if compiles_here(PLAIN_PROBE, cooperative=True) else "own-plain-launch"


def test_the_course_kernel_uses_cooperative_groups_grid_sync_where_it_can():
    graph = generate("grid:rows=10,cols=10,seed=1")
    expected = expected_barrier_mode()
    (_, _, counters, _), = solve_each(impls.get("delta-stepping")(), graph, [0])
    print(f"delta-stepping grid barrier here: {counters['barrier']} (expected {expected})")
    # a fallback where grid sync builds (delta_stepping.cu's grid-sync path broken, the modes reordered) fails here
    assert counters["barrier"] == expected


def test_delta_stepping_counters_describe_the_buckets():
    graph = generate("rmat:n=4096,m=65536,seed=3")
    implementation = impls.get("delta-stepping")(count_relaxations=True)
    implementation.prepare(graph)
    try:
        counters = assert_relax_counters(implementation.solve(0))
        assert counters["iterations"] == counters["light_phases"] + counters["heavy_steps"]
        assert counters["heavy_steps"] >= 1 and counters["buckets"] >= 2
        assert counters["splits"] >= counters["buckets"] - 1
        assert counters["delta"] == default_delta(graph)
    finally:
        implementation.teardown()
    # delta above every weight: no heavy arc, one bucket, no split but the final empty-pile check
    (_, _, wide, _), = solve_each(impls.get("delta-stepping")(delta=2**40), graph, [0])
    assert wide["heavy_steps"] == 0 and wide["buckets"] == 1 and wide["splits"] == 0


@pytest.mark.parametrize("local_queue", [True, False])
def test_delta_stepping_async_counters_balance(local_queue):
    graph = generate("road:n=5000,seed=10")
    implementation = impls.get("delta-stepping-async")(count_relaxations=True, local_queue=local_queue)
    implementation.prepare(graph)
    try:
        result = implementation.solve(0)
        counters = assert_relax_counters(result)
        reached = int(np.isfinite(canonical_distances(result)).sum())
        # every push and kept item is taken once, and the source's entry
        assert counters["pops"] == counters["pushes"] + counters["kept"] + 1
        assert (counters["kept"] > 0) == local_queue
        assert counters["pops"] - counters["stale_pops"] >= reached  # each reached vertex relaxed at least once
        assert counters["iterations"] == 1 and counters["buckets"] >= 1
        assert counters["delta"] == effective_delta(graph, 0, counters["lookahead"])
    finally:
        implementation.teardown()


@pytest.mark.parametrize("spec", GENERATED)
def test_async_without_the_local_queue(spec):
    graph = generate(spec)
    check("delta-stepping-async", graph, some_sources(graph, 3), local_queue=False)
    check("delta-stepping-async", graph, some_sources(graph, 2), local_queue=False, delta=1)


@pytest.mark.parametrize("lookahead", [1, 8, AS_SLOTS - 1])
@pytest.mark.parametrize("spec", ["rmat:n=4096,m=65536,seed=3", "road:n=5000,seed=10", "grid:rows=40,cols=50,seed=5"])
def test_async_lookahead_extremes(spec, lookahead):
    graph = generate(spec)
    results = check("delta-stepping-async", graph, some_sources(graph, 3), lookahead=lookahead, delta=1)
    # one arc may move a label by at most 63 - lookahead: the smallest delta is raised to keep it so
    used = results[0][2]["delta"]
    assert int(max_weight(graph)) // used <= AS_SLOTS - 1 - lookahead


def test_async_many_solves_wrap_the_rings():
    # one preparation, many solves: the rings' counters carry over and, with every label in one slot (huge delta)
    # and a small grid, wrap past their capacity several times
    graph = generate("road:n=5000,seed=10")
    implementation = impls.get("delta-stepping-async")(delta=2**40, blocks_per_sm=1, local_queue=False)
    implementation.prepare(graph)
    try:
        pushes = 0
        for round_index in range(40):
            source = (round_index * 997) % graph.n
            result = implementation.solve(source)
            assert compare(reference_distances(graph, source), canonical_distances(result)).ok, source
            pushes += result.counters["pushes"] + 1
        assert pushes > 2 * implementation.cap  # every entry went through slot 0: it wrapped at least twice
    finally:
        implementation.teardown()


def test_async_a_failed_solve_says_why_and_the_next_one_is_right():
    graph = generate("grid:rows=60,cols=60,seed=2")
    implementation = impls.get("delta-stepping-async")(timeout_s=1e-9)  # every wait times out at once
    implementation.prepare(graph)
    try:
        with pytest.raises(RuntimeError, match="timeout"):
            for source in range(20):  # a solve may finish before any warp waits: try a few
                implementation.solve(source)
        implementation.timeout_cycles = 10**12  # the reset rings must serve a normal solve
        result = implementation.solve(7)
        assert compare(reference_distances(graph, 7), canonical_distances(result)).ok
    finally:
        implementation.teardown()


@pytest.mark.parametrize("name", ["delta-stepping", "delta-stepping-async", "pardijkstra"])
def test_a_graph_larger_than_one_wave_is_initialised_without_cupys_grid_warning(name):
    # The init kernels of a cooperative module are launched cooperatively: a grid over one resident wave would be cut
    # by CuPy, with a UserWarning in every run's log (runtime.stride_grid keeps them within the wave)
    import warnings

    graph = generate("grid:rows=700,cols=700,seed=4")  # 490,000 vertices: more threads than one wave holds
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check(name, graph, [0, graph.n - 1])


@pytest.mark.parametrize("name", VARIANTS)
def test_negative_weights_are_refused(name):
    graph = apply_weights(generate("grid:rows=10,cols=10,seed=1"), NEGATIVE)
    implementation = impls.get(name)()
    with pytest.raises(UnsupportedGraphError, match="non-negative weights"):
        implementation.prepare(graph)
    implementation.teardown()


@pytest.mark.parametrize("name", VARIANTS)
def test_zero_weights_parallel_arcs_and_huge_weights(name):
    arcs = [(0, 1, 0), (1, 2, 0), (2, 0, 0), (0, 3, 2**31 - 1), (0, 3, 5), (3, 4, 0), (4, 5, 2**31 - 1), (6, 0, 1)]
    graph = from_arcs(7, *zip(*arcs), name="zero-and-huge")
    for delta in (1, 0, 2**40):
        check(name, graph, [0, 3, 6], delta=delta)
    zero = from_arcs(4, [0, 1, 2, 3], [1, 2, 3, 0], [0, 0, 0, 0], name="zero-ring")
    check(name, zero, [0, 2])


@pytest.mark.parametrize("name", VARIANTS)
def test_usa_road_ny(name):
    from test_gpu_impls import _read_real, _real_file  # the shared reader of the real files (skips without them)

    graph = _read_real(_real_file("USA-road-d.NY.gr.gz"))
    sources = [0, graph.n // 3, graph.n - 1]
    results = check(name, graph, sources)
    check(name, graph, sources[:1], delta=max(1, default_delta(graph) // 8))
    print(name, "on USA-road-d.NY:", {key: value for key, value in results[0][2].items()
                                       if not key.endswith("_per_iteration")})


def test_a_tiny_run_through_the_runner(tmp_path):
    text = """
        graphs:
          - {graph: "rmat:n=4096,m=32768,seed=2", label: rmat}
          - {graph: "road:n=4000,seed=1", label: road}
        implementations: [cpu-dijkstra, cpu-delta-stepping, delta-stepping, delta-stepping-async]
        sources: {count: 4, seed: 1}
        warmup: 1
        baseline: cpu-dijkstra
        verification: {reference_sources: 2}
    """
    _, rows = run_rows(make_config(tmp_path, text, name="ds"), run_id="ds")
    solves = solves_all_ok(rows)
    gpu_rows = [row for row in solves if row["device"] == "gpu"]
    assert len(gpu_rows) == 2 * 2 * 4
    assert all(row["certificate"] is True for row in solves)


@pytest.mark.parametrize("cluster_size", [1, 2, 4, 16])
@pytest.mark.parametrize("spec", ["rmat:n=4096,m=65536,seed=3", "road:n=5000,seed=10", "grid:rows=40,cols=50,seed=5"])
def test_cluster_sizes_give_the_same_distances(spec, cluster_size):
    graph = generate(spec)
    check("delta-stepping-cluster", graph, some_sources(graph, 3), cluster_size=cluster_size)
    check("delta-stepping-cluster", graph, some_sources(graph, 2), cluster_size=cluster_size, delta=1, block=1024)


@pytest.mark.parametrize("spec", ["rmat:n=4096,m=65536,seed=3", "road:n=5000,seed=10", "star:n=2000,seed=7"])
def test_cluster_queues_that_spill_to_global_memory(spec):
    # a few entries per block: most levels spill, and the cluster deals out blocks' queues and the spill together
    graph = generate(spec)
    results = check("delta-stepping-cluster", graph, some_sources(graph, 3), queue_entries=4)
    assert any(counters["spills"] > 0 for _, _, counters, _ in results)


def test_cluster_counters_describe_the_levels():
    graph = generate("road:n=5000,seed=10")
    implementation = impls.get("delta-stepping-cluster")(count_relaxations=True)
    implementation.prepare(graph)
    try:
        result = implementation.solve(0)
        counters = assert_relax_counters(result)
        reached = int(np.isfinite(canonical_distances(result)).sum())
        assert counters["pops"] >= reached  # each reached vertex relaxed at least once
        assert counters["pops"] == counters["near_pushes"] + 1  # every near entry is relaxed once, and the source
        assert counters["iterations"] == 1 and counters["levels"] > counters["splits"] >= 1
        assert counters["delta"] == default_delta(graph, sparse_factor=64) and counters["cluster_size"] == 8
        assert counters["profile_work_ms"] > 0 and counters["profile_barrier_ms"] > 0
    finally:
        implementation.teardown()


@pytest.mark.parametrize("lanes", [1, 2, 8, 32])
@pytest.mark.parametrize("spec", ["rmat:n=4096,m=65536,seed=3", "road:n=5000,seed=10", "star:n=2000,seed=7"])
def test_cluster_lanes_per_vertex(spec, lanes):
    graph = generate(spec)
    check("delta-stepping-cluster", graph, some_sources(graph, 3), lanes_per_vertex=lanes)
    check("delta-stepping-cluster", graph, some_sources(graph, 2), lanes_per_vertex=lanes, heavy_degree=0, delta=1)


@pytest.mark.parametrize("hops", [1, 4, 64])
@pytest.mark.parametrize("spec", ["road:n=5000,seed=10", "grid:rows=40,cols=50,seed=5", "chain:n=700,seed=6",
                                  "rmat:n=4096,m=65536,seed=3"])
def test_cluster_hops_inside_a_level(spec, hops):
    graph = generate(spec)
    results = check("delta-stepping-cluster", graph, some_sources(graph, 3), hops=hops)
    assert any(counters["chained"] > 0 for _, _, counters, _ in results)
    check("delta-stepping-cluster", graph, some_sources(graph, 2), hops=hops, delta=1, queue_entries=4)
