"""`cupcake validate | inspect | test | init | verify`: the policy author's commands; the work is
done by cupcake_py/authoring (validate, testrunner, scaffold, inventory, verify).

Out: reports on stdout (text/JSON/SARIF), progress on stderr. Exit status per command (see each
--help); usage errors and configurations that cannot be loaded exit 2 (`test`: 1, as opa test)
with `cupcake: <message>` on stderr, never a traceback."""

from __future__ import annotations

import sys
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from cupcake_py.cli.rego_version_option import v0_option
from cupcake_py.errors import CupcakeError

if TYPE_CHECKING:
    from cupcake_py.custom_builtins import CustomBuiltins
    from cupcake_py.engine.project import ConfigDir
    from cupcake_py.rego.versions import RegoVersions


class LintFormat(StrEnum):
    text = "text"
    json = "json"
    sarif = "sarif"
    github = "github"


class TableFormat(StrEnum):
    table = "table"
    json = "json"


def _fail(message: str, code: int = 2) -> typer.Exit:
    typer.echo(f"cupcake: {message}", err=True)
    return typer.Exit(code)


def validate_cmd(
    paths: list[Path] | None = typer.Argument(None, help="Policy files, or directories searched for *.rego (default: "
                                       "the current project's .cupcake/).", show_default=False),
    fmt: LintFormat = typer.Option(LintFormat.text, "--format", "-f", help="text, json, sarif (SARIF 2.1.0 for "
                                   "code scanning) or github (workflow annotations)."),
    builtins: list[str] = typer.Option([], "--custom-builtins", "--builtins", help="Python module (name or .py path) with custom "
                                       "builtins the policies call (repeatable; a .cupcake directory's rulebook "
                                       "`custom_builtins` are added; docs/custom-builtins.md)."),
    explain: str | None = typer.Option(None, "--explain", metavar="RULE", help="Print the documentation of one lint "
                                "rule (e.g. prefer-deny) and exit."),
    changed: bool = typer.Option(False, "--changed", help="Only the .rego files changed since --base (committed, "
                                 "staged, unstaged or untracked) plus the policies that import them."),
    base: str = typer.Option("HEAD", "--base", help="With --changed: the git ref to compare with (e.g. "
                             "origin/main)."),
    global_: bool = typer.Option(False, "--global", help="Lint the global config ($XDG_CONFIG_HOME/cupcake) "
                                 "instead of the current project."),
    v0_compatible: bool = v0_option(),
) -> None:
    """Check policies for compile errors and lint them (Cupcake's rules plus harness checks).

    Every finding has a rule id, severity, file:row:col, message and a docs page
    (`cupcake validate --explain RULE`). Exit status: 0 when no finding is an error,
    1 otherwise, 2 for usage errors.

    Examples:  cupcake validate      cupcake validate --format sarif .cupcake/ > lint.sarif
    cupcake validate --changed --base origin/main --format github
    """
    from cupcake_py.authoring.reporters import FORMATS
    from cupcake_py.authoring.validate import validate_paths
    from cupcake_py.custom_builtins import declared_for
    from cupcake_py.rego import versions

    if explain is not None:
        sys.stdout.write(_explain(explain))
        return
    targets: list[Path] = list(paths) if paths else [_default_policy_root(global_)]
    try:
        with declared_for([*_rulebook_specs(list(targets)), *builtins]), \
                versions.use(_rego_versions(list(targets), v0_compatible)):
            if changed:
                from cupcake_py.authoring.changed import validate_changed

                report = validate_changed(targets, base)
            else:
                report = validate_paths(targets)
    except CupcakeError as e:
        raise _fail(str(e)) from None
    sys.stdout.write(FORMATS[fmt.value](report))
    if report.failed:
        raise typer.Exit(1)


def _explain(rule: str) -> str:
    from cupcake_py.authoring.findings import RULES, hint, rule_doc

    try:
        return rule_doc(rule)
    except KeyError:
        raise _fail(f"no lint rule {rule!r}{hint(rule, RULES)}; `cupcake validate --explain` takes one of: "
                    f"{', '.join(sorted(RULES))}") from None


class TestFormat(StrEnum):
    pretty = "pretty"
    text = "text"
    json = "json"


def _seconds(text: str) -> float:
    """`5`, `5s`, `500ms`, `1m` (OPA's --timeout takes a Go duration)."""
    import re

    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*(ms|s|m)?\s*", text)
    if m is None or float(m.group(1)) <= 0:
        raise typer.BadParameter(f"{text!r} is not a duration (e.g. 5s, 500ms)")
    return float(m.group(1)) * {"ms": 0.001, "s": 1.0, "m": 60.0}[m.group(2) or "s"]


def test_cmd(
    paths: list[Path] | None = typer.Argument(None, help="Policy, test and data files, or directories searched "
                                       "recursively for *.rego, *.json, *.yaml (default: the project's .cupcake/).",
                                       show_default=False),
    run: str | None = typer.Option(None, "--run", "-r", help="Only tests whose full name (data.pkg.test_x) matches "
                            "this regular expression."),
    fmt: TestFormat = typer.Option(TestFormat.pretty, "--format", "-f", help="pretty (text; `text` is the same) "
                                   "or json (OPA's JSON test report)."),
    coverage: bool = typer.Option(False, "--coverage", "-c", help="Print a JSON coverage report (which policy "
                                  "lines the tests executed) instead of the test report, as opa test."),
    threshold: float = typer.Option(0.0, "--threshold", help="With --coverage: exit 2 when the coverage is "
                                    "below this percentage.", min=0.0, max=100.0),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="List every test (not only those that did not "
                                 "pass) and print per-phase times on stderr."),
    strict_builtin_errors: bool = typer.Option(False, "--strict-builtin-errors", help="A builtin error (e.g. "
                                               "time.parse_rfc3339_ns(\"x\")) fails the test with ERROR instead "
                                               "of making the call undefined (OPA's default)."),
    timeout: str = typer.Option("5s", "--timeout", help="Deadline per test (5s, 500ms)."),
    parallel: int = typer.Option(0, "--parallel", "-p", help="Worker processes for evaluation (0: one per CPU; "
                                 "used when there are enough tests to pay for them).", min=0),
    exit_zero_on_skipped: bool = typer.Option(False, "--exit-zero-on-skipped", "-z", help="Skipped (todo_) tests "
                                              "do not make the exit status non-zero."),
    fail_on_empty: bool = typer.Option(False, "--fail-on-empty", help="Exit 1 when no test ran."),
    ignore: list[str] = typer.Option([], "--ignore", help="File and directory names to skip while loading, as "
                                     "shell patterns (repeatable; e.g. '.*' skips hidden files)."),
    builtins: list[str] = typer.Option([], "--custom-builtins", "--builtins", help="Python module (name or .py path) with custom "
                                       "builtins (repeatable; see docs/custom-builtins.md)."),
    no_cache: bool = typer.Option(False, "--no-cache", help="Rebuild the test module instead of reusing the "
                                  "cached build."),
    global_: bool = typer.Option(False, "--global", help="Without PATHS: test the global config "
                                 "($XDG_CONFIG_HOME/cupcake) instead of the current project."),
    v0_compatible: bool = v0_option(),
) -> None:
    """Run policy unit tests as `opa test` does: every `test_*` rule of the given files.

    Every *.rego file under PATHS is loaded; *.json / *.yaml data files are mounted at their
    directory path relative to the PATH they were found under (a file named directly: at the
    root). Tests are compiled by cupcake-py to WebAssembly (once for all tests, cached across
    runs) and run under wasmtime. A test passes when its rule is defined and not false; a
    builtin error makes the call undefined unless --strict-builtin-errors. Mock with
    `with input as {...}`, `with data.x as ...` and `with some.function as other_function`.
    A failing test also shows the first expression that did not hold, the local variables
    bound before it and its operand values. `todo_*` rules are reported as SKIPPED.

    Exit status (as opa test): 0 every test passed; 2 a test failed, errored or was skipped
    (-z: skipped is fine), or coverage is below --threshold; 1 the policies, data or custom
    builtins could not be loaded or compiled, or --fail-on-empty and no test ran.
    See docs/testing.md.
    """
    from cupcake_py.authoring import test_output
    from cupcake_py.authoring.progress import progress
    from cupcake_py.authoring.testrunner import TestOptions, TestSetupError, run_tests
    from cupcake_py.gc_pause import gc_paused
    from cupcake_py.rego import versions

    targets: list[str | Path] = list(paths) if paths else [_default_policy_root(global_)]
    try:
        opts = TestOptions(run=run, coverage=coverage or threshold > 0, strict=strict_builtin_errors,
                           deadline=_seconds(timeout), parallel=parallel, cache=not no_cache,
                           builtins=_custom_builtins([*_rulebook_specs(targets), *builtins]), ignore=ignore)
        with gc_paused(freeze=True), versions.use(_rego_versions(targets, v0_compatible)), \
                progress("cupcake test", machine_output=fmt is TestFormat.json or opts.coverage):  # this process ends after the report
            result = run_tests(targets, opts)
    except (TestSetupError, CupcakeError) as e:
        raise _fail(str(e), 1) from None
    if verbose:
        sys.stderr.write(test_output.phase_lines(result))
    broken = result.count("fail") + result.count("error")
    failing = broken + (0 if exit_zero_on_skipped else result.count("skip"))
    if result.coverage is not None and not broken:
        sys.stdout.write(test_output.coverage_report(result.coverage))
        total = test_output.total_coverage(result.coverage)
        if total < threshold:
            raise _fail(f"code coverage threshold not met: got {total:.2f} instead of {threshold:.2f}", 2)
    elif fmt is TestFormat.json and result.coverage is None:
        sys.stdout.write(test_output.json_report(result))
    else:
        sys.stdout.write(test_output.text(result, verbose))
    if not result.results:
        typer.echo("cupcake: no tests found (test_* rules)", err=True)
        if fail_on_empty:
            raise typer.Exit(1)
    if failing:
        raise typer.Exit(2)


def _rulebook_specs(targets: list[str | Path]) -> list[str]:
    """The custom builtin modules listed by the rulebooks of the .cupcake directories among `targets`."""
    dirs = [t for t in targets if (Path(t) / "rulebook.yml").is_file()]  # (no rulebook: nothing to import)
    if not dirs:
        return []
    from cupcake_py.engine.bundle import rulebook_builtins

    return [s for t in dirs for s in rulebook_builtins(str(t))]


def _rego_versions(targets: list[str | Path], v0_compatible: bool) -> RegoVersions:
    """--v0-compatible, else the rulebook `rego_version`/`file_rego_versions` of a .cupcake
    directory among `targets` (the default target), else v1."""
    from cupcake_py.rego import versions

    if v0_compatible:
        return versions.V0_COMPATIBLE
    for t in targets:
        if (Path(t) / "rulebook.yml").is_file():
            from cupcake_py.engine.rulebook import load_rulebook

            try:
                return load_rulebook(Path(t) / "rulebook.yml").rego_versions(str(Path(t).absolute()))
            except CupcakeError:  # the command reports the broken rulebook itself (verify: [FAIL] rulebook)
                return versions.V1_ONLY
    return versions.V1_ONLY


def _custom_builtins(specs: list[str]) -> CustomBuiltins | None:
    """The custom builtins of --custom-builtins plus the installed entry points (None when there are none)."""
    from cupcake_py.custom_builtins import load

    found = load(specs)
    return found or None


NO_PROJECT = "no .cupcake directory here or in a parent: run `cupcake init --harness opencode` to create one"
NO_GLOBAL = "no global config: run `cupcake init --global --harness opencode` to create one"


def _default_policy_root(global_: bool = False) -> Path:
    """The current project's .cupcake/ (the global config's directory with --global)."""
    cfg = _config(None, global_)
    if cfg is None:
        raise _fail(NO_GLOBAL if global_ else f"{NO_PROJECT}, or pass the policy paths")
    return cfg.cupcake_dir


class Harness(StrEnum):
    """The --harness choices: one member per entry of cupcake_py/harness/__init__.py's MODULES
    (tests/harness/test_hook_harnesses.py keeps them equal)."""

    opencode = "opencode"
    claude = "claude"
    codex = "codex"
    gemini = "gemini"
    qwen = "qwen"
    copilot = "copilot"
    factory = "factory"
    cline = "cline"
    cursor = "cursor"


def _config(policy_dir: str | None, global_: bool = False, harness: str | None = None) -> ConfigDir | None:
    from cupcake_py.engine.project import DEFAULT_POLICY_SUBDIR, ProjectError, find_global, find_project

    name = harness or DEFAULT_POLICY_SUBDIR
    try:
        return find_global(None, harness=name) if global_ else find_project(policy_dir, harness=name)
    except ProjectError as e:
        raise _fail(str(e)) from None


def _project_harness(policies_dir: Path) -> Harness:
    """The harness a configuration is for: the only one it has policies/<harness>/ for, else the
    only harness there is; ambiguous -> a usage error that says what to pass."""
    have = [h for h in Harness if (policies_dir / h.value).is_dir()]
    if len(have) == 1:
        return have[0]
    if len(Harness) == 1:
        return next(iter(Harness))
    raise _fail(f"pass --harness ({', '.join(h.value for h in (have or list(Harness)))}): "
                f"{policies_dir} does not say which agent it is for")


def init_cmd(
    harness: Harness = typer.Option(..., "--harness", help="The agent to set up: opencode, claude (Claude Code), codex (Codex CLI), "
                                  "gemini (Gemini CLI), qwen (Qwen Code), copilot (GitHub Copilot CLI), "
                                  "factory (Factory Droid), cline or cursor."),
    global_: bool = typer.Option(False, "--global", help="Set up the global config ($XDG_CONFIG_HOME/cupcake) "
                                 "instead of the project in the current directory (claude: hooks in "
                                 "~/.claude/settings.json)."),
    force: bool = typer.Option(False, "--force", help="Overwrite files that differ from the templates."),
    directory: Path = typer.Option(Path("."), "--dir", help="Project directory (default: the current one)."),
    uninstall: bool = typer.Option(False, "--uninstall", help="claude, codex, gemini, qwen: remove cupcake's hooks "
                                   "from the agent's settings (only those; .cupcake/ is kept)."),
    no_global: bool = typer.Option(False, "--no-global", help="Do not set up the global config even when there is "
                                   "none (then system paths, .env/keys and the cupcake binary stay unprotected)."),
) -> None:
    """Create a cupcake configuration: .cupcake/ (rulebook, system policies, an example
    policy and one that asks before deletes outside the project, with tests) and the agent's
    hook: the OpenCode plugin (.opencode/plugin/cupcake.js) or cupcake's command hooks merged
    into Claude Code's .claude/settings.json (your own hooks and settings are kept). When no
    global config exists, it is created too (system paths, .env/keys, the cupcake binary:
    global-only protections), unless --no-global. Prints what is protected and how to relax it.

    Safe to re-run: files that already match are left alone and files you changed are
    kept (use --force to overwrite them); Claude Code hooks are replaced, never duplicated.
    """
    from cupcake_py.authoring import scaffold

    try:
        if uninstall:
            written = scaffold.uninstall_hooks(None if global_ else directory, harness.value)
        elif global_:
            written = scaffold.init_global(force, harness=harness.value)
        else:
            make_global = not no_global and not scaffold.global_exists()
            written = scaffold.init_project(directory, force, harness.value) + (
                scaffold.init_global(force, plugin=False, harness=harness.value) if make_global else [])
    except CupcakeError as e:  # e.g. a Claude Code settings file that is not a JSON object
        raise _fail(str(e)) from None
    for w in written:
        typer.echo(f"{w.action:<11} {w.path}")
    kept = [w for w in written if w.action == "kept"]
    if kept:
        typer.echo(f"{len(kept)} existing file(s) differ from the templates and were kept (--force overwrites)")
    if uninstall:
        return
    from cupcake_py.harness import get as get_harness

    notes = getattr(get_harness(harness.value), "setup_notes", None)
    for note in notes(None if global_ else directory) if notes else []:
        typer.echo(f"note        {note}")
    _warm_after_init(global_, directory, harness.value)
    typer.echo("")
    typer.echo(scaffold.protections_summary(None if global_ else directory, harness.value), nl=False)
    if not global_:
        typer.echo(f"next: edit .cupcake/policies/{harness.value}/, then `cupcake verify --harness {harness.value}`")


def _warm_after_init(global_: bool, directory: Path, harness: str) -> None:
    """Compile the new configuration now, so the agent's first tool call does not."""
    from cupcake_py.authoring.warm import warm
    from cupcake_py.engine.project import find_global, find_project

    cfg = find_global(None, harness=harness) if global_ else find_project(str(directory), harness=harness)
    if cfg is None:
        return
    try:
        typer.echo(f"cache       {warm(cfg)}")
    except CupcakeError as e:
        typer.echo(f"cache       not warmed ({e}); `cupcake verify` shows why", err=True)


def inspect_cmd(
    policy_dir: str | None = typer.Option(None, "--policy-dir", help="Project directory or its .cupcake/ (default: "
                                   "found from the current directory)."),
    fmt: TableFormat = typer.Option(TableFormat.table, "--format", "-f", help="table or json."),
    harness: Harness = typer.Option(Harness.opencode, "--harness", help="Whose policies/<harness>/ to list."),
    global_: bool = typer.Option(False, "--global", help="The global config instead of the current project."),
) -> None:
    """List every policy: package, kind (custom/builtin/system), whether it is enabled,
    routed events, tools and signals, and its METADATA title."""
    from cupcake_py.authoring import inventory
    from cupcake_py.rego import versions

    cfg = _config(policy_dir, global_, harness.value)
    try:
        with versions.use(_rego_versions([cfg.cupcake_dir] if cfg else [], False)):
            rows = inventory.inspect_config(cfg)
    except CupcakeError as e:
        raise _fail(str(e)) from None
    if cfg is None and fmt is TableFormat.table:
        typer.echo("(no .cupcake directory found: showing the shipped policies)", err=True)
    sys.stdout.write(inventory.json_rows(rows) if fmt is TableFormat.json else inventory.table(rows))


def verify_cmd(
    harness: Harness | None = typer.Option(None, "--harness", help="The agent: opencode, claude, copilot, factory, cline or cursor (default: the one the "
                                    "project has policies for, when that is unambiguous).", show_default=False),
    policy_dir: str | None = typer.Option(None, "--policy-dir", help="Project directory or its .cupcake/."),
    global_: bool = typer.Option(False, "--global", help="The global config instead of the current project."),
    all_agents: bool = typer.Option(False, "--all", help="Every registered agent: run each configured cupcake hook "
                                    "command exactly as written on non-executing canary events (a protected delete, "
                                    "a secret read, --no-verify) and show whether the agent would block them."),
    fmt: TableFormat = typer.Option(TableFormat.table, "--format", "-f", help="With --all: table or json."),
) -> None:
    """Check that a configuration is safe to install: the rulebook loads, the bundle
    compiles (routing map, signals, WASM size and compile time shown), no lint errors,
    and the policy tests pass. Exit status 1 when any step fails. A configuration that
    passes is left compiled in the cache: the agent's first tool call does not compile.
    With --all: the wiring of every agent instead (exit 1 when a hook fails or a canary is not blocked)."""
    if all_agents:
        from cupcake_py.authoring.agents import reports_json, reports_text, verify_all

        cfg_all = _config(policy_dir, False, None)
        reports = verify_all(None if global_ else Path(cfg_all.root_path) if cfg_all else Path.cwd())
        sys.stdout.write(reports_json(reports) if fmt is TableFormat.json else reports_text(reports))
        if not all(r.ok for r in reports):
            raise typer.Exit(1)
        return
    from cupcake_py.authoring.verify import verify

    cfg = _config(policy_dir, global_, harness.value if harness else None)
    if cfg is not None and harness is None:
        harness = _project_harness(Path(cfg.cupcake_path) / "policies")
        cfg = _config(policy_dir, global_, harness.value)
    if cfg is None:
        raise _fail(NO_GLOBAL if global_ else NO_PROJECT)
    from cupcake_py.authoring.progress import progress
    from cupcake_py.rego import versions

    with progress("cupcake verify") as update, versions.use(_rego_versions([cfg.cupcake_dir], False)):
        result = verify(cfg, update)
    sys.stdout.write(result.text())
    if not result.ok:
        raise typer.Exit(1)


def protect_cmd(
    fmt: TableFormat = typer.Option(TableFormat.table, "--format", "-f", help="table or json."),
) -> None:
    """Protect every coding agent installed for this user at once: cupcake's hooks go into each detected
    agent's user settings (Claude Code, Codex, Gemini CLI, Qwen Code, ...; your own hooks are kept), the
    global configuration (system paths, secrets, the cupcake binary) is created when missing, and every
    agent's wiring is then checked with canary events (as `cupcake verify --all`). One screen of what is on."""
    from cupcake_py.authoring.agents import protect, reports_json, reports_text, verify_all

    try:
        lines, found = protect()
    except CupcakeError as e:
        raise _fail(str(e)) from None
    reports = verify_all(None)
    if fmt is TableFormat.json:
        sys.stdout.write(reports_json(reports))
    else:
        typer.echo("agents found: " + (", ".join(found) or "none"))
        for line in lines:
            typer.echo(line)
        sys.stdout.write(reports_text(reports))
    if not found or not all(r.ok for r in reports):
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.command("protect")(protect_cmd)
    app.command("validate")(validate_cmd)
    app.command("test")(test_cmd)
    app.command("inspect")(inspect_cmd)
    app.command("init")(init_cmd)
    app.command("verify")(verify_cmd)
