"""Halts that outlive one hook call (Claude Code sessions).

Claude Code 2.1.197 ignores `continue: false` when the same PreToolUse answer denies the tool (measured
in tests/e2e_claude: the session goes on), so a halt there would stop only the one call. cupcake
therefore remembers a halted session: a PreToolUse/PermissionRequest halt records the session id with its
reason (`$XDG_CACHE_HOME/cupcake-py/claude-halts/<sha256 of session_id>`), and every later event of that
session is answered as a halt with that reason (tool calls denied, prompts blocked, `continue: false` where
Claude Code honours it, e.g. Stop, which then ends the session). SessionEnd forgets the session.

In: the session id (any string; `""` or missing = no memory). Reading fails closed: a record that
exists but cannot be read raises HaltRecordError (the caller answers exit 2); a record that cannot
be written is logged and the current answer (already a deny) stands.
"""

from __future__ import annotations

import os

from cupcake_py.engine.bundle import sha256
from cupcake_py.errors import CupcakeError
from cupcake_py.lazylog import LazyLogger
from cupcake_py.userdirs import atomic_write, private_dir, user_cache_dir

log = LazyLogger(__name__)
MAX_REASON = 4000


class HaltRecordError(CupcakeError):
    pass


def _dir() -> str:
    return user_cache_dir("claude-halts")


def _name(session_id: str) -> str:
    return sha256(session_id.encode("utf-8", "surrogatepass")).hexdigest()


def halted(session_id: str) -> str | None:
    """The reason the session was halted, None when it was not."""
    if not session_id:
        return None
    try:
        with open(os.path.join(_dir(), _name(session_id)), "rb") as f:
            return f.read(MAX_REASON).decode("utf-8", "replace") or "halted by policy"
    except FileNotFoundError:
        return None
    except OSError as e:
        raise HaltRecordError(f"cannot read the halt record of this session: {e}") from None


def record(session_id: str, reason: str) -> None:
    if not session_id:
        return
    d = _dir()
    if not private_dir(d, "claude halt records"):
        log.warning("could not record the halt of session %s (no private cache dir)", session_id)
        return
    try:
        atomic_write(d, _name(session_id), (reason[:MAX_REASON].encode("utf-8", "replace"),), ".halt")
    except OSError as e:
        log.warning("could not record the halt of session %s: %s", session_id, e)


def forget(session_id: str) -> None:
    if not session_id:
        return
    try:
        os.unlink(os.path.join(_dir(), _name(session_id)))
    except FileNotFoundError:
        pass
    except OSError as e:
        log.warning("could not remove the halt record of session %s: %s", session_id, e)
