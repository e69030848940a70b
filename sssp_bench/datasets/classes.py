"""Graph classes: what kind of graph a graph is, in a few words a user can match to their own graph, so the report
can say which implementation to pick "for graphs like theirs" (report section "Which variant to pick") and an
implementation can say which kinds of graph it is meant for (impls/base.py `recommended_for`).

The classes (GRAPH_CLASSES) are coarse on purpose: they follow what decides which SSSP or BFS algorithm wins, the
degree distribution and the hop diameter, not where a graph comes from.

Where a graph's class comes from (`graph_class`, from the graph's record in a run's manifest, so that runs and
records made before classes existed get one too):

1. a stand-in (`stand_in_for`): the class of the real graph it stands for, from the catalog (a stand-in is chosen
   to have that graph's structure; hugetrace-00000's road-generator stand-in is a mesh, as hugetrace is);
2. a catalog graph (`provenance.catalog_entry`, or a label that is a catalog name where the record says nothing
   of where the graph came from): the catalog entry's `graph_class` (catalog.yaml; every entry has one);
3. a generated graph: the class of its generator (GENERATOR_CLASSES), from `provenance.generator` or the kind of
   `provenance.spec`;
4. anything else (a graph file a config names by path, `sssp-bench import`): unknown (None). Nothing in its
   file says what it is; an implementation that declares `recommended_for` is then not recommended on it.

This module imports nothing of the run stage or the implementations; the catalog is read only when asked.
"""

from __future__ import annotations

from typing import Any

GRAPH_CLASSES: dict[str, str] = {
    "road": "road networks: out-degree about 1 to 4, hop diameter in the hundreds to tens of thousands, weights "
            "that are lengths (DIMACS 9 and PACE 2016 roads, OpenStreetMap, roadNet-CA; the `road` generator)",
    "mesh": "meshes, lattices and the sparse matrices of physical models: near-uniform degree, a large diameter "
            "for their size (DIMACS 10 meshes, SuiteSparse FEM, circuit and KKT matrices; the `grid` and `mesh` "
            "generators)",
    "social": "real social, web, communication, citation and co-purchase networks: heavy-tailed degrees, a small "
              "diameter (SNAP, LAW, co-authorship graphs)",
    "synthetic-power-law": "synthetic heavy-tailed graphs: R-MAT, Graph500 Kronecker, forest fire (the `rmat`, "
                           "`kron` and `forest-fire` generators)",
    "random": "synthetic graphs of near-uniform degree and a small diameter: G(n,m), fixed out-degree, "
              "small-world (the `random`, `fixed-degree` and `small-world` generators)",
    "structured": "graphs built to test one extreme: a chain, a star, a DAG of diameter V, complete graphs, "
                  "clusters, da2cf's race (the course report's and the papers' constructions)",
}
"""Every class, with what it holds (the report quotes these)."""

GENERATOR_CLASSES: dict[str, str] = {
    "random": "random",
    "rmat": "synthetic-power-law",
    "kron": "synthetic-power-law",
    "forest-fire": "synthetic-power-law",
    "small-world": "random",
    "fixed-degree": "random",
    "grid": "mesh",
    "mesh": "mesh",
    "road": "road",
    "chain": "structured",
    "star": "structured",
    "da2cf-race": "structured",
    "communities": "structured",
    "dag": "structured",
    "complete": "structured",
}
"""The class of each generator's graphs (graph/generators; a test checks every generator has one)."""


def generator_class(spec_or_kind: Any) -> str | None:
    """The class of a generator's graphs, from its kind ("rmat") or a spec ("rmat:n=1000,m=8000"); None for an
    unknown or missing one."""
    if not isinstance(spec_or_kind, str) or not spec_or_kind:
        return None
    return GENERATOR_CLASSES.get(spec_or_kind.split(":", 1)[0].strip())


def catalog_class(name: Any) -> str | None:
    """The `graph_class` of the catalog entry called `name` (or an alias); None where the catalog has no such entry."""
    if not isinstance(name, str) or not name:
        return None
    from .catalog import find  # the catalog's YAML is read once, on first use

    entry = find(name)
    return entry.graph_class if entry is not None else None


def graph_class(label: str, record: dict[str, Any] | None) -> tuple[str | None, str]:
    """(the class, where it came from) of the graph a run labelled `label`, from its record in the run's manifest
    (`graphs[label]`; None or {} where the manifest has none): see the module docstring for the order. The second
    item says how it was found ("catalog", "catalog: stand-in for NAME", "generator rmat") or, with a None class,
    why none was ("a graph file: no class recorded")."""
    record = record if isinstance(record, dict) else {}
    provenance = record.get("provenance") if isinstance(record.get("provenance"), dict) else {}
    real = record.get("stand_in_for")
    if isinstance(real, str) and real:
        found = catalog_class(real)
        if found:
            return found, f"catalog: stand-in for {real}"
        spec = record.get("stand_in") or provenance.get("spec")
        found = generator_class(spec)
        if found:
            return found, f"generator {str(spec).split(':', 1)[0]} (stand-in for {real})"
    # the label stands for the catalog name only where nothing says where the graph came from (a hand-made record):
    # an imported file may be named after a catalog graph without being it
    bare = not provenance and not record.get("origin")
    for name in (provenance.get("catalog_entry"), label if bare else None):
        found = catalog_class(name)
        if found:
            return found, "catalog"
    for kind in (provenance.get("generator"), provenance.get("spec")):
        found = generator_class(kind)
        if found:
            return found, f"generator {str(kind).split(':', 1)[0]}"
    found = generator_class(label) if ":" in str(label) else None  # a spec used as the label
    if found:
        return found, f"generator {str(label).split(':', 1)[0]}"
    if provenance.get("source_file") or record.get("origin") in ("file", "imported"):
        return None, "a graph file: nothing records its class"
    return None, "no catalog entry or generator recorded"
