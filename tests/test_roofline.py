"""The roofline without a GPU (CI): the floor arithmetic, hop depths, the runner's manifest and row fields with
no GPU and with faked device measurements, the report's efficiency column, and the `roofline` command."""

from __future__ import annotations

import json
import math
import textwrap

import pytest
from click.testing import CliRunner

from sssp_bench import impls
from sssp_bench.run import provenance, roofline
from sssp_bench.cli import cli
from sssp_bench.run.config import parse_config
from sssp_bench.graph.csr import from_arcs
from sssp_bench.graph.generators import generate
from sssp_bench.kernels.bfs import bfs_levels
from sssp_bench.gpu import runtime
from sssp_bench.report import write_report
from sssp_bench.report.text import format_table
from sssp_bench.results.summary import summarize
from sssp_bench.run.runner import start_run

# ---------------------------------------------------------------------------------------------- arithmetic


def test_the_floor_is_the_larger_of_the_two_bounds():
    assert roofline.floor_seconds(1000, 5, 2e-9, 1e-6) == pytest.approx(5e-6)      # latency-bound
    assert roofline.floor_seconds(10**6, 5, 2e-9, 1e-6) == pytest.approx(2e-3)     # arc-bound
    assert roofline.floor_seconds(0, 0, 2e-9, 1e-6) == 0.0                         # the source alone
    assert roofline.floor_seconds(1000, 5, None, 1e-6) == pytest.approx(5e-6)      # a term not measured
    assert roofline.floor_seconds(1000, 5, 2e-9, None) == pytest.approx(2e-6)
    assert roofline.floor_seconds(1000, 5, None, None) is None


def test_source_floor_records_both_bounds_and_which_one_binds():
    item = roofline.source_floor({"source": 3, "hop_depth": 40, "reached_arcs": 10_000}, 0.5, 600.0)
    assert item["arcs_bound_s"] == pytest.approx(10_000 * 0.5e-9)
    assert item["latency_bound_s"] == pytest.approx(40 * 600e-9)
    assert item["floor_s"] == pytest.approx(40 * 600e-9) and item["bound"] == "latency"
    item = roofline.source_floor({"source": 3, "hop_depth": 2, "reached_arcs": 10**7}, 0.5, 600.0)
    assert item["floor_s"] == pytest.approx(10**7 * 0.5e-9) and item["bound"] == "arcs"
    missing = roofline.source_floor({"source": 3, "hop_depth": 2, "reached_arcs": 10}, None, None)
    assert missing["floor_s"] is None and missing["bound"] is None
    assert roofline.median_floor([{"floor_s": 1.0}, {"floor_s": 3.0}, {"floor_s": None}]) == 2.0
    assert roofline.median_floor([]) is None


def test_hop_depths_by_hand():
    # 0 -> 1 -> 2 -> 3, 0 -> 3 (a shortcut), 4 -> 0 (unreached from 0), 5 isolated
    graph = from_arcs(6, [0, 1, 2, 0, 4], [1, 2, 3, 3, 0], [1, 1, 1, 9, 1])
    depths = roofline.hop_depths(graph, [0, 4, 5, 3])
    assert depths == [
        {"source": 0, "hop_depth": 2, "reached_vertices": 4, "reached_arcs": 4},
        {"source": 4, "hop_depth": 3, "reached_vertices": 5, "reached_arcs": 5},
        {"source": 5, "hop_depth": 0, "reached_vertices": 1, "reached_arcs": 0},
        {"source": 3, "hop_depth": 0, "reached_vertices": 1, "reached_arcs": 0},
    ]


def test_hop_depths_of_many_sources_in_parallel_equal_one_bfs_each():
    graph = generate("rmat:n=2048,m=16384,seed=3")
    sources = list(range(0, 2048, 37))
    out_degrees = graph.out_degrees()
    expected = []
    for source in sources:
        levels = bfs_levels(graph, source)
        expected.append({"source": source, "hop_depth": int(levels.max()),
                         "reached_vertices": int((levels >= 0).sum()),
                         "reached_arcs": int(out_degrees[levels >= 0].sum())})
    assert roofline.hop_depths(graph, sources) == expected


# ---------------------------------------------------------------------------------------------- runner

CONFIG = """
    graphs: ["grid:rows=6,cols=6,seed=1", "rmat:n=512,m=4096,seed=2"]
    implementations: [cpu-dijkstra, lonestar]
    sources: {count: 3, seed: 1}
    verification: {reference_sources: 1}
"""


def run(tmp_path, text=CONFIG, run_id="t"):
    config = parse_config(textwrap.dedent(text), str(tmp_path / "t.yaml"), default_name="t")
    config.output, config.datasets = tmp_path / "results", tmp_path / "datasets"
    outcome = start_run(config, run_id=run_id, show_progress=False)
    manifest = json.loads((outcome.run_dir / "manifest.json").read_text())
    rows = [json.loads(line) for line in (outcome.run_dir / "rows.jsonl").read_text().splitlines()]
    return outcome, manifest, rows


def test_without_a_gpu_the_roofline_is_skipped_and_says_why(tmp_path, monkeypatch):
    monkeypatch.setattr(runtime, "gpu_status", lambda refresh=False: (False, "no CUDA device here"))
    _, manifest, rows = run(tmp_path)
    assert manifest["roofline"] == {"available": False, "reason": "no GPU: no CUDA device here"}
    assert all("roofline" not in info for info in manifest["graphs"].values())
    assert manifest["status"] == "complete"
    solves = [row for row in rows if row["phase"] == "solve"]
    assert solves and all(row["floor_s"] is None for row in solves)
    assert all(row["status"] == "ok" for row in solves)


def test_without_a_gpu_implementation_the_roofline_is_not_measured(tmp_path):
    text = CONFIG.replace("[cpu-dijkstra, lonestar]", "[cpu-dijkstra]")
    _, manifest, rows = run(tmp_path, text)
    assert manifest["roofline"] == {"available": False, "reason": "no GPU implementation in the config"}
    assert all(row.get("floor_s") is None for row in rows)


def fake_device(monkeypatch, fail_relax_on=None):
    """Device measurements faked (no GPU needed); the hop depths are the real CPU BFS."""
    monkeypatch.setattr(runtime, "gpu_status", lambda refresh=False: (True, "Fake GPU"))
    monkeypatch.setattr(impls.get("lonestar"), "available", classmethod(lambda cls: (False, "not in this test")))
    monkeypatch.setattr(roofline, "measure_device", lambda: {
        "available": True, "device": "Fake GPU", "copy_bandwidth_gbs": 3000.0, "chain_latency_ns": 700.0})

    def relax(graph, **_):
        if fail_relax_on is not None and graph.n == fail_relax_on:
            raise runtime.DeviceMemoryError("roofline relax pass", 10 << 30, 1 << 30)
        return {"relax_pass_ms": graph.m * 2e-6, "time_per_arc_ns": 2.0, "arcs": graph.m, "relax_repeats": 1,
                "relax_samples_ms": [graph.m * 2e-6]}

    monkeypatch.setattr(roofline, "measure_relax_pass", relax)


def test_with_device_measurements_every_solve_row_gets_its_sources_floor(tmp_path, monkeypatch):
    fake_device(monkeypatch)
    outcome, manifest, rows = run(tmp_path)
    assert manifest["roofline"]["available"] is True and manifest["roofline"]["chain_latency_ns"] == 700.0
    solves = [row for row in rows if row["phase"] == "solve" and row["variant"] == "cpu-dijkstra"]
    assert len(solves) == 6
    for label, info in manifest["graphs"].items():
        record = info["roofline"]
        assert record["available"] is True and record["time_per_arc_ns"] == 2.0
        assert [item["source"] for item in record["per_source"]] == info["sources"]
        for item in record["per_source"]:
            expected = max(item["reached_arcs"] * 2e-9, item["hop_depth"] * 700e-9)
            assert item["floor_s"] == pytest.approx(expected) and item["hop_depth"] >= 1
        for row in solves:
            if row["graph"] == label:
                item = next(i for i in record["per_source"] if i["source"] == row["source"])
                assert row["floor_s"] == item["floor_s"] and row["reached_arcs"] == item["reached_arcs"]
    prepares = [row for row in rows if row["phase"] == "prepare"]
    assert all(row["floor_s"] is None for row in prepares)
    summary = summarize(outcome.run_dir)
    dijkstra = summary[summary["variant"] == "cpu-dijkstra"]
    assert dijkstra["efficiency"].notna().all() and (dijkstra["efficiency"] > 0).all()


def test_a_graph_whose_relax_pass_fails_is_recorded_and_the_run_goes_on(tmp_path, monkeypatch):
    fake_device(monkeypatch, fail_relax_on=36)  # the 6x6 grid
    _, manifest, rows = run(tmp_path)
    grid, rmat = manifest["graphs"].values()
    assert grid["roofline"]["available"] is False and "out_of_memory" in grid["roofline"]["reason"]
    assert rmat["roofline"]["available"] is True
    solves = [row for row in rows if row["phase"] == "solve"]
    assert all((row["floor_s"] is None) == (row["graph"] == "grid:rows=6,cols=6,seed=1") for row in solves)
    assert manifest["status"] == "complete"


# ---------------------------------------------------------------------------------------------- report


def solve_row(graph, implementation, time_s, floor_s, status="ok", certificate=True, device="gpu", source=0):
    return {
        "run_id": "r1", "phase": "solve", "graph": graph, "implementation": implementation,
        "variant": implementation, "params": {}, "device": device, "kind": "sssp", "source": source,
        "source_index": source, "repetition": 0, "status": status, "message": "", "time_s": time_s,
        "end_to_end_s": time_s, "reached_vertices": 10, "reached_arcs": 1000, "mteps": 1000 / time_s / 1e6,
        "certificate": certificate, "reference": None, "counters": {}, "floor_s": floor_s,
    }


def write_run(directory, rows, roofline_record=None):
    directory.mkdir(parents=True)
    manifest = {"run_id": directory.name, "status": "complete", "baseline": None, "provenance": {},
                "graphs": {"g": {"n": 10, "m": 1000, "weighted": True}}}
    if roofline_record is not None:
        manifest["roofline"] = roofline_record
    (directory / "manifest.json").write_text(json.dumps(manifest))
    (directory / "rows.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))
    return directory


def test_efficiency_is_the_median_floor_over_time_of_verified_solves(tmp_path):
    rows = [solve_row("g", "fast", t, 0.001, source=i) for i, t in enumerate([0.002, 0.004, 0.010])]
    rows.append(solve_row("g", "fast", 0.0001, 0.001, status="wrong_answer", certificate=False, source=9))
    rows += [solve_row("g", "old", t, None, device="cpu", source=i) for i, t in enumerate([0.5, 0.6])]
    run_dir = write_run(tmp_path / "r1", rows, {"available": True, "device": "Fake GPU", "copy_bandwidth_gbs": 3000,
                                                  "chain_latency_ns": 700})
    summary = summarize(run_dir).set_index("variant")
    assert summary.loc["fast", "efficiency"] == pytest.approx(0.25)  # median of 50%, 25%, 10%
    assert summary.loc["fast", "floor_median_ms"] == pytest.approx(1.0)
    assert math.isnan(summary.loc["old", "efficiency"])  # no floor recorded: blank

    table = format_table(summarize(run_dir))
    header, _, fast, old = table.splitlines()[:4]
    assert "efficiency" in header and "25%" in fast
    column = header.index("efficiency")
    assert old[column: column + len("efficiency")].strip() == ""  # blank, not "-"
    assert "efficiency = roofline floor / measured time" in table

    written = write_report(run_dir)
    markdown = written["markdown"].read_text()
    assert "| efficiency |" in markdown
    assert "| 25% |" in markdown and "| 0.5 |" not in markdown
    assert "**efficiency**: the roofline floor of a solve / its measured time" in markdown
    assert "## Roofline" in markdown and "Fake GPU" in markdown
    csv_header = written["csv"].read_text().splitlines()[0].split(",")
    assert "efficiency" in csv_header


def test_old_rows_without_floor_s_still_report(tmp_path):
    rows = [solve_row("g", "x", 0.002, None)]
    for row in rows:
        del row["floor_s"]
    summary = summarize(write_run(tmp_path / "r1", rows))
    assert math.isnan(summary.loc[0, "efficiency"])
    assert "efficiency" in format_table(summary) and "efficiency =" not in format_table(summary)


# ---------------------------------------------------------------------------------------------- command


def test_roofline_help():
    result = CliRunner().invoke(cli, ["roofline", "--help"])
    assert result.exit_code == 0
    assert "Usage: " in result.output and "--sources" in result.output and "--seed" in result.output


def test_roofline_without_a_gpu_is_a_one_line_error(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(runtime, "gpu_status", lambda refresh=False: (False, "CuPy not installed"))
    result = CliRunner().invoke(cli, ["roofline", "grid:rows=5,cols=5", "--sources", "2"], catch_exceptions=False)
    assert result.exit_code == 2
    assert result.output.strip() == "Error: roofline needs a CUDA GPU: CuPy not installed"
    assert not (tmp_path / "datasets").exists()  # refused before any work


def test_a_later_run_on_the_same_gpu_reuses_its_device_constants_and_relax_passes(tmp_path, monkeypatch):
    fake_device(monkeypatch)
    monkeypatch.setattr(provenance, "gpu_info", lambda: {"available": True, "name": "Fake GPU", "uuid": "GPU-0"})
    counted = {"device": 0, "relax": 0}
    measure_device, measure_relax = roofline.measure_device, roofline.measure_relax_pass

    def count(kind, measure):
        def counting(*args, **kwargs):
            counted[kind] += 1
            return measure(*args, **kwargs)
        return counting

    monkeypatch.setattr(roofline, "measure_device", count("device", measure_device))
    monkeypatch.setattr(roofline, "measure_relax_pass", count("relax", measure_relax))
    _, first, _ = run(tmp_path, run_id="first")
    _, second, rows = run(tmp_path, run_id="second")
    assert counted == {"device": 1, "relax": 2}  # once for the GPU, once per graph
    assert "reused" not in first["roofline"] and second["roofline"]["reused"]["age_s"] >= 0
    for label, info in second["graphs"].items():
        assert info["roofline"]["time_per_arc_ns"] == first["graphs"][label]["roofline"]["time_per_arc_ns"]
        assert info["roofline"]["reused"]["age_s"] >= 0  # the relax pass
    assert all(row["floor_s"] is not None for row in rows if row["phase"] == "solve")
