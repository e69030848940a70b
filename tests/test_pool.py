"""`run --workers N`: worker processes on this host (run/pool.py), one per GPU, running CPU implementations here:
a queue of tasks merged into one run, a worker killed mid-task (a real SIGKILL) that loses nothing and repeats
nothing, and no Dask needed."""

import json
import operator
import os
import subprocess
import sys
import textwrap
import time

import pytest

from sssp_bench.errors import UserError
from sssp_bench.report import summarize
from sssp_bench.run.pool import Pool, TaskKilledWorkers
from sssp_bench.run.runner import start_run
from sssp_bench.run.workers import run_on_workers

from runs import make_config, read_rows
from worker_runs import (SLOW, SLOW_SOLVES, TWO_GRAPHS, check_nothing_lost_or_repeated, counts,
                         kill_a_worker_mid_task, solve_keys, tasks_of)


def test_two_cpu_workers_run_a_queue_of_tasks_and_merge_them_into_the_unsplit_runs_counts(tmp_path):
    messages = []
    outcome = run_on_workers(make_config(tmp_path, TWO_GRAPHS), workers=2, run_id="pool", log=messages.append,
                             gpus=[])
    whole = start_run(make_config(tmp_path, TWO_GRAPHS), run_id="whole", show_progress=False).run_dir

    assert outcome.run_dir == (tmp_path / "results" / "pool").resolve()
    assert counts(summarize(outcome.run_dir)) == counts(summarize(whole))
    assert dict(outcome.statuses) == json.loads((whole / "manifest.json").read_text())["statuses"]
    tasks = tasks_of(outcome.run_dir)
    assert tasks > 2  # more tasks than workers: a worker that finishes takes the next one
    shard_dirs = sorted((outcome.run_dir / "shards").iterdir(), key=lambda path: int(path.name.split("-")[2]))
    assert [path.name for path in shard_dirs] == [f"pool-shard-{index}-of-{tasks}" for index in range(1, tasks + 1)]
    attempts = [json.loads((path / "attempts.jsonl").read_text()) for path in shard_dirs]
    assert os.getpid() not in {attempt["pid"] for attempt in attempts}  # solved in the workers, not here
    assert {attempt["worker"].split("/")[1] for attempt in attempts} <= {"worker-1", "worker-2"}
    assert "no GPU here: 2 CPU worker process(es)" in messages
    assert any(f"{tasks} task(s) on 2 worker(s) (queue split, costs estimated from the config)" in message
               for message in messages)
    manifest = json.loads((outcome.run_dir / "manifest.json").read_text())
    assert [entry["run_id"] for entry in manifest["merged_from"]] == [path.name for path in shard_dirs]
    timing = manifest["timing"]  # every task's clock, summed, and the coordinator's own
    assert len(timing["shards"]) == tasks and timing["coordinator"]["elapsed_s"] == timing["elapsed_s"] > 0
    clock = timing["coordinator"]  # in the order they happen: workers up, the first task out, the last result in
    assert clock["executor"] == "processes" and clock["died"] == []
    assert clock["cluster_s"] < clock["split_s"] <= clock["submitted_s"] < clock["results_s"] < clock["elapsed_s"]
    assert all(clock["cluster_s"] < ready < clock["results_s"] for ready in clock["workers_ready_s"])
    assert clock["close_s"] >= 0 and clock["merge_s"] > 0
    assert all(task["startup_s"] == 0 for task in timing["shards"])  # each worker's imports claimed before its tasks


def test_an_expensive_cell_is_shared_by_the_workers_through_the_queue(tmp_path):
    text = """
        graphs:
          - {graph: "road:n=6000,seed=2", label: road}
          - {graph: "grid:rows=6,cols=6,seed=1", label: grid}
        implementations: [cpu-bf, cpu-bfs]
        sources: {count: 16, seed: 1}
        verification: {reference_sources: 1}
    """
    outcome = run_on_workers(make_config(tmp_path, text), workers=2, run_id="queue", gpus=[])
    pids_by_task = {path.name: json.loads((path / "attempts.jsonl").read_text().splitlines()[0])["pid"]
                    for path in (outcome.run_dir / "shards").iterdir()}
    ran_the_cell = {pids_by_task[path.name] for path in (outcome.run_dir / "shards").iterdir()
                    if any(row["variant"] == "cpu-bf" and row["graph"] == "road" for row in read_rows(path))}
    assert len(ran_the_cell) == 2  # both worker processes solved part of road/cpu-bf
    keys = solve_keys(read_rows(outcome.run_dir))
    assert len(keys) == len(set(keys)) == 2 * 2 * 16


def test_an_interrupted_workers_run_is_finished_with_resume_on_the_command_line(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from sssp_bench.cli import cli

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")  # CPU workers, on a host with fewer than two GPUs too
    (tmp_path / "two.yaml").write_text(textwrap.dedent(TWO_GRAPHS))
    invoke = lambda *args: CliRunner().invoke(cli, list(args), catch_exceptions=False)  # noqa: E731
    assert invoke("run", "two.yaml", "--workers", "2", "--run-id", "w", "--no-progress").exit_code == 0
    run_dir = tmp_path / "results" / "w"
    expected = counts(summarize(run_dir))
    shard = run_dir / "shards" / f"w-shard-2-of-{tasks_of(run_dir)}"  # as if the session had ended in task 2
    lines = (shard / "rows.jsonl").read_text().splitlines(keepends=True)
    (shard / "rows.jsonl").write_text("".join(lines[: len(lines) // 2]))
    (run_dir / "manifest.json").unlink()
    (run_dir / "rows.jsonl").unlink()

    refused = invoke("run", "two.yaml", "--workers", "2", "--shards", "3", "--resume", "results/w")
    assert refused.exit_code == 2 and "--shards 3: " in refused.output
    assert f"was split into {tasks_of(run_dir)} shards" in refused.output
    resumed = invoke("run", "two.yaml", "--workers", "2", "--resume", "results/w", "--no-progress")
    assert resumed.exit_code == 0, resumed.output
    assert counts(summarize(run_dir)) == expected
    keys = solve_keys(read_rows(run_dir))
    assert len(keys) == len(set(keys))


def test_shards_option_splits_the_workers_run_into_that_many_shards_as_shard_does(tmp_path):
    outcome = run_on_workers(make_config(tmp_path, TWO_GRAPHS), workers=2, shard_count=3, run_id="three", gpus=[])
    assert tasks_of(outcome.run_dir) == 3
    assert json.loads((outcome.run_dir / "split.json").read_text())["method"] == "spread"
    whole = start_run(make_config(tmp_path, TWO_GRAPHS), run_id="whole", show_progress=False).run_dir
    assert counts(summarize(outcome.run_dir)) == counts(summarize(whole))


def test_more_workers_than_gpus_is_refused(tmp_path):
    with pytest.raises(UserError, match=r"^--workers 3: this machine shows 2 GPU\(s\) \(0,1\); one worker per GPU"):
        run_on_workers(make_config(tmp_path, TWO_GRAPHS), workers=3, run_id="x", gpus=["0", "1"])
    assert not (tmp_path / "results").exists()  # refused before anything was written


def test_each_worker_is_pinned_to_its_own_gpu_before_it_imports_anything():
    with Pool(2, ["0", "1"]) as pool:
        seen = dict(pool.run(os.getenv, [("CUDA_VISIBLE_DEVICES",)] * 2, ["first", "second"]))
        pool.close()
    assert seen == {0: "0", 1: "1"}  # the first two calls go to the two idle workers, in order
    assert pool.timing()["died"] == []


def test_calls_larger_than_a_pipe_buffer_reach_workers_that_are_still_importing():
    big = b"x" * (1 << 20)  # a worker's pipe is read in a thread from its start: no send waits on its imports
    with Pool(2, []) as pool:
        sizes = dict(pool.run(len, [(big,)] * 3, ["one", "two", "three"]))
        pool.close()
    assert sizes == {0: len(big), 1: len(big), 2: len(big)}


def test_a_worker_with_nothing_left_to_hand_out_is_stopped_while_the_others_finish():
    with Pool(2, []) as pool:
        done = dict(pool.run(time.sleep, [(1.5,), (0.0,)], ["slow", "quick"]))
        quick_worker_alive = pool.slots[1].process.is_alive()  # its exit overlapped the slow task
        pool.close()
    assert done == {0: None, 1: None} and not quick_worker_alive
    released = pool.timing()["workers_released_s"]
    assert released[0] is None and released[1] < 1.5  # the busy one stops at close()


def test_a_second_batch_starts_new_workers_where_the_first_released_them():
    with Pool(2, []) as pool:
        first = dict(pool.run(os.getpid, [()], ["alone"]))  # the other worker had nothing to do: released
        second = dict(pool.run(os.getpid, [()] * 2, ["one", "two"]))
        pool.close()
    assert second[0] == first[0] and second[1] != first[0]
    assert pool.timing()["died"] == []


def test_a_workers_exception_is_raised_in_the_coordinator_with_its_traceback_and_stops_the_workers():
    pool = Pool(1, [])
    with pytest.raises(ZeroDivisionError) as raised, pool:
        list(pool.run(operator.truediv, [(1, 0)], ["divide"]))
    assert any("in worker pid" in note and "(divide)" in note and "Traceback" in note
               for note in raised.value.__notes__)
    assert not pool.slots[0].process.is_alive()


def test_a_task_whose_workers_keep_dying_stops_the_run_after_three_attempts():
    said = []
    pool = Pool(1, [], log=said.append)
    with pytest.raises(TaskKilledWorkers, match="doomed"), pool:
        list(pool.run(os._exit, [(3,)], ["doomed"]))
    assert [entry["ended"] for entry in pool.timing()["died"]] == ["exit status 3"] * 3
    assert sum("died (exit status 3) in doomed: the task goes back in the queue" in line for line in said) == 2
    assert sum("started by spawn in its place" in line for line in said) == 2


def test_a_worker_killed_mid_shard_loses_nothing_and_repeats_nothing(tmp_path):
    # The uninterrupted run first: it generates the graphs that the coordinator below reads
    whole = start_run(make_config(tmp_path, SLOW), run_id="whole", show_progress=False).run_dir
    (tmp_path / "slow.yaml").write_text(textwrap.dedent(SLOW))
    command = [sys.executable, "-m", "sssp_bench.cli", "run", "slow.yaml", "--workers", "2", "--run-id", "killed",
               "--datasets", "datasets", "--no-progress"]  # the graphs the uninterrupted run generated
    env = {**os.environ, "CUDA_VISIBLE_DEVICES": ""}  # CPU workers, on a GPU host too
    process = subprocess.Popen(command, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               env=env)
    victim, before = kill_a_worker_mid_task(tmp_path / "results" / "killed" / "shards", process, "killed")
    output, _ = process.communicate(timeout=300)
    assert victim is not None, f"no shard was caught mid-run:\n{output}"
    assert process.returncode == 0, output

    merged = tmp_path / "results" / "killed"
    check_nothing_lost_or_repeated(victim, before, merged, whole)
    assert "workers started by fork, a dead one's successor by spawn" in output
    assert "died (killed by signal 9) in killed-shard-" in output and "started by spawn in its place" in output
    assert f"{merged.resolve()}: {SLOW_SOLVES} ok" in output
    died = json.loads((merged / "manifest.json").read_text())["timing"]["coordinator"]["died"]
    assert [entry["ended"] for entry in died] == ["killed by signal 9"]


def test_workers_need_no_dask(tmp_path):
    (tmp_path / "tiny.yaml").write_text(textwrap.dedent(TWO_GRAPHS))
    # the import system refuses `distributed`, as on a machine without the extra
    script = ("import sys; sys.modules['distributed'] = None; from sssp_bench.cli import main; "
              "sys.argv = ['sssp-bench', 'run', 'tiny.yaml', '--workers', '2', '--no-progress']; main()")
    done = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True,
                          env={**os.environ, "CUDA_VISIBLE_DEVICES": ""})
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().endswith(": 24 ok")


def test_a_coordinator_forks_its_workers_before_it_imports_the_runner_or_numba(tmp_path):
    # the workers import them themselves while their CUDA contexts are made: up to the split, the coordinator holds
    # the command line, the config and the split, not the runner; numba comes only with the config's registries
    script = ("import sys; import sssp_bench.cli, sssp_bench.run.pool; "
              "print('sssp_bench.run.runner' in sys.modules, 'numba' in sys.modules, 'cupy' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["False", "False", "False"]


def test_a_missing_graph_file_stops_a_workers_run_before_any_task_and_leaves_no_run_folder(tmp_path):
    (tmp_path / "missing.yaml").write_text(textwrap.dedent("""
        graphs: [{graph: nowhere.gr, label: nowhere}]
        implementations: [cpu-dijkstra]
        sources: {count: 2, seed: 1}
    """))
    script = ("from sssp_bench.cli import main; import sys; "
              "sys.argv = ['sssp-bench', 'run', 'missing.yaml', '--workers', '1', '--output', 'out']; main()")
    done = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and done.stderr.strip().splitlines()[-1] == "Error: nowhere.gr: no such graph file"
    assert not any((tmp_path / "out").glob("*/*"))  # no run folder
