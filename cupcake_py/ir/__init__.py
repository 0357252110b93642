"""ir: OPA's planner IR, the contract between the planner (``cupcake_py.plan``) and the WASM
backend (``cupcake_py.wasm``), as in OPA's ``v1/ir``.

A leaf package: it imports nothing of cupcake_py except ``cupcake_py.core.errors`` (for
``IRError``, a ``CupcakeError``), so ``import cupcake_py.ir`` loads no front end, planner,
backend or host module (tests/ir/test_ir_leaf.py checks it).

- ``nodes``: the typed, immutable objects (``Policy`` … statements), the statement table;
- ``opa_json``: ``load`` (OPA plan JSON → ``Policy``, ``IRError`` on malformed input) and
  ``dump`` (``Policy`` → the same JSON shape);
- ``printer``: ``format_policy``, a readable text rendering for debugging.
Everything is re-exported here: ``from cupcake_py import ir`` then ``ir.CallStmt(...)``.
"""

from __future__ import annotations

from cupcake_py.ir.nodes import (
    STATEMENT_BY_NAME,
    STATEMENTS,
    ArrayAppendStmt,
    AssignIntStmt,
    AssignVarOnceStmt,
    AssignVarStmt,
    Block,
    BlockStmt,
    Bool,
    BreakStmt,
    BuiltinFunc,
    CallDynamicStmt,
    CallStmt,
    DotStmt,
    EqualStmt,
    Func,
    IRError,
    IsArrayStmt,
    IsDefinedStmt,
    IsObjectStmt,
    IsSetStmt,
    IsUndefinedStmt,
    LenStmt,
    Local,
    MakeArrayStmt,
    MakeNullStmt,
    MakeNumberIntStmt,
    MakeNumberRefStmt,
    MakeObjectStmt,
    MakeSetStmt,
    NopStmt,
    NotEqualStmt,
    NotStmt,
    ObjectInsertOnceStmt,
    ObjectInsertStmt,
    ObjectMergeStmt,
    Operand,
    Plan,
    Policy,
    ResetLocalStmt,
    ResultSetAddStmt,
    ReturnLocalStmt,
    ScanStmt,
    SetAddStmt,
    Static,
    Stmt,
    StringIndex,
    WithStmt,
    policy_bodies,
    walk_blocks,
)
from cupcake_py.ir.opa_json import dump, load
from cupcake_py.ir.printer import format_policy

__all__ = [
    "STATEMENT_BY_NAME", "STATEMENTS", "ArrayAppendStmt", "AssignIntStmt", "AssignVarOnceStmt",
    "AssignVarStmt", "Block", "BlockStmt", "Bool", "BreakStmt", "BuiltinFunc", "CallDynamicStmt",
    "CallStmt", "DotStmt", "EqualStmt", "Func", "IRError", "IsArrayStmt", "IsDefinedStmt",
    "IsObjectStmt", "IsSetStmt", "IsUndefinedStmt", "LenStmt", "Local", "MakeArrayStmt",
    "MakeNullStmt", "MakeNumberIntStmt", "MakeNumberRefStmt", "MakeObjectStmt", "MakeSetStmt",
    "NopStmt", "NotEqualStmt", "NotStmt", "ObjectInsertOnceStmt", "ObjectInsertStmt",
    "ObjectMergeStmt", "Operand", "Plan", "Policy", "ResetLocalStmt", "ResultSetAddStmt",
    "ReturnLocalStmt", "ScanStmt", "SetAddStmt", "Static", "Stmt", "StringIndex", "WithStmt",
    "policy_bodies", "walk_blocks",
    "dump", "load", "format_policy",
]  # fmt: skip
