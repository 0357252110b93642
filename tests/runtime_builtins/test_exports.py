"""runtime.wasm exports exactly the native builtins of this area (the code generator
treats a builtin as native iff its opa_bi_* symbol is exported)."""

from __future__ import annotations

from cupcake_py.wasm import abi

from .compliance_calls import ARITY
from .harness import Runtime

# host builtins whose common cases the runtime answers first (opa_bi_try_*, 0 = ask the host)
TRY_FIRST = ["sprintf"]
HOST_SIDE = ["sprintf", "regex.match", "re_match", "regex.is_valid", "regex.find_all_string_submatch_n", "glob.match"]


def test_every_native_builtin_is_exported(rt: Runtime) -> None:
    missing = [name for name in ARITY if not rt.has(name)]
    assert not missing, f"not exported: {missing}"
    assert len(ARITY) == 89


def test_regex_and_glob_stay_on_the_host(rt: Runtime) -> None:
    assert not [name for name in HOST_SIDE if rt.has(name)]


def test_no_unknown_builtin_exports(rt: Runtime) -> None:
    known = {"opa_bi_" + n.replace(".", "_") for n in ARITY} | {abi.try_symbol(n) for n in TRY_FIRST}
    extra = sorted(e for e in rt.export_names if e.startswith("opa_bi_") and e not in known)
    assert not extra, f"exported but not listed: {extra}"


def test_try_first_builtins_are_exported(rt: Runtime) -> None:
    assert all(abi.try_symbol(n) in rt.export_names for n in TRY_FIRST)
