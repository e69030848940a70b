"""results/load.py: a run folder into its manifest and rows, refusing a damaged one in one line that names the
file and the line; the schema's version."""

import json

import pytest

from runs import manifest, solve, standard_rows, write_run
from sssp_bench.errors import UserError
from sssp_bench.report import write_report
from sssp_bench.results.load import load_run
from sssp_bench.results.summary import summarize


def test_load_run_reads_manifest_and_rows(tmp_path):
    run = write_run(tmp_path / "r1", manifest("r1"), standard_rows())
    run_manifest, rows = load_run(run)
    assert run_manifest["run_id"] == "r1"
    assert len(rows) == len(standard_rows())
    assert set(rows["phase"]) == {"prepare", "solve"}
    assert rows.attrs["partial_last_line"] is False


def test_partial_trailing_line_is_ignored(tmp_path):
    run = write_run(tmp_path / "r1", manifest("r1"), standard_rows(), trailing='{"run_id": "r1", "phase": "so')
    _, rows = load_run(run)
    assert len(rows) == len(standard_rows())
    assert rows.attrs["partial_last_line"] is True
    assert "cut off" in (run / write_report(run)["markdown"].name).read_text()


def test_corrupt_middle_line_is_refused_with_file_and_line(tmp_path):
    run = write_run(tmp_path / "r1", manifest("r1"), [])
    rows = [json.dumps(r) for r in standard_rows()]
    rows.insert(2, "{not json")
    (run / "rows.jsonl").write_text("\n".join(rows) + "\n")
    with pytest.raises(UserError, match=r"rows\.jsonl:3: not valid JSON"):
        load_run(run)


def test_row_missing_a_field_is_refused(tmp_path):
    bad = solve("g1", "cpu-dijkstra", 0.01)
    del bad["graph"]
    run = write_run(tmp_path / "r1", manifest("r1"), [solve("g1", "cpu-dijkstra", 0.01), bad])
    with pytest.raises(UserError, match=r"rows\.jsonl:2: row has no 'graph'"):
        load_run(run)


def test_missing_files_are_refused(tmp_path):
    with pytest.raises(UserError, match="no such run directory"):
        load_run(tmp_path / "nowhere")
    (tmp_path / "empty").mkdir()
    with pytest.raises(UserError, match="manifest.json"):
        load_run(tmp_path / "empty")
    (tmp_path / "empty" / "manifest.json").write_text(json.dumps(manifest("r1")))
    with pytest.raises(UserError, match="rows.jsonl"):
        load_run(tmp_path / "empty")
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "manifest.json").write_text("{\n  oops")
    with pytest.raises(UserError, match=r"manifest\.json:2: not valid JSON"):
        load_run(tmp_path / "bad")


def test_same_run_twice_is_refused(tmp_path):
    run = write_run(tmp_path / "r1", manifest("r1"), standard_rows())
    with pytest.raises(UserError, match="given twice"):
        summarize([run, run])
