"""The CUDA context made in a thread while a process imports (gpu/early_context.py): off where it is switched off
or no GPU is visible, quiet where no driver loads, and on a GPU the primary context CuPy then computes in; the
driver asked, without initialising it, whether a process has initialised CUDA (pool.fork_is_safe forks only
where it has not); and the turns that processes starting together take at the driver, one at a time."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import threading
import time

import pytest

from sssp_bench.gpu import early_context


@pytest.fixture
def fresh(monkeypatch):
    """early_context as in a new process: no thread started yet."""
    monkeypatch.setattr(early_context, "_thread", None)
    monkeypatch.setattr(early_context, "_context_wanted", threading.Event())
    monkeypatch.setattr(early_context, "_times", {})
    monkeypatch.setattr(early_context, "_waited", 0.0)
    monkeypatch.setattr(early_context, "_turns", None)
    monkeypatch.delenv(early_context.SWITCH, raising=False)
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    return monkeypatch


@pytest.mark.parametrize("setting", ["off", "0", "no", "False"])
def test_switched_off_it_starts_no_thread(fresh, setting):
    fresh.setenv(early_context.SWITCH, setting)
    assert early_context.start() is None


@pytest.mark.parametrize("visible", ["", "-1"])
def test_where_cuda_visible_devices_hides_every_gpu_it_starts_no_thread(fresh, visible):
    fresh.setenv("CUDA_VISIBLE_DEVICES", visible)
    assert early_context.start() is None


def test_it_starts_one_thread_per_process_which_ends_quietly_without_a_driver_or_once_the_context_is_made(fresh):
    thread = early_context.start()
    assert thread is not None and early_context.start() is thread
    thread.join(timeout=60)
    assert not thread.is_alive()


def test_initialising_asks_for_no_context_and_start_asks_for_it(fresh):
    thread = early_context.initialise()
    assert thread is not None and not early_context._context_wanted.is_set()
    assert early_context.start() is thread and early_context._context_wanted.is_set()


def test_it_is_ready_at_once_where_no_context_is_coming(fresh):
    assert early_context.ready()  # no thread
    early_context.initialise()
    assert early_context.ready()  # the driver initialising, no context asked for: nothing to wait for


@pytest.mark.parametrize("implementations, context", [("[cpu-dijkstra]", False), ("[cpu-dijkstra, hbf]", True)])
def test_run_initialises_the_driver_and_asks_for_a_context_for_a_config_with_a_gpu_implementation_only(
        fresh, tmp_path, implementations, context):
    from click.testing import CliRunner

    from sssp_bench.cli import cli

    fresh.chdir(tmp_path)
    (tmp_path / "c.yaml").write_text(f'graphs: ["grid:rows=4,cols=4,seed=1"]\nimplementations: {implementations}\n'
                                     f"sources: {{count: 2, seed: 1}}\n")
    result = CliRunner().invoke(cli, ["run", "c.yaml", "--no-progress", "--no-report"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert early_context._thread is not None
    assert early_context._context_wanted.is_set() is context


def test_without_a_driver_nothing_is_waited_for_and_nothing_recorded(fresh):
    if _driver_loads():
        pytest.skip("a CUDA driver loads here")
    assert early_context.record(1.0) is None  # no thread ran
    early_context.start().join(timeout=60)
    assert early_context.wait() == 0.0
    assert early_context.record(1.0) is None  # the thread found no driver


def test_the_record_says_when_the_driver_and_the_context_were_ready_from_the_processs_start(fresh):
    fresh.setattr(early_context, "_thread", threading.Thread(target=lambda: None))  # as if it had run
    fresh.setattr(early_context, "_times", {"initialised": 101.25, "ready": 101.5})
    fresh.setattr(early_context, "_waited", 0.125)
    assert early_context.record(100.0) == {"initialised_s": 1.25, "ready_s": 1.5, "waited_s": 0.125}


def test_without_a_driver_no_process_has_initialised_cuda(fresh):
    early_context.start()
    assert early_context.driver_initialized() is (early_context._thread is not None and _driver_loads())


def test_a_turn_is_one_holder_at_a_time_and_a_waiter_gets_it_once_given_back(tmp_path):
    lock_file = tmp_path / "turns"
    first, second = early_context.Turn(lock_file), early_context.Turn(lock_file)
    assert first.take()
    taken = []
    waiter = threading.Thread(target=lambda: taken.append(second.take()))
    waiter.start()
    time.sleep(0.2)
    assert taken == []  # still waiting
    first.give()
    waiter.join(timeout=10)
    assert taken == [True] and second.waited_s >= 0.2
    first.close()
    second.close()


def test_a_turn_not_given_back_in_time_is_gone_ahead_without(tmp_path):
    holder, waiter = early_context.Turn(tmp_path / "turns"), early_context.Turn(tmp_path / "turns", timeout=0.1)
    assert holder.take()
    assert not waiter.take() and 0.1 <= waiter.waited_s < 5  # a holder that hangs in the driver stops no one
    holder.close()
    assert waiter.take()  # given back by closing
    waiter.close()


def test_a_dead_holders_turn_is_given_back_by_the_kernel(tmp_path):
    lock_file = tmp_path / "turns"
    holder = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        import time
        from sssp_bench.gpu import early_context
        turn = early_context.Turn({str(lock_file)!r})
        assert turn.take()
        print("held", flush=True)
        time.sleep(60)
    """)], stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "held"
    waiter = early_context.Turn(lock_file, timeout=0.2)
    assert not waiter.take()
    holder.kill()
    holder.wait(timeout=30)
    assert waiter.take()
    waiter.close()


def test_without_a_lock_file_a_turn_is_nothing_to_wait_for(tmp_path):
    turn = early_context.Turn(None)
    assert not turn.take() and turn.waited_s == 0.0
    turn.close()
    early_context.take_turns(tmp_path / "turns")
    assert early_context._turns == tmp_path / "turns"
    early_context.take_turns(None)
    assert early_context._turns is None


def test_the_record_says_how_long_the_driver_thread_waited_for_its_turns(fresh):
    fresh.setattr(early_context, "_thread", threading.Thread(target=lambda: None))
    fresh.setattr(early_context, "_times", {"initialised": 101.25, "ready": 101.5, "turns_waited": 0.3})
    assert early_context.record(100.0)["turns_waited_s"] == 0.3


def _driver_loads() -> bool:
    import ctypes

    try:
        ctypes.CDLL("libcuda.so.1")
    except OSError:
        return False
    return True


@pytest.fixture
def usable_gpu():
    """Skip without CuPy or a usable GPU."""
    pytest.importorskip("cupy")
    from sssp_bench.gpu import runtime

    ok, why = runtime.gpu_status()
    if not ok:
        pytest.skip(f"no usable GPU: {why}")


@pytest.mark.gpu
def test_on_a_gpu_the_thread_makes_the_primary_context_and_cupy_computes_in_it(usable_gpu):
    probe = textwrap.dedent("""
        import ctypes
        from sssp_bench.gpu import early_context
        before = early_context.driver_initialized()
        thread = early_context.start()
        import cupy
        total = int((cupy.arange(10) * 2).sum())
        thread.join(timeout=60)
        driver = ctypes.CDLL("libcuda.so.1")
        flags, active = ctypes.c_uint(), ctypes.c_int()
        driver.cuDevicePrimaryCtxGetState(0, ctypes.byref(flags), ctypes.byref(active))
        print(before, early_context.driver_initialized(), total, thread.is_alive(), active.value,
              "+".join(sorted(early_context._times)))
    """)
    said = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert said.returncode == 0, said.stderr
    assert said.stdout.split() == ["False", "True", "90", "False", "1", "initialised+ready"]


@pytest.mark.gpu
def test_on_a_gpu_processes_taking_turns_each_make_their_context_and_say_how_long_they_waited(tmp_path, usable_gpu):
    probe = textwrap.dedent(f"""
        import json, time
        from sssp_bench.gpu import early_context
        early_context.take_turns({str(tmp_path / "turns")!r})
        started = time.time()
        early_context.start().join(timeout=60)
        print(json.dumps(early_context.record(started)))
    """)
    processes = [subprocess.Popen([sys.executable, "-c", probe], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  text=True) for _ in range(3)]
    records = []
    for process in processes:
        out, err = process.communicate(timeout=120)
        assert process.returncode == 0, err
        records.append(json.loads(out))
    assert all(record["ready_s"] is not None and record["turns_waited_s"] >= 0 for record in records)
