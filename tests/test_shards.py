"""Shards: a config split into n runs that together are the whole run, and merged back into one."""

import json
import re

import pytest
from click.testing import CliRunner

from sssp_bench.cli import cli
from sssp_bench.errors import UserError
from sssp_bench.graph import generators
from sssp_bench.report import summarize, write_report
from sssp_bench.results.compare import compare_runs
from sssp_bench.run import resident as resident_module
from sssp_bench.run.config import GraphEntry
from sssp_bench.run.runner import resume_run, start_run
from sssp_bench.results.shards import missing_shards
from sssp_bench.run.shards import (Cell, Piece, Split, apply_shard, config_cells, estimated_arcs, measured_costs,
                                   merge_shards, merge_when_complete, parse_shard, queue_split, select_shard, spec_arcs,
                                   split_cells, spread_split)

from runs import make_config, read_rows

# Three graphs of different sizes and four variants: twelve cells of quite different expected costs.
SPLIT = """
    graphs:
      - {graph: "grid:rows=8,cols=8,seed=1", label: grid}
      - {graph: "rmat:n=256,m=2048,seed=2", label: rmat}
      - {graph: "chain:n=40", label: chain}
    implementations: [cpu-dijkstra, cpu-bf-queue, cpu-bfs, {name: cpu-bf, sources: 2}]
    sources: {count: 4, seed: 1}
    verification: {reference_sources: 1}
"""


def counts(summary):
    """What a report says about each cell, apart from timings: its solves and how many verified."""
    return sorted(zip(summary["graph"], summary["variant"], summary["solves"], summary["verified"]))


def run_shards(tmp_path, text, count, name="test"):
    return [start_run(select_shard(make_config(tmp_path, text, name), index, count), run_id=f"{name}-{index}",
                      show_progress=False).run_dir for index in range(1, count + 1)]


@pytest.mark.parametrize("text, expected", [("1/1", (1, 1)), ("2/4", (2, 4)), ("4/4", (4, 4))])
def test_a_shard_is_written_i_of_n_counted_from_one(text, expected):
    assert parse_shard(text) == expected


@pytest.mark.parametrize("text", ["0/4", "5/4", "2", "a/b", "1/0", "-1/2"])
def test_a_bad_shard_names_the_option_and_the_form(text):
    with pytest.raises(UserError, match=rf"^--shard {text}: expected I/N, shard I of N counted from 1"):
        parse_shard(text)


@pytest.mark.parametrize("spec", ["grid:rows=7,cols=9", "chain:n=50", "chain:n=50,directed=false", "star:n=30",
                                  "complete:n=12", "fixed-degree:n=100,degree=5", "small-world:n=200,k=4",
                                  "random:n=500,m=4000", "rmat:n=512,m=4096", "kron:scale=8,edgefactor=4"])
def test_the_arcs_of_a_generator_spec_are_known_without_generating_it(spec):
    assert spec_arcs(spec) == generators.generate(spec).m


@pytest.mark.parametrize("spec", ["road:n=2000", "communities:n=2000", "mesh:nx=6,ny=6,nz=6,dofs=2",
                                  "forest-fire:n=3000", "dag:n=300,degree=8"])
def test_the_arcs_of_the_other_generators_are_estimated_closely(spec):
    assert spec_arcs(spec) == pytest.approx(generators.generate(spec).m, rel=0.35)


def test_a_catalog_graph_is_sized_from_the_catalog_and_its_stand_in_as_the_real_graph():
    assert estimated_arcs(GraphEntry("USA-road-d.NY", "NY", "keep")) == 733846
    assert estimated_arcs(GraphEntry("asia.osm", "asia", "keep", stand_in="road:n=100,seed=1")) == 25423206


def solves_dealt(shards):
    """Each cell's source indexes as the shards' pieces deal them, and how many pieces of it one shard holds."""
    dealt, per_shard = {}, []
    for shard in shards:
        per_shard.append([piece.cell for piece in shard])
        for piece in shard:
            dealt.setdefault(piece.cell, []).extend(range(piece.first, piece.stop))
    return dealt, per_shard


def test_the_split_is_deterministic_runs_every_solve_once_and_is_balanced(tmp_path):
    config = make_config(tmp_path, SPLIT)
    cells = config_cells(config)
    for count in (1, 2, 3, 5):
        shards = split_cells(config, count)
        assert shards == split_cells(make_config(tmp_path, SPLIT), count)  # the same on every machine
        dealt, per_shard = solves_dealt(shards)
        assert {cell: sorted(indexes) for cell, indexes in dealt.items()} == {
            (cell.graph, cell.variant): list(range(cell.sources)) for cell in cells}
        assert all(len(indexes) == len(set(indexes)) for indexes in dealt.values())
        assert all(len(cells_of) == len(set(cells_of)) for cells_of in per_shard)  # one piece of a cell a shard
        loads = [sum(piece.cost for piece in shard) for shard in shards]
        # the cut cells shared out, the rest longest first to the least loaded: within one uncut cell of the mean
        assert max(loads) <= sum(loads) / count + max(cell.cost for cell in cells) * 0.25 * 2


def test_an_expensive_cell_is_cut_into_one_source_range_per_shard(tmp_path):
    # cpu-bf on the R-MAT graph is most of the expected cost: split whole, one shard would get it alone
    text = """
        graphs:
          - {graph: "rmat:n=1024,m=8192,seed=2", label: rmat}
          - {graph: "grid:rows=6,cols=6,seed=1", label: grid}
        implementations: [cpu-bf, cpu-bfs]
        sources: {count: 9, seed: 1}
    """
    config = make_config(tmp_path, text)
    split = spread_split(config, 3)
    assert [[(piece.first, piece.stop) for piece in shard if piece.cell == ("rmat", "cpu-bf")]
            for shard in split.shards] == [[(0, 3)], [(3, 6)], [(6, 9)]]
    assert all(0.3 <= split.share(index) <= 0.37 for index in (1, 2, 3))
    record = select_shard(make_config(tmp_path, text), 2, 3).shard
    assert {"graph": "rmat", "variant": "cpu-bf", "first": 3, "stop": 6, "of": 9} in record["source_ranges"]
    assert record["split"]["method"] == "spread" and record["split"]["estimate"] == {"kind": "config"}


def test_the_first_ranges_of_the_cut_cells_which_hold_the_reference_compares_go_to_different_shards(tmp_path):
    # One Bellman-Ford on four graphs of one size, each cell cut in four: dealt alike, shard 1 got every first range
    text = """
        graphs:
          - {graph: "rmat:n=1024,m=8192,seed=1", label: a}
          - {graph: "rmat:n=1024,m=8192,seed=2", label: b}
          - {graph: "rmat:n=1024,m=8192,seed=3", label: c}
          - {graph: "rmat:n=1024,m=8192,seed=4", label: d}
        implementations: [cpu-bf]
        sources: {count: 8, seed: 1}
        verification: {reference_sources: 2}
    """
    split = spread_split(make_config(tmp_path, text), 4)
    assert all(len(shard) == 4 and not any(piece.whole for piece in shard) for shard in split.shards)
    assert sorted([piece.graph for piece in shard if piece.first == 0] for shard in split.shards) == [
        ["a"], ["b"], ["c"], ["d"]]


def test_a_config_that_measures_energy_is_never_cut(tmp_path):
    text = SPLIT + "    energy: {min_window_s: 0.05, sample_ms: 5, idle_s: 0.0}\n"
    assert all(piece.whole for shard in split_cells(make_config(tmp_path, text), 3) for piece in shard)


def test_a_shard_runs_only_its_cells_and_loads_only_their_graphs(tmp_path, monkeypatch):
    config = make_config(tmp_path, SPLIT)
    wanted = split_cells(config, 3)[0]
    loaded = []
    original = resident_module.load_graph
    monkeypatch.setattr(resident_module, "load_graph", lambda *args: loaded.append(args[1]) or original(*args))
    outcome = start_run(select_shard(config, 1, 3), run_id="one", show_progress=False)

    rows = read_rows(outcome.run_dir)
    assert {(row["graph"], row["variant"]) for row in rows} == {(cell.graph, cell.variant) for cell in wanted}
    assert loaded == list(dict.fromkeys(cell.graph for cell in wanted))
    shard = json.loads((outcome.run_dir / "manifest.json").read_text())["shard"]
    assert (shard["index"], shard["count"]) == (1, 3)
    assert shard["cells"] == [[cell.graph, cell.variant] for cell in wanted]
    assert shard["config_hash"] == make_config(tmp_path, SPLIT).hash


@pytest.mark.parametrize("count", [2, 3])
def test_the_merged_shards_report_the_same_cells_and_verified_counts_as_the_unsplit_run(tmp_path, count):
    whole = start_run(make_config(tmp_path, SPLIT), run_id="whole", show_progress=False).run_dir
    shard_dirs = run_shards(tmp_path, SPLIT, count)
    merged = merge_shards(shard_dirs, tmp_path / "merged")

    assert counts(summarize(merged)) == counts(summarize(whole)) == counts(summarize(shard_dirs))
    assert list(summarize(merged)["variant"]) == list(summarize(whole)["variant"])  # the config's order
    manifest = json.loads((merged / "manifest.json").read_text())
    assert manifest["config_hash"] == json.loads((whole / "manifest.json").read_text())["config_hash"]
    assert manifest["status"] == "complete" and "shard" not in manifest
    assert [entry["shard"]["index"] for entry in manifest["merged_from"]] == list(range(1, count + 1))
    assert set(manifest["graphs"]) == {"grid", "rmat", "chain"}
    assert manifest["statuses"] == json.loads((whole / "manifest.json").read_text())["statuses"]


# What a row says apart from the clock (and the run it is in): a merge must say all of it as the unsplit run does.
CLOCKED = ("run_id", "time_s", "end_to_end_s", "mteps", "counters")


def content(rows):
    return [{key: value for key, value in row.items() if key not in CLOCKED} for row in rows]


@pytest.mark.parametrize("count", [2, 3])
def test_shards_holding_source_ranges_merge_into_the_unsplit_runs_rows_in_its_order(tmp_path, count):
    whole = start_run(make_config(tmp_path, SPLIT), run_id="whole", show_progress=False).run_dir
    shard_dirs = run_shards(tmp_path, SPLIT, count)
    assert any(json.loads((path / "manifest.json").read_text())["shard"].get("source_ranges") for path in shard_dirs)
    merged = merge_shards(shard_dirs, tmp_path / "merged")

    assert content(read_rows(merged)) == content(read_rows(whole))  # one prepare row a cell, every solve once
    compared = compare_runs([whole, merged])  # and `compare` pairs every source of every cell
    assert len(compared) == 12 and (compared["pairs"] == compared["base_solves"]).all()
    assert (compared["base_solves"] == compared["new_solves"]).all() and not compared["new_only"].any()


def test_a_report_of_the_shard_folders_reads_a_cut_cell_as_one_variant(tmp_path):
    whole = start_run(make_config(tmp_path, SPLIT), run_id="whole", show_progress=False).run_dir
    shard_dirs = run_shards(tmp_path, SPLIT, 2)
    summary = summarize(shard_dirs)  # joined as `merge` joins them: no "test-1/cpu-bf-queue" beside "test-2/..."
    assert counts(summary) == counts(summarize(whole))
    assert set(summary["run_id"]) == {"test-1+test-2"}
    write_report([shard_dirs[0]])  # one shard alone stays itself, and the report says what it lacks
    assert "Shard 2/2 of test" in (shard_dirs[0] / "report.md").read_text()


def test_a_merge_refuses_source_ranges_that_overlap_or_leave_a_gap_and_a_solve_recorded_twice(tmp_path):
    shard_dirs = run_shards(tmp_path, SPLIT, 2)
    first = shard_dirs[0] / "manifest.json"
    original = first.read_text()
    manifest = json.loads(original)
    cut = manifest["shard"]["source_ranges"][0]
    for stop, problem in ((cut["stop"] + 1, "overlap"), (cut["stop"] - 1, "leave a gap")):
        manifest["shard"]["source_ranges"][0] = {**cut, "stop": stop}
        first.write_text(json.dumps(manifest))
        with pytest.raises(UserError, match=rf"^cannot merge: cell {cut['graph']}/{cut['variant']}: its source "
                                            rf"ranges .* {problem} \(the cell has {cut['of']} sources\)"):
            merge_shards(shard_dirs, tmp_path / "merged")
    first.write_text(original)
    solve = next(line for line in (shard_dirs[0] / "rows.jsonl").read_text().splitlines() if '"solve"' in line)
    with open(shard_dirs[1] / "rows.jsonl", "a") as rows:
        rows.write(solve + "\n")  # as if both shards had run the same source
    with pytest.raises(UserError, match=r"^cannot merge: solve .* is in runs test-1 and test-2"):
        merge_shards(shard_dirs, tmp_path / "merged")
    assert not (tmp_path / "merged").exists()


def test_costs_measured_by_an_earlier_run_balance_the_split_and_the_shard_says_so(tmp_path):
    earlier = start_run(make_config(tmp_path, SPLIT), run_id="earlier", show_progress=False).run_dir
    measured = measured_costs(earlier)
    assert measured.source == "timing" and len(measured.per_cell) == 12  # the manifest's per-cell wall times
    config = select_shard(make_config(tmp_path, SPLIT), 1, 2, measured)
    assert config.shard["split"]["estimate"] == {"kind": "measured", "run": "earlier", "config_hash": config.shard[
        "config_hash"], "from": "timing", "cells_measured": 12, "cells_estimated": 0}
    by_estimate = spread_split(make_config(tmp_path, SPLIT), 2)
    assert spread_split(make_config(tmp_path, SPLIT), 2, measured).digest != by_estimate.digest  # another split


def test_measured_costs_keep_a_cells_setup_apart_so_each_piece_of_a_cut_cell_pays_it(tmp_path):
    earlier = start_run(make_config(tmp_path, SPLIT), run_id="earlier", show_progress=False).run_dir
    measured = measured_costs(earlier)
    cells = config_cells(make_config(tmp_path, SPLIT), measured)
    timed = {(cell["graph"], cell["variant"]): cell for cell in json.loads(
        (earlier / "manifest.json").read_text())["timing"]["cells"]}
    for cell in cells:
        record = timed[(cell.graph, cell.variant)]
        assert cell.setup == pytest.approx(record["setup_s"])
        assert cell.cost == pytest.approx(record["wall_s"])  # the same sources: the whole cell costs what it did
        halves = cell.piece_cost(0, cell.sources // 2) + cell.piece_cost(cell.sources // 2, cell.sources)
        assert halves == pytest.approx(cell.cost + cell.setup)  # cut in two, the setup is paid twice


def test_the_piece_holding_the_sources_compared_with_the_reference_pays_their_verification(tmp_path):
    (tmp_path / "manifest.json").write_text(json.dumps({"run_id": "earlier", "timing": {"cells": [
        {"graph": "g", "variant": "v", "first": 0, "stop": 100, "solves": 100, "setup_s": 1.0, "verify_s": 0.5,
         "wall_s": 11.0}]}}))
    cell, = measured_costs(tmp_path).costs([Cell("g", "v", 1.0, 100)], repetitions=1, checked_sources=10)
    assert (cell.cost, cell.setup, cell.checked, cell.checked_sources) == (11.0, 1.0, 0.5, 10)
    quarters = [cell.piece_cost(first, first + 25) for first in range(0, 100, 25)]
    assert quarters[0] == pytest.approx(1.0 + 9.5 / 4 + 0.5)  # a setup, a quarter of the solves, every compare
    assert quarters[1:] == [pytest.approx(1.0 + 9.5 / 4)] * 3
    assert sum(quarters) == pytest.approx(cell.cost + 3 * cell.setup)


def earlier_run(folder, picked, cells, seconds, setup_s=0.0):
    """An earlier run's manifest and rows, as `--costs-from` reads them: its sources picked as `picked`, and each of
    its (graph, variant) cells one piece whose sources took `seconds` each (after a setup of `setup_s`)."""
    (folder / "manifest.json").write_text(json.dumps({"run_id": "earlier", "config": {"sources": picked},
                                                      "timing": {"cells": [
        {"graph": graph, "variant": variant, "first": 0, "stop": len(seconds), "solves": len(seconds),
         "setup_s": setup_s, "verify_s": 0.0, "wall_s": setup_s + sum(seconds)} for graph, variant in cells]}}))
    (folder / "rows.jsonl").write_text("".join(
        json.dumps({"phase": "solve", "graph": graph, "variant": variant, "implementation": variant, "status": "ok",
                    "source_index": index, "end_to_end_s": cost}) + "\n"
        for graph, variant in cells for index, cost in enumerate(seconds)))
    return measured_costs(folder)


def test_a_cut_cells_ranges_cost_what_their_own_sources_took_where_the_earlier_run_picked_the_same(tmp_path):
    picked = {"count": 4, "seed": 1, "min_reached": None}
    measured = earlier_run(tmp_path, picked, [("g", "v")], [4.0, 3.0, 2.0, 1.0])
    cell, = measured.costs([Cell("g", "v", 1.0, 4)], repetitions=1, sources=picked)
    assert (cell.piece_cost(0, 2), cell.piece_cost(2, 4)) == (pytest.approx(7.0), pytest.approx(3.0))
    other, = measured.costs([Cell("g", "v", 1.0, 4)], repetitions=1, sources={**picked, "seed": 2})
    assert (other.piece_cost(0, 2), other.piece_cost(2, 4)) == (pytest.approx(5.0), pytest.approx(5.0))  # even


def test_costs_from_a_run_whose_rows_are_damaged_is_a_one_line_error_naming_the_line(tmp_path):
    (tmp_path / "manifest.json").write_text(json.dumps({"run_id": "earlier", "timing": {"cells": [
        {"graph": "g", "variant": "v", "first": 0, "stop": 2, "solves": 2, "setup_s": 0.0, "wall_s": 1.0}]}}))
    row = {"run_id": "earlier", "phase": "solve", "graph": "g", "variant": "v", "implementation": "v",
           "status": "ok", "source_index": 0, "end_to_end_s": 0.5}
    (tmp_path / "rows.jsonl").write_text(json.dumps(row) + "\n{not json\n" + json.dumps(row) + "\n")
    with pytest.raises(UserError, match=r"rows\.jsonl:2: not valid JSON"):
        measured_costs(tmp_path)


def test_costs_from_a_run_without_the_configs_cells_is_a_one_line_error(tmp_path):
    other = start_run(make_config(tmp_path, """
        graphs: [{graph: "chain:n=10", label: other}]
        implementations: [cpu-dijkstra]
        sources: {count: 2}
    """, "other"), run_id="other", show_progress=False).run_dir
    with pytest.raises(UserError, match=r"^--costs-from other: that run has no measured solve of this config's"):
        select_shard(make_config(tmp_path, SPLIT), 1, 2, measured_costs(other))


def test_the_queue_split_is_small_tasks_in_run_order_each_on_one_graph(tmp_path):
    config = make_config(tmp_path, SPLIT)
    split = queue_split(config, 2)
    assert split.count > 2 * 2  # more tasks than workers: an idle worker always has one to take
    assert all(len({piece.graph for piece in task}) == 1 for task in split.shards)  # a task loads one graph
    graphs = [task[0].graph for task in split.shards]
    assert graphs == sorted(graphs, key=["grid", "rmat", "chain"].index)  # graph-major, as the unsplit run
    dealt, _ = solves_dealt(split.shards)
    assert {cell: sorted(indexes) for cell, indexes in dealt.items()} == {
        (cell.graph, cell.variant): list(range(cell.sources)) for cell in config_cells(config)}
    costs = [sum(piece.cost for piece in task) for task in split.shards]
    assert max(costs) <= sum(costs) / 2 * 0.5 * 1.2  # none larger than about half of what a worker has to do


def test_a_queue_task_holds_at_most_one_piece_of_a_cell_where_measured_shares_are_uneven(tmp_path):
    # As on the device: the first sources (compared with the reference, their distances copied back) cost many times
    # the rest. A piece cut by the average source's cost then left room in its task for a second piece of the
    # same cell, and a run keeps one range per cell: the task ran only the second.
    text = """
        graphs: [{graph: "grid:rows=8,cols=8,seed=1", label: grid}, {graph: "chain:n=40", label: chain}]
        implementations: [cpu-dijkstra, cpu-bfs]
        sources: {count: 40, seed: 1}
    """
    cells = [(graph, variant) for graph in ("grid", "chain") for variant in ("cpu-dijkstra", "cpu-bfs")]
    measured = earlier_run(tmp_path, {"count": 40, "seed": 1, "min_reached": None}, cells,
                           [0.03] * 10 + [0.0015] * 30, setup_s=0.05)
    for workers in (2, 3, 4, 6, 8):
        split = queue_split(make_config(tmp_path, text), workers, measured)
        assert all(len({piece.cell for piece in task}) == len(task) for task in split.shards), workers
        dealt, _ = solves_dealt(split.shards)
        assert all(sorted(indexes) == list(range(40)) for indexes in dealt.values())


def test_a_shard_with_two_ranges_of_one_cell_is_refused_not_run_short(tmp_path):
    config = make_config(tmp_path, SPLIT)
    pieces = (Piece("grid", "cpu-bfs", 0, 2, 4, 1.0), Piece("grid", "cpu-bfs", 2, 4, 4, 1.0))
    with pytest.raises(UserError, match=r"^the shard holds two source ranges of cell grid/cpu-bfs"):
        apply_shard(config, Split("queue", (pieces,)), 1)


def test_shards_run_each_graphs_variants_in_the_unsplit_runs_order_and_the_merge_records_it(tmp_path):
    whole = start_run(make_config(tmp_path, SPLIT), run_id="whole", show_progress=False).run_dir
    shard_dirs = run_shards(tmp_path, SPLIT, 3)
    orders = {label: record["variant_order"]
              for label, record in json.loads((whole / "manifest.json").read_text())["graphs"].items()}
    for shard_dir in shard_dirs:
        for label, record in json.loads((shard_dir / "manifest.json").read_text())["graphs"].items():
            assert record["variant_order"] == [name for name in orders[label] if name in record["variant_order"]]
    merged = merge_shards(shard_dirs, tmp_path / "merged")
    assert {label: record["variant_order"] for label, record in json.loads(
        (merged / "manifest.json").read_text())["graphs"].items()} == orders


def test_a_merge_names_every_shards_graph_that_failed_to_load(tmp_path):
    shard_dirs = run_shards(tmp_path, SPLIT, 2)
    for shard_dir, label in zip(shard_dirs, ("grid", "rmat")):  # as if each shard's machine had lost a graph
        manifest = json.loads((shard_dir / "manifest.json").read_text())
        manifest["not_loaded"] = {label: f"{label}.csr: truncated"}
        (shard_dir / "manifest.json").write_text(json.dumps(manifest))
    merged = json.loads((merge_shards(shard_dirs, tmp_path / "merged") / "manifest.json").read_text())
    assert merged["not_loaded"] == {"grid": "grid.csr: truncated", "rmat": "rmat.csr: truncated"}


@pytest.mark.parametrize("change, said", [
    ({"stand_in_for": "grid", "stand_in": "grid:rows=9,cols=9"}, "the stand-in grid:rows=9,cols=9"),
    ({"per_graph_cache": {"graph_sha256": "f" * 64}}, "the graph files differ"),
])
def test_a_merge_refuses_shards_that_ran_different_graphs_under_one_label(tmp_path, change, said):
    shard_dirs = run_shards(tmp_path, SPLIT, 2)
    manifests = [json.loads((shard_dir / "manifest.json").read_text()) for shard_dir in shard_dirs]
    label = next(label for label in manifests[0]["graphs"] if label in manifests[1]["graphs"])
    first = manifests[0]["graphs"][label]
    first.setdefault("per_graph_cache", {}).setdefault("graph_sha256", "0" * 64)
    manifests[1]["graphs"][label].update(per_graph_cache=dict(first["per_graph_cache"]))
    manifests[1]["graphs"][label].update(change)  # as if that shard's machine had another file, or none
    for shard_dir, manifest in zip(shard_dirs, manifests):
        (shard_dir / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(UserError, match=rf"^cannot merge: graph '{label}': .*{re.escape(said)}"):
        merge_shards(shard_dirs, tmp_path / "merged")
    assert not (tmp_path / "merged").exists()


def test_a_shard_run_from_other_code_is_named_in_the_merged_report(tmp_path):
    shard_dirs = run_shards(tmp_path, SPLIT, 2)
    manifest_path = shard_dirs[1] / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    manifest["provenance"]["code"]["sha256"] = "f" * 64  # as if that machine had checked out another commit
    manifest_path.write_text(json.dumps(manifest))
    merged = merge_shards(shard_dirs, tmp_path / "merged")
    changes = json.loads((merged / "manifest.json").read_text())["code_changes"]
    assert [(change["sha256"], change["run_id"]) for change in changes] == [("f" * 64, "test-2")]
    write_report([merged])
    assert "with code ffffffffffff" in (merged / "report.md").read_text()


def test_more_shards_than_sources_leaves_some_empty_and_the_merge_still_whole(tmp_path):
    text = """
        graphs: [{graph: "grid:rows=4,cols=4", label: grid}]
        implementations: [cpu-dijkstra]
        sources: {count: 2}
    """
    shard_dirs = run_shards(tmp_path, text, 3)  # one cell of two sources: two ranges of one source, one empty shard
    assert [len(read_rows(shard_dir)) for shard_dir in shard_dirs] == [2, 2, 0]  # a prepare and a solve each
    merged = merge_shards(shard_dirs, tmp_path / "merged")
    assert counts(summarize(merged)) == [("grid", "cpu-dijkstra", 2, 2)]
    assert [row["phase"] for row in read_rows(merged)] == ["prepare", "solve", "solve"]


def test_missing_shards_names_each_one_a_split_lacks(tmp_path):
    shard_dirs = run_shards(tmp_path, SPLIT, 3)
    manifests = [json.loads((shard_dir / "manifest.json").read_text()) for shard_dir in shard_dirs]
    assert missing_shards(manifests) == []
    config_hash = manifests[0]["shard"]["config_hash"][:12]
    assert missing_shards(manifests[:1]) == [f"shard 2/3 of test (config {config_hash}) is missing",
                                             f"shard 3/3 of test (config {config_hash}) is missing"]
    with pytest.raises(UserError, match=rf"^cannot merge: shard 2/3 of test \(config {config_hash}\) is missing$"):
        merge_shards([shard_dirs[0], shard_dirs[2]], tmp_path / "merged")
    with pytest.raises(UserError, match="shard 1/3 given twice"):
        merge_shards([shard_dirs[0], *shard_dirs], tmp_path / "merged")
    assert not (tmp_path / "merged").exists()



def test_a_report_over_part_of_a_split_says_which_shards_it_lacks(tmp_path):
    shard_dirs = run_shards(tmp_path, SPLIT, 3)
    config_hash = json.loads((shard_dirs[0] / "manifest.json").read_text())["shard"]["config_hash"][:12]
    write_report([shard_dirs[0], shard_dirs[2]])
    report = (shard_dirs[0] / "report.md").read_text()
    assert f"> **Shard 2/3 of test (config {config_hash}) is missing**: its cells are not in this report." in report
    assert "Shard 1/3" not in report and "Shard 3/3" not in report

def test_shards_of_other_configs_or_other_splits_are_not_merged(tmp_path):
    halves = run_shards(tmp_path, SPLIT, 2)
    thirds = run_shards(tmp_path, SPLIT, 3, name="other")
    with pytest.raises(UserError, match="cannot merge: the runs come from different splits"):
        merge_shards([halves[0], thirds[1], halves[1]], tmp_path / "merged")
    whole = start_run(make_config(tmp_path, SPLIT), run_id="whole", show_progress=False).run_dir
    with pytest.raises(UserError, match="run whole is not a shard"):
        merge_shards([*halves, whole], tmp_path / "merged")
    with pytest.raises(UserError, match="already holds a run that is not a merge of shards"):
        merge_shards(halves, whole)


def test_a_shard_resumes_after_a_crash_without_repeating_and_a_merge_is_redone_in_place(tmp_path):
    shard_dirs = run_shards(tmp_path, SPLIT, 2)
    rows_path = shard_dirs[1] / "rows.jsonl"
    lines = rows_path.read_text().splitlines(keepends=True)
    rows_path.write_text("".join(lines[:7]) + lines[7][:30])  # a crash mid-write of row 8
    merged = merge_shards(shard_dirs, tmp_path / "merged")  # what was finished merges; the cut line does not
    assert len(read_rows(merged)) == len(read_rows(shard_dirs[0])) + 7

    resume_run(select_shard(make_config(tmp_path, SPLIT), 2, 2), shard_dirs[1], show_progress=False)
    merge_shards(shard_dirs, merged)
    whole = start_run(make_config(tmp_path, SPLIT), run_id="whole", show_progress=False).run_dir
    solves = [(r["graph"], r["variant"], r["repetition"], r["source_index"]) for r in read_rows(merged)
              if r["phase"] == "solve"]
    assert len(solves) == len(set(solves)) and counts(summarize(merged)) == counts(summarize(whole))


@pytest.fixture
def invoke(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "split.yaml").write_text(SPLIT.replace("\n    ", "\n"))
    return lambda *args: CliRunner().invoke(cli, list(args), catch_exceptions=False)


def test_run_shard_then_merge_then_report_on_the_command_line(invoke, tmp_path):
    for index in (1, 2):
        result = invoke("run", "split.yaml", "--shard", f"{index}/2", "--output", "shards", "--no-progress")
        assert result.exit_code == 0, result.output
        assert f"shard {index}/2: " in result.output and "% of the config's expected cost" in result.output
    assert len(list((tmp_path / "shards").iterdir())) == 2
    merged = invoke("merge", "shards", "--into", "merged", "--report")
    assert merged.exit_code == 0, merged.output
    assert "merged: merged 2 shard(s)" in merged.output and (tmp_path / "merged" / "report.md").exists()
    reported = invoke("report", *map(str, (tmp_path / "shards").iterdir()), "--out", "from-shards")
    assert reported.exit_code == 0


def test_resuming_a_shard_needs_no_shard_option(invoke, tmp_path):
    assert invoke("run", "split.yaml", "--shard", "2/3", "--run-id", "s2", "--no-progress").exit_code == 0
    rows_path = tmp_path / "results" / "s2" / "rows.jsonl"
    rows_path.write_text("".join(rows_path.read_text().splitlines(keepends=True)[:-2]))
    resumed = invoke("run", "split.yaml", "--resume", "results/s2", "--no-progress")
    assert resumed.exit_code == 0, resumed.output
    assert "shard 2/3: " in resumed.output
    other = invoke("run", "split.yaml", "--shard", "1/3", "--resume", "results/s2", "--no-progress")
    assert other.exit_code == 2 and "results/s2: the run is shard 2/3, not --shard 1/3" in other.output


def test_a_shard_split_by_measured_costs_resumes_with_its_own_pieces_on_the_command_line(invoke, tmp_path):
    assert invoke("run", "split.yaml", "--run-id", "earlier", "--no-progress").exit_code == 0
    begun = invoke("run", "split.yaml", "--shard", "2/2", "--costs-from", "results/earlier", "--run-id", "s2",
                   "--no-progress")
    assert begun.exit_code == 0, begun.output
    assert "shard 2/2: " in begun.output and "(costs measured in earlier (12 cell(s); 0 estimated" in begun.output
    rows_path = tmp_path / "results" / "s2" / "rows.jsonl"
    lines = rows_path.read_text().splitlines(keepends=True)
    rows_path.write_text("".join(lines[:-3]))  # as if it had been killed three rows before its end
    resumed = invoke("run", "split.yaml", "--resume", "results/s2", "--no-progress")  # no --shard, no --costs-from
    assert resumed.exit_code == 0, resumed.output
    keys = [(row["graph"], row["variant"], row["source_index"]) for row in read_rows(tmp_path / "results" / "s2")
            if row["phase"] == "solve"]
    assert len(keys) == len(set(keys)) == sum('"solve"' in line for line in lines)
    # as `make shard` resumes: --shard again, without --costs-from: the pieces the shard began with, not a new split
    rows_path.write_text("".join(lines[:-3]))
    again = invoke("run", "split.yaml", "--shard", "2/2", "--resume", "results/s2", "--no-progress")
    assert again.exit_code == 0, again.output
    keys = [(row["graph"], row["variant"], row["source_index"]) for row in read_rows(tmp_path / "results" / "s2")
            if row["phase"] == "solve"]
    assert len(keys) == len(set(keys)) == sum('"solve"' in line for line in lines)


@pytest.mark.parametrize("args, message", [
    (["run", "split.yaml", "--shard", "3/2"], "--shard 3/2: expected I/N, shard I of N counted from 1"),
    (["run", "split.yaml", "--shards", "2"], "--shards goes with --workers or --scheduler"),
    (["run", "split.yaml", "--shard", "1/2", "--workers", "2"], "--shard runs one shard in this process"),
    (["merge", "nowhere", "--into", "m"], "nowhere: no such folder"),
    (["merge", ".", "--into", "m"], ".: no shard run folder there"),
    (["run", "split.yaml", "--costs-from", "results"], "--costs-from balances a split: it goes with --shard"),
    (["run", "split.yaml", "--shard", "1/2", "--costs-from", "nowhere"], "nowhere: no such run directory"),
])
def test_shard_mistakes_are_one_line_errors(invoke, args, message):
    result = invoke(*args)
    assert result.exit_code == 2 and message in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_the_last_shard_to_finish_merges_the_split_in_its_own_process(invoke, tmp_path):
    first = invoke("run", "split.yaml", "--shard", "1/2", "--output", "shards", "--merge-into", "merged",
                   "--no-progress")
    assert first.exit_code == 0, first.output
    assert "1 of 2 are: the last to finish merges into merged" in first.output and not (tmp_path / "merged").exists()
    last = invoke("run", "split.yaml", "--shard", "2/2", "--output", "shards", "--merge-into", "merged", "--no-progress")
    assert last.exit_code == 0, last.output
    assert "merged: merged 2 shard(s)" in last.output
    assert invoke("merge", "shards", "--into", "by-merge").exit_code == 0
    assert read_rows(tmp_path / "merged") == read_rows(tmp_path / "by-merge")
    merged_at = (tmp_path / "merged" / "manifest.json").stat().st_mtime_ns
    first_shard = sorted((tmp_path / "shards").iterdir())[0]  # as if it had finished at the same time: finds it merged
    assert merge_when_complete(first_shard, tmp_path / "merged") is None
    assert (tmp_path / "merged" / "manifest.json").stat().st_mtime_ns == merged_at


def test_merge_into_goes_with_a_shard(invoke):
    refused = invoke("run", "split.yaml", "--merge-into", "merged", "--no-progress")
    assert refused.exit_code == 2 and "--merge-into goes with --shard I/N" in refused.output
