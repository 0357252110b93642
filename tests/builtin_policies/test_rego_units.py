"""The Rego unit tests of the shipped builtins (policies/builtins/*_test.rego), compiled by our
pipeline and run under wasmtime; every `test_*` rule must be true."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.builtin_policies.rego_units import POLICIES, run_file, unit_test_files

FILES = unit_test_files()


def test_every_builtin_has_unit_tests() -> None:
    builtins = {p.stem for p in (POLICIES / "builtins").glob("*.rego") if not p.stem.endswith("_test")}
    tested = {p.stem.removesuffix("_test") for p in FILES}
    assert builtins <= tested, f"builtins without *_test.rego: {sorted(builtins - tested)}"


@pytest.mark.parametrize("test_file", FILES, ids=[p.stem for p in FILES])
def test_rego_unit_file(test_file: Path) -> None:
    outcomes = run_file(test_file)
    assert len(outcomes) >= 3, "a test file should test allow and block cases and bypass attempts"
    failed = [(o.name, o.value) for o in outcomes if not o.passed]
    assert not failed, failed


def test_shipped_unit_tests_pass_through_cupcake_test() -> None:
    """The same files through the user-facing runner (`cupcake test policies --format json`)."""
    import json
    import subprocess

    from cupcake_py.harness.opencode.examples import cupcake_command

    proc = subprocess.run([*cupcake_command(), "test", str(POLICIES), "--format", "json"], capture_output=True,
                          timeout=600)
    report = json.loads(proc.stdout)  # opa test's JSON report: one object per test
    per_file = {r["location"]["file"].rsplit("/", 1)[-1] for r in report}
    assert {f.name for f in FILES} <= per_file
    bad = [r["name"] for r in report if r.get("fail") or r.get("error")]
    assert not bad and sum(1 for r in report if not r.get("skip")) >= 3 * len(FILES)
    assert proc.returncode == 0
