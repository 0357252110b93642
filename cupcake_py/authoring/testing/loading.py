"""The files of a `cupcake test` run and the tests in them.

In: the paths given on the command line. Out: `load_modules` (those files parsed,
plus the shipped support policies when the paths do not bring their own and their modules can
reach them: `support_policies.may_reach_support`), `discover` (the
`test_*` / `todo_test_*` rules without arguments, filtered by --run). A file that cannot be read or
parsed, and a --run that is not a regular expression, raise TestSetupError (exit status 1).
"""

from __future__ import annotations

import re

from cupcake_py.authoring.support_policies import may_reach_support, support_modules
from cupcake_py.authoring.testing.cases import TEST_PREFIX, TODO_PREFIX, TestCase, TestSetupError
from cupcake_py.authoring.testing.files import rego_files
from cupcake_py.rego import parse_module, read_source
from cupcake_py.rego.errors import RegoErrors, format_text

TYPE_CHECKING = False
if TYPE_CHECKING:  # (the AST is loaded by the parser; finding files, on a cached run, needs neither)
    from pathlib import Path

    from cupcake_py.rego import ast as A


def load_modules(paths: list[str | Path], files: list[str] | None = None
                 ) -> tuple[list[A.Module], dict[str, str], int]:
    """(modules incl. support modules, sources, number of modules from `paths`)."""
    files = rego_files(paths) if files is None else files
    modules: list[A.Module] = []
    sources: dict[str, str] = {}
    errors = []
    for f in files:
        try:
            sources[str(f)] = read_source(f)
            modules.append(parse_module(sources[str(f)], str(f)))
        except RegoErrors as e:
            errors.extend(e.errors)
    if errors:
        raise TestSetupError(format_text(errors, sources))
    own = len(modules)
    packages = {m.package.dotted() for m in modules}
    if may_reach_support(packages, sources.values()):  # (else they cannot change a result)
        modules += support_modules(packages)
    return modules, sources, own


def is_test_file(module: A.Module) -> bool:
    return module.package.location.file.endswith("_test.rego")


def discover(modules: list[A.Module], run: str | None, own: int | None = None
             ) -> tuple[list[TestCase], list[TestCase]]:
    """(tests, todo tests): the `test_*` / `todo_test_*` rules without arguments of the first `own`
    modules (any file, as `opa test`), filtered by the `run` regex on the full name."""
    try:
        pattern = re.compile(run) if run else None
    except re.error as e:
        raise TestSetupError(f"--run: {run!r} is not a regular expression: {e}") from None
    tests: list[TestCase] = []
    todos: list[TestCase] = []
    seen: set[tuple[str, str]] = set()
    for i, m in enumerate(modules[:own]):
        pkg = m.package.dotted()
        for r in m.rules:
            name = r.head.name
            kind = tests if name.startswith(TEST_PREFIX) else todos if name.startswith(TODO_PREFIX) else None
            if kind is None or r.head.args is not None or (pkg, name) in seen:
                continue
            seen.add((pkg, name))
            case = TestCase(pkg, name, r.head.location, r, i)
            if pattern is None or pattern.search(case.full_name):
                kind.append(case)
    return tests, todos
