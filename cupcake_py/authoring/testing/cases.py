"""What a `cupcake test` run is made of, shared by every step of the runner (no logic).

In: nothing (types and constants). Out: TestCase (a discovered `test_*`/`todo_test_*` rule),
TestResult (its outcome, with a Failure diagnosis when it failed), FileCoverage, TestRun (the
whole run), TestOptions (the flags that change a run), Part (one compiled module and its tests)
and TestSetupError (tests that could not be loaded or compiled: exit status 1, as `opa test`).
"""

from __future__ import annotations

from cupcake_py.core.errors import CupcakeError, Location
from cupcake_py.core.record import Record

TYPE_CHECKING = False
if TYPE_CHECKING:  # (typing and dataclasses stay off a cached run's start-up: Record classes)
    from contextlib import AbstractContextManager
    from typing import Any, Literal

    from cupcake_py.authoring.target_settings import RegoSetting
    from cupcake_py.rego import ast as A

    Status = Literal["pass", "fail", "error", "skip"]
TEST_PREFIX = "test_"
TODO_PREFIX = "todo_test_"  # OPA's SkipTestPrefix: other `todo_*` rules are not tests
PHASES = ("parse", "compile", "plan", "wasm", "native", "eval", "diagnose")
UNDEFINED_TEXT = "<undefined>"


class TestSetupError(CupcakeError):
    """The tests could not be loaded or compiled at all (exit status 1, as `opa test`)."""

    __test__ = False  # (a product class: pytest must not collect it where a test module imports it)


class TestCase(Record):
    __test__ = False
    __slots__ = ("package", "name", "location", "rule", "module_index", "partial")

    def __init__(self, package: str, name: str, location: Location, rule: A.Rule | None, module_index: int,
                 partial: bool = False) -> None:
        # rule: None when the build came from the cache (re-parsed for a diagnosis); name: OPA's
        # (`test_x`, `a.test_x`, `test_x#01`); partial: a partial-object test (loading.is_partial_object)
        self._fill(package, name, location, rule, module_index, partial)

    package: str
    name: str
    location: Location
    rule: A.Rule | None
    module_index: int
    partial: bool

    @property
    def entrypoint(self) -> str:
        return "/".join([*self.package.split("."), *self.name.split(".")])

    @property
    def full_name(self) -> str:
        return f"data.{self.package}.{self.name}"

    def to_json(self) -> list[Any]:
        loc = self.location
        return [self.package, self.name, loc.file, loc.row, loc.col, self.module_index, self.partial]

    @classmethod
    def from_json(cls, row: list[Any]) -> TestCase:
        pkg, name, file, line, col, index, partial = row
        return cls(pkg, name, Location(file, line, col), None, index, partial)


class Failure(Record):
    """Where a failing test stopped: the first body expression that did not hold."""

    __slots__ = ("location", "source", "bindings", "operands", "labels", "every")

    def __init__(self, location: Location, source: str, bindings: list[Any] | None = None,
                 operands: list[Any] | None = None, labels: list[str] | None = None) -> None:
        # bindings: local variables bound before it (one per solution); operands: the values of
        # its operands ("<undefined>" when none; the sorted values when the solutions before it
        # give several); labels: each operand's Rego text, e.g. `count(deny)`
        self._fill(location, source, [] if bindings is None else bindings, [] if operands is None else operands,
                   [] if labels is None else labels, None)

    location: Location
    source: str
    bindings: list[Any]
    operands: list[Any]
    labels: list[str]
    every: Any  # (index in the body, the `every` expression) while the diagnosis looks inside it


class TestResult(Record):
    __test__ = False
    __slots__ = ("case", "status", "duration_s", "message", "value", "failure", "output")

    def __init__(self, case: TestCase, status: Status, duration_s: float = 0.0, message: str = "", value: Any = None,
                 failure: Failure | None = None, output: list[str] | None = None) -> None:
        self._fill(case, status, duration_s, message, value, failure, [] if output is None else output)

    case: TestCase
    status: Status
    duration_s: float
    message: str
    value: Any
    failure: Failure | None
    output: list[str]


class FileCoverage(Record):
    __slots__ = ("covered", "not_covered")

    def __init__(self, covered: set[int] | None = None, not_covered: set[int] | None = None) -> None:
        self._fill(set() if covered is None else covered, set() if not_covered is None else not_covered)

    covered: set[int]
    not_covered: set[int]

    @property
    def percent(self) -> float:
        total = len(self.covered) + len(self.not_covered)
        return 100.0 * len(self.covered) / total if total else 100.0


class TestRun(Record):
    __test__ = False
    __slots__ = ("results", "files", "data_files", "build_s", "wasm_size", "cached", "workers", "phases", "coverage")

    def __init__(self, results: list[TestResult] | None = None, files: list[str] | None = None,
                 data_files: list[str] | None = None, build_s: float = 0.0, wasm_size: int = 0, cached: bool = False,
                 workers: int = 1, phases: dict[str, float] | None = None,
                 coverage: dict[str, FileCoverage] | None = None) -> None:
        # cached: the test module came from the build cache
        self._fill([] if results is None else results, [] if files is None else files,
                   [] if data_files is None else data_files, build_s, wasm_size, cached, workers,
                   {} if phases is None else phases, coverage)

    results: list[TestResult]
    files: list[str]
    data_files: list[str]
    build_s: float
    wasm_size: int
    cached: bool
    workers: int
    phases: dict[str, float]
    coverage: dict[str, FileCoverage] | None

    def count(self, status: Status) -> int:
        return sum(1 for r in self.results if r.status == status)

    @property
    def ok(self) -> bool:
        return self.count("fail") == 0 and self.count("error") == 0


class TestOptions(Record):
    """What `cupcake test` flags change (docs/testing.md)."""

    __test__ = False
    __slots__ = ("run", "coverage", "strict", "deadline", "parallel", "cache", "builtins", "ignore", "rego")

    def __init__(self, run: str | None = None, coverage: bool = False, strict: bool = False, deadline: float = 5.0,
                 parallel: int = 0, cache: bool = True, builtins: Any = None, ignore: list[str] | None = None,
                 rego: RegoSetting | None = None) -> None:
        # run: --run/-r, a regex over data.pkg.test_name; strict: --strict-builtin-errors; deadline:
        # --timeout, per test; parallel: --parallel/-p, worker processes (0: one per CPU); builtins:
        # cupcake_py.extensions.builtins.CustomBuiltins; ignore: --ignore, fnmatch patterns of file/dir names;
        # rego: the Rego versions the files are read with (None: the current ones, rego.versions.use)
        self._fill(run, coverage, strict, deadline, parallel, cache, builtins, [] if ignore is None else ignore,
                   rego)

    run: str | None
    coverage: bool
    strict: bool
    deadline: float
    parallel: int
    cache: bool
    builtins: Any
    ignore: list[str]
    rego: RegoSetting | None

    def key_text(self) -> str:
        fp = self.builtins.fingerprint() if self.builtins else ""
        if self.rego is not None:  # (named without importing the Rego package: a cached run never loads it)
            rego = self.rego.key
        else:
            from cupcake_py.rego import versions  # (the Rego version settings only, not the parser)

            rego = f"current {versions.current()!r}"
        return f"run={self.run!r}\ncoverage={self.coverage}\nbuiltins={fp}\nrego={rego}\n"

    def rego_scope(self) -> AbstractContextManager[Any]:
        """A block that reads Rego files with `rego` (parsing happens only in a build or a diagnosis)."""
        if self.rego is None:
            from contextlib import nullcontext

            return nullcontext()
        from cupcake_py.rego import versions

        return versions.use(self.rego.versions())


Part = tuple[bytes, list[TestCase]]  # one compiled module and the tests it holds
