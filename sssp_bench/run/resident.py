"""What a long-lived process running run after run keeps between them: a Dask worker taking task after task
(workers.py) keeps its graphs and its prepared implementations resident, so a task costs its solves and not a
reload, a new upload and a new warm-up each time.

Off by default (`keep_between_runs()` turns it on): a plain `run` is one run in one process, and tests that count
loads see every load. Once on, `PROCESS_MEMO` keeps:
- every graph it loaded (with its weights applied), until the file changes or the budget below evicts it;
- each (graph, variant) implementation after its prepare and warm-up, never torn down between tasks: the next task
  of that cell on this worker writes the prepare row of the resident instance (its measured prepare seconds) and
  solves at once. A warm-up already ran on this instance, so its solves are as warm as the first task's.
The roofline's device measurements are not kept here: device_cache.py keeps them per GPU for every process.

Budget: the resident graphs' host arrays stay under RESIDENT_HOST_BYTES, and the device's memory in use under
RESIDENT_DEVICE_FRACTION; past either, the least recently used graph goes first, with its
prepared implementations (torn down).
"""

from __future__ import annotations

import json
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..datasets.resolve import LoadedGraph, load_graph
from ..gpu import runtime as gpu_runtime
from .config import GraphEntry, Variant
from .per_graph import file_stamp

RESIDENT_HOST_BYTES = 16 << 30
"""Resident graphs' host arrays (row offsets, columns, weights) above this: evict the least recently used."""
RESIDENT_DEVICE_FRACTION = 0.5
"""The device's memory in use above this fraction once a new graph is wanted: evict as above."""


@dataclass
class _Resident:
    """A kept graph: its file's stamp when loaded, and its cells' prepared implementations."""

    stamp: tuple | None
    loaded: LoadedGraph
    prepared: dict[tuple[str, str], tuple[Any, float]] = field(default_factory=dict)  # -> (instance, prepare_s)


class ProcessMemo:
    """The process's resident graphs and prepared implementations (module docstring)."""

    def __init__(self) -> None:
        self.enabled = False
        self._graphs: OrderedDict[tuple, _Resident] = OrderedDict()  # the entry's arguments -> the kept graph

    def keep_between_runs(self) -> None:
        self.enabled = True

    def loaded_graph(self, entry: GraphEntry, datasets: Path, stand_in: str | None, force: bool) -> LoadedGraph:
        """load_graph for this config entry, or the graph this process keeps for it, if its file is unchanged."""
        arguments = (entry.graph, entry.label, json.dumps(entry.weights, sort_keys=True, default=str),
                     str(Path(datasets).resolve()), stand_in, force, json.dumps(entry.convert, sort_keys=True))
        kept = self._graphs.get(arguments) if self.enabled else None
        if kept is not None:
            if file_stamp(kept.loaded.path) == kept.stamp:
                self._graphs.move_to_end(arguments)
                return kept.loaded
            self._evict(arguments)
        if self.enabled:
            self._make_room()
        loaded = load_graph(entry.graph, entry.label, entry.weights, datasets, stand_in, force, entry.convert)
        if self.enabled:
            self._graphs[arguments] = _Resident(file_stamp(loaded.path), loaded)
        return loaded

    def keeps(self, loaded: LoadedGraph) -> bool:
        """Whether this graph stays resident after its run."""
        return self._resident(loaded) is not None

    def prepared(self, loaded: LoadedGraph, variant: Variant) -> tuple[Any, float] | None:
        """(the resident implementation of this cell, its prepare seconds), or None."""
        kept = self._resident(loaded)
        return None if kept is None else kept.prepared.get(_cell_key(variant))

    def keep_prepared(self, loaded: LoadedGraph, variant: Variant, implementation: Any, prepare_s: float) -> bool:
        """Keep a prepared, warmed-up implementation of a resident graph instead of tearing it down; False where it
        is not kept (the caller tears it down)."""
        kept = self._resident(loaded)
        if kept is not None:
            kept.prepared[_cell_key(variant)] = (implementation, prepare_s)
        return kept is not None

    def forget_prepared(self, loaded: LoadedGraph, variant: Variant) -> None:
        """Drop this cell's resident implementation, if any (the caller tears it down)."""
        kept = self._resident(loaded)
        if kept is not None:
            kept.prepared.pop(_cell_key(variant), None)

    def clear(self) -> None:
        """Tear down every resident implementation and drop every graph."""
        for arguments in list(self._graphs):
            self._evict(arguments)

    def _resident(self, loaded: LoadedGraph) -> _Resident | None:
        if not self.enabled:
            return None
        return next((kept for kept in self._graphs.values() if kept.loaded is loaded), None)

    def _make_room(self) -> None:
        while self._graphs and (sum(kept.loaded.graph.nbytes for kept in self._graphs.values()) > RESIDENT_HOST_BYTES
                                or gpu_runtime.device_used_fraction() > RESIDENT_DEVICE_FRACTION):
            self._evict(next(iter(self._graphs)))

    def _evict(self, arguments: tuple) -> None:
        for implementation, _ in self._graphs.pop(arguments).prepared.values():
            implementation.teardown()
        gpu_runtime.release_device_graphs()  # the cached copy and the pool's blocks its implementations freed


def _cell_key(variant: Variant) -> tuple[str, str]:
    return variant.name, json.dumps(variant.params, sort_keys=True, default=str)


PROCESS_MEMO = ProcessMemo()
