"""The profile as data (cupcake_py/sandbox/profile.py, secrets.py) and its bubblewrap arguments
(bwrap.py), without running bubblewrap: what is writable, read-only, hidden, absent; mount order;
`covers`; the sensitive name rules equal to the Rego tables they mirror."""

from __future__ import annotations

import os
import re
import shutil
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cupcake_py.authoring.scaffold import rulebook_text
from cupcake_py.sandbox import secrets
from cupcake_py.sandbox.bwrap import arguments
from cupcake_py.sandbox.profile import compute, git_paths
from cupcake_py.sandbox.sources import Sources
from cupcake_py.sandbox.writable import DEFAULT_WRITABLE

REPO = Path(__file__).resolve().parents[2]


def _tree(tmp_path: Path) -> tuple[Path, Path]:
    home, proj = tmp_path / "home", tmp_path / "proj"
    for d in (home / ".ssh", proj / ".cupcake", proj / ".claude", proj / ".git" / "hooks", proj / "src",
              proj / "deep" / "a" / "b", proj / "node_modules" / "x", home / ".cache" / "cupcake-py"):
        d.mkdir(parents=True)
    (home / ".ssh" / "id_ed25519").write_text("k")
    (proj / ".git" / "config").write_text("[core]\n")
    (proj / ".env").write_text("A=1")
    (proj / ".env.example").write_text("A=")
    (proj / "deep" / "a" / "b" / "service-account.json").write_text("{}")
    (proj / "node_modules" / "x" / ".env").write_text("ignored")
    (proj / "src" / "app.py").write_text("")
    return home, proj


def _profile(tmp_path: Path, **settings: object) -> tuple[dict[str, object], Path, Path]:
    home, proj = _tree(tmp_path)
    state = [{"path": str(proj / ".cupcake"), "kind": "config", "dir": True, "read_protected": False},
             {"path": str(home / ".cache" / "cupcake-py"), "kind": "cache", "dir": True, "read_protected": False}]
    src = Sources(state, [str(proj / "bin")], str(proj), str(proj),
                  {"writable": [str(home / ".cache")], **settings}, home=str(home))
    return compute(src), home, proj


def test_writable_read_only_hidden_absent(tmp_path: Path) -> None:
    p, home, proj = _profile(tmp_path)
    assert p["writable"] == sorted([str(proj), str(home / ".cache")])
    ro = p["read_only"]
    assert isinstance(ro, list)
    for path in (proj / ".cupcake", proj / ".claude", proj / ".git" / "config", proj / ".git" / "hooks",
                 home / ".cache" / "cupcake-py"):
        assert str(path) in ro, path
    hidden = p["hidden"]
    assert isinstance(hidden, list)
    assert str(home / ".ssh") in hidden and str(proj / ".env") in hidden
    assert str(proj / "deep" / "a" / "b" / "service-account.json") in hidden
    assert str(proj / ".env.example") not in hidden  # harmless by the policy's own rule
    assert str(proj / "node_modules" / "x" / ".env") not in hidden  # a dependency's file, not scanned
    absent = {e["path"] for e in p["absent"]}  # type: ignore[attr-defined]
    assert {str(proj / ".mcp.json"), str(proj / "opencode.json"), str(proj / ".opencode")} <= absent
    assert str(proj / ".claude") not in absent  # exists: read-only instead
    assert p["covers"] == {"state_paths": True, "system": True, "secrets": True, "protected_paths": True}


def test_a_writable_root_inside_a_protected_path_is_dropped(tmp_path: Path) -> None:
    home, proj = _tree(tmp_path)
    src = Sources([{"path": str(proj / ".cupcake"), "kind": "config", "dir": True}], [], str(proj), str(proj),
                  {"writable": [str(proj / ".cupcake"), str(home / ".ssh")]}, home=str(home))
    p = compute(src)
    assert str(proj / ".cupcake") not in p["writable"] and str(home / ".ssh") not in p["writable"]


def test_patterns_that_cannot_be_mounted_do_not_claim_cover(tmp_path: Path) -> None:
    home, proj = _tree(tmp_path)
    src = Sources([], [], str(proj), str(proj), {"writable": []}, protected=["*.pem", str(proj / "src") + "/"],
                  sensitive=["~/work/*.key"], home=str(home))
    p = compute(src)
    assert p["covers"]["protected_paths"] is False and p["covers"]["secrets"] is False
    assert str(proj / "src") in p["read_only"]  # the concrete one is still mounted read-only
    concrete = compute(Sources([], [], str(proj), str(proj), {"writable": []}, protected=[str(proj / "src") + "/"],
                               home=str(home)))
    assert concrete["covers"]["protected_paths"] is True


def test_the_python_running_cupcake_is_protected_inside_a_writable_root(tmp_path: Path) -> None:
    home, proj = _tree(tmp_path)
    prefix = Path(sys.prefix)
    p = compute(Sources([], [], str(proj), str(proj), {"writable": [str(prefix.parent)]}, home=str(home)))
    assert str(prefix.resolve()) in p["read_only"]


def test_git_worktree_paths(tmp_path: Path) -> None:
    common = tmp_path / "main" / ".git"
    gitdir = common / "worktrees" / "wt"
    gitdir.mkdir(parents=True)
    (gitdir / "commondir").write_text("../..\n")
    wt = tmp_path / "wt"
    wt.mkdir()
    (wt / ".git").write_text(f"gitdir: {gitdir}\n")
    got = git_paths(str(wt / "sub" / "dir"))
    assert str(wt / ".git") in got and str(gitdir / "config.worktree") in got and str(common / "hooks") in got


def test_nested_roots_and_hidden_paths_are_mounted_once(tmp_path: Path) -> None:
    """A writable root inside another and a hidden path inside a hidden directory add no mount
    (the outer one holds them): fewer mounts, the same view."""
    home, proj = _tree(tmp_path)
    (proj / "build").mkdir()
    src = Sources([], [], str(proj), str(proj), {"writable": [str(proj / "build"), str(home / ".cache")],
                                                 "hidden": [str(home / ".ssh" / "id_ed25519")]}, home=str(home))
    p = compute(src)
    assert p["writable"] == sorted([str(proj), str(home / ".cache")])
    assert str(home / ".ssh") in p["hidden"] and str(home / ".ssh" / "id_ed25519") not in p["hidden"]


def test_links_and_dot_dot_resolve_as_realpath_does(tmp_path: Path) -> None:
    """The profile's paths are where os.path.realpath says they lead (sandbox/lookups.py answers
    from lstat what realpath would), links and `..` included."""
    home, proj = _tree(tmp_path)
    (tmp_path / "elsewhere").mkdir()
    (proj / "linked").symlink_to(tmp_path / "elsewhere")
    (tmp_path / "elsewhere" / ".env").write_text("A=1")
    settings = {"writable": [str(home / ".cache"), str(proj / "linked" / ".." / "src")],
                "read_only": [str(proj / "linked")], "hidden": [str(proj / "linked" / ".env")]}
    p = compute(Sources([], [], str(proj), str(proj), settings, home=str(home)))
    assert str(tmp_path / "elsewhere" / ".env") in p["hidden"]
    assert str(tmp_path / "elsewhere") not in p["read_only"]  # outside every writable root: read-only already


def test_mounts_are_ordered_by_depth_and_protection_comes_last(tmp_path: Path) -> None:
    p, home, proj = _profile(tmp_path)
    args = arguments(p, "/empty")
    assert args[:3] == ["--ro-bind", "/", "/"] and "--cap-drop" in args and "--unshare-pid" in args
    assert "--new-session" in args and "--die-with-parent" in args and "--unshare-net" not in args
    bind_proj = args.index(str(proj), args.index("--bind"))
    assert args.index(str(proj / ".cupcake")) > bind_proj
    i = args.index(str(proj / ".env"))
    assert args[i - 2:i] == ["--ro-bind", "/empty"]
    j = args.index(str(home / ".ssh"))
    assert args[j - 3:j] == ["--perms", "0555", "--tmpfs"]  # an empty directory nobody inside can write
    assert j > max(k for k, a in enumerate(args) if a in ("--bind", "--ro-bind"))  # after every bind
    offline = arguments({**p, "network": False, "share_processes": True}, "/empty")
    assert "--unshare-net" in offline and "--unshare-pid" not in offline


TABLES = (REPO / "policies" / "system" / "tables.rego").read_text()


def _rego_set(name: str) -> set[str]:
    m = re.search(rf"^{name} := \{{(.*?)\}}", TABLES, re.S | re.M)
    assert m, name
    return set(re.findall(r'"([^"]*)"', m.group(1)))


def test_home_persistence_files_mirror_the_rego_table() -> None:
    from cupcake_py.sandbox.profile import HOME_PERSISTENCE

    m = re.search(r"^sys_home_files := \[(.*?)\]", TABLES, re.S | re.M)
    assert m is not None
    assert re.findall(r'"([^"]*)"', m.group(1)) == list(HOME_PERSISTENCE)


def test_the_name_rules_mirror_the_rego_tables() -> None:
    assert _rego_set("sdp_key_exts") == secrets.KEY_EXTS
    assert _rego_set("sdp_text_exts") == secrets.TEXT_EXTS
    assert _rego_set("sdp_secret_names") == secrets.SECRET_NAMES
    assert _rego_set("sdp_secret_words") == secrets.SECRET_WORDS
    assert _rego_set("sdp_harmless_exts") == secrets.HARMLESS_EXTS
    dirs = _rego_set("sdp_secret_dirs")
    for d in secrets.SECRET_DIR_NAMES:
        assert f"/{d}/" in dirs
    for rel in dirs:
        rel = rel.strip("/")
        if rel and not any(rel == n for n in secrets.SECRET_DIR_NAMES) and rel not in ("logins.json", "login data"):
            assert rel in secrets.HOME_SECRETS, rel  # every home secret dir of the table is hidden


@given(st.text(alphabet="abcdeknoprstvy._-", min_size=1, max_size=20))
def test_sensitive_name_agrees_with_the_policy_on_examples(name: str) -> None:
    n = name.lower()
    if n == ".env" or n.startswith(".env.") and not secrets.harmless(n):
        assert secrets.sensitive_name(name)
    if secrets.harmless(n):
        assert not secrets.sensitive_name(name)


def test_the_init_template_lists_the_default_writable_roots() -> None:
    text = rulebook_text("project")
    block = text[text.index("\nsandbox:\n"):text.index("\nbuiltins:")]
    listed = re.search(r"writable: \[(.*?)\]", block, re.S)
    assert listed is not None
    assert [x.strip() for x in listed.group(1).replace("\n", " ").split(",")] == list(DEFAULT_WRITABLE)


def test_parents_of_protected_and_hidden_paths_are_pinned(tmp_path: Path) -> None:
    """`.git` (parent of hooks/config) and the directories above a protected or hidden path
    inside the project become mount points (cannot be renamed); nothing above the writable root,
    nothing for a path outside the project (sockets in /tmp)."""
    home, proj = _tree(tmp_path)
    (proj / "config").mkdir()
    (proj / "config" / "prod.yml").write_text("x")
    src = Sources([], [], str(proj), str(proj), {"writable": [str(home / ".cache")]},
                  protected=[str(proj / "config" / "prod.yml")], home=str(home))
    p = compute(src)
    assert p["pinned"] == [str(proj / ".git"), str(proj / "config"), str(proj / "deep"), str(proj / "deep" / "a"),
                           str(proj / "deep" / "a" / "b")]
    args = arguments(p, "/empty")
    assert args.index(str(proj / ".git")) < args.index(str(proj / ".git" / "hooks"))  # bound before what it holds
    assert args[args.index(str(proj / "config")) - 1] == "--bind"


def test_hooks_path_commondir_and_hook_files_are_read_only_or_absent(tmp_path: Path) -> None:
    home, proj = _tree(tmp_path)
    (proj / ".git" / "config").write_text('[core]\n\tbare = false\n[Core]\n\tHooksPath = "tools/hooks" # ours\n')
    (proj / ".pre-commit-config.yaml").write_text("repos: []\n")
    p = compute(Sources([], [], str(proj), str(proj), {"writable": []}, home=str(home)))
    absent = {e["path"] for e in p["absent"]}
    assert str(proj / ".pre-commit-config.yaml") in p["read_only"]
    assert {str(proj / "tools" / "hooks"), str(proj / ".git" / "commondir"), str(proj / ".husky")} <= absent
    (home / ".gitconfig").write_text("[core]\nhooksPath = ~/hooks\n")
    assert git_paths(str(proj / "src"), str(home))[-1] == str(proj / "tools" / "hooks")  # the repository's wins
    (proj / ".git" / "config").write_text("[core]\n")
    assert git_paths(str(proj), str(home))[-1] == str(home / "hooks")


@pytest.mark.parametrize(("name", "secret"), [
    ("GITHUB_TOKEN", True), ("AWS_SECRET_ACCESS_KEY", True), ("OPENAI_API_KEY", True), ("PGPASSWORD", True),
    ("NPM_CONFIG__AUTH", True), ("DB_PASSWORD", True), ("STRIPE_SECRET_KEY", True), ("GITHUB_PAT", True),
    ("PATH", False), ("HOME", False), ("TOKENIZERS_PARALLELISM", False), ("SSH_AUTH_SOCK", False),
    ("KEYMAP", False), ("PWD", False), ("GIT_ASKPASS", False), ("EDITOR", False),
])
def test_secret_environment_names(name: str, secret: bool) -> None:
    assert secrets.sensitive_env(name) is secret
    env = {name: "v", "LANG": "C"}
    assert secrets.secret_environment(env) == ([name] if secret else [])
    assert secrets.secret_environment(env, [name]) == []  # sandbox.pass_env


def test_pass_env_is_what_every_rulebook_passes() -> None:
    from cupcake_py.engine.sandbox_floor import merge

    both = merge([("global", {"enabled": True, "pass_env": ["A_TOKEN", "B_TOKEN"]}),
                  ("project", {"pass_env": ["B_TOKEN", "C_TOKEN"]})])
    assert both is not None and both["pass_env"] == ["B_TOKEN"]
    assert merge([("global", {"enabled": True}), ("project", {"pass_env": ["C_TOKEN"]})])["pass_env"] == []  # type: ignore[index]
    p = arguments({"writable": [], "read_only": [], "hidden": [], "unset_env": ["A_TOKEN"]}, "/empty")
    assert p[-2:] == ["--unsetenv", "A_TOKEN"]


def test_outside_sockets(tmp_path: Path) -> None:
    """Named in the environment (a path, `unix:path=`), this user's listening sockets of
    /proc/net/unix; not a socket someone else owns, not a connected one, not an abstract one."""
    import os
    import socket

    from cupcake_py.sandbox import sockets

    listening, named = tmp_path / "l.sock", tmp_path / "n.sock"
    servers = []
    for path in (listening, named):
        s = socket.socket(socket.AF_UNIX)
        s.bind(str(path))
        s.listen(1)
        servers.append(s)
    try:
        table = tmp_path / "unix"
        table.write_text("Num RefCount Protocol Flags Type St Inode Path\n"
                         f"0: 00000002 00000000 00010000 0001 01 1 {listening}\n"
                         f"0: 00000002 00000000 00000000 0001 03 2 {named}\n"
                         "0: 00000002 00000000 00010000 0001 01 3 @abstract\n")
        assert sockets.listening_sockets(os.getuid(), str(table)) == [str(listening)]
        assert sockets.listening_sockets(os.getuid() + 1, str(table)) == []
        got = sockets.outside_sockets({"DBUS_SESSION_BUS_ADDRESS": f"unix:path={named},guid=x",
                                       "VSCODE_IPC_HOOK_CLI": str(listening), "NOT": str(tmp_path)})
        assert str(named) in got and str(listening) in got and str(tmp_path) not in got
        assert f"/run/user/{os.getuid()}" in got
    finally:
        for s in servers:
            s.close()


def test_shared_processes_cover_nothing(tmp_path: Path) -> None:
    """A command sharing the user's processes writes through /proc/<pid>/root of any of them
    (tried: the rulebook changed): with share_processes the profile claims no cover."""
    p, _, _ = _profile(tmp_path, share_processes=True)
    assert p["covers"] == {"state_paths": False, "system": False, "secrets": False, "protected_paths": False}


def test_path_programs_mirror_the_rego_table() -> None:
    from cupcake_py.sandbox.profile import PATH_PROGRAMS

    assert _rego_set("guard_path_programs") == set(PATH_PROGRAMS)


def test_red_team_2_paths(tmp_path: Path) -> None:
    """Missing read-only paths of any name are absent, included git config files read-only, links
    on the way to a read-only path recorded (tests/sandbox/test_floor_redteam2.py executes them)."""
    home, proj = _tree(tmp_path)
    shutil.rmtree(proj / ".git" / "hooks", ignore_errors=True)
    (proj / "gitconfig.inc").write_text("[alias]\n\tst = status\n")
    (proj / ".git" / "config").write_text("[include]\n\tpath = ../gitconfig.inc\n[includeIf \"gitdir:/x/\"]\n\tpath = more.inc\n")
    dotfiles = tmp_path / "dotfiles"
    dotfiles.mkdir()
    if (proj / ".claude").exists():
        shutil.rmtree(proj / ".claude")
    (proj / ".claude").symlink_to(dotfiles)
    (proj / "sub").mkdir(exist_ok=True)
    src = Sources([{"path": str(proj / ".claude"), "kind": "agent_config", "dir": True}], [str(proj / "bin")],
                  str(proj), str(proj / "sub"), {"writable": [], "read_only": ["vendor/x.js"]},
                  protected=[str(proj / "deploy" / "prod.yml")], home=str(home))
    p = compute(src)
    absent = {e["path"] for e in p["absent"]}
    for missing in (".git/hooks", "deploy/prod.yml", "vendor/x.js", "bin/git", "bin/bash", "bin/cupcake",
                    "sub/.claude", ".git/more.inc"):
        assert str(proj / missing) in absent, missing
    assert str(proj / "gitconfig.inc") in p["read_only"]
    assert p["links"] == [{"path": str(proj / ".claude"), "text": str(dotfiles), "target": str(dotfiles)}]


def test_a_writable_home_keeps_its_missing_start_up_files_absent(tmp_path: Path) -> None:
    home, proj = _tree(tmp_path)
    p = compute(Sources([], [], str(proj), str(proj), {"writable": [str(home)]}, home=str(home)))
    absent = {e["path"] for e in p["absent"]}
    for rel in (".bashrc", ".profile", ".gitconfig", ".local/bin", ".claude.json"):
        assert str(home / rel) in absent or (home / rel).exists(), rel


def test_existing_submodules_git_files_are_read_only(tmp_path: Path) -> None:
    home, proj = _tree(tmp_path)
    lib = proj / ".git" / "modules" / "lib"
    (lib / "hooks").mkdir(parents=True)
    (lib / "HEAD").write_text("ref: refs/heads/main\n")
    (lib / "config").write_text("[core]\n")
    (proj / "old" / ".git" / "hooks").mkdir(parents=True)
    (proj / "old" / ".git" / "config").write_text("[core]\n")
    (proj / ".gitmodules").write_text('[submodule "old"]\n\tpath = old\n[submodule "lib"]\n\tpath = lib\n')
    p = compute(Sources([], [], str(proj), str(proj), {"writable": []}, home=str(home)))
    for path in (lib / "config", lib / "hooks", proj / "old" / ".git" / "config", proj / "old" / ".git" / "hooks"):
        assert str(path) in p["read_only"], path


def test_a_default_tool_cache_is_created_and_bound_only_where_a_tool_fills_it(tmp_path: Path) -> None:
    """The default `sandbox.writable` caches: a missing one is created (and bound writable) only when
    a program that fills it is on PATH or its wrapper script is in the project root; an existing
    one is bound whatever is installed; a cache no tool here fills costs no mount and leaves the
    home untouched. A path that is not a default cache is created as configured."""
    home, proj = tmp_path / "home", tmp_path / "proj"
    bin_dir = tmp_path / "bin"
    for d in (home, proj, bin_dir, home / ".cargo" / "git"):
        d.mkdir(parents=True)
    (bin_dir / "npm").write_text("#!/bin/sh\n")
    (bin_dir / "npm").chmod(0o755)
    (bin_dir / "cargo").write_text("not executable")  # not a program: does not count
    (proj / "gradlew").write_text("#!/bin/sh\n")
    (proj / "gradlew").chmod(0o755)
    p = compute(Sources([], [str(bin_dir)], str(proj), str(proj),
                        {"writable": [*DEFAULT_WRITABLE[2:], "~/.own-cache"]}, home=str(home)))
    made = {str(home / n) for n in (".npm", ".gradle/caches", ".cargo/git", ".cache", ".own-cache")}
    env_tmp = {os.path.realpath(os.environ[v]) for v in ("TMPDIR", "TMP", "TEMP") if os.environ.get(v, "").startswith("/")}
    assert set(p["writable"]) - env_tmp == made | {str(proj)}
    assert all(Path(m).is_dir() for m in made)
    for missing in (".yarn", ".pnpm-store", ".cargo/registry", "go", ".m2", ".bun", ".local"):
        assert not (home / missing).exists(), missing
