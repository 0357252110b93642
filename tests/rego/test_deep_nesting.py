"""Deeply nested Rego (`[[[…]]]`, `{"a": {…}}`, `((…))`, `f(f(…))`, `x[x[…]]`, nested `every`
bodies) and long operator chains (`a + a + …`): every stage (parser, compiler, planner, code
generator, host, `cupcake test`'s reports, the Rego commands) takes them up to the parser's
limits (MAX_NESTING levels, MAX_OPERANDS operands in one chain; OPA compiles such input too) and
past them reports one clean `file:row:col` parse error: never a RecursionError traceback."""

from __future__ import annotations

import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from cupcake_py.core.deep_stack import recursion_limit
from cupcake_py.host import HostOptions, PolicyModule
from cupcake_py.plan import compile_query
from cupcake_py.rego.errors import RegoErrors
from cupcake_py.rego.parser import MAX_NESTING, MAX_OPERANDS, NESTED_TOO_DEEPLY, TOO_MANY_OPERANDS
from cupcake_py.wasm import compile_policy

# shape -> (rule text of n levels, value of data.p.x with input {"a": 1})
SHAPES = {
    "array": lambda n: ("x := " + "[" * n + "1" + "]" * n, "nested"),
    "object": lambda n: ("x := " + '{"a": ' * n + "1" + "}" * n, "nested"),
    "set": lambda n: ("x := " + "{" * n + "1" + "}" * n, "nested"),
    "parentheses": lambda n: ("x := " + "(" * n + "input.a" + ")" * n, 1),
    "calls": lambda n: ("x := " + "abs(" * n + "-1" + ")" * n, 1),
    "ref brackets": lambda n: ("x := " + "input.b[" * n + "0" + "]" * n, 0),
    "every bodies": lambda n: ("x if {\n" + "every y in [1] {\n" * n + "input.a == 1\n" + "}\n" * n + "}", True),
}
LEVELS_PER_NEST = {"every bodies": 1}  # (a body is one level, the `every` term inside is one more)


def _depth(v: object) -> int:
    d = 0
    while isinstance(v, list | dict | frozenset):
        v = v[0] if isinstance(v, list) else next(iter(v.values() if isinstance(v, dict) else v))
        d += 1
    return d


def _run(rule: str) -> object:
    policy = compile_query([f"package p\n\n{rule}\n"], "x = data.p.x", entrypoint="eval")
    rows = PolicyModule(compile_policy(policy), HostOptions(cache_dir=None, compiler="winch")) \
        .instantiate().eval("eval", {"a": 1, "b": [0]}, keep_sets=True)
    return rows[0]["x"] if rows else None


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_nesting_up_to_the_limit_compiles_and_runs(shape: str) -> None:
    n = MAX_NESTING - 10
    rule, want = SHAPES[shape](n)
    got = _run(rule)
    if want == "nested":
        assert _depth(got) == n
    else:
        assert got == want


@pytest.mark.parametrize("shape", sorted(SHAPES))
@pytest.mark.parametrize("n", [MAX_NESTING + 1, 5 * MAX_NESTING])
def test_nesting_past_the_limit_is_one_located_error(shape: str, n: int) -> None:
    rule, _ = SHAPES[shape](n)
    with pytest.raises(RegoErrors) as info:
        compile_query([f"package p\n\n{rule}\n"], "x = data.p.x", entrypoint="eval")
    first = info.value.errors[0]
    assert first.message == NESTED_TOO_DEEPLY
    assert first.location.file and first.location.row >= 3 and first.location.col >= 1


def test_long_operator_chain_compiles_and_past_the_limit_is_an_error() -> None:
    assert _run("x := " + " + ".join(["input.a"] * 10_000)) == 10_000
    with pytest.raises(RegoErrors) as info:
        compile_query(["package p\n\nx := " + " + ".join(["1"] * (MAX_OPERANDS + 1)) + "\n"], "x = data.p.x",
                      entrypoint="eval")
    assert [e.message for e in info.value.errors] == [TOO_MANY_OPERANDS]
    assert info.value.errors[0].location.row == 3


def _cupcake(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cupcake_py", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=300, env={"PATH": "/usr/bin:/bin", "HOME": str(cwd), "XDG_CACHE_HOME": str(cwd / "c")})


def test_commands_take_deep_policies_without_a_traceback(tmp_path: Path) -> None:
    n = MAX_NESTING - 10
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "deep.rego").write_text(
        "package deep\n\nx := " + "[" * n + "1" + "]" * n + "\n\ntest_x if count(x) == 1\n\ntest_fails if x == 2\n")
    (tmp_path / "p" / "every.rego").write_text("package ev\n\n" + SHAPES["every bodies"](n - 10)[0] + "\n")
    commands = {
        "test": ("test", "p"),
        "test json": ("test", "--format", "json", "--no-cache", "p"),
        "test coverage": ("test", "--coverage", "--no-cache", "p"),
        "parse": ("parse", "p/deep.rego"),
        "fmt": ("fmt", "p/every.rego"),
        "check": ("check", "p"),
        "query": ("query", "-d", "p", "--format", "json", "data.deep.x"),
    }
    with ThreadPoolExecutor(4) as pool:  # (independent processes: their wall time overlaps)
        futures = {k: pool.submit(_cupcake, *args, cwd=tmp_path) for k, args in commands.items()}
        runs = {k: f.result() for k, f in futures.items()}
    assert {k: r.stderr[-300:] for k, r in runs.items() if "Traceback" in r.stderr + r.stdout} == {}
    assert runs["test"].returncode == 2 and "PASS: 1/2" in runs["test"].stdout
    report = json.loads(runs["test json"].stdout)
    assert [r.get("fail", False) for r in report] == [False, True]
    assert runs["test coverage"].returncode == 2
    assert [runs[k].returncode for k in ("parse", "fmt", "check", "query")] == [0, 0, 0, 0]
    with recursion_limit(10 * n):
        assert _depth(json.loads(runs["query"].stdout)["result"][0]["expressions"][0]["value"]) == n


def test_a_file_past_the_limit_is_a_clean_command_error(tmp_path: Path) -> None:
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "deep.rego").write_text("package deep\n\nx := " + "(" * 5000 + "1" + ")" * 5000 + "\n")
    for args in (("test", "p"), ("check", "p"), ("parse", "p/deep.rego")):
        r = _cupcake(*args, cwd=tmp_path)
        assert r.returncode == 1, args
        assert "Traceback" not in r.stderr
        assert f"p/deep.rego:3:{len('x := ') + MAX_NESTING + 1}: rego_parse_error: {NESTED_TOO_DEEPLY}" in r.stderr
