"""The one rule that turns a name used in a config or on the command line into the variants it stands for.

Names appear in a config's `baseline`, `targets.mteps` (graph -> name -> MTEPS), `targets.efficiency` (name ->
graph -> fraction) and `targets.faster_than` (`variant` and `than`), and in `run --variant`. A variant is one
implementation with one set of parameters: its name is its entry's label (the implementation's name when it has
none), with `[key=value,...]` appended when the entry sweeps a parameter. A name stands for, by the first of these
rules that finds any:

1. the variant of that name ("hbf-all-off", "bfs-vwarp[warp_size=4]");
2. the sweep of the entry it labels: every variant named `name[...]` ("hbf-x" for hbf-x[tdp=64] and hbf-x[tdp=128]);
3. the variants of the implementation it names ("bfs-vwarp" for its warp sizes, whatever their labels).

The rules stop at the first that finds any, so a name that is a variant never also stands for its implementation's
other variants (bfs4k-table2's "bfs4k" labels the tuned entry and never takes bfs4k-defaults' times).

What each consumer does when a name stands for several variants:
- `run --variant`: runs every one of them;
- claims (`efficiency`, `faster_than`): the fastest of them on each graph, by median time, the way a paper's table
  gives a comparator's best setting, picked on one half of the sources and judged on the other (claims.py);
- an `mteps` target: each variant it stands for is checked against it; where two of a graph's targets stand for
  one variant, the name found by the earlier rule sets it (`name_for`);
- the `baseline`: it must pick exactly one variant on a graph; where it stands for none or several there, that graph
  gets no speedup and a note says why. A baseline is one name, or one per problem kind (`{sssp: cpu-dijkstra,
  bfs: cpu-bfs}`): a variant is divided by the baseline of its own kind (`baseline_for`), so BFS variants are
  compared with a BFS, SSSP variants with an SSSP one; a kind the mapping does not name gets no speedup.

The config (run/config.py) accepts exactly the names that stand for some variant of the config (the baseline: for
exactly one); results resolve them against the variants a run recorded, so a name whose variants a run left out
(`run --variant`) is not judged there. This module imports nothing, so the config's checks and the results'
readers share it without the run stage depending on how results are read.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

FASTEST_OTHER = "fastest-other"
"""The name, on a paired claim's other side (`than`, `of`), of the fastest variant of another implementation than
the claimant's, of its problem kind, on the graph (not an all-pairs or external one: results/claims.py)."""

# (name, variant, implementation) -> whether the name stands for that variant, in the order they are tried.
_RULES: tuple[Callable[[str, str, str], bool], ...] = (
    lambda name, variant, implementation: variant == name,
    lambda name, variant, implementation: variant.startswith(f"{name}["),
    lambda name, variant, implementation: implementation == name,
)


def stands_for(name: str, variants: Mapping[str, str]) -> list[str]:
    """The variants `name` stands for, in the order of `variants` (variant name -> its implementation); empty when
    it stands for none of them."""
    return _resolve(name, variants)[1]


def name_for(variant: str, names: Iterable[str], variants: Mapping[str, str]) -> str | None:
    """Of `names`, the one that stands for `variant` by the earliest rule; None when none of them does."""
    found = [(rule, name) for name in names for rule, chosen in [_resolve(name, variants)] if variant in chosen]
    return min(found, key=lambda item: item[0])[1] if found else None


def _resolve(name: str, variants: Mapping[str, str]) -> tuple[int, list[str]]:
    """(the index of the first rule that finds any variant, those variants); (len(_RULES), []) when none does."""
    for index, rule in enumerate(_RULES):
        chosen = [variant for variant, implementation in variants.items() if rule(name, variant, implementation)]
        if chosen:
            return index, chosen
    return len(_RULES), []


def baseline_for(baseline: Any, kind: str) -> str | None:
    """The name a variant of `kind` ("sssp", "bfs") is divided by: a config's `baseline` as one name (every kind's),
    or as a mapping kind -> name (that kind's; None for a kind it does not name), or None for no baseline."""
    if isinstance(baseline, Mapping):
        return baseline.get(kind)
    return baseline or None


def default_baseline(variants: Mapping[str, tuple[str, str]]) -> str | dict[str, str] | None:
    """A config's baseline when it names none (`variants`: variant name -> (implementation, kind)): cpu-dijkstra
    for SSSP and cpu-bfs for BFS where they run, one name when only cpu-dijkstra does (as before kinds had
    baselines of their own), None when neither runs."""
    chosen = {kind: name for kind, name in (("sssp", "cpu-dijkstra"), ("bfs", "cpu-bfs"))
              if name in variants and any(variant_kind == kind for _, variant_kind in variants.values())}
    if set(chosen) == {"sssp"}:
        return chosen["sssp"]
    return chosen or None
