"""The tests leave the checkout's datasets/ alone: a command a test starts in the checkout without --datasets (as
tests/test_reproduce.py's make targets do) caches its graph in the session's folder (conftest.session_datasets);
and README.md names every environment variable the tests read."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SPEC = "chain:n=5,seed=34"  # a graph no other test makes


def test_a_command_run_in_the_checkout_caches_its_graph_in_the_sessions_folder(session_datasets):
    assert os.environ["SSSP_BENCH_DATASETS"] == str(session_datasets)
    done = subprocess.run([sys.executable, "-c", "from sssp_bench.cli import cli; cli()", "generate", SPEC],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    written = Path(done.stdout.split(":")[0])
    in_checkout = sorted(ROOT.joinpath("datasets", "generated").glob("chain_*seed=34*"))
    for path in in_checkout:  # what a failing run left behind
        path.unlink()
    assert not in_checkout, in_checkout
    assert written.is_relative_to(session_datasets) and written.exists(), written


def test_every_environment_variable_the_tests_read_is_in_the_readme():
    read = set()
    for path in ROOT.joinpath("tests").glob("*.py"):
        read |= set(re.findall(r"""environ(?:\.get\(|\[)["'](SSSP_BENCH_[A-Z_]+)["']""", path.read_text()))
    assert {"SSSP_BENCH_SHARED_DATASETS", "SSSP_BENCH_REAL_DATASETS"} <= read  # the search finds them
    readme = ROOT.joinpath("README.md").read_text()
    assert sorted(name for name in read if f"${name}" not in readme) == []
