"""Reusing the compiled modules of one chunk of tests across runs of `cupcake test` when only
files the chunk does not depend on changed (the edit-one-policy-and-rerun loop).

In: the program compiled in THIS run (every module is still parsed and compiled on every run,
so each load, compile and safety error is found exactly as without this cache), a chunk of
tests, their sources and the base key (`cache.build_key` without policy files: the
compiler's own files, the runner, the options, every data file, the shipped support policies).

Out: `chunk_key`: sha256 over the base key, the chunk's entrypoints and the path and content
hash of every file the chunk depends on: the files of the rules its tests can reach (the groups
their refs, calls, `with` targets and values lead to, transitively, by the compiler's own
dynamic lookup, `checks.ref_targets`, the same the recursion check relies on) and the files of
the same or enclosing packages (their METADATA feeds `rego.metadata.chain`). Planning reads
nothing else, so the same key gives the same modules byte for byte (tests/authoring/
test_test_parts.py builds a chunk before and after an unrelated edit and compares).
`build_or_reuse` returns the cached modules on a hit (no plan, no code generation, no native
compile when the host cache has them) and otherwise builds and stores them (only when every
test compiled). None from `chunk_key` (a test whose group the lookup cannot find) disables
the reuse for that chunk. Storage is `cache`'s: atomic writes in the private cache dir,
sha256-checked; a missing, damaged or mismatched entry is a miss and the chunk is built.
"""

from __future__ import annotations

from cupcake_py.authoring.testing import cache
from cupcake_py.authoring.testing.build import build_tests
from cupcake_py.authoring.testing.cases import Part, TestCase, TestResult
from cupcake_py.engine.bundle import sha256  # the builtin sha256 (hashlib loads OpenSSL: ~2 ms)
from cupcake_py.rego import ast as A
from cupcake_py.rego.compile.checks import all_exprs, expr_refs, ref_targets, rule_chain
from cupcake_py.rego.compile.nodes import Compiled, Group

TYPE_CHECKING = False
if TYPE_CHECKING:  # (typing stays off a first run's start-up)
    from collections.abc import Sequence
    from typing import Any


def _module_file(m: A.Module) -> str:
    return m.package.location.file


def dependencies(compiled: Compiled, cases: Sequence[TestCase]) -> set[str] | None:
    """The files the tests of `cases` depend on (None when a test's group is not found)."""
    groups: list[Group] = []
    seen: set[tuple[str, ...]] = set()

    def reach(found: list[Group]) -> None:
        for g in found:
            if g.path not in seen:
                seen.add(g.path)
                groups.append(g)

    for c in cases:
        path = tuple(c.entrypoint.split("/"))
        g = compiled.groups.get(path)
        if g is None:
            return None
        reach([g])
    files: set[str] = set()
    packages: set[tuple[str, ...]] = set()
    i = 0
    while i < len(groups):
        for r in rule_chain(groups[i]):
            files.add(_module_file(r.module))
            packages.add(tuple(r.module.package.dotted().split(".")))
            for e in all_exprs(r):
                for ref in expr_refs(e):
                    reach(ref_targets(ref, compiled.tree))
                for w in e.with_:
                    t = w.target.value
                    if isinstance(t, A.Ref):
                        reach(ref_targets(t, compiled.tree))
        i += 1
    enclosing = {q[:k] for q in packages for k in range(1, len(q) + 1)}
    for m in compiled.modules:  # package and subpackages METADATA: rego.metadata.chain
        if tuple(m.package.dotted().split(".")) in enclosing:
            files.add(_module_file(m))
    return files


def chunk_key(base: str, compiled: Compiled, cases: Sequence[TestCase], sources: dict[str, str]) -> str | None:
    files = dependencies(compiled, cases)
    if files is None:
        return None
    h = sha256(f"test chunk\n{base}\n".encode())
    for c in cases:
        h.update(f"test {c.entrypoint}\n".encode())
    for f in sorted(files):
        text = sources.get(f)
        # shipped support policies are not in `sources`: their contents are in the base key
        h.update(f"file {f} {sha256(text.encode()).hexdigest() if text is not None else '-'}\n".encode())
    return h.hexdigest()


def build_or_reuse(modules: list[A.Module], compiled: Compiled, cases: list[TestCase], sources: dict[str, str],
                   phases: dict[str, float], base: str) -> tuple[list[Part], list[TestResult]]:
    """`build.build_tests` for `cases`, served from the cache when their key matches."""
    key = chunk_key(base, compiled, cases, sources) if base else None
    if key is not None:
        hit = cache.load(key)
        if hit is not None and _fits(hit[0], len(cases), len(hit[1])):
            return [(wasm, [cases[k] for k in idx]) for wasm, idx in zip(hit[1], hit[0]["parts"], strict=True)], []
    parts, errors = build_tests(modules, cases, sources, phases, compiled)
    if key is not None and not errors:
        index = {(c.package, c.name): k for k, c in enumerate(cases)}
        cache.store(key, {"parts": [[index[(c.package, c.name)] for c in part] for _, part in parts]},
                         [wasm for wasm, _ in parts])
    return parts, errors


def _fits(meta: dict[str, Any], n: int, modules: int) -> bool:
    parts = meta.get("parts")
    if not isinstance(parts, list) or len(parts) != modules:
        return False
    flat = [k for p in parts if isinstance(p, list) for k in p]
    return sorted(flat) == list(range(n)) if all(isinstance(k, int) for k in flat) else False
