"""Figures: a config's `figures` drawn by the report from a real run, a paper's line plot redrawn (speedup against
size, as the course project plots it), with the paper's published values beside ours."""

from __future__ import annotations

import math

import pytest

from sssp_bench.errors import ConfigError
from sssp_bench.report import build_report, write_report
from sssp_bench.results.figures import x_value
from sssp_bench.run.config import select_graphs
from sssp_bench.run.runner import start_run

from runs import make_config

SIZE_SCALING = """
    graphs:
      - {graph: "random:n=500,m=5000,seed=1", label: size-500}
      - {graph: "random:n=2000,m=20000,seed=1", label: size-2K}
      - {graph: "random:n=8000,m=80000,seed=1", label: size-8K}
    implementations: [cpu-dijkstra, cpu-bf-queue, {name: cpu-bf, sources: 2}]
    sources: {count: 4}
    baseline: cpu-dijkstra
    figures:
      - name: size
        title: Speedup over Dijkstra against size
        x: vertices
        graphs: [size-500, size-2K, size-8K]
        paper: {cpu-bf-queue: [0.5, null, 0.8], published-only: [1, 2, 4]}
      - {name: degree, x: "param:m", y: time, graphs: [size-500, size-8K], variants: [cpu-bf]}
"""


@pytest.fixture(scope="module")
def size_run(tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp("figures")
    return start_run(make_config(tmp_path, SIZE_SCALING), run_id="sizes", show_progress=False).run_dir


def test_each_variant_but_the_baseline_is_a_line_through_every_graph(size_run):
    size, degree = build_report(size_run).figures
    measured = size.points[~size.points["published"]]
    assert set(measured["series"]) == {"cpu-bf-queue", "cpu-bf"}
    assert sorted(measured.loc[measured["series"] == "cpu-bf-queue", "x"]) == [500.0, 2000.0, 8000.0]
    assert all(value > 0 and math.isfinite(value) for value in measured["value"])
    published = size.points[size.points["published"]]
    assert sorted(published.loc[published["series"] == "cpu-bf-queue", "x"]) == [500.0, 8000.0]  # null: no point
    assert list(published.loc[published["series"] == "published-only", "value"]) == [1.0, 2.0, 4.0]
    assert (degree.y, degree.x_label, set(degree.points["series"])) == ("time", "m", {"cpu-bf"})
    assert sorted(degree.points["x"]) == [5000.0, 80000.0]  # the generator's own parameter


def test_the_report_draws_each_figure_and_tabulates_its_points(size_run):
    written = write_report(size_run)
    assert written["figure-size"].is_file() and (size_run / "figure-size.png").is_file()
    assert written["figure-degree"].is_file()
    report = (size_run / "report.md").read_text()
    assert "## Figures" in report and "![Speedup over Dijkstra against size](figure-size.svg)" in report
    assert "| series | size-500 (500) | size-2K (2000) | size-8K (8000) |" in report
    assert "| cpu-bf-queue (paper) | 0.5 | - | 0.8 |" in report
    assert "| published-only (paper) | 1.00 | 2.00 | 4.00 |" in report


def test_a_config_split_over_two_runs_draws_each_figure_once(tmp_path):
    # a long config run a few graphs per device call (`run --graph`), then reported together
    first = start_run(select_graphs(make_config(tmp_path / "a", SIZE_SCALING), ["size-500", "size-2K"]),
                      run_id="first", show_progress=False).run_dir
    second = start_run(select_graphs(make_config(tmp_path / "b", SIZE_SCALING), ["size-8K"]),
                       run_id="second", show_progress=False).run_dir
    size, degree = build_report([first, second]).figures
    measured = size.points[~size.points["published"]]
    assert sorted(measured.loc[measured["series"] == "cpu-bf-queue", "x"]) == [500.0, 2000.0, 8000.0]
    assert sorted(size.points.loc[size.points["series"] == "published-only", "x"]) == [500.0, 2000.0, 8000.0]
    assert size.columns == ["size-500", "size-2K", "size-8K"] and sorted(degree.points["x"]) == [5000.0, 80000.0]
    written = write_report([first, second], out_dir=tmp_path / "both")
    assert "figure-size" in written and "figure-first-size" not in written


def test_x_is_read_from_the_graphs_record():
    record = {"n": 100, "m": 400, "provenance": {"params": {"degree": 4, "seed": 1, "directed": True}}}
    assert [x_value(record, x) for x in ("vertices", "arcs", "average_degree", "param:degree")] == [100, 400, 4, 4]
    assert x_value(record, "param:directed") is None and x_value({}, "arcs") is None


DELTA_SWEEP = """
    graphs:
      - {graph: "random:n=2000,m=20000,seed=1", label: r2K}
      - {graph: "grid:rows=40,cols=40,seed=1", label: grid}
    implementations:
      - cpu-dijkstra
      - {name: cpu-delta-stepping, label: ds, params: {delta: [10, 100, 1000], threads: 1}}
    sources: {count: 3}
    figures:
      - {name: buckets, title: Buckets against delta, x: "sweep:delta", y: "counter:buckets", graphs: [r2K, grid],
         variants: [ds]}
      - {name: tuning, x: "sweep:delta", y: time, graphs: [grid]}
"""


def test_a_sweep_figure_puts_each_variant_at_its_parameter_value(tmp_path):
    run_dir = start_run(make_config(tmp_path, DELTA_SWEEP), run_id="sweep", show_progress=False).run_dir
    buckets, tuning = build_report(run_dir).figures
    assert buckets.columns == ["delta=10", "delta=100", "delta=1000"]
    assert set(buckets.points["series"]) == {"ds on r2K", "ds on grid"}
    grid = buckets.points[buckets.points["series"] == "ds on grid"].sort_values("x")
    assert list(grid["x"]) == [10.0, 100.0, 1000.0]
    assert list(grid["value"]) == sorted(grid["value"], reverse=True)  # wider buckets: fewer of them
    assert buckets.y_label == "buckets (median over verified solves)"
    assert set(tuning.points["series"]) == {"ds"}  # one graph: a line per entry; the baseline is left out
    write_report(run_dir)
    report = (run_dir / "report.md").read_text()
    assert "| series | delta=10 | delta=100 | delta=1000 |" in report
    assert "buckets (median over verified solves) against delta." in report


@pytest.mark.parametrize("figures, message", [
    ("[{name: s, x: arcs, graphs: [size-500, nowhere]}]", r"figures\[0\].graphs: not a graph of this config"),
    ("[{name: s, x: height, graphs: [size-500, size-2K]}]", r"figures\[0\].x: expected one of vertices, arcs"),
    ("[{name: s, x: arcs, y: joules, graphs: [size-500, size-2K]}]", r"figures\[0\].y: expected one of speedup"),
    ("[{name: s, x: arcs, graphs: [size-500]}]", r"expected a list of two or more graph labels"),
    ("[{name: s, x: arcs, y: 'counter:', graphs: [size-500, size-2K]}]", r"figures\[0\].y: expected one of speedup"),
    ("[{name: s, x: 'sweep:tdp', graphs: [size-500]}]", r"figures\[0\].x: no variant the figure draws has a param"),
    ("[{name: s, x: 'sweep:count_relaxations', graphs: [size-500], variants: [cpu-bf]}]",
     r"no variant the figure draws has a parameter 'count_relaxations'"),
    ("[{name: s, x: arcs, graphs: [size-500, size-2K], variants: [hbf]}]", r"figures\[0\].variants: not an impl"),
    ("[{name: s, x: arcs, graphs: [size-500, size-2K], paper: {a: [1]}}]", r"figures\[0\].paper.a: expected 2 numbers"),
    ("[{name: s, x: arcs, graphs: [size-500, size-2K]}, {name: s, x: arcs, graphs: [size-500, size-2K]}]",
     r"figures\[1\].name: figure 's' appears twice"),
    ("[{name: s/t, x: arcs, graphs: [size-500, size-2K]}]", r"figures\[0\].name: expected letters, digits"),
])
def test_a_mistake_in_a_figure_names_its_key(tmp_path, figures, message):
    text = SIZE_SCALING.split("    figures:")[0] + f"    figures: {figures}\n"
    with pytest.raises(ConfigError, match=message):
        make_config(tmp_path, text)


def test_a_config_without_figures_keeps_its_hash(tmp_path):
    plain = make_config(tmp_path, SIZE_SCALING.split("    figures:")[0])
    assert "figures" not in plain.raw


def test_an_all_pairs_variant_is_a_series_marked_all_pairs(tmp_path):
    # parBucketHeap Figure 6 puts Floyd-Warshall's all-pairs time beside parDijkstra's one-source time: the series
    # says which is which
    from runs import manifest, solve, write_run

    figure = {"name": "fig6", "title": "time against V", "x": "vertices", "y": "time", "graphs": ["g1", "g2"],
              "variants": ["pardijkstra", "floyd-warshall"], "paper": {}}
    rows = [solve(graph, name, 0.01, device="gpu", source=source) for graph in ("g1", "g2")
            for name in ("pardijkstra", "floyd-warshall") for source in range(3)]
    run = write_run(tmp_path / "r1", manifest("r1", baseline=None, config={"name": "fig6", "figures": [figure]}), rows)
    (drawn,) = build_report(run).figures
    assert list(dict.fromkeys(drawn.points["series"])) == ["pardijkstra", "floyd-warshall (all pairs)"]
    assert "| floyd-warshall (all pairs) | 10.0 | 10.0 |" in (write_report(run)["markdown"].read_text())
