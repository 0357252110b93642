"""What the engine needs from a harness (Cupcake style: the harness is a value handed to the
engine, the engine imports no harness module; tests/engine/test_engine_imports.py checks).

A harness turns its agent's raw hook event into the normalised policy input and the engine's
final decision back into the agent's wire format:
- `validate(value)`: the decoded JSON event when it is one of the harness's events, else
  `cupcake_py.core.errors.EventError` naming every problem.
- `event_name(event)`, `tool_name(event)` (normalised: Bash, Edit, Write, Read, …; None for
  events without a tool) and `cwd(event)`: what routing and signals need before enrichment.
- `preprocess(event, script_inspection=...)`: the policy input (harness-neutral fields
  included, see cupcake_py/enrich/tool_call.py). Never raises for a validated event.
- `respond(final, event, strict)`: the `Answer` for a final decision.
- `fail(message, event)`: the fail-closed `Answer` for any failure (event: the validated event,
  else the decoded JSON value of any type, else None). Must block whatever the agent does with it.
`name` is the `--harness` value and the policy subdirectory (`.cupcake/policies/<name>/`).
Optional: `shell_command(event)`: the shell command of a pre-execution shell call exactly as the
agent will run it (else None). A harness that has it gets the kernel floor (docs/sandbox.md): the
engine answers its allowed shell calls with a `modify` whose `updated_input.command` is the
sandboxed command, so `respond` must emit a modified tool input (and for an `ask` carrying
`updated_input`, the input that runs when the user approves).

This module is imported at run time only by the harnesses (for `Answer`); the engine uses
the protocol in TYPE_CHECKING blocks.
"""

from __future__ import annotations

from cupcake_py.core.record import FrozenRecord

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Protocol

    from cupcake_py.engine.synthesis import FinalDecision

    class Harness(Protocol):
        name: str
        events: frozenset[str]

        def validate(self, value: Any) -> dict[str, Any]: ...

        def event_name(self, event: dict[str, Any]) -> str: ...

        def tool_name(self, event: dict[str, Any]) -> str | None: ...

        def cwd(self, event: dict[str, Any]) -> str: ...

        def preprocess(self, event: dict[str, Any], *, script_inspection: bool) -> dict[str, Any]: ...

        def respond(self, final: FinalDecision, event: dict[str, Any], strict: bool) -> Answer: ...

        def fail(self, message: str, event: Any) -> Answer: ...


class Answer(FrozenRecord):
    """What `cupcake eval` writes: `stdout` (one JSON line, None = nothing), `exit` status and
    `stderr` text (None = nothing)."""

    __slots__ = ("stdout", "exit", "stderr")
    stdout: dict[str, Any] | None
    exit: int
    stderr: str | None

    def __init__(self, stdout: dict[str, Any] | None, exit: int = 0, stderr: str | None = None) -> None:
        self._fill(stdout, exit, stderr)
