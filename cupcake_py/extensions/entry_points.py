"""The installed custom builtin modules: the entry points of the group `cupcake_py.builtins`
(docs/custom-builtins.md), as the authoring commands scan them (`cupcake eval` runs only the
modules its configuration names).

In: the installed distributions on sys.path. Out: `entry_point_specs()`, their `module[:attr]`
values, sorted: what `importlib.metadata.entry_points(group=...)` gives, read without
importing it. `importlib.metadata` costs a `cupcake test` process ~25 ms of imports (email,
zipfile, csv, re, pathlib, typing, socket ...) before its first test; the same answer is a
directory listing per sys.path entry and a read of each `entry_points.txt`, ~1 ms. Read the
way importlib.metadata reads them (CPython 3.11-3.13): every `*.dist-info` / `*.egg-info`
folder of every sys.path entry in order, the first distribution of a (normalised) name wins,
`[group]` sections of `name = value` lines, blank lines and `#` comments skipped. Where that
reading would not be the same answer (a sys.path entry that is a zip file or an .egg, a meta-path finder
other than the standard path finder that can list distributions) the scan is importlib.metadata
itself. Kept apart from extensions/builtins.py (which imports the host's builtin library) so a
`cupcake test` process that has no custom builtin to load checks that without importing it.
An unreadable folder or file is skipped, as importlib.metadata skips it; a file that is not UTF-8
raises UnicodeDecodeError, as there.
"""

from __future__ import annotations

import os
import sys

ENTRY_POINT_GROUP = "cupcake_py.builtins"
_INFO = (".dist-info", ".egg-info")


def entry_point_specs() -> list[str]:
    """The `module[:attr]` values of the installed `cupcake_py.builtins` entry points (sorted)."""
    if not _plain_paths():
        return scan_with_importlib_metadata()
    found: set[str] = set()
    seen: set[str] = set()
    for entry in sys.path:
        try:
            children = os.listdir(entry or ".")
        except OSError:
            continue
        for child in children:
            low = child.lower()
            if not low.endswith(_INFO):
                continue
            name = normalize(low.rpartition(".")[0].partition("-")[0])
            if name in seen:
                continue  # (the first distribution of a name on sys.path is the installed one)
            seen.add(name)
            found.update(group_values(_read(os.path.join(entry, child, "entry_points.txt")), ENTRY_POINT_GROUP))
    return sorted(found)


def _plain_paths() -> bool:
    """True when listing the sys.path directories finds what importlib.metadata finds."""
    for finder in sys.meta_path:  # (CPython's path finder is the one that reads sys.path: named, not imported)
        if hasattr(finder, "find_distributions") and (getattr(finder, "__module__", None), getattr(
                finder, "__qualname__", None)) != ("_frozen_importlib_external", "PathFinder"):
            return False
    # zip archives and .egg folders on sys.path (and entries that are not str): importlib.metadata's
    return all(isinstance(entry, str) and not (entry and (entry.lower().endswith(".egg") or os.path.isfile(entry)))
               for entry in sys.path)


def normalize(name: str) -> str:
    """A distribution name as importlib.metadata compares them (runs of `-_.` are one `_`, lower case)."""
    out, run = [], False
    for ch in name.lower():
        if ch in "-_.":
            if not run:
                out.append("_")
            run = True
        else:
            out.append(ch)
            run = False
    return "".join(out)


def _read(path: str) -> str:
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except OSError:  # (an undecodable file raises, as in importlib.metadata)
        return ""


def group_values(text: str, group: str) -> list[str]:
    """The values of the `name = value` lines in the `[group]` section(s) of an entry_points.txt."""
    section: str | None = None
    out = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("[") and line.endswith("]"):
            section = line.strip("[]")
        elif section == group and "=" in line:
            out.append(line.split("=", 1)[1].strip())
    return out


def scan_with_importlib_metadata() -> list[str]:
    """What importlib.metadata finds (the reference the direct reading above is tested against)."""
    from importlib.metadata import entry_points

    return sorted({ep.value for ep in entry_points(group=ENTRY_POINT_GROUP)})
