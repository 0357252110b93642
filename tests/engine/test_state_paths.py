"""cupcake's own state paths (input.builtin_config.rulebook_security_guardrails.state_paths and
path_dirs; contract in the helpers' SHELL_CONTRACT): what the guardrails must protect."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cupcake_py.engine.project import PACKAGE_DIR, ConfigDir
from cupcake_py.engine.state_paths import guardrails_input
from tests import fs_ops

KINDS = {"config", "cache", "key", "plugin", "agent_config", "executable", "state"}


@pytest.fixture()
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for var, sub in (("HOME", "home"), ("XDG_CONFIG_HOME", "home/.config"), ("XDG_CACHE_HOME", "home/.cache"),
                     ("XDG_STATE_HOME", "home/.local/state")):
        monkeypatch.setenv(var, str(tmp_path / sub))
    monkeypatch.delenv("OPENCODE_CONFIG_DIR", raising=False)
    monkeypatch.delenv("OPENCODE_CONFIG", raising=False)
    return tmp_path


def _by_path(out: dict[str, object]) -> dict[str, dict[str, object]]:
    return {e["path"]: e for e in out["state_paths"]}  # type: ignore[attr-defined,index]


def test_every_kind_is_listed_with_the_contract_shape(env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bin_dir = env / "bin"
    bin_dir.mkdir()
    (bin_dir / "cupcake").write_text("#!/bin/sh\n")
    monkeypatch.setenv("PATH", f"relative/dir:{bin_dir}:/usr/bin:{bin_dir}")
    proj = ConfigDir("project", env / "p/.cupcake", env / "p")
    out = guardrails_input(proj, None, str(env / "p/sub"))
    paths = _by_path(out)
    for entry in out["state_paths"]:  # type: ignore[attr-defined]
        assert set(entry) == {"path", "kind", "dir", "read_protected"} and entry["kind"] in KINDS
        assert os.path.isabs(entry["path"])
    assert {e["kind"] for e in paths.values()} == KINDS
    home = env / "home"
    expect = {
        str(env / "p/.cupcake"): ("config", True, False),
        str(env / "p/sub/.cupcake"): ("config", True, False),  # the event's cwd too
        str(home / ".config/cupcake"): ("config", True, False),
        str(home / ".config/cupcake/cache.key"): ("key", False, True),
        str(home / ".cache/cupcake-py"): ("cache", True, False),
        str(home / ".local/state/cupcake-py"): ("state", True, False),
        str(env / "p/.opencode/plugin"): ("plugin", True, False),
        str(env / "p/.opencode/tool"): ("plugin", True, False),
        str(home / ".config/opencode/plugins"): ("plugin", True, False),
        str(env / "p/opencode.json"): ("agent_config", False, False),
        str(env / "p/opencode.jsonc"): ("agent_config", False, False),
        str(home / ".config/opencode/opencode.json"): ("agent_config", False, False),
        str(bin_dir / "cupcake"): ("executable", False, False),  # the first `cupcake` on PATH
        PACKAGE_DIR: ("executable", True, False),
    }
    for path, (kind, is_dir, read_protected) in expect.items():
        assert path in paths, path
        assert (paths[path]["kind"], paths[path]["dir"], paths[path]["read_protected"]) == (kind, is_dir,
                                                                                             read_protected), path
    # de-duplicated, in order; a relative entry below the working directory (the harness finds
    # `cupcake` there too: a file the agent puts there would run outside the sandbox)
    assert out["path_dirs"] == [os.path.join(os.getcwd(), "relative/dir"), str(bin_dir), "/usr/bin"]
    assert sys.executable in paths or os.path.realpath(sys.executable) in paths


def test_custom_builtin_code_is_state(env: Path) -> None:
    paths = _by_path(guardrails_input(None, None, str(env), [str(env / "ext/builtins.py")]))
    assert paths[str(env / "ext/builtins.py")]["kind"] == "executable"


def test_symlinked_locations_are_listed_resolved_too(env: Path) -> None:
    real = env / "real-project"
    (real / ".cupcake").mkdir(parents=True)
    (env / "link").symlink_to(real)
    proj = ConfigDir("project", env / "link/.cupcake", env / "link")
    paths = _by_path(guardrails_input(proj, None, str(env / "link")))
    assert str(env / "link/.cupcake") in paths and str(real / ".cupcake") in paths


def test_opencode_environment_overrides_are_state(env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENCODE_CONFIG_DIR", str(env / "oc"))
    monkeypatch.setenv("OPENCODE_CONFIG", str(env / "oc.json"))
    glob = ConfigDir("global", env / "g", env / "g")
    paths = _by_path(guardrails_input(None, glob, str(env / "w")))
    assert paths[str(env / "oc/plugin")]["kind"] == "plugin"
    assert paths[str(env / "oc.json")]["kind"] == "agent_config"
    assert paths[str(env / "g")]["kind"] == "config"  # --global-config DIR
    assert paths[str(env / "w/.cupcake")]["kind"] == "config"  # no project: where one would be found


def test_engine_sources_inside_the_project_are_the_projects_files(env: Path) -> None:
    """Developing cupcake-py under cupcake: its own checkout is ordinary project files."""
    repo = os.path.dirname(PACKAGE_DIR)
    inside = _by_path(guardrails_input(ConfigDir("project", repo + "/.cupcake", repo), None, repo))
    outside = _by_path(guardrails_input(None, None, str(env)))
    assert PACKAGE_DIR not in inside and PACKAGE_DIR in outside


# -- one lstat per distinct component (state_paths._Resolver): the answers of os.path.realpath --

def _tree(root: Path) -> list[str]:
    """A directory tree with every kind of link realpath has to follow (and the paths to ask about)."""
    (root / "a/b/c").mkdir(parents=True)
    (root / "file").write_text("x")
    (root / "abs-link").symlink_to(root / "a/b")  # absolute target
    (root / "a/rel-link").symlink_to("b/c")  # relative target
    (root / "a/b/up-link").symlink_to("../..")  # target with ..
    (root / "chain").symlink_to("abs-link")  # link to a link
    (root / "dangling").symlink_to(root / "missing/deeper")
    (root / "loop1").symlink_to("loop2")
    (root / "loop2").symlink_to("loop1")
    (root / "self").symlink_to("self")
    names = ["a", "a/b", "a/b/c", "file", "file/under-a-file", "abs-link", "abs-link/c", "a/rel-link",
             "a/rel-link/x", "a/b/up-link", "a/b/up-link/a/b", "chain/c/d", "dangling", "dangling/x", "loop1",
             "loop1/x", "self/x", "missing", "missing/x/y", "a/b/c/new/file"]
    return [str(root / n) for n in names]


def test_resolver_answers_what_realpath_answers(tmp_path: Path) -> None:
    from cupcake_py.engine.state_paths import Resolver

    paths = _tree(tmp_path) + ["/", "//", "//tmp", "/proc/self/cwd/x", os.path.normpath(sys.executable)]
    resolver = Resolver()  # one resolver for all: parents resolved for one path serve the next ones
    for p in paths + paths[::-1]:
        assert resolver.real(p) == os.path.realpath(p), p


@given(st.lists(st.sampled_from(["a", "b", "l", "m", "x"]), min_size=1, max_size=5), st.integers(0, 3))
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_resolver_matches_realpath_on_generated_paths(tmp_path: Path, parts: list[str], seed: int) -> None:
    """Paths through directories, links to directories, links up the tree and missing names."""
    from cupcake_py.engine.state_paths import Resolver

    root = tmp_path / f"t{seed}"
    if not root.exists():
        (root / "a/b/a").mkdir(parents=True)
        (root / "a/l").symlink_to("b" if seed % 2 else str(root / "a"))
        (root / "m").symlink_to("a/l/../b" if seed < 2 else "m")
    p = os.path.join(str(root), *parts)
    assert Resolver().real(p) == os.path.realpath(p)


def test_a_link_made_between_evaluations_is_seen_by_the_next_one(env: Path) -> None:
    """Adversarial: nothing is remembered across evaluations; the agent points the global OpenCode
    dir (not itself a state path) at a directory of its choosing: its plugin dir there is state at once."""
    home_cfg = env / "home/.config"
    home_cfg.mkdir(parents=True)
    before = _by_path(guardrails_input(None, None, str(env)))
    elsewhere = env / "elsewhere"
    elsewhere.mkdir()
    (home_cfg / "opencode").symlink_to(elsewhere)
    after = _by_path(guardrails_input(None, None, str(env)))
    assert str(elsewhere / "plugin") not in before
    assert after[str(elsewhere / "plugin")]["kind"] == "plugin"
    assert after[str(elsewhere / "opencode.json")]["kind"] == "agent_config"
    (home_cfg / "opencode").unlink()
    (home_cfg / "opencode").symlink_to(env / "third")
    again = _by_path(guardrails_input(None, None, str(env)))
    assert str(env / "third/plugin") in again and str(elsewhere / "plugin") not in again


# -- the serve-mode resolver (engine/warm.py): link-free answers kept while nothing changed --

OPS = fs_ops.ops(("mkdir", "link-abs", "link-rel", "link-up", "remove", "rename", "file", "chmod"), depth=3)


@given(st.lists(OPS, min_size=1, max_size=12))
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_warm_resolver_follows_every_change(tmp_path: Path, ops: list[tuple[str, list[str], str]]) -> None:
    """Adversarial: whatever is created, linked, removed or renamed between two evaluations, the
    server's resolver answers what realpath answers at that moment (no stale memo)."""
    import tempfile

    from cupcake_py.engine.warm import WarmSource

    root = Path(tempfile.mkdtemp(dir=tmp_path))
    queries = [str(root.joinpath(*q)) for q in ([], ["a"], ["a", "b"], ["a", "b", "c"], ["b", "a"], ["c", "c"],
                                                 ["a", "c", "b"], ["b", "b", "b", "x"])]
    src = WarmSource(1 << 26)
    for op, where, other in ops:
        r = src.path_resolver()
        assert [r.real(q) for q in queries] == [os.path.realpath(q) for q in queries]
        fs_ops.apply(root, op, where, other)
    r = src.path_resolver()
    assert [r.real(q) for q in queries] == [os.path.realpath(q) for q in queries]


def test_warm_resolver_is_kept_while_nothing_changes(env: Path) -> None:
    """Benign: repeated evaluations reuse one resolver; a link made anywhere on the way starts a new one."""
    from cupcake_py.engine.warm import WarmSource

    src = WarmSource(1 << 26)
    proj = ConfigDir("project", env / "p/.cupcake", env / "p")
    (env / "p/.cupcake").mkdir(parents=True)
    first = guardrails_input(proj, None, str(env / "p"), resolver=src.path_resolver())
    for _ in range(5):
        assert guardrails_input(proj, None, str(env / "p"), resolver=src.path_resolver()) == first
    assert src.resolvers == 1
    (env / "elsewhere").mkdir()
    (env / "p/.opencode").symlink_to(env / "elsewhere")
    after = _by_path(guardrails_input(proj, None, str(env / "p"), resolver=src.path_resolver()))
    assert src.resolvers == 2
    assert after[str(env / "elsewhere/plugin")]["kind"] == "plugin"
