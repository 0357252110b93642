"""`cupcake wasm inspect` and `cupcake wasm run`: any OPA-ABI module on the command line
(ours, or one built by `opa build -t wasm`), loaded and run by the host (cupcake_py/host).

Out: the module summary (text or JSON) or the result set as JSON. Exit status: EXIT_CODES below
(1 evaluation failed, 2 bad usage or input, 3 unusable module); the message on stderr."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, NoReturn

import orjson
import typer

from cupcake_py.cli import options
from cupcake_py.core import values
from cupcake_py.core.errors import CupcakeError

EXIT_CODES = (
    "Exit codes: 0 success; 1 the evaluation failed (abort/runtime error, deadline, memory limit, "
    "trap, builtin error); 2 bad usage or input (unreadable file, invalid JSON, unknown entrypoint); "
    "3 the module is unusable (not WebAssembly, wrong ABI, builtins the host lacks)."
)

EXIT_EVAL, EXIT_USAGE, EXIT_MODULE = 1, 2, 3


def _fail(message: str, code: int) -> NoReturn:
    typer.echo(f"cupcake wasm: {message}", err=True)
    raise typer.Exit(code)


def _exit_code(err: CupcakeError) -> int:
    from cupcake_py.host import errors as E

    if isinstance(err, E.InputError | E.UnknownEntrypointError | values.ValueParseError):
        return EXIT_USAGE
    if isinstance(err, E.ModuleError | E.ABIError | E.MissingBuiltinError):
        return EXIT_MODULE
    return EXIT_EVAL


def _read(path: str, what: str) -> bytes:
    try:
        if path == "-":
            return sys.stdin.buffer.read()
        return Path(path).read_bytes()
    except OSError as e:
        _fail(f"cannot read {what} {path}: {e.strerror or e}", EXIT_USAGE)


def _options(timeout: float, memory_limit: int, strict: bool, no_cache: bool) -> Any:
    from cupcake_py.host import HostOptions

    kw: dict[str, Any] = {"deadline": timeout, "memory_limit": memory_limit * 1024 * 1024, "strict": strict}
    if no_cache:
        kw["cache_dir"] = None
    try:
        return HostOptions(**kw)
    except ValueError as e:
        _fail(str(e), EXIT_USAGE)


def _load(module_path: Path, options: Any) -> Any:
    from cupcake_py.host import PolicyModule

    wasm = _read(str(module_path), "module")
    try:
        return PolicyModule(wasm, options)
    except CupcakeError as e:
        _fail(f"{module_path}: {e}", _exit_code(e))


def inspect_cmd(
    module: Path = typer.Argument(..., help="The .wasm module."),
    fmt: str = options.format_option("text", "json"),
) -> None:
    """Show a module's ABI version, imports, exports, entrypoints and host builtins."""
    from cupcake_py.host.builtin_dispatch import available

    mod = _load(module, _options(5.0, 64, False, True))
    try:
        s = mod.summary()
    except CupcakeError as e:
        _fail(f"{module}: {e}", _exit_code(e))
    have = available(s.builtins.values())
    if fmt == "json":
        doc = {
            "abi_version": f"{s.abi_version[0]}.{s.abi_version[1]}",
            "entrypoints": s.entrypoints,
            "builtins": [{"id": i, "name": n, "implemented": n in have} for i, n in sorted(s.builtins.items())],
            "imports": [e.as_dict() for e in s.imports],
            "exports": [e.as_dict() for e in s.exports],
        }
        typer.echo(orjson.dumps(doc, option=orjson.OPT_INDENT_2).decode())
        return
    lines = [f"module:       {module}", f"ABI version:  {s.abi_version[0]}.{s.abi_version[1]}", "entrypoints:"]
    lines += [f"  {i:>4}  {n}" for n, i in sorted(s.entrypoints.items(), key=lambda kv: kv[1])] or ["  (none)"]
    lines.append("host builtins:")
    lines += [f"  {i:>4}  {n}{'' if n in have else '  (not implemented by this host)'}"
              for i, n in sorted(s.builtins.items())] or ["  (none)"]
    lines.append("imports:")
    lines += [f"  {e.module}.{e.name}  {e.kind} {e.signature}" for e in s.imports]
    lines.append(f"exports ({len(s.exports)}):")
    lines += [f"  {e.name}  {e.kind} {e.signature}" for e in s.exports]
    typer.echo("\n".join(lines))


def run_cmd(
    module: Path = typer.Argument(..., help="The .wasm module."),
    entrypoint: str | None = typer.Option(None, "-e", "--entrypoint",
                                   help="Entrypoint name (e.g. example/allow); optional when there is one."),
    input_path: str | None = typer.Option(None, "--input", "-i", help="Input JSON file, or - for stdin."),
    data_path: str | None = typer.Option(None, "--data", "-d", help="Base data JSON file."),
    strict: bool = typer.Option(False, "--strict", help="Host builtin errors fail the evaluation."),
    timeout: float = typer.Option(1.0, "--timeout", help="Deadline per evaluation, seconds."),
    memory_limit: int = typer.Option(64, "--memory-limit", help="Linear memory cap, MiB."),
    no_cache: bool = typer.Option(False, "--no-cache", help="Do not use the native-code cache."),
) -> None:
    """Evaluate an entrypoint and print the result set as JSON ([] when undefined)."""
    input_json = _read(input_path, "input") if input_path is not None else None
    data_json = _read(data_path, "data") if data_path is not None else None
    for raw, what in ((input_json, "input"), (data_json, "data")):
        if raw is not None:
            try:
                values.parse_json(raw)
            except values.ValueParseError as e:
                _fail(f"{what} is not valid JSON: {e}", EXIT_USAGE)
    mod = _load(module, _options(timeout, memory_limit, strict, no_cache))
    try:
        policy = mod.instantiate(data_json=data_json)
        out = policy.eval_raw(entrypoint, input_json=input_json)
        typer.echo(out.decode("utf-8", "replace"))
    except CupcakeError as e:
        _fail(str(e), _exit_code(e))


def register(app: typer.Typer) -> None:
    wasm = typer.Typer(name="wasm", help="Inspect and run OPA-ABI WebAssembly modules.\n\n" + EXIT_CODES,
                       no_args_is_help=True)
    # `or ""`: python -OO strips docstrings
    wasm.command("inspect", help=(inspect_cmd.__doc__ or "") + "\n\n" + EXIT_CODES)(inspect_cmd)
    wasm.command("run", help=(run_cmd.__doc__ or "") + "\n\n" + EXIT_CODES)(run_cmd)
    app.add_typer(wasm)
