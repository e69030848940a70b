"""A long-lived worker keeps its graphs and prepared implementations resident between tasks (run/resident.py)."""

import json

import pytest

from sssp_bench import impls
from sssp_bench.run import resident
from sssp_bench.run.config import GraphEntry
from sssp_bench.run.resident import PROCESS_MEMO, ProcessMemo
from sssp_bench.run.runner import start_run
from sssp_bench.run.shards import queue_split, apply_shard

from runs import make_config, read_rows

TWO_GRAPHS = """
    graphs:
      - {graph: "grid:rows=8,cols=8,seed=1", label: grid}
      - {graph: "rmat:n=256,m=2048,seed=2", label: rmat}
    implementations: [cpu-dijkstra, cpu-bf-queue]
    sources: {count: 6, seed: 1}
    verification: {reference_sources: 1}
"""


@pytest.fixture
def worker_memo():
    """The process memo switched on, as a Dask worker does, and emptied afterwards."""
    PROCESS_MEMO.keep_between_runs()
    yield PROCESS_MEMO
    PROCESS_MEMO.clear()
    PROCESS_MEMO.enabled = False


@pytest.fixture
def prepares(monkeypatch):
    """Every prepare and teardown of cpu-dijkstra, by instance."""
    calls = {"prepare": [], "teardown": []}
    cls = impls.get("cpu-dijkstra")
    prepare, teardown = cls.prepare, cls.teardown
    monkeypatch.setattr(cls, "prepare", lambda self, graph: calls["prepare"].append(id(self)) or prepare(self, graph))
    monkeypatch.setattr(cls, "teardown", lambda self: calls["teardown"].append(id(self)) or teardown(self))
    return calls


def run_task(tmp_path, text, split, index):
    """Task `index` of `split`, run in this process as a worker would run it: its run folder."""
    config = apply_shard(make_config(tmp_path, text), split, index)
    return start_run(config, run_id=f"task-{index}", show_progress=False).run_dir


def run_tasks(tmp_path, text, workers=2):
    """Every task of the queue split, one after another in this process, as one worker would take them."""
    split = queue_split(make_config(tmp_path, text), workers)
    return split, [run_task(tmp_path, text, split, index) for index in range(1, split.count + 1)]


def test_a_worker_prepares_each_cell_once_however_many_tasks_cut_it(tmp_path, worker_memo, prepares):
    split, runs = run_tasks(tmp_path, TWO_GRAPHS)
    pieces = [piece for task in split.shards for piece in task if piece.variant == "cpu-dijkstra"]
    assert len(pieces) > 2  # the queue cut cpu-dijkstra's cells into several tasks
    assert len(prepares["prepare"]) == 2 and not prepares["teardown"]  # once per graph, kept between tasks
    rows = [row for run in runs for row in read_rows(run)]
    solves = [row for row in rows if row["phase"] == "solve"]
    assert len(solves) == 2 * 2 * 6 and all(row["status"] == "ok" and row["certificate"] for row in solves)
    # every task still writes its prepare row, with the resident instance's measured prepare time
    prepare_rows = [row for row in rows if row["phase"] == "prepare" and row["variant"] == "cpu-dijkstra"]
    assert len(prepare_rows) == len(pieces) and len({row["time_s"] for row in prepare_rows}) == 2
    later = [cell for run in runs[1:] for cell in json.loads((run / "manifest.json").read_text())["timing"]["cells"]
             if cell["variant"] == "cpu-dijkstra" and cell["first"] > 0]
    assert later and all(cell["setup_s"] == 0 for cell in later)  # a resident cell's task costs its solves only
    worker_memo.clear()
    assert sorted(prepares["teardown"]) == sorted(prepares["prepare"])  # torn down when the worker lets go


def test_a_plain_run_keeps_nothing_and_tears_every_cell_down(tmp_path, prepares):
    run_tasks(tmp_path, TWO_GRAPHS)
    assert len(prepares["prepare"]) > 2 and sorted(prepares["teardown"]) == sorted(prepares["prepare"])


def test_the_least_recently_used_graph_leaves_first_when_the_budget_is_full(tmp_path, monkeypatch):
    memo = ProcessMemo()
    memo.keep_between_runs()
    grid, chain = GraphEntry("grid:rows=5,cols=5,seed=1", "grid", "keep"), GraphEntry("chain:n=30", "chain", "keep")
    kept_grid = memo.loaded_graph(grid, tmp_path, None, False)
    kept_chain = memo.loaded_graph(chain, tmp_path, None, False)
    assert memo.loaded_graph(grid, tmp_path, None, False) is kept_grid  # both resident; chain is now the older
    both = kept_grid.graph.nbytes + kept_chain.graph.nbytes
    monkeypatch.setattr(resident, "RESIDENT_HOST_BYTES", both - 1)  # a third graph needs room
    star = memo.loaded_graph(GraphEntry("star:n=20", "star", "keep"), tmp_path, None, False)
    assert memo.keeps(star) and memo.keeps(kept_grid) and not memo.keeps(kept_chain)


def test_an_implementation_that_failed_a_solve_is_not_kept(tmp_path, worker_memo, monkeypatch, prepares):
    cls = impls.get("cpu-dijkstra")
    solve, calls = cls.solve, []

    def failing_third(self, source):  # the warm-up and the first timed solve go well, the next one raises
        calls.append(source)
        if len(calls) == 3:
            raise RuntimeError("bad solve")
        return solve(self, source)

    monkeypatch.setattr(cls, "solve", failing_third)
    config = make_config(tmp_path, """
        graphs: [{graph: "chain:n=10", label: chain}]
        implementations: [cpu-dijkstra]
        sources: {count: 4, seed: 1}
    """)
    rows = read_rows(start_run(config, run_id="one", show_progress=False).run_dir)
    assert any(row["status"] == "error" for row in rows if row["phase"] == "solve")
    assert prepares["teardown"] == prepares["prepare"]  # retired, not kept for the next task


def test_a_resident_implementation_that_fails_a_later_task_is_retired_and_the_next_task_prepares_anew(
        tmp_path, worker_memo, monkeypatch, prepares):
    text = """
        graphs: [{graph: "grid:rows=12,cols=12,seed=1", label: grid}]
        implementations: [cpu-dijkstra]
        sources: {count: 12, seed: 1}
    """
    split = queue_split(make_config(tmp_path, text), 2)
    assert split.count >= 3

    def task(index):
        return read_rows(run_task(tmp_path, text, split, index))

    task(1)
    assert len(prepares["prepare"]) == 1 and not prepares["teardown"]  # resident after a clean task
    cls = impls.get("cpu-dijkstra")
    solve = cls.solve
    monkeypatch.setattr(cls, "solve", lambda self, source: (_ for _ in ()).throw(RuntimeError("bad solve")))
    assert any(row["status"] == "error" for row in task(2))
    assert prepares["teardown"] == prepares["prepare"]  # the failing instance is retired
    monkeypatch.setattr(cls, "solve", solve)
    assert all(row["status"] == "ok" for row in task(3) if row["phase"] == "solve")
    assert len(prepares["prepare"]) == 2  # a new instance, prepared and warmed up again


def test_an_external_program_is_never_kept_since_it_belongs_to_its_run_folder(tmp_path, worker_memo, monkeypatch,
                                                                               prepares):
    from test_external import external_config, misbehaving

    torn_down = []
    cls = impls.get("external")
    teardown = cls.teardown
    monkeypatch.setattr(cls, "teardown", lambda self: torn_down.append(id(self)) or teardown(self))
    rows = read_rows(start_run(external_config(tmp_path, misbehaving("ok")), run_id="one", show_progress=False).run_dir)
    assert all(row["status"] == "ok" for row in rows if row["phase"] == "solve")
    assert len(prepares["prepare"]) == 1 and not prepares["teardown"]  # cpu-dijkstra beside it stays resident
    assert len(torn_down) == 1  # the external is torn down at its cell's end all the same
