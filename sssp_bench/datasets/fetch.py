"""`sssp-bench fetch NAME`: download (or import, or generate) a catalog graph, check it, convert it, store it.

    catalog entry -> download into <datasets>/downloads/ (size and sha256 checked, resumable)
                  -> unpack safely and stream the data file -> parse and clean -> check n and m
                  -> <datasets>/<name>.csr with a sidecar describing it (Table 1) and where it came from

Nothing is left half-written: the download is renamed into place only after its checks, and the CSR file (its
sidecar and original ids before it) only after it is complete (graph/csr.py: a killed writer's temporaries are
cleared by the next write). What a file's header declares is checked against the memory there is before the
parser allocates for it (graph/memory.py).

A mismatch with a catalog entry that was checked against the real file is an error; one with an entry not yet
checked (numbers from the collection's page) is a warning, printed and recorded.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable

import numpy as np

from .. import __version__
from . import archive, catalog, download, formats
from ..graph import describe
from ..graph.csr import temporary_path, write_csr
from ..graph.load import generate_checked
from ..graph.memory import ran_out
from ..errors import GraphFormatError, UserError
from ..jsonfile import read_json, write_json_atomic

RECORDED_HASHES = "recorded-hashes.json"


@dataclass
class Fetched:
    name: str
    path: Path
    status: str                         # "fetched", "generated" or "already fetched"
    warnings: list[str] = field(default_factory=list)


def recorded_hashes(datasets: Path) -> dict[str, dict]:
    path = datasets / RECORDED_HASHES
    return read_json(path, hint="; delete it to start afresh") if path.exists() else {}


def _record_hash(datasets: Path, entry: catalog.Entry, downloaded: download.Downloaded) -> None:
    hashes = recorded_hashes(datasets)
    hashes[entry.file_name] = {"sha256": downloaded.sha256, "size": downloaded.size, "url": downloaded.url,
                               "recorded": _now()}
    write_json_atomic(datasets / RECORDED_HASHES, hashes, sort_keys=True)


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def fetch(name: str, datasets: Path, *, mirror: str | None = None, from_file: Path | None = None,
          force: bool = False, progress: bool = True, log: Callable[[str], None] = lambda message: None) -> Fetched:
    entry = catalog.lookup(name)
    target = datasets / f"{entry.name}.csr"
    if not force and catalog.is_fetched(entry, datasets):
        return Fetched(entry.name, target, "already fetched")
    datasets.mkdir(parents=True, exist_ok=True)
    if entry.generated:
        if from_file is not None or mirror is not None:
            raise UserError(f"{entry.name} is generated ({entry.spec}); --from and --mirror do not apply")
        graph = generate_checked(entry.spec)
        provenance = {**graph.meta.get("provenance", {}), "catalog_entry": entry.name, "collection": "generated"}
        write_csr(graph, target, {"name": entry.name, "provenance": provenance, "table1": describe.describe(graph)})
        return Fetched(entry.name, target, "generated")

    raw_path = datasets / "downloads" / entry.file_name
    known = recorded_hashes(datasets).get(entry.file_name, {})
    sha256 = entry.sha256 or known.get("sha256")
    size = entry.size or known.get("size")
    if from_file is not None:
        downloaded = download.import_file(Path(from_file), raw_path, sha256=sha256, size=size)
    else:
        downloaded = download.download(entry.url, raw_path, sha256=sha256, size=size, mirror=mirror, progress=progress)
    if sha256 is None:
        _record_hash(datasets, entry, downloaded)
        log(f"{entry.name}: recorded sha256 {downloaded.sha256} ({downloaded.size:,} bytes): the catalog has no hash "
            "for this file; later downloads are checked against this one")

    def check(converted: formats.Converted) -> list[str]:
        warnings = check_against_catalog(entry, converted)
        if entry.checked and warnings:
            raise GraphFormatError(f"{raw_path}: {warnings[0]}; nothing was written")
        for warning in warnings:
            log(f"{entry.name}: warning: {warning}")
        return warnings

    options = formats.ConvertOptions(directed=entry.directed if entry.format == "snap" else None, **entry.clean)
    provenance = {
        "catalog_entry": entry.name, "collection": entry.collection, "url": downloaded.url,
        "file": entry.file_name, "member": entry.member, "sha256": downloaded.sha256, "size": downloaded.size,
        "clean": entry.clean, "fetched": _now(), "catalog_checked": entry.checked,
    }
    stored = convert_and_store(raw_path, entry.format, options, target, entry.name, provenance, member=entry.member,
                               check=check)
    return Fetched(entry.name, target, "fetched", stored.warnings)


@dataclass
class Stored:
    path: Path
    format: str
    label: str                          # the file (and archive member) as messages name it
    converted: "formats.Converted"
    warnings: list[str]


def convert_and_store(raw_path: Path, fmt: str | None, options: "formats.ConvertOptions", target: Path, name: str,
                      provenance: dict, *, member: str | None = None,
                      check: Callable[["formats.Converted"], list[str]] | None = None,
                      unknown_format: str = "give its format") -> Stored:
    """A graph file (compressed or not, or an archive's member) -> `target` (.csr) with its sidecar, which records
    `provenance` plus what the conversion found: format, header, stats, warnings, original ids (beside it in
    `<name>.ids.npy` when vertices were renumbered), and the Table 1 facts. What fetch does with a download and
    import with a user's file.

    `fmt` None: the format the file's name and first bytes suggest (formats.sniff_format); `unknown_format` says
    how to give it when they suggest none. `check(converted)` sees the graph before anything is written: it returns
    warnings, or raises. Every problem with the file is one line, and then nothing was written."""
    with archive.open_data_file(raw_path, member=member) as (stream, label):
        if fmt is None:
            fmt = formats.sniff_format(label, stream.peek(formats.SNIFF_BYTES)[: formats.SNIFF_BYTES])
            if fmt is None:
                raise GraphFormatError(f"{label}: cannot tell the graph format from the file's name; {unknown_format} "
                                       f"({', '.join(formats.FORMATS)})")
        converted = formats.convert_stream(stream, fmt, label, options, data_bytes=archive.plain_size(raw_path))
    warnings = check(converted) if check is not None else []
    # Every file is written under a temporary name and renamed in by write_csr, the .csr last (graph/csr.py)
    companions = []
    if converted.original_ids is not None:
        target.parent.mkdir(parents=True, exist_ok=True)
        ids_path = target.with_suffix(".ids.npy")
        companions.append((temporary_path(ids_path), ids_path))
    try:
        for temporary, _ in companions:
            with open(temporary, "wb") as out:
                np.save(out, converted.original_ids)
        recorded = {
            **provenance, "format": fmt, "header": converted.header, "stats": converted.stats,
            "original_ids": companions[0][1].name if companions else None, "sssp_bench_version": __version__,
            "warnings": warnings,
        }
        named = dataclasses.replace(converted.graph, name=name, meta={})
        write_csr(named, target, {"name": name, "provenance": recorded, "table1": describe.describe(named)},
                  companions=companions)
        if not companions:  # a graph replaced (--force) by one that keeps its ids: no stale ids beside it
            target.with_suffix(".ids.npy").unlink(missing_ok=True)
    except MemoryError as error:
        raise ran_out(label, error) from None
    finally:
        for temporary, _ in companions:
            temporary.unlink(missing_ok=True)
    return Stored(target, fmt, label, converted, warnings)


def check_against_catalog(entry: catalog.Entry, converted: "formats.Converted") -> list[str]:
    """What disagrees between the converted file and its catalog entry, as messages (empty when all agree)."""
    problems = []
    graph = converted.graph
    header_n = converted.header.get("n", graph.n)
    if header_n != entry.n:
        problems.append(f"the file has {header_n:,} vertices, the catalog expects {entry.n:,}")
    file_m = converted.header.get("m")
    if entry.m_unit == "nnz" and converted.header.get("symmetry", "general") != "general":
        file_m = converted.stats.get("entries_mirrored", file_m)  # the full matrix's nonzeros
    if entry.format == "snap":
        file_m = converted.stats.get("arcs_read", file_m)
    if file_m is not None and file_m != entry.m:
        problems.append(f"the file has m={file_m:,} ({entry.m_unit}), the catalog expects {entry.m:,}")
    if graph.directed != entry.directed:
        kind = "directed" if graph.directed else "undirected"
        problems.append(f"the file converts to a {kind} graph, the catalog says {'directed' if entry.directed else 'undirected'}")
    return problems

