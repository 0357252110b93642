"""`cupcake check` stays clean on everything we ship and on OPA's compliance modules, and the
compile checks never raise anything but RegoErrors (hypothesis: random, mutated and
generated-then-broken sources go through parse_module AND check_modules)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cupcake_py.rego import parse_module
from cupcake_py.rego.check import check_paths
from cupcake_py.rego.compile import check_modules, compile_modules
from cupcake_py.rego.errors import CODES, MAX_ERRORS, RegoErrors
from tests.compliance.suite import DEFAULT_SUITE

ROOT = Path(__file__).resolve().parents[2]
SUITE = DEFAULT_SUITE  # $CUPCAKE_COMPLIANCE_SUITE or <repo>/../shared/rego-compliance/v1
SETTINGS = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _suite_module_sets() -> list[tuple[str, list[str]]]:
    out = []
    for f in sorted(SUITE.glob("*/*.json")):
        for c in json.loads(f.read_text())["cases"]:
            if c.get("modules"):
                out.append((c["note"], c["modules"]))
    return out


SUITE_SETS = _suite_module_sets()
CORPUS = [m for _, mods in SUITE_SETS for m in mods] + [p.read_text() for p in sorted((ROOT / "policies").rglob(
    "*.rego"))]
ALPHABET = "abxyz_019 .,;:=!<>+-*/%&|()[]{}\"`$\\#\n\tifnotsomeeverywithascontainselsedefaultinputdata"


def test_shipped_policies_check_clean() -> None:
    errors, _, count = check_paths([ROOT / "policies"])
    assert count >= 10
    assert errors == [], "\n".join(map(str, errors))


def test_every_compliance_module_set_checks_clean() -> None:
    assert len(SUITE_SETS) > 1000
    failed = []
    for note, mods in SUITE_SETS:
        errors = check_modules([parse_module(text, f"{note}#{i}.rego") for i, text in enumerate(mods)])
        if errors:
            failed.append(f"{note}: {errors[0]}")
    assert failed == [], "\n".join(failed[:20])


def _checked_or_rego_errors(text: str) -> None:
    try:
        module = parse_module(text, "fuzz.rego")
    except RegoErrors:
        return
    errors = check_modules([module])
    assert len(errors) <= MAX_ERRORS
    for e in errors:
        assert e.code in CODES and e.location is not None, e
        # compiler-generated names never leak (a name the source itself spells is the user's)
        for leaked in re.findall(r"__local\w*|__t\w*", e.message):
            assert leaked in text, e
    if not errors:
        compile_modules([module])  # what check accepts, compile accepts


@st.composite
def mutated(draw: st.DrawFn) -> str:
    text = draw(st.sampled_from(CORPUS))
    for _ in range(draw(st.integers(1, 3))):
        i = draw(st.integers(0, len(text)))
        j = draw(st.integers(i, min(len(text), i + 10)))
        op = draw(st.sampled_from(["delete", "insert", "duplicate", "replace"]))
        if op == "delete":
            text = text[:i] + text[j:]
        elif op == "insert":
            text = text[:i] + draw(st.text(alphabet=ALPHABET, min_size=1, max_size=6)) + text[i:]
        elif op == "duplicate":
            text = text[:j] + text[i:j] + text[j:]
        else:
            text = text[:i] + draw(st.text(alphabet=ALPHABET, max_size=4)) + text[j:]
    return text


@SETTINGS
@given(mutated())
def test_mutated_sources_only_rego_errors_through_check(text: str) -> None:
    _checked_or_rego_errors(text)


BODY_PARTS = ["x := input.a", "y = x", "not z", "count(x, 2) > 1", "some k", "k := 1", "w := [v | v := xs[_]]",
              "f(x, y)", "g(1)", "x with input as y", "every e in xs { e > q }", "input := 1", "p", "q[x]",
              "print(u)", "s := $\"{t}\"", "data.a[x] == 1", "some i, j in x", "1 := x"]


@SETTINGS
@given(st.lists(st.sampled_from(BODY_PARTS), min_size=1, max_size=5),
       st.sampled_from(["p if", "p := x if", "q contains x if", "f(x) := y if", "default p := 1\np if"]))
def test_generated_bodies_only_rego_errors_through_check(parts: list[str], head: str) -> None:
    src = "package a\n\n" + head + " {\n\t" + "\n\t".join(parts) + "\n}\n"
    _checked_or_rego_errors(src)


@SETTINGS
@given(st.text(alphabet=ALPHABET, max_size=120))
def test_random_bodies_only_rego_errors_through_check(noise: str) -> None:
    _checked_or_rego_errors("package a\n\np if {\n\t" + noise + "\n}\n")
