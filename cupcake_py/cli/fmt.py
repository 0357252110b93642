"""`cupcake fmt`: Rego files in `opa fmt`'s canonical layout (rego/fmt.py does the formatting).

Out: without flags the formatted text on stdout; -w rewrites the files; --diff prints a unified
diff; --check lists the files that are not formatted. Exit status: 0 done (with --check/--diff:
every file is formatted); 1 --check/--diff found a file to format; 2 a file does not parse or
cannot be formatted safely (`file:row:col: message` on stderr; the file is left untouched).
--v0-v1 (as `opa fmt --v0-v1`): files are read as Rego v0 (a directory's `.manifest` may say
otherwise per file) and written in Rego v1 syntax with `import rego.v1`."""

from __future__ import annotations

import difflib
import sys
from pathlib import Path

import typer

from cupcake_py.cli import options
from cupcake_py.core.errors import CupcakeError
from cupcake_py.rego.errors import RegoErrors, format_text


def fmt_cmd(
    paths: list[Path] = typer.Argument(None, metavar="PATHS", help="Rego files, or directories searched "
                                       "recursively for *.rego (default: the project's .cupcake/; `-` reads "
                                       "stdin).", show_default=False),
    write: bool = typer.Option(False, "--write", "-w", help="Rewrite the files in place (only those that change)."),
    diff: bool = typer.Option(False, "--diff", "-d", help="Print a unified diff of the changes instead; exit 1 "
                              "when there is one."),
    check: bool = typer.Option(False, "--check", "-l", help="List the files that are not formatted; exit 1 when "
                               "there is one (for CI and pre-commit)."),
    policy_dir: str | None = options.project_option(),
    v0_v1: bool = typer.Option(False, "--v0-v1", help="Convert Rego written for OPA 0.x: read the files as Rego v0 "
                               "and write them in Rego v1 syntax (`if`, `contains`) with `import rego.v1` in place of "
                               "`future.keywords` imports, readable by OPA 0.59+ and 1.x alike (as `opa fmt "
                               "--v0-v1`). A call of a builtin Rego v1 removed (`any`, `re_match`, ...) stops the "
                               "file."),
) -> None:
    """Format Rego files in the canonical layout of `opa fmt`, comments kept.

    Tabs, one blank line between rules (rules written one a line stay together), `if` and
    `contains` spelled out, one space around operators. The module is never changed: the
    result is parsed back and compared with the original before anything is written, and
    formatting twice gives the same text. A rule whose head or an expression spans several
    lines is kept as written.

    \b
    Examples:
      cupcake fmt policy.rego            (prints the formatted file)
      cupcake fmt -w .cupcake/policies
      cupcake fmt --check                (CI: exit 1 when a file needs formatting)
      cupcake fmt --v0-v1 -w lib/        (convert a Rego v0 library to v1 syntax)
    """
    if sum((write, diff, check)) > 1:
        raise options.fail("--write, --diff and --check exclude each other")
    from cupcake_py.authoring import target_settings
    from cupcake_py.rego import versions

    try:
        read_as = target_settings.rego_versions([p for p in paths or [] if str(p) != "-"], v0_v1) if v0_v1 \
            else versions.current()
    except CupcakeError as e:
        raise _report(e, {}) from None
    with versions.use(read_as):
        _fmt(paths, write, diff, check, policy_dir, v0_v1)


def _fmt(paths: list[Path] | None, write: bool, diff: bool, check: bool, policy_dir: str | None, v0_v1: bool) -> None:
    from cupcake_py.rego import find_rego_files, read_source
    from cupcake_py.rego.fmt import format_source

    if paths and [str(p) for p in paths] == ["-"]:
        text = sys.stdin.read()
        try:
            out = format_source(text, "<stdin>", v0_v1)
        except (RegoErrors, CupcakeError) as e:
            raise _report(e, {"<stdin>": text}) from None
        if check or diff:
            _differ("<stdin>", text, out, diff)
            raise typer.Exit(1 if out != text else 0)
        sys.stdout.write(out)
        return
    if not paths:
        from cupcake_py.cli.authoring import _default_policy_root

        paths = [_default_policy_root(False, policy_dir)]
    missing = [p for p in paths if not p.exists()]
    if missing:
        raise options.fail(f"no such file or directory: {missing[0]}")
    changed = broken = 0
    for f in find_rego_files(paths):
        try:
            text = read_source(f)
            out = format_source(text, str(f), v0_v1)
        except (RegoErrors, CupcakeError) as e:
            _report(e, {str(f): read_source(f)} if isinstance(e, RegoErrors) else {})
            broken += 1
            continue
        if out == text:
            if not (write or diff or check):
                sys.stdout.write(out)
            continue
        changed += 1
        if write:
            f.write_text(out, "utf-8")
            typer.echo(f"formatted {f}", err=True)
        elif diff or check:
            _differ(str(f), text, out, diff)
        else:
            sys.stdout.write(out)
    if broken:
        raise typer.Exit(2)
    if changed and (diff or check):
        raise typer.Exit(1)


def _differ(name: str, before: str, after: str, diff: bool) -> None:
    if before == after:
        return
    if diff:
        sys.stdout.writelines(difflib.unified_diff(before.splitlines(keepends=True), after.splitlines(keepends=True),
                                                   name if name.startswith("/") else f"a/{name}",
                                                   name if name.startswith("/") else f"b/{name}"))
    else:
        sys.stdout.write(name + "\n")


def _report(e: Exception, sources: dict[str, str]) -> typer.Exit:
    if isinstance(e, RegoErrors):
        typer.echo(format_text(e.errors, sources), err=True)
    else:
        typer.echo(f"cupcake: {e}", err=True)
    return typer.Exit(2)


def register(app: typer.Typer) -> None:
    app.command("fmt")(fmt_cmd)
