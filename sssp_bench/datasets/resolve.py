"""From a config's graph entry to a CSRGraph: a generator spec, a fetched catalog name, an imported graph's name
(`sssp-bench import`), a `.csr` path, or a graph file's path (converted on first use and cached by content hash:
datasets/user_graphs.py; the entry's `convert` says how to read it).

The datasets layer resolves names and paths to a `.csr` file; generated graphs are graph/load.py's (made once
into `<datasets>/generated/`), and the graph itself is read by graph/csr.py.

Stand-ins: a config entry may allow a synthetic stand-in for a downloaded catalog graph (`stand_in: auto` or a
generator spec). `choose_graph` takes the real graph whenever it is fetched and the stand-in only when it is
not; the loaded graph then records `stand_in_for` (the catalog name) and `stand_in` (the spec), and keeps the
config's label, so results line up with the paper's tables while saying what actually ran.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from . import catalog
from ..errors import UserError
from ..graph import generators
from ..graph.csr import CSRGraph, read_csr
from ..graph.load import ensure_generated, is_generator_spec, read_generated
from ..graph.weights import apply_weights


@dataclass
class LoadedGraph:
    label: str
    graph: CSRGraph          # with the config's weights applied
    path: Path               # the .csr file its topology lives in (the source cache sits beside it)
    origin: str              # "generated", "catalog", "imported", "file" or "stand-in"
    stand_in_for: str | None = None  # the catalog graph this synthetic graph replaces (None: the graph itself ran)
    stand_in: str | None = None      # the generator spec of that stand-in


def resolve_path(entry: str, datasets: Path, reading: dict | None = None) -> tuple[Path, str]:
    """Where the graph named by `entry` lives, and how it got there: "generated", "catalog", "imported" or "file".
    `reading` (a config entry's `convert`: format, member, directed, cleaning options) says how a graph file that
    is not a `.csr` is read."""
    if is_generator_spec(entry):
        return ensure_generated(entry, datasets), "generated"
    as_path = Path(entry)
    if as_path.suffix == ".csr":
        if not as_path.exists():
            raise UserError(f"{entry}: no such graph file")
        return as_path, "file"
    if "/" in entry or _is_file(as_path) or looks_like_graph_file(entry):
        from . import user_graphs

        return user_graphs.graph_file(as_path, datasets, user_graphs.Reading(**(reading or {}))), "file"
    catalog_entry = catalog.find(entry)
    if catalog_entry is not None:
        if catalog.is_fetched(catalog_entry, datasets):  # no download stack (requests) for a graph already here
            return datasets / f"{catalog_entry.name}.csr", "catalog"
        if catalog_entry.generated:  # deterministic and local: made on first use
            from . import fetch

            return fetch.fetch(catalog_entry.name, datasets).path, "catalog"
        hint = (f", or allow its synthetic stand-in in the config: {{graph: {catalog_entry.name}, stand_in: auto}}"
                if catalog_entry.stand_in else "")
        raise UserError(f"graph {entry!r} is not fetched into {datasets}/ (run: sssp-bench fetch "
                        f"{catalog_entry.name}{hint})")
    from .user_graphs import is_imported

    if is_imported(entry, datasets):
        return datasets / f"{entry}.csr", "imported"
    kinds = ", ".join(generators.GENERATORS)
    raise UserError(
        f"graph {entry!r}: not a generator spec (kinds: {kinds}), not a graph file, not in the catalog "
        f"(sssp-bench list shows it), and not imported into {datasets}/ (sssp-bench import FILE --name NAME)"
    )


def _is_file(path: Path) -> bool:
    try:
        return path.is_file()
    except OSError:  # a name longer than a file name may be, say: no file
        return False


def looks_like_graph_file(entry: str) -> bool:
    """Whether a name is a graph file's (a format's suffix, maybe compressed, or an archive's), not a graph's."""
    from .archive import is_archive_name
    from .formats import sniff_format

    return sniff_format(entry) is not None or is_archive_name(entry)


def choose_graph(entry: str, datasets: Path, stand_in: str | None = None,
                 force_stand_in: bool = False) -> tuple[str, str | None]:
    """(what to load, the catalog name it stands in for or None): the real graph whenever it is fetched, the
    stand-in spec only when the real graph is not (or when `force_stand_in`, to resume a run that used it)."""
    if stand_in is None or is_generator_spec(entry):
        return entry, None
    catalog_entry = catalog.find(entry)
    if catalog_entry is None or catalog_entry.generated:
        return entry, None
    if catalog.is_fetched(catalog_entry, datasets) and not force_stand_in:
        return entry, None
    return stand_in, catalog_entry.name


def load_graph(entry: str, label: str, weights, datasets: Path, stand_in: str | None = None,
               force_stand_in: bool = False, reading: dict | None = None) -> LoadedGraph:
    """The graph `entry` names (or its stand-in, see `choose_graph`), with `weights` applied, named `label`;
    `reading` as resolve_path takes it."""
    chosen, stand_in_for = choose_graph(entry, datasets, stand_in, force_stand_in)
    loaded = _load(chosen, label, weights, datasets, reading)
    if stand_in_for is not None:
        loaded.origin, loaded.stand_in_for, loaded.stand_in = "stand-in", stand_in_for, chosen
    return loaded


def _load(entry: str, label: str, weights, datasets: Path, reading: dict | None = None) -> LoadedGraph:
    if is_generator_spec(entry):
        path, graph = read_generated(entry, datasets, name=label)  # a damaged cache file of ours is made again
        origin = "generated"
    else:
        path, origin = resolve_path(entry, datasets, reading)
        graph = read_csr(path, name=label)
    return LoadedGraph(label, apply_weights(graph, weights), path, origin)
