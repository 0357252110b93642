"""Fuzz targets: plain functions of one input (bytes), shared by the atheris runner (fuzz/run.py)
and the regression test that replays every finding (tests/fuzz/test_fuzz_findings.py).

Each target feeds its input to one entry point and raises `Finding` (or lets an unexpected
exception escape) when the entry point breaks its contract:

| target | entry point | contract |
| --- | --- | --- |
| `rego_parser` | `cupcake_py.rego.parse_module` | a Module, or RegoErrors |
| `json_reader` | `cupcake_py.core.jsonio.loads` / `dumps` | a value that round-trips exactly, or JSONError |
| `shell_analysis` | `cupcake_py.shell.analyze` | never raises; the result is JSON |
| `opencode_event`, `claude_event` | the harness's `validate`, then `preprocess` | EventError, or an input preprocessed without an exception |
| `eval_opencode`, `eval_claude` | `engine.evaluator.Evaluation.run` on a warm project | a final decision, or a CupcakeError (the fail-closed answer) |

Every input is timed here (`SLOW_SECONDS`): cupcake's own SIGALRM use (the hard deadline)
disables libFuzzer's per-input timeout, so an input slower than that is a finding too.
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Callable
from typing import Any

SLOW_SECONDS = float(os.environ.get("FUZZ_SLOW_SECONDS", "10"))


class Finding(Exception):
    """The entry point broke its contract on this input."""


def _timed(fn: Callable[[bytes], None]) -> Callable[[bytes], None]:
    def run(data: bytes) -> None:
        t0 = time.monotonic()
        fn(data)
        took = time.monotonic() - t0
        if took > SLOW_SECONDS:
            raise Finding(f"slow input: {took:.1f} s > {SLOW_SECONDS} s")
    run.__name__ = fn.__name__
    return run


def _text(data: bytes) -> str:
    return data.decode("utf-8", "replace")


@_timed
def rego_parser(data: bytes) -> None:
    from cupcake_py.rego import RegoErrors, parse_module

    try:
        parse_module(_text(data), "fuzz.rego")
    except RegoErrors:
        pass


def _same(a: Any, b: Any) -> bool:
    return a == b and repr(a) == repr(b)


@_timed
def json_reader(data: bytes) -> None:
    from cupcake_py.core import jsonio

    try:
        value = jsonio.loads(data)
    except jsonio.JSONError:
        return
    text = jsonio.dumps(value)
    if jsonio.dumps(value) != text:  # the eval path encodes one value more than once (issue 29's shared encoder)
        raise Finding("a second encoding differs")
    again = jsonio.loads(text)
    if not _same(again, value):
        raise Finding(f"does not round-trip: {value!r} -> {again!r}")


@_timed
def shell_analysis(data: bytes) -> None:
    from cupcake_py.core import jsonio
    from cupcake_py.shell import analyze

    result = analyze(_text(data).replace("\0", ""), tempfile.gettempdir())
    jsonio.dumps(result)  # plain JSON values, or TypeError (a finding)


def _event_target(harness: str) -> Callable[[bytes], None]:
    @_timed
    def target(data: bytes) -> None:
        from cupcake_py.core import jsonio
        from cupcake_py.core.errors import EventError
        from cupcake_py.harness import get

        try:
            value = jsonio.loads(data)
        except jsonio.JSONError:
            return
        h = get(harness)
        try:
            event = h.validate(value)
        except EventError:
            return
        h.event_name(event)
        h.tool_name(event)
        h.preprocess(event, script_inspection=True)

    target.__name__ = f"{harness}_event"
    return target


opencode_event = _event_target("opencode")
claude_event = _event_target("claude")

_PROJECT: list[str] = []


def project() -> str:
    """A project (made once per process) whose policies read the tool input, with a warm cache."""
    if not _PROJECT:
        root = tempfile.mkdtemp(prefix="cupcake-fuzz-")
        os.environ.setdefault("XDG_CACHE_HOME", os.path.join(root, "cache"))
        os.environ.setdefault("XDG_CONFIG_HOME", os.path.join(root, "config"))
        for h in ("opencode", "claude"):
            d = os.path.join(root, "p", ".cupcake", "policies", h)
            os.makedirs(d)
            with open(os.path.join(d, "fuzz.rego"), "w") as f:
                f.write(POLICY.format(h=h))
        _PROJECT.append(os.path.join(root, "p"))
    return _PROJECT[0]


POLICY = """# METADATA
# custom:
#   routing:
#     required_events: ["PreToolUse", "PostToolUse", "PermissionRequest", "UserPromptSubmit"]
package cupcake.policies.{h}.fuzz

import rego.v1

deny contains {{"rule_id": "F1", "reason": sprintf("no %v", [input.tool_input.command])}} if {{
	contains(input.tool_input.command, "rm")
}}

ask contains {{"rule_id": "F2", "reason": json.marshal(input.tool_input)}} if input.tool_input.x > 0.5
"""


def _eval_target(harness: str) -> Callable[[bytes], None]:
    @_timed
    def target(data: bytes) -> None:
        from cupcake_py.core import jsonio
        from cupcake_py.core.errors import CupcakeError
        from cupcake_py.engine.evaluator import Evaluation
        from cupcake_py.engine.observe import Trace
        from cupcake_py.engine.options import EvalOptions
        from cupcake_py.harness import get

        root = project()
        try:  # events name the project, so most inputs reach the policies
            value = jsonio.loads(data)
            if isinstance(value, dict):
                value["cwd"] = root
                data = jsonio.dumps(value)
        except (jsonio.JSONError, TypeError):
            pass
        opts = EvalOptions(harness=harness, policy_dir=os.path.join(root, ".cupcake"), no_global=True, timeout=60.0)
        evaluation = Evaluation(opts, Trace(), get(harness), start=root)
        try:
            final = evaluation.run(data)
        except CupcakeError:
            return  # the fail-closed answer
        get(harness).respond(final, evaluation.event or {}, False)

    target.__name__ = f"eval_{harness}"
    return target


eval_opencode = _eval_target("opencode")
eval_claude = _eval_target("claude")

TARGETS: dict[str, Callable[[bytes], None]] = {
    "rego_parser": rego_parser, "json_reader": json_reader, "shell_analysis": shell_analysis,
    "opencode_event": opencode_event, "claude_event": claude_event,
    "eval_opencode": eval_opencode, "eval_claude": eval_claude,
}
