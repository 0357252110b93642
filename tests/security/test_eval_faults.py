"""Fault injection through the real `cupcake eval` process (issue 15): each fault an agent (or
bad luck) can cause, with the outcome it must have. None may end in an allow, none may print a
traceback, and nothing may keep running afterwards.

| fault | expected outcome |
| --- | --- |
| bundle rewritten with empty routing + recomputed sha256 (the issue's attack) | policy applies; MAC warning |
| bundle re-MACed with a guessed key | policy applies; MAC warning |
| .cwasm of another policy copied over the entry / payload bit flip | policy applies; MAC warning |
| truncated bundle, garbage .cwasm, a directory where an entry belongs | policy applies (rebuilt) |
| cache MAC key with mode 0644 / not a regular file / wrong size / a symlink / another owner | policy applies; caches off; warning |
| first evaluations racing to create the key | one key; every cache entry verifies |
| policies subdirectory unreadable (mode 000) | deny, exit 2, configuration error |
| policies subdirectory is a file / a dangling symlink / a symlink to a dir | deny, exit 2, configuration error |
| a `.rego` that is a dangling symlink or a FIFO | deny, exit 2, configuration error |
| a policy file that cannot be read (mode 000) | deny, exit 2 |
| rulebook unreadable / a dangling symlink | deny, exit 2 |
| global config dir unreadable / a dangling symlink / a file | deny, exit 2 |
| project `.cupcake` is a file | deny, exit 2 |
| rulebook naming a policy (builtin) that does not exist | deny, exit 2, with file:row:col |
| global `require_project_config: true`, no project `.cupcake/` | deny, exit 2 |
| guardrails switched off in the rulebook | evaluation as configured + a loud warning every evaluation |
| a signal starts `(setsid sleep … &)` (own session, re-parented on exit) | killed at the end of the eval |
| a signal exceeds the deadline | deny, exit 2; its process group is gone |
| a long-lived process using the signal runner (tests, authoring) | never becomes a subreaper (only `cupcake eval`) |
| opencode.json plugin options `enabled: false`, `failMode: "open"`, `cupcakePath` | ignored: the real cupcake still decides |

Where root's DAC override would hide a permission fault, the process runs without
CAP_DAC_OVERRIDE/CAP_DAC_READ_SEARCH (`setpriv`), so mode 000 means what it says.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import time
from pathlib import Path

import pytest

from cupcake_py.harness.opencode.examples import cupcake_command, isolated_env
from tests.e2e_eval.test_engine_behaviour import bash, make_config, policy

DENY_RM = policy("rm", 'deny contains {"rule_id": "RM", "reason": "no rm"} if { startswith(input.tool_input.command, "rm") }\n')
ALLOW_ALL = policy("quiet", 'deny contains {"rule_id": "Q", "reason": "never"} if { input.tool_input.command == "~" }\n')
GUARDRAILS_OFF = "builtins:\n  rulebook_security_guardrails: {enabled: false}\n"
ROOT = os.geteuid() == 0
SETPRIV = shutil.which("setpriv")
NO_DAC = ["--bounding-set=-dac_override,-dac_read_search", "--inh-caps=-dac_override,-dac_read_search"]


def run(stdin: bytes, cwd: Path, env: dict[str, str], args: tuple[str, ...] = (), *, no_dac: bool = False,
        ) -> tuple[object, int, str]:
    prefix = [SETPRIV, *NO_DAC] if no_dac and ROOT and SETPRIV else []
    proc = subprocess.run([*prefix, *cupcake_command(), "eval", "--harness", "opencode", *args], input=stdin,
                          capture_output=True, cwd=cwd, env=env, timeout=120)
    text = proc.stdout.decode("utf-8", "replace")
    try:
        parsed: object = json.loads(text)
    except ValueError:
        parsed = text
    return parsed, proc.returncode, proc.stderr.decode("utf-8", "replace")


def needs_permission_faults() -> None:
    if ROOT and not SETPRIV:
        pytest.skip("running as root without setpriv: mode 000 cannot be made to bind")


class World:
    def __init__(self, tmp_path: Path, policies: dict[str, str] | None = None, rulebook: str = "") -> None:
        self.tmp = tmp_path
        self.project = tmp_path / "p"
        self.cupcake = make_config(self.project / ".cupcake", {"rm": DENY_RM} if policies is None else policies,
                                   rulebook)
        self.cache = tmp_path / "cache"
        self.config = tmp_path / "cfg"
        self.env = isolated_env(self.cache, self.config)

    def eval(self, command: str = "rm -rf secrets", *args: str, no_dac: bool = False) -> tuple[object, int, str]:
        return run(bash(self.project, command), self.project, self.env, args, no_dac=no_dac)

    def bundles(self) -> list[Path]:
        return sorted((self.cache / "cupcake-py/bundles").glob("*.bundle"))

    def modules(self) -> list[Path]:
        return sorted((self.cache / "cupcake-py/modules").glob("*.cwasm"), key=lambda p: p.stat().st_mtime_ns)

    @property
    def key(self) -> Path:
        return self.config / "cupcake/cache.key"


def assert_denied(resp: object, code: int, stderr: str) -> None:
    """The policy's own deny (the evaluation worked despite the fault)."""
    assert code == 0 and isinstance(resp, dict) and resp.get("decision") == "deny", (resp, code, stderr)
    assert resp.get("rule_ids") == ["RM"], resp
    assert "Traceback" not in stderr, stderr


def assert_config_error(resp: object, code: int, stderr: str, needle: str) -> None:
    assert code == 2, (resp, stderr)
    assert isinstance(resp, dict) and resp["decision"] == "deny", resp
    assert resp["reason"].startswith("cupcake: ") and needle in resp["reason"], resp
    assert "internal error" not in resp["reason"] and "Traceback" not in stderr, (resp, stderr)


# ------------------------------------------------------------------ tampered caches


def _split(blob: bytes, magic: bytes) -> tuple[dict[str, object], bytes]:
    n = int.from_bytes(blob[len(magic):len(magic) + 8], "big")
    header = json.loads(blob[len(magic) + 8:len(magic) + 8 + n])
    return header, blob[len(magic) + 8 + n + 32:]


def _rewrite_bundle(path: Path, trailer: str) -> None:
    from _blake2 import blake2b  # noqa: PLC0415
    from _sha256 import sha256  # type: ignore[import-not-found]  # noqa: PLC0415

    from cupcake_py.engine.bundle import MAGIC

    header, wasm = _split(path.read_bytes(), MAGIC)
    header["routing"] = {}
    raw = json.dumps(header, separators=(",", ":")).encode()
    mac = (sha256(raw + wasm).digest() if trailer == "sha256"
           else blake2b(raw + wasm, key=b"guess" * 6 + b"!!", digest_size=32, person=b"cupcake-cache").digest())
    path.write_bytes(MAGIC + len(raw).to_bytes(8, "big") + raw + mac + wasm)


@pytest.mark.parametrize("trailer", ["sha256", "guessed-key"])
def test_tampered_bundle_is_rebuilt_not_loaded(tmp_path: Path, trailer: str) -> None:
    w = World(tmp_path)
    assert_denied(*w.eval())
    (entry,) = w.bundles()
    _rewrite_bundle(entry, trailer)
    resp, code, stderr = w.eval()
    assert_denied(resp, code, stderr)
    assert "MAC mismatch" in stderr and str(entry) in stderr
    assert_denied(*w.eval())  # the rebuilt entry is valid again


def test_cwasm_of_another_policy_is_not_loaded(tmp_path: Path) -> None:
    w = World(tmp_path)
    assert_denied(*w.eval())
    (mine,) = w.modules()
    other = World(tmp_path / "o", {"quiet": ALLOW_ALL})
    other.env = w.env  # same cache and key
    run(bash(other.project, "rm -rf x"), other.project, w.env)
    theirs = [m for m in w.modules() if m != mine]
    assert theirs
    mine.write_bytes(theirs[0].read_bytes())  # a valid entry, MACed for another name
    resp, code, stderr = w.eval()
    assert_denied(resp, code, stderr)
    assert "MAC mismatch" in stderr and "native-code cache" in stderr


def test_entries_written_under_another_config_home_are_not_loaded_and_the_warning_names_the_key(
        tmp_path: Path) -> None:
    """Two config homes (two cache keys) over one cache dir: each one's entries fail the other's MAC
    (they cannot be told from forged ones), so they are recompiled, never loaded; the warning says
    which key it checked against, so a user with mixed $XDG_CONFIG_HOME can see why."""
    w = World(tmp_path)
    assert_denied(*w.eval())
    other_env = isolated_env(w.cache, tmp_path / "other-cfg")  # same cache dir, another key
    resp, code, stderr = run(bash(w.project, "rm -rf secrets"), w.project, other_env)
    assert_denied(resp, code, stderr)
    other_key = tmp_path / "other-cfg/cupcake/cache.key"
    assert other_key.read_bytes() != w.key.read_bytes()
    # (the bundle entries differ: a bundle's cache key covers the global config dir; the module is the same)
    assert "native-code cache entry" in stderr, stderr
    assert f"another cache key than {other_key} (MAC mismatch)" in stderr, stderr
    resp, code, stderr = w.eval()  # and back: the first home's key rejects the rewritten entries in turn
    assert_denied(resp, code, stderr)
    assert f"another cache key than {w.key} (MAC mismatch)" in stderr, stderr


def test_cwasm_payload_flip_with_recomputed_digest_is_not_loaded(tmp_path: Path) -> None:
    from _blake2 import blake2b  # noqa: PLC0415

    from cupcake_py.host.cache import MAGIC

    w = World(tmp_path)
    assert_denied(*w.eval())
    (entry,) = w.modules()
    blob = bytearray(entry.read_bytes())
    payload = blob[len(MAGIC) + 32:]
    payload[len(payload) // 2] ^= 0xFF
    entry.write_bytes(MAGIC + blake2b(bytes(payload), digest_size=32).digest() + bytes(payload))
    resp, code, stderr = w.eval()
    assert_denied(resp, code, stderr)
    assert "MAC mismatch" in stderr


@pytest.mark.parametrize("damage", ["truncate-bundle", "garbage-cwasm", "dir-bundle"])
def test_corrupt_cache_entries_are_rebuilt(tmp_path: Path, damage: str) -> None:
    w = World(tmp_path)
    assert_denied(*w.eval())
    if damage == "truncate-bundle":
        (entry,) = w.bundles()
        entry.write_bytes(entry.read_bytes()[:40])
    elif damage == "garbage-cwasm":
        (entry,) = w.modules()
        entry.write_bytes(os.urandom(200))
    else:
        (entry,) = w.bundles()
        entry.unlink()
        entry.mkdir()
    resp, code, stderr = w.eval()
    assert_denied(resp, code, stderr)
    assert "WARNING" in stderr


# ------------------------------------------------------------------ the MAC key


@pytest.mark.parametrize("fault", ["mode-0644", "symlink", "short", "directory", "other-owner"])
def test_unusable_key_disables_caching_with_a_warning(tmp_path: Path, fault: str) -> None:
    w = World(tmp_path)
    assert_denied(*w.eval())
    assert stat.S_IMODE(w.key.stat().st_mode) == 0o600
    if fault == "mode-0644":
        w.key.chmod(0o644)
    elif fault == "symlink":
        real = tmp_path / "elsewhere.key"
        real.write_bytes(w.key.read_bytes())
        real.chmod(0o600)
        w.key.unlink()
        w.key.symlink_to(real)
    elif fault == "short":
        w.key.write_bytes(b"x")
    elif fault == "directory":
        w.key.unlink()
        w.key.mkdir()
    else:
        if not ROOT:
            pytest.skip("chown needs root")
        os.chown(w.key, 65534, 65534)
    before = {p: p.stat().st_mtime_ns for p in w.bundles()}
    resp, code, stderr = w.eval()
    assert_denied(resp, code, stderr)
    assert "cache MAC key" in stderr and "caches are not used" in stderr
    assert {p: p.stat().st_mtime_ns for p in w.bundles()} == before  # nothing read back or written


def test_key_is_created_private_and_once(tmp_path: Path) -> None:
    w = World(tmp_path)
    assert_denied(*w.eval())
    key = w.key.read_bytes()
    st = w.key.stat()
    assert len(key) == 32 and stat.S_IMODE(st.st_mode) == 0o600 and st.st_uid == os.getuid()
    assert_denied(*w.eval())
    assert w.key.read_bytes() == key
    assert sorted(os.listdir(w.key.parent)) == ["cache.key"]  # no temporary files left


def test_concurrent_first_evaluations_agree_on_one_key(tmp_path: Path) -> None:
    w = World(tmp_path)
    procs = [subprocess.Popen([*cupcake_command(), "eval", "--harness", "opencode"], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=w.project, env=w.env)
             for _ in range(4)]
    for p in procs:
        out, err = p.communicate(bash(w.project, "rm -rf x"), timeout=120)
        assert_denied(json.loads(out), p.returncode, err.decode())
    assert sorted(os.listdir(w.key.parent)) == ["cache.key"] and len(w.key.read_bytes()) == 32
    resp, code, stderr = w.eval()
    assert_denied(resp, code, stderr)
    assert "MAC" not in stderr  # every entry written by the racers verifies under the one key


# ------------------------------------------------------------------ unreadable configuration


def test_unreadable_policies_subdir_fails_closed(tmp_path: Path) -> None:
    needs_permission_faults()
    w = World(tmp_path)
    sub = w.cupcake / "policies/opencode/team"
    sub.mkdir()
    (sub / "push.rego").write_text(policy("team.push", 'deny contains {"rule_id": "P", "reason": "no push"} if '
                                          '{ contains(input.tool_input.command, "push") }\n'))
    resp, code, _ = w.eval("git push", no_dac=True)
    assert resp == {"decision": "deny", "reason": "no push", "rule_ids": ["P"]} and code == 0
    sub.chmod(0)
    try:
        resp, code, stderr = w.eval("git push", no_dac=True)
    finally:
        sub.chmod(0o700)
    assert_config_error(resp, code, stderr, f"{sub}: cannot be read")


@pytest.mark.parametrize("fault", ["file", "dangling", "dir-link", "dangling-rego", "fifo-rego"])
def test_broken_policies_tree_fails_closed(tmp_path: Path, fault: str) -> None:
    w = World(tmp_path)
    target = w.cupcake / "policies/opencode/team"
    if fault == "file":
        (w.cupcake / "policies/opencode").rename(tmp_path / "moved")
        (w.cupcake / "policies/opencode").write_text("not a dir")
        target, needle = w.cupcake / "policies/opencode", "not a directory"
    elif fault == "dangling":
        target.symlink_to(tmp_path / "gone")
        needle = "dangling"
    elif fault == "dir-link":
        (tmp_path / "shared").mkdir()
        target.symlink_to(tmp_path / "shared")
        needle = "symbolic link to a directory"
    elif fault == "dangling-rego":
        target = w.cupcake / "policies/opencode/x.rego"
        target.symlink_to(tmp_path / "gone.rego")
        needle = "dangling"
    else:
        target = w.cupcake / "policies/opencode/x.rego"
        os.mkfifo(target)
        needle = "not a readable regular file"
    resp, code, stderr = w.eval()
    assert_config_error(resp, code, stderr, needle)
    assert str(target) in resp["reason"]  # type: ignore[index]


@pytest.mark.parametrize("what", ["policy", "rulebook"])
def test_unreadable_file_fails_closed_as_configuration_error(tmp_path: Path, what: str) -> None:
    needs_permission_faults()
    w = World(tmp_path, rulebook="signals: {}\n")
    f = w.cupcake / ("policies/opencode/rm.rego" if what == "policy" else "rulebook.yml")
    f.chmod(0)
    try:
        resp, code, stderr = w.eval(no_dac=True)
    finally:
        f.chmod(0o600)
    assert_config_error(resp, code, stderr, str(f))


def test_dangling_rulebook_fails_closed(tmp_path: Path) -> None:
    w = World(tmp_path)
    (w.cupcake / "rulebook.yml").symlink_to(tmp_path / "gone.yml")
    assert_config_error(*w.eval(), "rulebook.yml: a dangling symbolic link")


@pytest.mark.parametrize("fault", ["unreadable", "dangling", "file"])
def test_broken_global_config_dir_fails_closed(tmp_path: Path, fault: str) -> None:
    w = World(tmp_path)
    glob = w.config / "cupcake"
    no_dac = False
    if fault == "unreadable":
        needs_permission_faults()
        make_config(glob, {"g": DENY_RM})
        glob.chmod(0)
        no_dac = True
    elif fault == "dangling":
        w.config.mkdir()
        glob.symlink_to(tmp_path / "gone")
    else:
        w.config.mkdir()
        glob.write_text("x")
    try:
        resp, code, stderr = w.eval(no_dac=no_dac)
    finally:
        if glob.is_dir() and not glob.is_symlink():
            glob.chmod(0o700)
    assert_config_error(resp, code, stderr, str(glob))


def test_project_cupcake_that_is_a_file_fails_closed(tmp_path: Path) -> None:
    w = World(tmp_path)
    shutil.rmtree(w.cupcake)
    w.cupcake.write_text("x")
    assert_config_error(*w.eval(), "not a directory")


def test_rulebook_naming_a_missing_policy_fails_closed(tmp_path: Path) -> None:
    w = World(tmp_path, rulebook="builtins:\n  no_such_builtin: {}\n")
    assert_config_error(*w.eval(), "rulebook.yml:2:3: builtins.no_such_builtin: unknown key")


def test_require_project_config(tmp_path: Path) -> None:
    w = World(tmp_path)
    make_config(w.config / "cupcake", {}, "require_project_config: true\n")
    assert_denied(*w.eval())  # a project: evaluated as usual
    elsewhere = tmp_path / "no-project"
    elsewhere.mkdir()
    resp, code, stderr = run(bash(elsewhere, "ls"), elsewhere, w.env)
    assert_config_error(resp, code, stderr, "require_project_config: true")
    (w.cupcake / "rulebook.yml").write_text("require_project_config: true\n")
    assert_config_error(*w.eval(), "require_project_config can only be set in the global rulebook")


def test_disabled_guardrails_warn_on_every_evaluation(tmp_path: Path) -> None:
    w = World(tmp_path, rulebook=GUARDRAILS_OFF)
    for _ in range(2):
        resp, code, stderr = w.eval()
        assert_denied(resp, code, stderr)
        assert "rulebook security guardrails are DISABLED" in stderr
    w2 = World(tmp_path / "on")
    assert "DISABLED" not in w2.eval()[2]


def test_guardrails_see_state_paths(tmp_path: Path) -> None:
    """The engine hands the guardrails cupcake's own state; reading the MAC key is a violation."""
    w = World(tmp_path)
    assert_denied(*w.eval())
    event = {"hook_event_name": "PreToolUse", "session_id": "s", "cwd": str(w.project), "tool": "read",
             "args": {"filePath": str(w.key)}}
    resp, code, stderr = run(json.dumps(event).encode(), w.project, w.env, ("--debug-files",))
    assert isinstance(resp, dict) and resp["decision"] in ("deny", "block"), (resp, stderr)
    trace = next((w.cupcake / "debug").glob("*.txt")).read_text()
    assert '"state_paths"' in trace and '"path_dirs"' in trace and str(w.key) in trace


# ------------------------------------------------------------------ processes


def _processes_with(marker: str) -> list[int]:
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if marker in cmd and state != "Z":
            found.append(int(pid))
    return found


SIGNAL_POLICY = policy("sig", 'deny contains {"rule_id": "RM", "reason": "no rm"} if {\n'
                               '  startswith(input.tool_input.command, "rm")\n  input.signals.spawn\n}\n',
                       signals='"spawn"')


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="Linux only (child subreaper)")
@pytest.mark.parametrize("redirect", [True, False])
def test_setsid_grandchild_of_a_signal_does_not_outlive_the_eval(tmp_path: Path, redirect: bool) -> None:
    marker = f"31{os.getpid() % 1000}.{int(redirect)}{time.monotonic_ns() % 100000}"
    out = ">/dev/null 2>&1 " if redirect else ""
    rulebook = f"signals:\n  spawn:\n    command: \"(setsid sleep {marker} {out}&); echo true\"\n    timeout_seconds: 1\n"
    w = World(tmp_path, {"sig": SIGNAL_POLICY}, rulebook)
    try:
        # without the redirect the daemon holds the signal's stdout open: the signal times out (its
        # group is killed, the daemon in its own session is not in it) and the policy sees the failure
        assert_denied(*w.eval())
        assert _processes_with(f"sleep {marker}") == []
    finally:
        for pid in _processes_with(f"sleep {marker}"):
            os.kill(pid, 9)


def test_signal_past_the_deadline_fails_closed_and_is_killed(tmp_path: Path) -> None:
    marker = f"27{os.getpid() % 1000}.{time.monotonic_ns() % 100000}"
    rulebook = f"signals:\n  spawn:\n    command: \"sleep {marker}\"\n    timeout_seconds: 30\n"
    w = World(tmp_path, {"sig": SIGNAL_POLICY}, rulebook)
    todo = json.dumps({"hook_event_name": "PreToolUse", "session_id": "s", "cwd": str(w.project), "tool": "todowrite",
                       "args": {"todos": []}}).encode()
    assert run(todo, w.project, w.env, ("--timeout", "120"))[1] == 0  # builds the bundle (the deadline covers it)
    resp, code, stderr = w.eval("rm -rf x", "--timeout", "0.5")
    assert_config_error(resp, code, stderr, "deadline")
    assert _processes_with(f"sleep {marker}") == []


# ------------------------------------------------------------------ plugin settings


PLUGIN_DRIVER = """
const { CupcakePlugin } = await import(process.argv[2]);
const hooks = await CupcakePlugin({ client: {}, directory: process.argv[3] },
  { enabled: false, failMode: "open", askMode: "allow", cupcakePath: "/bin/true" });
const before = hooks["tool.execute.before"];
if (!before) { console.log("NO-HOOK"); process.exit(0); }
try {
  await before({ tool: "bash", sessionID: "s", callID: "c" }, { args: { command: "rm -rf secrets" } });
  console.log("ALLOWED");
} catch (e) { console.log("BLOCKED " + e.message.split("\\n").join(" ")); }
"""


def test_opencode_json_plugin_options_cannot_switch_cupcake_off(tmp_path: Path) -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed (make node-deps)")
    from tests.plugin.paths import BUNDLE

    w = World(tmp_path)
    (w.cupcake / "opencode.json").write_text(json.dumps({"cupcakePath": cupcake_command()[0]}))
    if len(cupcake_command()) != 1:
        pytest.skip("no cupcake console script next to the interpreter")
    driver = tmp_path / "driver.mjs"
    driver.write_text(PLUGIN_DRIVER)
    proc = subprocess.run([node, str(driver), BUNDLE.as_uri(), str(w.project)], capture_output=True, text=True,
                          env=w.env, cwd=w.project, timeout=120)
    assert proc.stdout.startswith("BLOCKED") and "no rm" in proc.stdout, (proc.stdout, proc.stderr)


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="Linux only (child subreaper)")
def test_subreaper_only_in_an_armed_process() -> None:
    """`cupcake eval` arms it; a long-lived process (tests, authoring commands) never becomes a
    subreaper, which would collect orphaned zombies it never reaps."""
    import sys

    from cupcake_py.engine import reaper

    assert reaper.become_subreaper() is False  # this pytest process is not armed
    probe = ("import ctypes; from cupcake_py.engine import reaper; reaper.arm(); ok = reaper.become_subreaper(); "
             "libc = ctypes.CDLL(None); v = ctypes.c_int(); libc.prctl(37, ctypes.byref(v), 0, 0, 0); "
             "print(ok, v.value)")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert out.stdout.split() == ["True", "1"], out
