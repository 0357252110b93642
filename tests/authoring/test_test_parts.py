"""Reuse of a chunk's compiled test modules across `cupcake test` runs (authoring/testing/parts.py):
the dependencies of a chunk, byte-identical modules after an unrelated edit, reuse when only
unrelated files changed, a rebuild (and the new results) when a dependency changed, and damaged
cache entries ignored."""

from __future__ import annotations

from pathlib import Path

import pytest

from cupcake_py.authoring.testing import cache, parts
from cupcake_py.authoring.testing.build import compile_wasm
from cupcake_py.authoring.testing.cases import TestCase, TestRun
from cupcake_py.authoring.testing.loading import discover, load_modules
from cupcake_py.authoring.testing.runner import run_tests
from cupcake_py.core.errors import Location
from cupcake_py.rego.compile import compile_modules

LIB = """package corp.lib

import rego.v1

tagged(cmd, tag) if startswith(cmd, tag)
"""

POLICY = """package corp.p{i}

import data.corp.lib
import rego.v1

deny contains "p{i}" if lib.tagged(input.command, "tool{i}")
"""

TEST = """package corp.p{i}_test

import data.corp.p{i}
import rego.v1

test_fires if {{
\tp{i}.deny == {{"p{i}"}} with input as {{"command": "tool{i} x"}}
}}

test_quiet if {{
\tcount(p{i}.deny) == 0 with input as {{"command": "ls"}}
}}
"""


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    root = tmp_path / "policies"
    (root / "corp").mkdir(parents=True)
    (root / "corp" / "lib.rego").write_text(LIB)
    for i in range(3):
        (root / "corp" / f"p{i}.rego").write_text(POLICY.format(i=i))
    for i in (0, 1):  # p2 has no tests
        (root / "corp" / f"p{i}_test.rego").write_text(TEST.format(i=i))
    return root


def _compiled(root: Path) -> tuple[list[TestCase], object, dict[str, str], list[object]]:
    modules, sources, own = load_modules([root])
    tests, _ = discover(modules, None, own)
    return tests, compile_modules(modules), sources, modules  # type: ignore[return-value]


def test_dependencies_are_the_reachable_files(tree: Path) -> None:
    tests, compiled, _, _ = _compiled(tree)
    p0 = [c for c in tests if c.package == "corp.p0_test"]
    files = parts.dependencies(compiled, p0)  # type: ignore[arg-type]
    assert files is not None
    own = {Path(f).name for f in files if f.startswith(str(tree))}
    assert own == {"lib.rego", "p0.rego", "p0_test.rego"}


def test_unrelated_edit_keeps_the_key_and_the_bytes(tree: Path) -> None:
    tests, compiled, sources, modules = _compiled(tree)
    p0 = [c for c in tests if c.package == "corp.p0_test"]
    key = parts.chunk_key("base", compiled, p0, sources)  # type: ignore[arg-type]
    wasm = compile_wasm(modules, [c.entrypoint for c in p0], {}, compiled)  # type: ignore[arg-type]
    # an earlier file (shifts every generated name of the compile) and an edit of p1
    (tree / "corp" / "a_first.rego").write_text("package corp.a\n\nimport rego.v1\n\nr if { some x in [1]; x > 0 }\n")
    (tree / "corp" / "p1.rego").write_text(POLICY.format(i=1) + "\nextra := 1\n")
    tests, compiled, sources, modules = _compiled(tree)
    p0 = [c for c in tests if c.package == "corp.p0_test"]
    assert parts.chunk_key("base", compiled, p0, sources) == key  # type: ignore[arg-type]
    assert compile_wasm(modules, [c.entrypoint for c in p0], {}, compiled) == wasm  # type: ignore[arg-type]
    (tree / "corp" / "lib.rego").write_text(LIB + "\nother := 2\n")
    tests, compiled, sources, _ = _compiled(tree)
    p0 = [c for c in tests if c.package == "corp.p0_test"]
    assert parts.chunk_key("base", compiled, p0, sources) != key  # type: ignore[arg-type]


def _statuses(run: TestRun) -> dict[str, str]:
    return {r.case.full_name: r.status for r in run.results}


def test_an_untested_file_edit_reuses_the_modules(tree: Path) -> None:
    first = run_tests([tree])
    assert first.ok and len(first.results) == 4 and "plan" in first.phases
    (tree / "corp" / "p2.rego").write_text(POLICY.format(i=2) + "\nextra := 1\n")
    again = run_tests([tree])
    assert not again.cached  # the whole-build cache missed ...
    assert "plan" not in again.phases and "wasm" not in again.phases  # ... the chunk was reused
    assert _statuses(again) == _statuses(first)


def test_a_dependency_edit_rebuilds_and_changes_the_results(tree: Path) -> None:
    assert run_tests([tree]).ok
    (tree / "corp" / "lib.rego").write_text(LIB.replace("startswith(cmd, tag)", "endswith(cmd, tag)"))
    run = run_tests([tree])
    assert "plan" in run.phases
    assert {n for n, s in _statuses(run).items() if s == "fail"} == {
        "data.corp.p0_test.test_fires", "data.corp.p1_test.test_fires"}


def test_damaged_entries_are_rebuilt(tree: Path) -> None:
    first = run_tests([tree])
    for entry in Path(cache.cache_dir()).glob("*.tests"):
        blob = bytearray(entry.read_bytes())
        blob[-10] ^= 0xFF  # flip a byte of the stored WASM: the checksum no longer matches
        entry.write_bytes(bytes(blob))
    (tree / "corp" / "p2.rego").write_text(POLICY.format(i=2) + "\nextra := 1\n")
    again = run_tests([tree])
    assert "plan" in again.phases and _statuses(again) == _statuses(first)


def test_chunks_are_small_stable_and_never_split_a_package() -> None:
    from cupcake_py.authoring.testing.workers import CHUNK_TESTS, chunk_count, chunks_of

    cases = [TestCase(f"p{i // 3}", f"test_{i}", Location("f", 1, 1), None, 0) for i in range(1000)]
    n = chunk_count(len(cases), 2)
    assert n == 4 and chunk_count(10, 2) == 2 and chunk_count(10, 1) == 1
    chunks = chunks_of(cases, n)
    assert [k for c in chunks for k in c] == list(range(1000))
    assert all(len(c) <= CHUNK_TESTS + 3 for c in chunks)
    for a, b in zip(chunks, chunks[1:], strict=False):
        assert cases[a[-1]].package != cases[b[0]].package
    assert chunks_of(cases, chunk_count(len(cases), 2)) == chunks  # the same tests, the same chunks
