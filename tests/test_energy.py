"""Energy per solve (config `energy`): the config key, the energy phase's arithmetic and power trace (through a
stand-in meter, since this machine has no NVML; the phase itself is the runner's, solving real sources), a run where
NVML cannot measure, the report's Energy section and power-over-time plot, and a merge that keeps the traces."""

import json
import textwrap
import threading
import time

import pytest

from runs import make_config, read_rows, run_rows, solves_all_ok
from sssp_bench import impls
from sssp_bench.errors import ConfigError
from sssp_bench.gpu import nvml
from sssp_bench.datasets.resolve import load_graph
from sssp_bench.report import build_report, write_report
from sssp_bench.results import schema
from sssp_bench.results.energy import read_trace
from sssp_bench.results.schema import safe_name, trace_file
from sssp_bench.results.load import load_run
from sssp_bench.run.config import ENERGY_DEFAULTS
from sssp_bench.run.energy import EnergySettings, Sampler, measure_energy
from sssp_bench.run.runner import RowWriter, Runner
from sssp_bench.run.shards import merge_shards, select_shard

SMALL = textwrap.dedent("""
    graphs: [{graph: "grid:rows=12,cols=12,seed=1", label: grid}]
    implementations: [cpu-dijkstra]
    sources: {count: 3, seed: 1}
""")


class SteppedMeter:
    """A GPU drawing `watts` all the time, whose energy counter steps every `step_s` (as NVML's does, coarsely)."""

    def __init__(self, watts=100.0, step_s=0.02, counter=True, fail_after=None):
        self.watts, self.step_s, self.counter, self.fail_after = watts, step_s, counter, fail_after
        self.started = time.perf_counter()
        self.reads = 0
        self.lock = threading.Lock()

    def power_w(self):
        with self.lock:
            self.reads += 1
            if self.fail_after is not None and self.reads > self.fail_after:
                raise RuntimeError("the power reading went away")
        return self.watts

    def energy_j(self):
        if not self.counter:
            return None
        elapsed = time.perf_counter() - self.started
        return self.watts * (elapsed // self.step_s) * self.step_s


# ---------------------------------------------------------------------------------------------- config


def test_energy_true_takes_the_defaults_and_false_or_absent_leaves_the_config_and_its_hash_as_it_was(tmp_path):
    on = make_config(tmp_path, SMALL + "energy: true\n")
    assert on.energy == ENERGY_DEFAULTS and on.raw["energy"] == ENERGY_DEFAULTS
    off, absent = make_config(tmp_path, SMALL + "energy: false\n"), make_config(tmp_path, SMALL)
    assert off.energy is None and absent.energy is None and "energy" not in off.raw
    assert off.hash == absent.hash != on.hash
    mapping = make_config(tmp_path, SMALL + "energy: {min_window_s: 0.5, sample_ms: 20}\n")
    assert mapping.energy == {"min_window_s": 0.5, "sample_ms": 20.0, "idle_s": 0.5}
    assert make_config(tmp_path, SMALL + "energy: {enabled: false, sample_ms: 20}\n").energy is None


@pytest.mark.parametrize("value, message", [
    ("3", r"energy: expected true, false or a mapping with enabled, idle_s, min_window_s, sample_ms, got 3"),
    ("{window: 1}", r"energy\.window: unknown key \(allowed: enabled, idle_s, min_window_s, sample_ms\)"),
    ("{enabled: yes please}", r"energy\.enabled: expected true or false, got 'yes please'"),
    ("{min_window_s: 0}", r"energy\.min_window_s: expected a positive number of seconds, got 0"),
    ("{sample_ms: -5}", r"energy\.sample_ms: expected a positive number of milliseconds, got -5"),
    ("{sample_ms: 0.5}", r"energy\.sample_ms: expected at least 1 ms between power samples, got 0\.5"),
    ("{idle_s: -1}", r"energy\.idle_s: expected 0 or more seconds, got -1"),
    ("{min_window_s: true}", r"energy\.min_window_s: expected a positive number of seconds, got True"),
])
def test_a_wrong_energy_setting_is_one_line_naming_the_key_and_its_line(tmp_path, value, message):
    with pytest.raises(ConfigError, match=r"test\.yaml:5: " + message) as caught:
        make_config(tmp_path, SMALL + f"energy: {value}\n")
    assert "\n" not in str(caught.value)


# ---------------------------------------------------------------------------------------------- the phase


def _cpu_solver(tmp_path):
    """cpu-dijkstra prepared on a small grid, and its solve as the runner's energy phase calls it."""
    loaded = load_graph("grid:rows=30,cols=30,seed=2", "grid", "keep", tmp_path / "datasets")
    implementation = impls.get("cpu-dijkstra")()
    implementation.prepare(loaded.graph)
    solved = []

    def solve(source):
        implementation.solve(source)
        implementation.synchronize()
        solved.append(source)

    return solve, solved


def test_joules_per_solve_are_the_counters_difference_over_the_solves_between_two_of_its_steps(tmp_path):
    solve, solved = _cpu_solver(tmp_path)
    settings = EnergySettings(min_window_s=0.3, sample_ms=10, idle_s=0.1)
    measured = measure_energy(solve, [0, 7, 99], SteppedMeter(100.0, step_s=0.02), settings,
                              tmp_path / "power" / "t.csv")
    assert measured["energy_method"] == "energy counter" and measured["message"] == ""
    assert measured["energy_solves"] == len(solved) >= 3 and solved[:4] == [0, 7, 99, 0]  # cycling the sources
    window = measured["time_s"]
    assert window >= 0.3
    # The window opens and closes on a step of the counter, so it holds the counter's energy to within one step
    total = measured["energy_j"] * measured["energy_solves"]
    assert total == pytest.approx(100.0 * window, abs=100.0 * 0.02 + 1e-9)
    assert measured["power_w"] == pytest.approx(100.0, rel=0.1)
    assert measured["idle_power_w"] == 100.0

    trace = read_trace(tmp_path / "power" / "t.csv")
    assert list(trace.columns) == ["t_s", "power_w", "stage"]
    assert (trace["t_s"].diff().dropna() > 0).all() and (trace["power_w"] == 100.0).all()
    assert len(trace) >= 15  # 0.4 s and more at one sample every 10 ms (fewer where a busy CPU holds the GIL)
    assert list(dict.fromkeys(trace["stage"])) == ["idle", "solving", "after"]
    solving = trace[trace["stage"] == "solving"]["t_s"]
    assert solving.max() - solving.min() <= window  # (spread over it on a GPU; a CPU solver here holds the GIL)
    assert trace[trace["stage"] == "idle"]["t_s"].max() >= 0.09  # idle_s of idle samples before the window


def test_without_an_energy_counter_the_energy_is_the_sampled_power_over_the_window(tmp_path):
    solve, _ = _cpu_solver(tmp_path)
    measured = measure_energy(solve, [3], SteppedMeter(250.0, counter=False),
                              EnergySettings(min_window_s=0.2, sample_ms=5, idle_s=0.0), None)
    assert measured["energy_method"] == "sampled power"
    assert measured["energy_j"] * measured["energy_solves"] == pytest.approx(250.0 * measured["time_s"])
    assert measured["power_w"] == pytest.approx(250.0)


def test_a_power_reading_that_fails_stops_the_sampling_and_says_so_but_the_counter_still_measures(tmp_path):
    solve, _ = _cpu_solver(tmp_path)
    measured = measure_energy(solve, [3], SteppedMeter(80.0, fail_after=3),
                              EnergySettings(min_window_s=0.2, sample_ms=5, idle_s=0.05), tmp_path / "t.csv")
    assert measured["message"] == "power sampling stopped: RuntimeError: the power reading went away"
    assert measured["energy_method"] == "energy counter" and measured["energy_j"] > 0
    assert len(read_trace(tmp_path / "t.csv")) == 3


def test_the_sampler_reads_at_its_interval_until_stopped():
    reads = []
    sampler = Sampler(lambda: reads.append(1) or 5.0, 0.01).start()
    time.sleep(0.2)
    samples = sampler.stop()
    assert 8 <= len(samples) <= 25 and len(samples) == len(reads)
    assert all(watts == 5.0 for _, watts in samples)


def test_a_window_needs_a_source():
    with pytest.raises(ValueError, match="no verified source"):
        measure_energy(lambda source: None, [], SteppedMeter(), EnergySettings(), None)


def test_trace_files_are_safe_and_distinct_for_any_label():
    assert trace_file("grid", "hbf") == "power/grid__hbf.csv"
    odd = trace_file("rmat:n=1M,m=8M", "hbf[tdp=64]")
    assert odd.startswith("power/") and "/" not in odd[len("power/"):] and ":" not in odd and "[" not in odd
    assert safe_name("a:b") != safe_name("a;b")


# ---------------------------------------------------------------------------------------------- the run


def test_nvml_unavailable_here_is_said_in_one_line():
    try:
        meter = nvml.open_meter()
    except nvml.NvmlUnavailable as error:
        assert str(error) and "\n" not in str(error)
    else:  # a machine with a driver: the meter reads
        assert meter.power_w() >= 0
        meter.close()


def test_a_run_with_energy_where_nvml_cannot_measure_completes_and_its_manifest_says_why(tmp_path, monkeypatch):
    monkeypatch.setattr(nvml, "open_meter", _unavailable)
    config = make_config(tmp_path, SMALL + "energy: true\n")
    outcome, rows = run_rows(config)
    solves_all_ok(rows)
    assert [row["phase"] for row in rows] == ["prepare", "solve", "solve", "solve"]  # a CPU variant: no energy
    manifest = json.loads((outcome.run_dir / schema.MANIFEST_FILE).read_text())
    assert manifest["schema_version"] == 2
    assert manifest["energy"] == {"enabled": True, **ENERGY_DEFAULTS, "available": False,
                                  "reason": "unavailable: libnvidia-ml.so.1 not loadable (test)"}
    assert "energy not measured: unavailable: libnvidia-ml.so.1 not loadable (test)" in \
        write_report(outcome.run_dir)["markdown"].read_text()


def test_the_real_nvml_lookup_never_fails_a_run(tmp_path):
    outcome, rows = run_rows(make_config(tmp_path, SMALL + "energy: {min_window_s: 0.1}\n"))
    solves_all_ok(rows)
    energy = json.loads((outcome.run_dir / schema.MANIFEST_FILE).read_text())["energy"]
    assert energy["available"] or energy["reason"].startswith("unavailable: ")


def _unavailable(bus_id=None):
    raise nvml.NvmlUnavailable("libnvidia-ml.so.1 not loadable (test)")


def _energy_rows(tmp_path, run_dir, config, meter):
    """The runner's own energy phase and row for each variant of a finished CPU run, with `meter` in place of NVML
    (which this machine lacks; the runner measures GPU variants only, and this one has none): rows and traces as the
    runner writes them on a GPU."""
    runner = Runner(config, run_dir, resume=True, show_progress=False)
    runner.meter = meter
    writer = RowWriter(run_dir / schema.ROWS_FILE)
    entry = config.graphs[0]
    loaded = load_graph(entry.graph, entry.label, entry.weights, config.datasets)
    for variant in config.variants:
        implementation = impls.get(variant.implementation)(**variant.params)
        implementation.prepare(loaded.graph)
        writer.write(runner._energy_phase(entry.label, implementation, variant))
        implementation.teardown()
    writer.close()


def test_energy_rows_and_traces_as_the_runner_writes_them_make_the_reports_energy_section_and_figure(tmp_path):
    config = make_config(tmp_path, """
        graphs: [{graph: "grid:rows=12,cols=12,seed=1", label: "grid:12"}]
        implementations: [cpu-dijkstra, {name: cpu-bf-queue, label: spfa}]
        sources: {count: 3, seed: 1}
        energy: {min_window_s: 0.2, sample_ms: 10, idle_s: 0.05}
    """)
    outcome, _ = run_rows(config)
    _energy_rows(tmp_path, outcome.run_dir, config, SteppedMeter(120.0, step_s=0.01))
    energy = [row for row in read_rows(outcome.run_dir) if row["phase"] == "energy"]
    assert [(row["variant"], row["status"], row["energy_method"]) for row in energy] == [
        ("cpu-dijkstra", "ok", "energy counter"), ("spfa", "ok", "energy counter")]
    for row in energy:
        assert tuple(row) == schema.ROW_FIELDS
        assert row["energy_j"] > 0 and row["power_w"] > 0 and row["energy_solves"] >= 1 and row["time_s"] >= 0.2
        assert row["power_trace"] == trace_file("grid:12", row["variant"])
        assert len(read_trace(outcome.run_dir / row["power_trace"])) >= 10

    load_run(outcome.run_dir)  # the loader takes the new phase
    report = build_report(outcome.run_dir)
    assert list(report.energy["variant"]) == ["cpu-dijkstra", "spfa"]
    assert min(report.energy["relative"]) == pytest.approx(1.0)
    # and each variant's row of the results table (report.csv) carries its joules per solve
    per_variant = dict(zip(report.summary["variant"], report.summary["energy_j"]))
    assert per_variant == pytest.approx(dict(zip(report.energy["variant"], report.energy["energy_j"])))
    written = write_report(report)
    text = written["markdown"].read_text()
    assert "## Energy" in text and "| variant | J per solve |" in text
    stem = report.power_file("grid:12")
    assert f"![Power over time: grid:12]({stem}.svg)" in text
    assert written[stem].exists() and (outcome.run_dir / f"{stem}.png").stat().st_size > 0
    assert (outcome.run_dir / "energy.csv").exists()
    assert "None: every solve was verified." in text  # an energy row is not a failure


def test_an_energy_phase_without_nvml_is_an_unavailable_row_the_report_explains_but_not_a_failure(tmp_path):
    config = make_config(tmp_path, SMALL + "energy: true\n")
    outcome, _ = run_rows(config)
    _energy_rows(tmp_path, outcome.run_dir, config, None)
    (row,) = [row for row in read_rows(outcome.run_dir) if row["phase"] == "energy"]
    assert row["status"] == "unavailable" and row["message"].startswith("unavailable: ")
    text = write_report(outcome.run_dir)["markdown"].read_text()
    assert "| cpu-dijkstra | - | - | - | - | - | - | - | unavailable: NVML not opened |" in text
    assert "None: every solve was verified." in text


def test_a_merge_of_shards_keeps_every_shards_power_traces(tmp_path):
    text = """
        graphs: [{graph: "grid:rows=8,cols=8,seed=1", label: grid}]
        implementations: [cpu-dijkstra, cpu-bf-queue]
        sources: {count: 2}
        energy: {min_window_s: 0.05, sample_ms: 5, idle_s: 0.0}
    """
    shard_dirs = []
    for index in (1, 2):
        config = select_shard(make_config(tmp_path, text), index, 2)
        outcome, _ = run_rows(config, run_id=f"shard-{index}")
        _energy_rows(tmp_path, outcome.run_dir, config, SteppedMeter(60.0, step_s=0.005))
        shard_dirs.append(outcome.run_dir)
    merged = merge_shards(shard_dirs, tmp_path / "merged")
    assert sorted(path.name for path in (merged / "power").iterdir()) == ["grid__cpu-bf-queue.csv",
                                                                          "grid__cpu-dijkstra.csv"]
    report = build_report(merged)
    assert len(report.power_traces) == 2 and "## Energy" in write_report(report)["markdown"].read_text()


def test_probe_energy_is_a_configs_energy_true(tmp_path):
    from sssp_bench.run.probe import Probe

    assert Probe(["cpu-dijkstra"], ["grid:rows=4,cols=4"], energy=True).config().energy == ENERGY_DEFAULTS
    assert Probe(["cpu-dijkstra"], ["grid:rows=4,cols=4"]).config().energy is None
