"""`cupcake query`: `opa eval` for cupcake policies (authoring/query.py does the work).

Out: the result on stdout (pretty: a value or a table; json: OPA's result document). Exit
status: 0 the query was evaluated (also when undefined, as opa eval; --fail: 1 when undefined);
2 a policy, data, input or query error (`file:row:col: code: message` on stderr)."""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from cupcake_py.cli import options
from cupcake_py.cli.rego_version_option import v0_option
from cupcake_py.core.errors import CupcakeError
from cupcake_py.rego.errors import RegoErrors, format_text


def query_cmd(
    query: str = typer.Argument(..., metavar="QUERY", help="The Rego query, e.g. data.cupcake.policies.opencode."
                                "example.deny or `x := data.a.b; x > 1`.", show_default=False),
    data: list[Path] = typer.Option([], "--data", "-d", metavar="PATH", help="Policy (.rego) and data (.json, "
                                    ".yaml) files, or directories searched recursively for them (repeatable); "
                                    "data files are mounted at their directory path, as opa eval does."),
    input_file: Path | None = typer.Option(None, "--input", "-i", metavar="FILE", help="The input document "
                                           "(JSON or YAML).", show_default=False),
    stdin_input: bool = typer.Option(False, "--stdin-input", "-I", help="Read the input document (JSON) from "
                                     "stdin."),
    fmt: str = options.format_option("text", "json", extra_help="text is opa eval's `pretty` (the value, or a "
                                     "table of bindings); json is opa eval's result document."),
    fail: bool = typer.Option(False, "--fail", help="Exit 1 when the query is undefined (no result)."),
    strict_builtin_errors: bool = typer.Option(False, "--strict-builtin-errors", help="A builtin error fails the "
                                               "query instead of making the call undefined."),
    v0_compatible: bool = v0_option(),
) -> None:
    """Evaluate a Rego query against policies, data and an input, as `opa eval` does.

    The query and the policies are compiled to WebAssembly by cupcake-py and run under
    wasmtime (the pipeline `cupcake eval` uses), so the answer is the one the engine gives.

    \b
    Examples:
      cupcake query -d .cupcake/policies -i event.json 'data.cupcake.policies.opencode.example.deny'
      cupcake query -d policy.rego -i input.json --format json 'data.x.allow'
      cupcake query 'x := [1, 2, 3][_]; x > 1'
    """
    from cupcake_py.authoring import target_settings
    from cupcake_py.authoring.query import QueryError, json_text, pretty, run_query
    from cupcake_py.rego import versions

    sources: dict[str, str] = {}
    try:
        with versions.use(target_settings.rego_versions(list(data), v0_compatible)):  # the -d policies; the query itself is v1 either way
            result = run_query(query, list(data), input_file,
                               stdin_input=sys.stdin.buffer.read() if stdin_input else None, strict=strict_builtin_errors)
    except RegoErrors as e:
        for err in e.errors:
            f = err.location.file if err.location is not None else None
            if f and f not in sources and Path(f).is_file():
                sources[f] = Path(f).read_text("utf-8", "replace")
        if query and "<query>" not in sources:
            sources["<query>"] = query
        n = len(e.errors)
        typer.echo(f"{n} error{'s' if n != 1 else ''} occurred:", err=True)
        typer.echo(format_text(e.errors, sources), err=True)
        raise typer.Exit(2) from None
    except (QueryError, CupcakeError) as e:
        raise options.fail(str(e)) from None
    if fmt == "json":
        sys.stdout.write(json_text(result.opa_json(), indent=True) + "\n")
    else:
        sys.stdout.write(pretty(result))
    if fail and not result.rows:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.command("query")(query_cmd)
