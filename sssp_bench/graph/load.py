"""From a config's graph entry to a CSRGraph: a generator spec, a fetched catalog name, an imported graph's name
(`sssp-bench import`), a `.csr` path, or a graph file's path (converted on first use and cached by content hash:
datasets/user_graphs.py; the entry's `convert` says how to read it).

Generated graphs are written once into `<datasets>/generated/` under their canonical spec and mapped from
there afterwards, so the 100 sources, every implementation and every later run see the same bytes.

Stand-ins: a config entry may allow a synthetic stand-in for a downloaded catalog graph (`stand_in: auto` or a
generator spec). `choose_graph` takes the real graph whenever it is fetched and the stand-in only when it is
not; the loaded graph then records `stand_in_for` (the catalog name) and `stand_in` (the spec), and keeps the
config's label, so results line up with the paper's tables while saying what actually ran.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..datasets import catalog
from . import generators
from .csr import CSRGraph, read_csr, read_sidecar, write_csr
from .describe import describe
from ..errors import GraphFormatError, UserError
from .weights import apply_weights


@dataclass
class LoadedGraph:
    label: str
    graph: CSRGraph          # with the config's weights applied
    path: Path               # the .csr file its topology lives in (the source cache sits beside it)
    origin: str              # "generated", "catalog", "imported", "file" or "stand-in"
    stand_in_for: str | None = None  # the catalog graph this synthetic graph replaces (None: the graph itself ran)
    stand_in: str | None = None      # the generator spec of that stand-in


def is_generator_spec(text: str) -> bool:
    return text.split(":", 1)[0] in generators.GENERATORS


def generated_path(spec: str, datasets: Path) -> Path:
    return datasets / "generated" / f"{generators.spec_filename(spec)}.csr"


def ensure_generated(spec: str, datasets: Path) -> Path:
    """The cached file of a generator spec, generating it first if it is missing or stale."""
    path = generated_path(spec, datasets)
    canonical = generators.canonical_spec(spec)
    if path.exists():
        provenance = read_sidecar(path).get("provenance", {})
        current = (canonical, generators.GENERATOR_VERSION)
        if (provenance.get("spec"), provenance.get("generator_version")) == current:
            return path  # same spec, same generator algorithm: the same bytes
    graph = generators.generate(spec)
    write_csr(graph, path, {"name": graph.name, **graph.meta, "table1": describe(graph)})
    return path


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
    if "/" in entry or as_path.is_file() or looks_like_graph_file(entry):
        from ..datasets import user_graphs

        return user_graphs.graph_file(as_path, datasets, user_graphs.Reading(**(reading or {}))), "file"
    catalog_entry = catalog.find(entry)
    if catalog_entry is not None:
        from ..datasets import fetch  # the download stack (requests) is only imported when a catalog graph is named

        if catalog_entry.generated:  # deterministic and local: made on first use
            return fetch.fetch(catalog_entry.name, datasets).path, "catalog"
        if catalog.is_fetched(catalog_entry, datasets):
            return datasets / f"{catalog_entry.name}.csr", "catalog"
        hint = (f", or allow its synthetic stand-in in the config: {{graph: {catalog_entry.name}, stand_in: auto}}"
                if catalog_entry.stand_in else "")
        raise UserError(f"graph {entry!r} is not fetched into {datasets}/ (run: sssp-bench fetch "
                        f"{catalog_entry.name}{hint})")
    from ..datasets.user_graphs import is_imported

    if is_imported(entry, datasets):
        return datasets / f"{entry}.csr", "imported"
    kinds = ", ".join(generators.GENERATORS)
    raise UserError(
        f"graph {entry!r}: not a generator spec (kinds: {kinds}), not a graph file, not in the catalog "
        f"(sssp-bench list shows it), and not imported into {datasets}/ (sssp-bench import FILE --name NAME)"
    )


def looks_like_graph_file(entry: str) -> bool:
    """Whether a name is a graph file's (a format's suffix, maybe compressed, or an archive's), not a graph's."""
    from ..datasets.archive import is_archive_name
    from ..datasets.formats import sniff_format

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
    path, origin = resolve_path(entry, datasets, reading)
    try:
        graph = read_csr(path, name=label)
    except GraphFormatError:
        if origin != "generated":
            raise
        path.unlink()  # a damaged cache file of ours is regenerated, not reported
        path, origin = ensure_generated(entry, datasets), "generated"
        graph = read_csr(path, name=label)
    return LoadedGraph(label, apply_weights(graph, weights), path, origin)
