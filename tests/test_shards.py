"""Shards: a config split into n runs that together are the whole run, and merged back into one."""

import json

import pytest
from click.testing import CliRunner

from sssp_bench.cli import cli
from sssp_bench.errors import UserError
from sssp_bench.graph import generators
from sssp_bench.report import summarize, write_report
from sssp_bench.run import runner as runner_module
from sssp_bench.run.config import GraphEntry
from sssp_bench.run.runner import resume_run, start_run
from sssp_bench.results.shards import missing_shards
from sssp_bench.run.shards import (config_cells, estimated_arcs, merge_shards, parse_shard,
                                   select_shard, spec_arcs, split_cells)

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


def test_the_split_is_deterministic_covers_every_cell_once_and_is_balanced(tmp_path):
    config = make_config(tmp_path, SPLIT)
    cells = config_cells(config)
    for count in (1, 2, 3, 5):
        shards = split_cells(config, count)
        assert shards == split_cells(make_config(tmp_path, SPLIT), count)  # the same on every machine
        dealt = [(cell.graph, cell.variant) for shard in shards for cell in shard]
        assert sorted(dealt) == sorted((cell.graph, cell.variant) for cell in cells) and len(set(dealt)) == len(cells)
        loads = [sum(cell.cost for cell in shard) for shard in shards]
        # longest first to the least loaded: no shard exceeds the mean by more than one cell
        assert max(loads) <= sum(loads) / count + max(cell.cost for cell in cells)


def test_a_shard_runs_only_its_cells_and_loads_only_their_graphs(tmp_path, monkeypatch):
    config = make_config(tmp_path, SPLIT)
    wanted = split_cells(config, 3)[0]
    loaded = []
    original = runner_module.load_graph
    monkeypatch.setattr(runner_module, "load_graph", lambda *args: loaded.append(args[1]) or original(*args))
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


def test_more_shards_than_cells_leaves_some_empty_and_the_merge_still_whole(tmp_path):
    text = """
        graphs: [{graph: "grid:rows=4,cols=4", label: grid}]
        implementations: [cpu-dijkstra, cpu-bfs]
        sources: {count: 2}
    """
    shard_dirs = run_shards(tmp_path, text, 3)
    assert [len(read_rows(shard_dir)) for shard_dir in shard_dirs].count(0) == 1
    merged = merge_shards(shard_dirs, tmp_path / "merged")
    assert counts(summarize(merged)) == [("grid", "cpu-bfs", 2, 2), ("grid", "cpu-dijkstra", 2, 2)]


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
    assert other.exit_code == 2 and "was started from a different config" in other.output


@pytest.mark.parametrize("args, message", [
    (["run", "split.yaml", "--shard", "3/2"], "--shard 3/2: expected I/N, shard I of N counted from 1"),
    (["run", "split.yaml", "--shards", "2"], "--shards goes with --workers or --scheduler"),
    (["run", "split.yaml", "--shard", "1/2", "--workers", "2"], "--shard runs one shard in this process"),
    (["merge", "nowhere", "--into", "m"], "nowhere: no such folder"),
    (["merge", ".", "--into", "m"], ".: no shard run folder there"),
])
def test_shard_mistakes_are_one_line_errors(invoke, args, message):
    result = invoke(*args)
    assert result.exit_code == 2 and message in result.output
    assert len(result.output.strip().splitlines()) == 1
