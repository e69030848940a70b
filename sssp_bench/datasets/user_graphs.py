"""Users' own graphs: a graph file the catalog does not list, read by the same parsers, checks and atomic write as
`fetch` (fetch.convert_and_store), into the dataset cache.

Two ways in:

    sssp-bench import my-graph.mtx [--name NAME] [--format F] [--directed/--undirected] [cleaning options]
        -> <datasets>/<NAME>.csr; a config then names it like a catalog graph (`- NAME`), `info NAME` describes it
    graphs: [{graph: data/my-graph.txt.gz, convert: {directed: false}}]      (in a config: a path)
        -> <datasets>/files/<stem>-<key>.csr, converted on first use; `key` hashes the file's content (sha256) and
           how it is read, so an edited file, or other options, make a new entry and never reuse a stale one

How a file is read (`Reading`): its format (from the name and first bytes when not given: formats.sniff_format),
the archive member to read (an archive of several files must say), and the conversion options (directed, and the
cleaning steps of formats.ConvertOptions). A SNAP edge list must be told whether it is directed.

The sidecar's provenance says where the graph came from: `collection: imported`, the source file, its sha256 and
size, the format, the options, when, and what the parser found (header, stats, warnings). A bad file is one line
naming the file (and line) with nothing written; an import under a name already taken by another graph is refused.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

from ..errors import UserError
from ..graph.csr import read_sidecar
from . import catalog, formats
from .fetch import convert_and_store

COLLECTION = "imported"
FILES_FOLDER = "files"  # <datasets>/files/: the graph files configs name by path, by content hash
NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]*")
# A name is a file name (<name>.csr, <name>.csr.json, the sources caches and temporaries beside them, which add up
# to ~100 characters), and file systems allow 255 bytes.
MAX_NAME_LENGTH = 150


@dataclass(frozen=True)
class Asking:
    """How to tell the user to give what a file does not say, where they give it: on the command line or in a
    config."""
    direction: str
    format: str


ON_THE_COMMAND_LINE = Asking("give --directed or --undirected", "give --format")
IN_A_CONFIG = Asking("give `convert: {directed: true}` (or false) in the config's graph entry",
                     "give `convert: {format: ...}` in the config's graph entry")


@dataclass(frozen=True)
class Reading:
    """How a user's graph file is read: all that decides what graph it converts to, besides its bytes."""
    format: str | None = None          # None: from the file's name and first bytes
    member: str | None = None          # the file inside an archive (a name or a glob); None: its one data file
    directed: bool | None = None       # None: the format's own (a SNAP edge list must be told)
    clean: dict[str, bool] = field(default_factory=dict)  # catalog.CLEAN_KEYS -> True

    def __post_init__(self) -> None:
        if self.format is not None and self.format not in formats.FORMATS:
            raise UserError(f"unknown graph format {self.format!r}, expected one of {', '.join(formats.FORMATS)}")
        unknown = sorted(set(self.clean) - catalog.CLEAN_KEYS)
        if unknown:
            raise UserError(f"unknown cleaning option {unknown[0]!r} (known: {', '.join(sorted(catalog.CLEAN_KEYS))})")

    @property
    def options(self) -> formats.ConvertOptions:
        return formats.ConvertOptions(directed=self.directed, **{key: True for key, on in self.clean.items() if on})

    def recorded(self) -> dict[str, Any]:
        """What the sidecar records of it (and what the cache key hashes)."""
        return {**asdict(self), "clean": {key: True for key, on in sorted(self.clean.items()) if on}}


@dataclass
class Imported:
    name: str
    path: Path
    status: str                        # "imported" or "already imported"
    warnings: list[str] = field(default_factory=list)


def import_graph(source: Path, datasets: Path, *, name: str | None = None, reading: Reading = Reading(),
                 force: bool = False, log: Callable[[str], None] = lambda message: None) -> Imported:
    """`sssp-bench import`: the graph file `source` into <datasets>/<name>.csr (name: the file's, without its
    format and compression suffixes). Again with the same file and reading: nothing to do."""
    source = Path(source).expanduser()
    _check_source(source)
    label = _data_label(source, reading.member)
    name = name or formats.graph_name(label)
    _check_name(name, source)
    target = datasets / f"{name}.csr"
    sha256 = file_sha256(source)
    if target.exists() and not force:
        provenance = read_sidecar(target).get("provenance", {})
        if _same_import(provenance, sha256, reading):
            return Imported(name, target, "already imported")
        was = (f"imported from {provenance.get('source_file')}" if provenance.get("collection") == COLLECTION
               else f"catalog graph {provenance['catalog_entry']}" if provenance.get("catalog_entry") else "a graph")
        raise UserError(f"{target} holds another graph ({was}); import under another --name, or give --force to "
                        "replace it")
    stored = _convert(source, target, name, reading, sha256, ON_THE_COMMAND_LINE)
    for warning in stored.warnings:
        log(f"{name}: warning: {warning}")
    return Imported(name, target, "imported", stored.warnings)


def graph_file(source: Path, datasets: Path, reading: Reading = Reading()) -> Path:
    """The cached CSR of a graph file a config names by path, converted on first use (see the module docstring)."""
    source = Path(source).expanduser()
    _check_source(source)
    sha256 = file_sha256(source)
    key = hashlib.sha256(json.dumps([sha256, reading.recorded()], sort_keys=True).encode()).hexdigest()[:16]
    stem = formats.graph_name(source.name)[:MAX_NAME_LENGTH - len(key) - 1]  # a file name's length is limited
    target = datasets / FILES_FOLDER / f"{stem}-{key}.csr"
    if target.exists() and _same_import(read_sidecar(target).get("provenance", {}), sha256, reading):
        return target
    _convert(source, target, formats.graph_name(_data_label(source, reading.member)), reading, sha256, IN_A_CONFIG)
    return target


def imported_graphs(datasets: Path) -> list[tuple[str, dict[str, Any]]]:
    """(name, sidecar) of every graph `import` put into `datasets`, by name."""
    found = []
    for path in sorted(datasets.glob("*.csr")):
        sidecar = read_sidecar(path)
        if (sidecar.get("provenance") or {}).get("collection") == COLLECTION:
            found.append((path.stem, sidecar))
    return found


def is_imported(name: str, datasets: Path) -> bool:
    path = datasets / f"{name}.csr"
    return (NAME_PATTERN.fullmatch(name) is not None and len(name) <= MAX_NAME_LENGTH and path.is_file()
            and (read_sidecar(path).get("provenance") or {}).get("collection") == COLLECTION)


@functools.lru_cache(maxsize=64)
def _hash_of(path: str, size: int, modified_ns: int) -> str:
    from .download import hash_file  # the download stack (requests) only once a file is read

    return hash_file(Path(path))


def file_sha256(path: Path) -> str:
    """The file's sha256, hashed once per process while its size and time stamp stay the same (a config's path
    is resolved before the run and again when its graph loads)."""
    try:
        status = path.stat()
        return _hash_of(str(path.resolve()), status.st_size, status.st_mtime_ns)
    except OSError as error:
        raise UserError(f"{path}: cannot read ({error.strerror or error})") from None


def _check_source(source: Path) -> None:
    if not source.exists():
        raise UserError(f"{source}: no such graph file")
    if not source.is_file():
        raise UserError(f"{source}: not a file")


def _data_label(source: Path, member: str | None) -> str:
    """How messages name the data: the file, or the archive and its member. Only an archive read without a member
    named is opened to find its one data file."""
    from . import archive

    if member is not None:
        return f"{source.name}:{member}"
    if formats.sniff_format(source.name) is not None:
        return source.name
    with archive.open_data_file(source) as (_, label):
        return label


def _check_name(name: str, source: Path) -> None:
    from ..graph import generators

    if len(name) > MAX_NAME_LENGTH:
        raise UserError(f"{source}: the name {name[:20]}... has {len(name)} characters; a graph's name is a file "
                        f"name, of at most {MAX_NAME_LENGTH} characters: pick a shorter --name")
    if not NAME_PATTERN.fullmatch(name):
        raise UserError(f"{source}: the name {name!r} is not a plain name (letters, digits, '.', '_', '+', '-'); "
                        "pick another --name")
    if catalog.find(name) is not None:
        raise UserError(f"{name!r} is a catalog graph: import a copy of it with `sssp-bench fetch "
                        f"{catalog.find(name).name} --from {source}` (checked against the catalog), or pick another "
                        "--name")
    if name.lower() in generators.GENERATORS:
        raise UserError(f"{name!r} is a generator's name, which a config would read as a spec; pick another --name")


def _same_import(provenance: dict[str, Any], sha256: str, reading: Reading) -> bool:
    return (provenance.get("collection") == COLLECTION and provenance.get("sha256") == sha256
            and provenance.get("reading") == reading.recorded())


def _convert(source: Path, target: Path, name: str, reading: Reading, sha256: str, asking: Asking):
    fmt = reading.format or formats.sniff_format(_data_label(source, reading.member))
    if fmt == "snap" and reading.directed is None:
        raise UserError(f"{source}: a SNAP edge list does not say whether it is directed: {asking.direction}")
    provenance = {
        "collection": COLLECTION, "source_file": str(source.resolve()), "sha256": sha256,
        "size": source.stat().st_size, "reading": reading.recorded(),
        "imported": datetime.now(timezone.utc).isoformat(timespec="seconds"),
    }
    return convert_and_store(source, reading.format, reading.options, target, name, provenance,
                             member=reading.member, check=lambda converted: converted.stats.get("warnings", []),
                             unknown_format=asking.format)
