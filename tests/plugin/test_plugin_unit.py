"""Runs the plugin's own test suite (`npm test` in plugin-ts: typecheck, bundle-is-fresh check, node --test)."""

from __future__ import annotations

import os
import re
import subprocess

from .paths import BUNDLE, OPENCODE_BIN, PLUGIN_TS


def test_npm_test_passes(npm: str) -> None:
    proc = subprocess.run(
        [npm, "test", "--silent"], cwd=PLUGIN_TS, capture_output=True, text=True, timeout=300, check=False
    )
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-6000:]
    passed = re.search(r"^# pass (\d+)$", out, re.M)
    failed = re.search(r"^# fail (\d+)$", out, re.M)
    assert passed and failed, out[-3000:]
    assert int(failed.group(1)) == 0
    assert int(passed.group(1)) >= 40, f"only {passed.group(1)} node tests ran"


def test_unit_tests_pass_on_opencodes_own_runtime() -> None:
    """The same suite under the Bun embedded in the pinned OpenCode binary (BUN_BE_BUN=1), the plugin's real runtime."""
    env = {**os.environ, "BUN_BE_BUN": "1"}
    proc = subprocess.run(
        [str(OPENCODE_BIN), "test", "./test/"],
        cwd=PLUGIN_TS,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-6000:]
    summary = re.search(r"^ (\d+) pass\n (\d+) fail$", out, re.M)
    assert summary, out[-3000:]
    assert int(summary.group(2)) == 0
    assert int(summary.group(1)) >= 40, f"only {summary.group(1)} tests ran under bun"


def test_bundle_is_package_data() -> None:
    from importlib.resources import files

    shipped = files("cupcake_py.harness.opencode").joinpath("plugin", "cupcake.js")
    assert shipped.is_file()
    assert shipped.read_text(encoding="utf-8") == BUNDLE.read_text(encoding="utf-8")
