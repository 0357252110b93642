"""Integer constants as static values in the data segment.

In: the IR policy. Out: ``allowed(policy)``, whether its number constants may be static, and
``int_text(text)``, the int64 a number literal's text denotes when the text is a canonical
integer. ``MakeNumberRefStmt`` / ``MakeNumberIntStmt`` then load the address of one value in
the data segment instead of allocating a number per execution: a constant index such as
``route[7]`` cost an allocation, then a decimal parse of "7" on every array lookup.

A static value is never freed (the runtime skips addresses below the heap), and nothing may
change it in place: ``AssignIntStmt`` (``opa_value_number_set_int``) is the one statement that
mutates a number, and a value can flow from any local into any other (assignments, calls), so
a policy that has any ``AssignIntStmt`` keeps allocating its numbers. Our planner never emits
it; OPA's plans sometimes do. Only canonical integer text is made static (``-?(0|[1-9][0-9]*)``,
no "-0", within int64): an int value prints as its decimal digits, so the output is the same
text the literal had; anything else (1.0, 1e3, big integers) stays a number ref.
"""

from __future__ import annotations

import re

from cupcake_py import ir

_CANONICAL = re.compile(r"-?(?:0|[1-9][0-9]*)")
_I64 = range(-(2**63), 2**63)


def allowed(policy: ir.Policy) -> bool:
    """True when no statement of the policy assigns a number in place."""
    return not any(isinstance(s, ir.AssignIntStmt)
                   for blocks in ir.policy_bodies(policy) for b in ir.walk_blocks(blocks) for s in b.stmts)


def int_text(text: str) -> int | None:
    """The int64 that canonical integer text denotes, else None."""
    if text == "-0" or not _CANONICAL.fullmatch(text):
        return None
    return int_value(int(text))


def int_value(i: int) -> int | None:
    """``i`` when it fits an int64, else None."""
    return i if i in _I64 else None
