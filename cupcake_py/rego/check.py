"""Check Rego policies without running them: parse every .rego file under the given paths and,
when all parse, run the compiler's checks (unsafe variables, recursion, types).

In: files or directories (searched recursively for *.rego). Out: (errors, sources by file name,
file count); errors carry file:row:col where they have one. Nothing raises for a policy error:
unreadable files, syntax and compile errors all come back as RegoErrors in the list. Used by
`cupcake check` (cli/rego.py)."""

from __future__ import annotations

import importlib
from pathlib import Path

from cupcake_py.core.errors import CupcakeError
from cupcake_py.rego import find_rego_files, parse_module, read_source
from cupcake_py.rego.ast import Module
from cupcake_py.rego.errors import COMPILE, RegoError, RegoErrors

COMPILE_HOOK_MODULE = "cupcake_py.rego.compile"


def compile_check(modules: list[Module]) -> list[RegoError]:
    """Run the compile checks when `cupcake_py.rego.compile.check_modules` exists (it returns or
    raises RegoErrors); without it only parse errors are reported."""
    try:
        mod = importlib.import_module(COMPILE_HOOK_MODULE)
    except ModuleNotFoundError as exc:
        if exc.name and COMPILE_HOOK_MODULE.startswith(exc.name):
            return []
        raise
    check = getattr(mod, "check_modules", None)
    if check is None:
        return []
    try:
        return list(check(modules))
    except RegoErrors as exc:
        return list(exc.errors)
    except RegoError as exc:
        return [exc]
    except CupcakeError as exc:
        return [RegoError(COMPILE, str(exc), None)]


def check_paths(paths: list[Path]) -> tuple[list[RegoError], dict[str, str], int]:
    """Parse (and compile-check) every .rego file under `paths`: (errors, sources, file count)."""
    try:
        files = find_rego_files(paths)
    except RegoErrors as exc:
        return list(exc.errors), {}, 0
    errors: list[RegoError] = []
    sources: dict[str, str] = {}
    modules: list[Module] = []
    for f in files:
        name = str(f)
        try:
            text = read_source(f)
            sources[name] = text
            modules.append(parse_module(text, name))
        except RegoErrors as exc:
            errors.extend(e if e.location else RegoError(e.code, f"{name}: {e.message}", None) for e in exc.errors)
    if not errors and modules:
        errors.extend(compile_check(modules))
    return errors, sources, len(files)
