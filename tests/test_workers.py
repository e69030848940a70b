"""Dask workers (`serve`, `run --scheduler`) on this machine: real clusters of worker processes running CPU
implementations, shards merged into one run, and a served worker killed mid-run (a real SIGKILL) that loses nothing
and repeats nothing. test_pool.py has `run --workers`, which needs no Dask."""

import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

pytest.importorskip("distributed", reason="the dask extra is not installed (pip install 'sssp-bench[dask]')")

from sssp_bench.report import summarize  # noqa: E402
from sssp_bench.run.runner import start_run  # noqa: E402
from sssp_bench.run.workers import connect, run_on_workers  # noqa: E402

from runs import make_config  # noqa: E402
from worker_runs import (SLOW, SLOW_SOLVES, TWO_GRAPHS, check_nothing_lost_or_repeated, counts,  # noqa: E402
                         kill_a_worker_mid_task, tasks_of)

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


def test_without_dask_scheduler_and_serve_say_what_to_install(tmp_path):
    (tmp_path / "tiny.yaml").write_text(textwrap.dedent(TWO_GRAPHS))
    for command, what in ((["run", "tiny.yaml", "--scheduler", "tcp://127.0.0.1:1"], "--scheduler"),
                          (["serve", "--workers", "1"], "serve")):
        # the import system refuses `distributed`, as on a machine without the extra
        script = (f"import sys; sys.modules['distributed'] = None; from sssp_bench.cli import main; "
                  f"sys.argv = ['sssp-bench', *{command!r}]; main()")
        done = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True)
        assert done.returncode == 2
        assert done.stderr.strip() == (f"Error: {what} needs Dask (dask.distributed), which is not installed: "
                                       "pip install 'sssp-bench[dask]'")


def serving(tmp_path, workers: int):
    """`sssp-bench serve --workers N` started (CPU workers), and its address once they are up."""
    address_file = tmp_path / "workers.address"
    server = subprocess.Popen([sys.executable, "-m", "sssp_bench.cli", "serve", "--workers", str(workers),
                               "--address-file", str(address_file)], cwd=tmp_path, stderr=subprocess.PIPE, text=True,
                              env={**os.environ, "CUDA_VISIBLE_DEVICES": ""})
    deadline = time.monotonic() + 120
    while not address_file.exists() and server.poll() is None and time.monotonic() < deadline:
        time.sleep(0.1)
    return server, address_file.read_text().strip()



def test_served_workers_stay_up_between_runs_and_keep_their_graphs(tmp_path):
    server, address = serving(tmp_path, 1)
    try:
        first = run_on_workers(make_config(tmp_path, TWO_GRAPHS), scheduler=address, run_id="first")
        second = run_on_workers(make_config(tmp_path, TWO_GRAPHS), scheduler=address, run_id="second")
    finally:
        server.send_signal(signal.SIGTERM)
        _, errors = server.communicate(timeout=60)
    assert server.returncode == 0, errors
    assert f"serving 1 worker(s) at {address}" in errors and not (tmp_path / "workers.address").exists()
    assert counts(summarize(first.run_dir)) == counts(summarize(second.run_dir))

    def tasks(run_dir):
        return [json.loads((task / "manifest.json").read_text()) for task in sorted((run_dir / "shards").iterdir())]

    pids = {json.loads((task / "attempts.jsonl").read_text().splitlines()[0])["pid"]
            for run in (first, second) for task in (run.run_dir / "shards").iterdir()}
    assert len(pids) == 1  # one worker process served both runs
    assert all(task["timing"]["startup_s"] == 0 for run in (first, second) for task in tasks(run.run_dir))
    loads = [sum(task["timing"]["graph_parts"]["load_s"] for task in tasks(run.run_dir)) for run in (first, second)]
    assert loads[1] < loads[0]  # the graphs stayed resident in the worker


def test_a_served_worker_killed_mid_shard_loses_nothing_and_repeats_nothing(tmp_path):
    whole = start_run(make_config(tmp_path, SLOW), run_id="whole", show_progress=False).run_dir
    (tmp_path / "slow.yaml").write_text(textwrap.dedent(SLOW))
    server, address = serving(tmp_path, 2)
    try:
        command = [sys.executable, "-m", "sssp_bench.cli", "run", "slow.yaml", "--scheduler", address, "--run-id",
                   "killed", "--datasets", "datasets", "--no-progress"]
        process = subprocess.Popen(command, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                   text=True)
        victim, before = kill_a_worker_mid_task(tmp_path / "results" / "killed" / "shards", process, "killed")
        output, _ = process.communicate(timeout=300)
    finally:
        server.send_signal(signal.SIGTERM)
        _, errors = server.communicate(timeout=60)
    assert victim is not None, f"no shard was caught mid-run:\n{output}"
    assert process.returncode == 0, output
    merged = tmp_path / "results" / "killed"
    check_nothing_lost_or_repeated(victim, before, merged, whole)
    assert " - INFO - " not in errors  # Dask's own info lines, its successor's included, kept out (workers.py)
    assert f"{merged.resolve()}: {SLOW_SOLVES} ok" in output
