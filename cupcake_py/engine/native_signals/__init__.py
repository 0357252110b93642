"""Native signals: signals cupcake computes in-process (no shell): `git.*` (git.py), `file.*`
(file.py) and `history` (computed by the evaluator itself, see ENGINE_SIGNALS).

A provider is registered by name prefix as "module:function" and imported only when a
routed policy requires one of its signals. Contract:

    function(names: list[str], event: dict, root: str | os.PathLike[str], deadline: float,
             inside: Inside | None) -> dict[str, value]

`names` are the requested signal names with that prefix, `event` the preprocessed event,
`root` the project root, `deadline` a `time.monotonic()` instant the provider must not run
past, `inside` (when the kernel floor is enabled) turns an argv into the one that runs it inside
the floor's profile (a provider that starts a program which reads project files, such as git
running a new repository's `filter.*.clean`, runs it that way). Values are JSON values stored at `input.signals.<name>`; a name missing from the
result is left out. Exceptions fail the evaluation closed (SignalProviderError names the signals).
"""

from __future__ import annotations

import importlib
import time

from cupcake_py.core.errors import CupcakeError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from os import PathLike
    from typing import Any


class SignalProviderError(CupcakeError):
    pass


if TYPE_CHECKING:
    Inside = Callable[[list[str]], list[str]]
    Provider = Callable[[list[str], dict[str, Any], str | PathLike[str], float, Inside | None], dict[str, Any]]

# prefix -> "module:function"; add a family here.
PROVIDERS: dict[str, str] = {
    "git.": "cupcake_py.engine.native_signals.git:gather",
    "file.": "cupcake_py.engine.native_signals.file:gather",
}


# prefix -> the full names the family computes (checked when a bundle is built, so a typo in
# required_signals is an error instead of a signal that is silently never set).
NAMES: dict[str, str] = {
    "git.": r"git\.(is_repo|branch|is_dirty|staged_files|unstaged_files|untracked_files|ahead_behind|last_commit)",
    "file.": r"file\.(exists|size|sha256|line_count|head|head_([1-9][0-9]{0,2}|10[01][0-9]|102[0-4])kb)",
}


def _prefix(name: str) -> str | None:
    for prefix in PROVIDERS:
        if name.startswith(prefix):
            return prefix
    return None


# Names the evaluator computes itself (not through a provider): `history` becomes
# `input.history` (cupcake_py/governance/history.py), from the per-user governance database.
ENGINE_SIGNALS = frozenset({"history"})


def provides(name: str) -> bool:
    if name in ENGINE_SIGNALS:
        return True
    import re

    p = _prefix(name)
    return p is not None and re.fullmatch(NAMES[p], name) is not None


def gather(names: list[str], event: dict[str, Any], root: str | PathLike[str], deadline: float,
           inside: Inside | None = None) -> dict[str, Any]:
    groups: dict[str, list[str]] = {}
    for n in names:
        p = _prefix(n)
        if p is not None:
            groups.setdefault(p, []).append(n)
    out: dict[str, Any] = {}
    for prefix, wanted in groups.items():
        module, _, fn = PROVIDERS[prefix].partition(":")
        try:
            provider: Provider = getattr(importlib.import_module(module), fn)
            got = provider(wanted, event, root, deadline, inside)
        except CupcakeError:
            raise
        except Exception as e:  # a provider bug must fail the evaluation closed, naming the signals
            raise SignalProviderError(f"native signal(s) {', '.join(wanted)} failed: {type(e).__name__}: {e}") from e
        if not isinstance(got, dict):
            raise SignalProviderError(f"native signal(s) {', '.join(wanted)}: the provider returned "
                                      f"{type(got).__name__}, not an object")
        out.update({k: v for k, v in got.items() if k in wanted})
        if time.monotonic() > deadline:
            break
    return out
