"""Hard-link identities: a hard link to a protected file is the protected file.

In:  the policy input once `builtin_config` is attached (engine side), with `shell.effects`
     (Bash events, from cupcake_py.shell) and `tool_paths` (every event).
Out: the same dict with (copied, never shared) lists extended: for every effect path and tool path that is a regular
     file with st_nlink > 1, each protected/state file with the same (st_dev, st_ino) is added
     to the same effect list (`shell.effects.<kind>`), or as an extra `tool_paths` entry with
     the same `arg`/`access` and `link_of` naming the path the tool was given.
     When a linked candidate exists but the protected roots could not all be compared (a
     root unreadable, the walk budget spent), its path goes to `input.link_uncertain` so the
     policies answer by their `on_uncertain` setting instead of assuming "no link".

Roots compared (expanded, bounded): guardrail `state_paths` (whole trees for `dir: true`),
guardrail `protected_paths`, `protected_paths.paths` without wildcards (relative ones below
cwd), `.env*` files in cwd and, when sensitive_data_protection is on, the secret-looking files
below cwd (enrich.secrets_below.scan). At most MAX_ENTRIES directory entries are examined per event,
and the walk only happens when some candidate actually has another name.
Symlinks need nothing here: effects and tool paths are realpath-resolved already.
"""

from __future__ import annotations

import os
import stat

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

EFFECT_KINDS = ("reads", "writes", "deletes", "links", "executes")
MAX_ENTRIES = 4096
MAX_DEPTH = 8


def _roots(policy_input: dict[str, Any]) -> list[str]:
    cfg = policy_input.get("builtin_config") or {}
    cwd = str(policy_input.get("cwd") or "/")
    guard = cfg.get("rulebook_security_guardrails") or {}
    roots: list[str] = []
    for entry in guard.get("state_paths") or []:
        if isinstance(entry, dict) and isinstance(entry.get("path"), str):
            roots.append(entry["path"])
    plain = list(guard.get("protected_paths") or []) + list((cfg.get("protected_paths") or {}).get("paths") or [])
    for p in plain:
        if isinstance(p, str) and p and not any(c in p for c in "*?["):
            roots.append(os.path.join(cwd, p))
    try:
        roots += [os.path.join(cwd, n) for n in os.listdir(cwd) if n.startswith(".env")]
    except OSError:
        roots.append(os.path.join(cwd, ".env"))  # unreadable cwd: the walk below marks it incomplete
    if "sensitive_data_protection" in cfg:
        from cupcake_py.enrich.secrets_below import scan

        roots += scan(cwd)  # secret-looking files below cwd (bounded pre-filter)
    return [os.path.normpath(r) for r in roots]


class _Identities:
    """(st_dev, st_ino) -> protected path names, filled by a bounded walk of the roots."""

    def __init__(self) -> None:
        self.ids: dict[tuple[int, int], list[str]] = {}
        self.complete = True
        self.budget = MAX_ENTRIES

    def _add(self, path: str, st: os.stat_result) -> None:
        self.ids.setdefault((st.st_dev, st.st_ino), []).append(path)

    def walk(self, root: str) -> None:
        try:
            st = os.stat(root)
        except FileNotFoundError:
            return  # nothing protected exists there, so nothing can be linked to it
        except OSError:
            self.complete = False
            return
        if not stat.S_ISDIR(st.st_mode):
            self._add(root, st)
            return
        stack = [(root, 0)]
        while stack:
            d, depth = stack.pop()
            try:
                with os.scandir(d) as it:
                    entries = list(it)
            except OSError:
                self.complete = False
                continue
            for e in entries:
                self.budget -= 1
                if self.budget < 0:
                    self.complete = False
                    return
                try:
                    if e.is_dir(follow_symlinks=False):
                        if depth < MAX_DEPTH:
                            stack.append((e.path, depth + 1))
                        else:
                            self.complete = False
                    elif e.is_file(follow_symlinks=True):
                        self._add(e.path, e.stat(follow_symlinks=True))
                except OSError:
                    self.complete = False


def _linked(path: Any) -> os.stat_result | None:
    """The stat of `path` when it is a regular file with more than one name."""
    if not isinstance(path, str):
        return None
    try:
        st = os.stat(path)
    except OSError:
        return None  # does not exist (yet): no other name can share its content
    return st if stat.S_ISREG(st.st_mode) and st.st_nlink > 1 else None


def add_link_identities(policy_input: dict[str, Any]) -> None:
    shell = policy_input.get("shell")
    effects = shell.get("effects") if isinstance(shell, dict) else None
    effects = effects if isinstance(effects, dict) else {}
    tool_paths = policy_input.get("tool_paths")
    tool_paths = tool_paths if isinstance(tool_paths, list) else []
    candidates: dict[str, os.stat_result] = {}
    for kind in EFFECT_KINDS:
        for p in effects.get(kind) or []:
            st = _linked(p)
            if st is not None:
                candidates[p] = st
    for e in tool_paths:
        st = _linked(e.get("path") if isinstance(e, dict) else None)
        if st is not None:
            candidates[e["path"]] = st
    if not candidates:
        return
    idx = _Identities()
    for root in dict.fromkeys(_roots(policy_input)):
        idx.walk(root)
    same = {p: [q for q in idx.ids.get((st.st_dev, st.st_ino), []) if q != p] for p, st in candidates.items()}
    if not idx.complete:
        policy_input["link_uncertain"] = sorted(p for p in candidates if not same[p])
    if not any(same.values()):
        return
    # copies: the enriched event is shared by the global and the project phase
    new_effects = dict(effects)
    for kind in EFFECT_KINDS:
        paths = effects.get(kind)
        if isinstance(paths, list):
            extra = [q for p in paths if p in same for q in same[p]]
            new_effects[kind] = paths + [q for q in dict.fromkeys(extra) if q not in paths]
    if isinstance(shell, dict):
        policy_input["shell"] = {**shell, "effects": new_effects}
    added = [{**e, "path": q, "link_of": e["path"]} for e in tool_paths
             if isinstance(e, dict) and e.get("path") in same for q in same[e["path"]]]
    policy_input["tool_paths"] = tool_paths + added
