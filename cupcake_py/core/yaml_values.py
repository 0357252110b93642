"""YAML as OPA reads it: the one YAML loading rule for METADATA blocks, .yaml/.yml data files
and `yaml.unmarshal`.

OPA converts YAML to JSON (sigs.k8s.io/yaml over go-yaml), so:
- an unquoted timestamp (`2001-02-03`, `2001-02-03T04:05:06Z`) stays the string written, never a
  date (PyYAML's SafeLoader would make it a `datetime`);
- with `exact=True` a float keeps its text exactly (`Decimal`; `1.0e3` is not rounded through a
  binary float), `.inf`/`.nan` are refused (JSON has no such numbers);
- a non-string mapping key becomes its text (`1: a` → `{"1": "a"}`, `true` → `"true"`).
In: YAML text. Out: plain data (dict with str keys, list, str, int, Decimal or float, bool,
None) of the first document. Fails with `yaml.YAMLError` (bad YAML, a non-JSON number).
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from typing import Any

import yaml

_TIMESTAMP = "tag:yaml.org,2002:timestamp"


class PlainLoader(yaml.SafeLoader):
    """SafeLoader with timestamps left as the strings written and mapping keys as text
    (so `1` and `true` stay two keys, as in JSON) (METADATA)."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        self.flatten_mapping(node)
        return {key_text(k): v for k, v in self.construct_pairs(node, deep=deep)}


PlainLoader.yaml_implicit_resolvers = {
    ch: [(tag, rx) for tag, rx in resolvers if tag != _TIMESTAMP]
    for ch, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


class ExactLoader(PlainLoader):
    """PlainLoader with floats kept exact (data files, yaml.unmarshal)."""


def _construct_float(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> Any:
    text = str(loader.construct_scalar(node)).replace("_", "")
    low = text.lower()
    if low.lstrip("+-") in (".inf", ".nan"):
        raise yaml.YAMLError(f"cannot represent {text} in JSON")
    try:
        d = Decimal(text)
    except (ArithmeticError, InvalidOperation) as exc:
        raise yaml.YAMLError(f"invalid float {text}") from exc
    return int(d) if d == d.to_integral_value() and "." not in text and "e" not in low else d


ExactLoader.add_constructor("tag:yaml.org,2002:float", _construct_float)


def key_text(k: Any) -> str:
    """A mapping key as YAML → JSON writes it."""
    if isinstance(k, str):
        return k
    if k is None:
        return "null"
    if isinstance(k, bool):
        return "true" if k else "false"
    return str(k)


def json_keys(v: Any) -> Any:
    """Every mapping key of `v` as text (nested)."""
    if isinstance(v, dict):
        return {key_text(k): json_keys(x) for k, x in v.items()}
    if isinstance(v, list):
        return [json_keys(x) for x in v]
    return v


def load(text: str | bytes, exact: bool = True) -> Any:
    """The first document of `text` as JSON-shaped data (None for an empty text)."""
    loader = ExactLoader if exact else PlainLoader
    for doc in yaml.load_all(text, Loader=loader):  # noqa: S506 - SafeLoader subclasses
        return json_keys(doc)
    return None
