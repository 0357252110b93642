"""sprintf: Go's fmt.Sprintf over Rego values, converted the way OPA converts them."""

from __future__ import annotations

import math
from decimal import Decimal

from cupcake_py.host.builtins import BuiltinContext, builtin
from cupcake_py.host.builtins._errors import want_array, want_str
from cupcake_py.host.builtins._gofmt import GoArg, go_int
from cupcake_py.host.builtins._gofmt import sprintf as go_sprintf
from cupcake_py.host.builtins._values import dump_rego, number_text

TYPE_CHECKING = False  # (typing is not imported on the eval path)
if TYPE_CHECKING:
    from typing import Any


def to_go_arg(v: Any) -> GoArg:
    """OPA: integers → int (or *big.Int), other numbers → float64 (their text when out of
    float64 range), strings as is, else Rego text."""
    if isinstance(v, bool) or v is None:
        return GoArg("string", dump_rego(v))
    if isinstance(v, int):
        return go_int(v)
    if isinstance(v, Decimal):
        f = float(v)
        return GoArg("string", number_text(v)) if math.isinf(f) else GoArg("float", f)
    if isinstance(v, str):
        return GoArg("string", v)
    return GoArg("string", dump_rego(v))


@builtin("sprintf")
def sprintf(ctx: BuiltinContext, fmt: Any, values: Any) -> str:
    f = want_str("sprintf", 1, fmt)
    return go_sprintf(f, [to_go_arg(v) for v in want_array("sprintf", 2, values)])
