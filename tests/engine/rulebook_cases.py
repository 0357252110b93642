"""Rulebooks the engine must reject, with a piece of the error it gives (shared by the
rulebook parser tests and the JSON Schema tests, tests/authoring/test_schema.py)."""

BAD_RULEBOOKS: list[tuple[str, str]] = [
    ("watchdog: true\n", "r.yml:1:1: watchdog: unknown key"),
    ("signals:\n  s: {command: x, timeout: 1}\n", "r.yml:2:19: signals.s.timeout: unknown key"),
    ("signals:\n  s: {command: ''}\n", "signals.s.command"),
    ("signals:\n  __builtin_x: {command: x}\n", "not allowed"),
    ("builtins:\n  git_pre_check: {checks: []}\n", "builtins.git_pre_check.checks"),
    ("builtins:\n  post_edit_check: {by_extension: {.rs: {command: x}}}\n", "without a dot"),
    ("builtins:\n  nope: {}\n", "builtins.nope: unknown key"),
    ("telemetry: {format: text}\n", "telemetry.format"),
    ("- a\n- b\n", "must be a mapping"),
    ("a: [\n", "invalid YAML"),
]
