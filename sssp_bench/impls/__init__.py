"""The registry of implementations: one module each, all with the anatomy of `base.Implementation`.

To add one, write `sssp_bench/impls/<module>.py` (and its `.cu` beside it for GPU code) defining a subclass of
`Implementation` with a `name`; the registry finds it. Every module of this package is imported when the registry
is first asked for, so a GPU module must import without CuPy (it asks for CuPy in `prepare`, through gpu.runtime).
"""

from __future__ import annotations

import importlib
import pkgutil

from ..errors import ConfigError
from .base import Implementation, Parameter, SolveResult, canonical_distances


def implementation_modules() -> list[str]:
    """The names of this package's modules, in name order (the shared pieces, base and *_common, included)."""
    return sorted(module.name for module in pkgutil.iter_modules(__path__) if not module.ispkg)


_registry: dict[str, type[Implementation]] | None = None


def registry() -> dict[str, type[Implementation]]:
    """name -> Implementation subclass, for every implementation this package defines, sorted by name."""
    global _registry
    if _registry is None:
        found: dict[str, type[Implementation]] = {}
        for module_name in implementation_modules():
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


__all__ = ["Implementation", "Parameter", "SolveResult", "canonical_distances", "registry", "get",
           "implementation_modules"]
