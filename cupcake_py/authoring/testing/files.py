"""The files under the paths of a `cupcake test` run, found with str paths (os.scandir) exactly
as pathlib finds them, so a run served from the build cache never imports pathlib (nor `re`,
`fnmatch` and `urllib.parse`, which pathlib imports).

In: the paths given on the command line. Out: `rego_files` (the Rego modules under them: a
directory's `*.rego` files, searched recursively and sorted, files named directly; a
.json/.yaml/.yml file named directly is data, not a module; no duplicates), `tree` (every entry
below a directory, as `Path.rglob("*")`), `norm` (a path as `str(Path(p))` writes it) and
`suffix` (pathlib's `suffix`); pathlib's sort order is engine.project's `path_order`. Paths are written as pathlib writes them
(`lib/` is `lib`, `./a//b` is `a/b`), so messages, the build cache key and the report are the
same as with pathlib. A path that does not exist raises TestSetupError (exit status 1) with the
Rego loader's message (the loader itself reports it).

Directory walks follow Python 3.11's `Path.rglob`: symbolic links to directories are not
entered, a directory that cannot be read (PermissionError) is skipped; `tests/authoring/
test_test_files.py` compares them with pathlib on generated trees.
"""

from __future__ import annotations

import os

from cupcake_py.engine.project import path_order

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator
    from pathlib import Path

DATA_SUFFIXES = (".json", ".yaml", ".yml")
_IGNORED_ERRNOS = (2, 20, 9, 40)  # ENOENT, ENOTDIR, EBADF, ELOOP: pathlib's _ignore_error


def norm(path: str | Path) -> str:
    """`str(pathlib.Path(path))`: empty and `.` parts dropped, no trailing slash, `.` for nothing."""
    p = os.fspath(path)
    if os.sep != "/":  # (another flavour's rules: pathlib's own)
        from pathlib import Path

        return str(Path(p))
    lead = "//" if p.startswith("//") and not p.startswith("///") else "/" if p.startswith("/") else ""
    return lead + "/".join(x for x in p.split("/") if x and x != ".") or "."


def suffix(name: str) -> str:
    """`PurePath(name).suffix` of a file name: from its last dot, unless the name starts there or ends there."""
    i = name.rfind(".")
    return name[i:] if 0 < i < len(name) - 1 else ""


def _child(parent: str, name: str) -> str:
    if parent == ".":
        return name
    return parent + name if parent.endswith(os.sep) else parent + os.sep + name


def _entries(directory: str) -> list[os.DirEntry[str]] | None:
    try:
        with os.scandir(directory) as it:
            return list(it)
    except PermissionError:
        return None


def _directories(directory: str) -> Iterator[str]:
    """`directory` and every directory below it, symbolic links to directories not entered."""
    yield directory
    entries = _entries(directory)
    for entry in entries or ():
        try:
            is_dir = entry.is_dir(follow_symlinks=False)
        except OSError as e:
            if e.errno not in _IGNORED_ERRNOS:
                raise
            is_dir = False
        if is_dir:
            yield from _directories(_child(directory, entry.name))


def tree(root: str) -> Iterator[str]:
    """Every entry below the directory `root` (`Path(root).rglob("*")`; nothing when `root` is
    not a directory), in walk order."""
    if not os.path.isdir(root):
        return
    for d in _directories(root):
        for entry in _entries(d) or ():
            yield _child(d, entry.name)


def rego_files(paths: Iterable[str | Path]) -> list[str]:
    """The Rego modules of `paths` (see the module docstring)."""
    out: list[str] = []
    seen: set[str] = set()
    cwd = os.getcwd()
    for raw in paths:
        p = norm(raw)
        if os.path.isdir(p):
            found = sorted((f for f in tree(p) if f.endswith(".rego") and os.path.isfile(f)), key=path_order)
        elif os.path.exists(p):
            found = [p]
        else:
            return _missing(paths)
        for f in found:
            where = f if os.path.isabs(f) else norm(os.path.join(cwd, f))  # (Path.absolute: no `..` folding)
            if where not in seen:
                seen.add(where)
                out.append(f)
    return [f for f in out if suffix(os.path.basename(f)) not in DATA_SUFFIXES]


def _missing(paths: Iterable[str | Path]) -> list[str]:
    """A path that does not exist: the Rego loader's error, as TestSetupError."""
    from cupcake_py.authoring.testing.cases import TestSetupError
    from cupcake_py.rego import find_rego_files
    from cupcake_py.rego.errors import RegoErrors, format_text

    try:
        return [str(f) for f in find_rego_files(paths) if f.suffix not in DATA_SUFFIXES]
    except RegoErrors as e:
        raise TestSetupError(format_text(e.errors)) from None
