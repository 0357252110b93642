"""Pydantic models of what `cupcake audit` prints (JSON lines of list/export, stats,
verify); `cupcake audit schema` prints their JSON Schema. Not on the `cupcake eval` path.

`AuditRecord.from_row(row)` reads a row of `SELECT id, <store.AUDIT_COLUMNS>, prev_hash, hash`.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from cupcake_py.core import jsonio
from cupcake_py.governance.store import AUDIT_COLUMNS


class AuditRecord(BaseModel):
    """One evaluation (or session lifecycle event), as stored in the hash-chained audit log."""

    model_config = ConfigDict(extra="forbid")

    id: int = Field(description="Position in the chain (1, 2, …; pruning removes the oldest)")
    time: str = Field(description="UTC time of the evaluation, ISO 8601")
    ts: float = Field(description="Seconds since the epoch (what history windows compare)")
    harness: str
    session_id: str
    project: str = Field(description="Project root (or the event's cwd when there is no project)")
    event: str = Field(description="PreToolUse, PostToolUse, SessionStart, SessionCompact")
    tool: str = Field(description="Tool name as policies see it (Bash, Edit, …)")
    call_key: str = Field(description="Key of the normalised, redacted call (equal calls, equal keys)")
    summary: str = Field(description="One-line redacted summary of the call")
    input: Any = Field(description="The redacted input (tool, args, result), clipped")
    input_sha256: str = Field(description="sha256 of the whole redacted input")
    decision: str = Field(description="halt, deny, block, ask, modify or allow; none for session events")
    rule_ids: list[str]
    reasons: list[str]
    error: str = Field(description="Why the evaluation failed closed (empty when it did not)")
    timings_ms: dict[str, float]
    version: str = Field(description="cupcake-py version")
    bundle_key: str = Field(description="Cache keys of the policy bundles used (global, project)")
    prev_hash: str
    hash: str

    def json_line(self) -> str:
        """The record as one JSON line; the input's numbers keep their exact text (pydantic's own
        JSON would write a number read with a fraction, a Decimal, as a string)."""
        return jsonio.dumps(self.model_dump()).decode("utf-8")

    @classmethod
    def from_row(cls, row: tuple[Any, ...]) -> AuditRecord:
        import time

        v = dict(zip(("id", *AUDIT_COLUMNS, "prev_hash", "hash"), row, strict=True))
        try:
            v["input"] = jsonio.loads(v["input"])
        except jsonio.JSONError:
            pass  # a clipped input stays text
        v["time"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(v["ts"]))
        v["rule_ids"] = v["rule_ids"].split(",") if v["rule_ids"] else []
        v["reasons"] = jsonio.loads(v["reasons"])
        v["timings_ms"] = jsonio.loads(v.pop("timings"))
        return cls(**v)


class Stats(BaseModel):
    """`cupcake audit stats`: counts per decision and per rule over a session or a day."""

    scope: str = Field(description="session:<id> or day:<YYYY-MM-DD> (UTC) or all")
    records: int
    by_decision: dict[str, int]
    by_rule: dict[str, dict[str, int]] = Field(description="rule id -> decision -> count")
    by_tool: dict[str, int]
    sessions: int


class VerifyReport(BaseModel):
    """`cupcake audit verify`: the hash chain check."""

    ok: bool
    records: int
    head_id: int
    head_hash: str = Field(description="Keep it somewhere the agent cannot write, to anchor the chain")
    problems: list[str]


SCHEMAS: dict[str, type[BaseModel]] = {"record": AuditRecord, "stats": Stats, "verify": VerifyReport}
