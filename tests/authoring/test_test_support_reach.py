"""`cupcake test` leaves the shipped support policies (policies/system) out of a run whose modules
cannot reach them (authoring/support_policies.may_reach_support): their parse and compile were
most of a small template's first run (docs/testing.md "Start-up"). Left out or not, the tests
give the same results and the test module the same bytes; a module that can reach them (a
`data.cupcake…`, `data[x]` or bare `data` read, a package under `cupcake`) still gets them."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from cupcake_py.authoring.support_policies import may_reach_support, support_modules
from cupcake_py.authoring.testing.build import compile_wasm
from cupcake_py.authoring.testing.loading import discover, load_modules
from cupcake_py.authoring.testing.runner import run_tests
from cupcake_py.rego import versions

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(("text", "reaches"), [
    ("import data.lib.helpers\nx := data.lib.y", False),
    ("x := input.review.object.metadata.name", False),  # `metadata`, `.data`: not the root document
    ("x := input.data.y", False),
    ("data_x := 1", False),
    ("x := data.cupcakes.y", False),
    ("x := data.cupcake.system.tables.sys_privileged", True),
    ("x := data .cupcake", True),
    ("x := data[k]", True),
    ("x := data", True),
    ("import data", True),
    ("some k in data\n", True),
    ("walk(data, [p, v])", True),
    ('msg := "no data here"', True),  # text in strings and comments counts: it only errs towards "yes"
])
def test_what_can_reach_the_support_policies(text: str, reaches: bool) -> None:
    assert may_reach_support(["p"], [f"package p\n\n{text}\n"]) is reaches


def test_a_package_under_cupcake_reaches_them() -> None:
    assert may_reach_support(["cupcake.policies.x"], ["package cupcake.policies.x\n"])
    assert not may_reach_support(["cupcakes.x"], ["package cupcakes.x\n"])


def _write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def test_left_out_only_when_unreachable_and_tests_still_see_them_when_reached(tmp_path: Path) -> None:
    plain = _write(tmp_path / "plain", {"p.rego": "package p\n\nallow if input.user == \"admin\"\n",
                                        "p_test.rego": "package p\n\ntest_allow if allow with input as {\"user\": \"admin\"}\n"})
    modules, _, own = load_modules([plain])
    assert own == len(modules) == 2
    uses = _write(tmp_path / "uses", {"q_test.rego": "package q\n\ntest_privileged if {\n"
                                      "\t\"sudo\" in data.cupcake.system.tables.sys_privileged\n}\n"})
    modules, _, own = load_modules([uses])
    assert own == 1 and len(modules) > 1
    run = run_tests([uses], cache=False)
    assert [r.status for r in run.results] == ["pass"]


def test_same_test_module_bytes_without_them(tmp_path: Path) -> None:
    sys.path.insert(0, str(REPO / "benches"))
    try:
        from admission_corpus import generate, template_dirs
    finally:
        sys.path.remove(str(REPO / "benches"))
    generate(tmp_path, 4)
    with versions.use(versions.V0_COMPATIBLE):
        for d in template_dirs(tmp_path):
            modules, _, own = load_modules([tmp_path / "lib", d])
            assert own == len(modules)  # nothing of the library reaches them
            tests = [t.entrypoint for t in discover(modules, None, own)[0]]
            assert tests
            with_support = modules + support_modules(set())
            assert compile_wasm(modules, tests, {}) == compile_wasm(with_support, tests, {})
