"""Code generation peephole: ``x in {"a", "b", ...}`` without building the set.

In: the planner's lowering of membership in a set literal of constants,

    T := set(); add T <- c1; ...; add T <- ck; R := internal.member_2(X, T)

(consecutive statements of one block, every ``ci`` a string or boolean constant) where the
function mentions ``T`` nowhere else. Out: ``fusible(policy)`` names those ``MakeSetStmt``s;
``emit`` generates ``R := X == c1 or ... or X == ck`` as a static boolean (equality by
``opa_value_is_string`` for a string constant, ``opa_value_compare`` for a boolean: exactly set
membership for constant strings and booleans)
and returns how many statements it consumed. A set literal inside a loop was rebuilt (and
its elements hashed) on every iteration; now each test is a few compares. Anything that
does not match the pattern exactly is generated as before.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

from cupcake_py import ir
from cupcake_py.wasm.asm import I32_EQZ, I32_OR, SELECT

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cupcake_py.wasm.codegen import _Codegen, _Fn

MEMBER = "internal.member_2"
_CONSTANT = (ir.StringIndex, ir.Bool)


def _locals(s: ir.Stmt) -> Iterator[int]:
    for field, _key, kind in type(s).KEYS:
        v = getattr(s, field)
        if kind == "loc":
            yield v
        elif kind == "locs":
            yield from v
        elif kind == "op" and isinstance(v, ir.Local):
            yield v.value
        elif kind == "ops":
            yield from (o.value for o in v if isinstance(o, ir.Local))


def _pattern(stmts: tuple[ir.Stmt, ...], i: int) -> int:
    """Length of the fusible pattern starting at stmts[i] (a MakeSetStmt), 0 if none."""
    make = stmts[i]
    assert isinstance(make, ir.MakeSetStmt)
    j = i + 1
    while j < len(stmts):
        add = stmts[j]
        if not (isinstance(add, ir.SetAddStmt) and add.set == make.target and isinstance(add.value, _CONSTANT)):
            break
        j += 1
    if j == i + 1 or j == len(stmts):
        return 0
    call = stmts[j]
    if not (isinstance(call, ir.CallStmt) and call.func == MEMBER and len(call.args) == 2
            and call.args[1] == ir.Local(make.target) and call.args[0] != ir.Local(make.target)
            and call.result != make.target):
        return 0
    return j + 1 - i


def fusible(policy: ir.Policy) -> frozenset[int]:
    """``id()`` of every MakeSetStmt that starts a fusible pattern."""
    out: set[int] = set()
    for blocks in ir.policy_bodies(policy):
        uses: Counter[int] = Counter()
        candidates: list[tuple[ir.MakeSetStmt, int]] = []
        for block in ir.walk_blocks(blocks):
            for i, s in enumerate(block.stmts):
                uses.update(_locals(s))
                if isinstance(s, ir.MakeSetStmt):
                    n = _pattern(block.stmts, i)
                    if n:
                        candidates.append((s, n))
        out.update(id(s) for s, n in candidates if uses[s.target] == n)  # make + adds + call: nothing else
    return frozenset(out)


def emit(gen: _Codegen, fn: _Fn, stmts: tuple[ir.Stmt, ...], i: int) -> int:
    """Generate the fused membership test starting at stmts[i]; the number of statements used."""
    n = _pattern(stmts, i)
    adds = stmts[i + 1 : i + n - 1]
    call = stmts[i + n - 1]
    assert n and isinstance(call, ir.CallStmt)
    a = fn.asm
    gen._loc = call
    a.i32(gen.data.boolean(True))
    a.i32(gen.data.boolean(False))
    seen: list[ir.Operand] = []
    for add in adds:
        assert isinstance(add, ir.SetAddStmt)
        if add.value in seen:
            continue
        gen.operand(fn, call.args[0])
        if isinstance(add.value, ir.StringIndex):  # one type and length check, then the bytes
            ptr, size = gen.data.text(gen.policy.static.strings[add.value.value])
            a.i32(ptr)
            a.i32(size)
            gen.call_rt(fn, "opa_value_is_string", True)
        else:
            gen.operand(fn, add.value)
            gen.call_rt(fn, "opa_value_compare", True)
            a.op(I32_EQZ)  # equal
        if seen:
            a.op(I32_OR)
        seen.append(add.value)
    a.op(SELECT)  # true if any compare was equal
    a.set(fn.local(call.result))
    return n
