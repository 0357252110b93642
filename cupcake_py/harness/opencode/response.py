"""The one-line answer to OpenCode (schemas/response.schema.json).

| final decision | stdout |
| halt, block    | {"decision": "block", "reason", "rule_ids"} |
| deny           | {"decision": "deny", "reason", "rule_ids"} |
| ask            | {"decision": "ask", "reason", "rule_ids"} (+ "updated_args": the sandboxed command, applied when approved) |
| modify         | {"decision": "allow", "reason", "updated_args", "rule_ids"} (the plugin rewrites the args in place; "context" when an allow the sandbox rewrote had some) |
| allow          | {"decision": "allow"} plus "context" when policies added some |
| engine failure | {"decision": "deny", "reason": "cupcake: <what failed>"} (exit status 2) |
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from cupcake_py.engine.synthesis import FinalDecision

_WIRE = {"halt": "block", "deny": "deny", "block": "block", "ask": "ask", "modify": "allow", "allow": "allow"}


def response(final: FinalDecision) -> dict[str, Any]:
    out: dict[str, Any] = {"decision": _WIRE[final.kind]}
    if final.reason is not None:
        out["reason"] = final.reason
    if final.kind in ("allow", "modify") and final.context:
        out["context"] = list(final.context)
    if final.kind in ("modify", "ask") and final.updated_input is not None:
        out["updated_args"] = final.updated_input
    if final.rule_ids:
        out["rule_ids"] = list(final.rule_ids)
    return out


def failure_response(message: str) -> dict[str, Any]:
    text = message if message.startswith("cupcake:") else f"cupcake: {message}"
    return {"decision": "deny", "reason": text}
