"""Generated graphs in the dataset cache: a generator spec -> its `.csr` file, made once and mapped afterwards.

Generated graphs are written once into `<datasets>/generated/` under their canonical spec and mapped from
there afterwards, so the 100 sources, every implementation and every later run see the same bytes. A spec
whose graph cannot fit in memory is refused before generating (graph.memory).

This module knows graphs only. What a config's graph entry names (a catalog graph, an imported graph, a graph
file's path, a stand-in) is the datasets layer's to resolve, to a `.csr` file: datasets/resolve.py.
"""

from __future__ import annotations

from pathlib import Path

from . import generators
from .csr import CSRGraph, read_csr, read_sidecar, write_csr
from .describe import describe
from .memory import check_spec_fits, ran_out
from ..errors import GraphFormatError


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
    graph = generate_checked(spec)
    write_csr(graph, path, {"name": graph.name, **graph.meta, "table1": describe(graph)})
    return path


def generate_checked(spec: str) -> CSRGraph:
    """generators.generate, after checking that the spec's graph fits in memory; running out anyway is one line."""
    check_spec_fits(spec)
    try:
        return generators.generate(spec)
    except MemoryError as error:
        raise ran_out(f"generator spec {spec!r}", error) from None


def read_generated(spec: str, datasets: Path, name: str | None = None) -> tuple[Path, CSRGraph]:
    """The graph of a generator spec, mapped from the cache (generated first if missing or stale); a damaged
    cache file of ours is generated again, not reported."""
    path = ensure_generated(spec, datasets)
    try:
        return path, read_csr(path, name=name)
    except GraphFormatError:
        path.unlink()
        path = ensure_generated(spec, datasets)
        return path, read_csr(path, name=name)
