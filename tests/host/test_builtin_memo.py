"""Within one evaluation, a pure host builtin (MEMO_BUILTINS) called again with the same string
arguments reuses the first result; other arguments, a new evaluation, non-string arguments and
failed calls run the implementation again, and every answer is the one without the memo.
(The patterns come from the input: a constant pattern in the native subset never reaches the
host, see tests/wasm/test_regex_native_calls.py.)"""

from __future__ import annotations

from typing import Any

from cupcake_py.host import HostOptions, PolicyModule
from cupcake_py.host.builtin_dispatch import MEMO_BUILTINS
from cupcake_py.host.builtins import lookup
from cupcake_py.plan import compile_query
from cupcake_py.wasm import compile_policy

POLICY = """package t
import rego.v1
same := [regex.match(input.p, x) | some x in ["aa", "aa", "b", "aa", input.s]]
rep := [regex.replace(x, "a", "b") | some x in ["aa", "aa", "ca"]]
bad := [1 | some p in ["(", "(", "a"]; regex.match(p, "a")]
"""


def _instance(counts: dict[str, int]) -> Any:
    plan = compile_query([POLICY], "x = [data.t.same, data.t.rep, data.t.bad]", entrypoint="q")
    module = PolicyModule(compile_policy(plan), HostOptions(cache_dir=None))

    def counted(name: str) -> Any:
        impl = lookup(name)
        assert impl is not None

        def fn(ctx: Any, *args: Any) -> Any:
            counts[name] = counts.get(name, 0) + 1
            return impl.fn(ctx, *args)

        return fn

    return module.instantiate(builtins={n: counted(n) for n in ("regex.match", "regex.replace")})


def test_repeated_pure_calls_run_once_per_evaluation() -> None:
    assert {"regex.match", "regex.replace"} <= MEMO_BUILTINS
    counts: dict[str, int] = {}
    inst = _instance(counts)
    got = inst.eval("q", {"s": "aa", "p": "^a+$"})[0]["x"]
    assert got == [[True, True, False, True, True], ["bb", "bb", "cb"], [1]]
    # distinct string arguments: ("^a+$","aa"), ("^a+$","b"); ("aa","a","b"), ("ca","a","b");
    # the invalid pattern "(" fails each time (failures are not remembered), "a" once
    assert counts == {"regex.match": 2 + 2 + 1, "regex.replace": 2}
    counts.clear()
    assert inst.eval("q", {"s": "c", "p": "^a+$"})[0]["x"] == [[True, True, False, True, False], ["bb", "bb", "cb"], [1]]
    assert counts == {"regex.match": 3 + 2 + 1, "regex.replace": 2}  # a new evaluation starts afresh
