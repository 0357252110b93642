"""`cupcake serve --stdio`: a warm evaluator answering JSON lines (docs/serve.md).

In (one JSON object per line on stdin):
    {"id": <string|integer>, "harness": "opencode", "event": {<the event `cupcake eval` reads>},
     "policy_dir"?: "<dir>"}
Out (one line per request, in request order):
    {"id": <the request's id>, "exit_code": 0|1|2, "response": {<what `cupcake eval` prints>}}
plus "error": "<what was wrong with the line>" when the line itself was malformed.

`exit_code` means what `cupcake eval`'s exit status means: 0 decision, 1 deny/block under
--strict, 2 fail-closed error (the response is a deny whose reason starts with "cupcake: ").
Every request runs the one evaluation path of `cupcake eval` (engine/evaluator.py) with a
`WarmSource`, under the same deadline (--timeout) and memory cap (--wasm-max-memory).
A malformed line, an oversized line, an engine error or an internal error answers that
request with the fail-closed deny and the server keeps reading; blank lines are skipped;
end of stdin ends the server (exit status 0). A termination signal (SIGTERM, SIGINT, SIGHUP, ...:
cupcake_py/core/termination.py) ends it too: the request in flight is answered with the fail-closed
deny ("stopped by SIGTERM ..."), then the server exits with status 128 + the signal number. The project is found from the event's `cwd`
(or the request's `policy_dir`); the global config dir is shared by all requests.
With a fleet.yml in the org tier's dir, the server polls its bundle sources and exports decision
logs in background threads (cupcake_py/fleet/background.py, docs/fleet.md).
"""

from __future__ import annotations

import os
import sys

from cupcake_py.app.fast_eval import _after, _failure_answer, _reap, _setup_logging, evaluate
from cupcake_py.core import jsonio, termination
from cupcake_py.core.errors import EventError
from cupcake_py.core.lazylog import LazyLogger
from cupcake_py.engine.observe import Trace
from cupcake_py.engine.options import EvalOptions, UsageError, parse_args
from cupcake_py.harness import NAMES, get

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, BinaryIO

    from cupcake_py.engine.warm import WarmSource

log = LazyLogger("cupcake_py.app.serve")

_REQUEST_KEYS = frozenset({"id", "harness", "event", "policy_dir"})


class RequestError(ValueError):
    """A line that is not a well-formed request (answered with an error response)."""


def harnesses() -> tuple[str, ...]:
    """The harnesses `cupcake eval --harness` accepts (one table: cupcake_py.harness.MODULES)."""
    return NAMES


def parse_request(line: bytes) -> tuple[Any, str, dict[str, Any], str | None]:
    """(id, harness, event, policy_dir) of one request line; RequestError says what is wrong. The
    event is checked later, by the evaluation itself (its errors are fail-closed answers too)."""
    try:
        value = jsonio.loads(line)
    except jsonio.JSONError as e:
        raise RequestError(f"the line is not valid JSON: {e}") from None
    if not isinstance(value, dict):
        raise RequestError("a request must be a JSON object")
    rid = value.get("id")
    if not (isinstance(rid, str) or (isinstance(rid, int) and not isinstance(rid, bool))):
        raise RequestError('"id" must be a string or an integer')
    unknown = sorted(set(value) - _REQUEST_KEYS)
    if unknown:
        raise RequestError(f"unknown request field(s) {', '.join(unknown)} (known: {', '.join(sorted(_REQUEST_KEYS))})")
    harness = value.get("harness")
    if harness not in harnesses():
        raise RequestError(f'"harness" must be one of {", ".join(harnesses())}, got {jsonio.dumps(harness).decode()}')
    event = value.get("event")
    if not isinstance(event, dict):
        raise RequestError('"event" must be a JSON object (the event `cupcake eval` reads)')
    policy_dir = value.get("policy_dir")
    if policy_dir is not None and not (isinstance(policy_dir, str) and os.path.isabs(policy_dir)
                                       and "\0" not in policy_dir):
        raise RequestError('"policy_dir" must be an absolute path (without NUL characters)')
    return rid, harness, event, policy_dir


def read_line(stream: BinaryIO, limit: int) -> tuple[bytes | None, bool]:
    """(line, too_long): the next line (None at end of input); a line longer than `limit` is
    consumed to its end and reported as too long."""
    line = stream.readline(limit + 1)
    if not line:
        return None, False
    if len(line) <= limit or line.endswith(b"\n"):
        return line, False
    while line and not line.endswith(b"\n"):
        line = stream.readline(1 << 16)
    return b"", True


def _request_id(line: bytes) -> Any:
    """The id of a request that is otherwise malformed, when it can be read (else None)."""
    try:
        value = jsonio.loads(line)
    except (jsonio.JSONError, RecursionError):
        return None
    rid = value.get("id") if isinstance(value, dict) else None
    return rid if isinstance(rid, str) or (isinstance(rid, int) and not isinstance(rid, bool)) else None


def _harness_of(line: bytes) -> str | None:
    """The harness a request line names, when it can be read (for its fail-closed form)."""
    try:
        value = jsonio.loads(line)
    except (jsonio.JSONError, RecursionError):
        return None
    name = value.get("harness") if isinstance(value, dict) else None
    return name if isinstance(name, str) else None


def _failure_line(rid: Any, message: str, harness_name: str | None = None) -> dict[str, Any]:
    """The answer line of a request that is answered with the harness's fail-closed deny."""
    answer = _failure_answer(get(harness_name) if harness_name in NAMES else None, message, None)
    return {"id": rid, "exit_code": 2, "response": answer.stdout}


def handle(line: bytes, opts: EvalOptions, source: WarmSource) -> dict[str, Any]:
    """The answer line (as an object) to one request line."""
    from cupcake_py.engine.evaluator import Evaluation

    try:
        rid, harness_name, event, policy_dir = parse_request(line)
    except (RequestError, RecursionError) as e:
        msg = str(e) if isinstance(e, RequestError) else "the line is too deeply nested"
        return {**_failure_line(_request_id(line), f"bad request: {msg}"), "error": msg}
    harness = get(harness_name)
    trace = Trace()
    req_opts = EvalOptions(**{name: getattr(opts, name) for name in EvalOptions.__slots__})
    req_opts.harness = harness_name
    if policy_dir is not None:
        req_opts.policy_dir = policy_dir
    cwd = event.get("cwd")
    start = cwd if isinstance(cwd, str) and os.path.isabs(cwd) else None
    evaluation = Evaluation(req_opts, trace, harness, source, start=start)

    def run() -> Any:
        with trace.phase("validate"):
            evaluation.decoded = event
            checked = harness.validate(event)
        if start is None:  # paths in the event are resolved against it, never against the server's own cwd
            raise EventError('the event\'s "cwd" must be an absolute path (the server finds the project from it)')
        return evaluation.decide(checked)

    answer = evaluate(req_opts, trace, evaluation, run)
    if answer.exit == 2:  # an interrupted request may leave an instance mid-call: rebuild them (cheap, rare)
        source.forget()
    _after(req_opts, trace, evaluation)
    return {"id": rid, "exit_code": answer.exit, "response": answer.stdout}


def serve(opts: EvalOptions, stdin: BinaryIO, stdout: BinaryIO, source: WarmSource | None = None) -> int:
    """Answer requests until end of input; 0 at EOF, 2 when stdout is gone. `source`: the warm
    bundles and instances to use (a new one by default)."""
    if source is None:
        from cupcake_py.engine.warm import WarmSource

        source = WarmSource(opts.wasm_max_memory)
    while True:
        try:
            line, too_long = read_line(stdin, opts.max_input_bytes)
        except termination.Stopped as e:
            return 128 + e.signum
        if line is None:
            return 0
        if too_long:
            msg = f"the request line is longer than {opts.max_input_bytes} bytes (see --max-input-bytes)"
            out: dict[str, Any] = {**_failure_line(None, msg), "error": msg}
        elif not line.strip():
            continue
        else:
            try:
                out = handle(line, opts, source)
            except termination.Stopped as e:  # outside the evaluation itself (which answers it)
                out = _failure_line(_request_id(line), f"{e}; blocked (fail closed)", _harness_of(line))
        try:
            stdout.write(jsonio.dumps(out) + b"\n")
            stdout.flush()
        except (OSError, ValueError):
            return 2
        stopped = termination.stopped()
        if stopped is not None:  # the request in flight is answered: now stop
            return 128 + termination.SIGNALS.get(stopped, 0)


SERVE_OPTIONS = ("--stdio",)


def main(argv: list[str]) -> int:
    """`cupcake serve --stdio [eval options]`."""
    rest = [a for a in argv if a not in SERVE_OPTIONS]
    try:
        opts = parse_args(rest)
    except UsageError as e:
        sys.stderr.write(f"cupcake serve: {e}\n")
        return 2
    if opts.help:
        from cupcake_py.cli.help_texts import SERVE_HELP

        sys.stdout.write(SERVE_HELP)
        return 0
    if "--stdio" not in argv:
        sys.stderr.write("cupcake serve: --stdio is required (the only transport: JSON lines on stdin/stdout)\n")
        return 2
    termination.arm()  # a termination signal: the request in flight answers fail-closed, then the server ends
    _setup_logging(opts.log_level)
    from cupcake_py.engine import reaper

    reaper.arm()  # as in eval: signal daemons are re-parented to the server and killed after each request
    from cupcake_py.shell import memo

    memo.enable()  # shell analyses reused while what they looked at on disk says the same (shell/memo.py)
    from cupcake_py.core.userdirs import org_config_dir
    from cupcake_py.fleet import background

    fleet = background.start(org_config_dir())  # org bundles refreshed, decision logs exported (docs/fleet.md)
    try:
        return serve(opts, sys.stdin.buffer, sys.stdout.buffer)
    except termination.Stopped as e:
        return 128 + e.signum
    finally:
        if fleet is not None:
            fleet.set()
        _reap()
