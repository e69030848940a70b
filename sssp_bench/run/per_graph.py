"""Per-graph work done once and shared: each source's hop depth (the roofline's (d)) and the reference distances
the sampled sources are checked against, cached beside the graph so that shards, Dask tasks and reruns of a config
read them instead of computing them again.

Where: a folder beside the graph's `.csr` in the dataset cache, `<graph>.csr.per-graph/`. What:

- `digest.json`: the SHA-256 of the `.csr` file's bytes, with the file's size, mtime and inode it was taken at (the
  file is hashed again only when one of them changes: a graph is replaced by a rename, never edited in place).
- `hops-<key>.json`: hop depth, reached vertices and reached arcs per source (roofline.hop_depths); the key hashes
  the graph's digest and the sources (the weights do not change a BFS).
- `ref-<key>-<kind>-s<source>.npy`: one source's reference distances (verify.reference_distances, or the config's
  reference implementation); the key hashes the graph's digest, the weight rule (canonical, `keep` for the graph's
  own), the reference (`auto` or an implementation's name) and REFERENCE_FORMAT. Integer distances that fit are
  stored as int32 (unreached: INT32_MIN), others as float64; read back as the float64 the verifier compares. A
  source whose reference found a negative cycle has `ref-...-s<source>.negative-cycle.json` with the message.

So a key names content, not a path: the same graph under another label or run reads the same files, and a graph
that changed (another generator version, a fetched graph replaced) misses. Each file is written under a temporary
name (`.<file>.<host>-<pid>.tmp`, graph/csr.py) and renamed into place, so two shards filling the cache at once
write the same bytes twice at worst, never half a file; a file that does not read back (damaged, or a key that does
not match its content) is computed again and replaced.

Size: 4 or 8 bytes a vertex per referenced source and problem kind (80 MB for 10 sources of a 1M-vertex graph in
float64). SSSP_BENCH_PER_GRAPH_CACHE=off turns the cache off (every run computes them, as before).

The counters (`hits`, `computed`) go into the manifest's graph record (`per_graph_cache`), so a run says what it
read and what it computed.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from ..errors import NegativeCycleError
from ..graph.csr import clear_stale_temporaries, temporary_path
from ..jsonfile import write_json_atomic
from ..switches import switched_on

FOLDER_SUFFIX = ".per-graph"
REFERENCE_FORMAT = 1
"""Bump when what a stored reference means changes (verify.reference_distances' rules): old files then miss."""
HOPS_FORMAT = 1
INT32_UNREACHED = np.iinfo(np.int32).min
DISABLE_VARIABLE = "SSSP_BENCH_PER_GRAPH_CACHE"


def file_stamp(path: Path) -> tuple | None:
    """(size, mtime_ns, inode) of a file, None when it is missing: a graph is replaced by a rename, never edited in
    place, so an unchanged stamp means unchanged bytes."""
    try:
        stat = Path(path).stat()
    except OSError:
        return None
    return stat.st_size, stat.st_mtime_ns, stat.st_ino


def enabled() -> bool:
    return switched_on(DISABLE_VARIABLE)


def _key(**parts: Any) -> str:
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()[:20]


class PerGraphCache:
    """The per-graph cache of one loaded graph (its `.csr` at `graph_path`, `n` vertices, with the weight rule
    `weights_spec` applied); `enabled=False` computes everything and stores nothing."""

    def __init__(self, graph_path: Path, n: int, weights_spec: str, reference: str = "auto", enabled: bool = True):
        self.graph_path = Path(graph_path)
        self.n = n
        self.folder = self.graph_path.with_name(self.graph_path.name + FOLDER_SUFFIX)
        self.weights_spec = weights_spec
        self.reference_method = reference
        self.enabled = enabled and self.graph_path.is_file()
        self.hits = {"hop_depths": 0, "references": 0}
        self.computed = {"hop_depths": 0, "references": 0}
        self._digest: str | None = None
        self._folder_ready = False

    # -- the graph's content digest ----------------------------------------------------------------------------

    def digest(self) -> str:
        """The `.csr` file's SHA-256, from digest.json while the file's size, mtime and inode are those it was
        taken at, else hashed (and recorded) now."""
        if self._digest is not None:
            return self._digest
        stamp = dict(zip(("size", "mtime_ns", "inode"), file_stamp(self.graph_path) or (None, None, None)))
        recorded_path = self.folder / "digest.json"
        try:
            recorded = json.loads(recorded_path.read_text())
            if {key: recorded.get(key) for key in stamp} == stamp and isinstance(recorded.get("sha256"), str):
                self._digest = recorded["sha256"]
                return self._digest
        except (OSError, ValueError):
            pass
        from ..datasets.download import hash_file  # not at import time: it brings requests

        self._digest = hash_file(self.graph_path)
        self._store(lambda: write_json_atomic(recorded_path, {**stamp, "sha256": self._digest}))
        return self._digest

    # -- hop depths --------------------------------------------------------------------------------------------

    def hop_depths(self, sources: Sequence[int],
                   compute: Callable[[], list[dict[str, Any]]]) -> tuple[list[dict[str, Any]], bool]:
        """(the per-source hop depth records, whether they came from the cache): `compute()` makes them on a
        miss."""
        sources = [int(source) for source in sources]
        if not self.enabled:
            self.computed["hop_depths"] += 1
            return compute(), False
        key = _key(graph=self.digest(), sources=sources, format=HOPS_FORMAT)
        path = self.folder / f"hops-{key}.json"
        try:
            stored = json.loads(path.read_text())
            if stored.get("key") == key and [item["source"] for item in stored["per_source"]] == sources:
                self.hits["hop_depths"] += 1
                return stored["per_source"], True
        except (OSError, ValueError, KeyError, TypeError):
            pass
        depths = compute()
        self.computed["hop_depths"] += 1
        self._store(lambda: write_json_atomic(path, {"key": key, "graph_sha256": self.digest(),
                                                      "per_source": depths}, indent=None))
        return depths, False

    # -- reference distances -----------------------------------------------------------------------------------

    def reference(self, kind: str, source: int, compute: Callable[[], np.ndarray]) -> np.ndarray | NegativeCycleError:
        """One source's reference distances (float64, inf unreached), or the NegativeCycleError the reference
        raised: from the cache, else `compute()` (which may raise it), stored."""
        if not self.enabled:
            self.computed["references"] += 1
            return _computed(compute)
        key = _key(graph=self.digest(), weights=self.weights_spec if kind != "bfs" else None,
                   reference=self.reference_method, format=REFERENCE_FORMAT)
        stem = f"ref-{key}-{kind}-s{int(source)}"
        array_path, cycle_path = self.folder / f"{stem}.npy", self.folder / f"{stem}.negative-cycle.json"
        try:
            if cycle_path.is_file():
                message = json.loads(cycle_path.read_text())["message"]
                self.hits["references"] += 1
                return NegativeCycleError(message)
            if array_path.is_file():
                distances = _decode(np.load(array_path, allow_pickle=False))
                if distances.shape != (self.n,):
                    raise ValueError(f"{array_path}: {distances.shape} distances for {self.n} vertices")
                self.hits["references"] += 1
                return distances
        except (OSError, ValueError, KeyError, TypeError):
            pass  # damaged: computed again and replaced
        result = _computed(compute)
        self.computed["references"] += 1
        if isinstance(result, NegativeCycleError):
            self._store(lambda: write_json_atomic(cycle_path, {"message": str(result)}))
        else:
            self._store(lambda: _save_array(array_path, _encode(result)))
        return result

    def record(self) -> dict[str, Any]:
        """What the manifest's graph record keeps: where the cache is, what it gave and what was computed."""
        if not self.enabled:
            return {"enabled": False, "computed": dict(self.computed)}
        return {"enabled": True, "folder": str(self.folder), "graph_sha256": self._digest,
                "hits": dict(self.hits), "computed": dict(self.computed)}

    def _store(self, write: Callable[[], Any]) -> None:
        """Write into the cache folder; a cache that cannot be written (read-only datasets, a full disk) is only
        not filled: the run goes on with what it computed."""
        try:
            if not self._folder_ready:  # once per process: earlier processes' leftovers
                self.folder.mkdir(parents=True, exist_ok=True)
                clear_stale_temporaries(self.folder)
                self._folder_ready = True
            write()
        except OSError:
            pass


def _computed(compute: Callable[[], np.ndarray]) -> np.ndarray | NegativeCycleError:
    try:
        return np.asarray(compute(), dtype=np.float64)
    except NegativeCycleError as error:
        return error


def _encode(distances: np.ndarray) -> np.ndarray:
    """int32 where every reached distance is an integer that fits (unreached: INT32_MIN), else float64."""
    finite = np.isfinite(distances)
    values = distances[finite]
    if values.size == 0 or (np.all(values == np.round(values)) and values.min() > INT32_UNREACHED
                            and values.max() <= np.iinfo(np.int32).max):
        encoded = np.full(distances.shape, INT32_UNREACHED, dtype=np.int32)
        encoded[finite] = values.astype(np.int32)
        return encoded
    return np.asarray(distances, dtype=np.float64)


def _decode(stored: np.ndarray) -> np.ndarray:
    if stored.dtype == np.int32:
        distances = stored.astype(np.float64)
        distances[stored == INT32_UNREACHED] = np.inf
        return distances
    if stored.dtype != np.float64:
        raise ValueError(f"a stored reference of dtype {stored.dtype}")
    return stored


def _save_array(path: Path, array: np.ndarray) -> None:
    temporary = temporary_path(path)
    try:
        with open(temporary, "wb") as handle:
            np.save(handle, array, allow_pickle=False)
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
