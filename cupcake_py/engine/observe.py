"""Observability of one evaluation: phase timings (`--trace`, on stderr), a readable
debug file per evaluation (`--debug-files`) and rulebook telemetry (JSON lines)."""

from __future__ import annotations

import os
import sys
import time

from cupcake_py.core import jsonio
from cupcake_py.core.record import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class Trace(Record):
    __slots__ = ("started", "timings", "notes", "phases", "error", "response")
    started: float
    timings: list[tuple[str, float]]
    notes: dict[str, Any]
    phases: list[dict[str, Any]]  # per config dir (global, project)
    error: str | None
    response: dict[str, Any] | None

    def __init__(self, started: float | None = None) -> None:
        self._fill(time.perf_counter() if started is None else started, [], {}, [], None, None)

    def phase(self, name: str) -> _Phase:
        """`with trace.phase(name):` adds the block's duration to the timings."""
        return _Phase(self.timings, name)

    def total(self) -> float:
        return time.perf_counter() - self.started

    def timing_dict(self) -> dict[str, float]:
        out: dict[str, float] = {}
        for name, s in self.timings:
            out[name] = out.get(name, 0.0) + s
        out["total"] = self.total()
        return out


class _Phase:
    __slots__ = ("timings", "name", "t0")

    def __init__(self, timings: list[tuple[str, float]], name: str) -> None:
        self.timings, self.name, self.t0 = timings, name, 0.0

    def __enter__(self) -> None:
        self.t0 = time.perf_counter()

    def __exit__(self, *exc: object) -> None:
        self.timings.append((self.name, time.perf_counter() - self.t0))


def print_trace(trace: Trace, wanted: set[str]) -> None:
    parts = [f"{name}={ms * 1000:.2f}ms" for name, ms in trace.timing_dict().items() if name in wanted]
    if "bundle" in wanted:  # cache state per config dir: `hit` means nothing was compiled
        parts += [f"{ph['scope']}:{c}={ph[c]}" for ph in trace.phases for c in ("bundle_cache", "module_cache")
                  if c in ph]
    sys.stderr.write("cupcake trace: " + " ".join(parts) + "\n")


def _now() -> Any:
    from datetime import UTC, datetime

    return datetime.now(UTC)


def write_debug_file(directory: str, trace: Trace) -> str:
    """One human-readable file per evaluation: timings, input after preprocessing, routed
    policies, signals with timings, raw decision set and the final answer. Returns its path."""
    os.makedirs(directory, exist_ok=True)
    now = _now()
    path = os.path.join(directory, f"{now.strftime('%Y%m%dT%H%M%S.%fZ')}_{os.getpid()}.txt")
    lines = [f"cupcake-py evaluation  {now.isoformat()}", ""]
    lines.append("== timings (ms)")
    lines += [f"  {k:<12} {v * 1000:9.2f}" for k, v in trace.timing_dict().items()]
    for key, value in trace.notes.items():
        lines += ["", f"== {key}", jsonio.dumps_pretty(value)]
    for ph in trace.phases:
        lines += ["", f"== {ph.get('scope', '?')} phase ({ph.get('cupcake_dir', '')})"]
        for key in ("bundle_cache", "routed_policies", "signals", "decision_set", "phase_decision"):
            if key in ph:
                lines += [f"-- {key}", jsonio.dumps_pretty(ph[key])]
    if trace.error:
        lines += ["", "== error", trace.error]
    lines += ["", "== response", jsonio.dumps_pretty(trace.response)]
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    return path


def append_telemetry(destination: str, trace: Trace) -> None:
    """One JSON line per evaluation appended to <destination>/events.jsonl."""
    os.makedirs(destination, exist_ok=True)
    event = trace.notes.get("event") or {}
    record = {
        "time": _now().isoformat(),
        "session_id": event.get("session_id"),
        "hook_event_name": event.get("hook_event_name"),
        "tool": event.get("tool"),
        "routed_policies": [p for ph in trace.phases for p in ph.get("routed_policies", [])],
        "signals": {s["name"]: {"ok": s["ok"], "ms": s["ms"]} for ph in trace.phases for s in ph.get("signals", [])},
        "response": trace.response,
        "error": trace.error,
        "timings_ms": {k: round(v * 1000, 3) for k, v in trace.timing_dict().items()},
    }
    with open(os.path.join(destination, "events.jsonl"), "ab") as f:
        f.write(jsonio.dumps(record, default=str) + b"\n")
