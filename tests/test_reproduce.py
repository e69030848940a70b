"""The reproduction workflow's steps (.github/workflows/reproduce.yml) are make targets; here they run on a CPU config
as CI runs them: `make shard` per matrix cell, `make merge`, `make gate` against a stored baseline run."""

import json
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import yaml

from sssp_bench.report import summarize
from sssp_bench.run.runner import start_run

from runs import make_config

ROOT = Path(__file__).resolve().parents[1]
WORKFLOW = ROOT / ".github" / "workflows" / "reproduce.yml"
VENV = Path(sys.prefix)  # the environment running the tests has everything the targets need installed

CONFIG = """
    graphs:
      - {graph: "grid:rows=8,cols=8,seed=1", label: grid}
      - {graph: "rmat:n=256,m=2048,seed=2", label: rmat}
    implementations: [cpu-dijkstra, cpu-bf-queue, cpu-bfs]
    sources: {count: 10, seed: 1}  # the gate judges a variant on 10 paired sources at least
    verification: {reference_sources: 1}
"""

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="no make here")


def make(*arguments, cwd=ROOT):
    """A target of the repository's Makefile, with this environment as its venv (`-o`: do not reinstall)."""
    command = ["make", "--no-print-directory", "-C", str(ROOT), "-o", f"{VENV}/.installed", f"VENV={VENV}",
               *arguments]
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=300)


def workflow():
    return yaml.safe_load(WORKFLOW.read_text())


def test_every_step_that_runs_a_command_runs_a_make_target():
    for job in workflow()["jobs"].values():
        for step in job["steps"]:
            if "run" not in step or "GITHUB_STEP_SUMMARY" in step["run"] or "rm -rf" in step["run"]:
                continue  # the report on the run's page, and storing a baseline: shell, not the harness
            assert re.search(r"\bmake (shard|merge|gate)\b", step["run"]), step


def test_the_matrix_names_existing_configs_in_both_jobs_and_as_many_shards_as_it_says():
    jobs = workflow()["jobs"]
    configs = jobs["shard"]["strategy"]["matrix"]["config"]
    assert configs == jobs["merge"]["strategy"]["matrix"]["config"]
    assert all((ROOT / config["path"]).is_file() for config in configs)
    assert all(config["name"] == Path(config["path"]).stem for config in configs)  # make shard names runs so
    assert jobs["shard"]["strategy"]["matrix"]["shard"] == list(range(1, workflow()["env"]["SHARDS"] + 1))
    assert "self-hosted" in jobs["shard"]["runs-on"] and "gpu" in jobs["shard"]["runs-on"]


def test_shard_merge_and_gate_run_here_as_in_ci(tmp_path):
    config = tmp_path / "ci.yaml"
    config.write_text(textwrap.dedent(CONFIG))
    shards, merged = tmp_path / "shards", tmp_path / "merged"
    for index in (1, 2):
        done = make("shard", f"CONFIG={config}", f"SHARD={index}/2", f"SHARDS_DIR={shards}")
        assert done.returncode == 0, done.stderr
    assert sorted(path.name for path in shards.iterdir()) == ["ci-shard-1-of-2", "ci-shard-2-of-2"]
    again = make("shard", f"CONFIG={config}", "SHARD=2/2", f"SHARDS_DIR={shards}")  # a re-run job resumes
    assert again.returncode == 0 and "--resume" in again.stdout + again.stderr

    done = make("merge", f"SHARDS_DIR={shards}", f"MERGED={merged}")
    assert done.returncode == 0, done.stderr
    assert (merged / "report.md").exists()
    whole = start_run(make_config(tmp_path, CONFIG), run_id="whole", show_progress=False).run_dir

    def counts(run):
        summary = summarize(run)
        return sorted(zip(summary["graph"], summary["variant"], summary["solves"], summary["verified"]))

    assert counts(merged) == counts(whole)

    def stored_baseline(name, speedup):
        """The merged run copied as a stored baseline, as if it had run every solve `speedup` times as fast."""
        baseline = tmp_path / name
        shutil.copytree(merged, baseline)
        rows = [json.loads(line) for line in (baseline / "rows.jsonl").read_text().splitlines()]
        for row in rows:
            if row["phase"] == "solve" and row["time_s"]:
                row["time_s"] /= speedup
        (baseline / "rows.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))
        manifest = json.loads((baseline / "manifest.json").read_text())
        (baseline / "manifest.json").write_text(json.dumps({**manifest, "run_id": name}))
        return baseline

    same = make("gate", f"BASELINE={stored_baseline('same', 1)}", f"MERGED={merged}")
    assert same.returncode == 0, same.stdout + same.stderr
    assert "no clear difference" in same.stdout and (merged / "compare.csv").exists()
    slower = make("gate", f"BASELINE={stored_baseline('faster', 3)}", f"MERGED={merged}")
    assert slower.returncode != 0 and "slower" in slower.stdout

    unnamed = make("gate", f"MERGED={merged}")
    assert unnamed.returncode != 0 and "name the stored baseline run: BASELINE=<run folder>" in unnamed.stderr


def test_merge_names_the_shard_a_failed_job_did_not_leave(tmp_path):
    config = tmp_path / "ci.yaml"
    config.write_text(textwrap.dedent(CONFIG))
    assert make("shard", f"CONFIG={config}", "SHARD=2/3", f"SHARDS_DIR={tmp_path / 'shards'}").returncode == 0
    done = make("merge", f"SHARDS_DIR={tmp_path / 'shards'}", f"MERGED={tmp_path / 'merged'}")
    assert done.returncode != 0
    assert "cannot merge: shard 1/3 of ci (config " in done.stderr and "(and 1 more)" in done.stderr
