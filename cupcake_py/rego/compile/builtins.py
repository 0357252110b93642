"""The builtin registry: OPA's builtin declarations (name, argument types, result) as data,
loaded lazily from `builtins.json` (regenerate with `builtins_harvest`)."""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from functools import cache

from cupcake_py.core import jsonio
from cupcake_py.core.slotted import dataclass

TYPE_CHECKING = False
if TYPE_CHECKING:  # (typing stays off a first `cupcake test` run's start-up)
    from typing import Any

# Names handled by the compiler itself; they never reach the IR as calls.
COMPILE_TIME = frozenset({"eq", "assign", "print", "rego.metadata.chain", "rego.metadata.rule"})
# Builtins whose result is a collection the planner iterates (OPA's "relations").
RELATIONS = frozenset({"walk"})


@dataclass(frozen=True, slots=True)
class Builtin:
    name: str
    decl: dict[str, Any]

    @property
    def arity(self) -> int:
        return len(self.decl.get("args") or ())

    @property
    def void(self) -> bool:
        return self.decl.get("result") is None

    @property
    def arg_types(self) -> list[dict[str, Any]]:
        return list(self.decl.get("args") or ())


@cache
def registry() -> dict[str, Builtin]:
    with open(os.path.join(os.path.dirname(__file__), "builtins.json"), "rb") as f:
        raw = jsonio.loads(f.read())  # (the json package stays off the compiler's imports)
    reg = {name: Builtin(name, decl) for name, decl in raw.items()}
    reg["eq"] = Builtin("eq", {"type": "function", "args": [{"type": "any"}, {"type": "any"}],
                               "result": {"type": "boolean"}})
    reg["assign"] = reg["eq"]
    return reg


# Custom builtins declared by the running command (cupcake_py.extensions.builtins), name -> Builtin.
_custom: dict[str, Builtin] = {}


@contextmanager
def custom_declarations(decls: Mapping[str, dict[str, Any]]) -> Iterator[None]:
    """Within the block, `lookup` also knows these declarations (name -> decl)."""
    global _custom
    previous = _custom
    _custom = {**previous, **{n: Builtin(n, d) for n, d in decls.items()}}
    try:
        yield
    finally:
        _custom = previous


# OPA's deprecated builtins: v1 modules may not call them (OPA 1.x: "deprecated built-in
# function calls in expression"); v0 modules (--v0-compatible, no `import rego.v1`) still may.
DEPRECATED = frozenset({"any", "all", "re_match", "set_diff", "net.cidr_overlap", "cast_array", "cast_set",
                        "cast_string", "cast_boolean", "cast_null", "cast_object"})


def lookup(name: str) -> Builtin | None:
    return registry().get(name) or _custom.get(name)
