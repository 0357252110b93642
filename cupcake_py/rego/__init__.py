"""Rego v1 front end: source text -> typed AST (`cupcake_py.rego.ast`).

Public API:
    parse_module(text, filename, rego_version=None) -> Module   (raises RegoErrors; versions: rego/versions.py)
    parse_files(paths) -> list[Module]            (all files' errors in one RegoErrors)
    parse_query(text) -> Body                     (e.g. `data.generated.p = x`)
    parse_term(text) -> Term                      (e.g. an `input_term` value)
    find_rego_files(paths) -> list[Path]          (directories searched for *.rego, sorted)
Errors: `cupcake_py.rego.errors` (RegoError, RegoErrors, format_text, format_json).
"""

from __future__ import annotations

from cupcake_py.rego.errors import MAX_ERRORS, PARSE, RegoError, RegoErrors

TYPE_CHECKING = False
if TYPE_CHECKING:  # (typing stays off a cached `cupcake test`, which finds files here; pathlib off a first run)
    from collections.abc import Iterable, Iterator
    from pathlib import Path

    from cupcake_py.rego.ast import Body, Module, Term
# The parser is imported by the functions that parse: finding and reading files (a cached
# `cupcake test`) does not load it.

__all__ = ["parse_module", "parse_files", "parse_query", "parse_term", "find_rego_files", "rego_files_of", "read_source",
           "RegoError", "RegoErrors"]


def parse_module(text: str, filename: str = "", rego_version: str | None = None) -> Module:
    """`rego_version` "v0": OPA's --v0-compatible syntax; None: the file's version in the current
    `cupcake_py.rego.versions` (v1 unless a command's --v0-compatible or a manifest says v0)."""
    from cupcake_py.rego.annotations import attach_annotations
    from cupcake_py.rego.lexer import tokenize
    from cupcake_py.rego.parser import Parser, raise_errors

    if rego_version is None:
        from cupcake_py.rego import versions

        rego_version = versions.current().of(filename)
    parser = Parser(tokenize(text, filename), rego_version)
    module = parser.parse_module()
    parser.errors.extend(attach_annotations(module))  # one RegoErrors for the syntax and the METADATA blocks
    if parser.errors:
        raise_errors(parser.errors, parser.truncated)
    return module


def parse_query(text: str, filename: str = "<query>") -> Body:
    from cupcake_py.rego.parser import parse_query_text

    return parse_query_text(text, filename)


def parse_term(text: str, filename: str = "<term>") -> Term:
    from cupcake_py.rego.parser import parse_term_text

    return parse_term_text(text, filename)


def read_source(path: str | Path) -> str:
    """A policy file's text; unreadable or non-UTF-8 files become a RegoErrors."""
    try:
        with open(path, "rb") as f:
            return f.read().decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RegoErrors([RegoError(PARSE, f"file is not valid UTF-8 (byte {exc.start})", None)]) from None
    except OSError as exc:
        from pathlib import Path  # (the path as pathlib prints it)

        raise RegoErrors([RegoError(PARSE, f"cannot read {Path(path)}: {exc.strerror}", None)]) from None


DATA_SUFFIXES = (".json", ".yaml", ".yml")


def rego_files_of(paths: Iterable[str | Path]) -> Iterator[tuple[Path, list[Path] | None]]:
    """Each path with the files it names that no earlier path named: a directory's *.rego
    files (searched recursively, sorted), a file itself; None when nothing exists there. A
    .json/.yaml/.yml file named directly is data, never a module (OPA's loader goes by the
    extension: `opa check data.yaml policy/` checks the policy)."""
    from pathlib import Path

    seen: set[Path] = set()
    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            found = sorted(f for f in p.rglob("*.rego") if f.is_file())
        elif p.exists():
            found = [] if p.suffix in DATA_SUFFIXES else [p]
        else:
            yield p, None
            continue
        new = [f for f in found if f.absolute() not in seen]
        seen.update(f.absolute() for f in new)
        yield p, new


def find_rego_files(paths: Iterable[str | Path]) -> list[Path]:
    """Files as given, directories searched recursively for *.rego (sorted, no duplicates).
    A path that does not exist raises RegoErrors."""
    out: list[Path] = []
    missing: list[RegoError] = []
    for p, found in rego_files_of(paths):
        if found is None:
            missing.append(RegoError(PARSE, f"no such file or directory: {p}", None))
        else:
            out.extend(found)
    if missing:
        raise RegoErrors(missing)
    return out


def parse_files(paths: Iterable[str | Path]) -> list[Module]:
    """Parse every file; all errors of all files are raised together as one RegoErrors."""
    modules: list[Module] = []
    errors: list[RegoError] = []
    for path in paths:
        try:
            text = read_source(path)
            modules.append(parse_module(text, str(path)))
        except RegoErrors as exc:
            errors.extend(RegoError(e.code, e.message, e.location) if e.location else
                          RegoError(e.code, f"{path}: {e.message}", None) for e in exc.errors)
        if len(errors) >= MAX_ERRORS:
            break
    if errors:
        raise RegoErrors(errors)
    return modules
