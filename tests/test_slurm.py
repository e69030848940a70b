"""`sssp-bench slurm`: the job array's and the merge job's scripts, and their commands run here as Slurm would
run them (SLURM_ARRAY_TASK_ID set, one task at a time), without Slurm."""

import json
import os
import shutil
import subprocess
import sys
import textwrap

import pytest
from click.testing import CliRunner

from sssp_bench.cli import cli

CONFIG = """
    graphs:
      - {graph: "grid:rows=6,cols=6,seed=1", label: grid}
      - {graph: "rmat:n=128,m=1024,seed=2", label: rmat}
    implementations: [cpu-dijkstra, cpu-bf-queue, cpu-bfs]
    sources: {count: 3, seed: 1}
    verification: {reference_sources: 1}
"""


@pytest.fixture
def invoke(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "small.yaml").write_text(textwrap.dedent(CONFIG))
    return lambda *args: CliRunner().invoke(cli, list(args), catch_exceptions=False)


def write(invoke, tmp_path, *options):
    result = invoke("slurm", "small.yaml", "--shards", "2", "--run-id", "job", *options)
    assert result.exit_code == 0, result.output
    return tmp_path / "results" / "job"


def run_task(script, task_id=None):
    """Run a written script the way a Slurm node would: bash, in any folder, with the array task's id."""
    env = {**os.environ, **({"SLURM_ARRAY_TASK_ID": str(task_id)} if task_id is not None else {})}
    return subprocess.run(["bash", str(script)], cwd="/", env=env, capture_output=True, text=True, timeout=300)


def test_the_array_script_runs_shard_i_of_n_as_task_i(invoke, tmp_path):
    run_dir = write(invoke, tmp_path, "--partition", "gpu", "--time", "2:00:00", "--setup", "module load cuda",
                    "--gpus-per-task", "2")
    text = (run_dir / "slurm" / "shards.sbatch").read_text()
    assert text.startswith("#!/bin/bash\n#SBATCH --job-name=sssp-small\n")
    for line in ("#SBATCH --array=1-2", "#SBATCH --gres=gpu:2", "#SBATCH --time=2:00:00",
                 "#SBATCH --partition=gpu", "#SBATCH --cpus-per-task=4",
                 f"#SBATCH --output={run_dir / 'slurm' / 'shard-%a.out'}", "module load cuda",
                 f"cd {tmp_path}"):
        assert line + "\n" in text
    assert "#   shard 1/2: " in text and "#   shard 2/2: " in text  # each task's cells, for whoever reads it
    assert f'run {tmp_path / "small.yaml"} --shard "${{SLURM_ARRAY_TASK_ID}}/2" --output {run_dir / "shards"} ' \
           f'--run-id job"-shard-${{SLURM_ARRAY_TASK_ID}}-of-2" --no-progress' in text
    assert '--resume "$run_dir"' in text
    merge = (run_dir / "slurm" / "merge.sbatch").read_text()
    assert "--array" not in merge and "--gres" not in merge
    assert f"merge {run_dir / 'shards'} --into {run_dir} --report" in merge
    submit = (run_dir / "slurm" / "submit.sh").read_text()
    assert "sbatch --parsable --dependency=afterany:\"$array\"" in submit


def test_a_cpu_config_can_ask_for_no_gpu(invoke, tmp_path):
    run_dir = write(invoke, tmp_path, "--gpus-per-task", "0")
    assert "--gres" not in (run_dir / "slurm" / "shards.sbatch").read_text()


def test_a_config_asks_for_a_gpu_per_task_only_when_it_has_a_gpu_implementation(invoke, tmp_path):
    cpu_only = (write(invoke, tmp_path) / "slurm" / "shards.sbatch").read_text()  # CONFIG: CPU implementations only
    assert "#SBATCH --gres" not in cpu_only and "#SBATCH --gpus" not in cpu_only
    assert "# No GPU asked for: the config has no GPU implementation" in cpu_only
    (tmp_path / "gpu.yaml").write_text(textwrap.dedent(CONFIG).replace("cpu-bfs]", "cpu-bfs, hbf]"))
    result = invoke("slurm", "gpu.yaml", "--shards", "2", "--run-id", "gpu-job")
    assert result.exit_code == 0, result.output
    assert "#SBATCH --gres=gpu:1\n" in (tmp_path / "results" / "gpu-job" / "slurm" / "shards.sbatch").read_text()


def test_each_task_then_the_merge_run_here_make_the_whole_run(invoke, tmp_path):
    run_dir = write(invoke, tmp_path)
    for task in (1, 2):
        done = run_task(run_dir / "slurm" / "shards.sbatch", task)
        assert done.returncode == 0, done.stderr
    shard_one = run_dir / "shards" / "job-shard-1-of-2"
    assert json.loads((shard_one / "manifest.json").read_text())["shard"]["index"] == 1

    again = run_task(run_dir / "slurm" / "shards.sbatch", 1)  # a requeued task resumes; it does not start over
    assert again.returncode == 0, again.stderr
    assert json.loads((shard_one / "manifest.json").read_text())["resumed"]

    merged = run_task(run_dir / "slurm" / "merge.sbatch")
    assert merged.returncode == 0, merged.stderr
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest["status"] == "complete" and manifest["statuses"] == {"ok": 2 * 3 * 3}
    assert (run_dir / "report.md").exists()


def test_the_merge_job_says_which_task_failed_to_leave_its_shard(invoke, tmp_path):
    run_dir = write(invoke, tmp_path)
    assert run_task(run_dir / "slurm" / "shards.sbatch", 2).returncode == 0
    merged = run_task(run_dir / "slurm" / "merge.sbatch")
    assert merged.returncode == 2
    assert merged.stderr.strip().endswith("is missing")
    assert "Error: cannot merge: shard 1/2 of small (config " in merged.stderr


def installed(module: str) -> bool:
    try:
        __import__(module)
        return True
    except ImportError:
        return False


@pytest.mark.skipif(shutil.which("sbatch") is not None or installed("submitit"),
                    reason="this machine could submit (Slurm or submitit is here)")
def test_submit_without_slurm_or_submitit_says_what_is_needed(invoke, tmp_path):
    result = invoke("slurm", "small.yaml", "--shards", "2", "--run-id", "job", "--submit")
    assert result.exit_code == 2
    assert "--submit needs Slurm's sbatch on PATH (or submitit: pip install submitit)" in result.output


def test_scripts_are_not_written_over_a_run(invoke, tmp_path):
    write(invoke, tmp_path)
    (tmp_path / "results" / "job" / "manifest.json").write_text("{}")
    result = invoke("slurm", "small.yaml", "--shards", "2", "--run-id", "job")
    assert result.exit_code == 2 and "already holds a run; pick another --run-id" in result.output


def test_the_scripts_use_this_python_unless_told(invoke, tmp_path):
    assert f"exec {sys.executable} -m sssp_bench.cli run" in (write(invoke, tmp_path) / "slurm" /
                                                              "shards.sbatch").read_text()
    result = invoke("slurm", "small.yaml", "--shards", "3", "--run-id", "other", "--command", "sssp-bench")
    assert result.exit_code == 0
    assert "exec sssp-bench run " in (tmp_path / "results" / "other" / "slurm" / "shards.sbatch").read_text()


def test_an_external_program_that_runs_on_a_gpu_asks_for_one(invoke, tmp_path):
    external = ('{name: external, label: my-gpu-sssp, params: {device: gpu, command: ["/opt/my-sssp", "{graph}", '
                '"{source}"], graph_format: dimacs9, output: {file: stdout, format: text}}}')
    for device, asks in (("gpu", True), ("cpu", False)):
        entry = external.replace("device: gpu", f"device: {device}")
        text = textwrap.dedent(CONFIG).replace("cpu-bfs]", f"cpu-bfs, {entry}]")
        (tmp_path / f"external-{device}.yaml").write_text(text)
        result = invoke("slurm", f"external-{device}.yaml", "--shards", "2", "--run-id", f"external-{device}")
        assert result.exit_code == 0, result.output
        script = (tmp_path / "results" / f"external-{device}" / "slurm" / "shards.sbatch").read_text()
        assert ("#SBATCH --gres=gpu:1\n" in script) is asks
