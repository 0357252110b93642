"""OPA compliance cases that are direct calls of native builtins on constants, run
against runtime.wasm (see compliance_calls.py for the accepted shapes)."""

from __future__ import annotations

import pytest

from cupcake_py.core.values import sort_key

from . import compliance_calls as cc
from .harness import Runtime

TOPICS = {
    "strings": ["strings", "trim", "trimleft", "trimprefix", "trimright", "trimspace", "trimsuffix",
                "replacen"],
    "numbers": ["arithmetic", "casts", "numbersrange", "comparisonexpr"],
    "aggregates": ["aggregates", "typebuiltin", "typenamebuiltin"],
    "collections": ["array", "sets", "union", "intersection", "objectfilter", "objectfilteridempotent",
                    "objectfilternonstringkey", "objectget", "objectkeys", "objectremove",
                    "objectremoveidempotent", "objectremovenonstringkey", "objectunion"],
    "encoding": ["base64builtins", "base64urlbuiltins", "jsonbuiltins", "jsonfilter",
                 "jsonfilteridempotent", "jsonremove", "jsonremoveidempotent"],
    "bits": ["bitsand", "bitsnegate", "bitsor", "bitsshiftleft", "bitsshiftright", "bitsxor"],
    "net": ["netcidrcontains", "netcidrintersects"],
    "graph": ["reachable", "walkbuiltin"],
}

CASES = {family: cc.load(topics)[0] for family, topics in TOPICS.items()}


def normalize(v: object, sort: bool) -> object:
    if sort and isinstance(v, list):
        return sorted(v, key=sort_key)
    return v


def check(rt: Runtime, case: cc.Case) -> None:
    got = cc.run(rt, case)
    sort = case.head == "contains"
    assert normalize(got, sort) == normalize(case.want, sort), (
        f"{case.note}\n{case.rule}\nwant {case.want!r}\ngot  {got!r}")


@pytest.mark.parametrize("family", sorted(TOPICS))
def test_family_has_cases(family: str) -> None:
    assert CASES[family], f"no usable compliance cases for {family}"


@pytest.mark.parametrize("case", [c for f in sorted(CASES) for c in CASES[f]], ids=lambda c: c.note)
def test_compliance_call(rt: Runtime, case: cc.Case) -> None:
    check(rt, case)
