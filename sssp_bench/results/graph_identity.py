"""Whether two runs ran the same graph under one label: their manifests' records of it (`graphs[label]`). A run
whose dataset cache lacked the real file ran the stand-in under the real graph's label, so a label alone does not
say. `compare` gives such a pair no ratio, `report` refuses such runs together and `merge` such shards."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


def graph_difference(base: dict[str, Any] | None, new: dict[str, Any] | None, names: tuple[str, str] = ("base", "new")
                     ) -> str:
    """What makes two manifests' records of one graph label different graphs ("" where nothing does, or where a
    side recorded none): the stand-in run (or none: the real graph), the size, the weights, the content digest.
    `names` name the two sides in the answer."""
    if not isinstance(base, dict) or not isinstance(new, dict):
        return ""

    def ran(record: dict[str, Any]) -> str:
        return f"the stand-in {record['stand_in']}" if record.get("stand_in") else "the real graph"

    if base.get("stand_in") != new.get("stand_in"):
        return f"{names[0]} ran {ran(base)}, {names[1]} {ran(new)}"
    for key in ("n", "m", "weights"):
        if key in base and key in new and base[key] != new[key]:
            return f"{key} differs: {names[0]} {base[key]}, {names[1]} {new[key]}"
    digests = [(record.get("per_graph_cache") or {}).get("graph_sha256") for record in (base, new)]
    if all(digests) and digests[0] != digests[1]:
        return f"the graph files differ (sha256 {digests[0][:12]} against {digests[1][:12]})"
    return ""


def first_difference(manifests: Iterable[dict[str, Any]]) -> tuple[str, str, str, str] | None:
    """(label, the first run that recorded it, a later run, what differs) for the first label that two of these
    runs recorded as different graphs; None where every label is one graph throughout."""
    first: dict[str, tuple[str, dict[str, Any]]] = {}
    for manifest in manifests:
        run_id = str(manifest.get("run_id"))
        for label, record in (manifest.get("graphs") or {}).items():
            if label not in first:
                first[label] = (run_id, record)
                continue
            difference = graph_difference(first[label][1], record, (first[label][0], run_id))
            if difference:
                return label, first[label][0], run_id, difference
    return None
