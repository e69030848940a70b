"""The registry of implementations: one module each, all with the anatomy of `base.Implementation`.

To add one, write `sssp_bench/impls/<module>.py` (and its `.cu` beside it for GPU code) defining a subclass of
`Implementation`, and add the module's name to `MODULES`. Modules are imported lazily, so a GPU module that
needs CuPy costs nothing until a config names it.
"""

from __future__ import annotations

import importlib

from ..errors import ConfigError
from .base import Implementation, Parameter, SolveResult, canonical_distances

MODULES = [
    "cpu_dijkstra",
    "cpu_bellman_ford",
    "cpu_bfs",
    "lonestar",
    "bf_edge",
    "bf_frontier",
    "workfront",
    "near_far",
    "hbf",
    "bfs_harish",
    "bfs_vwarp",
    "bfs_edge",
    "bfs4k",
]

_registry: dict[str, type[Implementation]] | None = None


def registry() -> dict[str, type[Implementation]]:
    """name -> Implementation subclass, for every implementation module."""
    global _registry
    if _registry is None:
        found: dict[str, type[Implementation]] = {}
        for module_name in MODULES:
            module = importlib.import_module(f"{__name__}.{module_name}")
            for value in vars(module).values():
                if isinstance(value, type) and issubclass(value, Implementation) and value is not Implementation:
                    if getattr(value, "__module__", None) == module.__name__ and hasattr(value, "name"):
                        found[value.name] = value
        _registry = dict(sorted(found.items()))
    return _registry


def get(name: str, where: str = "") -> type[Implementation]:
    """The implementation called `name`; an unknown name is a ConfigError listing the known ones."""
    known = registry()
    if name not in known:
        prefix = f"{where}: " if where else ""
        raise ConfigError(f"{prefix}unknown implementation {name!r} (known: {', '.join(known)})")
    return known[name]


__all__ = ["Implementation", "Parameter", "SolveResult", "canonical_distances", "registry", "get", "MODULES"]
