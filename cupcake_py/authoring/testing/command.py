"""`cupcake test` as a command: its flags read from argv without typer, and one run of it
(the report written, the exit status returned), shared by the typer command and the lean path.

In: `parse(argv)` takes the arguments after `test`. It reads the plain forms of the command's
flags (`--flag`, `--opt VALUE`, `--opt=VALUE`, `-x VALUE`) and paths; it returns None, and
the typer command (cupcake_py/cli/authoring.py, the source of truth for --help, usage errors
and every other form) takes the command line instead, for: --help/-h, --watch, no PATHS
(the project's default .cupcake/ is found by the typer command), combined short flags,
`--`, a flag it does not know, a value that the typer command would refuse or convert
differently (a format not offered, a threshold outside 0..100, a parallel that is not a plain
count, a timeout that is not a duration, a value that starts with "-"). `main(argv)` is what
cupcake_py.app.entry calls before it imports typer: the exit status, or None for "ask typer".

`run_once(targets, args)`: the tests run (runner.run_tests), the report on stdout in the asked
format (output.py), `-v` phase times and messages on stderr. Exit status as `opa test`: 0 all
passed; 2 a test failed, errored or was skipped (unless -z), or coverage below --threshold;
1 the tests could not be loaded or compiled (`cupcake: <reason>` on stderr), or
--fail-on-empty and no test ran. Both paths give byte-identical output
(tests/authoring/test_test_command.py).
"""

from __future__ import annotations

import errno
import os
import sys

from cupcake_py.core.errors import CupcakeError
from cupcake_py.core.record import Record

TYPE_CHECKING = False
if TYPE_CHECKING:  # (typing, dataclasses, pathlib and re stay off the start-up this module exists for)
    from pathlib import Path
    from typing import Any

FORMATS = {"text": "text", "json": "json", "pretty": "text", "table": "text"}  # as cli/options.format_option
_UNITS = (("ms", 0.001), ("s", 1.0), ("m", 60.0))  # (longest suffix first: "ms" before "m" and "s")


def _count(text: str) -> bool:
    """`text` is DIGITS (decimal digits, as the regex `\\d+`; `re` stays off the start-up)."""
    return text.isdecimal()


def _number(text: str) -> bool:
    """`text` is `DIGITS` or `DIGITS.DIGITS`."""
    whole, dot, frac = text.partition(".")
    return _count(whole) and (not dot or _count(frac))


def duration(text: str) -> float | None:
    """`5`, `5s`, `500ms`, `1m` in seconds (OPA's --timeout takes a Go duration); None when not one."""
    body = text.strip()  # (whitespace as the regex `\\s`)
    scale = 1.0
    for unit, factor in _UNITS:
        if body.endswith(unit):
            body, scale = body[:-len(unit)].rstrip(), factor
            break
    if not _number(body) or float(body) <= 0:
        return None
    return float(body) * scale


class TestArgs(Record):
    """The flags of one `cupcake test` run (their meaning: `cupcake test --help`)."""

    __test__ = False
    __slots__ = ("run", "fmt", "coverage", "threshold", "verbose", "strict_builtin_errors", "timeout", "parallel",
                 "exit_zero_on_skipped", "fail_on_empty", "ignore", "builtins", "no_cache", "v0_compatible",
                 "var_values")

    def __init__(self, run: str | None = None, fmt: str = "text", coverage: bool = False, threshold: float = 0.0,
                 verbose: bool = False, strict_builtin_errors: bool = False, timeout: float = 5.0, parallel: int = 0,
                 exit_zero_on_skipped: bool = False, fail_on_empty: bool = False, ignore: list[str] | None = None,
                 builtins: list[str] | None = None, no_cache: bool = False, v0_compatible: bool = False,
                 var_values: bool = False) -> None:
        self._fill(run, fmt, coverage, threshold, verbose, strict_builtin_errors, timeout, parallel,
                   exit_zero_on_skipped, fail_on_empty, [] if ignore is None else ignore,
                   [] if builtins is None else builtins, no_cache, v0_compatible, var_values)

    run: str | None
    fmt: str
    coverage: bool
    threshold: float
    verbose: bool
    strict_builtin_errors: bool
    timeout: float
    parallel: int
    exit_zero_on_skipped: bool
    fail_on_empty: bool
    ignore: list[str]
    builtins: list[str]
    no_cache: bool
    v0_compatible: bool
    var_values: bool


# flag -> TestArgs field set to True (flags the lean path passes to typer are absent)
_FLAGS = {"--coverage": "coverage", "-c": "coverage", "--verbose": "verbose", "-v": "verbose",
          "--strict-builtin-errors": "strict_builtin_errors", "--exit-zero-on-skipped": "exit_zero_on_skipped",
          "-z": "exit_zero_on_skipped", "--fail-on-empty": "fail_on_empty", "--no-cache": "no_cache",
          "--v0-compatible": "v0_compatible", "--var-values": "var_values", "--global": "",  # --global: no effect when PATHS are given
          "--bundle": "", "-b": ""}  # -b: a directory's .manifest applies with or without it


def _format(v: str) -> str | None:
    return FORMATS.get(v)


def _threshold(v: str) -> float | None:
    return float(v) if _number(v) and float(v) <= 100.0 else None


def _parallel(v: str) -> int | None:
    return int(v) if _count(v) else None


def _text(v: str) -> str | None:
    return v


# option -> (TestArgs field, value reader; None: a value typer reads otherwise), list options append
_OPTIONS: dict[str, tuple[str, Any]] = {
    "--run": ("run", _text), "-r": ("run", _text), "--format": ("fmt", _format), "-f": ("fmt", _format),
    "--threshold": ("threshold", _threshold), "--timeout": ("timeout", duration),
    "--parallel": ("parallel", _parallel), "-p": ("parallel", _parallel), "--ignore": ("ignore", _text),
    "--custom-builtins": ("builtins", _text), "--builtins": ("builtins", _text),
    "--policy-dir": ("", _text), "--dir": ("", _text),  # no effect when PATHS are given
}


def parse(argv: list[str]) -> tuple[list[str], TestArgs] | None:
    """(PATHS, flags) of `cupcake test ARGV`, or None: the typer command reads this command line.
    PATHS are kept as written (str: pathlib stays off a cached run's start-up)."""
    args = TestArgs()
    paths: list[str] = []
    i = 0
    while i < len(argv):
        token = argv[i]
        i += 1
        if not token.startswith("-") or token == "-":
            if token == "-":
                return None
            paths.append(token)
            continue
        name, eq, inline = token.partition("=") if token.startswith("--") else (token, "", "")
        if name in _FLAGS and not eq:
            if _FLAGS[name]:
                setattr(args, _FLAGS[name], True)
            continue
        if name not in _OPTIONS:
            return None  # --help, --watch, combined short flags, `--`, a typo: typer's to answer
        if eq:
            raw = inline
        elif i < len(argv) and not argv[i].startswith("-"):
            raw, i = argv[i], i + 1
        else:
            return None
        key, read = _OPTIONS[name]
        value = read(raw)
        if value is None:
            return None
        if key in ("ignore", "builtins"):
            getattr(args, key).append(value)
        elif key:
            setattr(args, key, value)
    return (paths, args) if paths else None


def _fail(message: str, code: int) -> int:
    sys.stderr.write(f"cupcake: {message}\n")
    return code


def run_once(targets: list[str] | list[Path], args: TestArgs) -> int:
    """One run of the tests under `targets`: the report written, the exit status returned."""
    from cupcake_py.authoring import target_settings
    from cupcake_py.authoring.progress import progress
    from cupcake_py.authoring.testing import output
    from cupcake_py.authoring.testing.cases import TestOptions
    from cupcake_py.authoring.testing.runner import run_tests
    from cupcake_py.core.gc_pause import gc_paused

    paths: list[str | Path] = list(targets)
    try:
        opts = TestOptions(run=args.run, coverage=args.coverage or args.threshold > 0,
                           strict=args.strict_builtin_errors, deadline=args.timeout, parallel=args.parallel,
                           cache=not args.no_cache, ignore=list(args.ignore),
                           builtins=target_settings.custom_builtins([*target_settings.rulebook_specs(paths),
                                                                     *args.builtins]),
                           rego=target_settings.rego_setting(paths, args.v0_compatible))
        with gc_paused(freeze=True), progress("cupcake test", machine_output=args.fmt == "json" or opts.coverage):
            result = run_tests(paths, opts)  # (this process ends after the report: frozen objects are never freed)
    except CupcakeError as e:  # TestSetupError among them
        return _fail(str(e), 1)
    if args.verbose:
        sys.stderr.write(output.phase_lines(result))
    broken = result.count("fail") + result.count("error")
    failing = broken + (0 if args.exit_zero_on_skipped else result.count("skip"))
    if result.coverage is not None:
        result.coverage = own_coverage(result.coverage)
    if result.coverage is not None and not broken:
        sys.stdout.write(output.coverage_report(result.coverage))
        total = output.total_coverage(result.coverage)
        if total < args.threshold:
            return _fail(f"code coverage threshold not met: got {total:.2f} instead of {args.threshold:.2f}", 2)
    elif args.fmt == "json" and result.coverage is None:
        sys.stdout.write(output.json_report(result))
    else:
        sys.stdout.write(output.text(result, args.verbose, args.var_values))
    if not result.results:
        sys.stderr.write("cupcake: no tests found (test_* rules)\n")
        if args.fail_on_empty:
            return 1
    return 2 if failing else 0


def own_coverage(coverage: dict[str, Any]) -> dict[str, Any]:
    """Coverage without the policies cupcake ships (files equal to one of the shipped system or
    builtin policies): a fresh project's copies would count at 0% against the author's own."""
    from pathlib import Path

    from cupcake_py.engine.project import rego_files, shipped_policies_dir

    shipped = {p.read_bytes() for sub in ("system", "builtins") for p in rego_files(shipped_policies_dir() / sub)}

    def ours(name: str) -> bool:
        try:
            return Path(name).read_bytes() not in shipped
        except OSError:
            return True

    return {name: c for name, c in coverage.items() if ours(name)}


def main(argv: list[str]) -> int | None:
    """`cupcake test ARGV` without typer: the exit status, or None when typer must read argv."""
    parsed = parse(argv)
    if parsed is None:
        return None
    from cupcake_py.core import logs

    logs.setup("warning")  # as the root command's default --log-level
    try:
        code = run_once(*parsed)
        sys.stdout.flush()
    except KeyboardInterrupt:  # as the typer command: exit 130, nothing printed
        return 130
    except OSError as e:  # as the typer command: a reader that closed the pipe ends the run quietly, exit 1
        if e.errno != errno.EPIPE:
            raise
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - (the interpreter's last flush must not complain)
        return 1
    return code
