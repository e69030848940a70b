"""The anatomy every implementation shares (Gunrock's parameters / problem / enactor / run, LDBC's lifecycle).

    impl = SomeImplementation(**params)     # parameters, validated against `parameters`
    impl.prepare(graph)                     # once per graph: upload, sort, mark; the runner times it apart
    result = impl.solve(source)             # once per source: distances (or BFS levels) and counters
    impl.teardown()                         # release what prepare() took

Implementations never time themselves: the runner owns every clock. `solve` returns a `SolveResult` whose
`distances` may stay on the device (a CuPy array) with the implementation's own "unreached" sentinel;
`canonical_distances` turns it into the one form verification and the reference compare use.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from ..graph.csr import CSRGraph
from ..errors import ConfigError, UnsupportedGraphError


@dataclass(frozen=True)
class Parameter:
    """One tunable of an implementation: its type, default and a line of help."""

    type: type
    default: Any
    help: str = ""
    choices: tuple[Any, ...] | None = None


@dataclass
class SolveResult:
    """What one solve produced.

    distances: length-n array (numpy or cupy); shortest distances, or BFS levels when the implementation's kind
      is "bfs".
    unreached: the value that marks an unreachable vertex in `distances` (np.inf for floats, e.g. INT32_MAX).
    counters: algorithm counters (iterations, relax operations, frontier sizes...), plain numbers or lists.
    """

    distances: Any
    unreached: int | float = np.inf
    counters: dict[str, Any] = field(default_factory=dict)


class Implementation:
    """Base class of every implementation. Subclasses set the class attributes and the three methods."""

    name: ClassVar[str]                      # the name configs use, e.g. "cpu-dijkstra"
    kind: ClassVar[str] = "sssp"             # "sssp" (distances) or "bfs" (levels, weights ignored)
    device: ClassVar[str] = "cpu"            # "cpu" or "gpu"
    description: ClassVar[str] = ""          # what it is and where it comes from in the papers
    negative_weights: ClassVar[bool] = False # True when it solves graphs with negative weights
    solves_all_pairs: ClassVar[bool] = False # True when every solve computes all pairs (returning the source's
                                             # row): its time is not one source's, and the results mark it so
    recommended_for: ClassVar[tuple[str, ...] | None] = None  # the graph classes it is meant for (datasets/
                                             # classes.py: "road", "mesh", "social", ...); None: every graph. The
                                             # report's "Which variant to pick" recommends it on no other class
                                             # (it still runs and is timed everywhere a config puts it)
    resident: ClassVar[bool] = True          # a prepared instance may serve later runs of a long-lived process
                                             # (run/resident.py: a Dask worker's next task on the same cell)
    parameters: ClassVar[dict[str, Parameter]] = {}

    def __init__(self, **params: Any) -> None:
        self.params = self.validate_parameters(params)
        self.graph: CSRGraph | None = None

    @classmethod
    def row_device(cls, params: dict[str, Any]) -> str:
        """What the rows of a variant with these parameters say it runs on: the class's device (an external program
        says it in its own `device` parameter)."""
        return cls.device

    @classmethod
    def validate_parameters(cls, params: dict[str, Any], where: str = "") -> dict[str, Any]:
        """Defaults filled in; an unknown name or a wrong type is a `ConfigError` naming what is allowed."""
        prefix = f"{where}: " if where else ""
        unknown = sorted(set(params) - set(cls.parameters))
        if unknown:
            allowed = ", ".join(sorted(cls.parameters)) or "none"
            raise ConfigError(f"{prefix}{cls.name} has no parameter {unknown[0]!r} (allowed: {allowed})")
        values = {key: spec.default for key, spec in cls.parameters.items()}
        for key, value in params.items():
            spec = cls.parameters[key]
            if spec.type is float and isinstance(value, int) and not isinstance(value, bool):
                value = float(value)
            if value is not None and (not isinstance(value, spec.type) or (spec.type is int and isinstance(value, bool))):
                raise ConfigError(
                    f"{prefix}{cls.name} parameter {key!r} must be {spec.type.__name__}, got {type(value).__name__} {value!r}"
                )
            if spec.choices is not None and value not in spec.choices:
                raise ConfigError(f"{prefix}{cls.name} parameter {key!r} must be one of {list(spec.choices)}, got {value!r}")
            values[key] = value
        return values

    @classmethod
    def available(cls) -> tuple[bool, str]:
        """(True, "") when it can run here; otherwise (False, why), e.g. no CuPy or no GPU."""
        return True, ""

    def prepare(self, graph: CSRGraph) -> None:
        self.graph = graph

    def refuse_negative_weights(self, graph: CSRGraph) -> None:
        """For a `prepare` that solves only non-negative weights (negative_weights False): an UnsupportedGraphError
        on a graph with a negative weight, naming the implementations of the same kind and device that solve it."""
        if self.negative_weights or not graph.has_negative_weights():
            return
        from . import registry

        others = [name for name, cls in registry().items()
                  if cls.negative_weights and cls.kind == self.kind and cls.device == self.device]
        raise UnsupportedGraphError(
            f"{self.name} needs non-negative weights, but {graph.name or 'the graph'} has a negative weight "
            f"(min {graph.weights.min()}); use {', '.join(others) or 'a Bellman-Ford implementation'}"
        )

    def solve(self, source: int) -> SolveResult:
        raise NotImplementedError

    def synchronize(self) -> None:
        """Wait for device work; a no-op on the CPU. The runner calls it before reading a host clock."""

    def teardown(self) -> None:
        self.graph = None


def canonical_distances(result: SolveResult) -> np.ndarray:
    """Distances as float64 on the host with np.inf where unreached: the form every check compares.

    float64 holds every int32-weight path sum of a graph under 2^53 exactly, and negative distances too.
    """
    distances = result.distances
    if hasattr(distances, "get"):  # a CuPy array: copy to the host
        distances = distances.get()
    distances = np.asarray(distances)
    canonical = distances.astype(np.float64)
    if not (isinstance(result.unreached, float) and np.isinf(result.unreached)):
        canonical[distances == result.unreached] = np.inf
    return canonical
