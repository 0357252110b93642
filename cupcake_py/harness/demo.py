"""`make demo`: scripted agent events through the real `cupcake eval --harness <name>`, printed as a
table of event → decision → reason (opencode: cupcake_py/harness/opencode/demo.py, claude:
cupcake_py/harness/claude/demo.py).

By default the events are the short list (`"demo": true`) of the example project's cases
(harness/examples/project, shared by every harness, every shipped builtin enabled, with the example global config
dir holding the global builtins), so the table shows what the SHIPPED policies answer.
`--project` runs every example-project case, `--all` also the other example projects.

    python -m cupcake_py.harness.opencode.demo [--project | --all] [--cases DIR] [--workers N] [--busy N]
                                              [NAME-SUBSTRING ...]
    python -m cupcake_py.harness.claude.demo   (same options)

`--busy N` runs N CPU-bound busy loops beside the evaluations (`make demo-under-load`: one per CPU
plus two): the answers must be the same as on an idle machine. A row that differs from its case
file is followed by the expected answer and both reasons in full.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cupcake_py.harness.examples import Case, Outcome, cpu_load, load_cases, run_cases

EXAMPLE_PROJECT = "project"
DETAIL_KEYS = ("command", "filePath", "file_path", "notebook_path", "path", "url", "pattern", "name", "prompt",
               "patchText", "todos")
SHORT_EVENTS = {"PreToolUse": "pre", "PostToolUse": "post", "PermissionRequest": "perm"}


def event_text(case: Case) -> str:
    """`<event> <tool> <main argument>` (OpenCode's tool/args or Claude Code's tool_name/tool_input)."""
    ev = case.event
    if not isinstance(ev, dict):
        return "(raw input)"
    args = ev.get("args", ev.get("tool_input"))
    detail = ""
    if isinstance(args, dict):
        for key in DETAIL_KEYS:
            if key in args:
                detail = str(args[key]).replace("\n", "⏎").replace("\t", "⇥")
                break
    elif isinstance(ev.get("prompt"), str):
        detail = ev["prompt"]
    name = str(ev.get("hook_event_name", "?"))
    tool = ev.get("tool", ev.get("tool_name", ""))
    return " ".join(part for part in (SHORT_EVENTS.get(name, name), str(tool or ""), detail) if part).strip()


def _clip(text: str, n: int) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


def opencode_answer(resp: Any) -> tuple[str, str]:
    if not isinstance(resp, dict):
        return "?", str(resp)
    extra = resp.get("reason") or ""
    if "updated_args" in resp:
        extra += f" → args {resp['updated_args']}"
    if "context" in resp:
        extra += " context: " + " | ".join(resp["context"])
    return str(resp.get("decision")), extra.strip()


def difference(out: Outcome, answer: Callable[[Any], tuple[str, str]], names: dict[str, str]) -> str:
    """The lines under a row that differs from its case file: the case, the expected and the
    actual answer with their reasons in full (never clipped), the exit statuses and stderr."""
    def shown(text: str) -> str:
        for path, name in names.items():
            text = text.replace(path, name)
        return text

    want, want_reason = answer(out.expected)
    got, got_reason = answer(out.response)
    lines = [f"    case:     harness/{out.case.harness}/examples/cases/{out.case.name}.json",
             f"    expected: {want} (exit {out.case.exit}): {shown(want_reason)}",
             f"    got:      {got} (exit {out.exit}): {shown(got_reason)}"]
    if out.stderr.strip():
        lines.append("    stderr:   " + shown(out.stderr.strip()).replace("\n", "\n              "))
    return "\n".join(lines)


def user_cache_dir() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")


def demo_config_root() -> Path:
    """A stable private directory for the demo's XDG_CONFIG_HOME copies. Not below $HOME: the
    global system_protection builtin protects all of /root when the demo runs as root."""
    d = Path(tempfile.gettempdir()) / f"cupcake-py-demo-{os.getuid()}"
    d.mkdir(mode=0o700, exist_ok=True)
    st = d.lstat()
    if not d.is_dir() or d.is_symlink() or st.st_uid != os.getuid() or st.st_mode & 0o077:
        return Path(tempfile.mkdtemp(prefix="cupcake-py-demo-"))
    return d


def main(argv: list[str] | None = None, harness: str = "opencode",
         answer: Callable[[Any], tuple[str, str]] = opencode_answer, title: str = "") -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--project", action="store_true", help="every case of the example project")
    ap.add_argument("--all", action="store_true", help="every case, the engine test project's too")
    ap.add_argument("--cases", type=Path, default=None, help="directory of case files")
    ap.add_argument("--workers", type=int, default=None, help="concurrent evaluations (default: CPUs + 1)")
    ap.add_argument("--busy", type=int, default=0, metavar="N",
                    help="run N CPU-bound busy loops beside the evaluations (answers must not change)")
    ap.add_argument("names", nargs="*", help="only cases whose name contains one of these")
    args = ap.parse_args(argv)
    def wanted(c: Case) -> bool:
        if args.names:
            return any(n in c.name for n in args.names)
        if args.all or args.cases:
            return True
        return c.project == EXAMPLE_PROJECT and (args.project or c.demo)

    cases = [c for c in load_cases(args.cases, harness) if wanted(c)]
    if not cases:
        print("no cases selected", file=sys.stderr)
        return 2
    width = shutil.get_terminal_size((160, 20)).columns
    ev_w = 48
    reason_w = max(30, width - ev_w - 16)
    failures = 0
    t0 = time.monotonic()
    load = f"; {args.busy} CPU-bound busy loops running beside it" if args.busy else ""
    print(f"cupcake eval --harness {harness}{title}: {len(cases)} events; project policies: the shipped "
          f"builtins of harness/examples/project; global: harness/examples/global-config{load}\n")
    with tempfile.TemporaryDirectory(prefix="cupcake-demo-") as tmp, cpu_load(args.busy):
        root = Path(tmp)
        print(f"{'':2}{'event':<{ev_w}} {'decision':<9} {'exit':<4} reason")
        print("-" * min(width, ev_w + reason_w + 18))
        # The user's cache (bundles are content-addressed) and a stable config home keep repeated
        # demos from recompiling the policies.
        stable = demo_config_root()
        print(f"{'':2}(the first event compiles the policies unless they are cached: a few seconds)", flush=True)

        def shown(text: str, out_case: Case) -> str:
            return text.replace(str(root / "work" / out_case.name), "$PROJECT").replace(str(stable), "$DEMO") \
                .replace("\n", " ")

        for out in run_cases(cases, root, args.workers, config_root=stable, cache=user_cache_dir()):
            decision, reason = answer(out.response)
            mark = "✓" if out.ok else "✗"
            failures += not out.ok
            print(f"{mark} {_clip(event_text(out.case), ev_w):<{ev_w}} {decision:<9} {out.exit:<4} "
                  f"{_clip(shown(reason, out.case), reason_w)}")
            if not out.ok:  # what the case file expected, in full, so a failing row says what went wrong
                print(difference(out, answer, {str(root / "work" / out.case.name): "$PROJECT", str(stable): "$DEMO"}))
            sys.stdout.flush()
    print(f"\n{len(cases) - failures}/{len(cases)} events answered as expected in {time.monotonic() - t0:.1f}s "
          f"(✓ = matches harness/{harness}/examples/cases/<name>.json)")
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())  # the OpenCode demo; see also cupcake_py.harness.claude.demo
