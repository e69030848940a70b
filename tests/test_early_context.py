"""The CUDA context made in a thread while a process imports (gpu/early_context.py): off where it is switched off
or no GPU is visible, quiet where no driver loads, and on a GPU the primary context CuPy then computes in; and the
driver asked, without initialising it, whether a process has initialised CUDA (pool.fork_is_safe forks only
where it has not)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading

import pytest

from sssp_bench.gpu import early_context


@pytest.fixture
def fresh(monkeypatch):
    """early_context as in a new process: no thread started yet."""
    monkeypatch.setattr(early_context, "_thread", None)
    monkeypatch.setattr(early_context, "_context_wanted", threading.Event())
    monkeypatch.setattr(early_context, "_times", {})
    monkeypatch.setattr(early_context, "_waited", 0.0)
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


def _driver_loads() -> bool:
    import ctypes

    try:
        ctypes.CDLL("libcuda.so.1")
    except OSError:
        return False
    return True


@pytest.mark.gpu
def test_on_a_gpu_the_thread_makes_the_primary_context_and_cupy_computes_in_it():
    pytest.importorskip("cupy")
    from sssp_bench.gpu import runtime

    ok, why = runtime.gpu_status()
    if not ok:
        pytest.skip(f"no usable GPU: {why}")
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
