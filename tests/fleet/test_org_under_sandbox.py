"""The org tier's files under the kernel floor (issue 27's sandbox): the org dir and the activated
bundle store are state paths, so even placed inside a root the sandbox makes writable, a command
the reading cannot see through (inline Python) that writes them fails, and they keep their bytes.
Real bubblewrap, the real `cupcake eval`; the command that runs is the one the harness would run."""

from __future__ import annotations

import hashlib
import os
import shlex
from pathlib import Path

from cupcake_py.core import cache_mac
from cupcake_py.fleet import activate, build, opa_bundle
from tests.fleet.helpers import ORG_DENY_CURL, org_config
from tests.sandbox.floor import Project, require_bwrap


def _digest(p: Path) -> str:
    return hashlib.sha256(p.read_bytes()).hexdigest()


def test_org_dir_and_store_keep_their_bytes_inside_a_writable_root(tmp_path: Path, monkeypatch: object) -> None:
    require_bwrap()
    project = Project(tmp_path)
    scratch = project.scratch  # writable inside the sandbox (rulebook `sandbox.writable`)
    org = org_config(scratch / "org", {"curl": ORG_DENY_CURL})
    state = scratch / "state"
    state.mkdir(mode=0o700)
    project.env.update(CUPCAKE_ORG_CONFIG=str(org), XDG_STATE_HOME=str(state))
    # an activated bundle in the store (in-process, the same directories)
    for var in ("XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME", "CUPCAKE_ORG_CONFIG"):
        monkeypatch.setenv(var, project.env[var])  # type: ignore[attr-defined]
    cache_mac.forget()
    try:
        src = org_config(tmp_path / "bundle-src", {"curl": ORG_DENY_CURL})
        record = activate.activate("acme", opa_bundle.write(build.build(str(src), "1", wasm=False).files), None)
    finally:
        cache_mac.forget()
    (org / "fleet.yml").write_text(f"bundles:\n  acme:\n    path: {tmp_path / 'unused.tar.gz'}\n")
    store = state / "cupcake-py/fleet/acme"
    tree_file = store / record["tree"] / "policies/opencode/curl.rego"
    guarded = [org / "policies/opencode/curl.rego", org / "fleet.yml", store / "active", tree_file]
    before = {p: _digest(p) for p in guarded}
    decision, runs, out = project.evaluate("opencode", "true")
    assert decision == "allow" and runs is not None and "-c true " in runs, (decision, out)
    benign = f"python3 -c \"open('{scratch / 'ok.txt'}', 'w').write('ok')\""  # the root is writable ...
    done = project.execute(runs.replace("-c true ", f"-c {shlex.quote(benign)} ", 1))
    assert done.returncode == 0 and (scratch / "ok.txt").read_text() == "ok", done.stderr
    for target in guarded:  # ... but not the org tier's files in it
        attack = f"python3 -c \"open('{target}', 'w').write('pwned')\""
        done = project.execute(runs.replace("-c true ", f"-c {shlex.quote(attack)} ", 1))
        assert done.returncode != 0, (target, done.stdout, done.stderr)
    removal = f"python3 -c \"import shutil; shutil.rmtree('{store}')\""
    project.execute(runs.replace("-c true ", f"-c {shlex.quote(removal)} ", 1))
    assert {p: _digest(p) for p in guarded} == before
    assert os.path.isdir(store / "trees")
    # and the org tier still decides: curl is denied by the org policy (dir and bundle alike)
    decision, _, out = project.evaluate("opencode", "curl http://example.com")
    assert decision == "deny" and "org: no curl" in str(out), out
