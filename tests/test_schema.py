"""results/schema.py is the contract between the runner, which writes a run folder, and everything that reads it:
the runner writes exactly its fields and statuses and records its version; a reader refuses a newer one."""

import json

import pytest

from runs import make_config, manifest, read_rows, run_rows, solve, write_run
from sssp_bench.errors import UserError
from sssp_bench.results import schema
from sssp_bench.results.load import load_run
from sssp_bench.run.runner import RowWriter


def test_the_runner_writes_the_schemas_manifest_rows_and_statuses(tmp_path):
    config = make_config(tmp_path, """
        graphs: [{graph: "grid:rows=4,cols=4,seed=1", label: grid}]
        implementations: [cpu-dijkstra, hbf]
        sources: {count: 2}
    """)
    outcome, rows = run_rows(config)
    written = json.loads((outcome.run_dir / schema.MANIFEST_FILE).read_text())
    assert written["schema_version"] == schema.SCHEMA_VERSION
    assert set(written) <= set(schema.MANIFEST_KEYS)
    for row in rows:
        checked = row["phase"] == "solve" and row["certificate"] is not None
        assert tuple(row) == schema.ROW_FIELDS + (schema.CHECKED_SOLVE_FIELDS if checked else ()), row
        assert row["status"] in schema.STATUSES
    assert {row["status"] for row in rows} <= {"ok", "unavailable"}  # hbf needs a GPU where there is none


def test_a_row_with_a_status_outside_the_schema_is_never_written(tmp_path):
    writer = RowWriter(tmp_path / schema.ROWS_FILE)
    with pytest.raises(ValueError, match="'crashed' is not one of the results schema's"):
        writer.write(schema.new_row(phase="solve", status="crashed"))
    writer.close()
    assert read_rows(tmp_path) == []


def test_failure_outcomes_are_the_failure_statuses_and_three_ways_an_ok_solve_falls_short():
    assert set(schema.FAILURE_OUTCOMES) == (set(schema.STATUSES) - {"ok"}) | set(schema.OUTCOME_EXPLANATIONS)
    assert [schema.solve_outcome("ok", certificate, reference) for certificate, reference in
            [(True, None), (True, True), (False, None), (True, False), (None, None)]] == [
        "verified", "verified", "certificate_failed", "reference_mismatch", "unchecked"]
    assert schema.solve_outcome("timeout", None, None) == "timeout"


def test_a_run_without_a_schema_version_is_version_1(tmp_path):
    run_manifest, _ = load_run(write_run(tmp_path / "r1", manifest("r1"), [solve("g1", "cpu-dijkstra", 0.01)]))
    assert "schema_version" not in run_manifest and schema.schema_version(run_manifest) == 1


@pytest.mark.parametrize("version, message", [
    (schema.SCHEMA_VERSION + 1, rf"manifest\.json: written in results schema version {schema.SCHEMA_VERSION + 1}; "
                                rf"this sssp-bench reads versions up to {schema.SCHEMA_VERSION}"),
    ("2", r"manifest\.json: schema_version: expected a positive integer, got '2'"),
    (0, r"manifest\.json: schema_version: expected a positive integer, got 0"),
])
def test_a_newer_or_malformed_schema_version_is_refused(tmp_path, version, message):
    run = write_run(tmp_path / "r1", manifest("r1", schema_version=version), [solve("g1", "cpu-dijkstra", 0.01)])
    with pytest.raises(UserError, match=message):
        load_run(run)
