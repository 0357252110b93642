"""A Rego v0 admission-control library runs unchanged with --v0-compatible (issue 32).

benches/admission_corpus.py writes a library shaped like the ones admission controllers ship:
one directory per template, pre-1.0 syntax throughout, shared helpers under lib/, deprecated
builtins, a few `future.keywords` imports, a template carrying a large schema literal. Its CI
runs one test process per template directory; so does this test (in process, one run per
directory, plus the real command line for one). Every test passes with cupcake, and every test
rule is also true under regorus's v0 mode (on the variant without deprecated builtins, which
regorus lacks), so the expectations are OPA's semantics, not ours."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from cupcake_py.authoring.testing.cases import TestOptions
from cupcake_py.authoring.testing.runner import run_tests
from cupcake_py.rego import versions

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benches"))
from admission_corpus import generate, template_dirs  # noqa: E402

TEMPLATES = 7  # one of each kind, the last one with the schema literal


@pytest.mark.parametrize("deprecated", [True, False])
def test_every_template_directory_passes_unchanged(tmp_path: Path, deprecated: bool) -> None:
    counts = generate(tmp_path, TEMPLATES, deprecated=deprecated)
    ran = 0
    with versions.use(versions.V0_COMPATIBLE):
        for d in template_dirs(tmp_path):
            run = run_tests([tmp_path / "lib", d], TestOptions(cache=False, parallel=1))
            assert run.ok and run.results, (d, [(r.case.name, r.status, r.message) for r in run.results])
            ran += len(run.results)
    assert ran == counts["tests"]
    with pytest.raises(Exception, match="keyword is required"):  # the same files are refused as v1
        run_tests([tmp_path / "lib", template_dirs(tmp_path)[0]], TestOptions(cache=False, parallel=1))


def test_the_command_line_runs_one_template_directory(tmp_path: Path) -> None:
    generate(tmp_path, TEMPLATES)
    d = template_dirs(tmp_path)[0]
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / ".cache")}
    proc = subprocess.run([sys.executable, "-m", "cupcake_py", "test", "--v0-compatible", "lib", str(d)],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert re.search(r"PASS: (\d+)/\1", proc.stdout)


def test_regorus_v0_agrees_with_every_test(tmp_path: Path) -> None:
    regorus = pytest.importorskip("regorus")
    generate(tmp_path, TEMPLATES, deprecated=False)
    failing = []
    for d in template_dirs(tmp_path):
        engine = regorus.Engine()
        engine.set_rego_v0(True)
        for f in [*sorted((tmp_path / "lib").glob("*.rego")), d / "src.rego", d / "src_test.rego"]:
            engine.add_policy(str(f), f.read_text())
        text = (d / "src_test.rego").read_text()
        pkg = re.search(r"^package (\S+)", text, re.M)
        assert pkg is not None
        for name in re.findall(r"^(test_\w+)", text, re.M):
            if engine.eval_rule(f"data.{pkg.group(1)}.{name}") is not True:
                failing.append(f"{d.name}.{name}")
    assert not failing
