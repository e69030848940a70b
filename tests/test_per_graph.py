"""The per-graph cache: hop depths and reference distances computed once per graph content, weight rule and
sources, kept beside the graph, and read by the next run, the next shard and the next Dask task."""

import json

import numpy as np
import pytest

from sssp_bench.errors import NegativeCycleError
from sssp_bench.graph.csr import from_arcs, write_csr
from sssp_bench.run import per_graph, verify
from sssp_bench.run.per_graph import PerGraphCache
from sssp_bench.run.runner import start_run
from sssp_bench.run.shards import select_shard

from runs import make_config, read_rows

CONFIG = """
    graphs:
      - {graph: "grid:rows=12,cols=12,seed=1", label: grid}
      - {graph: "rmat:n=512,m=4096,seed=2", label: rmat}
    implementations: [cpu-dijkstra, cpu-bfs]
    sources: {count: 6, seed: 1}
    verification: {reference_sources: 3}
"""


def cache_record(run_dir, label):
    return json.loads((run_dir / "manifest.json").read_text())["graphs"][label]["per_graph_cache"]


@pytest.fixture
def reference_calls(monkeypatch):
    """Every reference solve the verifier makes, as (kind, source)."""
    calls = []
    original = verify.reference_distances
    monkeypatch.setattr(verify, "reference_distances",
                        lambda graph, source, kind="sssp": calls.append((kind, source)) or original(graph, source, kind))
    return calls


def test_a_second_run_reads_the_references_the_first_computed(tmp_path, reference_calls):
    first = start_run(make_config(tmp_path, CONFIG), run_id="first", show_progress=False).run_dir
    assert len(reference_calls) == 2 * 2 * 3  # per graph: sssp and bfs references of the 3 sampled sources
    assert cache_record(first, "grid")["computed"] == {"hop_depths": 0, "references": 6}

    reference_calls.clear()
    again = start_run(make_config(tmp_path, CONFIG), run_id="again", show_progress=False).run_dir
    assert reference_calls == []  # nothing computed again
    assert cache_record(again, "grid")["hits"] == {"hop_depths": 0, "references": 6}
    assert cache_record(again, "grid")["graph_sha256"] == cache_record(first, "grid")["graph_sha256"]
    verdicts = lambda rows: [(r["variant"], r["source"], r["reference"]) for r in rows if r["phase"] == "solve"]  # noqa: E731
    assert verdicts(read_rows(again)) == verdicts(read_rows(first))  # and the compare says the same


def test_a_shard_reads_what_another_shard_computed(tmp_path, reference_calls):
    text = """
        graphs: [{graph: "rmat:n=512,m=4096,seed=2", label: rmat}]
        implementations: [cpu-bf, {name: cpu-dijkstra, sources: 4}]
        sources: {count: 7, seed: 1}
        verification: {reference_sources: 7}
    """
    one = select_shard(make_config(tmp_path, text), 1, 2)
    two = select_shard(make_config(tmp_path, text), 2, 2)
    # cpu-bf is cut, sources 0-3 to shard 1 and 4-6 to shard 2; cpu-dijkstra's sources 0-3 go whole to shard 2
    assert one.source_ranges == {("rmat", "cpu-bf"): (0, 4)} and two.source_ranges == {("rmat", "cpu-bf"): (4, 7)}
    assert ("rmat", "cpu-dijkstra") in two.cells
    start_run(one, run_id="one", show_progress=False)
    assert len(reference_calls) == 4
    reference_calls.clear()
    second = start_run(two, run_id="two", show_progress=False).run_dir
    assert len(reference_calls) == 3  # sources 4-6; cpu-dijkstra's 0-3 were read
    assert cache_record(second, "rmat")["hits"]["references"] == 4


def test_the_key_is_the_graphs_content_and_weight_rule_not_its_label(tmp_path, reference_calls):
    start_run(make_config(tmp_path, CONFIG), run_id="first", show_progress=False)
    reference_calls.clear()
    relabelled = CONFIG.replace("label: grid}", "label: another-name}")
    start_run(make_config(tmp_path, relabelled, "other"), run_id="relabelled", show_progress=False)
    assert reference_calls == []
    reweighted = CONFIG.replace("label: grid}", "label: grid, weights: unit}")
    start_run(make_config(tmp_path, reweighted, "unit"), run_id="unit", show_progress=False)
    assert [kind for kind, _ in reference_calls] == ["sssp"] * 3  # new weights: grid's distances, not its hops


def test_hop_depths_are_computed_once_per_graph_and_sources(tmp_path):
    path = write_csr(from_arcs(4, [0, 1, 2], [1, 2, 3], weights=[1, 1, 1]), tmp_path / "path.csr")
    computed = []

    def compute(sources):
        computed.append(list(sources))
        return [{"source": source, "hop_depth": 3 - source, "reached_vertices": 4 - source,
                 "reached_arcs": 3 - source} for source in sources]

    first = PerGraphCache(path, 4, "keep")
    depths, cached = first.hop_depths([0, 1], lambda: compute([0, 1]))
    assert not cached and depths[0]["hop_depth"] == 3
    again = PerGraphCache(path, 4, "unit")  # another process, another weight rule: a BFS does not weigh arcs
    assert again.hop_depths([0, 1], lambda: compute([0, 1])) == (depths, True)
    assert again.hop_depths([1, 0], lambda: compute([1, 0]))[1] is False  # other sources (their order too)
    assert computed == [[0, 1], [1, 0]]
    assert again.record()["hits"]["hop_depths"] == 1 and again.record()["computed"]["hop_depths"] == 1

    write_csr(from_arcs(4, [0, 1, 3], [1, 2, 2], weights=[1, 1, 1]), path)  # the graph replaced: another digest
    assert PerGraphCache(path, 4, "keep").hop_depths([0, 1], lambda: compute([0, 1]))[1] is False


@pytest.mark.parametrize("distances", [
    np.array([0.0, 3.0, np.inf, 7.0]),              # integers: kept as int32
    np.array([0.0, -4.0, 2.0, np.inf]),             # negative weights
    np.array([0.0, 0.5, 1.25, np.inf]),             # float32 weights: kept as float64
    np.array([0.0, 3e9, 1.0, 2.0]),                 # past int32
])
def test_a_stored_reference_reads_back_exactly(tmp_path, distances):
    path = write_csr(from_arcs(4, [0, 1, 2], [1, 2, 3], weights=[1, 1, 1]), tmp_path / "g.csr")
    PerGraphCache(path, 4, "keep").reference("sssp", 0, lambda: distances)
    read = PerGraphCache(path, 4, "keep").reference("sssp", 0, lambda: pytest.fail("computed again"))
    assert read.dtype == np.float64 and np.array_equal(read, distances)


def test_a_negative_cycle_is_remembered_and_a_damaged_file_computed_again(tmp_path):
    path = write_csr(from_arcs(4, [0, 1, 2], [1, 2, 3], weights=[1, 1, 1]), tmp_path / "g.csr")
    cache = PerGraphCache(path, 4, "keep")

    def cycle():
        raise NegativeCycleError("reference: negative cycle reachable from source 1")

    assert str(cache.reference("sssp", 1, cycle)) == "reference: negative cycle reachable from source 1"
    assert isinstance(PerGraphCache(path, 4, "keep").reference("sssp", 1, pytest.fail), NegativeCycleError)

    cache.reference("bfs", 0, lambda: np.arange(4.0))
    (stored,) = cache.folder.glob("ref-*-bfs-s0.npy")
    stored.write_bytes(stored.read_bytes()[:20])  # cut short, as by a full disk
    again = PerGraphCache(path, 4, "keep")
    assert np.array_equal(again.reference("bfs", 0, lambda: np.arange(4.0)), np.arange(4.0))
    assert again.record()["computed"]["references"] == 1
    assert not list(cache.folder.glob(".*.tmp"))  # every file was renamed into place


def test_the_cache_can_be_turned_off(tmp_path, monkeypatch, reference_calls):
    monkeypatch.setenv(per_graph.DISABLE_VARIABLE, "off")
    start_run(make_config(tmp_path, CONFIG), run_id="first", show_progress=False)
    run_dir = start_run(make_config(tmp_path, CONFIG), run_id="again", show_progress=False).run_dir
    assert len(reference_calls) == 2 * 12
    assert cache_record(run_dir, "rmat") == {"enabled": False, "computed": {"hop_depths": 0, "references": 6}}
    assert not list((tmp_path / "datasets").rglob("*.per-graph"))


def test_the_rooflines_hop_depths_are_read_by_the_next_run_on_a_device_faked_here(tmp_path, monkeypatch):
    from sssp_bench.run import roofline
    from sssp_bench.run import runner as runner_module

    depth_runs = []
    original = roofline.hop_depths
    monkeypatch.setattr(roofline, "hop_depths", lambda graph, sources: depth_runs.append(1) or original(graph, sources))
    monkeypatch.setattr(runner_module.gpu_runtime, "gpu_status", lambda: (True, "Fake GPU"))
    monkeypatch.setattr(roofline, "measure_device", lambda: {"available": True, "device": "Fake GPU",
                                                             "chain_latency_ns": 500.0, "copy_bandwidth_gbs": 3000.0})
    monkeypatch.setattr(roofline, "measure_relax_pass", lambda graph: {
        "relax_pass_ms": 1.0, "time_per_arc_ns": 1.0, "arcs": graph.m, "relax_repeats": 1, "relax_samples_ms": [1.0]})
    text = """
        graphs: [{graph: "grid:rows=16,cols=16,seed=1", label: grid}]
        implementations: [cpu-dijkstra, lonestar]
        sources: {count: 4, seed: 1}
    """
    first = start_run(make_config(tmp_path, text), run_id="first", show_progress=False).run_dir
    again = start_run(make_config(tmp_path, text), run_id="again", show_progress=False).run_dir
    assert depth_runs == [1]  # the second run read them
    records = [json.loads((run / "manifest.json").read_text())["graphs"]["grid"] for run in (first, again)]
    assert [record["roofline"]["hop_depths_cached"] for record in records] == [False, True]
    assert records[0]["roofline"]["per_source"] == records[1]["roofline"]["per_source"]
    assert records[1]["per_graph_cache"]["hits"]["hop_depths"] == 1
    floors = [row["floor_s"] for row in read_rows(again) if row["phase"] == "solve"]
    assert len(floors) == 4 and all(floor > 0 for floor in floors)  # every solve still gets its floor


def test_a_worker_process_keeps_its_graph_between_tasks_until_the_file_changes(tmp_path):
    from sssp_bench.run.config import GraphEntry
    from sssp_bench.run.resident import ProcessMemo

    memo = ProcessMemo()
    entry = GraphEntry("grid:rows=5,cols=5,seed=1", "grid", "keep")
    assert memo.loaded_graph(entry, tmp_path, None, False) is not memo.loaded_graph(entry, tmp_path, None, False)
    memo.keep_between_runs()  # as workers.run_shard does in a Dask worker
    kept = memo.loaded_graph(entry, tmp_path, None, False)
    assert memo.loaded_graph(entry, tmp_path, None, False) is kept
    assert memo.loaded_graph(GraphEntry(entry.graph, "grid", "unit"), tmp_path, None, False) is not kept
    reloaded = memo.loaded_graph(entry, tmp_path, None, False)
    write_csr(reloaded.graph, reloaded.path)  # the file replaced (another inode): loaded again
    assert memo.loaded_graph(entry, tmp_path, None, False) is not reloaded
