"""The catalog of the papers' graphs (`catalog.yaml` beside this file): where each comes from and what it is.

`lookup(name)` accepts a graph's name or any alias, ignoring case; `entries(paper=...)` lists one paper's graphs.

A downloaded entry may name a `stand_in`: the generator spec of a synthetic graph of the same size and structure,
with a `stand_in_note` saying why it matches (vertices, arcs, degree shape, diameter class, weights). A config
opts into it per graph (`{graph: asia.osm, stand_in: auto}`); it runs only when the real graph is not fetched,
and the results and the report then say so (see datasets/resolve.py, run/runner.py, the report).
"""

from __future__ import annotations

import difflib
import functools
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import urlparse

import yaml

from .. import yamlfile
from ..graph.csr import read_sidecar
from .classes import GRAPH_CLASSES
from .formats import FORMATS
from ..errors import UserError

CATALOG_PATH = Path(__file__).with_name("catalog.yaml")
COLLECTIONS = ("dimacs9", "dimacs10", "snap", "suitesparse", "pace16", "generated")
PAPERS = {
    "hbf": "H-BF (Busato and Bombieri): Tables 1-3, Figure 9",
    "bfs4k": "BFS-4K (Busato and Bombieri): Tables 1-2",
    "course": "course project: Bellman-Ford and delta-stepping",
    "pardijkstra": "parDijkstra on the parallel bucket heap",
    "da2cf": "DA2CF compound-frontier Dijkstra",
    "compare": "for comparison with published Gunrock and GAP numbers",
}
CLEAN_KEYS = {"symmetrize", "drop_self_loops", "merge_parallel", "binarize", "drop_diagonal", "largest_component"}
PUBLISHED_KEYS = {"out_degree_mean", "out_degree_std", "out_degree_max", "diameter"}


@dataclass(frozen=True)
class Entry:
    name: str
    collection: str
    papers: tuple[str, ...]
    n: int
    m: int
    m_unit: str
    directed: bool
    weighted: bool
    checked: bool
    url: str | None = None
    format: str | None = None
    member: str | None = None
    group: str | None = None
    spec: str | None = None
    size: int | None = None
    sha256: str | None = None
    clean: dict[str, bool] = field(default_factory=dict)
    aliases: tuple[str, ...] = ()
    note: str = ""
    stand_in: str | None = None   # generator spec of a synthetic graph of the same size and structure
    stand_in_note: str = ""       # why that generator and those parameters match the real graph
    published: dict[str, float] = field(default_factory=dict)  # the real graph's Table 1 facts (PUBLISHED_KEYS)
    graph_class: str | None = None  # road, mesh, social, ... (classes.GRAPH_CLASSES); every entry of catalog.yaml
                                    # gives one (tests/test_recommendation.py checks)

    @property
    def arcs(self) -> int:
        """m as arcs: an undirected graph's edges count twice (a matrix's nonzeros are arcs already)."""
        return self.m * (2 if self.m_unit == "edges" and not self.directed else 1)

    def published_table1(self) -> dict[str, Any]:
        """What the catalog knows of the real graph's Table 1, in graph.describe's keys (the diameter as
        `diameter`: the published exact one, not describe's double-sweep bound)."""
        return {"n": self.n, "m": self.arcs, "directed": self.directed,
                "out_degree_mean": self.arcs / self.n if self.n else None, **self.published}

    @property
    def generated(self) -> bool:
        return self.collection == "generated"

    @property
    def file_name(self) -> str:
        """The downloaded file's name: the last part of its URL."""
        return PurePosixPath(urlparse(self.url).path).name if self.url else ""


_ENTRY_KEYS = set(Entry.__dataclass_fields__)


def _entry(raw: dict[str, Any], index: int) -> Entry:
    where = f"{CATALOG_PATH.name}: graphs[{index}] ({raw.get('name', '?')})"
    unknown = set(raw) - _ENTRY_KEYS
    if unknown:
        raise ValueError(f"{where}: unknown key {sorted(unknown)[0]!r}")
    values = dict(raw)
    values["papers"] = tuple(values.get("papers", ()))
    values["aliases"] = tuple(values.get("aliases", ()))
    values["clean"] = dict(values.get("clean", {}))
    values["published"] = dict(values.get("published", {}))
    entry = Entry(**values)
    if entry.collection not in COLLECTIONS:
        raise ValueError(f"{where}: collection must be one of {COLLECTIONS}")
    if set(entry.papers) - set(PAPERS):
        raise ValueError(f"{where}: unknown paper in {entry.papers}")
    if entry.generated != (entry.spec is not None) or entry.generated == (entry.url is not None):
        raise ValueError(f"{where}: a generated entry has a spec and no url; any other has a url and no spec")
    if not entry.generated and entry.format not in FORMATS:
        raise ValueError(f"{where}: format must be one of {FORMATS}")
    if set(entry.clean) - CLEAN_KEYS:
        raise ValueError(f"{where}: clean options must be among {sorted(CLEAN_KEYS)}")
    if entry.m_unit not in ("arcs", "edges", "nnz"):
        raise ValueError(f"{where}: m_unit must be arcs, edges or nnz")
    if entry.stand_in is not None and (entry.generated or not entry.stand_in_note):
        raise ValueError(f"{where}: a stand_in belongs to a downloaded entry and needs a stand_in_note saying why it fits")
    if set(entry.published) - PUBLISHED_KEYS:
        raise ValueError(f"{where}: published facts must be among {sorted(PUBLISHED_KEYS)}")
    if entry.graph_class is not None and entry.graph_class not in GRAPH_CLASSES:
        raise ValueError(f"{where}: graph_class must be one of {', '.join(GRAPH_CLASSES)}, got {entry.graph_class!r}")
    return entry


@functools.lru_cache(maxsize=1)
def load() -> dict[str, Any]:
    try:
        data = yamlfile.safe_load(CATALOG_PATH.read_text())  # a key given twice is refused
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        line = f":{mark.line + 1}" if mark else ""
        raise ValueError(f"{CATALOG_PATH}{line}: not valid YAML "
                         f"({getattr(error, 'problem', None) or str(error).splitlines()[0]})") from None
    return {"collections": data["collections"], "graphs": [_entry(raw, i) for i, raw in enumerate(data["graphs"])]}


def entries(paper: str | None = None) -> list[Entry]:
    if paper is not None and paper not in PAPERS:
        raise UserError(f"unknown paper {paper!r} (known: {', '.join(PAPERS)})")
    return [entry for entry in load()["graphs"] if paper is None or paper in entry.papers]


def _names() -> dict[str, Entry]:
    names: dict[str, Entry] = {}
    for entry in load()["graphs"]:
        for name in (entry.name, *entry.aliases):
            names[name.lower()] = entry
    return names


def find(name: str) -> Entry | None:
    return _names().get(name.lower())


def lookup(name: str) -> Entry:
    """The entry called `name` (or an alias); an unknown name is a UserError suggesting the closest ones."""
    entry = find(name)
    if entry is None:
        close = difflib.get_close_matches(name.lower(), _names(), n=3, cutoff=0.6)
        hint = f" (did you mean {', '.join(_names()[c].name for c in close)}?)" if close else ""
        raise UserError(f"{name!r} is not in the catalog{hint}; `sssp-bench list` shows the catalog")
    return entry


def is_fetched(entry: Entry, datasets: Path) -> bool:
    """True when <datasets>/<name>.csr exists and its sidecar says it was made from this entry."""
    path = datasets / f"{entry.name}.csr"
    return path.exists() and read_sidecar(path).get("provenance", {}).get("catalog_entry") == entry.name
