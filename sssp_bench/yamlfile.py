"""YAML as sssp-bench reads it (run configs, the catalog): PyYAML's safe loader, except that a key given twice in
one mapping is an error naming its line and the line of the first, not silently the last value. The parser is
libyaml's where PyYAML has it (about ten times faster: the catalog takes 0.02 s instead of 0.2 s of every run
process's start), Python's otherwise; both give the same documents and the same line numbers.

    data = safe_load(text)          # yaml.YAMLError (a DuplicateKeyError among them) on a bad document

A merge key (`<<: *defaults`) may still be overridden by the mapping's own keys, as YAML means it to be.
"""

from __future__ import annotations

from typing import Any

import yaml


class DuplicateKeyError(yaml.constructor.ConstructorError):
    """A mapping that gives one key twice; `problem_mark` is the second one's place, as for any YAMLError."""


class _UniqueKeyLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        if isinstance(node, yaml.MappingNode):
            first_lines: dict[Any, int] = {}
            for key_node, _ in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":
                    continue
                key = self.construct_object(key_node, deep=True)
                try:
                    first = first_lines.get(key)
                except TypeError:
                    continue  # an unhashable key: the base class reports it
                if first is not None:
                    raise DuplicateKeyError(
                        "while constructing a mapping", node.start_mark,
                        f"duplicate key {key!r}, first given on line {first}", key_node.start_mark)
                first_lines[key] = key_node.start_mark.line + 1
        return super().construct_mapping(node, deep=deep)


def safe_load(text: str) -> Any:
    """yaml.safe_load, refusing a key given twice in one mapping (DuplicateKeyError)."""
    return yaml.load(text, Loader=_UniqueKeyLoader)  # noqa: S506 (a SafeLoader)
