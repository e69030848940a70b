"""The report on small hand-written run folders: its tables, notes, failures, files and chart, merged runs."""

import math

import pandas as pd
import pytest

from runs import manifest, prepare, row_of, solve, standard_rows, write_run
from sssp_bench.report import write_report
from sssp_bench.report.text import format_table
from sssp_bench.results.summary import summarize


# ---------------------------------------------------------------------------------------------- results


def test_all_failures_show_zero_of_n_and_no_timing(tmp_path):
    rows = [solve("g1", "cpu-dijkstra", 0.01)]
    rows += [solve("g1", "gpu-x", None, status="timeout", certificate=None, source=i, device="gpu",
                   message="exceeded 1 s") for i in range(100)]
    run = write_run(tmp_path / "r1", manifest("r1"), rows)
    summary = summarize(run)
    gpu = row_of(summary, "g1", "gpu-x")
    assert gpu.verified_total == "0/100" and gpu.n_timeout == 100
    assert math.isnan(gpu.time_median_ms) and math.isnan(gpu.mteps_median)
    table = format_table(summary)
    assert "0/100" in table and "timeout 100" in table
    report = write_report(run)["markdown"].read_text()
    assert "| g1 | gpu-x | sssp | gpu | 0/100 | - |" in report
    assert "**g1 / gpu-x**: timeout ×100 (sources 0, 1, 2, 3, 4, ...): exceeded 1 s" in report


def test_prepare_failure_is_reported(tmp_path):
    rows = [solve("g1", "cpu-dijkstra", 0.01),
            prepare("g1", "gpu-x", None, status="out_of_memory", message="cudaMalloc of 40 GiB failed", device="gpu")]
    run = write_run(tmp_path / "r1", manifest("r1"), rows)
    gpu = row_of(summarize(run), "g1", "gpu-x")
    assert gpu.verified_total == "0/0" and gpu.prepare_status == "out_of_memory"
    assert "prepare out_of_memory" in gpu.failures
    report = write_report(run)["markdown"].read_text()
    assert "**g1 / gpu-x (prepare)**: out_of_memory: cudaMalloc of 40 GiB failed" in report


def test_bfs_and_sssp_mixed(tmp_path):
    # BFS levels equal SSSP distances only on an unweighted graph (g2): speedup there, none on weighted g1.
    rows = [solve("g1", "cpu-dijkstra", 0.010), solve("g1", "gpu-bfs", 0.001, kind="bfs", device="gpu"),
            solve("g2", "cpu-dijkstra", 0.008), solve("g2", "gpu-bfs", 0.002, kind="bfs", device="gpu")]
    run = write_run(tmp_path / "r1", manifest("r1"), rows)
    summary = summarize(run)
    assert math.isnan(row_of(summary, "g1", "gpu-bfs").speedup)
    assert "weighted" in row_of(summary, "g1", "gpu-bfs").speedup_note
    assert row_of(summary, "g2", "gpu-bfs").speedup == pytest.approx(4.0)
    assert "gpu-bfs" in write_report(run)["markdown"].read_text()


def test_rows_without_a_speedup_are_grouped_by_reason(tmp_path):
    rows = [solve(graph, name, 0.01, kind=kind) for graph in ("g1", "g3") for name, kind in
            (("cpu-dijkstra", "sssp"), ("cpu-bfs", "bfs"), ("gpu-bfs", "bfs"))]
    graphs = {graph: {"n": 10, "m": 20, "directed": True, "weighted": True, "provenance": {}} for graph in ("g1", "g3")}
    report = write_report(write_run(tmp_path / "r1", manifest("r1", graphs=graphs), rows))["markdown"].read_text()
    assert ("- baseline solves sssp, this solves bfs (weighted graph): cpu-bfs on g1, g3; gpu-bfs on g1, g3"
            in report)
    per_kind = {"sssp": "cpu-dijkstra", "bfs": "cpu-bfs"}
    report = write_report(write_run(tmp_path / "r2", manifest("r2", graphs=graphs, baseline=per_kind),
                                    [{**row, "run_id": "r2"} for row in rows]))["markdown"].read_text()
    assert "No speedup for" not in report and "| baseline | sssp: cpu-dijkstra, bfs: cpu-bfs |" in report


# ---------------------------------------------------------------------------------------------- merging


def test_merged_runs_keep_colliding_variants_apart(tmp_path):
    first = write_run(tmp_path / "r1", manifest("r1"), [solve("g1", "cpu-dijkstra", 0.020)])
    second = write_run(tmp_path / "r2", manifest("r2"), [
        solve("g1", "cpu-dijkstra", 0.040, run_id="r2"),
        solve("g1", "gpu-x", 0.004, device="gpu", run_id="r2"),
    ])
    summary = summarize([first, second])
    assert list(summary["variant"]) == ["r1/cpu-dijkstra", "r2/cpu-dijkstra", "gpu-x"]
    # Each run's speedup is over its own baseline: 40 / 4, not the pooled or the other run's.
    assert row_of(summary, "g1", "gpu-x").speedup == pytest.approx(10.0)
    assert row_of(summary, "g1", "gpu-x").baseline == "r2/cpu-dijkstra"
    assert row_of(summary, "g1", "r1/cpu-dijkstra").time_median_ms == pytest.approx(20.0)
    text = write_report([first, second])["markdown"].read_text()
    assert "| g1 | r2/cpu-dijkstra | sssp | cpu | 1/1 | 40.0 (0) |" in text
    assert "named `run-id/variant`" in text


def test_merged_runs_borrow_a_baseline_measured_elsewhere(tmp_path):
    cpu = write_run(tmp_path / "cpu-run", manifest("cpu-run"), [solve("g1", "cpu-dijkstra", 0.030, run_id="cpu-run")])
    gpu = write_run(tmp_path / "gpu-run", manifest("gpu-run", baseline=None),
                    [solve("g1", "gpu-x", 0.003, device="gpu", run_id="gpu-run")])
    summary = summarize([cpu, gpu])
    row = row_of(summary, "g1", "gpu-x")
    assert row.speedup == pytest.approx(10.0) and row.baseline_run_id == "cpu-run"
    paths = write_report([cpu, gpu], out_dir=tmp_path / "merged")
    text = paths["markdown"].read_text()
    assert "# sssp-bench report: cpu-run, gpu-run" in text
    assert "another of the merged runs" in text


# ---------------------------------------------------------------------------------------------- output


def test_write_report_writes_five_files(tmp_path):
    run = write_run(tmp_path / "r1", manifest("r1"), standard_rows())
    paths = write_report(run)
    assert set(paths) == {"markdown", "csv", "recommendations", "png", "svg"}
    for path in paths.values():
        assert path.parent == run and path.stat().st_size > 0
    assert paths["png"].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert b"<svg" in paths["svg"].read_bytes()[:1000]

    csv = pd.read_csv(paths["csv"])
    assert len(csv) == 4
    # the baseline verified sources 0-3, gpu-x 0-4: the speedup is over the four both verified (25 / 2.5)
    assert csv.loc[csv["variant"] == "gpu-x", "speedup"].iloc[0] == pytest.approx(10.0)
    assert csv.loc[csv["variant"] == "gpu-x", "speedup_sources"].iloc[0] == "4/5"

    text = paths["markdown"].read_text()
    for expected in ("## Provenance", "testhost", "Test CPU (8 logical cores)", "0123456789ab (dirty)",
                     "unit-test (abc123def456)", "none (CuPy not installed)", "## Results", "## Failures",
                     "## Metrics", "verified solves only", "arcs leaving reached vertices / time",
                     "| g1 | gpu-x | sssp | gpu | 5/7 | 3.00 (2.00) | 1.00 | 0.333 |  | 10.0x (4/5) | 10.0x (4/5) | "
                     "500 |",
                     "speedup = the baseline's median time / the variant's, both over the sources both verified "
                     "(sssp: over cpu-dijkstra).",
                     "A speedup followed by (k/n) is over the k sources both sides verified, of the n the busier "
                     "side verified (the baseline ran fewer sources, or one side failed on some).",
                     "**g1 / gpu-x**: wrong_answer (source 7): distance of vertex 3 is 5, expected 4",
                     "**g2 / cpu-dijkstra**: timeout ×2 (sources 0, 1): exceeded 60 s",
                     "![Speedup over cpu-dijkstra"):
        assert expected in text, expected


def test_out_dir_is_created(tmp_path):
    run = write_run(tmp_path / "r1", manifest("r1"), standard_rows())
    paths = write_report(run, out_dir=tmp_path / "out" / "deep")
    assert all(path.parent == tmp_path / "out" / "deep" for path in paths.values())
    assert not (run / "report.md").exists()


def test_no_baseline_plots_time(tmp_path):
    run = write_run(tmp_path / "r1", manifest("r1", baseline=None), standard_rows())
    summary = summarize(run)
    assert summary["speedup"].isna().all()
    paths = write_report(run)
    text = paths["markdown"].read_text()
    assert "No baseline was configured" in text
    assert "Median time per solve (no baseline" in text
    assert "Median time per solve" in paths["svg"].read_text()


def test_run_without_rows(tmp_path):
    run = write_run(tmp_path / "r1", manifest("r1", status="interrupted"), [])
    summary = summarize(run)
    assert summary.empty
    assert format_table(summary) == "(no rows)"
    text = write_report(run)["markdown"].read_text()
    assert "was interrupted" in text and "No rows were recorded" in text


def test_format_table_is_fixed_width(tmp_path):
    summary = summarize(write_run(tmp_path / "r1", manifest("r1"), standard_rows()))
    lines = format_table(summary).splitlines()
    header, rule = lines[0], lines[1]
    assert header.split()[:5] == ["graph", "variant", "kind", "dev", "verified"]
    assert set(rule.replace(" ", "")) == {"-"}
    # Right-aligned numeric columns end at the same position on every line.
    end = header.index("speedup") + len("speedup")
    for line in lines[2:6]:
        assert line[end - 1] in "x-)", line
    assert "10.0x (4/5)" in lines[3]


def test_chart_with_ten_graphs_and_eight_variants(tmp_path):
    graphs = {f"graph-{g}": {"n": 10, "m": 10, "directed": True, "weighted": True} for g in range(10)}
    rows = []
    for g in range(10):
        rows.append(solve(f"graph-{g}", "cpu-dijkstra", 0.05))
        for v in range(7):
            rows.append(solve(f"graph-{g}", f"gpu-variant-{v}", 0.05 / (v + 1) ** 1.5 * (1 + g / 10), device="gpu"))
    paths = write_report(write_run(tmp_path / "r1", manifest("r1", graphs=graphs), rows))
    assert paths["png"].stat().st_size > 10_000


def test_speed_targets_are_scaled_by_bandwidth_and_checked(tmp_path):
    # gpu-x on g1: 1000 arcs in 1..5 ms -> median 0.333 MTEPS; the paper's 0.01 MTEPS x (4800 / 288) = 0.167
    targets = {"source": "a paper's Table 2", "paper_bandwidth_gbs": 288.0,
               "device_bandwidth_gbs": {"H100": 3350.0, "H200": 4800.0},
               "mteps": {"g1": {"gpu-x": 0.01, "cpu-dijkstra": 1.0}}}
    run = manifest("r1", config={"name": "unit-test", "targets": targets})
    run["provenance"]["gpu"] = {"available": True, "name": "NVIDIA H200"}
    summary = summarize(write_run(tmp_path / "r1", run, standard_rows()))
    assert row_of(summary, "g1", "gpu-x")["target_mteps"] == pytest.approx(0.01 * 4800 / 288)
    assert row_of(summary, "g1", "gpu-x")["target_met"] is True
    assert row_of(summary, "g1", "cpu-dijkstra")["target_met"] is False
    assert row_of(summary, "g2", "gpu-x")["target_met"] is None
    markdown = (tmp_path / "r1" / write_report([tmp_path / "r1"])["markdown"].name).read_text()
    assert "## Speed targets" in markdown and "x 16.67" in markdown and "| **no** |" in markdown


# ---------------------------------------------------------------------------------------------- stand-ins


def test_a_stand_in_graph_is_marked_in_every_table(tmp_path):
    graphs = {
        "asia.osm": {"n": 400, "m": 1000, "directed": False, "weighted": True, "provenance": {"spec": "road:..."},
                     "origin": "stand-in", "stand_in_for": "asia.osm", "stand_in": "road:n=400,seed=3",
                     "stand_in_note": "road network of the same size"},
        "g2": {"n": 50, "m": 200, "directed": False, "weighted": True, "provenance": {}, "stand_in_for": None},
    }
    rows = [solve("asia.osm", "cpu-dijkstra", 0.010), solve("asia.osm", "gpu-x", 0.002, device="gpu"),
            solve("g2", "cpu-dijkstra", 0.004), solve("g2", "gpu-x", 0.001, device="gpu")]
    run = write_run(tmp_path / "r1", manifest("r1", graphs=graphs), rows)
    summary = summarize(run)
    assert row_of(summary, "asia.osm", "gpu-x")["stand_in"] == "road:n=400,seed=3"
    assert row_of(summary, "asia.osm", "gpu-x")["stand_in_for"] == "asia.osm"
    assert row_of(summary, "g2", "gpu-x")["stand_in"] == ""
    assert row_of(summary, "asia.osm", "gpu-x")["speedup"] == pytest.approx(5.0)  # the label is still the graph

    markdown = write_report(run)["markdown"].read_text()
    assert "| asia.osm † | stand-in †: generated road:n=400,seed=3 |" in markdown
    assert "- asia.osm: stand-in for asia.osm, `road:n=400,seed=3`: road network of the same size" in markdown
    assert "| asia.osm † | gpu-x |" in markdown and "| g2 | gpu-x |" in markdown
    assert "† A synthetic stand-in ran under this label" in markdown

    table = format_table(summary)
    assert "asia.osm †" in table and "† a synthetic stand-in" in table


def test_real_graphs_are_not_marked(tmp_path):
    summary = summarize(write_run(tmp_path / "r1", manifest("r1"), standard_rows()))
    assert set(summary["stand_in_for"]) == {""}
    assert "†" not in format_table(summary)


# ---------------------------------------------------------------------------------------------- sections


def test_report_md_is_its_sections_in_order(tmp_path):
    run = write_run(tmp_path / "r1", manifest("r1"), standard_rows())
    text = write_report(run)["markdown"].read_text()
    headings = [line for line in text.splitlines() if line.startswith("#")]
    assert headings == ["# sssp-bench report: r1", "## Provenance", "## Graphs (Table 1)", "## Results",
                        "## Which variant to pick", "## Failures",
                        "## Metrics"]  # no roofline, targets or claims in this run


def test_a_new_section_is_one_function_in_the_list(tmp_path, monkeypatch):
    import sssp_bench.report as reporting
    from sssp_bench.report.sections import SECTIONS

    def fastest(report):
        """A paper's own section: the fastest variant per graph, from the summary."""
        timed = report.summary.dropna(subset=["time_median_ms"])
        best = [(graph, rows.loc[rows["time_median_ms"].idxmin(), "variant"])
                for graph, rows in timed.groupby("graph", sort=False)]
        return ["## Fastest", "", *(f"- {graph}: {variant}" for graph, variant in best), ""]

    monkeypatch.setattr(reporting, "SECTIONS", (*SECTIONS[:-1], fastest, SECTIONS[-1]))
    text = write_report(write_run(tmp_path / "r1", manifest("r1"), standard_rows()))["markdown"].read_text()
    assert "## Fastest\n\n- g1: gpu-x\n- g2: gpu-x\n\n## Metrics" in text


def test_an_all_pairs_variant_is_marked_in_every_table_and_the_chart(tmp_path):
    # floyd-warshall's time is the all-pairs time: every number of its row carries the mark, and the report says
    # what it is per source (time / n: 50 ms / 100 vertices)
    rows = [solve("g1", "cpu-dijkstra", 0.010, source=source) for source in range(10)]
    rows += [solve("g1", "floyd-warshall", 0.050, device="gpu", source=source) for source in range(10)]
    run = write_run(tmp_path / "r1", manifest("r1"), rows)
    written = write_report(run)
    report = written["markdown"].read_text()
    assert "| g1 | floyd-warshall | sssp | gpu | 10/10 | 50.0 (0) ‡ | 50.0 ‡ | 0.02 ‡ |  | 0.2x ‡ | 0.2x ‡ | - |" in (
        report)
    assert ("‡ floyd-warshall: every solve computes all pairs (and returns the source's row), so its time, MTEPS, "
            "efficiency and speedup are of the all-pairs computation, beside the others' single-source solves; per "
            "source (time / n): 0.5 ms on g1.") in report
    assert "| g1 | cpu-dijkstra | sssp | cpu | 10/10 | 10.0 (0) | 10.0 | 0.1 |  | 1.00x | - | - |" in report
    terminal = format_table(summarize(run))
    assert "50.0 ‡" in terminal and "0.2x ‡" in terminal and "‡ floyd-warshall: every solve" in terminal
    assert "floyd-warshall (all pairs)" in written["svg"].read_text()


def test_the_speedup_over_the_best_cpu_variant_stands_beside_the_papers_baseline(tmp_path):
    # the config's baseline is the paper's (cpu-dijkstra, 40 ms); the run also measured a faster CPU variant
    rows = [solve("g1", "cpu-dijkstra", 0.040, source=source) for source in range(10)]
    rows += [solve("g1", "cpu-delta-stepping", 0.008, source=source) for source in range(10)]
    rows += [solve("g1", "gpu-x", 0.002, device="gpu", source=source) for source in range(10)]
    run = write_run(tmp_path / "r1", manifest("r1"), rows)
    written = write_report(run)
    report = written["markdown"].read_text()
    assert "| speedup | vs best CPU | prepare ms |" in report
    assert "| g1 | gpu-x | sssp | gpu | 10/10 | 2.00 (0) | 2.00 | 0.5 |  | 20.0x | 4.00x | - |" in report
    assert "| g1 | cpu-delta-stepping | sssp | cpu | 10/10 | 8.00 (0) | 8.00 | 0.125 |  | 5.00x | - | - |" in report
    best_line = ("vs best CPU = the fastest verified CPU variant of the same problem kind on the graph (by median "
                 "time) / the variant's median time, both over the sources both verified; the best CPU variant: g1: "
                 "sssp cpu-delta-stepping (8.00 ms).")
    assert best_line in report
    assert "- **vs best CPU**: for a GPU variant, the median time of the fastest CPU variant" in report
    csv = pd.read_csv(written["csv"])
    gpu = csv[csv["variant"] == "gpu-x"].iloc[0]
    assert (gpu.best_cpu, gpu.best_cpu_speedup, gpu.best_cpu_sources) == ("cpu-delta-stepping", 4.0, "10/10")
    terminal = format_table(summarize(run))
    assert "vs best CPU" in terminal.splitlines()[0] and best_line in terminal
    # speedup, vs best CPU (then prepare ms and failures): a CPU row has none over the best CPU
    assert [line.split()[-4:-2] for line in terminal.splitlines()[2:5]] == [["1.00x", "-"], ["5.00x", "-"],
                                                                            ["20.0x", "4.00x"]]


def test_runs_that_ran_different_graphs_under_one_label_are_refused_rather_than_set_side_by_side(tmp_path):
    # a run without the dataset cache ran the stand-in under the real graph's label; its workfront beside the other
    # run's hbf on the real graph would be a speed-up and a recommendation across two graphs
    from click.testing import CliRunner

    from runs import timed
    from sssp_bench.cli import cli

    road = {"n": 264346, "m": 735180, "directed": False, "weighted": True, "provenance": {}, "weights": "keep"}
    stand_in = {**road, "stand_in_for": "USA-road-d.NY", "stand_in": "road:n=264346,degree=2.78,seed=1"}
    real = write_run(tmp_path / "real", manifest("real", baseline=None, graphs={"USA-road-d.NY": road}),
                     timed("USA-road-d.NY", "hbf", 1.3, run_id="real"))
    other = write_run(tmp_path / "other", manifest("other", baseline=None, graphs={"USA-road-d.NY": stand_in}),
                      timed("USA-road-d.NY", "workfront", 1.0, run_id="other"))
    result = CliRunner().invoke(cli, ["report", str(real), str(other)])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert result.output.strip() == (
        "Error: runs real and other ran different graphs under the label 'USA-road-d.NY' (real ran the real graph, "
        "other the stand-in road:n=264346,degree=2.78,seed=1): report them apart")
    assert not (real / "report.md").exists()
    same = write_run(tmp_path / "same", manifest("same", baseline=None, graphs={"USA-road-d.NY": road}),
                     timed("USA-road-d.NY", "workfront", 1.0, run_id="same"))
    assert CliRunner().invoke(cli, ["report", str(real), str(same)]).exit_code == 0
