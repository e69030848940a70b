"""Records (results/records.py, `sssp-bench record`): runs kept with their report, so that the report can be derived
again from them, byte for byte; damaged records refused in one line; and every folder under experiments/*/measured/
either such a record whose stored report the current code writes again identically, or one of the legacy folders,
frozen below, that were kept before records kept their rows."""

import gzip
import json
import os
import shutil
import subprocess
import sys
from fnmatch import fnmatchcase
from pathlib import Path

import pytest
from click.testing import CliRunner

from runs import make_config, manifest, prepare, run_rows, solve, write_run
from sssp_bench.cli import cli
from sssp_bench.errors import UserError
from sssp_bench.report import build_report, write_report
from sssp_bench.results.load import load_run
from sssp_bench.results.records import (
    RECORD_FILE, REPORT_FILE_PATTERNS, is_record, load_record, make_record, read_record,
)
from sssp_bench.run.config import select_graphs

REPO_ROOT = Path(__file__).resolve().parents[1]

TWO_GRAPHS = """
    graphs:
      - {graph: "grid:rows=10,cols=10,seed=9", label: grid-10}
      - {graph: "rmat:n=256,m=2048,seed=7", label: rmat-256}
    implementations: [cpu-dijkstra, cpu-bf, cpu-bfs]
    sources: {count: 6, seed: 1}
    warmup: 0
    baseline: {sssp: cpu-dijkstra, bfs: cpu-bfs}
    targets:
      faster_than:
        - {variant: cpu-dijkstra, than: [cpu-bf], graphs: [grid-10]}
"""


def invoke(*args):
    return CliRunner().invoke(cli, [str(arg) for arg in args], catch_exceptions=False)


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory):
    """Two runs of one config, split by graph as a config split over device calls is (`run --graph`)."""
    tmp_path = tmp_path_factory.mktemp("runs")
    first, _ = run_rows(select_graphs(make_config(tmp_path, TWO_GRAPHS, "split"), ["grid-10"]), run_id="part-a")
    second, _ = run_rows(select_graphs(make_config(tmp_path, TWO_GRAPHS, "split"), ["rmat-256"]), run_id="part-b")
    return first.run_dir, second.run_dir


def _report_files(folder: Path) -> dict[str, bytes]:
    """The report's text files in `folder` (report.md and the CSVs), by name."""
    return {path.name: path.read_bytes() for path in sorted(folder.iterdir())
            if path.suffix in (".md", ".csv") and path.name != "LEGACY.md"}


def _report_again(record: Path, out: Path) -> dict[str, bytes]:
    """The record's report written from its stored rows by the current code, in a fresh process whose string hashes
    differ from the one that wrote the stored report (so a report that leans on set order cannot pass by luck)."""
    out.mkdir(parents=True, exist_ok=True)
    environment = {**os.environ, "PYTHONHASHSEED": "12345"}
    command = [sys.executable, "-m", "sssp_bench.cli", "report", str(record), "--out", str(out)]
    completed = subprocess.run(command, capture_output=True, text=True, env=environment, cwd=out)
    assert completed.returncode == 0, completed.stderr
    return _report_files(out)


# ---------------------------------------------------------------------------------------------- making one


def test_a_record_keeps_each_runs_manifest_and_rows_and_its_report_is_the_runs_report(two_runs, tmp_path):
    part_a, part_b = two_runs
    into = tmp_path / "experiments" / "course" / "measured" / "2026-12-01-cpu-split"
    result = invoke("record", part_a, part_b, "--into", into)
    assert result.exit_code == 0, result.output

    record, runs = read_record(into)
    assert record["schema_version"] == 1 and record["created"]
    assert record["command"] == f"sssp-bench record {part_a} {part_b} --into {into}"
    assert [(run.run_id, run.manifest, run.rows, run.traces) for run in runs] == [
        ("part-a", "manifest-part-a.json", "rows-part-a.jsonl.gz", None),
        ("part-b", "manifest-part-b.json", "rows-part-b.jsonl.gz", None)]
    for run_dir, run in zip(two_runs, runs):  # kept byte for byte, the rows compressed
        assert (into / run.manifest).read_bytes() == (run_dir / "manifest.json").read_bytes()
        assert gzip.decompress((into / run.rows).read_bytes()) == (run_dir / "rows.jsonl").read_bytes()
    names = sorted(path.name for path in into.iterdir())
    assert names == ["claims.csv", "manifest-part-a.json", "manifest-part-b.json", "recommendations.csv",
                     "record.json", "report.csv", "report.md", "rows-part-a.jsonl.gz", "rows-part-b.jsonl.gz",
                     "speedup.svg"]
    assert not list(into.parent.glob(".*")), "no temporary folder left beside the record"

    # the record's report is the one `report` writes from the runs themselves
    assert invoke("report", part_a, part_b, "--out", tmp_path / "from-runs").exit_code == 0
    assert _report_files(into) == _report_files(tmp_path / "from-runs")
    assert "## Claims" in (into / "report.md").read_text()


def test_a_record_moved_elsewhere_reports_again_byte_for_byte_in_another_process(two_runs, tmp_path):
    into = tmp_path / "record"
    make_record(list(two_runs), into)
    moved = tmp_path / "somewhere" / "else" / "2026-12-01-cpu-split"
    shutil.copytree(into, moved)
    assert _report_again(moved, tmp_path / "again") == _report_files(into)


def test_the_same_rows_always_compress_to_the_same_bytes(two_runs, tmp_path):
    make_record(two_runs[:1], tmp_path / "one")
    make_record(two_runs[:1], tmp_path / "two")
    assert (tmp_path / "one" / "rows-part-a.jsonl.gz").read_bytes() == \
        (tmp_path / "two" / "rows-part-a.jsonl.gz").read_bytes()
    assert (tmp_path / "one" / "speedup.svg").read_bytes() == (tmp_path / "two" / "speedup.svg").read_bytes()


def test_compare_and_report_read_a_record_as_the_runs_it_keeps(two_runs, tmp_path):
    make_record(list(two_runs), tmp_path / "record")
    loaded = load_record(tmp_path / "record")
    assert [manifest["run_id"] for (manifest, _), _ in loaded] == ["part-a", "part-b"]
    assert [len(rows) for (_, rows), _ in loaded] == [len(load_run(run_dir)[1]) for run_dir in two_runs]
    result = invoke("compare", tmp_path / "record", "--between", "cpu-bf", "cpu-dijkstra")
    assert result.exit_code == 0, result.output
    assert "grid-10" in result.output and "rmat-256" in result.output


def test_a_run_folder_with_compressed_rows_reads_as_with_plain_ones(two_runs, tmp_path):
    compressed = shutil.copytree(two_runs[0], tmp_path / "part-a")
    rows = compressed / "rows.jsonl"
    (compressed / "rows.jsonl.gz").write_bytes(gzip.compress(rows.read_bytes()))
    rows.unlink()
    manifest_a, rows_a = load_run(compressed)
    assert manifest_a == load_run(two_runs[0])[0]
    assert rows_a.equals(load_run(two_runs[0])[1])


def test_refresh_writes_the_report_again_from_the_rows_and_keeps_every_other_file(two_runs, tmp_path):
    into = tmp_path / "record"
    make_record(list(two_runs), into)
    stored = _report_files(into)
    (into / "report.md").write_text("edited by hand\n")
    (into / "figure-gone.svg").write_text("<svg/>")  # a plot the current report no longer draws
    (into / "compare.txt").write_text("the printed output of compare\n")
    created = read_record(into)[0]["created"]

    result = invoke("record", "--refresh", into)
    assert result.exit_code == 0, result.output
    assert _report_files(into) == stored
    assert not (into / "figure-gone.svg").exists()
    assert (into / "compare.txt").read_text() == "the printed output of compare\n"
    record = read_record(into)[0]
    assert record["created"] == created and record["refreshed"]
    assert not list(tmp_path.glob(".record.*")), "no temporary folder left beside the record"


def test_an_energy_record_keeps_the_power_traces_its_rows_name(tmp_path):
    run_dir = tmp_path / "results" / "energy-run"
    rows = [prepare("g1", "gpu-x", 0.5, device="gpu", run_id="energy-run"),
            *[solve("g1", "gpu-x", t, device="gpu", source=i, run_id="energy-run") for i, t in enumerate([1e-3, 2e-3])],
            {**solve("g1", "gpu-x", 0.4, device="gpu", run_id="energy-run"), "phase": "energy", "source": None,
             "certificate": None, "energy_j": 0.3, "power_w": 150.0, "idle_power_w": 60.0, "energy_solves": 200,
             "energy_method": "energy counter", "power_trace": "power/g1__gpu-x.csv"}]
    write_run(run_dir, manifest("energy-run", baseline=None, schema_version=2), rows)
    (run_dir / "power").mkdir()
    (run_dir / "power" / "g1__gpu-x.csv").write_text(
        "t_s,power_w,stage\n" + "".join(f"{t / 10},{60 + t},window\n" for t in range(12)))

    written = make_record([run_dir], tmp_path / "record")
    record = tmp_path / "record"
    assert (record / "traces-energy-run" / "power" / "g1__gpu-x.csv").read_bytes() == \
        (run_dir / "power" / "g1__gpu-x.csv").read_bytes()
    assert {"energy", "power-g1"} <= set(written)
    assert "![Power over time: g1](power-g1.svg)" in (record / "report.md").read_text()
    assert _report_files(record) == _report_files(_written_by_report(run_dir, tmp_path / "from-run"))
    assert _report_again(record, tmp_path / "again") == _report_files(record)


def _written_by_report(run_dir: Path, out: Path) -> Path:
    write_report(build_report(run_dir), out)
    return out


def test_every_file_the_report_writes_is_one_a_refresh_replaces(two_runs, tmp_path):
    write_report(build_report(list(two_runs)), tmp_path / "out")
    written = sorted(path.name for path in (tmp_path / "out").iterdir())
    assert written == ["claims.csv", "recommendations.csv", "report.csv", "report.md", "speedup.png", "speedup.svg"]
    for name in written:
        assert any(fnmatchcase(name, pattern) for pattern in REPORT_FILE_PATTERNS), name


# ---------------------------------------------------------------------------------------------- refused


def test_an_existing_folder_is_kept_unless_replace(two_runs, tmp_path):
    into = tmp_path / "record"
    into.mkdir()
    (into / "notes.md").write_text("mine\n")
    result = invoke("record", two_runs[0], "--into", into)
    assert result.exit_code == 2
    assert result.output.strip().splitlines()[-1] == (
        f"Error: {into}: exists and is not empty (--replace makes the record again in its place)")
    assert sorted(path.name for path in into.iterdir()) == ["notes.md"]

    assert invoke("record", two_runs[0], "--into", into, "--replace").exit_code == 0
    assert [run.run_id for run in read_record(into)[1]] == ["part-a"] and not (into / "notes.md").exists()


@pytest.mark.parametrize("args, message", [
    (["record", "{a}"], "--into FOLDER: the record folder to make"),
    (["record", "{a}", "{a}", "--into", "{tmp}/r"], "run 'part-a' given twice"),
    (["record", "{a}", "--into", "{a}/inside"], "a record cannot be made in, around or inside a run folder"),
    (["record", "--refresh", "{a}"], "not a record folder (no record.json)"),
    (["record", "--refresh", "{a}", "--into", "{tmp}/r"], "--refresh takes record folders only"),
    (["record", "{tmp}/no-such-run", "--into", "{tmp}/r"], "no-such-run: no such run directory"),
])
def test_a_mistake_is_one_line(two_runs, tmp_path, args, message):
    values = {"a": two_runs[0], "tmp": tmp_path}
    result = invoke(*[arg.format(**values) for arg in args])
    assert result.exit_code == 2, result.output
    assert message in result.output and len(result.output.strip().splitlines()) == 1, result.output
    assert not (tmp_path / "r").exists()


@pytest.fixture
def record(two_runs, tmp_path):
    into = tmp_path / "record"
    make_record(list(two_runs), into)
    return into


def _refused(record: Path) -> str:
    """The one line `report` and `record --refresh` answer for a damaged record (both refuse it the same way)."""
    for args in (["report", record, "--out", record.parent / "out"], ["record", "--refresh", record]):
        result = invoke(*args)
        assert result.exit_code == 2, result.output
        lines = result.output.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("Error: "), result.output
    return lines[0]


def test_a_record_missing_its_rows_is_refused_in_one_line(record):
    (record / "rows-part-b.jsonl.gz").unlink()
    assert _refused(record) == f"Error: {record / 'rows-part-b.jsonl.gz'}: no such file (the run's rows)"


def test_a_record_with_truncated_rows_is_refused_in_one_line(record):
    rows = record / "rows-part-a.jsonl.gz"
    rows.write_bytes(rows.read_bytes()[:-20])
    assert _refused(record).startswith(f"Error: {rows}: damaged gzip file (")
    rows.write_bytes(b"not gzip at all")
    assert _refused(record).startswith(f"Error: {rows}: damaged gzip file (")


def test_a_record_missing_a_manifest_is_refused_in_one_line(record):
    (record / "manifest-part-a.json").unlink()
    assert _refused(record) == f"Error: {record / 'manifest-part-a.json'}: no such file (the run's manifest)"


@pytest.mark.parametrize("change, message", [
    (lambda r: r.update(schema_version=99), "written in record schema version 99"),
    (lambda r: r.update(runs=[]), "runs: expected a non-empty list of runs"),
    (lambda r: r["runs"][0].update(rows="../../etc/passwd"), "runs[0].rows: expected a file name inside the record"),
    (lambda r: r["runs"][1].update(run_id="part-a"), "run 'part-a' is listed twice"),
    (lambda r: r["runs"][0].update(run_id="other"), "run_id is 'part-a', but record.json names it 'other'"),
])
def test_a_malformed_record_json_is_refused_naming_the_key(record, change, message):
    data = json.loads((record / RECORD_FILE).read_text())
    change(data)
    (record / RECORD_FILE).write_text(json.dumps(data))
    line = _refused(record)
    assert message in line, line
    with pytest.raises(UserError):
        load_record(record)


def test_a_refused_refresh_leaves_the_record_as_it_was(record):
    before = {path.name: path.read_bytes() for path in record.iterdir()}
    (record / "rows-part-b.jsonl.gz").unlink()
    del before["rows-part-b.jsonl.gz"]
    assert invoke("record", "--refresh", record).exit_code == 2
    assert {path.name: path.read_bytes() for path in record.iterdir()} == before


def test_a_run_that_did_not_end_is_recorded_only_when_asked_and_its_report_says_so(tmp_path):
    run = write_run(tmp_path / "cut-off", manifest("cut-off", status="running", finished=None),
                    [solve("g1", "cpu-dijkstra", 0.01, run_id="cut-off")])
    result = invoke("record", run, "--into", tmp_path / "record")
    assert result.exit_code == 2 and len(result.output.strip().splitlines()) == 1
    assert (f"{run}: the run is running (its manifest was never closed: it is still running, or was killed): finish "
            f"it with `sssp-bench run CONFIG --resume {run}`, or record it as it is with --unfinished") in result.output
    assert not (tmp_path / "record").exists()

    assert invoke("record", run, "--into", tmp_path / "record", "--unfinished").exit_code == 0
    warnings = [line for line in (tmp_path / "record" / "report.md").read_text().splitlines() if line.startswith(">")]
    assert any("cut-off" in line and "running" in line for line in warnings), warnings
    assert read_record(tmp_path / "record")[0]["command"].endswith("--unfinished")


def test_recording_a_run_of_uncommitted_code_warns_and_its_report_says_so(tmp_path):
    run_manifest = manifest("dirty")
    run_manifest["provenance"]["git"]["package_changes"] = {"count": 2, "files": ["pkg/a.py", "pkg/b.cu"]}
    run = write_run(tmp_path / "dirty", run_manifest, [solve("g1", "cpu-dijkstra", 0.01, run_id="dirty")])
    warnings = []
    make_record([run], tmp_path / "record", log=warnings.append)
    assert warnings == ["warning: run dirty ran uncommitted changes to 2 package file(s): its report's Provenance "
                        "says these numbers are not from any commit"]
    assert "| code | uncommitted changes to 2 package files (pkg/a.py, pkg/b.cu) on top of commit 0123456789ab: " \
        "these numbers are not from any commit" in (tmp_path / "record" / "report.md").read_text()


def test_a_record_killed_mid_write_is_put_back_and_its_temporaries_cleared_on_the_next_start(record, tmp_path):
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()  # its pid now names no process
    stored = _report_files(record)
    record.rename(tmp_path / f".record.{dead.pid}.old")  # killed between moving the record aside ...
    (tmp_path / f".record.{dead.pid}.tmp").mkdir()       # ... and renaming the new one into place
    (tmp_path / f".record.{dead.pid}.tmp" / "report.md").write_text("half")

    assert invoke("record", "--refresh", record).exit_code == 0
    assert _report_files(record) == stored
    assert not list(tmp_path.glob(".record.*"))


def test_a_record_is_not_a_run_to_record(record, tmp_path):
    result = invoke("record", record, "--into", tmp_path / "again")
    assert result.exit_code == 2 and "a record folder, not a run folder" in result.output


# ---------------------------------------------------------------------------------------------- the repository

# The folders kept before records kept their rows (issue 34): each has a LEGACY.md saying so, and none can be
# derived again. Frozen: a new folder under experiments/*/measured/ must be a record (`sssp-bench record`).
LEGACY_FOLDERS = frozenset({
    "experiments/bfs4k/measured/2026-11-22-h200-bfs4k",
    "experiments/bfs4k/measured/2026-11-22-h200-bfs4k-table2",
    "experiments/bfs4k/measured/2026-11-23-h200-bfs4k-table2",
    "experiments/bfs4k/measured/2026-11-24-h200-bfs4k",
    "experiments/course/measured/2026-11-25-h100-course-bf",
    "experiments/course/measured/2026-11-25-h100-course-delta",
    "experiments/course/measured/2026-11-25-h100-device-check",
    "experiments/course/measured/2026-11-25-h100-issue23-targets",
    "experiments/course/measured/2026-11-26-h200-issue23-cluster",
    "experiments/da2cf/measured/2026-11-25-h100-fig6-lists",
    "experiments/da2cf/measured/2026-11-25-h100-fig7-matrix",
    "experiments/da2cf/measured/2026-11-25-h100-race",
    "experiments/harness/measured/2026-11-25-h100-restructure",
    "experiments/hbf/measured/2026-11-22-h200-bf-family",
    "experiments/hbf/measured/2026-11-22-h200-hbf",
    "experiments/hbf/measured/2026-11-22-h200-near-far",
    "experiments/hbf/measured/2026-11-23-h200-compare",
    "experiments/hbf/measured/2026-11-23-h200-hbf",
    "experiments/hbf/measured/2026-11-23-h200-hbf-grid",
    "experiments/hbf/measured/2026-11-23-h200-msdoor-mesh",
    "experiments/hbf/measured/2026-11-23-h200-near-far",
    "experiments/hbf/measured/2026-11-23-h200-near-far-buckets",
    "experiments/hbf/measured/2026-11-23-h200-near-far-packed",
    "experiments/hbf/measured/2026-11-24-h200-claims",
    "experiments/hbf/measured/2026-11-24-h200-wiki-talk",
    "experiments/parbucketheap/measured/2026-11-25-h100-fig5-dag",
    "experiments/parbucketheap/measured/2026-11-25-h100-fig6-complete",
    "experiments/parbucketheap/measured/2026-11-25-h100-fig7-power",
    "experiments/parbucketheap/measured/2026-11-25-h100-tuning",
})
MEASURED = sorted(path.relative_to(REPO_ROOT).as_posix() for path in REPO_ROOT.glob("experiments/*/measured/*")
                  if path.is_dir())


def test_every_legacy_folder_is_still_there():
    assert LEGACY_FOLDERS <= set(MEASURED)


@pytest.mark.parametrize("folder", MEASURED)
def test_every_measured_folder_is_a_record_that_reports_again_identically_or_a_frozen_legacy_one(folder, tmp_path):
    path = REPO_ROOT / folder
    if folder in LEGACY_FOLDERS:
        assert not is_record(path)
        legacy = (path / "LEGACY.md").read_text()
        assert "raw rows and manifest were not kept" in legacy and "cannot re-derive it" in legacy
        return
    assert is_record(path), (f"{folder}: not a record (no {RECORD_FILE}): keep the runs with their report, "
                             f"`sssp-bench record RUN... --into {folder}`")
    stored = _report_files(path)
    assert "report.md" in stored and "report.csv" in stored
    assert _report_again(path, tmp_path / "again") == stored, (
        f"{folder}: its stored report is not what the current code writes from its rows; if the report code "
        f"changed on purpose, `sssp-bench record --refresh {folder}` and commit the diff")
