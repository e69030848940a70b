"""The order variants run in on a graph: seeded per graph, not the config's, so that no variant always inherits the
caches that the variant before it (or, on a small graph, the certificate pass) left warm.

The order sorts the variants by the SHA-256 of (the config's source seed, the graph label, the variant name): the
same config gives the same order on every machine and in a resumed run, and any subset of the variants (a shard's
cells on the graph) keeps its places in the whole run's order, so a merge of shards can say the whole order too.
The runner records it in the manifest's graph record (`variant_order`); the report lists variants in the config's
order regardless.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import TypeVar

from .config import Variant

Named = TypeVar("Named", Variant, str)


def variant_order_key(seed: int, label: str, variant: str) -> str:
    """Where the variant named `variant` runs on the graph labelled `label`: a key to sort by, the same in every
    process (Python's own hash is salted per process)."""
    return hashlib.sha256(f"{seed}\0{label}\0{variant}".encode()).hexdigest()


def variant_run_order(variants: Iterable[Named], seed: int, label: str) -> list[Named]:
    """The variants (Variant objects or names) in the order they run on the graph labelled `label`."""
    return sorted(variants, key=lambda variant: variant_order_key(
        seed, label, variant if isinstance(variant, str) else variant.name))
