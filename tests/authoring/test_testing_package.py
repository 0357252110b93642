"""The `cupcake test` runner is the package cupcake_py/authoring/testing/ (issue 34): no product
module of authoring/ or of the runner is named like a test (test_*.py), which every tool and
reader would take for one. (Import cycles inside it: tests/architecture/test_import_cycles.py.)"""

from __future__ import annotations

from pathlib import Path

AUTHORING = Path(__file__).resolve().parents[2] / "cupcake_py" / "authoring"


def test_no_runner_module_is_named_like_a_test() -> None:
    runner = AUTHORING / "testing"
    assert {"runner.py", "cases.py", "cache.py", "evaluate.py", "output.py"} <= {p.name for p in runner.glob("*.py")}
    assert not [p.name for p in [*AUTHORING.glob("test_*.py"), *runner.glob("test_*.py")]]
