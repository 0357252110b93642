"""A compiled policy as text, one rule a line (tests and debugging).

In: the compiler's `Compiled` (or one `CRule`). Out: each rule as `<kind> <head> if { body }`
with its `else` chain, written by the one printer in its inline mode (rego/printer.py). Fails
with TypeError on a node that is not a Rego AST node, as the printer does.
"""

from __future__ import annotations

from cupcake_py.rego.compile.nodes import Compiled, CRule
from cupcake_py.rego.printer import Printer


def print_compiled_rule(c: CRule) -> str:
    """One compiled rule (and its else chain) on one line: `<kind> data.<path> ... if { body }`."""
    p = Printer(inline=True)
    head = c.name + "".join(f"[{p.term(t)}]" for t in c.rel)
    if c.args is not None:
        head += "(" + ", ".join(p.term(a) for a in c.args) + ")"
    if c.key is not None:
        head += f" contains {p.term(c.key)}"
    if c.value is not None:
        head += (" contains " if c.leaf == "set" and c.kind == "object" else " := ") + p.term(c.value)
    out = ("default " if c.default else "") + f"{c.kind} {head} if {p.block(c.body, 0)}"
    if c.else_ is not None:
        out += " else " + print_compiled_rule(c.else_)
    return out


def print_compiled(c: Compiled) -> str:
    """Every rule of a compiled policy, one a line (for tests and debugging)."""
    return "\n".join(print_compiled_rule(r) for g in c.groups.values() for r in g.rules)
