"""`cupcake eval` and `cupcake serve` in the typer app: they serve `cupcake --help` and run the
same fast paths (`cupcake_py.app.fast_eval`, `cupcake_py.app.serve`) when the command comes after global
options. Their --help is printed by the fast paths from `cli/help_texts.py` (without typer), in
the layout click gives every other command."""

from __future__ import annotations

import typer

from cupcake_py.cli.help_texts import EVAL_SUMMARY, SERVE_SUMMARY


def register(app: typer.Typer) -> None:
    @app.command(
        "serve",
        help=SERVE_SUMMARY,
        context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
        add_help_option=False,  # --help reaches cupcake_py.app.serve, which prints SERVE_HELP
    )
    def serve_command(ctx: typer.Context) -> None:
        from cupcake_py.app.serve import main

        raise typer.Exit(main(list(ctx.args)))

    @app.command(
        "eval",
        help=EVAL_SUMMARY,
        context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
        add_help_option=False,  # --help reaches fast_eval, which prints EVAL_HELP (one option list)
    )
    def eval_command(ctx: typer.Context) -> None:
        from cupcake_py.app.fast_eval import main

        raise typer.Exit(main(list(ctx.args)))
