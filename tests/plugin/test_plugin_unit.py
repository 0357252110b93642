"""Runs the plugin's own test suite (`npm test` in plugin-ts: typecheck, bundle-is-fresh check, node --test)."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

from .paths import BUNDLE, OPENCODE_BIN, PLUGIN_TS


def _run_in_own_tmpdir(cmd: list[str], tmp_path: Path, env: dict[str, str] | None = None) -> str:
    """Run `cmd` in plugin-ts with TMPDIR pointed at the empty `tmp_path` (the tests make their temp projects
    under os.tmpdir()) and fail when the run leaves anything there: every test must remove what it creates."""
    tmp = tmp_path / "tmpdir"
    tmp.mkdir()
    # A private, empty global config and state: a global rulebook other tests of this session made (with the
    # sandbox floor on, say) must not change the decisions the plugin's tests expect.
    for sub in ("xdg-config", "xdg-state"):
        (tmp_path / sub).mkdir()
    proc = subprocess.run(
        cmd,
        cwd=PLUGIN_TS,
        env={**(env or os.environ), "TMPDIR": str(tmp), "XDG_CONFIG_HOME": str(tmp_path / "xdg-config"),
             "XDG_STATE_HOME": str(tmp_path / "xdg-state")},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-6000:]
    left = sorted(p.name for p in tmp.iterdir())
    assert not left, f"the plugin tests left {len(left)} entries in their TMPDIR: {left[:10]}"
    return out


def test_npm_test_passes(npm: str, tmp_path: Path) -> None:
    out = _run_in_own_tmpdir([npm, "test", "--silent"], tmp_path)
    passed = re.search(r"^# pass (\d+)$", out, re.M)
    failed = re.search(r"^# fail (\d+)$", out, re.M)
    assert passed and failed, out[-3000:]
    assert int(failed.group(1)) == 0
    assert int(passed.group(1)) >= 40, f"only {passed.group(1)} node tests ran"


def test_unit_tests_pass_on_opencodes_own_runtime(tmp_path: Path) -> None:
    """The same suite under the Bun embedded in the pinned OpenCode binary (BUN_BE_BUN=1), the plugin's real runtime."""
    out = _run_in_own_tmpdir([str(OPENCODE_BIN), "test", "./test/"], tmp_path, {**os.environ, "BUN_BE_BUN": "1"})
    summary = re.search(r"^ (\d+) pass\n (\d+) fail$", out, re.M)
    assert summary, out[-3000:]
    assert int(summary.group(2)) == 0
    assert int(summary.group(1)) >= 40, f"only {summary.group(1)} tests ran under bun"


def test_bundle_is_package_data() -> None:
    from importlib.resources import files

    shipped = files("cupcake_py.harness.opencode").joinpath("plugin", "cupcake.js")
    assert shipped.is_file()
    assert shipped.read_text(encoding="utf-8") == BUNDLE.read_text(encoding="utf-8")
