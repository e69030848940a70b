"""Environment switches (switches.py): one reading of on and off for every SSSP_BENCH_* feature switch."""

import pytest

from sssp_bench.switches import switched_on

VARIABLE = "SSSP_BENCH_TEST_SWITCH"


@pytest.mark.parametrize("value, on_by_default, off_by_default", [
    (None, True, False),
    ("", True, False),
    ("off", False, False), (" No ", False, False), ("0", False, False), ("FALSE", False, False),
    ("on", True, True), (" Yes", True, True), ("1", True, True), ("True", True, True),
    ("maybe", True, False),  # not a word either way: the feature keeps its default
])
def test_a_switch_says_on_or_off_and_anything_else_keeps_the_default(monkeypatch, value, on_by_default,
                                                                       off_by_default):
    if value is None:
        monkeypatch.delenv(VARIABLE, raising=False)
    else:
        monkeypatch.setenv(VARIABLE, value)
    assert switched_on(VARIABLE, default=True) is on_by_default
    assert switched_on(VARIABLE, default=False) is off_by_default
