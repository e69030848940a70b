"""What the tests share. Through the runner: a config from YAML text whose results and dataset cache lie under the
test's tmp_path, the rows a run recorded, and the check that none of them failed. Without it: run folders written
by hand (a manifest, prepare and solve rows, per-source times), for results and the report."""

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


# ---------------------------------------------------------------------------------------------- by hand


def manifest(run_id, baseline="cpu-dijkstra", graphs=None, status="complete", **extra):
    """A run's manifest as the runner writes it: a CPU-only test host, graphs g1 (weighted) and g2 (unweighted)."""
    return {
        "run_id": run_id,
        "config": {"name": "unit-test"},
        "config_hash": "abc123def4567890",
        "config_path": "configs/unit-test.yaml",
        "started": "2025-01-01T00:00:00+00:00",
        "finished": "2025-01-01T00:01:00+00:00",
        "status": status,
        "baseline": baseline,
        "provenance": {
            "host": "testhost",
            "os": "Linux-test",
            "python": "3.11.7 (CPython)",
            "cpu": {"model": "Test CPU", "logical_cores": 8},
            "memory_total_bytes": 16 * 2**30,
            "packages": {"sssp_bench": "0.1.0", "numpy": "2.0"},
            "git": {"commit": "0123456789abcdef0123456789abcdef01234567", "dirty": True},
            "gpu": {"available": False, "reason": "CuPy not installed"},
        },
        "graphs": graphs if graphs is not None else {
            "g1": {"n": 100, "m": 1000, "directed": True, "weighted": True, "provenance": {}},
            "g2": {"n": 50, "m": 200, "directed": False, "weighted": False, "provenance": {}},
        },
        **extra,
    }


def solve(graph, implementation, time_s, status="ok", certificate=True, reference=None, kind="sssp",
          device="cpu", variant=None, source=0, message="", reached_arcs=1000, run_id="r1"):
    """A solve row: verified (status ok, certificate passed) unless told otherwise."""
    return {
        "run_id": run_id, "phase": "solve", "graph": graph, "implementation": implementation,
        "variant": variant or implementation, "params": {}, "device": device, "kind": kind,
        "source": source, "source_index": source, "repetition": 0, "status": status, "message": message,
        "time_s": time_s, "end_to_end_s": None if time_s is None else time_s * 1.5,
        "reached_vertices": 10, "reached_arcs": reached_arcs,
        "mteps": None if not time_s else reached_arcs / time_s / 1e6,
        "certificate": certificate, "reference": reference, "counters": {},
    }


def prepare(graph, implementation, time_s, status="ok", message="", device="cpu", kind="sssp", run_id="r1"):
    """A prepare row."""
    return {
        "run_id": run_id, "phase": "prepare", "graph": graph, "implementation": implementation,
        "variant": implementation, "params": {}, "device": device, "kind": kind, "source": None,
        "source_index": None, "repetition": 0, "status": status, "message": message, "time_s": time_s,
        "end_to_end_s": None, "reached_vertices": None, "reached_arcs": None, "mteps": None,
        "certificate": None, "reference": None, "counters": {},
    }


def write_run(directory, run_manifest, rows, trailing=""):
    """A run folder holding `run_manifest` and `rows` (and `trailing`, e.g. a line cut off by a crash)."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "manifest.json").write_text(json.dumps(run_manifest))
    text = "".join(json.dumps(row) + "\n" for row in rows) + trailing
    (directory / "rows.jsonl").write_text(text)
    return directory


def standard_rows(run_id="r1"):
    """g1: baseline 10/20/30/40 ms, gpu-x 1..5 ms plus a wrong answer and an unchecked solve.
    g2: baseline times out everywhere; gpu-x is verified."""
    rows = [prepare("g1", "cpu-dijkstra", 0.002, run_id=run_id)]
    rows += [solve("g1", "cpu-dijkstra", t, source=i, run_id=run_id) for i, t in enumerate([0.010, 0.020, 0.030, 0.040])]
    rows += [prepare("g1", "gpu-x", 0.5, device="gpu", run_id=run_id)]
    rows += [solve("g1", "gpu-x", t, device="gpu", source=i, run_id=run_id) for i, t in enumerate([0.001, 0.002, 0.003, 0.004, 0.005])]
    rows += [solve("g1", "gpu-x", 0.0001, status="wrong_answer", certificate=False, device="gpu", source=7,
                   message="distance of vertex 3 is 5, expected 4", run_id=run_id)]
    rows += [solve("g1", "gpu-x", 0.0001, certificate=None, device="gpu", source=8, run_id=run_id)]
    rows += [solve("g2", "cpu-dijkstra", None, status="timeout", certificate=None, source=i,
                   message="exceeded 60 s", run_id=run_id) for i in range(2)]
    rows += [solve("g2", "gpu-x", 0.002, device="gpu", run_id=run_id)]
    return rows


# Per-source difficulty spread over 2x, as sources of one graph are: a paired test sees through it.
DIFFICULTY = [1.0 + 0.05 * ((7 * i) % 20) for i in range(20)]


def timed(graph, variant, scale, run_id="r1", jitter=0.0, sources=range(20), **fields):
    """Solves of `variant` on every source, time = difficulty x scale (x 1 +- jitter, alternating), in ms."""
    return [solve(graph, variant, DIFFICULTY[i % 20] * scale * (1 + jitter * (-1) ** i) / 1e3, device="gpu",
                  source=source, run_id=run_id, **fields) for i, source in enumerate(sources)]


def row_of(summary, graph, variant):
    match = summary[(summary["graph"] == graph) & (summary["variant"] == variant)]
    assert len(match) == 1, f"{graph}/{variant}: {len(match)} rows"
    return match.iloc[0]
