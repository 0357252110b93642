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


def test_name(head: A.Head) -> tuple[str, int] | None:
    """OPA's name of a test rule (tester.ruleName): the head ref's ground prefix up to its first
    term that starts with `test_` or `todo_test_` (`test_x`, `a.test_x` for `a.test_x.y if ...`),
    and how many head terms that is; None for any other rule."""
    from cupcake_py.rego import ast as A

    parts: list[str] = []
    for k, t in enumerate(head.ref.terms):
        v = t.value
        if k == 0 and isinstance(v, A.Var):
            part = v.name
        elif k > 0 and isinstance(v, A.String):
            part = v.value
        else:  # the ground prefix ends here
            return None
        parts.append(part)
        if part.startswith(TEST_PREFIX) or part.startswith(TODO_PREFIX):
            return ".".join(parts), k + 1
    return None


def is_partial_object(head: A.Head) -> bool:
    """OPA's PartialObjectDoc for a test: a two-term head ref whose key is a variable or a ref
    (`test_cases[name] if ...`, `test_cases[tc.note] := ... if`); such a test passes when every
    value is true (OPA's sub-results), any other test only when its value is `true`. (OPA also
    reads `test_x["k"] := v` written without `if` as a partial object; here it is complete.)"""
    from cupcake_py.rego import ast as A

    terms = head.ref.terms
    return head.key is None and head.args is None and len(terms) == 2 and isinstance(terms[1].value, A.Var | A.Ref)


def discover(modules: list[A.Module], run: str | None, own: int | None = None
             ) -> tuple[list[TestCase], list[TestCase]]:
    """(tests, todo tests): the `test_*` / `todo_test_*` rules without arguments of the first `own`
    modules (any file, as `opa test`), filtered by the `run` regex on the full name. As OPA's
    runner, every definition is a test of its own: a second `test_x` of a package is renamed
    `test_x#01` (in the module, so that it compiles as a rule of its own), a third `test_x#02`
    (`todo_test_*` rules keep their names)."""
    try:
        pattern = re.compile(run) if run else None
    except re.error as e:
        raise TestSetupError(f"--run: {run!r} is not a regular expression: {e}") from None
    from cupcake_py.rego import ast as A

    tests: list[TestCase] = []
    todos: list[TestCase] = []
    count: dict[tuple[str, str], int] = {}
    for i, m in enumerate(modules[:own]):
        pkg = m.package.dotted()
        for r in m.rules:
            found = test_name(r.head) if r.head.args is None else None
            if found is None:
                continue
            name, span = found
            last = name.rsplit(".", 1)[-1]
            if (pkg, name) in count and last.startswith(TEST_PREFIX):  # OPA's rewriteDuplicateTestNames
                renamed = f"{last}#{count[(pkg, name)]:02d}"
                term = r.head.ref.terms[span - 1]
                r.head.ref.terms[span - 1] = A.Term(A.Var(renamed) if span == 1 else A.String(renamed), term.location)
                count[(pkg, name)] += 1
                name = name[:len(name) - len(last)] + renamed
            else:
                count[(pkg, name)] = 1
            kind = tests if last.startswith(TEST_PREFIX) else todos
            case = TestCase(pkg, name, r.head.location, r, i, is_partial_object(r.head))
            if pattern is None or pattern.search(case.full_name):
                kind.append(case)
    return tests, todos
