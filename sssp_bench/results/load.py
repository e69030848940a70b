"""Run folders into what summary, compare, claims and the report read: a run's manifest and its rows as a frame,
and several runs as one frame whose rows are labelled by variant.

Merging runs (`report RUN1 RUN2`): rows are concatenated. When the same variant ran on the same graph in two runs,
its label is prefixed with its run id ("run-a/cpu-dijkstra") in every run it appears in, so the two are kept apart
rather than pooled: timings from two runs (maybe two machines) are not one sample.

A run's rows may be gzip-compressed (`rows.jsonl.gz`, read as `rows.jsonl` is), and a record folder (a run's
manifest and compressed rows kept with its report, results/records.py) stands for the runs it keeps: `load_runs`.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..errors import UserError
from ..jsonfile import read_json
from .rows import read_rows
from .schema import MANIFEST_FILE, NUMERIC_ROW_FIELDS, ROW_FIELDS, ROWS_FILE, SCHEMA_VERSION, schema_version
from .shards import join_split_shards

Run = tuple[dict[str, Any], pd.DataFrame]  # a run's manifest and rows, as load_run returns them


COMPRESSED_ROWS_FILE = ROWS_FILE + ".gz"


def load_run(path: str | os.PathLike[str]) -> Run:
    """A run folder's manifest and rows (rows.jsonl, else rows.jsonl.gz). Missing or malformed files raise a
    `UserError` naming them."""
    folder = run_folder(path)
    manifest_path = folder / MANIFEST_FILE
    if not manifest_path.is_file():
        raise UserError(f"{folder}: not a run directory (no {MANIFEST_FILE})")
    manifest = _read_manifest(manifest_path, folder.name)
    rows_path = folder / ROWS_FILE
    if not rows_path.is_file() and (folder / COMPRESSED_ROWS_FILE).is_file():
        rows_path = folder / COMPRESSED_ROWS_FILE
    if not rows_path.is_file():
        raise UserError(f"{folder}: no {ROWS_FILE} (the run recorded no rows)")
    return manifest, _run_rows(rows_path, manifest)


def load_run_files(manifest_path: Path, rows_path: Path, default_run_id: str) -> Run:
    """A run's manifest and rows from these two files (rows gzip-compressed when the name ends in .gz);
    `default_run_id` names a run whose manifest does not."""
    if not manifest_path.is_file():
        raise UserError(f"{manifest_path}: no such file (the run's manifest)")
    manifest = _read_manifest(manifest_path, default_run_id)
    if not rows_path.is_file():
        raise UserError(f"{rows_path}: no such file (the run's rows)")
    return manifest, _run_rows(rows_path, manifest)


def _read_manifest(manifest_path: Path, default_run_id: str) -> dict[str, Any]:
    manifest = read_json(manifest_path)
    if not isinstance(manifest, dict):
        raise UserError(f"{manifest_path}: expected a JSON object, got {type(manifest).__name__}")
    _check_version(manifest, manifest_path)
    manifest.setdefault("run_id", default_run_id)
    return manifest


def _run_rows(rows_path: Path, manifest: dict[str, Any]) -> pd.DataFrame:
    records, dropped_partial = read_rows(rows_path)
    rows = _rows_frame(records)
    rows["run_id"] = str(manifest["run_id"])  # the folder's manifest is the authority on identity
    rows.attrs["partial_last_line"] = dropped_partial
    return rows


def load_runs(path: str | os.PathLike[str]) -> list[Run]:
    """The runs `path` stands for: a run folder's one run, or each run a record folder keeps, in its order."""
    from .records import is_record, load_record  # records reads runs through this module

    if is_record(path):
        return [run for run, _ in load_record(path)]
    return [load_run(path)]


def run_folder(path: str | os.PathLike[str]) -> Path:
    """The run folder `path` names (a path to its manifest or rows file names it too)."""
    candidate = Path(path)
    if candidate.is_file() and candidate.name in (MANIFEST_FILE, ROWS_FILE, COMPRESSED_ROWS_FILE):
        candidate = candidate.parent
    if not candidate.exists():
        raise UserError(f"{candidate}: no such run directory")
    if not candidate.is_dir():
        raise UserError(f"{candidate}: not a run directory")
    return candidate


def as_runs(runs: Any) -> list[Run]:
    """`runs` as a list of loaded runs: a run folder, a record folder (its runs), a `(manifest, rows)` pair from
    load_run, or a sequence of any of these. Refuses none, and the same run twice. The shards of one complete split
    that cut a cell into source ranges are joined into one run, as `merge` joins them (results/shards.py)."""
    def is_pair(item: Any) -> bool:
        return isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], dict)

    if isinstance(runs, (str, os.PathLike)) or is_pair(runs):
        runs = [runs]
    loaded = [loaded for run in runs for loaded in ([run] if is_pair(run) else load_runs(run))]
    if not loaded:
        raise UserError("no run to report on")
    seen: set[str] = set()
    for manifest, _ in loaded:
        run_id = str(manifest.get("run_id"))
        if run_id in seen:
            raise UserError(f"run {run_id!r} given twice")
        seen.add(run_id)

    return join_split_shards(loaded)


def graph_records(manifests: Iterable[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Graph label -> its record in the manifests (`graphs[label]`: its table1, provenance, stand-in facts, ...),
    the first manifest's where several record it; a record that is no mapping is skipped."""
    records: dict[str, dict[str, Any]] = {}
    for manifest in manifests:
        for label, record in (manifest.get("graphs") or {}).items():
            if isinstance(record, dict):
                records.setdefault(str(label), record)
    return records


def label_rows(loaded: list[Run]) -> pd.DataFrame:
    """All rows with a `label` column: the variant, or "run-id/variant" where two runs share a graph and variant."""
    runs_per_pair: dict[tuple[str, str], set[str]] = {}
    for manifest, rows in loaded:
        for graph, variant in zip(rows["graph"], rows["variant"]):
            runs_per_pair.setdefault((graph, variant), set()).add(str(manifest["run_id"]))
    colliding = {variant for (graph, variant), run_ids in runs_per_pair.items() if len(run_ids) > 1}
    frames = []
    for manifest, rows in loaded:
        labelled = rows.copy()
        run_id = str(manifest["run_id"])
        labelled["label"] = [f"{run_id}/{v}" if v in colliding else v for v in labelled["variant"]]
        frames.append(labelled)
    frames = [frame for frame in frames if not frame.empty]
    if not frames:
        return pd.DataFrame(columns=[*ROW_FIELDS, "label"])
    return pd.concat(frames, ignore_index=True)


def _check_version(manifest: dict[str, Any], manifest_path: Path) -> None:
    version = schema_version(manifest)
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        raise UserError(f"{manifest_path}: schema_version: expected a positive integer, got {version!r}")
    if version > SCHEMA_VERSION:
        raise UserError(f"{manifest_path}: written in results schema version {version}; this sssp-bench reads "
                        f"versions up to {SCHEMA_VERSION}")


def _rows_frame(records: list[dict[str, Any]]) -> pd.DataFrame:
    rows = pd.DataFrame.from_records(records) if records else pd.DataFrame()
    for field in ROW_FIELDS:
        if field not in rows.columns:
            rows[field] = pd.Series([None] * len(rows), dtype=object)
    for field in NUMERIC_ROW_FIELDS:
        rows[field] = pd.to_numeric(rows[field], errors="coerce").astype(float)
    # True/False/None exactly: pandas would otherwise turn a column of booleans and nulls into anything.
    for field in ("certificate", "reference"):
        rows[field] = pd.Series([_tristate(value) for value in rows[field].tolist()], index=rows.index, dtype=object)
    variants = [
        str(variant) if isinstance(variant, str) and variant else str(implementation)
        for variant, implementation in zip(rows["variant"].tolist(), rows["implementation"].tolist())
    ]
    rows["variant"] = pd.Series(variants, index=rows.index, dtype=object)
    for field in ("graph", "implementation", "status", "phase"):
        rows[field] = pd.Series([str(value) for value in rows[field].tolist()], index=rows.index, dtype=object)
    return rows


def _tristate(value: Any) -> bool | None:
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    return None
