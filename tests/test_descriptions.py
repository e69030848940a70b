"""What `sssp-bench list` and README.md say an implementation is promises no more than was measured: a sentence of a
description (or of README's implementation table) that calls it efficient, fast, optimal, scalable or lock-free
names where that was measured (the device), so a design goal never reads as a result (issue 34, item 9:
delta-stepping-async was "work-efficient" while its notes measure 9 to 31 pops per vertex)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from sssp_bench import impls

README = Path(__file__).parent.parent / "README.md"
PROMISE = re.compile(r"\b(work-efficient|efficient|efficiency|optimal|fast|faster|fastest|slow|slower|scalable|"
                     r"high-performance|state-of-the-art|lock-free|wait-free)\b", re.IGNORECASE)
MEASURED_ON = re.compile(r"\b(H100|H200|measured)\b")


def unbacked_promises(text: str) -> list[str]:
    """The sentences (or semicolon-separated clauses' sentence) of `text` that promise speed or efficiency without
    saying where it was measured."""
    sentences = re.split(r"(?<=\.)\s+", text)
    return [sentence for sentence in sentences if PROMISE.search(sentence) and not MEASURED_ON.search(sentence)]


def readme_implementation_rows() -> dict[str, str]:
    """README's implementation table: name -> what it is."""
    rows = {}
    for line in README.read_text().splitlines():
        match = re.match(r"\| `([a-z0-9-]+)` \| (.*) \|$", line)
        if match and match.group(1) in impls.registry():
            rows[match.group(1)] = match.group(2)
    return rows


def test_the_check_catches_the_label_the_issue_found():
    assert unbacked_promises("Asynchronous work-efficient delta-stepping (CuPy/CUDA). Non-negative weights.")
    assert not unbacked_promises("Not work-efficient at its defaults: 9.5 pops per vertex on USA-road-d.NY (H100).")
    assert not unbacked_promises("Hong et al.'s static virtual warps, warp_size 1..32. Negative weights OK.")


@pytest.mark.parametrize("name", sorted(impls.registry()))
def test_no_description_promises_what_was_not_measured(name):
    assert unbacked_promises(impls.registry()[name].description) == []


def test_no_readme_row_promises_what_was_not_measured():
    rows = readme_implementation_rows()
    assert len(rows) >= 15  # the table was found (the GPU implementations)
    assert {name: unbacked_promises(text) for name, text in rows.items() if unbacked_promises(text)} == {}
