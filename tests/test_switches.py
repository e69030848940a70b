"""Environment switches (switches.py): one reading of off for every SSSP_BENCH_* feature switch."""

import pytest

from sssp_bench.switches import switched_on

VARIABLE = "SSSP_BENCH_TEST_SWITCH"


@pytest.mark.parametrize("value, on", [
    (None, True),
    ("", True),
    ("off", False), (" No ", False), ("0", False), ("FALSE", False),
    ("on", True), (" Yes", True), ("1", True), ("True", True),
    ("maybe", True),  # not a word for off: the feature stays on
])
def test_a_switch_is_on_unless_it_says_off(monkeypatch, value, on):
    if value is None:
        monkeypatch.delenv(VARIABLE, raising=False)
    else:
        monkeypatch.setenv(VARIABLE, value)
    assert switched_on(VARIABLE) is on
