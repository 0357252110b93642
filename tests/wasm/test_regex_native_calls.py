"""Compiled policies: regex.match / re_match with a constant pattern in the native subset never
call the host for string subjects; every other call (non-constant or unsupported or invalid
pattern, non-string subject) reaches the host as before; the answers equal those of the same
policy with the pattern taken from the input (always a host call); output is deterministic
and each distinct program is stored once."""

from __future__ import annotations

from typing import Any

import pytest

from cupcake_py.host import HostOptions, PolicyModule
from cupcake_py.host.builtins import lookup
from cupcake_py.plan import compile_query
from cupcake_py.wasm import compile_policy
from cupcake_py.wasm.regex_prog import compile_pattern

NATIVE = r"(^|[\s;&|])tool12\s+(-f|--force)(\s|$)"
QUERY = "x = data.t.r"


def _policy(call: str) -> Any:
    """The module calling `call`: v1, or v0 for the deprecated `re_match` (OPA 1.x refuses it in v1)."""
    if call.startswith("re_match("):
        from cupcake_py.rego import parse_module

        return parse_module(f"package t\nr := {call}\n", "t.rego", rego_version="v0")
    return f"package t\nimport rego.v1\nr := {call}\n"


def _instance(rego: Any, calls: list[tuple[str, tuple[Any, ...]]]) -> Any:
    wasm = compile_policy(compile_query([rego], QUERY, entrypoint="q"))
    module = PolicyModule(wasm, HostOptions(cache_dir=None))

    def counted(name: str) -> Any:
        impl = lookup(name)
        assert impl is not None

        def fn(ctx: Any, *args: Any) -> Any:
            calls.append((name, args))
            return impl.fn(ctx, *args)

        return fn

    return module.instantiate(builtins={n: counted(n) for n in ("regex.match", "re_match")})


def _answer(inst: Any, inp: dict[str, Any]) -> Any:
    try:
        return ("ok", inst.eval("q", inp))
    except Exception as exc:  # the host's error for a bad call, compared as text
        return ("error", type(exc).__name__, str(exc))


SUBJECTS: list[Any] = ["ls; tool12 --force x", "tool12 -f", "xtool12 -f", "tool12 -f\n", "é tool12 --force", "",
                       5, None, ["tool12 -f"], {"a": 1}]  # fmt: skip


@pytest.mark.parametrize("builtin", ["regex.match", "re_match"])
@pytest.mark.parametrize("pattern", [NATIVE, r"^a.c$", "(?i)TOOL12", "[[:alpha:]]+", "(", r"\pL"])
def test_answers_equal_the_host_path(builtin: str, pattern: str) -> None:
    const_calls: list[tuple[str, tuple[Any, ...]]] = []
    host_calls: list[tuple[str, tuple[Any, ...]]] = []
    const = _instance(_policy(f"{builtin}({_rego_string(pattern)}, input.s)"), const_calls)
    host = _instance(_policy(f"{builtin}(input.p, input.s)"), host_calls)
    native = compile_pattern(pattern) is not None
    for s in SUBJECTS:
        const_calls.clear()
        assert _answer(const, {"s": s}) == _answer(host, {"s": s, "p": pattern}), (pattern, s)
        to_host = not native or not isinstance(s, str)
        assert const_calls == ([(builtin, (pattern, s))] if to_host else []), (pattern, s)


def test_undefined_subject_is_undefined_without_a_call() -> None:
    calls: list[tuple[str, tuple[Any, ...]]] = []
    inst = _instance(_policy(f"regex.match({_rego_string(NATIVE)}, input.missing)"), calls)
    assert inst.eval("q", {}) == []
    assert calls == []


def test_deterministic_and_one_program_per_pattern() -> None:
    rego = _policy(f"[regex.match({_rego_string(NATIVE)}, input.s), regex.match({_rego_string(NATIVE)}, input.t)]")
    plan = compile_query([rego], QUERY, entrypoint="q")
    first = compile_policy(plan)
    assert first == compile_policy(compile_query([rego], QUERY, entrypoint="q"))
    program = compile_pattern(NATIVE)
    assert program is not None
    assert first.count(program) == 1


def _rego_string(s: str) -> str:
    return "`" + s + "`" if "`" not in s else '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'
