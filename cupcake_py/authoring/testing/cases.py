"""What a `cupcake test` run is made of, shared by every step of the runner (no logic).

In: nothing (types and constants). Out: TestCase (a discovered `test_*`/`todo_*` rule),
TestResult (its outcome, with a Failure diagnosis when it failed), FileCoverage, TestRun (the
whole run), TestOptions (the flags that change a run), Part (one compiled module and its tests)
and TestSetupError (tests that could not be loaded or compiled: exit status 1, as `opa test`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from cupcake_py.errors import CupcakeError, Location

if TYPE_CHECKING:
    from cupcake_py.rego import ast as A

Status = Literal["pass", "fail", "error", "skip"]
TEST_PREFIX = "test_"
TODO_PREFIX = "todo_"
PHASES = ("parse", "compile", "plan", "wasm", "native", "eval", "diagnose")
UNDEFINED_TEXT = "<undefined>"


class TestSetupError(CupcakeError):
    """The tests could not be loaded or compiled at all (exit status 1, as `opa test`)."""

    __test__ = False  # (a product class: pytest must not collect it where a test module imports it)


@dataclass
class TestCase:
    __test__ = False

    package: str
    name: str
    location: Location
    rule: A.Rule | None  # None when the build came from the cache (re-parsed for a diagnosis)
    module_index: int

    @property
    def entrypoint(self) -> str:
        return "/".join([*self.package.split("."), self.name])

    @property
    def full_name(self) -> str:
        return f"data.{self.package}.{self.name}"

    def to_json(self) -> list[Any]:
        loc = self.location
        return [self.package, self.name, loc.file, loc.row, loc.col, self.module_index]

    @classmethod
    def from_json(cls, row: list[Any]) -> TestCase:
        pkg, name, file, line, col, index = row
        return cls(pkg, name, Location(file, line, col), None, index)


@dataclass
class Failure:
    """Where a failing test stopped: the first body expression that did not hold."""

    location: Location
    source: str
    bindings: list[Any] = field(default_factory=list)  # local variables bound before it (one per solution)
    operands: list[Any] = field(default_factory=list)  # values of its operands ("<undefined>" when none)


@dataclass
class TestResult:
    __test__ = False

    case: TestCase
    status: Status
    duration_s: float = 0.0
    message: str = ""
    value: Any = None
    failure: Failure | None = None
    output: list[str] = field(default_factory=list)


@dataclass
class FileCoverage:
    covered: set[int] = field(default_factory=set)
    not_covered: set[int] = field(default_factory=set)

    @property
    def percent(self) -> float:
        total = len(self.covered) + len(self.not_covered)
        return 100.0 * len(self.covered) / total if total else 100.0


@dataclass
class TestRun:
    __test__ = False

    results: list[TestResult] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    data_files: list[str] = field(default_factory=list)
    build_s: float = 0.0
    wasm_size: int = 0
    cached: bool = False  # the test module came from the build cache
    workers: int = 1
    phases: dict[str, float] = field(default_factory=dict)
    coverage: dict[str, FileCoverage] | None = None

    def count(self, status: Status) -> int:
        return sum(1 for r in self.results if r.status == status)

    @property
    def ok(self) -> bool:
        return self.count("fail") == 0 and self.count("error") == 0


@dataclass
class TestOptions:
    """What `cupcake test` flags change (docs/testing.md)."""

    __test__ = False

    run: str | None = None  # --run/-r: regex over data.pkg.test_name
    coverage: bool = False
    strict: bool = False  # --strict-builtin-errors
    deadline: float = 5.0  # --timeout, per test
    parallel: int = 0  # --parallel/-p: worker processes (0: one per CPU)
    cache: bool = True
    builtins: Any = None  # cupcake_py.custom_builtins.CustomBuiltins
    ignore: list[str] = field(default_factory=list)  # --ignore: fnmatch patterns of file/dir names

    def key_text(self) -> str:
        from cupcake_py.rego import versions  # (the Rego version settings only, not the parser)

        fp = self.builtins.fingerprint() if self.builtins else ""
        return f"run={self.run!r}\ncoverage={self.coverage}\nbuiltins={fp}\nrego={versions.current()!r}\n"


Part = tuple[bytes, list[TestCase]]  # one compiled module and the tests it holds
