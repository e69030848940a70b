"""Slurm: `sssp-bench slurm CONFIG --shards N` writes a job array whose task I runs `run CONFIG --shard I/N`, and a
merge job that joins the shards into one run folder and writes its report once every task has ended.

Written into RESULTS/RUN/slurm/ (RESULTS: the config's output or --output):
- shards.sbatch: the array (`--array=1-N`; one GPU per task when the config has a GPU implementation, none for a
  CPU-only config, unless --gpus-per-task says otherwise). Task I runs shard I into
  RESULTS/RUN/shards/RUN-shard-I-of-N/; a task that finds its folder begun (a requeue, a repeat after a node
  failure) resumes it instead, so a rerun never repeats a finished solve.
- merge.sbatch: `sssp-bench merge RESULTS/RUN/shards --into RESULTS/RUN --report`; the merge refuses, in one line,
  a split that lacks a shard, so a failed task shows up there.
- submit.sh: submits the array, then the merge with `--dependency=afterany:` the array (afterany, not afterok: a
  shard that found a wrong answer exits 1, and the merge should still say so in its report).

`--submit` submits at once: through submitit where it is installed (the same commands, as Python jobs), else
through `sbatch`. Paths in the scripts are absolute, so the jobs may start in any folder of a shared filesystem.
"""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from .. import impls
from ..errors import UserError
from .config import Config
from . import shards

SCRIPT_NAMES = ("shards.sbatch", "merge.sbatch", "submit.sh")


@dataclass
class SlurmOptions:
    """What the #SBATCH lines and the jobs' environment say; None leaves a line out (the cluster's default)."""

    partition: str | None = None
    account: str | None = None
    time: str | None = None               # per task, as sbatch takes it: 4:00:00, 1-00:00:00
    gpus_per_task: int | None = None      # --gres=gpu:K; None: 1 when the config has a GPU implementation, else 0
    cpus_per_task: int | None = 4
    setup: list[str] = field(default_factory=list)   # shell lines before the command: module load, source a venv
    command: str | None = None            # how to call sssp-bench on the nodes (default: this Python's)


@dataclass
class SlurmJob:
    config_path: Path
    config: Config
    count: int
    run_dir: Path                         # RESULTS/RUN: the merged run; its shards/ and slurm/ folders
    options: SlurmOptions

    @property
    def shards_dir(self) -> Path:
        return self.run_dir / "shards"

    @property
    def script_dir(self) -> Path:
        return self.run_dir / "slurm"

    @property
    def gpus_per_task(self) -> int:
        """The GPUs each task asks for: as told, else one when any variant (or the reference) runs on a GPU."""
        if self.options.gpus_per_task is not None:
            return self.options.gpus_per_task
        return 1 if needs_gpu(self.config) else 0

    def sssp_bench(self) -> str:
        return self.options.command or f"{shlex.quote(sys.executable)} -m sssp_bench.cli"

    def shard_command(self, index: str) -> str:
        """The per-task lines: resume the shard's folder if an earlier attempt began it, else start it.
        `index` is a shell word (the array task's id in the script)."""
        config = shlex.quote(str(self.config_path))
        shard = f'"{index}/{self.count}"'
        run_id = f'{shlex.quote(self.run_dir.name)}"-shard-{index}-of-{self.count}"'
        run_dir = f'{shlex.quote(str(self.shards_dir))}/{run_id}'
        return "\n".join([
            f"run_dir={run_dir}",
            'if [ -f "$run_dir/manifest.json" ]; then  # a requeued or repeated task finishes what it began',
            f'  exec {self.sssp_bench()} run {config} --shard {shard} --resume "$run_dir" --no-progress',
            "fi",
            f"exec {self.sssp_bench()} run {config} --shard {shard} --output {shlex.quote(str(self.shards_dir))} "
            f"--run-id {run_id} --no-progress",
        ])

    def merge_command(self) -> str:
        return (f"exec {self.sssp_bench()} merge {shlex.quote(str(self.shards_dir))} "
                f"--into {shlex.quote(str(self.run_dir))} --report")

    def _header(self, name: str, output: str, array: bool) -> list[str]:
        options = self.options
        lines = ["#!/bin/bash", f"#SBATCH --job-name={name}", f"#SBATCH --output={self.script_dir / output}"]
        if array:
            lines.append(f"#SBATCH --array=1-{self.count}")
            if self.gpus_per_task:
                lines.append(f"#SBATCH --gres=gpu:{self.gpus_per_task}")
            if options.time:
                lines.append(f"#SBATCH --time={options.time}")
        if options.cpus_per_task:
            lines.append(f"#SBATCH --cpus-per-task={options.cpus_per_task}")
        lines += [f"#SBATCH --{key}={value}" for key, value in (("partition", options.partition),
                                                               ("account", options.account)) if value]
        return lines

    def array_script(self) -> str:
        split = shards.describe_split(self.config, self.count)
        lines = self._header(f"sssp-{self.config.name}", "shard-%a.out", array=True) + [
            f"# sssp-bench: {self.config_path} in {self.count} shards, task I runs shard I/{self.count} "
            f"(written by `sssp-bench slurm`; submit.sh submits this and merge.sbatch).",
            *(f"#   {line}" for line in split),
            *(["# No GPU asked for: the config has no GPU implementation (--gpus-per-task K asks for K)."]
              if self.options.gpus_per_task is None and not self.gpus_per_task else []),
            "set -euo pipefail",
            f"cd {shlex.quote(str(Path.cwd()))}",
            *self.options.setup,
            self.shard_command("${SLURM_ARRAY_TASK_ID}"),
        ]
        return "\n".join(lines) + "\n"

    def merge_script(self) -> str:
        lines = self._header(f"sssp-{self.config.name}-merge", "merge.out", array=False) + [
            f"# sssp-bench: join the {self.count} shards of {self.config_path} into {self.run_dir} and write its "
            "report.",
            "set -euo pipefail",
            f"cd {shlex.quote(str(Path.cwd()))}",
            *self.options.setup,
            self.merge_command(),
        ]
        return "\n".join(lines) + "\n"

    def submit_script(self) -> str:
        folder = shlex.quote(str(self.script_dir))
        return "\n".join([
            "#!/bin/bash",
            "# Submit the shards' array, then the merge, which waits for every task to end (afterany).",
            "set -euo pipefail",
            f"array=$(sbatch --parsable {folder}/shards.sbatch)",
            'array=${array%%;*}  # --parsable prints "id;cluster" on a multi-cluster setup',
            f'sbatch --parsable --dependency=afterany:"$array" {folder}/merge.sbatch',
            'echo "submitted array job $array and its merge"',
        ]) + "\n"


def needs_gpu(config: Config) -> bool:
    """Whether any of the config's variants, or its reference solver, runs on a GPU (an external program: by its
    `device` parameter)."""
    if config.reference != "auto" and impls.get(config.reference).device == "gpu":
        return True
    return any(impls.get(variant.implementation).row_device(variant.params) == "gpu" for variant in config.variants)


def write_scripts(job: SlurmJob) -> dict[str, Path]:
    """Write shards.sbatch, merge.sbatch and submit.sh into the run's slurm/ folder and return their paths."""
    if job.count < 1:
        raise UserError(f"--shards {job.count}: expected at least 1 shard")
    if (job.run_dir / "manifest.json").exists() or (job.shards_dir.is_dir() and any(job.shards_dir.iterdir())):
        raise UserError(f"{job.run_dir}: already holds a run; pick another --run-id")
    job.script_dir.mkdir(parents=True, exist_ok=True)
    texts = dict(zip(SCRIPT_NAMES, (job.array_script(), job.merge_script(), job.submit_script())))
    written = {}
    for name, text in texts.items():
        path = job.script_dir / name
        path.write_text(text)
        path.chmod(0o755)
        written[name] = path
    return written


def submit(job: SlurmJob, written: dict[str, Path], log: Callable[[str], None]) -> str:
    """Submit the array and the merge: through submitit when it is installed, else sbatch. Returns the array's id."""
    try:
        import submitit
    except ImportError:
        submitit = None
    if submitit is not None:
        return _submit_with_submitit(submitit, job, log)
    if shutil.which("sbatch") is None:
        raise UserError("--submit needs Slurm's sbatch on PATH (or submitit: pip install submitit); "
                        f"the scripts are written: {written['submit.sh']}")
    done = subprocess.run(["bash", str(written["submit.sh"])], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise UserError(f"sbatch failed: {(done.stderr or done.stdout).strip().splitlines()[-1:]}")
    log(done.stdout.strip())
    return done.stdout.strip().splitlines()[0] if done.stdout.strip() else ""


def _submit_with_submitit(submitit, job: SlurmJob, log: Callable[[str], None]) -> str:
    """The same per-task and merge commands, submitted as submitit jobs (which pickles a call to `bash -c`)."""
    executor = submitit.AutoExecutor(folder=str(job.script_dir / "submitit"))
    parameters = {"slurm_array_parallelism": job.count, "cpus_per_task": job.options.cpus_per_task or 1}
    if job.gpus_per_task:
        parameters["slurm_gres"] = f"gpu:{job.gpus_per_task}"
    if job.options.partition:
        parameters["slurm_partition"] = job.options.partition
    if job.options.account:
        parameters["slurm_account"] = job.options.account
    executor.update_parameters(name=f"sssp-{job.config.name}", **parameters)
    prologue = "\n".join([f"cd {shlex.quote(str(Path.cwd()))}", *job.options.setup])
    scripts = [prologue + "\n" + job.shard_command(str(index)) for index in range(1, job.count + 1)]
    array = executor.map_array(_bash, scripts)
    executor.update_parameters(name=f"sssp-{job.config.name}-merge", slurm_array_parallelism=1,
                               slurm_additional_parameters={"dependency": f"afterany:{array[0].job_id.split('_')[0]}"})
    merge = executor.submit(_bash, prologue + "\n" + job.merge_command())
    log(f"submitted {len(array)} shard jobs ({array[0].job_id.split('_')[0]}) and the merge ({merge.job_id}) "
        "through submitit")
    return array[0].job_id.split("_")[0]


def _bash(script: str) -> None:
    subprocess.run(["bash", "-c", script], check=True)
