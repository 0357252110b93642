"""`cupcake eval` in the typer app: serves `--help` and runs the same fast path
(`cupcake_py.engine.fast_eval`) when eval comes after global options."""

from __future__ import annotations

import typer

from cupcake_py.engine.options import help_text

EVAL_HELP = f"""Evaluate one agent event against the project's policies.

Reads one OpenCode event (JSON) on stdin, prints one JSON decision line on stdout:
{{"decision": "allow"|"ask"|"deny"|"block", "reason"?, "context"?, "updated_args"?, "rule_ids"?}}

Policies come from .cupcake/ (rulebook.yml, policies/opencode/**/*.rego, signals/) and the global
config dir; they are compiled to WebAssembly by cupcake-py (cached) and run under wasmtime.
Any failure fails closed: {{"decision": "deny", "reason": "cupcake: ..."}} and exit status 2.

Exit status: 0 decision printed, 1 deny/block with --strict, 2 fail-closed error.

Example:

  echo '{{"hook_event_name":"PreToolUse","session_id":"s","cwd":"'$PWD'","tool":"bash","args":{{"command":"ls"}}}}' | cupcake eval --harness opencode

Options:

{help_text()}
"""


def register(app: typer.Typer) -> None:
    @app.command(
        "eval",
        help=EVAL_HELP,
        context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
        add_help_option=False,  # --help reaches fast_eval, which prints EVAL_HELP (one option list)
    )
    def eval_command(ctx: typer.Context) -> None:
        from cupcake_py.engine.fast_eval import main

        raise typer.Exit(main(list(ctx.args)))
