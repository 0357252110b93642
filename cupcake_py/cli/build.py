"""`cupcake build`: Rego policies -> one OPA-ABI WebAssembly module (or its IR), driving the
stages rego -> plan -> wasm through their plain functions.

Out: the module (policy.wasm or --output) or the IR JSON (stdout, or --output). Exit status 0
written; 1 policy errors (`file:row:col: code: message`), no .rego files, bad --data, an
unwritable output or a --custom-builtins module that cannot be loaded (`cupcake build: ...` on stderr)."""

from __future__ import annotations

import sys
from enum import StrEnum
from pathlib import Path
from typing import NoReturn

import orjson
import typer

from cupcake_py.cli.rego_version_option import v0_option
from cupcake_py.core.errors import CupcakeError
from cupcake_py.rego.errors import RegoErrors, format_text


class Emit(StrEnum):
    wasm = "wasm"
    ir = "ir"


def _fail(message: str) -> NoReturn:
    typer.echo(f"cupcake build: {message}", err=True)
    raise typer.Exit(1)


def build_cmd(
    paths: list[Path] = typer.Argument(..., help="Policy files, or directories searched recursively for *.rego.",
                                       show_default=False),
    entrypoint: list[str] = typer.Option([], "--entrypoint", "-e", help="Entrypoint as pkg/rule (repeatable). "
                                         "Default: every rule annotated `entrypoint: true` in METADATA."),
    output: Path | None = typer.Option(None, "--output", "-o", help="Output file (default: policy.wasm, or stdout "
                                "for --emit ir)."),
    emit: Emit = typer.Option(Emit.wasm, "--emit", help="wasm: the module. ir: the planned IR as OPA plan JSON."),
    data: Path | None = typer.Option(None, "--data", help="Base data (JSON) checked to be valid; it is not embedded."),
    v0_compatible: bool = v0_option(),
    builtins: list[str] = typer.Option([], "--custom-builtins", "--builtins", help="Python module (name or .py path) with custom "
                                       "builtins the policies call (repeatable; `cupcake docs custom-builtins`). The "
                                       "module imports them from the host (opa_builtinN), like OPA's SDK builtins."),
) -> None:
    """Compile Rego v1 policies to a WebAssembly module following OPA's WASM ABI.

    Each entrypoint `pkg/rule` is planned as the query `result = data.pkg.rule` and evaluates
    to `[{"result": value}]` (or `[]` when undefined). Errors are reported as
    `file:row:col: code: message`; the output is byte-for-byte deterministic.

    Examples:  cupcake build -e policy/allow -o allow.wasm policies/
               cupcake build --emit ir -e policy/allow policies/main.rego
    """
    from cupcake_py.authoring import target_settings
    from cupcake_py.core.gc_pause import gc_paused
    from cupcake_py.extensions.builtins import declared_for
    from cupcake_py.rego import versions

    try:
        from cupcake_py.authoring.progress import progress

        with declared_for(builtins), versions.use(target_settings.rego_versions(paths, v0_compatible)), gc_paused(freeze=True), \
                progress("cupcake build: compiling", machine_output=output is None):  # this process ends after the write
            _build(paths, entrypoint, output, emit, data)
    except CupcakeError as exc:
        _fail(str(exc))


def compile_sources(paths: list[Path], entrypoint: list[str], emit: Emit, data: Path | None,
                    sources: dict[str, str]) -> bytes:
    """Rego files under `paths` -> the WASM module, or the planned IR as OPA plan JSON.
    Fills `sources` (file -> text) as files are read, for error excerpts. Raises RegoErrors for
    policy errors and CupcakeError for everything else the user can fix."""
    from cupcake_py import ir
    from cupcake_py.plan import compile_entrypoints
    from cupcake_py.rego import find_rego_files, parse_module, read_source
    from cupcake_py.rego.compile import compile_modules

    files = find_rego_files(paths)
    if not files:
        raise CupcakeError("no .rego files found")
    modules = []
    for f in files:
        sources[str(f)] = read_source(f)
        modules.append(parse_module(sources[str(f)], str(f)))
    if data is not None:
        try:
            orjson.loads(data.read_bytes())
        except (OSError, orjson.JSONDecodeError) as e:
            raise CupcakeError(f"invalid --data {data}: {e}") from None
    compiled = compile_modules(modules)
    policy = compile_entrypoints(modules, entrypoint, compiled=compiled)
    if emit is Emit.ir:
        return orjson.dumps(ir.dump(policy), option=orjson.OPT_INDENT_2) + b"\n"
    from cupcake_py.wasm import compile_policy

    return compile_policy(policy)


def _build(paths: list[Path], entrypoint: list[str], output: Path | None, emit: Emit, data: Path | None) -> None:
    sources: dict[str, str] = {}
    try:
        out = compile_sources(paths, entrypoint, emit, data, sources)
    except RegoErrors as exc:
        n = len(exc.errors)
        typer.echo(f"{n} error{'s' if n != 1 else ''} occurred:", err=True)
        typer.echo(format_text(exc.errors, sources), err=True)
        raise typer.Exit(1) from None
    if output is None and emit is Emit.ir:
        sys.stdout.buffer.write(out)
        return
    target = output or Path("policy.wasm")
    try:
        target.write_bytes(out)
    except OSError as e:
        _fail(f"cannot write {target}: {e.strerror or e}")
    typer.echo(f"wrote {target} ({len(out)} bytes)", err=True)


def register(app: typer.Typer) -> None:
    app.command("build")(build_cmd)
