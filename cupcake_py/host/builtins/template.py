"""internal.template_string: backs Rego string interpolation ``$"... {expr} ..."``."""

from __future__ import annotations

from typing import Any

from cupcake_py.host.builtins import BuiltinContext, builtin
from cupcake_py.host.builtins._errors import BuiltinError, want_array
from cupcake_py.host.builtins._values import dump_rego


def value_text(v: Any) -> str:
    """Strings print raw, every other value in its Rego text form."""
    return v if isinstance(v, str) else dump_rego(v)


@builtin("internal.template_string")
def template_string(ctx: BuiltinContext, parts: Any) -> str:
    """Parts are literal strings, or sets holding the value of a template expression.

    An empty set is an undefined expression (``<undefined>``); more than one value is an error.
    """
    out: list[str] = []
    for part in want_array("internal.template_string", 1, parts):
        if isinstance(part, str):
            out.append(part)
        elif isinstance(part, frozenset):
            if not part:
                out.append("<undefined>")
            elif len(part) > 1:
                raise BuiltinError(
                    "internal.template_string: template-strings must not produce multiple outputs"
                )
            else:
                out.append(value_text(next(iter(part))))
        else:
            out.append(value_text(part))
    return "".join(out)
