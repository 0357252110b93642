"""`cupcake serve --stdio` protocol: answers in request order with their ids, the eval response
and exit-code meaning, malformed lines answered with an error (never an exit), EOF ends it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.serve.support import DENY_RM, Server, event, project, request


@pytest.fixture()
def served(tmp_path: Path):  # type: ignore[no-untyped-def]
    srv = Server(tmp_path, "--no-global")
    yield srv, project(tmp_path / "p", {"rm": DENY_RM})
    srv.stop()


def test_pipelined_requests_answer_in_order_with_their_ids(served) -> None:  # type: ignore[no-untyped-def]
    srv, proj = served
    ids: list[object] = [1, "two", 3, "a-\u00e9", 0, -7, "1"]
    for i, rid in enumerate(ids):
        srv.send(request(rid, proj, "rm -rf x" if i % 2 else "ls"))
    answers = [srv.recv() for _ in ids]
    assert [a["id"] for a in answers] == ids
    for i, a in enumerate(answers):
        assert a["exit_code"] == 0
        assert a["response"]["decision"] == ("deny" if i % 2 else "allow"), a
    code, stderr = srv.stop()
    assert code == 0 and "Traceback" not in stderr


def test_response_matches_cupcake_eval(served) -> None:  # type: ignore[no-untyped-def]
    from cupcake_py.harness.opencode.examples import run_eval

    srv, proj = served
    got = srv.ask(request(9, proj, "rm -rf /"))
    want, code, _ = run_eval(json.dumps(event(proj, "rm -rf /")).encode(), proj, ["--no-global"], srv.env)
    assert got == {"id": 9, "exit_code": code, "response": want}


@pytest.mark.parametrize(("line", "rid", "needle"), [
    (b"not json", None, "not valid JSON"),
    (b"[1, 2]", None, "must be a JSON object"),
    (b'{"harness": "opencode", "event": {}}', None, '"id" must be'),
    (b'{"id": true, "harness": "opencode", "event": {}}', None, '"id" must be'),
    (b'{"id": 5, "harness": "nope", "event": {}}', 5, '"harness" must be one of'),
    (b'{"id": 5, "event": {}}', 5, '"harness" must be one of'),
    (b'{"id": "e", "harness": "opencode", "event": "x"}', "e", '"event" must be a JSON object'),
    (b'{"id": "u", "harness": "opencode", "event": {}, "extra": 1}', "u", "unknown request field(s) extra"),
    (b'{"id": "p", "harness": "opencode", "event": {}, "policy_dir": "rel"}', "p", "absolute path"),
    (b'{"id": "n", "harness": "opencode", "event": {}, "policy_dir": "/tmp/\\u0000"}', "n", "without NUL"),
    (b'{"id": "s", "harness": "opencode", "event": {"x": "\\udc80"}}', None, "lone UTF-16 surrogate"),
    (b"[" * 100_000 + b"]" * 100_000, None, ""),
])
def test_malformed_lines_get_an_error_answer_and_serving_goes_on(served, line: bytes, rid: object,  # type: ignore[no-untyped-def]
                                                                 needle: str) -> None:
    srv, proj = served
    bad = srv.ask(line)
    assert bad["id"] == rid and bad["exit_code"] == 2 and needle in bad["error"], bad
    assert bad["response"]["decision"] == "deny" and bad["response"]["reason"].startswith("cupcake: bad request")
    assert srv.ask(request(1, proj, "rm x"))["response"]["decision"] == "deny"


@pytest.mark.parametrize(("ev", "needle"), [
    ({"hook_event_name": "PreToolUse", "session_id": "s", "cwd": "relative", "tool": "bash", "args": {"command": "ls"}}, "cwd"),
    ({"hook_event_name": "Nope", "session_id": "s", "tool": "bash", "args": {}}, "hook_event_name"),
    ({"hook_event_name": "PreToolUse", "session_id": "s", "cwd": "/tmp\0", "tool": "bash", "args": {"command": "ls"}},
     "`cwd` contains a NUL character"),
    ({"hook_event_name": "PreToolUse", "session_id": "s", "cwd": "/tmp", "tool": "read", "args": {"filePath": "/a\0"}},
     "`args.filePath` contains a NUL character"),
])
def test_invalid_events_fail_closed_like_eval(served, ev: dict[str, object], needle: str) -> None:  # type: ignore[no-untyped-def]
    srv, proj = served
    got = srv.ask(json.dumps({"id": 1, "harness": "opencode", "event": ev}).encode())
    assert got["exit_code"] == 2 and "error" not in got
    assert got["response"]["decision"] == "deny" and needle in got["response"]["reason"], got
    assert srv.ask(request(2, proj, "ls"))["response"]["decision"] == "allow"


def test_oversized_line_and_blank_lines(tmp_path: Path) -> None:
    srv = Server(tmp_path, "--no-global", "--max-input-bytes", "4KB")
    proj = project(tmp_path / "p", {"rm": DENY_RM})
    srv.send(b"")
    srv.send(b"   ")
    big = srv.ask(request(1, proj, "x" * 10_000))
    assert big["id"] is None and big["exit_code"] == 2 and "longer than 4096 bytes" in big["error"]
    assert srv.ask(request(2, proj, "rm x")) == {"id": 2, "exit_code": 0, "response": {
        "decision": "deny", "reason": "no rm", "rule_ids": ["RM"]}}
    assert srv.stop()[0] == 0


def test_strict_exit_code_and_policy_dir(tmp_path: Path) -> None:
    srv = Server(tmp_path, "--no-global", "--strict")
    proj = project(tmp_path / "p", {"rm": DENY_RM})
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    got = srv.ask(request("s", elsewhere, "rm x", policy_dir=str(proj)))
    assert got["exit_code"] == 1 and got["response"]["decision"] == "deny"
    missing = srv.ask(request("m", elsewhere, "rm x"))
    assert missing["exit_code"] == 2 and "no .cupcake directory in " + str(elsewhere) in missing["response"]["reason"]
    srv.stop()


def test_eof_ends_the_server_and_stdio_is_required(tmp_path: Path) -> None:
    srv = Server(tmp_path)
    assert srv.stop() == (0, "")
    import subprocess

    from cupcake_py.harness.opencode.examples import cupcake_command

    proc = subprocess.run([*cupcake_command(), "serve"], input=b"", capture_output=True, timeout=60)
    assert proc.returncode == 2 and b"--stdio is required" in proc.stderr
    helped = subprocess.run([*cupcake_command(), "serve", "--help"], capture_output=True, timeout=60)
    assert helped.returncode == 0 and b"exit_code" in helped.stdout
