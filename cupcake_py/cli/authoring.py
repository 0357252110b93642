"""`cupcake validate | inspect | test | init | verify`: the policy author's commands; the work is
done by cupcake_py/authoring (validate, testing/, scaffold, inventory, verify).

Their shared flags (--policy-dir, --global, --harness, --format) come from cli/options.py.
Out: reports on stdout (text, JSON, SARIF, GitHub annotations, JUnit), progress on stderr. Exit status per command (see each
--help); usage errors and configurations that cannot be loaded exit 2 (`test`: 1, as opa test)
with `cupcake: <message>` on stderr, never a traceback."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from cupcake_py.authoring import target_settings
from cupcake_py.cli import options
from cupcake_py.cli.rego_version_option import v0_option
from cupcake_py.core.errors import CupcakeError

if TYPE_CHECKING:
    from cupcake_py.engine.project import ConfigDir


_fail = options.fail


def validate_cmd(
    paths: list[Path] | None = typer.Argument(None, metavar="PATHS", help="Policy files, or directories "
                                              "searched for *.rego (default: the project's .cupcake/).",
                                              show_default=False),
    policy_dir: str | None = options.project_option(),
    global_: bool = options.global_option(),
    fmt: str = options.format_option("text", "json", "sarif", "github", "junit"),
    fail_level: str = typer.Option("error", "--fail-level", metavar="[error|warning|info]",
                                   help="Exit 1 when a finding is this severe or more (default: error)."),
    config: Path | None = typer.Option(None, "--config", metavar="FILE", help="Lint config (rule levels, disabled "
                                       "rules, ignored files; Regal's shape). Default: the project's "
                                       ".cupcake/lint.yml when it exists.", show_default=False),
    builtins: list[str] = typer.Option([], "--custom-builtins", "--builtins", metavar="MODULE",
                                       help="Python module (name or .py path) with custom builtins the policies "
                                       "call (repeatable; a .cupcake directory's rulebook `custom_builtins` are "
                                       "added; `cupcake docs custom-builtins`)."),
    explain: str | None = typer.Option(None, "--explain", metavar="RULE", help="Print the documentation of one lint "
                                       "rule (e.g. prefer-deny) and exit."),
    changed: bool = typer.Option(False, "--changed", help="Only the .rego files changed since --base (committed, "
                                 "staged, unstaged or untracked) plus the policies that import them."),
    base: str = typer.Option("HEAD", "--base", metavar="REF", help="With --changed: the git ref to compare with "
                             "(e.g. origin/main)."),
    watch: bool = typer.Option(False, "--watch", "-w", help="Run again whenever a policy changes (Ctrl-C stops)."),
    v0_compatible: bool = v0_option(),
) -> None:
    """Check policies for compile errors and lint them (Cupcake's rules plus harness checks).

    Every finding has a rule id, severity, file:row:col, message and a docs page
    (`cupcake validate --explain RULE`). A finding is silenced by `# cupcake ignore:RULE` on its
    line or the line above; `.cupcake/lint.yml` sets rule levels (error, warning, info, ignore) and
    ignored files (`cupcake docs lint/README`). Exit status: 0 when no finding reaches --fail-level, 1
    otherwise, 2 for usage errors and an invalid lint config.

    \b
    Examples:
      cupcake validate
      cupcake validate --format sarif .cupcake/ > lint.sarif
      cupcake validate --changed --base origin/main --format github
      cupcake validate --fail-level warning --format junit > lint.xml
    """
    if explain is not None:
        sys.stdout.write(_explain(explain))
        return
    if fail_level not in ("error", "warning", "info"):
        raise typer.BadParameter(f"{fail_level!r} is not one of error, warning, info", param_hint="--fail-level")
    targets: list[Path] = list(paths) if paths else [_default_policy_root(global_, policy_dir)]

    def once() -> int:
        try:
            return _validate_once(targets, fmt, fail_level, config, builtins, changed, base, v0_compatible)
        except typer.Exit as e:
            if not watch:
                raise
            return e.exit_code

    if watch:
        from cupcake_py.authoring.rerun import watch as rerun

        raise typer.Exit(rerun(targets, once))
    code = once()
    if code:
        raise typer.Exit(code)


def _validate_once(targets: list[Path], fmt: str, fail_level: str, config: Path | None, builtins: list[str],
                   changed: bool, base: str, v0_compatible: bool) -> int:
    from cupcake_py.authoring import lint_config
    from cupcake_py.authoring.reporters import FORMATS
    from cupcake_py.authoring.validate import validate_paths
    from cupcake_py.extensions.builtins import declared_for
    from cupcake_py.rego import versions

    try:
        settings = lint_config.find_config(config, targets)
        with declared_for([*target_settings.rulebook_specs(list(targets)), *builtins]), \
                versions.use(target_settings.rego_versions(list(targets), v0_compatible)):
            if changed:
                from cupcake_py.authoring.changed import validate_changed

                report = validate_changed(targets, base)
            else:
                report = validate_paths(targets)
    except CupcakeError as e:
        raise _fail(str(e)) from None
    report.findings = lint_config.apply(report.findings, report.sources, settings)
    from cupcake_py.authoring.findings import RULES, hint

    for file, row, rule in lint_config.unknown_suppressions(report.sources):
        typer.echo(f"cupcake: {file}:{row}: `# cupcake ignore:{rule}` names no lint rule{hint(rule, RULES)}", err=True)
    sys.stdout.write(FORMATS[fmt](report))
    return 1 if lint_config.fails(report.findings, fail_level) else 0


def _explain(rule: str) -> str:
    from cupcake_py.authoring.findings import RULES, hint, rule_doc

    try:
        return rule_doc(rule)
    except KeyError:
        raise _fail(f"no lint rule {rule!r}{hint(rule, RULES)}; `cupcake validate --explain` takes one of: "
                    f"{', '.join(sorted(RULES))}") from None


def _seconds(text: str) -> float:
    """`5`, `5s`, `500ms`, `1m` (OPA's --timeout takes a Go duration)."""
    from cupcake_py.authoring.testing.command import duration

    seconds = duration(text)
    if seconds is None:
        raise typer.BadParameter(f"{text!r} is not a duration (e.g. 5s, 500ms)")
    return seconds


def test_cmd(
    paths: list[Path] | None = typer.Argument(None, metavar="PATHS", help="Policy, test and data files, or "
                                              "directories searched recursively for *.rego, *.json, *.yaml "
                                              "(default: the project's .cupcake/).", show_default=False),
    policy_dir: str | None = options.project_option(),
    global_: bool = options.global_option(),
    run: str | None = typer.Option(None, "--run", "-r", help="Only tests whose full name (data.pkg.test_x) matches "
                            "this regular expression."),
    fmt: str = options.format_option("text", "json", extra_help="json is OPA's JSON test report."),
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
                                       "builtins (repeatable; `cupcake docs custom-builtins`)."),
    no_cache: bool = typer.Option(False, "--no-cache", help="Rebuild the test module instead of reusing the "
                                  "cached build."),
    watch: bool = typer.Option(False, "--watch", "-w", help="Run again whenever a policy, test or data file "
                               "changes (Ctrl-C stops)."),
    v0_compatible: bool = v0_option(),
    var_values: bool = typer.Option(False, "--var-values", help="Also list the failing tests again under "
                                    "FAILURES with the expression that failed and its values, as opa test."),
    bundle: bool = typer.Option(False, "--bundle", "-b", help="PATHS are OPA bundle directories (as `opa test -b`): "
                                "a directory's .manifest gives its files' rego_version, with or without this flag."),
) -> None:
    """Run policy unit tests as `opa test` does: every `test_*` rule of the given files.

    Every *.rego file under PATHS is loaded; *.json / *.yaml data files are mounted at their
    directory path relative to the PATH they were found under (a file named directly: at the
    root). Tests are compiled by cupcake-py to WebAssembly (once for all tests, cached across
    runs) and run under wasmtime. A test passes when its rule's value is true (as opa test); a
    builtin error makes the call undefined unless --strict-builtin-errors. Mock with
    `with input as {...}`, `with data.x as ...` and `with some.function as other_function`.
    A failing test also shows the first expression that did not hold, the local variables
    bound before it and its operand values. `todo_test_*` rules are reported as SKIPPED.

    Coverage counts the project's own policies: the system and builtin policies cupcake ships
    (unchanged copies under .cupcake/) are left out, so --threshold measures what you wrote.

    Exit status (as opa test): 0 every test passed; 2 a test failed, errored or was skipped
    (-z: skipped is fine), or coverage is below --threshold; 1 the policies, data or custom
    builtins could not be loaded or compiled, or --fail-on-empty and no test ran.
    See `cupcake docs testing`.
    """
    from cupcake_py.authoring.testing.command import TestArgs, run_once

    targets: list[Path] = list(paths) if paths else [_default_policy_root(global_, policy_dir)]
    args = TestArgs(run=run, fmt=fmt, coverage=coverage, threshold=threshold, verbose=verbose,
                    strict_builtin_errors=strict_builtin_errors, timeout=_seconds(timeout), parallel=parallel,
                    exit_zero_on_skipped=exit_zero_on_skipped, fail_on_empty=fail_on_empty, ignore=list(ignore),
                    builtins=list(builtins), no_cache=no_cache, v0_compatible=v0_compatible,
                    var_values=var_values)
    if watch:
        from cupcake_py.authoring.rerun import watch as rerun

        raise typer.Exit(rerun(targets, lambda: run_once(targets, args)))
    code = run_once(targets, args)  # (the same run as `cupcake test` without typer: cupcake_py/app/entry.py)
    if code:
        raise typer.Exit(code)


NO_PROJECT = "no .cupcake directory here or in a parent: run `cupcake init --harness opencode` to create one"
NO_GLOBAL = "no global config: run `cupcake init --global --harness opencode` to create one"


def _default_policy_root(global_: bool = False, policy_dir: str | None = None) -> Path:
    """The project's .cupcake/ (--policy-dir, else found from the current directory; the global
    config's directory with --global)."""
    cfg = _config(policy_dir, global_)
    if cfg is None:
        raise _fail(NO_GLOBAL if global_ else f"{NO_PROJECT}, or pass the policy paths")
    return cfg.cupcake_dir


def _config(policy_dir: str | None, global_: bool = False, harness: str | None = None) -> ConfigDir | None:
    """The configuration for --policy-dir/--global, of `harness` (None: the harness it has policies for,
    by options.harness_for, the one rule every command applies)."""
    from cupcake_py.engine.project import DEFAULT_POLICY_SUBDIR, ProjectError, find_global, find_project

    try:
        cfg = find_global(None, harness=harness or DEFAULT_POLICY_SUBDIR) if global_ else \
            find_project(policy_dir, harness=harness or DEFAULT_POLICY_SUBDIR)
        if cfg is None or harness is not None:
            return cfg
        chosen = options.harness_for(Path(cfg.cupcake_path) / "policies", None)
        return find_global(None, harness=chosen) if global_ else find_project(policy_dir, harness=chosen)
    except ProjectError as e:
        raise _fail(str(e)) from None


def _other_harnesses(cfg: ConfigDir) -> list[str]:
    """The harnesses a configuration has policies/<harness>/ for, when it has none for its own."""
    root = Path(cfg.cupcake_path) / "policies"
    if (root / cfg.harness).is_dir():
        return []
    return [h for h in options.harness_names() if (root / h).is_dir()]


def init_cmd(
    harness: str = options.harness_option(required=True),
    global_: bool = typer.Option(False, "--global", help="Set up the global config ($XDG_CONFIG_HOME/cupcake) "
                                 "instead of the project in the current directory (claude: hooks in "
                                 "~/.claude/settings.json)."),
    force: bool = typer.Option(False, "--force", help="Overwrite files that differ from the templates."),
    directory: Path = typer.Option(Path("."), "--policy-dir", "--dir", metavar="DIR",
                                   help="Project directory (default: the current one)."),
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
            written = scaffold.uninstall_hooks(None if global_ else directory, harness)
        elif global_:
            written = scaffold.init_global(force, harness=harness)
        else:
            make_global = not no_global and not scaffold.global_exists()
            written = scaffold.init_project(directory, force, harness) + (
                scaffold.init_global(force, plugin=False, harness=harness) if make_global else [])
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

    notes = getattr(get_harness(harness), "setup_notes", None)
    for note in notes(None if global_ else directory) if notes else []:
        typer.echo(f"note        {note}")
    if harness == "claude" and not global_:
        import shutil

        if shutil.which("cupcake") is None:
            typer.echo("note: `cupcake` is not on PATH: Claude Code's hooks run `cupcake` from PATH and block every "
                       "tool call until it is (pipx installs it in ~/.local/bin)", err=True)
    _warm_after_init(global_, directory, harness)
    typer.echo("")
    typer.echo(scaffold.protections_summary(None if global_ else directory, harness), nl=False)
    if not global_:
        typer.echo(f"next: edit .cupcake/policies/{harness}/, then `cupcake verify --harness {harness}`")


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
    policy_dir: str | None = options.project_option(),
    global_: bool = options.global_option(),
    harness: str | None = options.harness_option(),
    fmt: str = options.format_option("text", "json"),
) -> None:
    """List every policy: package, kind (custom/builtin/system), scope (project, or the global
    config's protections that apply to every project), whether it is enabled, routed events,
    tools and signals, and its METADATA title."""
    from cupcake_py.authoring import inventory
    from cupcake_py.engine.project import ProjectError, find_global
    from cupcake_py.rego import versions

    cfg = _config(policy_dir, global_, harness)
    try:
        with versions.use(target_settings.rego_versions([cfg.cupcake_dir] if cfg else [], False)):
            rows = inventory.inspect_config(cfg)
        if cfg is not None and not global_:
            gcfg = find_global(None, harness=cfg.harness)
            if gcfg is not None:
                with versions.use(target_settings.rego_versions([gcfg.cupcake_dir], False)):
                    rows += inventory.global_rows(gcfg)
    except (CupcakeError, ProjectError) as e:
        raise _fail(str(e)) from None
    if cfg is None and fmt == "text":
        typer.echo("(no .cupcake directory found: showing the shipped policies)", err=True)
    sys.stdout.write(inventory.json_rows(rows) if fmt == "json" else inventory.table(rows))


def verify_cmd(
    policy_dir: str | None = options.project_option(),
    global_: bool = options.global_option(),
    harness: str | None = options.harness_option(),
    all_agents: bool = typer.Option(False, "--all", help="Every registered agent: run each configured cupcake hook "
                                    "command exactly as written on non-executing canary events (a protected delete, "
                                    "a secret read, --no-verify) and show whether the agent would block them."),
    fmt: str = options.format_option("text", "json", extra_help="json: with --all."),
) -> None:
    """Check that a configuration is safe to install: the rulebook loads, the bundle
    compiles (routing map, signals, WASM size and compile time shown), no lint errors,
    and the policy tests pass. Exit status 1 when any step fails (also when --harness names
    an agent the configuration has no policies/<harness>/ for while it has them for another:
    its policies would be ignored). A configuration that passes is left compiled in the cache:
    the agent's first tool call does not compile.
    With --all: the wiring of every agent instead (exit 1 when a hook fails or a canary is not blocked)."""
    if all_agents:
        from cupcake_py.authoring.agents import reports_json, reports_text, verify_all

        cfg_all = _config(policy_dir, False, None)
        reports = verify_all(None if global_ else Path(cfg_all.root_path) if cfg_all else Path.cwd())
        sys.stdout.write(reports_json(reports) if fmt == "json" else reports_text(reports))
        if not all(r.ok for r in reports):
            raise typer.Exit(1)
        return
    from cupcake_py.authoring.verify import verify

    cfg = _config(policy_dir, global_, harness)
    if cfg is None:
        raise _fail(NO_GLOBAL if global_ else NO_PROJECT)
    others = _other_harnesses(cfg)
    if others:
        raise _fail(f"{cfg.cupcake_dir} has policies for {', '.join(others)}, none for {cfg.harness} "
                    f"(policies/{cfg.harness}/): with --harness {cfg.harness} every custom policy would be "
                    f"ignored. NOT safe to install; use --harness {others[0]}", 1)
    from cupcake_py.authoring.progress import progress
    from cupcake_py.rego import versions

    with progress("cupcake verify") as update, versions.use(target_settings.rego_versions([cfg.cupcake_dir], False)):
        result = verify(cfg, update)
    sys.stdout.write(result.text())
    if not result.ok:
        raise typer.Exit(1)


def protect_cmd(
    fmt: str = options.format_option("text", "json"),
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
    if fmt == "json":
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
