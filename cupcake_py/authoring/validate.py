"""`cupcake validate`: compile errors (front end + compile checks) plus the lint rules, over
every .rego file under the given paths.

Files are grouped by project (their nearest `.cupcake/` ancestor, else the path argument
they came from); each group is compile-checked on its own, so unrelated policy trees never
conflict. Signals are checked against the group's rulebook when it has a `.cupcake/`."""

from __future__ import annotations

import copy
import logging
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from cupcake_py.authoring import lint_cupcake, lint_harness, lint_hygiene
from cupcake_py.authoring.findings import SEVERITY_ORDER, Finding, finding
from cupcake_py.authoring.lint_context import Check, ModuleInfo, Project
from cupcake_py.authoring.support_policies import support_modules
from cupcake_py.core.errors import CupcakeError
from cupcake_py.rego import parse_module, read_source, rego_files_of
from cupcake_py.rego.errors import COMPILE, PARSE, RECURSION, TYPE, UNSAFE_VAR, RegoError, RegoErrors

log = logging.getLogger(__name__)

CHECKS: tuple[Check, ...] = (*lint_cupcake.CHECKS, *lint_harness.CHECKS, *lint_hygiene.CHECKS)

CODE_RULES = {PARSE: "parse-error", COMPILE: "compile-error", UNSAFE_VAR: "unsafe-var", RECURSION: "recursion",
              TYPE: "type-error"}
# Front-end messages that are really Cupcake's metadata-placement problem.
PLACEMENT_MESSAGES = ("must be applied to a package", "METADATA block is not followed")


GENERATED_VAR = re.compile(r"\bvar (__\w+__|\$\d+) is unsafe")


class ValidateError(CupcakeError):
    """A usage problem (missing path): reported without findings."""


@dataclass
class Report:
    files: list[str] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    sources: dict[str, str] = field(default_factory=dict)

    def count(self, severity: str) -> int:
        return sum(1 for f in self.findings if f.severity == severity)

    @property
    def failed(self) -> bool:
        return self.count("error") > 0


def _error_finding(e: RegoError, default_file: str) -> Finding:
    rule = CODE_RULES.get(e.code, "compile-error")
    if e.code == PARSE and any(m in e.message for m in PLACEMENT_MESSAGES):
        rule = "metadata-placement"
    loc = e.location
    file = loc.file if loc is not None and loc.file else default_file
    row, col = (loc.row, loc.col) if loc is not None else (1, 1)
    return finding(rule, file, row, col, e.message.replace("\n\t", "; "))


def _group_key(path: Path, arg: Path) -> Path:
    for parent in path.absolute().parents:
        if parent.name == ".cupcake":
            return parent
    return arg.absolute()


def collect_files(paths: Iterable[str | Path]) -> dict[Path, list[Path]]:
    """group key -> files, for every .rego file below the paths (in order, no duplicates)."""
    groups: dict[Path, list[Path]] = {}
    for arg, found in rego_files_of(paths):
        if found is None:
            raise ValidateError(f"no such file or directory: {arg}")
        for f in found:
            groups.setdefault(_group_key(f, arg), []).append(f)
    return groups


def project_signals(group: Path) -> set[str] | None:
    """Signal names a `.cupcake/` directory provides (rulebook, signals/ files); None when
    `group` is not one or its rulebook cannot be read."""
    if group.name != ".cupcake":
        return None
    from cupcake_py.engine.project import signal_files
    from cupcake_py.engine.rulebook import RulebookError, load_rulebook

    try:
        rulebook = load_rulebook(group / "rulebook.yml")
    except RulebookError as e:
        log.warning("%s", e)
        return None
    return set(rulebook.signals) | set(signal_files(group / "signals"))


def _compile_check(modules: list[ModuleInfo], default_file: str) -> list[Finding]:
    from cupcake_py.rego.compile import check_modules

    own = [copy.deepcopy(m.module) for m in modules]
    support = support_modules({m.package for m in modules})
    try:
        errors = list(check_modules(own + support))
    except RegoErrors as exc:
        errors = list(exc.errors)
    except RegoError as exc:
        errors = [exc]
    except CupcakeError as exc:
        errors = [RegoError(COMPILE, str(exc), None)]
    if len(errors) > 1:  # an unsafe compiler temporary is a follow-up of another error at the same place
        errors = [e for e in errors if not (e.code == UNSAFE_VAR and GENERATED_VAR.search(e.message))] or errors
    support_files = {m.package.location.file for m in support}
    return [_error_finding(e, default_file) for e in errors
            if e.location is None or e.location.file not in support_files]


def lint_group(files: list[Path], signals: set[str] | None, report: Report, only: set[str] | None = None) -> None:
    """Compile-check the group whole; run the lint rules on every file (on `only`, when given)."""
    infos: list[ModuleInfo] = []
    for f in files:
        name = str(f)
        report.files.append(name)
        try:
            text = read_source(f)
            report.sources[name] = text
            infos.append(ModuleInfo(parse_module(text, name), name, text))
        except RegoErrors as exc:
            report.findings.extend(_error_finding(e, name) for e in exc.errors)
    if infos:
        report.findings.extend(_compile_check(infos, infos[0].file))
    proj = Project(infos, signals)
    lint_hygiene.build_references(proj)
    for mi in infos:
        if only is not None and mi.file not in only:
            continue
        for check in CHECKS:
            report.findings.extend(check(mi, proj))


def validate_paths(paths: Iterable[str | Path], only: set[str] | None = None) -> Report:
    """Findings for every .rego file under `paths` (`only`: lint rules just for these files)."""
    report = Report()
    for group, files in collect_files(paths).items():
        lint_group(files, project_signals(group), report, only)
    report.findings = sorted(set(report.findings), key=lambda f: (*f.sort_key(), SEVERITY_ORDER[f.severity]))
    return report
