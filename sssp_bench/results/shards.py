"""What a set of run manifests says about a split into shards (run/shards.py makes and merges them): which shards
are missing, why a set is not exactly one complete split, and how the shards' manifests and rows join into one run.

A shard's manifest records its place in the split (`shard`: index, count, cells, the unsplit config's hash) and,
since cells may be cut into source ranges, `source_ranges` (the cells it ran only in part: graph, variant, first,
stop, of) and `split` (the split's method, estimate and digest: two shards of one split have one digest). The
joining (`merged_manifest`, `merged_row_order`) is shared by `sssp-bench merge`, which writes the joined run, and by
the report, which joins the shards of one complete split that cut a cell (`join_split_shards`), so that a report of
the shard folders reads as the merged run's.

The report warns with `missing_shards`; `merge` refuses on `shard_problems`, `coverage_problems` and
`duplicate_solves`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Sequence

from ..errors import UserError
from .graph_identity import first_difference

PHASE_ORDER = {"prepare": 0, "solve": 1, "energy": 2}


def _split_name(manifest: dict[str, Any]) -> str:
    name = (manifest.get("config") or {}).get("name") or "?"
    return f"{name} (config {str(manifest['shard']['config_hash'])[:12]})"


def split_key(manifest: dict[str, Any]) -> tuple[str, int, str]:
    """What identifies a shard's split: the unsplit config's hash, the shard count and the split's digest (empty
    for shards made before splits had one)."""
    shard = manifest["shard"]
    return str(shard["config_hash"]), int(shard["count"]), str((shard.get("split") or {}).get("digest") or "")


def missing_shards(manifests: Iterable[dict[str, Any]]) -> list[str]:
    """One line per shard that a split lacks among these run manifests, e.g. "shard 2/3 of quick (config
    1a2b3c4d5e6f) is missing". Runs that are not shards are ignored; an empty list: nothing is missing."""
    present: dict[tuple[str, int, str], dict[str, Any]] = {}
    indexes: dict[tuple[str, int, str], set[int]] = {}
    for manifest in manifests:
        shard = manifest.get("shard")
        if not shard:
            continue
        key = split_key(manifest)
        present.setdefault(key, manifest)
        indexes.setdefault(key, set()).add(int(shard["index"]))
    return [f"shard {index}/{count} of {_split_name(present[(config_hash, count, digest)])} is missing"
            for (config_hash, count, digest), found in indexes.items()
            for index in range(1, count + 1) if index not in found]


def shard_problems(manifests: list[dict[str, Any]]) -> list[str]:
    """Why these manifests are not exactly one complete split: not shards, two splits (another config, count or
    estimate), a shard given twice or missing."""
    problems = [f"run {manifest.get('run_id')} is not a shard (its manifest has no 'shard'; run the config with "
                f"--shard I/N)" for manifest in manifests if not manifest.get("shard")]
    shards = [manifest for manifest in manifests if manifest.get("shard")]
    if len({split_key(m)[:2] for m in shards}) > 1:
        problems.append("the runs come from different splits: " + ", ".join(
            sorted({f"{_split_name(m)} in {m['shard']['count']}" for m in shards})))
    elif len({split_key(m) for m in shards}) > 1:
        problems.append("the runs come from different splits of " + _split_name(shards[0]) + ": " + ", ".join(
            sorted({f"{_estimate_of(m)} (split {split_key(m)[2][:12] or 'without digest'})" for m in shards})))
    seen: dict[int, str] = {}
    for manifest in shards:
        index = int(manifest["shard"]["index"])
        if index in seen:
            problems.append(f"shard {index}/{manifest['shard']['count']} given twice: runs {seen[index]} and "
                            f"{manifest.get('run_id')}")
        seen[index] = str(manifest.get("run_id"))
    return problems + missing_shards(shards)


def _estimate_of(manifest: dict[str, Any]) -> str:
    return estimate_text((manifest["shard"].get("split") or {}).get("estimate") or {})


def estimate_text(estimate: dict[str, Any]) -> str:
    """How a split's costs were estimated, in words (a shard manifest's `shard.split.estimate`)."""
    if estimate.get("kind") == "measured":
        return (f"costs measured in {estimate.get('run')} ({estimate.get('cells_measured')} cell(s); "
                f"{estimate.get('cells_estimated')} estimated from the config)")
    return "costs estimated from the config"


def coverage_problems(manifests: list[dict[str, Any]]) -> list[str]:
    """Where one split's shards do not cover each cell exactly once: a cell run whole by two shards, or whole by
    one and in part by another, or source ranges that overlap or leave a gap. Shards made before source ranges
    (no `source_ranges`) run whole cells only."""
    whole: dict[tuple[str, str], list[int]] = {}
    ranges: dict[tuple[str, str], list[tuple[int, int, int, int]]] = {}
    for manifest in manifests:
        shard = manifest.get("shard") or {}
        index = int(shard.get("index", 0))
        partial = {(item["graph"], item["variant"]): item for item in shard.get("source_ranges") or []}
        for graph, variant in shard.get("cells") or []:
            item = partial.get((graph, variant))
            if item is None:
                whole.setdefault((graph, variant), []).append(index)
            else:
                ranges.setdefault((graph, variant), []).append(
                    (int(item["first"]), int(item["stop"]), int(item["of"]), index))
    problems = [f"cell {graph}/{variant} is run whole by shards {', '.join(map(str, sorted(indexes)))}"
                for (graph, variant), indexes in whole.items() if len(indexes) > 1]
    for (graph, variant), pieces in ranges.items():
        if (graph, variant) in whole:
            problems.append(f"cell {graph}/{variant} is run whole by shard {whole[(graph, variant)][0]} and in part "
                            f"by shard {pieces[0][3]}")
            continue
        pieces.sort()
        expected, total = 0, pieces[0][2]
        for first, stop, of, index in pieces:
            if of != total or first != expected:
                what = "overlap" if first < expected else "leave a gap"
                problems.append(f"cell {graph}/{variant}: its source ranges {_ranges_text(pieces)} {what} (the "
                                f"cell has {total} sources)")
                break
            expected = stop
        else:
            if expected != total:
                problems.append(f"cell {graph}/{variant}: its source ranges {_ranges_text(pieces)} stop at "
                                f"{expected} of its {total} sources")
    return problems


def _ranges_text(pieces: Sequence[tuple[int, int, int, int]]) -> str:
    return ", ".join(f"[{first}, {stop}) in shard {index}" for first, stop, _, index in pieces)


def split_cells_of(manifests: Iterable[dict[str, Any]]) -> set[tuple[str, str]]:
    """The (graph, variant) cells some shard ran only in part."""
    return {(item["graph"], item["variant"]) for manifest in manifests
            for item in ((manifest.get("shard") or {}).get("source_ranges") or [])}


def duplicate_solves(shard_rows: Sequence[tuple[str, Sequence[dict[str, Any]]]]) -> list[str]:
    """Solves (graph, variant, repetition, source index) that two shards both recorded: (run id, rows) pairs."""
    seen: dict[tuple, str] = {}
    problems = []
    for run_id, rows in shard_rows:
        for row in rows:
            if row.get("phase") != "solve":
                continue
            key = (row.get("graph"), row.get("variant"), row.get("repetition"), row.get("source_index"))
            if key in seen and seen[key] != run_id:
                problems.append(f"solve {key[0]}/{key[1]} repetition {key[2]} source #{key[3]} is in runs "
                                f"{seen[key]} and {run_id}")
            seen.setdefault(key, run_id)
    return problems


def merged_row_order(config: dict[str, Any], shard_rows: Sequence[Sequence[dict[str, Any]]],
                     split: set[tuple[str, str]]) -> list[tuple[int, int]]:
    """The rows of a merge, as (shard position, row position) pairs in the order the unsplit run writes them:
    graph-major by the config's graphs, each graph's variants in the order they run there (run/order.py). A cell no
    shard cut keeps its rows' order; a cell cut into source ranges gets its prepare rows first (one per status and
    message: each range prepared it, the unsplit run did once), then its solves by repetition and source index."""
    from ..run.order import variant_run_order

    graphs = {graph["label"]: index for index, graph in enumerate(config.get("graphs", []))}
    names = [variant["name"] for variant in config.get("variants", [])]
    seed = (config.get("sources") or {}).get("seed", 1)
    running = {label: {name: index for index, name in enumerate(variant_run_order(names, seed, label))}
               for label in graphs}
    kept: list[tuple[tuple, int, int]] = []
    prepared: set[tuple] = set()
    for shard_position, rows in enumerate(shard_rows):
        for row_position, row in enumerate(rows):
            graph, variant = row.get("graph"), row.get("variant")
            cell = (graphs.get(graph, len(graphs)), running.get(graph, {}).get(variant, len(names)))
            within: tuple = ()
            if (graph, variant) in split:
                phase = row.get("phase")
                if phase == "prepare":
                    outcome = (graph, variant, row.get("status"), row.get("message"))
                    if outcome in prepared:
                        continue
                    prepared.add(outcome)
                within = (PHASE_ORDER.get(phase, 3), _number(row.get("repetition")),
                          _number(row.get("source_index")), shard_position)
            kept.append(((*cell, *within), shard_position, row_position))
    kept.sort(key=lambda item: item[0])  # stable: an uncut cell's rows keep their order
    return [(shard_position, row_position) for _, shard_position, row_position in kept]


def _number(value: Any) -> float:
    """A row's repetition or source index to sort by: absent (None, or NaN from a frame) sorts first."""
    return -1.0 if value is None or value != value else float(value)


def row_statuses(rows: Iterable[dict[str, Any]]) -> dict[str, int]:
    """Counted as the runner counts them (every solve, the prepares that failed), but from the rows: a shard's
    manifest counts only its last session's, and a shard that was resumed had several."""
    counted: dict[str, int] = {}
    for row in rows:
        if row.get("phase") == "solve" or (row.get("phase") == "prepare" and row.get("status") != "ok"):
            counted[row["status"]] = counted.get(row["status"], 0) + 1
    return counted


def merged_manifest(run_id: str, manifests: list[dict[str, Any]], merged_from: list[dict[str, Any]]) -> dict[str, Any]:
    """One manifest for the whole config from its shards' (in shard order): the config before the split and its
    hash, the graphs of every shard, the device constants and energy record of the first shard that measured them,
    the code of every shard, the graphs that failed to load anywhere, the timing of every shard (timing.py) and
    what each saw of other processes on its GPU (gpu_sharing.py).
    `statuses` is left to the caller, who counts them from the merged rows."""
    from ..run import gpu_sharing
    from ..run.order import variant_run_order
    from ..run.timing import merged_timing

    first = manifests[0]
    different = first_difference(manifests)
    if different:
        label, _, _, what = different
        raise UserError(f"cannot merge: graph {label!r}: {what} (did one machine have the real graph and another its "
                        f"stand-in?)")
    graphs: dict[str, Any] = {}
    for manifest in manifests:
        for label, record in (manifest.get("graphs") or {}).items():
            earlier = graphs.get(label)
            if earlier is None:
                graphs[label] = dict(record)
                continue
            if earlier.get("sources") != record.get("sources"):
                raise UserError(f"cannot merge: graph {label!r} has other sources in run {manifest.get('run_id')} "
                                f"than in an earlier shard")
            if "variant_order" in earlier or "variant_order" in record:  # each shard ran its cells of one order
                seed = ((first.get("config") or {}).get("sources") or {}).get("seed", 1)
                names = {*earlier.get("variant_order", []), *record.get("variant_order", [])}
                earlier["variant_order"] = variant_run_order(names, seed, label)
    config = {key: value for key, value in (first.get("config") or {}).items() if key != "shard"}
    # the device constants of the first shard that measured them (a record without "available" is a measurement)
    measured = next((m["roofline"] for m in manifests
                     if m.get("roofline") and m["roofline"].get("available", True)), first.get("roofline"))
    # likewise the energy meter's record: the first shard where NVML could measure
    energy = next((m["energy"] for m in manifests if (m.get("energy") or {}).get("available")), first.get("energy"))
    complete = all(manifest.get("status") == "complete" for manifest in manifests)
    merged = {key: value for key, value in first.items()
              if key not in ("shard", "resumed", "code_changes", "not_loaded", "error", "timing", "gpu_sharing")}
    merged.update({
        "run_id": run_id, "config": config, "config_hash": first["shard"]["config_hash"],
        "started": min(str(m.get("started") or "") for m in manifests) or None,
        "finished": max(str(m.get("finished") or "") for m in manifests) or None,
        "status": "complete" if complete else "incomplete",
        "graphs": graphs, "roofline": measured,
        **({"energy": energy} if energy is not None else {}),
        "skipped": {name: why for manifest in manifests for name, why in (manifest.get("skipped") or {}).items()},
        "merged_from": merged_from,
    })
    timing = merged_timing([(str(m.get("run_id")), m.get("timing")) for m in manifests])
    if timing is not None:
        merged["timing"] = timing
    sharing = gpu_sharing.combined([m.get("gpu_sharing") for m in manifests])
    if sharing is not None:
        merged["gpu_sharing"] = sharing
    # Shards that ran other code than the first (or were resumed with other code) are recorded as a resume with
    # other code is, so the report names every digest behind its rows.
    changes = [change for manifest in manifests for change in manifest.get("code_changes", [])]
    changes += [{"at": manifest.get("started"), "sha256": _code_digest(manifest), "run_id": manifest.get("run_id")}
                for manifest in manifests[1:] if _code_digest(manifest) not in (None, _code_digest(first))]
    if changes:
        merged["code_changes"] = changes
    not_loaded = {label: why for manifest in manifests for label, why in (manifest.get("not_loaded") or {}).items()}
    if not_loaded:  # any shard's graph that failed to load: `run --workers` exits with status 2 for it
        merged["not_loaded"] = not_loaded
    return merged


def _code_digest(manifest: dict[str, Any]) -> str | None:
    return ((manifest.get("provenance") or {}).get("code") or {}).get("sha256")


def shard_entry(manifest: dict[str, Any], rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """What a merge's `merged_from` keeps of one shard (the caller adds where it lies and its attempts)."""
    shard = manifest["shard"]
    provenance = manifest.get("provenance") or {}
    entry = {
        "run_id": manifest.get("run_id"),
        "shard": {"index": shard["index"], "count": shard["count"], "cells": shard["cells"],
                  **({"source_ranges": shard["source_ranges"]} if shard.get("source_ranges") else {})},
        "status": manifest.get("status"), "started": manifest.get("started"), "finished": manifest.get("finished"),
        "host": provenance.get("host"), "gpu": provenance.get("gpu"), "rows": len(rows),
        "statuses": row_statuses(rows), "resumed": manifest.get("resumed", []),
    }
    return entry


def join_problems(manifests: list[dict[str, Any]], shard_rows: Sequence[Sequence[dict[str, Any]]]) -> list[str]:
    """Why these shards (manifests, and each one's rows in the same order) are not one split to join: shards that do
    not make up one split, cells not covered exactly once, or a solve two shards both recorded."""
    return (shard_problems(manifests) or coverage_problems(manifests)
            or duplicate_solves([(str(manifest.get("run_id")), rows) for manifest, rows in zip(manifests, shard_rows)]))


def joined(run_id: str, manifests: list[dict[str, Any]], shard_rows: Sequence[Sequence[dict[str, Any]]],
           merged_from: list[dict[str, Any]]) -> tuple[dict[str, Any], list[tuple[int, int]]]:
    """One split's shards (in shard order) as one run: its manifest (statuses counted from the rows) and its rows'
    order, (shard, row) pairs in the unsplit run's order. `merge` writes them; a report reads them."""
    manifest = merged_manifest(run_id, manifests, merged_from)
    order = merged_row_order(manifest["config"], shard_rows, split_cells_of(manifests))
    manifest["statuses"] = row_statuses(shard_rows[shard][row] for shard, row in order)
    return manifest, order


def join_split_shards(loaded: list[tuple[dict[str, Any], Any]]) -> list[tuple[dict[str, Any], Any]]:
    """The runs a report reads, with the shards of each complete split that cut a cell into source ranges joined
    into one run (as `merge` would write it: its rows in the unsplit run's order, named "<first>+...+<last>"), so
    that a cut cell is one variant in the report, not one per shard. Shards of an incomplete split stay apart (the
    report says which shard is missing). `loaded`: (manifest, rows frame) pairs, as results/load.py reads them."""
    import pandas as pd

    groups: dict[tuple[str, int, str], list[int]] = {}
    for manifest, _ in loaded:
        if manifest.get("shard") and manifest["shard"].get("source_ranges"):
            groups.setdefault(split_key(manifest), [])
    for position, (manifest, _) in enumerate(loaded):
        if manifest.get("shard") and split_key(manifest) in groups:
            groups[split_key(manifest)].append(position)
    joined_runs: dict[int, tuple[dict[str, Any], Any]] = {}
    dropped: set[int] = set()
    for positions in groups.values():
        positions.sort(key=lambda position: int(loaded[position][0]["shard"]["index"]))
        manifests = [loaded[position][0] for position in positions]
        frames = [loaded[position][1] for position in positions]
        records = [frame.to_dict("records") for frame in frames]
        if join_problems(manifests, records):
            continue
        run_id = "+".join(str(manifest.get("run_id")) for manifest in manifests)
        merged_from = [{**shard_entry(manifest, rows), "path": None, "attempts": []}
                       for manifest, rows in zip(manifests, records)]
        manifest, order = joined(run_id, manifests, records, merged_from)
        offsets = [0]
        for frame in frames:
            offsets.append(offsets[-1] + len(frame))
        rows = pd.concat(frames, ignore_index=True).iloc[[offsets[shard] + row for shard, row in order]]
        rows = rows.reset_index(drop=True)
        rows["run_id"] = run_id
        rows.attrs["partial_last_line"] = any(frame.attrs.get("partial_last_line") for frame in frames)
        joined_runs[positions[0]] = (manifest, rows)
        dropped.update(positions[1:])
    return [joined_runs.get(position, run) for position, run in enumerate(loaded) if position not in dropped]
