"""The runner end to end on tiny generated graphs: every solve timed, verified and recorded; failures are rows."""

import json
import time

import numpy as np
import pytest

from sssp_bench import impls
from sssp_bench.errors import UserError
from sssp_bench.impls.base import Implementation, SolveResult
from sssp_bench.report import write_report
from sssp_bench.run.runner import resume_run, start_run

from runs import make_config, read_rows


TINY = """
    graphs:
      - {graph: "grid:rows=6,cols=6,seed=1", label: grid}
      - {graph: "rmat:n=128,m=1024,seed=2", label: rmat}
    implementations: [cpu-dijkstra, cpu-bf-queue, cpu-bfs]
    sources: {count: 5, seed: 1}
    verification: {reference_sources: 2}
"""


def test_run_records_one_verified_row_per_solve_and_a_manifest(tmp_path):
    outcome = start_run(make_config(tmp_path, TINY), run_id="tiny", show_progress=False)
    rows = read_rows(outcome.run_dir)
    solves = [row for row in rows if row["phase"] == "solve"]
    assert len(solves) == 2 * 3 * 5 and outcome.wrong_answers == 0
    assert all(row["status"] == "ok" and row["certificate"] is True for row in solves)
    assert sum(row["reference"] is True for row in solves) == 2 * 3 * 2  # the sampled sources
    assert all(row["time_s"] > 0 and row["mteps"] > 0 and row["reached_arcs"] > 0 for row in solves)
    assert len([row for row in rows if row["phase"] == "prepare"]) == 2 * 3

    manifest = json.loads((outcome.run_dir / "manifest.json").read_text())
    assert manifest["status"] == "complete" and manifest["baseline"] == {"sssp": "cpu-dijkstra", "bfs": "cpu-bfs"}  # the default with cpu-bfs
    assert set(manifest["graphs"]) == {"grid", "rmat"}
    assert len(manifest["graphs"]["grid"]["sources"]) == 5
    assert "python" in json.dumps(manifest["provenance"]).lower()


def test_every_implementation_gets_the_same_sources(tmp_path):
    outcome = start_run(make_config(tmp_path, TINY), run_id="tiny", show_progress=False)
    by_variant = {}
    for row in read_rows(outcome.run_dir):
        if row["phase"] == "solve" and row["graph"] == "rmat":
            by_variant.setdefault(row["variant"], []).append(row["source"])
    assert len({tuple(sources) for sources in by_variant.values()}) == 1


def test_run_then_report_writes_tables_and_charts(tmp_path):
    outcome = start_run(make_config(tmp_path, TINY), run_id="tiny", show_progress=False)
    written = write_report([outcome.run_dir])
    for path in written.values():
        assert path.exists() and path.stat().st_size > 0
    markdown = (outcome.run_dir / "report.md").read_text()
    assert "cpu-bf-queue" in markdown and "rmat" in markdown


def test_resume_after_a_crash_finishes_without_repeating(tmp_path):
    config = make_config(tmp_path, TINY)
    outcome = start_run(config, run_id="tiny", show_progress=False)
    rows_path = outcome.run_dir / "rows.jsonl"
    lines = rows_path.read_text().splitlines(keepends=True)
    rows_path.write_text("".join(lines[:10]) + lines[10][:25])  # a crash mid-write of row 11

    resumed = resume_run(config, outcome.run_dir, show_progress=False)
    rows = read_rows(resumed.run_dir)
    keys = [(r["graph"], r["variant"], r["repetition"], r["source_index"]) for r in rows if r["phase"] == "solve"]
    assert len(keys) == len(set(keys)) == 2 * 3 * 5
    assert json.loads((outcome.run_dir / "manifest.json").read_text())["resumed"]


def test_resume_does_not_load_a_graph_that_was_finished(tmp_path, monkeypatch):
    config = make_config(tmp_path, TINY)
    outcome = start_run(config, run_id="tiny", show_progress=False)
    rows_path = outcome.run_dir / "rows.jsonl"
    lines = rows_path.read_text().splitlines(keepends=True)
    rows_path.write_text("".join(lines[:-3]))  # the last three solves (on the second graph) were lost

    loaded = []
    from sssp_bench.run import runner as runner_module

    original = runner_module.load_graph
    monkeypatch.setattr(runner_module, "load_graph", lambda *args: loaded.append(args[1]) or original(*args))
    resume_run(config, outcome.run_dir, show_progress=False)
    assert loaded == ["rmat"]  # grid was complete: not generated, sourced or measured again
    assert len([row for row in read_rows(outcome.run_dir) if row["phase"] == "solve"]) == 2 * 3 * 5


def test_a_resume_with_other_code_says_so_and_the_report_names_both(tmp_path):
    config = make_config(tmp_path, TINY)
    outcome = start_run(config, run_id="tiny", show_progress=False)
    manifest_path = outcome.run_dir / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    began = manifest["provenance"]["code"]["sha256"]
    manifest["provenance"]["code"]["sha256"] = "0" * 64  # as if the run had begun before an edit
    manifest_path.write_text(json.dumps(manifest))

    messages = []
    resume_run(config, outcome.run_dir, show_progress=False, log=messages.append)
    assert any("the code changed since this run began" in message for message in messages)
    changes = json.loads(manifest_path.read_text())["code_changes"]
    assert [change["sha256"] for change in changes] == [began]
    write_report([outcome.run_dir])
    assert f"code 000000000000; resumed {changes[0]['at']} with code {began[:12]}" in (
        outcome.run_dir / "report.md").read_text()


def test_a_resume_with_the_same_code_records_no_change(tmp_path):
    config = make_config(tmp_path, TINY)
    outcome = start_run(config, run_id="tiny", show_progress=False)
    resume_run(config, outcome.run_dir, show_progress=False)
    assert "code_changes" not in json.loads((outcome.run_dir / "manifest.json").read_text())


def test_resume_refuses_a_changed_config(tmp_path):
    outcome = start_run(make_config(tmp_path, TINY), run_id="tiny", show_progress=False)
    changed = make_config(tmp_path, TINY + "    repetitions: 2\n")
    with pytest.raises(UserError, match="different config"):
        resume_run(changed, outcome.run_dir, show_progress=False)


def test_an_existing_run_folder_is_not_overwritten(tmp_path):
    config = make_config(tmp_path, TINY)
    start_run(config, run_id="tiny", show_progress=False)
    with pytest.raises(UserError, match="already exists"):
        start_run(config, run_id="tiny", show_progress=False)


def test_a_missing_graph_file_is_refused_before_anything_runs(tmp_path):
    config = make_config(tmp_path, """
        graphs: ["grid:rows=3,cols=3", "no/such/graph.csr"]
        implementations: [cpu-dijkstra]
    """)
    with pytest.raises(UserError, match="no/such/graph.csr: no such graph file"):
        start_run(config, run_id="x", show_progress=False)
    assert not (tmp_path / "results" / "x" / "rows.jsonl").exists()


# -- the failure taxonomy: each failure is a row and the run goes on ----------------------------------------


class OffByOne(Implementation):
    name = "test-off-by-one"
    description = "Dijkstra that adds one to every distance but the source's"

    def prepare(self, graph):
        self.inner = impls.get("cpu-dijkstra")()
        self.inner.prepare(graph)

    def solve(self, source):
        result = self.inner.solve(source)
        distances = np.asarray(result.distances, dtype=np.float64).copy()
        distances[np.isfinite(distances) & (np.arange(len(distances)) != source)] += 1
        return SolveResult(distances)


class Sleepy(Implementation):
    name = "test-sleepy"
    description = "sleeps past any sensible time limit"

    def solve(self, source):
        time.sleep(0.3)
        return SolveResult(np.zeros(self.graph.n))


class Crashing(Implementation):
    name = "test-crashing"
    description = "raises on every solve"

    def solve(self, source):
        raise RuntimeError("kernel launch failed")


class Unavailable(Implementation):
    name = "test-unavailable"
    device = "gpu"
    description = "needs hardware this machine lacks"

    @classmethod
    def available(cls):
        return False, "CuPy is not installed"


@pytest.fixture
def test_implementations(monkeypatch):
    for implementation in (OffByOne, Sleepy, Crashing, Unavailable):
        monkeypatch.setitem(impls.registry(), implementation.name, implementation)


def test_failures_become_rows_with_their_kind(tmp_path, test_implementations):
    config = make_config(tmp_path, """
        graphs: [{graph: "grid:rows=5,cols=5,seed=1", label: grid}]
        implementations: [cpu-dijkstra, test-off-by-one, test-sleepy, test-crashing, test-unavailable]
        sources: {count: 3}
        warmup: 0
        time_limit: 0.1
    """)
    outcome = start_run(config, run_id="failing", show_progress=False)
    rows = read_rows(outcome.run_dir)
    statuses = {}
    for row in rows:
        statuses.setdefault(row["variant"], []).append((row["phase"], row["status"]))
    assert statuses["cpu-dijkstra"] == [("prepare", "ok")] + [("solve", "ok")] * 3
    assert [status for phase, status in statuses["test-off-by-one"] if phase == "solve"] == ["wrong_answer"] * 3
    assert [status for phase, status in statuses["test-sleepy"] if phase == "solve"] == ["timeout"] * 3
    assert [status for phase, status in statuses["test-crashing"] if phase == "solve"] == ["error"] * 3
    assert statuses["test-unavailable"] == [("prepare", "unavailable")]
    assert outcome.wrong_answers == 3

    wrong = next(row for row in rows if row["status"] == "wrong_answer")
    assert wrong["certificate"] is False and "certificate" in wrong["message"]
    crashed = next(row for row in rows if row["status"] == "error")
    assert crashed["message"] == "RuntimeError: kernel launch failed"
    assert "time limit" in next(row for row in rows if row["status"] == "timeout")["message"]


def test_negative_weights_are_refused_by_dijkstra_and_solved_by_bellman_ford(tmp_path):
    config = make_config(tmp_path, """
        graphs: [{graph: "random:n=200,m=1600,seed=3", label: neg, weights: "negative:min=1,max=50,potential=40,seed=4"}]
        implementations: [cpu-dijkstra, cpu-bf-queue, cpu-bf]
        sources: {count: 4}
        baseline: cpu-bf-queue
    """)
    outcome = start_run(config, run_id="neg", show_progress=False)
    rows = read_rows(outcome.run_dir)
    dijkstra = [row for row in rows if row["variant"] == "cpu-dijkstra"]
    assert [row["status"] for row in dijkstra] == ["unsupported"]
    solves = [row for row in rows if row["phase"] == "solve"]
    assert len(solves) == 8 and all(row["status"] == "ok" and row["reference"] is not False for row in solves)
    assert json.loads((outcome.run_dir / "manifest.json").read_text())["graphs"]["neg"]["negative_weights"]


def test_an_implementation_can_take_only_the_first_sources(tmp_path):
    config = make_config(tmp_path, """
        graphs: [{graph: "grid:rows=6,cols=6,seed=1", label: grid}]
        implementations: [cpu-dijkstra, {name: cpu-bf, sources: 2}]
        sources: {count: 5}
    """)
    rows = read_rows(start_run(config, run_id="few", show_progress=False).run_dir)
    solved = {}
    for row in rows:
        if row["phase"] == "solve":
            solved.setdefault(row["variant"], []).append(row["source"])
    assert len(solved["cpu-dijkstra"]) == 5 and solved["cpu-bf"] == solved["cpu-dijkstra"][:2]


def test_a_graphs_own_parameters_are_what_its_rows_record_and_the_report_names(tmp_path):
    config = make_config(tmp_path, """
        graphs:
          - {graph: "grid:rows=6,cols=6,seed=1", label: grid}
          - {graph: "chain:n=16", label: chain, params: {cpu-bf-queue: {count_relaxations: true}}}
        implementations: [cpu-dijkstra, cpu-bf-queue]
        sources: {count: 2}
    """)
    outcome = start_run(config, run_id="tuned", show_progress=False)
    solves = [row for row in read_rows(outcome.run_dir) if row["phase"] == "solve" and row["variant"] == "cpu-bf-queue"]
    assert {row["graph"]: row["params"] for row in solves} == {"grid": {}, "chain": {"count_relaxations": True}}
    assert all(("relax_attempts" in row["counters"]) == (row["graph"] == "chain") for row in solves)
    write_report([outcome.run_dir])
    assert "- chain / cpu-bf-queue: count_relaxations=true" in (outcome.run_dir / "report.md").read_text()
