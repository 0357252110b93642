"""`cupcake eval` and `cupcake serve` in the typer app: they serve `cupcake --help` and run the
same fast paths (`cupcake_py.fast_eval`, `cupcake_py.serve`) when the command comes after global
options. The help texts live in `cli/help_texts.py` (read by the fast paths without typer)."""

from __future__ import annotations

import typer

from cupcake_py.cli.help_texts import EVAL_HELP, SERVE_HELP


def register(app: typer.Typer) -> None:
    @app.command(
        "serve",
        help=SERVE_HELP,
        context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
        add_help_option=True,
    )
    def serve_command(ctx: typer.Context) -> None:
        from cupcake_py.serve import main

        raise typer.Exit(main(list(ctx.args)))

    @app.command(
        "eval",
        help=EVAL_HELP,
        context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
        add_help_option=False,  # --help reaches fast_eval, which prints EVAL_HELP (one option list)
    )
    def eval_command(ctx: typer.Context) -> None:
        from cupcake_py.fast_eval import main

        raise typer.Exit(main(list(ctx.args)))
