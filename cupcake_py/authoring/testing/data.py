"""Data documents of `cupcake test`, loaded as `opa test` loads them (OPA's loader, non-bundle mode).

In: the paths given on the command line. Every `*.json`, `*.yaml` and `*.yml` file is a data
document. A file named on the command line is merged at the root of `data` (it must hold an
object). A file found under a directory argument is mounted at its directory path *relative to
that argument*: `cupcake test policies/` with `policies/limits/data.json` holding `{"high": 20}`
gives `data.limits.high == 20`, and `policies/a/b/x.yaml` holding `[1]` gives `data.a.b == [1]`
(OPA mounts the content of every data file at its directory, whatever the file's name).

A cupcake configuration directory's own files are not data: `rulebook.yml` and the `debug/`
and `telemetry/` output directories directly inside a `.cupcake` directory are skipped (so
`cupcake test` with no paths, which tests `.cupcake/`, does not load them).

Out: one merged document (objects merge recursively; Python values as in cupcake_py.core.values)
plus the files read. Fails (DataError, reported by `cupcake test` as a load error, exit 1)
on: a file that is not valid JSON/YAML, a root-level file that is not an object, two
documents that give different non-object values to one path ("merge error", as OPA), and a
rule defined at a path that data also defines ("conflicting rule for data path", as OPA's
path-conflict check).
"""

from __future__ import annotations

import os

from cupcake_py.authoring.testing.files import DATA_SUFFIXES, norm, suffix, tree
from cupcake_py.core.errors import CupcakeError
from cupcake_py.engine.project import path_order

TYPE_CHECKING = False
if TYPE_CHECKING:  # (typing and pathlib stay off a cached run's start-up)
    from collections.abc import Iterable, Iterator
    from pathlib import Path
    from typing import Any

__all__ = ["DATA_SUFFIXES", "DataError", "check_conflicts", "data_files", "ignored", "load_data", "rule_paths"]  # (+ _parse)


class DataError(CupcakeError):
    """A data file could not be loaded or merged."""


CONFIG_FILES = frozenset({"rulebook.yml", "rulebook.yaml", "rulebook.schema.json"})
CONFIG_DIRS = frozenset({"debug", "telemetry"})


def _cupcake_own(f: str) -> bool:
    """A file of a `.cupcake` configuration itself (rulebook, debug traces, telemetry); `f` is absolute."""
    parts = f.split(os.sep)
    for i, part in enumerate(parts[:-1]):
        if part == ".cupcake":
            rest = parts[i + 1:]
            return (len(rest) == 1 and rest[0] in CONFIG_FILES) or rest[0] in CONFIG_DIRS
    return False


def ignored(f: str | Path, patterns: Iterable[str], roots: Iterable[str | Path]) -> bool:
    """Whether `--ignore` patterns (fnmatch, as OPA's `--ignore`: `.*` skips hidden files and
    directories) match the file's name or a directory name between its root argument and it."""
    patterns = list(patterns)
    if not patterns:
        return False
    from fnmatch import fnmatch
    from pathlib import Path

    f = Path(f)
    parts: tuple[str, ...] = (f.name,)
    for r in roots:
        try:
            parts = f.relative_to(r).parts or (f.name,)
            break
        except ValueError:
            continue
    return any(fnmatch(part, p) for part in parts for p in patterns)


def _mount(f: str, root: str) -> tuple[str, ...]:
    """The directories between `root` and the file `f` found below it."""
    inner = os.path.dirname(f)[len(root):] if root != "." else os.path.dirname(f)
    return tuple(part for part in inner.split(os.sep) if part)


def data_files(paths: Iterable[str | Path], ignore: Iterable[str] = ()) -> list[tuple[str, tuple[str, ...]]]:
    """(file, mount path) of every data document under `paths`, in load order (paths written as
    pathlib writes them: files.norm)."""
    paths, ignore = list(paths), list(ignore)
    out: list[tuple[str, tuple[str, ...]]] = []
    seen: set[str] = set()
    for raw in paths:
        root = norm(raw)
        if os.path.isdir(root):
            found = sorted((f for f in tree(root) if suffix(os.path.basename(f)) in DATA_SUFFIXES
                            and os.path.isfile(f) and not _cupcake_own(os.path.realpath(f))), key=path_order)
            items = [(f, _mount(f, root)) for f in found]
        elif suffix(os.path.basename(root)) in DATA_SUFFIXES and os.path.isfile(root):
            items = [(root, ())]
        else:
            items = []
        for f, mount in items:
            if f not in seen and not ignored(f, ignore, [root]):
                seen.add(f)
                out.append((f, mount))
    return out


def _parse(path: str | Path) -> Any:
    from cupcake_py.core import values

    with open(path, "rb") as f:
        raw = f.read()
    if suffix(os.path.basename(path)) == ".json":
        try:
            doc = values.parse_json(raw)
        except values.ValueParseError as e:
            raise DataError(f"{path}: not valid JSON: {e}") from None
        # Go's decoder: an unpaired \ud800 escape is U+FFFD
        return values.lone_surrogates_replaced(doc) if b"\\u" in raw else doc
    import yaml

    from cupcake_py.core import yaml_values

    try:
        # as OPA's YAML -> JSON: timestamps stay strings, numbers exact (int / Decimal), keys strings
        return yaml_values.load(raw)
    except (yaml.YAMLError, ValueError) as e:
        raise DataError(f"{path}: error converting YAML to JSON: {e}") from None


def _mounted(mount: tuple[str, ...], doc: Any) -> Any:
    for part in reversed(mount):
        doc = {part: doc}
    return doc


def _merge(into: dict[Any, Any], doc: dict[Any, Any], path: str) -> None:
    for k, v in doc.items():
        have = into.get(k)
        if k not in into:
            into[k] = v
        elif isinstance(have, dict) and isinstance(v, dict):
            _merge(have, v, path)
        else:
            raise DataError(f"{path}: merge error (data.{k} is already defined by another data file)")


def load_data(paths: Iterable[str | Path], ignore: Iterable[str] = ()) -> tuple[dict[Any, Any], list[str]]:
    """The merged data document of every data file under `paths`, and those files."""
    merged: dict[Any, Any] = {}
    files = data_files(paths, ignore)
    for f, mount in files:
        doc = _parse(f)
        if not mount and not isinstance(doc, dict):
            raise DataError(f"{f}: bad document type (a data file at the root must hold an object)")
        _merge(merged, _mounted(mount, doc), f)
    return merged, [f for f, _ in files]


def _defined(data: Any, path: Iterable[str]) -> bool:
    node = data
    for part in path:
        if not isinstance(node, dict) or part not in node:
            return False
        node = node[part]
    return True


def rule_paths(modules: Iterable[Any]) -> Iterator[tuple[tuple[str, ...], Any]]:
    """(data path, location) of every rule of `modules` (package + first head term)."""
    from cupcake_py.rego import ast as A

    for m in modules:
        pkg = tuple(t.value.value for t in m.package.path.terms[1:] if isinstance(t.value, A.String))
        for r in m.rules:
            yield (*pkg, r.head.name), r.location


def check_conflicts(data: dict[Any, Any], modules: Iterable[Any]) -> None:
    """OPA's path-conflict check: no rule may be defined where data already holds a value."""
    if not data:
        return
    errors = [f"{loc}: rego_compile_error: conflicting rule for data path {'/'.join(path)} found"
              for path, loc in rule_paths(modules) if _defined(data, path)]
    if errors:
        raise DataError("\n".join(sorted(set(errors))))
