"""Observability of one evaluation: phase timings (`--trace`, on stderr), a readable
debug file per evaluation (`--debug-files`) and rulebook telemetry (JSON lines)."""

from __future__ import annotations

import os
import sys
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson


@dataclass
class Trace:
    started: float = field(default_factory=time.perf_counter)
    timings: list[tuple[str, float]] = field(default_factory=list)
    notes: dict[str, Any] = field(default_factory=dict)
    phases: list[dict[str, Any]] = field(default_factory=list)  # per config dir (global, project)
    error: str | None = None
    response: dict[str, Any] | None = None

    @contextmanager
    def phase(self, name: str) -> Any:
        t0 = time.perf_counter()
        try:
            yield
        finally:
            self.timings.append((name, time.perf_counter() - t0))

    def total(self) -> float:
        return time.perf_counter() - self.started

    def timing_dict(self) -> dict[str, float]:
        out: dict[str, float] = {}
        for name, s in self.timings:
            out[name] = out.get(name, 0.0) + s
        out["total"] = self.total()
        return out


def print_trace(trace: Trace, wanted: set[str]) -> None:
    parts = [f"{name}={ms * 1000:.2f}ms" for name, ms in trace.timing_dict().items() if name in wanted]
    sys.stderr.write("cupcake trace: " + " ".join(parts) + "\n")


def _stamp() -> str:
    return datetime.now(UTC).strftime("%Y%m%dT%H%M%S.%fZ")


def _dump(v: Any) -> str:
    return orjson.dumps(v, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS, default=str).decode()


def write_debug_file(directory: Path, trace: Trace) -> Path:
    """One human-readable file per evaluation: timings, input after preprocessing, routed
    policies, signals with timings, raw decision set and the final answer."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{_stamp()}_{os.getpid()}.txt"
    lines = [f"cupcake-py evaluation  {datetime.now(UTC).isoformat()}", ""]
    lines.append("== timings (ms)")
    lines += [f"  {k:<12} {v * 1000:9.2f}" for k, v in trace.timing_dict().items()]
    for key, value in trace.notes.items():
        lines += ["", f"== {key}", _dump(value)]
    for ph in trace.phases:
        lines += ["", f"== {ph.get('scope', '?')} phase ({ph.get('cupcake_dir', '')})"]
        for key in ("bundle_cache", "routed_policies", "signals", "decision_set", "phase_decision"):
            if key in ph:
                lines += [f"-- {key}", _dump(ph[key])]
    if trace.error:
        lines += ["", "== error", trace.error]
    lines += ["", "== response", _dump(trace.response)]
    path.write_text("\n".join(lines) + "\n", "utf-8")
    return path


def append_telemetry(destination: Path, trace: Trace) -> None:
    """One JSON line per evaluation appended to <destination>/events.jsonl."""
    destination.mkdir(parents=True, exist_ok=True)
    event = trace.notes.get("event") or {}
    record = {
        "time": datetime.now(UTC).isoformat(),
        "session_id": event.get("session_id"),
        "hook_event_name": event.get("hook_event_name"),
        "tool": event.get("tool"),
        "routed_policies": [p for ph in trace.phases for p in ph.get("routed_policies", [])],
        "signals": {s["name"]: {"ok": s["ok"], "ms": s["ms"]} for ph in trace.phases for s in ph.get("signals", [])},
        "response": trace.response,
        "error": trace.error,
        "timings_ms": {k: round(v * 1000, 3) for k, v in trace.timing_dict().items()},
    }
    with open(destination / "events.jsonl", "ab") as f:
        f.write(orjson.dumps(record, default=str) + b"\n")
