"""The command line through click's runner: help everywhere, one-line errors, run then report."""

import csv
import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from sssp_bench import impls
from sssp_bench import cli as cli_module
from sssp_bench.cli import cli
from sssp_bench.impls.base import Implementation, SolveResult

COMMANDS = ["fetch", "generate", "export", "run", "probe", "report", "merge", "serve", "slurm", "list", "info",
            "roofline"]


@pytest.fixture
def invoke(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)

    def invoke(*args):
        return CliRunner().invoke(cli, list(args), catch_exceptions=False)

    return invoke


def test_help_lists_every_command(invoke):
    result = invoke("--help")
    assert result.exit_code == 0
    for command in COMMANDS:
        assert command in result.output


@pytest.mark.parametrize("arguments, status", [(["--help"], 0), (["run", "no-such.yaml"], 2)])
def test_a_command_freezes_its_objects_as_it_exits_so_the_last_collection_skips_them(monkeypatch, arguments,
                                                                                    status):
    frozen = []
    monkeypatch.setattr(cli_module.gc, "freeze", lambda: frozen.append(True))
    monkeypatch.setattr(sys, "argv", ["sssp-bench", *arguments])
    with pytest.raises(SystemExit) as exited:
        cli_module.main()
    assert exited.value.code == status and frozen == [True]


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_has_its_own_help(invoke, command):
    result = invoke(command, "--help")
    assert result.exit_code == 0 and "Usage: " in result.output


def test_generate_stores_a_graph_and_info_describes_it(invoke, tmp_path):
    result = invoke("generate", "grid", "rows=10", "cols=20")
    assert result.exit_code == 0, result.output
    path = result.output.split(":")[0]
    assert path.endswith(".csr") and (tmp_path / path).exists()
    described = invoke("info", path)
    assert described.exit_code == 0
    assert json.loads(described.output)["n"] == 200


def test_generate_with_weights_and_an_output_path(invoke, tmp_path):
    result = invoke("generate", "rmat:n=256,m=2048,seed=3", "-o", "g.csr", "--weights", "uniform:min=5,max=6,seed=1")
    assert result.exit_code == 0, result.output
    facts = json.loads(invoke("info", "g.csr").output)
    assert facts["weight_min"] == 5 and facts["weight_max"] == 5


@pytest.mark.parametrize("args, message", [
    (["generate", "blob:n=3"], "blob"),
    (["generate", "grid:rows=ten"], "rows"),
    (["info", "missing.csr"], "missing.csr: no such graph file"),
    (["run", "missing.yaml"], "missing.yaml: no such config file"),
    (["report", "no-such-run"], "no-such-run"),
    (["fetch", "USA-road-d.NYC"], "'USA-road-d.NYC' is not in the catalog (did you mean USA-road-d.NY"),
    (["list", "--paper", "knuth"], "unknown paper 'knuth'"),
    (["probe", "cpu-dijkstra", "--graph", "grid:rows=3,cols=3", "--param", "tdp=64"],
     "--param tdp=64: cpu-dijkstra has no parameter 'tdp'"),
    (["probe", "cpu-dijkstra", "--graph", "missing.csr"], "missing.csr: no such graph file"),
])
def test_user_mistakes_are_one_line_errors_with_status_2(invoke, args, message):
    result = invoke(*args)
    assert result.exit_code == 2
    assert message in result.output
    assert "Traceback" not in result.output and len(result.output.strip().splitlines()) == 1


def test_a_bad_config_is_refused_with_its_line(invoke, tmp_path):
    (tmp_path / "bad.yaml").write_text("graphs: [grid:rows=3]\nimplementations: [cpu-dijkstra]\nrepeats: 3\n")
    result = invoke("run", "bad.yaml")
    assert result.exit_code == 2
    assert "bad.yaml:3: repeats: unknown key" in result.output


def test_run_with_report_then_report_again(invoke, tmp_path):
    (tmp_path / "tiny.yaml").write_text(
        "graphs: ['grid:rows=5,cols=5', 'rmat:n=64,m=512,seed=1']\n"
        "implementations: [cpu-dijkstra, cpu-bf-queue]\n"
        "sources: {count: 3}\n"
    )
    result = invoke("run", "tiny.yaml", "--run-id", "r1", "--report", "--no-progress")
    assert result.exit_code == 0, result.output
    assert (tmp_path / "results" / "r1" / "report.md").exists()
    assert "cpu-bf-queue" in result.output
    again = invoke("report", "results/r1", "--out", "elsewhere")
    assert again.exit_code == 0 and (tmp_path / "elsewhere" / "speedup.svg").exists()


def test_list_shows_implementations_and_generators(invoke):
    result = invoke("list")
    assert result.exit_code == 0
    for name in ("cpu-dijkstra", "cpu-bf-queue", "cpu-bf", "cpu-bfs", "rmat", "kron", "grid"):
        assert name in result.output


def test_run_can_take_some_graphs_and_report_merges_the_runs(invoke, tmp_path):
    (tmp_path / "two.yaml").write_text(
        "graphs: [{graph: 'grid:rows=5,cols=5', label: grid}, {graph: 'chain:n=30', label: chain}]\n"
        "implementations: [cpu-dijkstra]\nsources: {count: 3}\n")
    assert invoke("run", "two.yaml", "--graph", "grid", "--run-id", "a", "--no-progress").exit_code == 0
    assert invoke("run", "two.yaml", "--graph", "chain", "--run-id", "b", "--no-progress").exit_code == 0
    manifest = json.loads((tmp_path / "results" / "a" / "manifest.json").read_text())
    assert list(manifest["graphs"]) == ["grid"] and manifest["config"]["selected_graphs"] == ["grid"]
    merged = invoke("report", "results/a", "results/b", "--out", "merged")
    assert merged.exit_code == 0 and "grid" in merged.output and "chain" in merged.output
    refused = invoke("run", "two.yaml", "--graph", "ring")
    assert refused.exit_code == 2 and "no graph labelled 'ring' (graphs: grid, chain)" in refused.output


def test_run_can_take_some_variants_and_borrow_the_baseline_from_a_merged_run(invoke, tmp_path):
    (tmp_path / "sweep.yaml").write_text(
        "graphs: [{graph: 'grid:rows=5,cols=5', label: grid}]\n"
        "implementations: [cpu-dijkstra, {name: cpu-bf-queue, params: {count_relaxations: [false, true]}}]\n"
        "sources: {count: 3}\nbaseline: cpu-dijkstra\n")
    assert invoke("run", "sweep.yaml", "--variant", "cpu-dijkstra", "--run-id", "a", "--no-progress").exit_code == 0
    assert invoke("run", "sweep.yaml", "--variant", "cpu-bf-queue", "--run-id", "b", "--no-progress").exit_code == 0
    rows = [json.loads(line) for line in (tmp_path / "results" / "b" / "rows.jsonl").read_text().splitlines()]
    assert {row["variant"] for row in rows} == {"cpu-bf-queue[count_relaxations=false]",
                                                "cpu-bf-queue[count_relaxations=true]"}
    manifest = json.loads((tmp_path / "results" / "b" / "manifest.json").read_text())
    assert manifest["config"]["selected_variants"] == sorted({row["variant"] for row in rows})
    merged = invoke("report", "results/a", "results/b", "--out", "merged")
    assert merged.exit_code == 0
    with open(tmp_path / "merged" / "report.csv", newline="") as summary:
        speedups = {row["variant"]: row for row in csv.DictReader(summary)}
    swept = speedups["cpu-bf-queue[count_relaxations=true]"]
    assert swept["baseline"] == "cpu-dijkstra" and swept["baseline_run_id"] == "a" and float(swept["speedup"]) > 0

    refused = invoke("run", "sweep.yaml", "--variant", "cpu-bfs")
    assert refused.exit_code == 2 and "no variant named 'cpu-bfs' (variants: cpu-dijkstra, cpu-bf-queue[" in (
        refused.output)


def test_probe_times_cpu_baselines_through_the_runner_and_report_reads_its_run(invoke, tmp_path):
    result = invoke("probe", "cpu-dijkstra", "cpu-bf", "--graph", "rmat:n=256,m=2048,seed=5", "--graph",
                    "grid:rows=6,cols=6", "--param", "cpu-bf.count_relaxations=false,true", "--sources", "3",
                    "--run-id", "p1", "--no-progress", "--counters")
    assert result.exit_code == 0, result.output
    for variant in ("cpu-dijkstra", "cpu-bf[count_relaxations=false]", "cpu-bf[count_relaxations=true]"):
        assert variant in result.output
    assert result.output.count(" 3/3 ") == 6  # every solve verified, on both graphs
    assert "  grid:rows=6,cols=6  cpu-bf[count_relaxations=true]: iterations " in result.output
    assert "results/p1: read it with `sssp-bench report` or `sssp-bench compare`" in result.output
    manifest = json.loads((tmp_path / "results" / "p1" / "manifest.json").read_text())
    assert manifest["status"] == "complete" and manifest["config"]["name"] == "probe"
    assert manifest["config"]["description"].startswith("sssp-bench probe cpu-dijkstra cpu-bf --graph ")
    reported = invoke("report", "results/p1")
    assert reported.exit_code == 0 and (tmp_path / "results" / "p1" / "report.md").exists()
    compared = invoke("compare", "results/p1", "--between", "cpu-bf[count_relaxations=false]",
                      "cpu-bf[count_relaxations=true]")
    assert compared.exit_code == 0 and "grid:rows=6,cols=6" in compared.output


def test_probe_says_what_it_skipped_without_a_gpu(invoke):
    from sssp_bench import impls

    available, why = impls.get("lonestar").available()
    if available:
        pytest.skip("lonestar runs here")
    result = invoke("probe", "cpu-dijkstra", "lonestar", "--graph", "grid:rows=6,cols=6", "--sources", "2",
                    "--no-progress")
    assert result.exit_code == 0, result.output
    assert f"skipped here: lonestar: {why}" in result.output
    assert f"skipped lonestar: {why}" in result.output  # the runner's own log line, as `run` prints it


def test_list_shows_each_generators_parameters_with_their_defaults(invoke):
    from sssp_bench.graph.generators import GENERATORS

    output = invoke("list").output
    assert "defaults: n=16384, m=131072, a=0.45, b=0.15, c=0.15, d=0.25, directed=true, seed=1, wmin=1, wmax=101" \
        in output  # rmat, as README's Graphs section gives its quadrant probabilities
    for name, generator in GENERATORS.items():
        section = output.split(f"\n  {name} ", 1)[1].split("\n", 2)[1]  # the line below the generator's description
        for key in generator.parameters:
            assert f"{key}=" in section, (name, key, section)


# -- the run's life cycle: refusals, graphs that fail to load, wrong answers, interrupts ----------------------


@pytest.mark.parametrize("graph, message", [
    ("missing.csr", "missing.csr: no such graph file"),
    ("no-such-graph", "graph 'no-such-graph': not a generator spec"),
    ("USA-road-d.NY", "graph 'USA-road-d.NY' is not fetched"),
])
def test_a_refused_run_leaves_no_run_folder(invoke, tmp_path, graph, message):
    (tmp_path / "refused.yaml").write_text(f"graphs: ['grid:rows=3,cols=3', '{graph}']\n"
                                           "implementations: [cpu-dijkstra]\n")
    result = invoke("run", "refused.yaml", "--no-progress")
    assert result.exit_code == 2 and message in result.output
    assert not (tmp_path / "results").exists()


TWO_BROKEN = ("graphs: [{graph: 'grid:rows=4,cols=4', label: grid}, {graph: 'grid:rows=ten,cols=3', label: bad-spec},"
              " {graph: broken.csr, label: damaged}]\n"
              "implementations: [cpu-dijkstra]\nsources: {count: 2}\n")


def test_run_exits_2_and_names_each_graph_that_failed_to_load_after_running_the_others(invoke, tmp_path):
    (tmp_path / "broken.csr").write_bytes(b"not a graph, whatever its name says" * 4)
    (tmp_path / "broken.yaml").write_text(TWO_BROKEN)
    result = invoke("run", "broken.yaml", "--run-id", "b", "--no-progress")
    assert result.exit_code == 2, result.output
    assert "graph bad-spec not loaded: generator spec 'grid:rows=ten,cols=3': parameter 'rows'" in result.output
    assert "graph damaged not loaded: broken.csr: not an sssp-bench CSR file" in result.output
    assert "2 graph(s) not loaded: the run lacks them" in result.output
    rows = [json.loads(line) for line in (tmp_path / "results" / "b" / "rows.jsonl").read_text().splitlines()]
    assert sum(row["graph"] == "grid" and row["status"] == "ok" for row in rows) == 1 + 2  # prepare, two solves


class OffByOne(Implementation):
    name = "test-off-by-one"
    description = "Dijkstra that adds one to every distance but the source's: a wrong answer on every solve"

    def prepare(self, graph):
        self.inner = impls.get("cpu-dijkstra")()
        self.inner.prepare(graph)

    def solve(self, source):
        distances = np.asarray(self.inner.solve(source).distances, dtype=np.float64).copy()
        distances[np.isfinite(distances) & (np.arange(len(distances)) != source)] += 1
        return SolveResult(distances)


def test_a_wrong_answer_outranks_a_graph_that_failed_to_load(invoke, tmp_path, monkeypatch):
    monkeypatch.setitem(impls.registry(), OffByOne.name, OffByOne)
    (tmp_path / "both.yaml").write_text(
        TWO_BROKEN.replace("[cpu-dijkstra]", "[cpu-dijkstra, test-off-by-one]").replace(
            ", {graph: broken.csr, label: damaged}", ""))
    result = invoke("run", "both.yaml", "--no-progress")
    assert result.exit_code == 1, result.output  # the wrong answer is the finding; the missing graph is said too
    assert "graph bad-spec not loaded: " in result.output and "2 wrong answer(s): see " in result.output


SLOW = ("graphs: [{graph: 'chain:n=8000,directed=false', label: chain}]\n"  # cpu-bf: ~0.2 s a source here
        "implementations: [cpu-dijkstra, cpu-bf]\nsources: {count: 10, min_reached: 1}\nwarmup: 0\n")


@pytest.mark.parametrize("signal_number, status", [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_sigterm_stops_a_run_as_ctrl_c_does_and_resume_finishes_it(invoke, tmp_path, signal_number, status):
    (tmp_path / "slow.yaml").write_text(SLOW)
    run_dir = tmp_path / "results" / "slow"
    process = subprocess.Popen([sys.executable, "-m", "sssp_bench.cli", "run", "slow.yaml", "--run-id", "slow",
                                "--no-progress"], cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
    deadline = time.monotonic() + 120
    while not _solved(run_dir, "cpu-bf") and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    process.send_signal(signal_number)  # mid-run: cpu-bf has solved a source and has more to go
    _, stderr = process.communicate(timeout=120)
    assert process.returncode == status, stderr
    assert stderr.strip().endswith(f"continue with: sssp-bench run slow.yaml --resume {Path('results') / 'slow'}")
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest["status"] == "interrupted" and manifest["finished"]
    assert 1 <= _solved(run_dir, "cpu-bf") < 10

    resumed = invoke("run", "slow.yaml", "--resume", "results/slow", "--no-progress")
    assert resumed.exit_code == 0, resumed.output
    solves = [(row["variant"], row["source_index"]) for row in map(json.loads, (run_dir / "rows.jsonl").read_text(
        ).splitlines()) if row["phase"] == "solve"]
    assert len(solves) == len(set(solves)) == 2 * 10  # nothing lost, nothing solved twice
    assert json.loads((run_dir / "manifest.json").read_text())["status"] == "complete"


def _solved(run_dir, variant: str) -> int:
    """The solves of `variant` that a run in progress has written (a half-written last line is not one)."""
    try:
        lines = (run_dir / "rows.jsonl").read_text().splitlines()
    except FileNotFoundError:
        return 0
    return sum('"phase": "solve"' in line and f'"variant": "{variant}"' in line and line.endswith("}")
               for line in lines)
