"""The implementation registry finds every implementation by itself: a new one is its module (and its .cu) plus a
config, with no list to edit."""

from __future__ import annotations

import ast
from pathlib import Path

from sssp_bench import impls

IMPLS_DIR = Path(impls.__file__).resolve().parent


def test_every_implementation_is_found_in_the_module_that_defines_it():
    modules = set(impls.implementation_modules())
    for name, implementation_class in impls.registry().items():
        assert implementation_class.name == name
        assert implementation_class.__module__.rsplit(".", 1)[-1] in modules
        assert implementation_class.kind in ("sssp", "bfs") and implementation_class.device in ("cpu", "gpu")
        assert implementation_class.description


def test_every_kernel_file_beside_the_implementations_belongs_to_one_of_them():
    kernel_files = {path.name for path in IMPLS_DIR.glob("*.cu")}
    used = {cls.cu_file for cls in impls.registry().values() if cls.device == "gpu"}
    assert used <= kernel_files  # every GPU implementation's kernels are beside it
    assert kernel_files <= used  # and no .cu file is left over



def test_no_implementation_imports_another():
    """What implementations share lives in shared modules (base, *_common, gpu/, kernels/), so an implementation's
    module can change without touching another's."""
    defining = {cls.__module__.rsplit(".", 1)[-1] for cls in impls.registry().values()}
    for module in sorted(defining):
        tree = ast.parse((IMPLS_DIR / f"{module}.py").read_text())
        imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.level == 1}
        imported |= {alias.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.level == 1
                     and node.module is None for alias in node.names}
        assert not imported & (defining - {module}), f"{module} imports {sorted(imported & defining)}"
