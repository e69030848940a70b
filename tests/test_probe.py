"""`sssp-bench probe`: a config made from the command line, run by the same runner as `run`."""

import json

import pytest

from sssp_bench import impls
from sssp_bench.errors import UserError
from sssp_bench.report.probe import probe_table
from sssp_bench.run.probe import Probe, compile_defines, parse_params, run_probe

GRAPH = "rmat:n=512,m=4096,seed=2"


def classes(*names):
    return {name: impls.get(name) for name in names}


def test_a_param_sweeps_every_implementation_that_has_it():
    sweeps = parse_params(["count_relaxations=false,true"], classes("cpu-dijkstra", "cpu-bf-queue", "cpu-bfs"))
    assert sweeps == {"cpu-dijkstra": {"count_relaxations": [False, True]},
                      "cpu-bf-queue": {"count_relaxations": [False, True]},
                      "cpu-bfs": {}}  # cpu-bfs has no such parameter: left alone


def test_a_param_can_name_its_implementation():
    sweeps = parse_params(["cpu-bf-queue.count_relaxations=on"], classes("cpu-dijkstra", "cpu-bf-queue"))
    assert sweeps == {"cpu-dijkstra": {}, "cpu-bf-queue": {"count_relaxations": [True]}}


def test_values_take_the_parameters_type():
    sweeps = parse_params(["tdp=64,128", "dynamic_parallelism=off,child", "edge_classification=no"], classes("hbf"))
    assert sweeps["hbf"] == {"tdp": [64, 128], "dynamic_parallelism": ["off", "child"],
                             "edge_classification": [False]}


@pytest.mark.parametrize("param, message", [
    ("tdp", "--param tdp: expected KEY=VALUE"),
    ("nope=1", "--param nope=1: cpu-dijkstra, hbf has no parameter 'nope'"),
    ("cpu-dijkstra.tdp=64", "--param cpu-dijkstra.tdp=64: cpu-dijkstra has no parameter 'tdp'"),
    ("near-far.delta=1", "'near-far' is not one of the implementations probed (cpu-dijkstra, hbf)"),
    ("tdp=many", "--param tdp=many: 'many' is not an integer"),
    ("edge_classification=maybe", "'maybe' is not a switch value"),
    ("dynamic_parallelism=sometimes", "must be one of"),
])
def test_a_bad_param_is_one_line_naming_it(param, message):
    with pytest.raises(UserError) as raised:
        parse_params([param], classes("cpu-dijkstra", "hbf"))
    assert message in str(raised.value) and "\n" not in str(raised.value)


def test_a_probe_is_a_config_of_swept_variants():
    config = Probe(["cpu-dijkstra", "cpu-bf-queue"], [GRAPH], ["cpu-bf-queue.count_relaxations=false,true"],
                   sources=3, reference_sources=2).config()
    assert [variant.name for variant in config.variants] == [
        "cpu-dijkstra", "cpu-bf-queue[count_relaxations=false]", "cpu-bf-queue[count_relaxations=true]"]
    assert [graph.label for graph in config.graphs] == [GRAPH]
    assert (config.name, config.source_count, config.reference_sources, config.baseline) == ("probe", 3, 2,
                                                                                              "cpu-dijkstra")
    assert config.path == "sssp-bench probe"


def test_a_downloaded_catalog_graph_may_run_its_stand_in_and_a_generated_one_its_spec():
    config = Probe(["cpu-bfs"], ["msdoor", "Gen-SmallWorld"]).config()
    msdoor, small_world = config.graphs
    assert msdoor.stand_in is not None and small_world.stand_in is None
    assert (msdoor.label, small_world.label) == ("msdoor", "Gen-SmallWorld")


@pytest.mark.parametrize("probe, message", [
    (Probe(["cpu-dijkstra", "cpu-dijkstra"], [GRAPH]), "'cpu-dijkstra' is named twice"),
    (Probe(["dijkstra"], [GRAPH]), "probe: unknown implementation 'dijkstra'"),
    (Probe(["cpu-dijkstra"], [GRAPH], weights="uniform:lo=5"), "--weights: "),
    (Probe(["cpu-dijkstra"], ["rmat:n=many"]), "many"),
    (Probe(["cpu-dijkstra"], [GRAPH], defines=["1X=2"]), "--define 1X=2: expected NAME=VALUE"),
])
def test_a_bad_option_is_one_line_naming_it(probe, message):
    with pytest.raises(UserError) as raised:
        probe.config()
    assert message in str(raised.value) and "\n" not in str(raised.value)


def test_defines_are_recorded_and_on_every_compile_only_inside_the_probe():
    from sssp_bench.gpu import runtime

    config = Probe(["cpu-dijkstra"], [GRAPH], defines=["WF_MIN_BLOCKS=5", "TRACE"]).config()
    plain = Probe(["cpu-dijkstra"], [GRAPH]).config()
    assert config.raw["defines"] == ["WF_MIN_BLOCKS=5", "TRACE"] and "defines" not in plain.raw
    assert config.hash != plain.hash  # a run with defines never resumes as one without
    before = runtime.COMPILE_OPTIONS
    with compile_defines(config.raw["defines"]):
        assert runtime.COMPILE_OPTIONS == (*before, "-DWF_MIN_BLOCKS=5", "-DTRACE")
    assert runtime.COMPILE_OPTIONS == before


def test_a_probe_runs_through_the_runner_into_a_normal_run_folder(tmp_path):
    config = Probe(["cpu-dijkstra", "cpu-bf-queue"], [GRAPH], ["count_relaxations=true"], sources=3,
                   output=tmp_path / "results", datasets=tmp_path / "datasets").config()
    outcome = run_probe(config, "probe-a", show_progress=False)
    assert outcome.run_dir == tmp_path / "results" / "probe-a" and dict(outcome.statuses) == {"ok": 6}
    manifest = json.loads((outcome.run_dir / "manifest.json").read_text())
    rows = [json.loads(line) for line in (outcome.run_dir / "rows.jsonl").read_text().splitlines()]
    solves = [row for row in rows if row["phase"] == "solve"]
    assert manifest["config_path"] == "sssp-bench probe" and len(manifest["graphs"][GRAPH]["sources"]) == 3
    assert all(row["certificate"] and row["timer"] == "host" for row in solves)
    assert [row["reference"] for row in solves] == [True, None, None] * 2  # the first source against the reference
    table = probe_table(outcome.run_dir, counters=True)
    assert "cpu-bf-queue[count_relaxations=true]" in table and "3/3" in table
    assert f"  {GRAPH}  cpu-dijkstra[count_relaxations=true]: iterations " in table
    assert "relax_attempts_per_iteration " in table  # a list counter: entries / sum / max
