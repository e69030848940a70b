"""Provenance: one column per run, saying where and from what its numbers came (config, host, GPU, code), and in a
row of its own whether that code was a commit's or had uncommitted changes to the package, and (runs that looked)
whether other processes computed on the run's GPU beside it (run/gpu_sharing.py). Where a run's manifest
keeps its `timing` (run/timing.py), rows saying where its wall time went: the timed solves, the host work around
them, the verification, the per-graph preparation, the per-cell setup, the start-up and the rest; a merge of shards
gives each part summed with each shard's, and its wall time as elapsed (the earliest shard's start to the latest
finish, or a `--workers` run's own clock). Runs from before timing was kept show none of these rows."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...results.summary import baseline_text
from ...run.gpu_sharing import sharing_text
from ...run.provenance import describe_gpu
from ..text import markdown_cell

if TYPE_CHECKING:
    from .. import Report


def section(report: Report) -> list[str]:
    lines = ["## Provenance", "", "| | " + " | ".join(markdown_cell(r) for r in report.run_ids) + " |",
             "|---|" + "---|" * len(report.run_ids)]
    per_run = [_provenance_rows(manifest) for manifest in report.manifests]
    if any("gpu_sharing" in manifest for manifest in report.manifests):  # runs from before the check have no row
        per_run = [rows + [("GPU shared with other processes", sharing_text(manifest.get("gpu_sharing")))]
                   for rows, manifest in zip(per_run, report.manifests)]
    if any(isinstance(manifest.get("timing"), dict) for manifest in report.manifests):
        per_run = [rows + timing_rows(manifest.get("timing")) for rows, manifest in zip(per_run, report.manifests)]
    for position, (key, _) in enumerate(per_run[0]):
        lines.append(f"| {key} | " + " | ".join(markdown_cell(rows[position][1]) for rows in per_run) + " |")
    return lines + [""]


def _config_name(manifest: dict[str, Any]) -> str:
    config = manifest.get("config") or {}
    name = config.get("name") if isinstance(config, dict) else None
    if not name and manifest.get("config_path"):
        name = Path(str(manifest["config_path"])).stem
    return str(name or "-")


def code_state_text(git: dict[str, Any], code: dict[str, Any]) -> str:
    """Whether the run's package code was a commit's: "committed", or which package files differed from the commit
    git names (so the numbers are no commit's; the code digest still names the code), or why git could not say.
    Manifests written before the package's own changes were recorded say "not recorded"."""
    digest = f"code digest {str(code['sha256'])[:12]}" if code.get("sha256") else "no code digest"
    if not git.get("commit"):
        return f"unknown (no git: {git['reason']}); {digest}" if git.get("reason") else f"unknown (no git); {digest}"
    if "package_changes" not in git:
        return "not recorded"
    changes = git.get("package_changes")
    if not isinstance(changes, dict) or not isinstance(changes.get("count"), int):
        return f"unknown (git status failed); {digest}"
    commit = str(git["commit"])[:12]
    if changes["count"] == 0:
        return f"committed: the package code of commit {commit}"
    files = [str(name) for name in changes.get("files") or []]
    listed = ", ".join(files) + (", ..." if changes["count"] > len(files) else "")
    plural = "file" if changes["count"] == 1 else "files"
    return (f"uncommitted changes to {changes['count']} package {plural} ({listed}) on top of commit {commit}: these "
            f"numbers are not from any commit; {digest} names the code")


def _provenance_rows(manifest: dict[str, Any]) -> list[tuple[str, str]]:
    provenance = manifest.get("provenance") or {}
    cpu = provenance.get("cpu") or {}
    gpu = provenance.get("gpu") or {}
    git = provenance.get("git") or {}
    packages = provenance.get("packages") or {}
    memory = provenance.get("memory_total_bytes")

    if gpu.get("available"):
        gpu_text = describe_gpu(gpu)
    else:
        gpu_text = f"none ({gpu.get('reason')})" if gpu.get("reason") else "-"
    if git.get("commit"):
        commit_text = str(git["commit"])[:12] + (" (dirty)" if git.get("dirty") else "")
    else:
        commit_text = f"- ({git.get('reason')})" if git.get("reason") else "-"
    code = provenance.get("code") or {}
    if code.get("sha256"):
        commit_text += f", code {str(code['sha256'])[:12]}"
    for change in manifest.get("code_changes") or []:
        commit_text += f"; resumed {change.get('at')} with code {str(change.get('sha256'))[:12]}"
    cpu_text = str(cpu.get("model") or "-")
    if cpu.get("logical_cores"):
        cpu_text += f" ({cpu['logical_cores']} logical cores)"
    config_text = _config_name(manifest)
    if manifest.get("config_hash"):
        config_text += f" ({str(manifest['config_hash'])[:12]})"
    return [
        ("config", config_text),
        ("status", str(manifest.get("status") or "-")),
        ("started", str(manifest.get("started") or "-")),
        ("finished", str(manifest.get("finished") or "-")),
        ("baseline", baseline_text(manifest.get("baseline"))),
        ("host", str(provenance.get("host") or "-")),
        ("OS", str(provenance.get("os") or "-")),
        ("CPU", cpu_text),
        ("memory", f"{memory / 2**30:.1f} GiB" if isinstance(memory, (int, float)) else "-"),
        ("GPU", gpu_text),
        ("commit", commit_text),
        ("code", code_state_text(git, code)),
        ("Python", str(provenance.get("python") or "-")),
        ("packages", ", ".join(f"{name} {version}" for name, version in packages.items() if version) or "-"),
    ]


TIMING_ROWS = ("wall time", "timed solves", "around the solves", "verification", "per-graph preparation",
               "per-cell setup", "start-up", "other")


def timing_rows(timing: Any) -> list[tuple[str, str]]:
    """The rows of TIMING_ROWS for a manifest's `timing` ("-" each where it has none)."""
    if not isinstance(timing, dict):
        return [(name, "-") for name in TIMING_ROWS]
    parts = [timing] + list(timing.get("shards") or [])  # the summed totals first, then each shard's

    def seconds(name: str) -> list[float]:
        return [float(part.get(name) or 0.0) for part in parts]

    def around(part: dict[str, Any]) -> float:
        return max(0.0, float(part.get("solve_loop_s") or 0.0) - float(part.get("solve_s") or 0.0)
                   - float(part.get("verify_s") or 0.0))

    def value(values: list[float]) -> str:
        total, each = values[0], values[1:]
        if not each:
            return seconds_text(total)
        if len(each) <= 8:
            return f"{seconds_text(total)} ({' + '.join(seconds_text(item) for item in each)})"
        return f"{seconds_text(total)} (over {len(each)} shards, at most {seconds_text(max(each))})"

    checked = float(timing.get("solve_s") or 0.0) + float(timing.get("verify_s") or 0.0)
    ratio = f", {float(timing.get('wall_s') or 0.0) / checked:.2f}x the timed solves and verification" if checked \
        else ""
    if timing.get("shards"):
        coordinator = timing.get("coordinator") or {}
        elapsed = timing.get("elapsed_s")
        wall = (f"{seconds_text(elapsed)} elapsed; " if elapsed is not None else "") + \
            f"{len(timing['shards'])} shards: {value(seconds('wall_s'))}{ratio}"
        if coordinator:
            started = "worker processes" if coordinator.get("executor") == "processes" else "Dask"
            wall += (f"; {started} started in {seconds_text(coordinator.get('cluster_s'))}, merged in "
                     f"{seconds_text(coordinator.get('merge_s'))}")
    else:
        wall = f"{seconds_text(timing.get('wall_s'))}{ratio}"
        if int(timing.get("sessions") or 1) > 1:
            wall += f" ({timing['sessions']} sessions)"
    graph_parts = timing.get("graph_parts") or {}
    graph = value(seconds("graph_s"))
    if graph_parts:
        graph += ": " + ", ".join(f"{name} {seconds_text(graph_parts.get(key))}" for name, key in (
            ("loading", "load_s"), ("sources", "sources_s"), ("roofline", "roofline_s"),
            ("references", "references_s")))
    other = value([sum(float(part.get(name) or 0.0) for name in ("other_s", "device_s", "energy_s"))
                   for part in parts])
    if timing.get("device_s") or timing.get("energy_s"):
        other += (f": GPU bring-up {seconds_text(timing.get('device_s'))} (the context, device constants, NVML), "
                  f"energy phases {seconds_text(timing.get('energy_s'))}, the rest {seconds_text(timing.get('other_s'))}")
    return [
        ("wall time", wall),
        ("timed solves", value(seconds("solve_s"))),
        ("around the solves", value([around(part) for part in parts]) + " (launch, copy-back, rows)"),
        ("verification", value(seconds("verify_s"))),
        ("per-graph preparation", graph),
        ("per-cell setup", value(seconds("setup_s")) + " (prepare, warm-up)"),
        ("start-up", value(seconds("startup_s"))),
        ("other", other),
    ]


def seconds_text(seconds: Any) -> str:
    """Seconds as the Provenance rows write them: two decimals below a second, one above."""
    if seconds is None:
        return "-"
    return f"{float(seconds):.2f} s" if float(seconds) < 1 else f"{float(seconds):.1f} s"
