"""Records: the runs behind a measured report, kept beside it, so that anyone can derive the report again.

A record folder (`experiments/<paper>/measured/<date>-<device>-<what>/`) holds, for each run it is made of:

- `manifest-<run>.json`: the run's manifest, byte for byte;
- `rows-<run>.jsonl.gz`: its rows.jsonl, byte for byte, gzip-compressed (no name or time in the gzip header, so the
  same rows always compress to the same bytes);
- `traces-<run>/power/*.csv`: the power traces its energy rows name (results/energy.py), when it measured energy;

and `record.json` (the record's schema version, the runs in the report's order with their files, the command that
made it, when) and the report as `sssp-bench report` writes it from those copies: report.md, report.csv,
recommendations.csv, claims.csv and energy.csv where the runs have claims or energy, and the plots as SVG (the
PNGs are left out; report.md links the SVGs). `<run>` is the run id, made safe for a file name (results/schema.py's
safe_name).

`make_record` (`sssp-bench record RUN... --into FOLDER`) makes one; `refresh_record` (`sssp-bench record --refresh
FOLDER`) writes its report again from the rows it keeps, with the current report code, so a change to the report
shows up as a diff of the record's report.md; `sssp-bench report FOLDER` reads a record's runs as it reads run
folders. Both write the whole folder under a temporary name beside it and rename it into place last: a record is
never half-written.
"""

from __future__ import annotations

import datetime as _datetime
import fnmatch
import gzip
import os
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from ..errors import UserError
from ..jsonfile import read_json, write_json_atomic
from .schema import safe_name
from .load import COMPRESSED_ROWS_FILE, Run, load_run, load_run_files, run_folder
from .schema import MANIFEST_FILE, ROWS_FILE

RECORD_FILE = "record.json"
RECORD_VERSION = 1

# A run's status that says it did not end (results/schema.py), and what that means for a record of it.
UNFINISHED = {
    "running": "running (its manifest was never closed: it is still running, or was killed)",
    "interrupted": "interrupted",
    "incomplete": "incomplete (a merge that lacks a shard's cells)",
}

# What `sssp-bench report` writes into a folder (report/__init__.py's write_report): a refresh replaces these and
# keeps every other file (notes, the printed output of `compare`, ...).
REPORT_FILE_PATTERNS = (
    "report.md", "report.csv", "claims.csv", "recommendations.csv", "energy.csv", "speedup.png", "speedup.svg",
    "figure-*.png", "figure-*.svg", "power-*.png", "power-*.svg",
)


@dataclass(frozen=True)
class RecordedRun:
    """One run of a record: its id and the names of its files inside the record folder."""
    run_id: str
    manifest: str
    rows: str
    traces: str | None  # the folder its power traces' paths are relative to; None when it has none


def is_record(path: str | os.PathLike[str]) -> bool:
    """Whether `path` is a record folder (it holds record.json)."""
    return Path(path).is_dir() and (Path(path) / RECORD_FILE).is_file()


def read_record(folder: str | os.PathLike[str]) -> tuple[dict[str, Any], list[RecordedRun]]:
    """record.json of a record folder, and its runs. A malformed record.json raises a `UserError` naming the key."""
    folder = Path(folder)
    record_path = folder / RECORD_FILE
    if not record_path.is_file():
        raise UserError(f"{folder}: not a record folder (no {RECORD_FILE})")
    record = read_json(record_path)
    if not isinstance(record, dict):
        raise UserError(f"{record_path}: expected a JSON object, got {type(record).__name__}")
    version = record.get("schema_version")
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        raise UserError(f"{record_path}: schema_version: expected a positive integer, got {version!r}")
    if version > RECORD_VERSION:
        raise UserError(f"{record_path}: written in record schema version {version}; this sssp-bench reads versions "
                        f"up to {RECORD_VERSION}")
    entries = record.get("runs")
    if not isinstance(entries, list) or not entries:
        raise UserError(f"{record_path}: runs: expected a non-empty list of runs")
    runs = []
    for position, entry in enumerate(entries):
        where = f"{record_path}: runs[{position}]"
        if not isinstance(entry, dict):
            raise UserError(f"{where}: expected an object with run_id, manifest, rows and traces")
        names: dict[str, str | None] = {}
        for key in ("run_id", "manifest", "rows", "traces"):
            value = entry.get(key)
            if key == "traces" and value is None:
                names[key] = None
            elif not isinstance(value, str) or not value:
                raise UserError(f"{where}.{key}: expected a non-empty string, got {value!r}")
            elif key != "run_id" and not _inside(value):
                raise UserError(f"{where}.{key}: expected a file name inside the record folder, got {value!r}")
            else:
                names[key] = value
        runs.append(RecordedRun(str(names["run_id"]), str(names["manifest"]), str(names["rows"]), names["traces"]))
    seen = [run.run_id for run in runs]
    for run_id in seen:
        if seen.count(run_id) > 1:
            raise UserError(f"{record_path}: runs: run {run_id!r} is listed twice")
    return record, runs


def load_record(folder: str | os.PathLike[str]) -> list[tuple[Run, Path]]:
    """Each run a record keeps, as load_run returns one, with the folder its power traces' paths are relative to."""
    folder = Path(folder)
    _, recorded = read_record(folder)
    loaded = []
    for run in recorded:
        manifest, rows = load_run_files(folder / run.manifest, folder / run.rows, run.run_id)
        if str(manifest["run_id"]) != run.run_id:
            raise UserError(f"{folder / run.manifest}: run_id is {manifest['run_id']!r}, but {RECORD_FILE} names "
                            f"it {run.run_id!r}")
        loaded.append(((manifest, rows), folder / run.traces if run.traces else folder))
    return loaded


def make_record(
    run_paths: Sequence[str | os.PathLike[str]],
    into: str | os.PathLike[str],
    *,
    replace: bool = False,
    unfinished: bool = False,
    command: str | None = None,
    log: Callable[[str], None] | None = None,
) -> dict[str, Path]:
    """A record folder `into` made of these run folders (in this order, the report's), with its report; the paths of
    the report files written, as write_report returns them. An existing folder that is not empty is refused unless
    `replace` (then it is replaced whole, once the new record is complete); a run that did not end complete is
    refused unless `unfinished` (its report then says so)."""
    if not run_paths:
        raise UserError("no run folder given")
    target = Path(into)
    _clear_stale_temporaries(target)
    folders = []
    for path in run_paths:
        if is_record(path):
            raise UserError(f"{path}: a record folder, not a run folder (give the run folders it was made of)")
        folders.append(run_folder(path))
    runs = [load_run(folder) for folder in folders]
    seen: set[str] = set()
    for folder, (manifest, _) in zip(folders, runs):
        if str(manifest["run_id"]) in seen:
            raise UserError(f"run {manifest['run_id']!r} given twice")
        seen.add(str(manifest["run_id"]))
        status = manifest.get("status")
        if status in UNFINISHED and not unfinished:
            raise UserError(f"{folder}: the run is {UNFINISHED[status]}: finish it with `sssp-bench run CONFIG "
                            f"--resume {folder}`, or record it as it is with --unfinished")
    _check_target(target, replace, folders)
    for manifest, _ in runs:
        changes = (((manifest.get("provenance") or {}).get("git") or {}).get("package_changes") or {}).get("count")
        if isinstance(changes, int) and changes > 0 and log:
            log(f"warning: run {manifest['run_id']} ran uncommitted changes to {changes} package file(s): its "
                "report's Provenance says these numbers are not from any commit")

    def build(staging: Path) -> dict[str, Path]:
        entries = [_copy_run(folder, manifest, rows, staging) for folder, (manifest, rows) in zip(folders, runs)]
        write_json_atomic(staging / RECORD_FILE, {
            "schema_version": RECORD_VERSION, "runs": entries, "command": command, "created": _now(),
        })
        return _write_report(staging)

    return _build_in_place_of(target, build)


def refresh_record(folder: str | os.PathLike[str]) -> dict[str, Path]:
    """The record's report written again from the runs it keeps, with this sssp-bench's report code; every other
    file of the folder is kept. Returns the report files' paths."""
    target = Path(folder)
    _clear_stale_temporaries(target)
    record, _ = read_record(target)
    load_record(target)  # refused here, before anything is written, when a file it names is missing or damaged

    def build(staging: Path) -> dict[str, Path]:
        for entry in sorted(target.iterdir()):
            if entry.name == RECORD_FILE or _is_report_file(entry.name):
                continue
            if entry.is_dir():
                shutil.copytree(entry, staging / entry.name)
            else:
                shutil.copy2(entry, staging / entry.name)
        write_json_atomic(staging / RECORD_FILE, {**record, "refreshed": _now()})
        return _write_report(staging)

    return _build_in_place_of(target, build)


def _copy_run(folder: Path, manifest: dict[str, Any], rows: Any, staging: Path) -> dict[str, Any]:
    """One run's manifest, rows (compressed) and power traces copied into the record; its record.json entry."""
    run_id = str(manifest["run_id"])
    stem = safe_name(run_id)
    manifest_name, rows_name = f"manifest-{stem}.json", f"rows-{stem}.jsonl.gz"
    shutil.copyfile(folder / MANIFEST_FILE, staging / manifest_name)
    if (folder / ROWS_FILE).is_file():
        content = (folder / ROWS_FILE).read_bytes()
    else:
        content = gzip.decompress((folder / COMPRESSED_ROWS_FILE).read_bytes())  # load_run read it already
    # mtime 0 and no file name: the same rows give the same bytes, wherever and whenever they are recorded.
    with open(staging / rows_name, "wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as out:
        out.write(content)
    traces_name = None
    named = rows.loc[rows["phase"] == "energy", "power_trace"].tolist() if "power_trace" in rows else []
    for trace in dict.fromkeys(name for name in named if isinstance(name, str) and name):
        source = folder / trace
        if not _inside(trace) or not source.is_file():
            continue  # a trace the run's own report would not find either
        traces_name = f"traces-{stem}"
        destination = staging / traces_name / trace
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, destination)
    return {"run_id": run_id, "manifest": manifest_name, "rows": rows_name, "traces": traces_name}


def _write_report(staging: Path) -> dict[str, Path]:
    """The report of the record in `staging`, from its own copies, written there: SVG plots only."""
    import matplotlib

    from ..report import build_report, write_report

    # A fixed salt makes the SVGs' element ids the same on every refresh, so unchanged plots leave no diff.
    with matplotlib.rc_context({"svg.hashsalt": "sssp-bench-record"}):
        written = write_report(build_report([staging]), staging)
    for path in staging.glob("*.png"):
        path.unlink()
    return {key: path for key, path in written.items() if path.suffix != ".png"}


def _build_in_place_of(target: Path, build: Callable[[Path], dict[str, Path]]) -> dict[str, Path]:
    """`build` run on an empty folder beside `target`, which then takes `target`'s place (an existing one is
    removed only after). Returns build's paths, moved to `target`."""
    parent = target.parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise UserError(f"cannot make {parent}: {error}") from None
    staging = parent / f".{target.name}.{os.getpid()}.tmp"
    retired = parent / f".{target.name}.{os.getpid()}.old"
    try:
        staging.mkdir()
        written = build(staging)
        if target.exists():
            os.rename(target, retired)
        os.rename(staging, target)
    except OSError as error:
        shutil.rmtree(staging, ignore_errors=True)
        if retired.exists() and not target.exists():
            os.rename(retired, target)
        raise UserError(f"cannot write the record {target}: {error}") from None
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    shutil.rmtree(retired, ignore_errors=True)
    return {key: target / path.relative_to(staging) for key, path in written.items()}


def _check_target(target: Path, replace: bool, run_folders: list[Path]) -> None:
    if target.exists() and not target.is_dir():
        raise UserError(f"{target}: exists and is not a folder")
    resolved = target.resolve()
    for folder in run_folders:
        inner = folder.resolve()
        if resolved == inner or resolved in inner.parents or inner in resolved.parents:
            raise UserError(f"{target}: a record cannot be made in, around or inside a run folder it records "
                            f"({folder})")
    if target.is_dir() and any(target.iterdir()) and not replace:
        raise UserError(f"{target}: exists and is not empty (--replace makes the record again in its place)")


def _clear_stale_temporaries(target: Path) -> None:
    """Remove the temporary folders beside `target` of an earlier record or refresh whose process is gone (killed
    mid-write); a record it had moved aside and not yet replaced goes back to its place."""
    parent, name = target.parent, target.name
    for suffix in ("old", "tmp"):
        for stale in parent.glob(f".{name}.*.{suffix}"):
            pid = stale.name[len(name) + 2:-len(suffix) - 1]
            if not pid.isdigit() or _process_alive(int(pid)):
                continue
            if suffix == "old" and not (parent / name).exists():
                os.rename(stale, parent / name)
            else:
                shutil.rmtree(stale, ignore_errors=True)


def _process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _is_report_file(name: str) -> bool:
    return any(fnmatch.fnmatchcase(name, pattern) for pattern in REPORT_FILE_PATTERNS)


def _inside(name: str) -> bool:
    """Whether `name` is a relative path that stays inside its folder (no absolute path, no '..')."""
    path = PurePosixPath(name)
    return bool(name) and "\\" not in name and not path.is_absolute() and ".." not in path.parts


def _now() -> str:
    return _datetime.datetime.now(_datetime.timezone.utc).isoformat(timespec="seconds")
