"""`make demo` for the hook-command harnesses: ONE line per agent (GitHub Copilot CLI, Factory Droid, Cline,
Cursor). Each line runs the agent's `"demo": true` example events (harness/<name>/examples/cases) through the
real `cupcake eval --harness <name>` and shows how many were answered as expected, the answer forms seen
(in the agent's own words) and the answer to the protected `rm -rf` as the agent receives it.

    python -m cupcake_py.harness.hook_demo [AGENT ...]
"""

from __future__ import annotations

import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cupcake_py.harness.demo import demo_config_root, user_cache_dir
from cupcake_py.harness.examples import load_cases, run_cases


def _copilot(resp: dict[str, Any]) -> tuple[str, str]:
    if "modifiedArgs" in resp:
        return "modify", f"modifiedArgs {resp['modifiedArgs']}"
    if "permissionDecision" in resp:
        return str(resp["permissionDecision"]), str(resp.get("permissionDecisionReason", ""))
    if resp.get("decision") == "block":
        return "block", str(resp.get("reason", ""))
    return ("context", str(resp["additionalContext"])) if "additionalContext" in resp else ("allow", "")


def _factory(resp: dict[str, Any]) -> tuple[str, str]:
    specific = resp.get("hookSpecificOutput") or {}
    if specific.get("permissionDecision") == "deny":
        kind = "halt" if resp.get("continue") is False else "deny"
        return kind, str(specific.get("permissionDecisionReason", ""))
    if "updatedInput" in specific:
        return "modify", f"updatedInput {specific['updatedInput']}"
    if resp.get("continue") is False:
        return "stop", str(resp.get("stopReason", ""))
    if resp.get("decision") == "block":
        return "block", str(resp.get("reason", ""))
    return ("context", str(specific["additionalContext"])) if "additionalContext" in specific else ("allow", "")


def _cline(resp: dict[str, Any]) -> tuple[str, str]:
    if resp.get("cancel") is True:
        return "cancel", str(resp.get("errorMessage", ""))
    if "overrideInput" in resp:
        return "modify", f"overrideInput {resp['overrideInput']}"
    return ("context", str(resp["contextModification"])) if "contextModification" in resp else ("allow", "")


def _cursor(resp: dict[str, Any]) -> tuple[str, str]:
    if "updated_input" in resp:
        return "modify", f"updated_input {resp['updated_input']}"
    if "permission" in resp:
        return str(resp["permission"]), str(resp.get("agent_message", ""))
    if resp.get("continue") is False:
        return "block", str(resp.get("user_message", ""))
    return ("context", str(resp["additional_context"])) if "additional_context" in resp else ("allow", "")


AGENTS: dict[str, tuple[str, Callable[[dict[str, Any]], tuple[str, str]]]] = {
    "copilot": ("GitHub Copilot CLI", _copilot),
    "factory": ("Factory Droid", _factory),
    "cline": ("Cline", _cline),
    "cursor": ("Cursor (documented contract)", _cursor),
}
HEADLINE = "bash-rm-rf-protected-halt"


def line(agent: str, root: Path) -> tuple[str, bool]:
    title, summarise = AGENTS[agent]
    cases = [c for c in load_cases(harness=agent) if c.demo]
    seen: Counter[str] = Counter()
    ok = 0
    headline = ""
    for out in run_cases(cases, root / agent, config_root=demo_config_root(), cache=user_cache_dir()):
        ok += out.ok
        kind, detail = summarise(out.response) if isinstance(out.response, dict) else ("?", str(out.response))
        seen[kind] += 1
        if out.case.name == HEADLINE:
            headline = f"rm -rf secrets/ → {kind}: {detail}".replace(str(root / agent / "work" / HEADLINE), "$PROJECT")
    forms = " · ".join(f"{k} {n}" for k, n in sorted(seen.items()))
    mark = "✓" if ok == len(cases) else "✗"
    text = f"{mark} {agent:<8} {title:<28} {ok}/{len(cases)} as expected  [{forms}]  {headline}"
    return text[:220], ok == len(cases)


def main(argv: list[str]) -> int:
    agents = argv or list(AGENTS)
    t0 = time.monotonic()
    print("cupcake eval --harness copilot|factory|cline|cursor: the demo events of harness/<agent>/examples "
          "(shipped builtins + example policies), one line per agent\n")
    good = True
    with tempfile.TemporaryDirectory(prefix="cupcake-hook-demo-") as tmp:
        for agent in agents:
            text, ok = line(agent, Path(tmp))
            good &= ok
            print(text, flush=True)
    print(f"\n{time.monotonic() - t0:.1f}s (✓ = every answer matches harness/<agent>/examples/cases/<name>.json)")
    return 0 if good else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
