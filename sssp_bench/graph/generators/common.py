"""What the generator families share: the parameters and checks of the common conventions, edge weights, and
`generator()`, which makes a registry entry from a family's build function and checks."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..rng import STREAM_WEIGHTS, stream_key, uniform_ints
from .spec import INT32_MAX, Generator, Param, Params

Check = Callable[[Params], str | None]


def weight_params(wmin: int = 1, wmax: int = 101) -> dict[str, Param]:
    return {
        "wmin": Param(int, wmin, "smallest weight (inclusive)", minimum=0, maximum=INT32_MAX),
        "wmax": Param(int, wmax, "weights are drawn from [wmin, wmax)", minimum=1, maximum=INT32_MAX + 1),
    }


def seed_param() -> dict[str, Param]:
    return {"seed": Param(int, 1, "seed of the counter-based random streams", minimum=0, maximum=2**63 - 1)}


def directed_param(default: bool, help: str) -> dict[str, Param]:
    return {"directed": Param(bool, default, help)}


VERTICES = {"n": Param(int, 16384, "number of vertices", minimum=1, maximum=INT32_MAX)}


def check_weights(params: Params) -> str | None:
    if params["wmin"] >= params["wmax"]:
        return f"wmin={params['wmin']} must be below wmax={params['wmax']} (weights are drawn from [wmin, wmax))"
    return None


def edge_weights(seed: int, count: int, wmin: int, wmax: int) -> np.ndarray:
    """int32 weights of edges 0..count-1 in [wmin, wmax): edge i's from counter i of the seed's weight stream."""
    return uniform_ints(stream_key(seed, STREAM_WEIGHTS), count, wmin, wmax)


def _first_problem(checks: tuple[Check, ...]) -> Check:
    def check(params: Params) -> str | None:
        for one in checks:
            problem = one(params)
            if problem:
                return problem
        return None

    return check


def generator(name: str, description: str, parameters: dict[str, Param], build, *checks: Check) -> Generator:
    """A registry entry; its check reports the first problem any of `checks` finds."""
    return Generator(name, description, parameters, build, _first_problem(checks) if checks else None)
