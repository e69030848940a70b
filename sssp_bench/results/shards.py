"""What a set of run manifests says about a split into shards (run/shards.py makes and merges them): which shards
are missing, and why a set is not exactly one complete split. The report warns with the first; `merge` refuses on the
second."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


def _split_name(manifest: dict[str, Any]) -> str:
    name = (manifest.get("config") or {}).get("name") or "?"
    return f"{name} (config {str(manifest['shard']['config_hash'])[:12]})"


def missing_shards(manifests: Iterable[dict[str, Any]]) -> list[str]:
    """One line per shard that a split lacks among these run manifests, e.g. "shard 2/3 of quick (config
    1a2b3c4d5e6f) is missing". Runs that are not shards are ignored; an empty list: nothing is missing."""
    present: dict[tuple[str, int], dict[str, Any]] = {}
    indexes: dict[tuple[str, int], set[int]] = {}
    for manifest in manifests:
        shard = manifest.get("shard")
        if not shard:
            continue
        key = (str(shard["config_hash"]), int(shard["count"]))
        present.setdefault(key, manifest)
        indexes.setdefault(key, set()).add(int(shard["index"]))
    return [f"shard {index}/{count} of {_split_name(present[(config_hash, count)])} is missing"
            for (config_hash, count), found in indexes.items()
            for index in range(1, count + 1) if index not in found]


def shard_problems(manifests: list[dict[str, Any]]) -> list[str]:
    """Why these manifests are not exactly one complete split: not shards, two splits, a shard given twice or
    missing."""
    problems = [f"run {manifest.get('run_id')} is not a shard (its manifest has no 'shard'; run the config with "
                f"--shard I/N)" for manifest in manifests if not manifest.get("shard")]
    shards = [manifest for manifest in manifests if manifest.get("shard")]
    splits = {(str(m["shard"]["config_hash"]), int(m["shard"]["count"])) for m in shards}
    if len(splits) > 1:
        problems.append("the runs come from different splits: " + ", ".join(
            sorted({f"{_split_name(m)} in {m['shard']['count']}" for m in shards})))
    seen: dict[int, str] = {}
    for manifest in shards:
        index = int(manifest["shard"]["index"])
        if index in seen:
            problems.append(f"shard {index}/{manifest['shard']['count']} given twice: runs {seen[index]} and "
                            f"{manifest.get('run_id')}")
        seen[index] = str(manifest.get("run_id"))
    return problems + missing_shards(shards)
