"""Hard-link identities and secrets below read directories (cupcake_py/enrich)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from cupcake_py.enrich import for_policies
from cupcake_py.enrich.secrets_below import scan


def policy_input(cwd: Path, effects: dict[str, list[str]], cfg: dict[str, Any], tool_paths: list[Any] | None = None,
                 commands: list[Any] | None = None) -> dict[str, Any]:
    empty = {k: [] for k in ("reads", "writes", "deletes", "links", "executes")}
    return {"cwd": str(cwd), "builtin_config": cfg, "tool_paths": tool_paths or [],
            "shell": {"effects": {**empty, **effects}, "commands": commands or []}}


def test_a_hard_link_to_a_protected_file_is_the_protected_file(tmp_path: Path) -> None:
    (tmp_path / "secrets").mkdir()
    key = tmp_path / "secrets" / "key.txt"
    key.write_text("k")
    os.link(key, tmp_path / "hl")
    cfg = {"protected_paths": {"paths": ["secrets/"]}}
    inp = policy_input(tmp_path, {"writes": [str(tmp_path / "hl")]}, cfg,
                       [{"path": str(tmp_path / "hl"), "original": "hl", "arg": "args.path", "access": "read"}])
    shared = inp["shell"]["effects"]["writes"]
    for_policies(inp)
    assert inp["shell"]["effects"]["writes"] == [str(tmp_path / "hl"), str(key)]
    assert shared == [str(tmp_path / "hl")], "the enriched event shared between phases is not changed"
    assert inp["tool_paths"][-1] == {"path": str(key), "original": "hl", "arg": "args.path", "access": "read",
                                     "link_of": str(tmp_path / "hl")}
    assert "link_uncertain" not in inp


def test_state_paths_and_secrets_are_roots(tmp_path: Path) -> None:
    state = tmp_path / "state"
    state.mkdir()
    (state / "rulebook.yml").write_text("x")
    os.link(state / "rulebook.yml", tmp_path / "a")
    (tmp_path / ".env").write_text("K=1")
    os.link(tmp_path / ".env", tmp_path / "b")
    cfg = {"rulebook_security_guardrails": {"state_paths": [{"path": str(state), "dir": True}]},
           "sensitive_data_protection": {}}
    inp = policy_input(tmp_path, {"reads": [str(tmp_path / "a"), str(tmp_path / "b")]}, cfg)
    for_policies(inp)
    assert set(inp["shell"]["effects"]["reads"]) >= {str(state / "rulebook.yml"), str(tmp_path / ".env")}


def test_ordinary_files_cost_nothing(tmp_path: Path) -> None:
    (tmp_path / "a").write_text("x")
    inp = policy_input(tmp_path, {"writes": [str(tmp_path / "a"), str(tmp_path / "missing")]}, {})
    for_policies(inp)
    assert inp["shell"]["effects"]["writes"] == [str(tmp_path / "a"), str(tmp_path / "missing")]


def test_unreadable_roots_make_links_uncertain(tmp_path: Path) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    (tmp_path / "f").write_text("x")
    os.link(tmp_path / "f", tmp_path / "g")
    locked.chmod(0)
    try:
        if os.access(locked, os.R_OK):
            pytest.skip("running as root: directory permissions do not apply")
        cfg = {"rulebook_security_guardrails": {"state_paths": [{"path": str(locked), "dir": True}]}}
        inp = policy_input(tmp_path, {"writes": [str(tmp_path / "g")]}, cfg)
        for_policies(inp)
        assert inp["link_uncertain"] == [str(tmp_path / "g")]
    finally:
        locked.chmod(0o700)


def test_secrets_below_read_directories(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text("")
    (tmp_path / ".env").write_text("K=1")
    (tmp_path / "node_modules" / ".x").mkdir(parents=True)
    assert sorted(scan(str(tmp_path))) == [str(tmp_path / ".env")]
    cfg = {"sensitive_data_protection": {}}
    grep = [{"name": "grep", "argv": ["grep", "-r", "x", "."], "cwd": str(tmp_path)}]
    inp = policy_input(tmp_path, {"reads": [str(tmp_path), str(tmp_path / "src")]}, cfg, commands=grep)
    for_policies(inp)
    assert inp["secrets_below"] == {str(tmp_path): [str(tmp_path / ".env")]}
    ls = policy_input(tmp_path, {"reads": [str(tmp_path)]}, cfg, commands=[{"name": "ls", "cwd": str(tmp_path)}])
    for_policies(ls)
    assert "secrets_below" not in ls, "only tree readers make the scan worth its cost"
    rg = policy_input(tmp_path, {}, cfg, commands=[{"name": "rg", "argv": ["rg", "K"], "cwd": str(tmp_path)}])
    for_policies(rg)
    assert rg["secrets_below"] == {str(tmp_path): [str(tmp_path / ".env")]}
