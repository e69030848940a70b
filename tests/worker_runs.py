"""What the tests of split runs on workers share (test_pool.py: this host's worker processes; test_workers.py: Dask):
two configs, what a run's rows and split say, and a worker killed in the middle of a task."""

from __future__ import annotations

import json
import os
import signal
import time

from runs import read_rows

TWO_GRAPHS = """
    graphs:
      - {graph: "grid:rows=8,cols=8,seed=1", label: grid}
      - {graph: "rmat:n=256,m=2048,seed=2", label: rmat}
    implementations: [cpu-dijkstra, cpu-bf-queue, cpu-bfs]
    sources: {count: 4, seed: 1}
    verification: {reference_sources: 1}
"""

# Long enough (a few seconds a shard on two cores) that a worker can be killed in the middle of its shard.
SLOW = """
    graphs:
      - {graph: "grid:rows=150,cols=150,seed=1", label: grid}
      - {graph: "road:n=20000,seed=2", label: road}
    implementations: [cpu-dijkstra, cpu-bf]
    sources: {count: 40, seed: 1}
    verification: {reference_sources: 2}
"""
SLOW_SOLVES = 2 * 2 * 40


def counts(summary):
    return sorted(zip(summary["graph"], summary["variant"], summary["solves"], summary["verified"]))


def solve_keys(rows):
    return [(row["graph"], row["variant"], row["repetition"], row["source_index"]) for row in rows
            if row["phase"] == "solve"]


def solve_times(rows):
    """Each solve's measured time, by its key: a solve run again would have another."""
    return {key: row["time_s"] for key, row in zip(solve_keys(rows), [r for r in rows if r["phase"] == "solve"])}


def tasks_of(run_dir):
    """How many tasks the run's split (RUN/split.json) holds."""
    return len(json.loads((run_dir / "split.json").read_text())["shards"])


def kill_a_worker_mid_task(shards_dir, coordinator, prefix: str, seconds: float = 240):
    """SIGKILL the worker of the first task (a folder `prefix`-shard-* under `shards_dir`) caught running with 3
    solves or more recorded, while the `coordinator` process runs: (the task's folder, the solve times it had
    recorded then), or (None, None) when none was caught."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and coordinator.poll() is None:
        for shard_dir in sorted(shards_dir.glob(f"{prefix}-shard-*")) if shards_dir.exists() else []:
            manifest, attempts = shard_dir / "manifest.json", shard_dir / "attempts.jsonl"
            if not (manifest.exists() and attempts.exists() and (shard_dir / "rows.jsonl").exists()):
                continue
            rows = read_rows(shard_dir)
            if json.loads(manifest.read_text())["status"] == "running" and len(solve_keys(rows)) >= 3:
                os.kill(json.loads(attempts.read_text().splitlines()[0])["pid"], signal.SIGKILL)
                return shard_dir, solve_times(rows)
        time.sleep(0.02)
    return None, None


def check_nothing_lost_or_repeated(victim, before, merged, whole):
    """After a kill: the task ran twice in two processes, kept what it had recorded, and the merged run holds every
    solve once, with the uninterrupted run's counts and statuses."""
    from sssp_bench.report import summarize

    attempts = [json.loads(line) for line in (victim / "attempts.jsonl").read_text().splitlines()]
    assert len(attempts) == 2 and attempts[0]["pid"] != attempts[1]["pid"]  # retried by another worker process
    recorded = json.loads((merged / "manifest.json").read_text())["merged_from"]
    assert [entry["attempts"] for entry in recorded if entry["run_id"] == victim.name] == [attempts]
    kept = solve_times(read_rows(victim))
    assert all(kept[key] == seconds for key, seconds in before.items())  # what was done before the kill stands
    keys = solve_keys(read_rows(merged))
    assert len(keys) == len(set(keys)) == SLOW_SOLVES  # nothing lost, nothing twice
    assert counts(summarize(merged)) == counts(summarize(whole))
    assert json.loads((merged / "manifest.json").read_text())["statuses"] == {"ok": SLOW_SOLVES}
