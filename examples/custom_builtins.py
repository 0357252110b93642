"""Example custom Rego builtins for cupcake-py (docs/custom-builtins.md).

Use:  cupcake test --custom-builtins examples/custom_builtins.py examples/custom_builtins_policy/
      cupcake check --custom-builtins examples/custom_builtins.py examples/custom_builtins_policy/
      rulebook.yml:  custom_builtins: [my_package.rego_builtins]

Each function takes the Rego arguments as Python values (null None, booleans, int/Decimal
numbers, str, list, dict, frozenset for sets) and returns one. Raising BuiltinError makes the
call undefined (an ERROR under --strict-builtin-errors); any other exception fails the
evaluation (closed).
"""

from __future__ import annotations

from typing import Any

from cupcake_py.extensions.builtins import BuiltinError, builtin


@builtin("regal.last", args=["array[any]"], result="any")
def last(arr: list[Any]) -> Any:
    """The last element of an array (undefined for an empty one), like Regal's regal.last."""
    if not arr:
        raise BuiltinError("regal.last: empty array")
    return arr[-1]


@builtin("result.new", args=["string", "any"], result="object[string: any]")
def new_result(msg: str, cause: Any) -> dict[str, Any]:
    """A finding in the shape trivy's result.new gives: the message plus the cause's location."""
    out: dict[str, Any] = {"msg": msg}
    meta = cause.get("__defsec_metadata") if isinstance(cause, dict) else None
    if isinstance(meta, dict):
        for key in ("filepath", "startline", "endline"):
            if key in meta:
                out[key] = meta[key]
    return out
