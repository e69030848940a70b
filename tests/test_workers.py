"""Dask workers on this machine: a real LocalCluster of worker processes running CPU implementations, shards
merged into one run, and a worker killed mid-run (a real SIGKILL) that loses nothing and repeats nothing."""

import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

pytest.importorskip("distributed", reason="the dask extra is not installed (pip install 'sssp-bench[dask]')")

from sssp_bench.errors import UserError  # noqa: E402
from sssp_bench.report import summarize  # noqa: E402
from sssp_bench.run.runner import start_run  # noqa: E402
from sssp_bench.run.workers import connect, run_on_workers  # noqa: E402

from runs import make_config, read_rows  # noqa: E402

TWO_GRAPHS = """
    graphs:
      - {graph: "grid:rows=8,cols=8,seed=1", label: grid}
      - {graph: "rmat:n=256,m=2048,seed=2", label: rmat}
    implementations: [cpu-dijkstra, cpu-bf-queue, cpu-bfs]
    sources: {count: 4, seed: 1}
    verification: {reference_sources: 1}
"""

# Long enough (a few seconds a shard on two cores) that a worker can be killed in the middle of its shard.
SLOW = """
    graphs:
      - {graph: "grid:rows=150,cols=150,seed=1", label: grid}
      - {graph: "road:n=20000,seed=2", label: road}
    implementations: [cpu-dijkstra, cpu-bf]
    sources: {count: 40, seed: 1}
    verification: {reference_sources: 2}
"""


def counts(summary):
    return sorted(zip(summary["graph"], summary["variant"], summary["solves"], summary["verified"]))


def solve_keys(rows):
    return [(row["graph"], row["variant"], row["repetition"], row["source_index"]) for row in rows
            if row["phase"] == "solve"]


def solve_times(rows):
    """Each solve's measured time, by its key: a solve run again would have another."""
    return {key: row["time_s"] for key, row in zip(solve_keys(rows), [r for r in rows if r["phase"] == "solve"])}


def tasks_of(run_dir):
    """How many tasks the run's split (RUN/split.json) holds."""
    return len(json.loads((run_dir / "split.json").read_text())["shards"])


def test_two_cpu_workers_run_a_queue_of_tasks_and_merge_them_into_the_unsplit_runs_counts(tmp_path):
    messages = []
    outcome = run_on_workers(make_config(tmp_path, TWO_GRAPHS), workers=2, run_id="dask", log=messages.append,
                             gpus=[])
    whole = start_run(make_config(tmp_path, TWO_GRAPHS), run_id="whole", show_progress=False).run_dir

    assert outcome.run_dir == (tmp_path / "results" / "dask").resolve()
    assert counts(summarize(outcome.run_dir)) == counts(summarize(whole))
    assert dict(outcome.statuses) == json.loads((whole / "manifest.json").read_text())["statuses"]
    tasks = tasks_of(outcome.run_dir)
    assert tasks > 2  # more tasks than workers: a worker that finishes takes the next one
    shard_dirs = sorted((outcome.run_dir / "shards").iterdir(), key=lambda path: int(path.name.split("-")[2]))
    assert [path.name for path in shard_dirs] == [f"dask-shard-{index}-of-{tasks}" for index in range(1, tasks + 1)]
    workers = {json.loads((path / "attempts.jsonl").read_text())["pid"] for path in shard_dirs}
    assert os.getpid() not in workers  # solved in the workers' processes, not here
    assert "no GPU here: 2 CPU worker process(es)" in messages
    assert any(f"{tasks} task(s) on 2 worker(s) (queue split, costs estimated from the config)" in message
               for message in messages)
    manifest = json.loads((outcome.run_dir / "manifest.json").read_text())
    assert [entry["run_id"] for entry in manifest["merged_from"]] == [path.name for path in shard_dirs]
    timing = manifest["timing"]  # every task's clock, summed, and the coordinator's own
    assert len(timing["shards"]) == tasks and timing["coordinator"]["elapsed_s"] == timing["elapsed_s"] > 0
    clock = timing["coordinator"]  # in the order they happen: Dask up, every task submitted, the last result in
    assert clock["cluster_s"] < clock["submitted_s"] < clock["results_s"] < clock["elapsed_s"]
    assert clock["close_s"] >= 0 and clock["merge_s"] > 0


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


def test_each_worker_is_pinned_to_its_own_gpu_and_runs_no_profiler_beside_its_solves(tmp_path):
    with connect(2, None, ["0", "1"], log=lambda message: None) as client:
        seen = client.run(lambda: os.environ.get("CUDA_VISIBLE_DEVICES"))
        sampling = client.run(lambda dask_worker: "profile" in dask_worker.periodic_callbacks)
    assert sorted(seen.values()) == ["0", "1"]
    assert not any(sampling.values())


def test_dask_logs_only_its_warnings_here_and_in_the_workers_unless_the_users_dask_config_sets_logging(monkeypatch):
    import logging

    from sssp_bench.run.workers import LOGGING_VARIABLE, _dask_warnings_only

    monkeypatch.delenv(LOGGING_VARIABLE, raising=False)
    distributed = logging.getLogger("distributed")
    before = distributed.level
    with connect(2, None, ["0", "1"], log=lambda message: None) as client:
        levels = client.run(lambda: logging.getLogger("distributed").getEffectiveLevel())
        here = distributed.getEffectiveLevel()
    assert set(levels.values()) == {logging.WARNING} and here == logging.WARNING
    assert distributed.level == before and LOGGING_VARIABLE not in os.environ  # as it was, once the cluster closed
    monkeypatch.setenv(LOGGING_VARIABLE, "info")  # the user's own Dask config
    with _dask_warnings_only():
        assert distributed.level == before and os.environ[LOGGING_VARIABLE] == "info"


def test_workers_are_spawned_after_numba_started_its_threads_or_where_dask_names_a_method():
    probe = textwrap.dedent("""
        import numba, numpy
        from sssp_bench.run.workers import start_method
        before = start_method()
        numba.njit(parallel=True)(lambda values: values.sum())(numpy.ones(1000))
        print(before, start_method())
    """)
    said = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True)
    assert said.stdout.split() == ["fork", "spawn"]
    for method in ("forkserver", "spawn"):  # spawn too, Dask's default: named, it is the user's choice
        named = subprocess.run([sys.executable, "-c", "from sssp_bench.run.workers import start_method; "
                                "print(start_method())"], capture_output=True, text=True, timeout=60, check=True,
                               env={**os.environ, "DASK_DISTRIBUTED__WORKER__MULTIPROCESSING_METHOD": method})
        assert named.stdout.strip() == method


def test_a_running_cluster_takes_the_shards_through_its_scheduler_address(tmp_path):
    from distributed import LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        outcome = run_on_workers(make_config(tmp_path, TWO_GRAPHS), scheduler=cluster.scheduler_address,
                                 run_id="remote")
    whole = start_run(make_config(tmp_path, TWO_GRAPHS), run_id="whole", show_progress=False).run_dir
    assert counts(summarize(outcome.run_dir)) == counts(summarize(whole))
    assert len(list((outcome.run_dir / "shards").iterdir())) == tasks_of(outcome.run_dir) > 2


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


def test_a_worker_killed_mid_shard_loses_nothing_and_repeats_nothing(tmp_path):
    # The uninterrupted run first: it generates the graphs, so the coordinator below finds them and forks its
    # workers (workers.start_method); the Nanny spawns the killed one's successor
    whole = start_run(make_config(tmp_path, SLOW), run_id="whole", show_progress=False).run_dir
    (tmp_path / "slow.yaml").write_text(textwrap.dedent(SLOW))
    command = [sys.executable, "-m", "sssp_bench.cli", "run", "slow.yaml", "--workers", "2", "--run-id", "killed",
               "--datasets", "datasets", "--no-progress"]  # the graphs the uninterrupted run generated
    process = subprocess.Popen(command, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    shards_dir = tmp_path / "results" / "killed" / "shards"
    victim, before = None, None
    deadline = time.monotonic() + 240
    while victim is None and time.monotonic() < deadline and process.poll() is None:
        for shard_dir in sorted(shards_dir.glob("killed-shard-*")) if shards_dir.exists() else []:
            manifest, attempts = shard_dir / "manifest.json", shard_dir / "attempts.jsonl"
            if not (manifest.exists() and attempts.exists() and (shard_dir / "rows.jsonl").exists()):
                continue
            rows = read_rows(shard_dir)
            if json.loads(manifest.read_text())["status"] == "running" and len(solve_keys(rows)) >= 3:
                victim = shard_dir
                os.kill(json.loads(attempts.read_text().splitlines()[0])["pid"], signal.SIGKILL)
                before = solve_times(rows)
                break
        time.sleep(0.02)
    output, _ = process.communicate(timeout=300)
    assert victim is not None, f"no shard was caught mid-run:\n{output}"
    assert process.returncode == 0, output

    attempts = [json.loads(line) for line in (victim / "attempts.jsonl").read_text().splitlines()]
    assert len(attempts) == 2 and attempts[0]["pid"] != attempts[1]["pid"]  # retried by another worker process
    recorded = json.loads((tmp_path / "results" / "killed" / "manifest.json").read_text())["merged_from"]
    assert [entry["attempts"] for entry in recorded if entry["run_id"] == victim.name] == [attempts]
    kept = solve_times(read_rows(victim))
    assert all(kept[key] == seconds for key, seconds in before.items())  # what was done before the kill stands
    merged = tmp_path / "results" / "killed"
    keys = solve_keys(read_rows(merged))
    assert len(keys) == len(set(keys)) == 2 * 2 * 40  # nothing lost, nothing twice
    assert counts(summarize(merged)) == counts(summarize(whole))
    assert "workers started by fork, a dead one's successor by spawn" in output
    assert " - INFO - " not in output  # Dask's own info lines, its successor's included, kept out (workers.py)
    assert json.loads((merged / "manifest.json").read_text())["statuses"] == {"ok": 2 * 2 * 40}
    assert f"{merged.resolve()}: {2 * 2 * 40} ok" in output


def test_a_cluster_that_does_not_close_in_time_has_its_workers_killed(monkeypatch):
    from sssp_bench.run import workers

    monkeypatch.setattr(workers, "CLOSE_TIMEOUT_S", 0.001)  # no cluster closes that fast
    said = []
    with connect(2, None, [], log=said.append) as client:
        pids = set(client.run(os.getpid).values())
    assert said[-1] == "the cluster did not close within 0.001 s: killing its 2 remaining worker process(es)"
    assert not [pid for pid in pids if _running(pid)]


def _running(pid: int) -> bool:
    import psutil

    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE  # killed, not yet reaped by Dask's thread
    except psutil.NoSuchProcess:
        return False


def test_without_dask_the_workers_option_says_what_to_install(tmp_path):
    (tmp_path / "tiny.yaml").write_text(textwrap.dedent(TWO_GRAPHS))
    # the import system refuses `distributed`, as on a machine without the extra
    script = ("import sys; sys.modules['distributed'] = None; from sssp_bench.cli import main; "
              "sys.argv = ['sssp-bench', 'run', 'tiny.yaml', '--workers', '2']; main()")
    done = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 2
    assert done.stderr.strip() == ("Error: --workers and --scheduler need Dask (dask.distributed), which is not "
                                   "installed: pip install 'sssp-bench[dask]'")


def test_served_workers_stay_up_between_runs_and_keep_their_graphs(tmp_path):
    address_file = tmp_path / "workers.address"
    server = subprocess.Popen([sys.executable, "-m", "sssp_bench.cli", "serve", "--workers", "1", "--address-file",
                               str(address_file)], cwd=tmp_path, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while not address_file.exists() and server.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
        address = address_file.read_text().strip()
        first = run_on_workers(make_config(tmp_path, TWO_GRAPHS), scheduler=address, run_id="first")
        second = run_on_workers(make_config(tmp_path, TWO_GRAPHS), scheduler=address, run_id="second")
    finally:
        server.send_signal(signal.SIGTERM)
        _, errors = server.communicate(timeout=60)
    assert server.returncode == 0, errors
    assert f"serving 1 worker(s) at {address}" in errors and not address_file.exists()
    assert counts(summarize(first.run_dir)) == counts(summarize(second.run_dir))

    def tasks(run_dir):
        return [json.loads((task / "manifest.json").read_text()) for task in sorted((run_dir / "shards").iterdir())]

    pids = {json.loads((task / "attempts.jsonl").read_text().splitlines()[0])["pid"]
            for run in (first, second) for task in (run.run_dir / "shards").iterdir()}
    assert len(pids) == 1  # one worker process served both runs
    assert all(task["timing"]["startup_s"] == 0 for run in (first, second) for task in tasks(run.run_dir))
    loads = [sum(task["timing"]["graph_parts"]["load_s"] for task in tasks(run.run_dir)) for run in (first, second)]
    assert loads[1] < loads[0]  # the graphs stayed resident in the worker


def test_a_coordinator_starts_its_workers_before_it_imports_the_runner(tmp_path):
    # they import it themselves while their CUDA contexts are made (run/outcome.py): up to the cluster's start the
    # coordinator holds the command line, the config, the split and Dask, not the runner
    script = ("import sys; import sssp_bench.cli, sssp_bench.run.workers, sssp_bench.run.shards, distributed; "
              "print('sssp_bench.run.runner' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


def test_a_missing_graph_file_stops_a_workers_run_before_any_worker_starts(tmp_path):
    (tmp_path / "missing.yaml").write_text(textwrap.dedent("""
        graphs: [{graph: nowhere.gr, label: nowhere}]
        implementations: [cpu-dijkstra]
        sources: {count: 2, seed: 1}
    """))
    script = ("from sssp_bench.cli import main; import sys; "
              "sys.argv = ['sssp-bench', 'run', 'missing.yaml', '--workers', '1', '--output', 'out']; main()")
    done = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and done.stderr.strip() == "Error: nowhere.gr: no such graph file"
    assert not any((tmp_path / "out").glob("*/*"))  # no run folder
