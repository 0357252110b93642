"""`make demo`: run the example events (harness/opencode/examples/cases/) through the real
`cupcake eval --harness opencode` and print event → decision → reason.

    python -m cupcake_py.harness.opencode.demo [--cases DIR] [NAME-SUBSTRING ...]
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from cupcake_py.harness.opencode.examples import Case, isolated_env, load_cases, run_case


def _event_text(case: Case) -> str:
    ev = case.event
    if not isinstance(ev, dict):
        return "(raw input)"
    args = ev.get("args")
    detail = ""
    if isinstance(args, dict):
        for key in ("command", "filePath", "url", "pattern", "name", "prompt", "patchText"):
            if isinstance(args.get(key), str):
                detail = args[key].replace("\n", "⏎")
                break
    return f"{ev.get('hook_event_name', '?')} {ev.get('tool', '?')} {detail}".strip()


def _clip(text: str, n: int) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


def _answer(resp: Any) -> tuple[str, str]:
    if not isinstance(resp, dict):
        return "?", str(resp)
    extra = resp.get("reason") or ""
    if "updated_args" in resp:
        extra += f" → args {resp['updated_args']}"
    if "context" in resp:
        extra += " context: " + " | ".join(resp["context"])
    return str(resp.get("decision")), extra.strip()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", type=Path, default=None, help="directory of case files")
    ap.add_argument("names", nargs="*", help="only cases whose name contains one of these")
    args = ap.parse_args(argv)
    cases = [c for c in load_cases(args.cases) if not args.names or any(n in c.name for n in args.names)]
    width = shutil.get_terminal_size((160, 20)).columns
    ev_w = 44
    reason_w = max(30, width - ev_w - 16)
    failures = 0
    with tempfile.TemporaryDirectory(prefix="cupcake-demo-") as tmp:
        root = Path(tmp)
        (root / "config").mkdir()
        env = isolated_env(root / "cache", root / "config")
        print(f"{'':2}{'event':<{ev_w}} {'decision':<9} {'exit':<4} reason")
        print("-" * min(width, ev_w + reason_w + 18))
        for case in cases:
            out = run_case(case, root / "work", env)
            decision, reason = _answer(out.response)
            mark = "✓" if out.ok else "✗"
            failures += not out.ok
            reason = reason.replace(str(root / "work" / case.name), "$PROJECT").replace("\n", " ")
            print(f"{mark} {_clip(_event_text(case), ev_w):<{ev_w}} {decision:<9} {out.exit:<4} "
                  f"{_clip(reason, reason_w)}")
            sys.stdout.flush()
    print(f"\n{len(cases) - failures}/{len(cases)} events answered as expected "
          f"(✓ = matches harness/opencode/examples/cases/<name>.json)")
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
