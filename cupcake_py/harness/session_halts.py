"""Halts that outlive one hook call, for agents whose pre-tool answer cannot end the session
(Claude Code 2.1.197 ignores `continue: false` next to a PreToolUse deny, measured in tests/e2e_claude;
Codex rejects `continue:false`/`stopReason` there, which would make the whole answer "Failed" and let the
tool run; Qwen Code only blocks the one tool).

A pre-tool halt records the session (`$XDG_CACHE_HOME/cupcake-py/<harness>-halts/<sha256 of
session_id>`, holding the reason); every later event of that session is answered as a halt with
that reason; the agent's session-end event forgets it. In: harness name, final decision, the
validated event. Out: the decision to answer. Reading fails closed: a record that exists but
cannot be read raises HaltRecordError (the evaluation answers the harness's fail-closed answer);
a record that cannot be written is logged and the current answer (already a deny) stands.
"""

from __future__ import annotations

import os

from cupcake_py.core.errors import CupcakeError
from cupcake_py.core.lazylog import LazyLogger
from cupcake_py.core.userdirs import atomic_write, private_dir, user_cache_dir

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from cupcake_py.engine.synthesis import FinalDecision

log = LazyLogger(__name__)
MAX_REASON = 4000


class HaltRecordError(CupcakeError):
    pass


def _name(session_id: str) -> str:
    from cupcake_py.engine.bundle import sha256

    return sha256(session_id.encode("utf-8", "surrogatepass")).hexdigest()


def halted(harness: str, session_id: str) -> str | None:
    if not session_id:
        return None
    try:
        with open(os.path.join(user_cache_dir(f"{harness}-halts"), _name(session_id)), "rb") as f:
            return f.read(MAX_REASON).decode("utf-8", "replace") or "halted by policy"
    except FileNotFoundError:
        return None
    except OSError as e:
        raise HaltRecordError(f"cannot read the halt record of this session: {e}") from None


def record(harness: str, session_id: str, reason: str) -> None:
    d = user_cache_dir(f"{harness}-halts")
    if not session_id or not private_dir(d, f"{harness} halt records"):
        log.warning("could not record the halt of session %s", session_id)
        return
    try:
        atomic_write(d, _name(session_id), (reason[:MAX_REASON].encode("utf-8", "replace"),), ".halt")
    except OSError as e:
        log.warning("could not record the halt of session %s: %s", session_id, e)


def forget(harness: str, session_id: str) -> None:
    try:
        os.unlink(os.path.join(user_cache_dir(f"{harness}-halts"), _name(session_id)))
    except FileNotFoundError:
        pass
    except OSError as e:
        log.warning("could not remove the halt record of session %s: %s", session_id, e)


def sticky(harness: str, final: FinalDecision, event: dict[str, Any], pre_tool: frozenset[str],
           session_end: str | None) -> FinalDecision:
    session = event.get("session_id")
    if not isinstance(session, str) or not session:
        return final
    name = event.get("hook_event_name")
    if session_end is not None and name == session_end:
        forget(harness, session)
        return final
    earlier = halted(harness, session)
    if earlier is not None:
        from cupcake_py.engine.synthesis import FinalDecision

        return FinalDecision("halt", f"this session was halted by policy: {earlier}")
    if final.kind == "halt" and name in pre_tool:
        record(harness, session, final.reason or "halted by policy")
    return final
