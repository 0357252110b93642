"""`cupcake validate | inspect | test | init | verify`: the policy author's commands."""

from __future__ import annotations

import sys
from enum import StrEnum
from pathlib import Path

import typer

from cupcake_py.errors import CupcakeError


class LintFormat(StrEnum):
    text = "text"
    json = "json"
    sarif = "sarif"
    github = "github"


class TableFormat(StrEnum):
    table = "table"
    json = "json"


class TextFormat(StrEnum):
    text = "text"
    json = "json"


def _fail(message: str, code: int = 2) -> typer.Exit:
    typer.echo(f"cupcake: {message}", err=True)
    return typer.Exit(code)


def validate_cmd(
    paths: list[Path] = typer.Argument(..., help="Policy files, or directories searched for *.rego.",
                                       show_default=False),
    fmt: LintFormat = typer.Option(LintFormat.text, "--format", "-f", help="text, json, sarif (SARIF 2.1.0 for "
                                   "code scanning) or github (workflow annotations)."),
) -> None:
    """Check policies for compile errors and lint them (Cupcake's rules plus harness checks).

    Every finding has a rule id, severity, file:row:col, message and a docs page
    (docs/lint/<rule>.md). Exit status: 0 when no finding is an error, 1 otherwise,
    2 for usage errors.

    Examples:  cupcake validate .cupcake/      cupcake validate --format sarif policies/ > lint.sarif
    """
    from cupcake_py.authoring.reporters import FORMATS
    from cupcake_py.authoring.validate import validate_paths

    try:
        report = validate_paths(paths)
    except CupcakeError as e:
        raise _fail(str(e)) from None
    sys.stdout.write(FORMATS[fmt.value](report))
    if report.failed:
        raise typer.Exit(1)


def test_cmd(
    paths: list[Path] = typer.Argument(None, help="Policy and *_test.rego files, or directories searched for "
                                       "*.rego (default: the project's .cupcake/).", show_default=False),
    run: str = typer.Option(None, "--run", "-r", help="Only tests whose full name (data.pkg.test_x) matches "
                            "this regular expression."),
    fmt: TextFormat = typer.Option(TextFormat.text, "--format", "-f", help="text or json."),
    coverage: bool = typer.Option(False, "--coverage", help="Report which policy lines the tests executed."),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="List passing and todo tests too."),
) -> None:
    """Run policy unit tests: the test_* rules of *_test.rego files (OPA's convention).

    Tests are compiled by cupcake-py to WebAssembly together with the policies and run
    under wasmtime with strict builtin errors. Mock with `with input as {...}`,
    `with data.x as ...` and `with some.function as other_function`. A failing test
    shows the first expression that did not hold, the local variables bound before it
    and its operand values. `todo_*` rules are reported as skipped.

    Exit status: 0 all passed, 1 a test failed or errored, 2 nothing could be compiled.
    """
    from cupcake_py.authoring import test_output
    from cupcake_py.authoring.testrunner import TestSetupError, run_tests

    targets: list[str | Path] = list(paths) if paths else [_default_policy_root()]
    try:
        result = run_tests(targets, run=run, coverage=coverage)
    except (TestSetupError, CupcakeError) as e:
        raise _fail(str(e)) from None
    sys.stdout.write(test_output.json_report(result) if fmt is TextFormat.json else test_output.text(result, verbose))
    if not result.results or not any(r.status != "skip" for r in result.results):
        typer.echo("cupcake: no tests found (test_* rules in *_test.rego files)", err=True)
    if not result.ok:
        raise typer.Exit(1)


def _default_policy_root() -> Path:
    from cupcake_py.engine.project import find_project

    cfg = find_project(None)
    if cfg is None:
        raise _fail("no .cupcake directory here or in a parent; pass the paths to test")
    return cfg.cupcake_dir


class Harness(StrEnum):
    opencode = "opencode"
    claude = "claude"


def _config(policy_dir: str | None, harness: str | None = None):  # type: ignore[no-untyped-def]
    from cupcake_py.engine.project import DEFAULT_POLICY_SUBDIR, ProjectError, find_project

    try:
        return find_project(policy_dir, harness=harness or DEFAULT_POLICY_SUBDIR)
    except ProjectError as e:
        raise _fail(str(e)) from None


def init_cmd(
    harness: Harness = typer.Option(..., "--harness", help="The agent to set up: opencode or claude (Claude Code)."),
    global_: bool = typer.Option(False, "--global", help="Set up the global config ($XDG_CONFIG_HOME/cupcake) "
                                 "instead of the project in the current directory (claude: hooks in "
                                 "~/.claude/settings.json)."),
    force: bool = typer.Option(False, "--force", help="Overwrite files that differ from the templates."),
    directory: Path = typer.Option(Path("."), "--dir", help="Project directory (default: the current one)."),
    uninstall: bool = typer.Option(False, "--uninstall", help="claude: remove cupcake's hooks from the Claude Code "
                                   "settings (only those; .cupcake/ is kept)."),
) -> None:
    """Create a cupcake configuration: .cupcake/ (rulebook, system policies, an example
    policy with tests) and the agent's hook: the OpenCode plugin (.opencode/plugin/cupcake.js)
    or cupcake's command hooks merged into Claude Code's .claude/settings.json (your own
    hooks and settings are kept).

    Safe to re-run: files that already match are left alone and files you changed are
    kept (use --force to overwrite them); Claude Code hooks are replaced, never duplicated.
    """
    from cupcake_py.authoring import scaffold

    try:
        if uninstall:
            written = scaffold.uninstall_hooks(None if global_ else directory, harness.value)
        elif global_:
            written = scaffold.init_global(force, harness.value)
        else:
            written = scaffold.init_project(directory, force, harness.value)
    except CupcakeError as e:  # e.g. a Claude Code settings file that is not a JSON object
        raise _fail(str(e)) from None
    for w in written:
        typer.echo(f"{w.action:<11} {w.path}")
    kept = [w for w in written if w.action == "kept"]
    if kept:
        typer.echo(f"{len(kept)} existing file(s) differ from the templates and were kept (--force overwrites)")
    if not global_ and not uninstall:
        typer.echo(f"next: edit .cupcake/policies/{harness.value}/, then `cupcake verify --harness {harness.value}`")


def inspect_cmd(
    policy_dir: str = typer.Option(None, "--policy-dir", help="Project directory or its .cupcake/ (default: "
                                   "found from the current directory)."),
    fmt: TableFormat = typer.Option(TableFormat.table, "--format", "-f", help="table or json."),
    harness: Harness = typer.Option(Harness.opencode, "--harness", help="Whose policies/<harness>/ to list."),
) -> None:
    """List every policy: package, kind (custom/builtin/system), whether it is enabled,
    routed events, tools and signals, and its METADATA title."""
    from cupcake_py.authoring import inventory

    cfg = _config(policy_dir, harness.value)
    try:
        rows = inventory.inspect_config(cfg)
    except CupcakeError as e:
        raise _fail(str(e)) from None
    if cfg is None and fmt is TableFormat.table:
        typer.echo("(no .cupcake directory found: showing the shipped policies)", err=True)
    sys.stdout.write(inventory.json_rows(rows) if fmt is TableFormat.json else inventory.table(rows))


def verify_cmd(
    harness: Harness = typer.Option(..., "--harness", help="The agent: opencode or claude."),
    policy_dir: str = typer.Option(None, "--policy-dir", help="Project directory or its .cupcake/."),
) -> None:
    """Check that a configuration is safe to install: the rulebook loads, the bundle
    compiles (routing map, signals, WASM size and compile time shown), no lint errors,
    and the policy tests pass. Exit status 1 when any step fails."""
    from cupcake_py.authoring.verify import verify

    cfg = _config(policy_dir, harness.value)
    if cfg is None:
        raise _fail(f"no .cupcake directory here or in a parent (run `cupcake init --harness {harness.value}`)")
    result = verify(cfg)
    sys.stdout.write(result.text())
    if not result.ok:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.command("validate")(validate_cmd)
    app.command("test")(test_cmd)
    app.command("inspect")(inspect_cmd)
    app.command("init")(init_cmd)
    app.command("verify")(verify_cmd)
