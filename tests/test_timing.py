"""Where a run's wall time goes: the manifest's `timing` (run/timing.py), kept per session, per cell, per shard, and
shown in the report's Provenance."""

import json

import pytest

from sssp_bench.report import write_report
from sssp_bench.report.sections.provenance import seconds_text
from sssp_bench.run.runner import resume_run, start_run
from sssp_bench.run.shards import merge_shards, select_shard
from sssp_bench.run.timing import TOTALS

from runs import make_config, manifest, read_rows, standard_rows, write_run

CONFIG = """
    graphs:
      - {graph: "grid:rows=20,cols=20,seed=1", label: grid}
      - {graph: "rmat:n=1024,m=8192,seed=2", label: rmat}
    implementations: [cpu-dijkstra, cpu-bf-queue]
    sources: {count: 5, seed: 1}
    verification: {reference_sources: 2}
"""


def timing_of(run_dir):
    return json.loads((run_dir / "manifest.json").read_text())["timing"]


def test_a_runs_manifest_says_where_its_wall_time_went(tmp_path):
    run_dir = start_run(make_config(tmp_path, CONFIG), run_id="run", show_progress=False).run_dir
    timing, rows = timing_of(run_dir), read_rows(run_dir)

    assert set(TOTALS) <= set(timing) and timing["sessions"] == 1
    parts = ("startup_s", "device_s", "graph_s", "setup_s", "solve_loop_s", "energy_s", "other_s")
    assert sum(timing[part] for part in parts) == pytest.approx(timing["wall_s"])  # every second is somewhere
    solves = [row for row in rows if row["phase"] == "solve"]
    assert timing["solve_s"] == pytest.approx(sum(row["time_s"] for row in solves))  # the timed solves, summed
    assert timing["end_to_end_s"] == pytest.approx(sum(row["end_to_end_s"] for row in solves))
    assert timing["solve_s"] <= timing["end_to_end_s"] <= timing["solve_loop_s"]
    assert timing["verify_s"] > 0 and timing["graph_parts"]["references_s"] > 0
    assert timing["graph_s"] == pytest.approx(sum(timing["graph_parts"].values()))
    assert [(cell["graph"], cell["variant"], cell["first"], cell["stop"], cell["solves"]) for cell in timing["cells"]
            ] == [(graph, variant, 0, 5, 5) for graph in ("grid", "rmat")
                  for variant in json.loads((run_dir / "manifest.json").read_text())["graphs"][graph]["variant_order"]]


def test_a_resumed_run_adds_its_second_session(tmp_path):
    config = make_config(tmp_path, CONFIG)
    run_dir = start_run(config, run_id="run", show_progress=False).run_dir
    rows_path = run_dir / "rows.jsonl"
    rows_path.write_text("".join(rows_path.read_text().splitlines(keepends=True)[:-3]))  # the last 3 solves lost
    first = timing_of(run_dir)
    resume_run(make_config(tmp_path, CONFIG), run_dir, show_progress=False)
    second = timing_of(run_dir)
    assert second["sessions"] == 2 and second["wall_s"] > first["wall_s"]
    assert len(second["cells"]) == len(first["cells"]) + 1 and second["cells"][-1]["solves"] == 3
    assert second["started_unix"] == first["started_unix"] < second["finished_unix"]


def test_a_merge_keeps_each_shards_clock_and_their_sum(tmp_path):
    shard_dirs = [start_run(select_shard(make_config(tmp_path, CONFIG), index, 2), run_id=f"s{index}",
                            show_progress=False).run_dir for index in (1, 2)]
    merged = timing_of(merge_shards(shard_dirs, tmp_path / "merged"))
    shards = [timing_of(path) for path in shard_dirs]
    assert [entry["run_id"] for entry in merged["shards"]] == ["s1", "s2"]
    for total in TOTALS:
        assert merged[total] == pytest.approx(sum(shard[total] for shard in shards))
    assert merged["elapsed_s"] == pytest.approx(max(shard["finished_unix"] for shard in shards)
                                                - min(shard["started_unix"] for shard in shards))
    assert sum(cell["solves"] for cell in merged["cells"]) == 2 * 2 * 5


def provenance_of(report_path):
    text = report_path.read_text()
    start = text.index("## Provenance")
    return text[start:text.index("\n## ", start)]


def test_the_reports_provenance_gives_the_breakdown_of_a_run_that_kept_it(tmp_path):
    run_dir = start_run(make_config(tmp_path, CONFIG), run_id="run", show_progress=False).run_dir
    provenance = provenance_of(write_report(run_dir)["markdown"])
    timing = timing_of(run_dir)
    checked = timing["solve_s"] + timing["verify_s"]
    assert (f"| wall time | {seconds_text(timing['wall_s'])}, {timing['wall_s'] / checked:.2f}x the timed solves and "
            f"verification |") in provenance
    for row in ("timed solves", "around the solves", "verification", "per-graph preparation", "per-cell setup",
                "start-up", "other"):
        assert f"\n| {row} | " in provenance
    assert "references" in provenance.split("| per-graph preparation |")[1].splitlines()[0]


def test_a_merged_runs_provenance_gives_each_shards_part_and_the_sum(tmp_path):
    shard_dirs = [start_run(select_shard(make_config(tmp_path, CONFIG), index, 2), run_id=f"s{index}",
                            show_progress=False).run_dir for index in (1, 2)]
    merged = merge_shards(shard_dirs, tmp_path / "merged")
    timing = timing_of(merged)
    provenance = provenance_of(write_report(merged)["markdown"])
    assert f"| wall time | {seconds_text(timing['elapsed_s'])} elapsed; 2 shards: " in provenance
    line = next(line for line in provenance.splitlines() if line.startswith("| timed solves |"))
    assert line.count(" + ") == 1  # the sum, then (shard 1 + shard 2)


def test_runs_from_before_timing_show_no_breakdown_and_beside_one_that_has_it_a_dash(tmp_path):
    old = write_run(tmp_path / "old", manifest("old"), standard_rows("old"))
    provenance = provenance_of(write_report(old)["markdown"])
    assert "| wall time |" not in provenance and "| timed solves |" not in provenance  # records read as they did

    new = start_run(make_config(tmp_path, CONFIG), run_id="new", show_progress=False).run_dir
    both = provenance_of(write_report([old, new], tmp_path / "both")["markdown"])
    assert "\n| wall time | - | " in both and "\n| per-cell setup | - | " in both


def test_a_run_process_starts_without_pandas():
    """Every shard, worker and run pays its imports: the runner needs neither pandas nor the report (about 0.3 s
    of a process's start-up on the development machine)."""
    import subprocess
    import sys

    probe = "import sys, sssp_bench.run.runner, sssp_bench.run.shards; print('pandas' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          check=True).stdout.strip() == "False"


def test_a_shard_split_by_measured_costs_starts_without_pandas(tmp_path):
    """`--costs-from RUN` reads RUN's manifest, whose cells are timed, not its rows (pandas cost a shard 1 s)."""
    import subprocess
    import sys

    earlier = start_run(make_config(tmp_path, CONFIG), run_id="earlier", show_progress=False).run_dir
    probe = ("import sys; from pathlib import Path; from sssp_bench.run.shards import measured_costs; "
             f"costs = measured_costs(Path({str(earlier)!r})); print(costs.source, 'pandas' in sys.modules)")
    assert subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          check=True).stdout.strip() == "timing False"
