"""Seeded synthetic graphs, named by a spec string: the graphs of the papers, rebuilt byte for byte from a seed.

    generate("rmat:n=3M,m=20M,seed=7")     a CSRGraph; the same spec, in any spelling, gives the same bytes
    parse_spec / canonical_spec / spec_filename     the spec checked, written out in full (the dataset cache
                                                    key), or as a file-name stem

The spec language (`spec`): kind[:key=value,...], every parameter with a default, a one-line SpecError for any
mistake. `sssp-bench list` shows each kind's description; `Generator.usage()` its defaults.

Generators (where they come from), one module per family
  drawn         random   GTGraph G(n,m): m arcs with uniform random endpoints (H-BF, BFS-4K random.2Mv.128Me)
                rmat     GTGraph R-MAT a,b,c,d = .45,.15,.15,.25: skewed degrees (H-BF rmat.3Mv.20Me, BFS-4K)
                kron     Graph500 Kronecker, A,B,C,D = .57,.19,.19,.05, 2^scale vertices, labels permuted
  structured    grid     2-D 4-neighbour grid, undirected: uniform low degree, diameter rows+cols-2 (course report)
                chain    a path of n vertices: diameter n-1, one vertex of parallelism per step (course report)
                star     one hub joined to n-1 leaves: the extreme degree imbalance (course report)
                da2cf-race  source -> n-2 middle vertices -> one sink, distinct sink weights: da2cf's race (Fig. 5)
  communities   k dense clusters plus sparse inter-cluster arcs (the course report's "clustered")
  road          road-like: jittered 2-D lattice, near-neighbour roads, mean degree ~2.5, weights ~ length
                (stands in for DIMACS USA-road in H-BF)
  direct_rows   dag      parBucketHeap's DAG: arc i->i+1 plus degree-1 random later targets, D = V (parDijkstra)
                complete complete undirected graph, by default weighted so that D = V (parDijkstra Fig. 6)
                fixed-degree  every vertex has exactly `degree` distinct random neighbours, weights 1..10 (da2cf)
  mesh          3-D finite-element mesh: lattice nodes coupled to 6/18/26 neighbours, `dofs` unknowns per node
                (stands in for H-BF's msdoor, a structural mesh of a door)
  snap_models   small-world  Watts-Strogatz ring of k neighbours a side, links rewired with probability p (BFS-4K)
                forest-fire  Leskovec forest fire: each new vertex burns from a random ambassador (BFS-4K)

A new generator is a module with `GENERATORS = [generator(name, description, parameters, build, *checks)]`
(see `common`) and one line in `_FAMILIES` below.

Conventions every generator follows
  * Weights are int32, uniform in [wmin, wmax) unless the generator says otherwise (road: proportional to
    length; dag/complete with chain_shortest: skip arcs cost the chain they bypass plus a uniform extra).
    Defaults are 1..100 (wmin=1, wmax=101), fixed-degree 1..10 (wmin=1, wmax=11) as in da2cf, road 1..1000;
    da2cf-race fixes its weights (1 into the middle, a seeded permutation of 1..n-2 out of it).
  * Undirected graphs store every edge as two arcs carrying the same weight.
  * Randomness is counter-based (`graph.rng`): a number depends only on its stream and index, so threads and
    chunks give byte-identical graphs. CSR is built by counting sort (`graph.build`), arcs keeping their
    generation order within a row.
"""

from __future__ import annotations

from typing import Any

from ... import __version__
from ...errors import SpecError
from ..csr import CSRGraph
from . import communities, direct_rows, drawn, mesh, road, snap_models, structured
from .mesh import MESH_NEIGHBOURS, mesh_half_stencil
from .spec import Generator, Param, canonical_from_params, resolve_params, split_spec

# Bump whenever any generator's output for the same spec changes (a new sampling cut-off, another stream...),
# so a cached graph made by an older algorithm can be told apart (it is in every graph's provenance).
GENERATOR_VERSION = 1

# The registry, in the order `sssp-bench list` shows it.
_FAMILIES = [drawn, structured, communities, road, direct_rows, mesh, snap_models]

GENERATORS: dict[str, Generator] = {
    generator.name: generator for family in _FAMILIES for generator in family.GENERATORS
}


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """'rmat:n=3M,m=20M,seed=7' -> ('rmat', {every parameter of rmat, defaults filled in, typed}).

    Unknown kind, unknown or repeated key, malformed pair, wrong type or out-of-range value => SpecError.
    """
    kind, pairs = split_spec(spec, "generator", "rmat:n=3000000,m=20000000,seed=7")
    where = f"generator spec {spec!r}"
    if kind not in GENERATORS:
        raise SpecError(f"{where}: unknown generator {kind!r} (known: {', '.join(sorted(GENERATORS))})")
    generator = GENERATORS[kind]
    params = resolve_params(kind, pairs, generator.parameters, where)
    problem = generator.check(params) if generator.check else None
    if problem:
        raise SpecError(f"{where}: {problem}")
    return kind, params


def canonical_spec(spec: str) -> str:
    """The spec with every parameter written out, sorted: one string per graph, whatever the spelling."""
    return canonical_from_params(*parse_spec(spec))


def spec_filename(spec: str) -> str:
    """A file-name stem for the graph (the canonical spec, with ':' which Windows refuses replaced by '_').

    Values are only numbers and booleans, so the rest (letters, digits, '.', ',', '=', '-', '_') is safe.
    """
    return canonical_spec(spec).replace(":", "_", 1)


def generate(spec: str) -> CSRGraph:
    """Build the graph a spec names; the same spec (in any spelling) gives byte-identical arrays."""
    kind, params = parse_spec(spec)
    row_offsets, column_ids, weights, directed = GENERATORS[kind].build(params)
    provenance = {
        "generator": kind,
        "params": params,
        "spec": canonical_from_params(kind, params),
        "generator_version": GENERATOR_VERSION,
        "sssp_bench_version": __version__,
    }
    return CSRGraph(row_offsets, column_ids, weights, directed, spec.strip(), {"provenance": provenance})


__all__ = [
    "GENERATORS",
    "GENERATOR_VERSION",
    "MESH_NEIGHBOURS",
    "Generator",
    "Param",
    "canonical_spec",
    "generate",
    "mesh_half_stencil",
    "parse_spec",
    "spec_filename",
]
