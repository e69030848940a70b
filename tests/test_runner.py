"""The runner end to end on tiny generated graphs: every solve timed, verified and recorded; failures are rows."""

import json
import re
import time

import numpy as np
import pytest

from sssp_bench import impls
from sssp_bench.errors import UserError
from sssp_bench.graph import generators
from sssp_bench.graph.csr import write_csr
from sssp_bench.impls.base import Implementation, SolveResult
from sssp_bench.report import summarize, write_report
from sssp_bench.run.order import variant_run_order
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
    from sssp_bench.run import resident as resident_module

    original = resident_module.load_graph
    monkeypatch.setattr(resident_module, "load_graph", lambda *args: loaded.append(args[1]) or original(*args))
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


@pytest.mark.parametrize("graph, message", [
    ("no/such/graph.csr", "no/such/graph.csr: no such graph file"),
    ("no-such-graph", "graph 'no-such-graph': not a generator spec"),
    ("USA-road-d.NY", "graph 'USA-road-d.NY' is not fetched"),  # a catalog graph, no stand-in allowed
])
def test_a_refused_run_is_refused_before_anything_runs_and_leaves_nothing_behind(tmp_path, graph, message):
    config = make_config(tmp_path, f"""
        graphs: ["grid:rows=3,cols=3", "{graph}"]
        implementations: [cpu-dijkstra]
    """)
    with pytest.raises(UserError, match=re.escape(message)):
        start_run(config, run_id="x", show_progress=False)
    assert not (tmp_path / "results").exists()  # no run folder, no manifest saying "running"


def test_a_refused_resume_leaves_the_run_as_it_was(tmp_path):
    graph_file = tmp_path / "grid.csr"
    write_csr(generators.generate("grid:rows=4,cols=4"), graph_file, {})
    config = make_config(tmp_path, f"""
        graphs: [{{graph: "{graph_file}", label: grid}}]
        implementations: [cpu-dijkstra]
        sources: {{count: 2}}
    """)
    manifest_path = start_run(config, run_id="x", show_progress=False).run_dir / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    manifest["status"] = "interrupted"  # as a Ctrl-C leaves it
    manifest_path.write_text(json.dumps(manifest))
    graph_file.unlink()
    with pytest.raises(UserError, match="grid.csr: no such graph file"):
        resume_run(config, manifest_path.parent, show_progress=False)
    assert json.loads(manifest_path.read_text()) == manifest  # still "interrupted", no resume recorded


BROKEN = """
    graphs:
      - {graph: "grid:rows=4,cols=4", label: grid}
      - {graph: "grid:rows=ten,cols=3", label: bad-spec}
    implementations: [cpu-dijkstra, cpu-bfs]
    sources: {count: 2}
"""


def test_a_graph_that_fails_to_load_is_named_and_a_resume_does_not_try_it_again(tmp_path):
    config = make_config(tmp_path, BROKEN)
    outcome = start_run(config, run_id="broken", show_progress=False)
    assert list(outcome.not_loaded) == ["bad-spec"]
    assert "parameter 'rows' must be an integer" in outcome.not_loaded["bad-spec"]
    manifest = json.loads((outcome.run_dir / "manifest.json").read_text())
    assert manifest["status"] == "complete" and manifest["not_loaded"] == outcome.not_loaded
    rows = read_rows(outcome.run_dir)
    assert [(row["variant"], row["phase"], row["status"]) for row in rows if row["graph"] == "bad-spec"] == [
        ("cpu-dijkstra", "prepare", "error"), ("cpu-bfs", "prepare", "error")]
    assert sum(row["phase"] == "solve" and row["status"] == "ok" for row in rows) == 2 * 2  # the run went on

    resumed = resume_run(config, outcome.run_dir, show_progress=False)
    assert resumed.not_loaded == outcome.not_loaded  # still a run that lacks a graph
    assert read_rows(outcome.run_dir) == rows  # not loaded again, no row written twice


def context_made_after(calls, monkeypatch):
    """early_context.ready() as in a process whose CUDA context the driver makes after `calls` more questions."""
    from sssp_bench.run import runner as runner_module

    answers = iter([False] * calls)
    monkeypatch.setattr(runner_module.early_context, "ready", lambda: next(answers, True))
    monkeypatch.setattr(runner_module.early_context, "wait", lambda: 0.0)  # no driver here: no thread to join


def test_while_the_context_is_made_the_next_graphs_load_once_each_and_keep_their_load_seconds(tmp_path, monkeypatch):
    # A GPU implementation beside the CPU ones (only a GPU run waits for a context; without a GPU, hbf is skipped)
    text = TINY.replace(
        '      - {graph: "rmat:n=128,m=1024,seed=2", label: rmat}\n',
        '      - {graph: "rmat:n=128,m=1024,seed=2", label: rmat}\n      - {graph: "chain:n=30", label: chain}\n'
    ).replace("[cpu-dijkstra, cpu-bf-queue, cpu-bfs]", "[cpu-dijkstra, cpu-bf-queue, cpu-bfs, hbf]")
    loaded = []
    from sssp_bench.run import resident as resident_module

    original = resident_module.load_graph
    monkeypatch.setattr(resident_module, "load_graph", lambda *args: loaded.append(args[1]) or original(*args))
    from sssp_bench.run.runner import Runner

    loaded_at_first_cell = []
    original_cell = Runner._run_variant
    monkeypatch.setattr(Runner, "_run_variant", lambda self, *args: (
        loaded_at_first_cell or loaded_at_first_cell.append(list(loaded))) and None or original_cell(self, *args))
    context_made_after(3, monkeypatch)  # not ready at bring-up, nor after rmat's load: chain loads too
    outcome = start_run(make_config(tmp_path, text), run_id="prefetched", show_progress=False)
    assert loaded_at_first_cell == [["grid", "rmat", "chain"]]  # all loaded before grid's first cell ran
    assert loaded == ["grid", "rmat", "chain"]  # and once each
    manifest = json.loads((outcome.run_dir / "manifest.json").read_text())
    assert all(manifest["graphs"][label]["load_s"] > 0 for label in ("grid", "rmat", "chain"))
    assert manifest["timing"]["graph_parts"]["load_s"] >= sum(manifest["graphs"][label]["load_s"]
                                                               for label in ("grid", "rmat", "chain"))
    rows = read_rows(outcome.run_dir)
    assert sum(row["phase"] == "solve" and row["status"] == "ok" for row in rows) == 3 * 3 * 5


def test_a_graph_that_fails_to_load_while_the_context_is_made_is_recorded_as_any_other(tmp_path, monkeypatch):
    context_made_after(2, monkeypatch)  # not ready at bring-up, nor before bad-spec's load
    text = BROKEN.replace("[cpu-dijkstra, cpu-bfs]", "[cpu-dijkstra, cpu-bfs, hbf]")
    outcome = start_run(make_config(tmp_path, text), run_id="broken", show_progress=False)
    assert list(outcome.not_loaded) == ["bad-spec"]
    assert "parameter 'rows' must be an integer" in outcome.not_loaded["bad-spec"]


ORDERED = """
    graphs:
      - {graph: "grid:rows=5,cols=5,seed=1", label: grid}
      - {graph: "chain:n=20", label: chain}
      - {graph: "rmat:n=64,m=512,seed=2", label: rmat}
      - {graph: "star:n=20", label: star}
    implementations: [cpu-dijkstra, cpu-bf-queue, cpu-bfs, cpu-bf]
    sources: {count: 2, min_reached: 1}
"""


def test_each_graph_runs_the_variants_in_a_seeded_order_of_its_own_and_the_report_keeps_the_configs(tmp_path):
    config = make_config(tmp_path, ORDERED)
    names = [variant.name for variant in config.variants]
    outcome = start_run(config, run_id="ordered", show_progress=False)
    graphs = json.loads((outcome.run_dir / "manifest.json").read_text())["graphs"]
    ran: dict[str, list[str]] = {}
    for row in read_rows(outcome.run_dir):
        ran.setdefault(row["graph"], []).append(row["variant"])
    orders = {label: record["variant_order"] for label, record in graphs.items()}
    assert orders == {label: list(dict.fromkeys(variants)) for label, variants in ran.items()}  # as recorded
    assert all(sorted(order) == sorted(names) for order in orders.values())
    assert len({order[0] for order in orders.values()}) > 1  # no variant always runs first on a graph
    assert len({names.index(order[-1]) for order in orders.values()}) > 1  # nor always last

    again = start_run(make_config(tmp_path, ORDERED), run_id="again", show_progress=False)
    assert {label: record["variant_order"] for label, record in json.loads(
        (again.run_dir / "manifest.json").read_text())["graphs"].items()} == orders  # seeded: the same again
    summary = summarize(outcome.run_dir)
    for label in orders:  # the report lists the config's order, whatever order they ran in
        assert list(summary.loc[summary["graph"] == label, "variant"]) == names


def test_any_subset_of_the_variants_runs_in_the_whole_runs_order(tmp_path):
    variants = make_config(tmp_path, ORDERED).variants
    whole = [variant.name for variant in variant_run_order(variants, 1, "grid")]
    for left_out in variants:  # a shard's cells on a graph, a --variant selection
        part = [variant.name for variant in variant_run_order([v for v in variants if v is not left_out], 1, "grid")]
        assert part == [name for name in whole if name != left_out.name]
    assert variant_run_order(whole, 1, "grid") == whole  # names sort as their variants do
    assert [variant_run_order(whole, seed, "grid") for seed in (1, 2, 3)] != [whole] * 3  # the seed matters


class BreaksTheHarness(Implementation):
    name = "test-breaks-the-harness"
    description = "Dijkstra that fails in teardown, outside any solve: a fault the runner cannot make a row of"

    def prepare(self, graph):
        self.inner = impls.get("cpu-dijkstra")()
        self.inner.prepare(graph)

    def solve(self, source):
        return self.inner.solve(source)

    def teardown(self):
        raise RuntimeError("driver lost")


def test_a_fault_outside_any_solve_marks_the_run_failed_not_running(tmp_path, monkeypatch):
    monkeypatch.setitem(impls.registry(), BreaksTheHarness.name, BreaksTheHarness)
    config = make_config(tmp_path, """
        graphs: [{graph: "grid:rows=3,cols=3", label: grid}]
        implementations: [test-breaks-the-harness]
        sources: {count: 1}
        warmup: 0
    """)
    with pytest.raises(RuntimeError, match="driver lost"):
        start_run(config, run_id="x", show_progress=False)
    manifest = json.loads((tmp_path / "results" / "x" / "manifest.json").read_text())
    assert manifest["status"] == "failed" and manifest["error"] == "RuntimeError: driver lost"


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


# --- a reported negative cycle is checked at every source (issue 34, item 7) ----------------------------------------


class SeesNegativeCycles(Implementation):
    name = "test-sees-negative-cycles"
    description = "reports a negative cycle from every source, whether there is one or not"
    negative_weights = True

    def solve(self, source):
        from sssp_bench.errors import NegativeCycleError

        raise NegativeCycleError(f"test: a negative cycle from source {source}")


@pytest.fixture
def sees_negative_cycles(monkeypatch):
    monkeypatch.setitem(impls.registry(), SeesNegativeCycles.name, SeesNegativeCycles)


def solve_rows_by_variant(outcome) -> dict[str, list[dict]]:
    rows: dict[str, list[dict]] = {}
    for row in read_rows(outcome.run_dir):
        if row["phase"] == "solve":
            rows.setdefault(row["variant"], []).append(row)
    return rows


def test_a_negative_cycle_on_a_graph_without_a_negative_arc_is_a_wrong_answer(tmp_path, sees_negative_cycles):
    config = make_config(tmp_path, """
        graphs: ["grid:rows=5,cols=5,seed=1"]
        implementations: [test-sees-negative-cycles]
        sources: {count: 3}
        verification: {reference_sources: 0}
    """)
    outcome = start_run(config, run_id="liar", show_progress=False)
    rows = solve_rows_by_variant(outcome)["test-sees-negative-cycles"]
    assert [row["status"] for row in rows] == ["wrong_answer"] * 3 and outcome.wrong_answers == 3
    assert all("reported a negative cycle on a graph with no negative arc" in row["message"] for row in rows)


def test_a_negative_cycle_outside_the_reference_sample_is_checked_by_the_reference(tmp_path, sees_negative_cycles):
    """Negative arcs without a negative cycle (potentials): the reference runs for every source such a report
    names, not only for the sampled first one, and finds none."""
    config = make_config(tmp_path, """
        graphs: [{graph: "random:n=200,m=1600,seed=3", label: neg, weights: "negative:min=1,max=50,potential=40,seed=4"}]
        implementations: [cpu-bf-queue, test-sees-negative-cycles]
        sources: {count: 4}
        verification: {reference_sources: 1}
    """)
    rows = solve_rows_by_variant(start_run(config, run_id="neg", show_progress=False))
    assert [row["status"] for row in rows["cpu-bf-queue"]] == ["ok"] * 4
    liar = rows["test-sees-negative-cycles"]
    assert [(row["status"], row["reference"]) for row in liar] == [("wrong_answer", False)] * 4
    assert all("the reference found none" in row["message"] for row in liar)


def test_a_real_negative_cycle_is_confirmed_by_the_reference_at_every_source(tmp_path, sees_negative_cycles):
    """A chain 0 -> 1 -> ... -> 9 with a negative cycle 4 <-> 5: sources up to 5 reach it, later ones do not."""
    from sssp_bench.graph.csr import from_arcs

    tails, heads = list(range(9)) + [5], list(range(1, 10)) + [4]
    graph_file = tmp_path / "cycle.csr"
    write_csr(from_arcs(10, tails, heads, [1, 1, 1, 1, -3] + [1] * 4 + [1], name="cycle"), graph_file, {})
    config = make_config(tmp_path, f"""
        graphs: [{{graph: "{graph_file}", label: cycle}}]
        implementations: [cpu-bf-queue, test-sees-negative-cycles]
        sources: {{count: 10, min_reached: 1}}
        verification: {{reference_sources: 0}}
    """)
    rows = solve_rows_by_variant(start_run(config, run_id="cycle", show_progress=False))
    for row in rows["cpu-bf-queue"] + rows["test-sees-negative-cycles"]:
        if row["source"] <= 5:  # the cycle is reachable: the report is right, and the reference says so
            assert (row["status"], row["reference"]) == ("negative_cycle", True), row
    for row in rows["test-sees-negative-cycles"]:
        if row["source"] > 5:
            assert (row["status"], row["reference"]) == ("wrong_answer", False), row
    assert {row["status"] for row in rows["cpu-bf-queue"] if row["source"] > 5} <= {"ok"}
    assert any(row["source"] > 5 for row in rows["cpu-bf-queue"]) and any(row["source"] <= 5 for row in rows["cpu-bf-queue"])
