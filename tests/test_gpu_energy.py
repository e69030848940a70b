"""Energy per solve on a GPU (marker `gpu`): NVML reached through the ctypes binding on the driver's library, on
the GPU CuPy computes on; a run with `energy` on one GPU implementation measures positive joules per solve and power,
writes a power trace with several samples, leaves the timed solves and their verification as they were, and the
report draws the power over time. Skipped without CuPy (module-level importorskip) and a usable CUDA device."""

from __future__ import annotations

import json
import time

import pytest

cupy = pytest.importorskip("cupy")

from sssp_bench.gpu import nvml  # noqa: E402
from sssp_bench.report import build_report, write_report  # noqa: E402
from sssp_bench.results.energy import read_trace  # noqa: E402
from sssp_bench.results.schema import trace_file  # noqa: E402

from gpu_battery import gpu_device  # noqa: E402,F401  (the autouse device fixture)
from runs import make_config, run_rows, solves_all_ok  # noqa: E402

pytestmark = pytest.mark.gpu


def test_the_ctypes_binding_reads_the_power_and_energy_of_the_gpu_cupy_computes_on(monkeypatch):
    monkeypatch.setattr(nvml, "_backend", nvml._Ctypes)  # the binding itself, even where pynvml is installed
    meter = nvml.open_meter()
    try:
        assert meter.record()["backend"] == "ctypes"
        assert meter.info["pci_bus_id"] == nvml.current_bus_id() is not None
        assert meter.info["device"] and meter.info["driver_version"]
        assert 1.0 < meter.power_w() < 2000.0
        assert meter.energy_counter, meter.info  # every Volta and newer GPU has the counter
        first = meter.energy_j()
        cupy.ones(1 << 26, dtype=cupy.float32).sum()  # a little work, then time for the counter to step
        cupy.cuda.Device().synchronize()
        time.sleep(0.3)
        assert meter.energy_j() > first
    finally:
        meter.close()


def test_a_run_with_energy_measures_joules_per_solve_and_a_power_trace_and_leaves_the_timed_solves_alone(tmp_path):
    text = """
        graphs: [{graph: "rmat:n=65536,m=1000000,seed=3", label: rmat-1M}]
        implementations: [cpu-dijkstra, bf-edge]
        sources: {count: 4, seed: 1}
        verification: {reference_sources: 2}
        energy: {min_window_s: 1.0, sample_ms: 50, idle_s: 0.3}
    """
    outcome, rows = run_rows(make_config(tmp_path, text, name="energy"), run_id="energy")
    solves = solves_all_ok(rows)  # the energy row too: status ok
    assert len(solves) == 2 * 4 and all(row["certificate"] is True for row in solves)
    assert [row["phase"] for row in rows if row["variant"] == "bf-edge"] == ["prepare"] + ["solve"] * 4 + ["energy"]
    assert all(row["energy_j"] is None for row in rows if row["phase"] != "energy")  # timed rows carry no energy

    manifest = json.loads((outcome.run_dir / "manifest.json").read_text())
    assert manifest["energy"]["available"] is True, manifest["energy"]
    assert manifest["energy"]["method"] == "energy counter"
    assert manifest["energy"]["pci_bus_id"] == nvml.current_bus_id()

    (energy,) = [row for row in rows if row["phase"] == "energy"]  # the GPU variant only
    assert energy["variant"] == "bf-edge" and energy["energy_method"] == "energy counter", energy
    assert energy["energy_j"] > 0 and energy["power_w"] > 0 and energy["idle_power_w"] > 0
    assert energy["time_s"] >= 1.0 and energy["energy_solves"] >= 4
    assert energy["energy_j"] * energy["energy_solves"] == pytest.approx(energy["power_w"] * energy["time_s"])
    assert energy["power_trace"] == trace_file("rmat-1M", "bf-edge")
    trace = read_trace(outcome.run_dir / energy["power_trace"])
    assert len(trace) >= 10 and (trace["power_w"] > 0).all()
    assert (trace["stage"] == "solving").sum() >= 5, trace  # the sampler kept reading while the GPU solved

    report = build_report(outcome.run_dir)
    written = write_report(report)
    stem = report.power_file("rmat-1M")
    assert written[stem].exists() and "## Energy" in written["markdown"].read_text()
