"""The on-device certificate and the roofline measurements, on a GPU (marker `gpu`).

The device certificate must say exactly what the host certificate says (ok, message, counts) on right answers
and on each planted error, for int64 distances with DIST_INF and for int32 BFS levels with their sentinel.
Skipped without CuPy (module-level importorskip) and without a usable CUDA device.
"""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

cupy = pytest.importorskip("cupy")

from sssp_bench import impls
from sssp_bench.run import roofline  # noqa: E402
from sssp_bench.graph.csr import CSRGraph, from_arcs  # noqa: E402
from sssp_bench.graph.generators import generate  # noqa: E402
from sssp_bench.gpu import certificate as device_certificate  # noqa: E402
from sssp_bench.gpu import runtime  # noqa: E402
from sssp_bench.impls.base import SolveResult, canonical_distances  # noqa: E402
from sssp_bench.run.verify import certificate, reference_distances  # noqa: E402
from sssp_bench.graph.weights import apply_weights  # noqa: E402

from runs import make_config, run_rows

pytestmark = pytest.mark.gpu

INT32_MAX = int(np.iinfo(np.int32).max)


@pytest.fixture(scope="module", autouse=True)
def gpu_device():
    ok, why = runtime.gpu_status()
    if not ok:
        pytest.skip(f"no usable GPU: {why}")
    os.environ[runtime.SYNC_CHECK_ENV] = "1"
    yield
    os.environ.pop(runtime.SYNC_CHECK_ENV, None)
    device_certificate.release()
    runtime.release_device_graphs()


def as_array(canonical: np.ndarray, dtype, unreached: int) -> np.ndarray:
    """Canonical float64 distances (inf = unreached) as an implementation's integer array with its sentinel."""
    out = np.full(len(canonical), unreached, dtype=dtype)
    finite = np.isfinite(canonical)
    out[finite] = canonical[finite].astype(dtype)
    return out


def both(graph: CSRGraph, source: int, values: np.ndarray, unreached: int, kind: str):
    """(host certificate, device certificate) on the same integer array."""
    host = certificate(graph, source, canonical_distances(SolveResult(values, unreached)), kind=kind)
    device = device_certificate.certificate(graph, source, cupy.asarray(values), unreached, kind=kind)
    return host, device


def assert_agree(graph, source, values, unreached, kind, expect_ok):
    host, device = both(graph, source, values, unreached, kind)
    assert host.ok is expect_ok, host.message
    assert (device.ok, device.message, device.counts) == (host.ok, host.message, host.counts)
    # and what it counted as it read them: the runner's reached vertices and arcs for a result left on the device
    reached = values != unreached
    assert device.reached == (int(reached.sum()), int(np.diff(graph.row_offsets)[reached].sum()))


def plants(graph: CSRGraph, source: int, values: np.ndarray, unreached: int, rng) -> dict[str, np.ndarray]:
    """Each planted error that applies to this answer: name -> the corrupted copy."""
    reached = np.flatnonzero(values != unreached)
    others = reached[reached != source]
    unreached_vertices = np.flatnonzero(values == unreached)
    planted = {}
    if len(others):
        v = int(rng.choice(others))
        planted["too large"] = values.copy()
        planted["too large"][v] += 1
        planted["too small"] = values.copy()
        planted["too small"][v] -= 1
        planted["reached marked unreached"] = values.copy()
        planted["reached marked unreached"][v] = unreached
        if values.dtype == np.int64:
            planted["huge"] = values.copy()  # d[u] + w would overflow int64
            planted["huge"][v] = np.iinfo(np.int64).max - 1
    planted["wrong source distance"] = values.copy()
    planted["wrong source distance"][source] = 5
    if len(unreached_vertices):
        planted["unreachable given a finite distance"] = values.copy()
        planted["unreachable given a finite distance"][int(rng.choice(unreached_vertices))] = 7
    return planted


GRAPHS = {
    "rmat": lambda: generate("rmat:n=4096,m=32768,seed=21"),
    "random-sparse": lambda: generate("random:n=3000,m=2500,seed=22"),  # many unreached vertices
    "grid-negative": lambda: apply_weights(generate("grid:rows=30,cols=30,seed=23"),
                                           "negative:min=1,max=50,potential=20,seed=4"),
    "rmat-unweighted": lambda: generate("rmat:n=2048,m=16384,seed=24").with_weights(None),
    "diamond": lambda: from_arcs(7, [0, 0, 0, 2, 1, 2, 3, 3, 6], [1, 2, 2, 1, 3, 3, 3, 4, 0],
                                 [4, 3, 1, 2, 1, 5, 0, 0, 1], name="diamond"),
    "zero-cycle": lambda: from_arcs(5, [0, 1, 2, 2, 4, 4], [1, 2, 1, 3, 4, 3], [0, 0, 0, 2, 0, 0]),
    # many zero-weight arcs, and zero-sum cycles of negative weights: the tight-path rounds run on these
    "random-zero-weights": lambda: apply_weights(generate("random:n=3000,m=12000,seed=25"),
                                                 "uniform:min=0,max=3,seed=5"),
    "grid-zero-sum-cycles": lambda: apply_weights(generate("grid:rows=30,cols=30,seed=26"),
                                                  "negative:min=0,max=3,potential=20,seed=6"),
}


def sources_of(graph: CSRGraph) -> list[int]:
    degrees = graph.out_degrees()
    return list(dict.fromkeys([0, int(np.argmax(degrees)), graph.n - 1]))


@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_sssp_distances_agree_on_right_answers_and_planted_errors(name):
    graph = GRAPHS[name]()
    rng = np.random.default_rng(5)
    for source in sources_of(graph):
        values = as_array(reference_distances(graph, source), np.int64, runtime.DIST_INF)
        assert_agree(graph, source, values, runtime.DIST_INF, "sssp", True)
        for planted_name, planted in plants(graph, source, values, runtime.DIST_INF, rng).items():
            host, device = both(graph, source, planted, runtime.DIST_INF, "sssp")
            assert not host.ok, f"{name} {planted_name}: the host certificate missed it"
            assert (device.ok, device.message, device.counts) == (host.ok, host.message, host.counts), planted_name


@pytest.mark.parametrize("unreached", [-1, INT32_MAX])
@pytest.mark.parametrize("name", ["rmat", "random-sparse", "grid-negative", "diamond"])
def test_bfs_levels_agree_on_right_answers_and_planted_errors(name, unreached):
    graph = GRAPHS[name]()
    rng = np.random.default_rng(6)
    for source in sources_of(graph):
        levels = as_array(reference_distances(graph, source, kind="bfs"), np.int32, unreached)
        assert_agree(graph, source, levels, unreached, "bfs", True)
        planted = plants(graph, source, levels, unreached, rng)
        reached = np.flatnonzero((levels != unreached) & (np.arange(graph.n) != source))
        if len(reached):
            planted["negative level"] = levels.copy()
            planted["negative level"][int(reached[0])] = -3 if unreached != -3 else -4
        for planted_name, values in planted.items():
            host, device = both(graph, source, values, unreached, "bfs")
            assert not host.ok, f"{name} {planted_name}: the host certificate missed it"
            assert (device.ok, device.message, device.counts) == (host.ok, host.message, host.counts), planted_name


def test_float_weights_and_float_distances_are_left_to_the_host():
    graph = generate("rmat:n=256,m=2048,seed=1")
    floats = graph.with_weights(graph.weights.astype(np.float32))
    values = cupy.zeros(graph.n, dtype=np.int64)
    assert device_certificate.supports(floats, values, runtime.DIST_INF, "sssp")[0] is False
    assert device_certificate.supports(floats, values, runtime.DIST_INF, "bfs")[0] is True
    assert device_certificate.supports(graph, values.astype(np.float64), np.inf, "sssp")[0] is False
    assert device_certificate.supports(graph, values.get(), runtime.DIST_INF, "sssp")[0] is False


def test_the_runner_certifies_gpu_solves_on_the_device_and_records_the_roofline(tmp_path):
    text = """
        graphs:
          - {graph: "rmat:n=2048,m=16384,seed=2", label: rmat}
          - {graph: "grid:rows=24,cols=24,seed=1", label: grid}
        implementations: [cpu-dijkstra, lonestar, bf-frontier]
        sources: {count: 3, seed: 1}
        baseline: cpu-dijkstra
        verification: {reference_sources: 1}
    """
    outcome, rows = run_rows(make_config(tmp_path, text, name="r"), run_id="r")
    manifest = json.loads((outcome.run_dir / "manifest.json").read_text())
    constants = manifest["roofline"]
    assert constants["available"] is True, constants
    assert constants["copy_bandwidth_gbs"] > 10 and 10 < constants["chain_latency_ns"] < 100_000
    solves = [row for row in rows if row["phase"] == "solve"]
    assert solves and all(row["status"] == "ok" and row["certificate"] is True for row in solves), solves
    assert {row["certificate_device"] for row in solves if row["device"] == "gpu"} == {"gpu"}
    assert {row["certificate_device"] for row in solves if row["device"] == "cpu"} == {"cpu"}
    for label in ("rmat", "grid"):
        record = manifest["graphs"][label]["roofline"]
        assert record["available"] is True and record["time_per_arc_ns"] > 0 and record["relax_pass_ms"] > 0
        floors = {item["source"]: item["floor_s"] for item in record["per_source"]}
        assert set(floors) == set(manifest["graphs"][label]["sources"])
        for row in solves:
            if row["graph"] == label:
                assert row["floor_s"] == floors[row["source"]] and row["floor_s"] > 0
                assert row["reached_arcs"] == next(item["reached_arcs"] for item in record["per_source"]
                                                   if item["source"] == row["source"])
    from sssp_bench.results.summary import summarize

    summary = summarize(outcome.run_dir)
    assert summary["efficiency"].notna().all()


def test_a_wrong_gpu_answer_is_caught_by_the_device_certificate(tmp_path, monkeypatch):
    implementation_class = impls.get("lonestar")
    real_solve = implementation_class.solve

    def wrong_solve(self, source):
        result = real_solve(self, source)
        changed = cupy.flatnonzero((result.distances != runtime.DIST_INF)
                                   & (cupy.arange(self.graph.n) != source))
        if changed.size:
            result.distances[changed[0]] += 1
        return result

    monkeypatch.setattr(implementation_class, "solve", wrong_solve)
    text = """
        graphs: ["rmat:n=1024,m=8192,seed=3"]
        implementations: [lonestar]
        sources: {count: 2, seed: 1}
        baseline: null
        verification: {reference_sources: 0}
    """
    outcome, rows = run_rows(make_config(tmp_path, text, name="w"), run_id="w")
    solves = [row for row in rows if row["phase"] == "solve"]
    assert solves and all(row["status"] == "wrong_answer" and row["certificate"] is False for row in solves)
    assert all(row["certificate_device"] == "gpu" and "can still be relaxed" in row["message"] for row in solves)


def test_the_roofline_measurements_are_sane():
    device = roofline.measure_device()
    assert device["available"] is True
    assert 50 < device["copy_bandwidth_gbs"] < 20_000
    assert device["chain_bytes"] >= 4 * device["l2_bytes"]
    assert 50 < device["chain_latency_ns"] < 10_000
    graph = generate("rmat:n=65536,m=1048576,seed=4")
    record = roofline.graph_roofline(graph, [0, 1, 2], device)
    assert record["arcs"] == graph.m and record["time_per_arc_ns"] > 0
    for item in record["per_source"]:
        expected = max(item["reached_arcs"] * record["time_per_arc_ns"], item["hop_depth"] * device["chain_latency_ns"])
        assert item["floor_s"] == pytest.approx(expected * 1e-9)
    runtime.release_device_graphs()


# --- condition 5: every reached vertex is reached over tight arcs (issue 34, item 8) --------------------------------

ZERO_CYCLE_WRONG_ANSWERS = {
    # graph, source, values that conditions 1-4 alone accept, vertices no tight path reaches
    "reached zero cycle too small": (from_arcs(5, [0, 1, 2, 2, 4, 4], [1, 2, 1, 3, 4, 3], [0, 0, 0, 2, 0, 0]), 0,
                                     [0, -1, -1, 1, None], 2),
    "unreached zero cycle given values": (from_arcs(4, [0, 2, 3], [1, 3, 2], [1, 0, 0]), 0, [0, 1, 5, 5], 2),
    "zero-sum cycle of negative weights": (from_arcs(4, [0, 1, 2, 2], [1, 2, 1, 3], [5, 1, -1, -2]), 0,
                                           [0, 3, 4, 2], 3),
}


@pytest.mark.parametrize("dtype", [np.int64, np.int32])
@pytest.mark.parametrize("name", sorted(ZERO_CYCLE_WRONG_ANSWERS))
def test_values_only_a_zero_weight_cycle_vouches_for_are_rejected_on_the_device(name, dtype):
    graph, source, values, unrooted = ZERO_CYCLE_WRONG_ANSWERS[name]
    unreached = runtime.DIST_INF if dtype == np.int64 else INT32_MAX
    array = np.array([unreached if value is None else value for value in values], dtype=dtype)
    host, device = both(graph, source, array, unreached, "sssp")
    assert not host.ok and host.counts["unrooted_vertices"] == unrooted, host.message
    assert (host.counts["relax_violations"], host.counts["unsupported_vertices"]) == (0, 0)
    assert (device.ok, device.message, device.counts) == (host.ok, host.message, host.counts)


def test_right_answers_pass_where_chosen_tight_parents_close_zero_weight_cycles():
    """Every vertex of the reached zero cycles 1 -> 2 -> 1 and 1 -> 2 -> 3 -> 4 -> 1 has tight in-arcs from the cycle
    as well as the one from the source side; a round whose chosen parents close a cycle must not fail the answer."""
    graph = from_arcs(6, [0, 1, 2, 2, 3, 4, 5, 5], [1, 2, 1, 3, 4, 1, 3, 2], [3, 0, 0, 0, 0, 0, 0, 0])
    for source in (0, 5):
        values = as_array(reference_distances(graph, source), np.int64, runtime.DIST_INF)
        assert_agree(graph, source, values, runtime.DIST_INF, "sssp", True)


def test_the_tight_path_rounds_stay_few_on_a_large_graph_with_zero_weights():
    """A right answer on 1M arcs, 1% of them weighing 0: the device certificate passes it, as the host one does."""
    graph = apply_weights(generate("rmat:n=65536,m=1048576,seed=27"), "uniform:min=0,max=100,seed=7")
    values = as_array(reference_distances(graph, 0), np.int64, runtime.DIST_INF)
    assert_agree(graph, 0, values, runtime.DIST_INF, "sssp", True)


@pytest.mark.parametrize("low", [0, -1])
def test_the_device_agrees_with_the_host_on_answers_near_zero_weight_cycles(low):
    """The host's property test (tests/test_verify.py: the certificate passes exactly the right answers) on the
    device: the same small random graphs, right answers and wrong ones near them, the same verdicts and counts."""
    from sssp_bench.errors import NegativeCycleError
    from test_verify import wrong_answers_near

    rng = np.random.default_rng(13)
    caught_by_tight_paths = 0
    for trial in range(300):
        n = int(rng.integers(2, 8))
        m = int(rng.integers(1, 3 * n))
        graph = from_arcs(n, rng.integers(0, n, m), rng.integers(0, n, m), rng.integers(low, 3, m).astype(np.int32))
        source = int(rng.integers(0, n))
        try:
            right = reference_distances(graph, source)
        except NegativeCycleError:
            continue
        for values in [right, *wrong_answers_near(rng, graph, right)]:
            array = as_array(values, np.int64, runtime.DIST_INF)
            host, device = both(graph, source, array, runtime.DIST_INF, "sssp")
            assert (device.ok, device.message, device.counts) == (host.ok, host.message, host.counts), trial
            caught_by_tight_paths += bool(host.counts.get("unrooted_vertices"))
    assert caught_by_tight_paths >= 10, caught_by_tight_paths
