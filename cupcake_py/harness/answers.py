"""The answer forms of the hook-command agents as data: one `AnswerTable` per agent (its response.py, or
claude_format.py for the agents that copied Claude Code's format), read by the one function `answer`.

In: a final decision, the validated event split into a `Call` (hook_agent.py), the agent's ToolTable, the
`--strict` flag; or, for `failure`, a message and whatever event arrived (maybe malformed). Out: an Answer
(the JSON the agent reads, the exit status, stderr).

A table is rows (`EventAnswers`: the agent events a row answers, optionally only while an event field is
true) plus a row for every other event, and the agent's texts. A row holds one form per verb: `halt`, `deny`
(deny and block), `ask` (None: the agent cannot ask on this event: the ask fallback, `ask_fallback()`: `deny`
unless the hook's environment sets CUPCAKE_ASK_FALLBACK=allow, any other value fails closed, turns it into `allow` — the input the decision carries, if any, is applied with the `modify`
form — or into `deny` with the table's `ask_denied` text), `modify` (REFUSED: the agent cannot run a rewritten
input: the `deny` form with the table's `refused` text; an ask carrying an input is refused alike), `allow`,
and `failure` with its exit status. A form is a JSON template whose values may be Slots:
REASON (the reason, the table's `reason_default` when empty), FEEDBACK (`cupcake: <reason>`), CONTEXT (the
allow context joined by blank lines), INPUT (the WHOLE modified input in the agent's argument names:
ToolTable.agent_args), GIVEN_INPUT (the same, only when the decision carries an input), EVENT (the agent's
event name). A slot without a value leaves its key out; a nested object left with none of its slots but EVENT
filled is left out too (e.g. `{"hookSpecificOutput": {"hookEventName": EVENT, "additionalContext": CONTEXT}}` is
`{}` without context). Key order is the template's (the agent reads the JSON as written).
`--strict`: a stopping decision on the table's `strict_events` exits 2 with the reason on stderr.
The decisions are the engine's (engine/synthesis.py, engine/sandbox_floor.py): only allow and modify carry
context, only modify and ask (the sandboxed command) an input.
Nothing here raises for a validated event; `failure` answers any value.
"""

from __future__ import annotations

import os

from cupcake_py.core.record import FrozenRecord
from cupcake_py.engine.harness_api import Answer
from cupcake_py.engine.synthesis import STOPPING

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    from cupcake_py.engine.synthesis import FinalDecision
    from cupcake_py.harness.hook_agent import Call, ToolTable

    Form = Mapping[str, Any]


class Slot(FrozenRecord):
    """A value the answer fills in (see the module docstring)."""

    __slots__ = ("name",)
    name: str

    def __init__(self, name: str) -> None:
        self._fill(name)


REASON, FEEDBACK, CONTEXT = Slot("reason"), Slot("feedback"), Slot("context")
INPUT, GIVEN_INPUT, EVENT = Slot("input"), Slot("given_input"), Slot("event")
REFUSED: Form = {"refused": True}  # a `modify` form: the agent cannot run a rewritten input (see the docstring)
ASK_FALLBACK_ENV = "CUPCAKE_ASK_FALLBACK"
# the `ask_denied` of the agents without their own text
ASK_DENIED = f"{{reason}} (approval required; this agent cannot ask, so cupcake denies: set {ASK_FALLBACK_ENV}=allow " \
             "to let such calls run)"


def ask_fallback() -> str:
    """`allow` or `deny`: what an `ask` becomes where the agent cannot ask (CUPCAKE_ASK_FALLBACK=allow; any other
    value is `deny`: fail closed)."""
    return "allow" if os.environ.get(ASK_FALLBACK_ENV, "").strip().lower() == "allow" else "deny"


class EventAnswers(FrozenRecord):
    """One row: the forms of `events` (all events: the table's `other` row); `when`: only while the event's
    field of that name is `true`."""

    __slots__ = ("events", "halt", "deny", "ask", "modify", "allow", "failure", "failure_exit", "when")
    events: frozenset[str]
    halt: Form
    deny: Form
    ask: Form | None
    modify: Form
    allow: Form
    failure: Form
    failure_exit: int
    when: str | None

    def __init__(self, events: tuple[str, ...], *, deny: Form, allow: Form, failure: Form,
                 halt: Form | None = None, ask: Form | None = None, modify: Form | None = None,
                 failure_exit: int = 2, when: str | None = None) -> None:
        self._fill(frozenset(events), deny if halt is None else halt, deny, ask, allow if modify is None else modify,
                   allow, failure, failure_exit, when)


class AnswerTable(FrozenRecord):
    """An agent's answer forms: `rows` (first match wins), `other` (every other event), `reason_default` (a
    stopping reason never goes out empty where the agent would ignore it), `ask_denied` / `ask_default` (the
    reason of an ask the fallback denies: a format of {reason}, the reason or `ask_default`), `refused` (the
    reason of a refused rewrite: a format of {reason}, {input} (the rewritten input as JSON), {event}),
    `strict_events`, `unnamed` (the row event a failure without an event name is answered as)."""

    __slots__ = ("rows", "other", "reason_default", "ask_denied", "ask_default", "refused", "strict_events",
                 "unnamed")
    rows: tuple[EventAnswers, ...]
    other: EventAnswers
    reason_default: str
    ask_denied: str
    ask_default: str
    refused: str
    strict_events: frozenset[str]
    unnamed: str | None

    def __init__(self, rows: tuple[EventAnswers, ...], other: EventAnswers, *, ask_denied: str, reason_default: str = "",
                 ask_default: str = "", refused: str = "{reason}", strict_events: tuple[str, ...] = (),
                 unnamed: str | None = None) -> None:
        self._fill(rows, other, reason_default, ask_denied, ask_default, refused, frozenset(strict_events), unnamed)

    def row(self, name: str | None, event: Any = None) -> EventAnswers:
        for row in self.rows:
            if name in row.events and (row.when is None or (isinstance(event, dict) and event.get(row.when) is True)):
                return row
        return self.other


def render(form: Form, values: Mapping[str, Any]) -> dict[str, Any]:
    """`form` with its slots filled (see the module docstring)."""
    return _render(form, values)[0]


def _render(form: Form, values: Mapping[str, Any]) -> tuple[dict[str, Any], bool]:
    """(the object, whether it had slots and none was filled)."""
    out: dict[str, Any] = {}
    slots = filled = 0
    for key, value in form.items():
        if isinstance(value, Slot):
            slots += value is not EVENT  # the event name only labels an object: alone it is no content
            if values.get(value.name) is not None:
                filled += value is not EVENT
                out[key] = values[value.name]
        elif isinstance(value, dict):
            inner, empty = _render(value, values)
            if not empty:
                out[key] = inner
        else:
            out[key] = value
    return out, slots > 0 and filled == 0


def _verb(table: AnswerTable, row: EventAnswers, final: FinalDecision) -> tuple[str, str | None]:
    """(the verb whose form answers, the reason text replacing the decision's, if any)."""
    kind, reason = final.kind, final.reason or ""
    if kind == "halt":
        return "halt", None
    if kind in STOPPING:
        return "deny", None
    if kind == "ask":
        if row.ask is not None:
            return ("modify", None) if final.updated_input and row.modify is REFUSED else ("ask", None)
        if ask_fallback() == "allow":  # runs: with the input the decision carries (the sandboxed command)
            return ("modify" if final.updated_input else "allow"), None
        return "deny", table.ask_denied.format(reason=reason or table.ask_default)
    return ("modify" if kind == "modify" else "allow"), None


def answer(table: AnswerTable, final: FinalDecision, event: dict[str, Any], call: Call, tools: ToolTable,
           strict: bool) -> Answer:
    """The agent's answer to `final` on `event` (split: `call`; see the module docstring)."""
    row = table.row(call.agent_event, event)
    verb, reason = _verb(table, row, final)
    form: Form = getattr(row, verb)
    if form is REFUSED:
        from cupcake_py.core import jsonio

        rewritten = jsonio.dumps(final.updated_input or {}).decode("utf-8", "replace")
        form, reason = row.deny, table.refused.format(reason=final.reason or "", input=rewritten,
                                                      event=call.agent_event)
    text = (final.reason if reason is None else reason) or table.reason_default
    values: dict[str, Any] = {"reason": text, "feedback": f"cupcake: {text}", "event": call.agent_event}
    if final.context:
        values["context"] = "\n\n".join(final.context)
    if call.tool is not None and verb in ("ask", "modify"):
        values["input"] = tools.agent_args(call.tool, call.args, final.updated_input)
        if final.updated_input:
            values["given_input"] = values["input"]
    out = render(form, values)
    if strict and final.kind in STOPPING and call.agent_event in table.strict_events:
        return Answer(out, 2, text)
    return Answer(out, 0)


def failure_form(table: AnswerTable, name: str | None, reason: str) -> tuple[dict[str, Any], int]:
    """The blocking (JSON, exit) for a failure on the agent event `name` (also what install.py's guard prints)."""
    row = table.row(name if name is not None else table.unnamed)
    return render(row.failure, {"reason": reason, "event": name or table.unnamed}), row.failure_exit


def failure(table: AnswerTable, text: str, event: Any) -> Answer:
    """Fail closed: the failure form of the event's row (the event may be anything that arrived)."""
    name = event.get("hook_event_name") if isinstance(event, dict) else None
    out, code = failure_form(table, name if isinstance(name, str) else None, text)
    return Answer(out, code, text)
