"""Provenance: one column per run, saying where and from what its numbers came (config, host, GPU, code)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...results.summary import baseline_text
from ...run.provenance import describe_gpu
from ..text import markdown_cell

if TYPE_CHECKING:
    from .. import Report


def section(report: Report) -> list[str]:
    lines = ["## Provenance", "", "| | " + " | ".join(markdown_cell(r) for r in report.run_ids) + " |",
             "|---|" + "---|" * len(report.run_ids)]
    per_run = [_provenance_rows(manifest) for manifest in report.manifests]
    for position, (key, _) in enumerate(per_run[0]):
        lines.append(f"| {key} | " + " | ".join(markdown_cell(rows[position][1]) for rows in per_run) + " |")
    return lines + [""]


def _config_name(manifest: dict[str, Any]) -> str:
    config = manifest.get("config") or {}
    name = config.get("name") if isinstance(config, dict) else None
    if not name and manifest.get("config_path"):
        name = Path(str(manifest["config_path"])).stem
    return str(name or "-")


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
        ("Python", str(provenance.get("python") or "-")),
        ("packages", ", ".join(f"{name} {version}" for name, version in packages.items() if version) or "-"),
    ]
