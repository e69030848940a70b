"""What the tests that go through the runner share: a config from YAML text whose results and dataset cache lie
under the test's tmp_path, the rows a run recorded, and the check that none of them failed."""

from __future__ import annotations

import json
import textwrap

from sssp_bench.run.config import parse_config
from sssp_bench.run.runner import start_run


def make_config(tmp_path, text: str, name: str = "test"):
    """The config in `text` (indented YAML is fine), results in tmp_path/results, datasets in tmp_path/datasets."""
    config = parse_config(textwrap.dedent(text), str(tmp_path / f"{name}.yaml"), default_name=name)
    config.output, config.datasets = tmp_path / "results", tmp_path / "datasets"
    return config


def read_rows(run_dir) -> list[dict]:
    return [json.loads(line) for line in (run_dir / "rows.jsonl").read_text().splitlines()]


def run_rows(config, run_id: str = "run"):
    """(outcome, rows): the config run to the end, quietly, and the rows it recorded."""
    outcome = start_run(config, run_id=run_id, show_progress=False)
    return outcome, read_rows(outcome.run_dir)


def solves_all_ok(rows: list[dict], may_refuse: tuple[str, ...] = ()) -> list[dict]:
    """The run's ok solve rows, after asserting that every row (prepare and solve) ended ok, except that the
    variants named in `may_refuse` may be "unsupported" (e.g. Dijkstra or Near-Far on negative weights)."""
    problems = [(row["graph"], row["variant"], row["phase"], row["status"], row["message"]) for row in rows
                if row["status"] != "ok" and not (row["variant"] in may_refuse and row["status"] == "unsupported")]
    assert not problems, problems
    return [row for row in rows if row["phase"] == "solve" and row["status"] == "ok"]
