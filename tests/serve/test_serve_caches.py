"""What a warm server reuses from one request to the next never outlives a change on disk.

The server keeps the JSON text of each bundle's builtin_config (with the request's state paths)
and reuses it only while the freshly computed value equals the one it was made from
(engine/warm.py); state paths themselves are computed per request (engine/state_paths.py).
Adversarial: the agent changes the file system between two requests so that a path becomes
cupcake state; the very next request must see it. Benign: ordinary requests stay allowed and
the reused text is the same answer the one-shot `cupcake eval` gives.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from cupcake_py.harness.opencode.examples import cupcake_command
from tests.serve.support import Server, event, project, request

STOPS = ("deny", "block")
GUARDRAILS = "builtins:\n  rulebook_security_guardrails: {}\n"


def _decide(srv: Server, rid: int, cwd: Path, command: str) -> str:
    got = srv.ask(request(rid, cwd, command))
    assert got["id"] == rid and got["exit_code"] == 0, got
    return str(got["response"]["decision"])


def test_a_config_dir_link_made_between_requests_protects_its_target_at_once(tmp_path: Path) -> None:
    """~/.config/opencode (the global OpenCode dir; not state itself, only its plugin dirs and
    config files are) pointed at a directory the agent controls: a plugin written there is a
    write to OpenCode's plugin dir, on the request right after the link appeared."""
    srv = Server(tmp_path, "--no-global")
    proj = project(tmp_path / "p", {}, GUARDRAILS)
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "plugin").mkdir(parents=True)
    write_plugin = f"echo 'export default 1' > {elsewhere}/plugin/evil.js"
    try:
        for rid in (1, 2, 3):  # warm: the builtin_config text is reused from request 2 on
            assert _decide(srv, rid, proj, write_plugin) == "allow"
        oc_dir = Path(srv.env["XDG_CONFIG_HOME"]) / "opencode"
        oc_dir.parent.mkdir(parents=True, exist_ok=True)
        oc_dir.symlink_to(elsewhere)
        assert _decide(srv, 4, proj, write_plugin) in STOPS
        assert _decide(srv, 5, proj, write_plugin) in STOPS
        oc_dir.unlink()  # benign: the link gone, the directory is an ordinary one again
        assert _decide(srv, 6, proj, write_plugin) == "allow"
    finally:
        srv.stop()


def test_a_project_link_made_between_requests_is_seen(tmp_path: Path) -> None:
    """The event's working directory gains a `.opencode` link to a directory outside: its tool dir is state."""
    srv = Server(tmp_path, "--no-global")
    proj = project(tmp_path / "p", {}, GUARDRAILS)
    outside = tmp_path / "outside"
    (outside / "tool").mkdir(parents=True)
    command = f"cp /dev/null {outside}/tool/t.ts"
    try:
        assert _decide(srv, 1, proj, command) == "allow"
        assert _decide(srv, 2, proj, command) == "allow"
        (proj / ".opencode").symlink_to(outside)
        assert _decide(srv, 3, proj, command) in STOPS
    finally:
        srv.stop()


def test_warm_answers_equal_one_shot_answers(tmp_path: Path) -> None:
    """Benign: the same events, answered by a warm server (reused text) and by `cupcake eval`."""
    srv = Server(tmp_path, "--no-global")
    proj = project(tmp_path / "p", {}, GUARDRAILS)
    commands = ["ls -la", "cat .cupcake/rulebook.yml", "echo hi > notes.txt", "rm -rf .cupcake", "git status"]
    try:
        for round_ in range(2):
            for i, command in enumerate(commands):
                warm = srv.ask(request(i + 10 * round_, proj, command))
                one = subprocess.run([*cupcake_command(), "eval", "--harness", "opencode", "--no-global"],
                                     input=json.dumps(event(proj, command)).encode(),
                                     capture_output=True, cwd=proj, env=srv.env)
                assert one.returncode == warm["exit_code"], (command, one.stderr)
                assert json.loads(one.stdout) == warm["response"], command
    finally:
        srv.stop()


def test_the_policy_input_text_has_one_builtin_config_the_engines(tmp_path: Path) -> None:
    """Adversarial: an input that already carries a `builtin_config` (an event field, say) is encoded with
    the engine's value only (no duplicate key a JSON reader could take instead), reused text or not."""
    from cupcake_py.engine.bundle import Bundle
    from cupcake_py.engine.evaluator import ONE_SHOT, Evaluation
    from cupcake_py.engine.observe import Trace
    from cupcake_py.engine.options import EvalOptions
    from cupcake_py.engine.warm import WarmSource
    from cupcake_py.harness import get

    b = Bundle("k", "project", builtin_config={"rulebook_security_guardrails": {"state_paths": []}})
    engine_value = {"rulebook_security_guardrails": {"state_paths": [{"path": "/s", "kind": "config"}]}}
    for source in (ONE_SHOT, WarmSource(1 << 26)):
        ev = Evaluation(EvalOptions(), Trace(), get("opencode"), source)
        for _ in range(2):
            text = ev.input_json(b, {"tool_name": "Bash", "builtin_config": engine_value, "z": [1]})
            pairs = json.loads(text, object_pairs_hook=lambda kv: kv)
            assert [k for k, _ in pairs].count("builtin_config") == 1
            assert json.loads(text) == {"tool_name": "Bash", "z": [1], "builtin_config": engine_value}
        changed = {"rulebook_security_guardrails": {"state_paths": [{"path": "/t", "kind": "config"}]}}
        assert json.loads(ev.input_json(b, {"builtin_config": changed}))["builtin_config"] == changed
        assert json.loads(ev.input_json(b, {"x": 1})) == {"x": 1}


def test_the_enriched_events_text_is_shared_only_when_the_input_holds_it_unchanged() -> None:
    """The two phases of one evaluation share the enriched event's text; an input field that replaces an
    enriched one (an event field named like an engine field, say `signals`) is the input's own value,
    once, and a field added later is in the text too."""
    from cupcake_py.engine.bundle import Bundle
    from cupcake_py.engine.evaluator import Evaluation
    from cupcake_py.engine.observe import Trace
    from cupcake_py.engine.options import EvalOptions
    from cupcake_py.engine.warm import WarmSource
    from cupcake_py.harness import get

    b = Bundle("k", "project", builtin_config={"x": {"y": [1, 2]}})
    ev = Evaluation(EvalOptions(), Trace(), get("opencode"), WarmSource(1 << 26))
    enriched = {"tool_name": "Bash", "shell": {"effects": {"reads": ["/a"]}}, "signals": {"agent-made": True}}
    ev._enriched[True] = enriched
    for signals in ({}, {"git.branch": "main"}):
        policy_input = dict(enriched)
        policy_input["signals"] = signals  # replaces the event's own field
        policy_input["builtin_config"] = b.builtin_config
        policy_input["cupcake_routed"] = {"p": True}
        text = ev.input_json(b, policy_input)
        assert [k for k, _ in json.loads(text, object_pairs_hook=lambda kv: kv)].count("signals") == 1
        assert json.loads(text) == policy_input
    plain = dict(enriched)  # every field the same object: shared text, and what is added after it
    plain["cupcake_routed"] = {"q": True}
    first = ev.input_json(b, plain)
    plain["shell"] = {"effects": {"reads": ["/a", "/etc/shadow"]}}  # a copy with more (hard-link identities)
    second = ev.input_json(b, plain)
    assert json.loads(first)["shell"] == enriched["shell"]
    assert json.loads(second)["shell"]["effects"]["reads"] == ["/a", "/etc/shadow"]
    assert [k for k, _ in json.loads(second, object_pairs_hook=lambda kv: kv)].count("shell") == 1


def test_the_routed_flags_text_is_the_routes_and_appears_once() -> None:
    """A memoised route's flags are spliced in as the route's own text, exactly once, whether the
    enriched event's text is shared or not; an event field named `cupcake_routed` never survives, and
    an equal flags value that is not the route's tuple is encoded as usual."""
    from cupcake_py.engine.bundle import Bundle
    from cupcake_py.engine.evaluator import Evaluation
    from cupcake_py.engine.observe import Trace
    from cupcake_py.engine.options import EvalOptions
    from cupcake_py.engine.warm import WarmSource
    from cupcake_py.harness import get

    b = Bundle("k", "project", routing={"PreToolUse:Bash": ["cupcake.policies.b"]},
               policies={"cupcake.policies.a": {"signals": []}, "cupcake.policies.b": {"signals": []}})
    route = b.index.route("PreToolUse", "Bash")
    ev = Evaluation(EvalOptions(), Trace(), get("opencode"), WarmSource(1 << 26))
    forged = {"tool_name": "Bash", "cupcake_routed": [True, True]}
    ev._enriched[True] = forged
    for base in (forged, {"tool_name": "Bash"}):
        for flags in (route.flags, tuple(route.flags), [False, True]):
            policy_input = {**base, "cupcake_routed": flags}
            text = ev.input_json(b, policy_input)
            assert [k for k, _ in json.loads(text, object_pairs_hook=lambda kv: kv)].count("cupcake_routed") == 1
            assert json.loads(text) == {"tool_name": "Bash", "cupcake_routed": [False, True]}
