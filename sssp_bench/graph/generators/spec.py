"""The generators' spec language: `kind[:key=value[,key=value...]]`, e.g. `rmat:n=3M,m=20M,seed=7`.

  * integers: 3000000, 3e6, 3M or 1.5M (K = 10^3, M = 10^6, G = 10^9), 2^21; floats: 0.45, 1e-3;
    booleans: true/false/1/0 (also yes/no).
  * every parameter has a default; `resolve_params` fills them all in, `canonical_from_params` writes them all,
    sorted, so two spellings of one graph map to one string (the dataset cache key).
  * an unknown key, a repeated key, a malformed pair, a wrong type or a value out of range is a one-line
    `SpecError` naming the spec and what is allowed.

`Param` describes one parameter, `Generator` one graph kind. The weight assignments (`graph.weights`) speak the
same language with their own kinds.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

import numpy as np

from ...errors import SpecError

INT32_MAX = 2**31 - 1


@dataclass(frozen=True)
class Param:
    """One parameter of a spec: its type (int, float, bool or str), default, help line and bounds."""

    type: type
    default: Any
    help: str = ""
    minimum: float | None = None
    maximum: float | None = None
    choices: tuple[Any, ...] | None = None

    def describe(self) -> str:
        kind = "|".join(map(str, self.choices)) if self.choices else self.type.__name__
        return f"{kind}, default {format_value(self.default)}: {self.help}"


Params = dict[str, Any]


@dataclass(frozen=True)
class Generator:
    """A graph kind: its name, a one-line description (and paper), its parameters and how to build it.

    `build(params)` returns (row_offsets, column_ids, weights, directed); `check(params)` returns a problem
    (a phrase, for a SpecError) or None.
    """

    name: str
    description: str
    parameters: dict[str, Param]
    build: Callable[[Params], tuple[np.ndarray, np.ndarray, np.ndarray, bool]]
    check: Callable[[Params], str | None] | None = None

    def usage(self) -> str:
        """The spec with every default written out, e.g. for `sssp-bench generate --help`."""
        return canonical_from_params(self.name, {key: p.default for key, p in self.parameters.items()})


_INT_SUFFIXES = {"k": 10**3, "m": 10**6, "g": 10**9}
_TRUE = {"true", "1", "yes", "on"}
_FALSE = {"false", "0", "no", "off"}
_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*\Z")


def format_value(value: Any) -> str:
    """A value as the spec language writes it: true/false, plain integers, shortest round-tripping floats."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    return str(value)


def parse_int(text: str) -> int | None:
    """3000000, 3e6, 3M, 1.5K, 2^21, 3_000_000 -> int; None when the text is not a whole number."""
    text = text.strip().replace("_", "")
    multiplier = 1
    if text[-1:].lower() in _INT_SUFFIXES:
        multiplier = _INT_SUFFIXES[text[-1].lower()]
        text = text[:-1]
    if "^" in text:
        base, _, exponent = text.partition("^")
        if not (re.fullmatch(r"[+-]?\d+", base.strip()) and re.fullmatch(r"\d+", exponent.strip())):
            return None
        if int(exponent) > 64:
            return None
        return int(base) ** int(exponent) * multiplier
    try:
        number = Decimal(text) * multiplier
    except InvalidOperation:
        return None
    if not number.is_finite() or number != number.to_integral_value():
        return None
    return int(number)


def convert_value(value: Any, param: Param, key: str, where: str) -> Any:
    """Convert a spec value (text, or a native value from YAML) to the parameter's type and check its range."""
    def refuse(expected: str) -> SpecError:
        return SpecError(f"{where}: parameter {key!r} must be {expected}, got {value!r}")

    if param.type is bool:
        if isinstance(value, bool):
            converted = value
        elif isinstance(value, int) and value in (0, 1):
            converted = bool(value)
        elif isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE:
            converted = value.strip().lower() in _TRUE
        else:
            raise refuse("a boolean (true/false/1/0)")
    elif param.type is int:
        if isinstance(value, bool):
            raise refuse("an integer (e.g. 3000000, 3e6 or 3M)")
        if isinstance(value, int):
            converted = value
        elif isinstance(value, float) and value.is_integer():
            converted = int(value)
        elif isinstance(value, str) and parse_int(value) is not None:
            converted = parse_int(value)
        else:
            raise refuse("an integer (e.g. 3000000, 3e6 or 3M)")
    elif param.type is float:
        if isinstance(value, bool):
            raise refuse("a number")
        if isinstance(value, (int, float)):
            converted = float(value)
        else:
            try:
                converted = float(str(value).strip())
            except ValueError:
                raise refuse("a number (e.g. 0.45)") from None
        if not math.isfinite(converted):
            raise refuse("a finite number")
    else:
        converted = str(value).strip()
    if param.choices is not None and converted not in param.choices:
        raise refuse(f"one of {', '.join(map(format_value, param.choices))}")
    if param.minimum is not None and converted < param.minimum:
        raise SpecError(f"{where}: parameter {key!r} must be at least {format_value(param.minimum)}, got {value!r}")
    if param.maximum is not None and converted > param.maximum:
        raise SpecError(f"{where}: parameter {key!r} must be at most {format_value(param.maximum)}, got {value!r}")
    return converted


def split_spec(spec: str, what: str, example: str) -> tuple[str, list[tuple[str, str]]]:
    """'kind:k=v,k=v' -> (kind, [(k, v), ...]) as text; a malformed spec is a SpecError."""
    if not isinstance(spec, str):
        raise SpecError(f"{what} spec must be a string like {example!r}, got {type(spec).__name__} {spec!r}")
    where = f"{what} spec {spec!r}"
    kind, _, rest = spec.strip().partition(":")
    kind = kind.strip()
    if not kind:
        raise SpecError(f"{where}: malformed, expected kind[:key=value,...] such as {example!r}")
    pairs = []
    if rest.strip():
        for item in rest.split(","):
            key, equals, value = item.partition("=")
            key, value = key.strip(), value.strip()
            if not equals or not _KEY.match(key) or not value:
                raise SpecError(
                    f"{where}: malformed pair {item.strip()!r}, expected key=value pairs separated by commas, "
                    f"such as {example!r}"
                )
            pairs.append((key, value))
    return kind, pairs


def resolve_params(
    kind: str, given: list[tuple[str, Any]], parameters: dict[str, Param], where: str
) -> dict[str, Any]:
    """Defaults filled in, given values converted; unknown or repeated keys are SpecErrors."""
    values = {key: param.default for key, param in parameters.items()}
    seen = set()
    for key, value in given:
        if key not in parameters:
            allowed = ", ".join(sorted(parameters)) or "none"
            raise SpecError(f"{where}: {kind} has no parameter {key!r} (allowed: {allowed})")
        if key in seen:
            raise SpecError(f"{where}: parameter {key!r} is given twice")
        seen.add(key)
        values[key] = convert_value(value, parameters[key], key, where)
    return values


def canonical_from_params(kind: str, params: dict[str, Any]) -> str:
    """'kind:key=value,...' with every parameter of `params`, sorted by key: one string per graph."""
    return kind + ":" + ",".join(f"{key}={format_value(params[key])}" for key in sorted(params))
