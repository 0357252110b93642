"""Lint findings and the table of every rule `cupcake validate` knows.

A rule id is kebab-case; its documentation ships inside the package as
`cupcake_py/authoring/lint_docs/<id>.md` (LINT_DOCS), printed by `cupcake validate --explain <id>`.
A finding carries the rule's default severity unless the check gives a more precise one.

Help URIs (SARIF `helpUri`, JSON `help_uri`): `urn:cupcake-py:lint:<id>` — stable, needs no
web site, resolved by `cupcake validate --explain <id>`. An organisation that hosts the pages
sets CUPCAKE_DOCS_URL (e.g. `https://example.com/cupcake/lint`) and gets `<CUPCAKE_DOCS_URL>/<id>.md`."""

from __future__ import annotations

import difflib
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

Severity = Literal["error", "warning", "info"]
SEVERITY_ORDER: dict[str, int] = {"error": 0, "warning": 1, "info": 2}
LINT_DOCS = Path(__file__).resolve().parent / "lint_docs"
DOCS_URL_ENV = "CUPCAKE_DOCS_URL"


@dataclass(frozen=True, slots=True)
class LintRule:
    id: str
    severity: Severity
    category: Literal["compile", "cupcake", "harness", "hygiene"]
    summary: str


_RULES: tuple[LintRule, ...] = (
    # compile: the front end and the compile checks
    LintRule("parse-error", "error", "compile", "The file is not valid Rego v1"),
    LintRule("compile-error", "error", "compile", "The compiler rejects the policy"),
    LintRule("unsafe-var", "error", "compile", "A variable is used without being bound"),
    LintRule("recursion", "error", "compile", "Rules or functions depend on themselves"),
    LintRule("type-error", "error", "compile", "A builtin or function gets arguments of the wrong type or count"),
    # Cupcake's own rules
    LintRule("metadata-placement", "error", "cupcake",
             "A METADATA block is misplaced (package scope after the package, routing on a rule)"),
    LintRule("package-naming", "error", "cupcake", "Policy packages live under cupcake.policies.*"),
    LintRule("routing-missing", "error", "cupcake", "A policy with decision rules has no custom.routing block"),
    LintRule("routing-malformed", "error", "cupcake", "custom.routing has the wrong shape"),
    LintRule("routing-unknown-key", "error", "cupcake", "custom.routing has a key the engine does not read"),
    LintRule("routing-on-system", "warning", "cupcake", "A cupcake.system package declares routing"),
    LintRule("decision-missing-field", "error", "cupcake",
             "A decision object lacks reason, severity or rule_id (modify: updated_input)"),
    LintRule("decision-severity", "error", "cupcake", "severity is not one of LOW, MEDIUM, HIGH, CRITICAL"),
    LintRule("decision-shape", "error", "cupcake",
             "A decision is not an object (add_context: not a string)"),
    LintRule("decision-unknown-field", "warning", "cupcake", "A decision object has a key the engine ignores"),
    LintRule("priority-range", "error", "cupcake", "A modify priority is not an integer from 0 to 255"),
    LintRule("verb-event-compat", "error", "cupcake", "The verb has no effect for a routed event"),
    LintRule("prefer-deny", "warning", "cupcake", "`block` on PreToolUse: use `deny` for a pre-execution refusal"),
    LintRule("verb-not-partial-set", "error", "cupcake", "A decision verb is not a `contains` (multi-value) rule"),
    LintRule("incremental-rules-grouped", "warning", "cupcake",
             "Definitions of one decision verb are split by another verb's definitions"),
    # ours: what the harness really sends
    LintRule("unknown-event", "error", "harness", "No harness knows this event name"),
    LintRule("event-not-in-harness", "warning", "harness", "The harness (OpenCode, or Claude Code under policies/claude/) never sends this event"),
    LintRule("unknown-tool", "error", "harness", "A tool name that the harness's events never carry"),
    LintRule("legacy-tool", "warning", "harness", "A tool the current agent (OpenCode 1.18, Claude Code 2.1.197) no longer has"),
    LintRule("guard-tool-not-routed", "error", "harness",
             "A rule tests input.tool_name for a tool the policy is not routed to"),
    LintRule("guard-event-not-routed", "error", "harness",
             "A rule tests input.hook_event_name for an event not in required_events"),
    LintRule("contradictory-guards", "error", "harness", "A rule's guards can never all hold"),
    LintRule("routing-unused", "warning", "harness", "The policy is routed to a tool or event no rule can answer"),
    LintRule("signal-undeclared", "error", "harness", "required_signals names a signal nothing provides"),
    LintRule("signal-not-required", "warning", "harness",
             "input.signals.X is read but X is not in required_signals, so it is never gathered"),
    LintRule("tool-input-field", "error", "harness", "tool_input field that the routed tools of the harness do not have"),
    LintRule("unknown-input-field", "warning", "harness", "input field that no event of the harness carries"),
    LintRule("raw-path-prefix", "warning", "harness",
             "A prefix test of a raw path argument, which absolute and `..` spellings get past"),
    LintRule("harness-folder-mismatch", "error", "cupcake",
             "The package names another harness than the policies/<harness>/ folder the file is in"),
    # hygiene
    LintRule("unused-import", "warning", "hygiene", "An import is never used"),
    LintRule("unused-variable", "warning", "hygiene", "A local variable is assigned but never used"),
    LintRule("unused-function", "warning", "hygiene", "A function of a policy package is never called"),
    LintRule("deprecated-builtin", "warning", "hygiene", "A builtin OPA deprecated"),
    LintRule("rule-id-duplicate", "warning", "hygiene", "One rule_id is used by several policies"),
    LintRule("print-call", "warning", "hygiene", "A print() call left in a policy"),
)

RULES: dict[str, LintRule] = {r.id: r for r in _RULES}


def explain_command(rule_id: str) -> str:
    return f"cupcake validate --explain {rule_id}"


def help_uri(rule_id: str) -> str:
    base = os.environ.get(DOCS_URL_ENV, "").rstrip("/")
    return f"{base}/{rule_id}.md" if base else f"urn:cupcake-py:lint:{rule_id}"


def rule_doc(rule_id: str) -> str:
    """The rule's markdown page (shipped in the package). KeyError for an unknown rule."""
    if rule_id not in RULES:
        raise KeyError(rule_id)
    return (LINT_DOCS / f"{rule_id}.md").read_text("utf-8")


@dataclass(frozen=True, slots=True)
class Finding:
    rule: str
    file: str
    row: int
    col: int
    message: str
    severity: Severity

    @property
    def doc(self) -> str:
        return explain_command(self.rule)

    def sort_key(self) -> tuple[str, int, int, str]:
        return (self.file, self.row, self.col, self.rule)

    def to_json(self) -> dict[str, object]:
        return {"rule": self.rule, "severity": self.severity, "file": self.file, "row": self.row, "col": self.col,
                "message": self.message, "doc": self.doc, "help_uri": help_uri(self.rule)}


def finding(rule: str, file: str, row: int, col: int, message: str, severity: Severity | None = None) -> Finding:
    if rule not in RULES:
        raise KeyError(f"unknown lint rule {rule}")
    return Finding(rule, file, max(row, 1), max(col, 1), message, severity or RULES[rule].severity)


def did_you_mean(word: str, candidates: Iterable[str]) -> str | None:
    """The closest candidate: same spelling ignoring case/`_`/`-`, else difflib's best match."""
    cands = sorted(set(candidates))

    def norm(s: str) -> str:
        return s.lower().replace("_", "").replace("-", "")

    for c in cands:
        if norm(c) == norm(word) and c != word:
            return c
    best = difflib.get_close_matches(word, cands, n=1, cutoff=0.75)
    return best[0] if best and best[0] != word else None


def hint(word: str, candidates: Iterable[str]) -> str:
    s = did_you_mean(word, candidates)
    return f" (did you mean `{s}`?)" if s else ""
