"""engine/bundle_index.py: what a bundle's per-request work needs, computed once per bundle, and
the signal selection built on it (engine/evaluator.py `wanted_signals`): the same signals in the
same order as walking every routed package's route info, whatever the bundle holds."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from cupcake_py.engine import bundle as bundles
from cupcake_py.engine.evaluator import _builtin_signal_applies, wanted_signals
from cupcake_py.engine.routed_aggregator import package_order, routed_input
from cupcake_py.engine.routing import lookup

PY = {"extension": ".py"}  # a post_edit_check signal: applies to edited .py files only
EDIT_PY = {"tool_name": "Edit", "tool_input": {"file_path": "/p/a.py"}}
EDIT_MD = {"tool_name": "Edit", "tool_input": {"file_path": "/p/a.md"}}


def reference(b: bundles.Bundle, routed: list[str], enriched: dict[str, Any]) -> list[str]:
    """The selection by definition: every routed package's route info, in routed order."""
    wanted: list[str] = []
    for pkg in routed:
        info = b.policies[pkg]
        wanted += [s for s in info["signals"] if s not in wanted]
        name = info.get("builtin")
        if name:
            for s, spec in b.signals.items():
                if s.startswith(f"__builtin_{name}_") and s not in wanted and _builtin_signal_applies(spec, enriched):
                    wanted.append(s)
    return wanted


def bundle(policies: dict[str, dict[str, Any]], signals: dict[str, dict[str, Any]]) -> bundles.Bundle:
    return bundles.Bundle("k", "project", policies=policies, signals=signals)


def test_index_keeps_only_signal_users_with_their_signals_in_order() -> None:
    b = bundle({"cupcake.policies.plain": {"signals": []},
                "cupcake.policies.git": {"signals": ["git_status", "git_branch"]},
                "cupcake.policies.builtins.lint": {"signals": [], "builtin": "lint"},
                "cupcake.policies.builtins.quiet": {"signals": [], "builtin": "quiet"}},
               {"__builtin_lint_b": PY, "other": {}, "__builtin_lint_a": PY, "__builtin_linter_x": PY})
    assert b.index.signal_users == {
        "cupcake.policies.git": (("git_status", "git_branch"), ()),
        # by prefix `__builtin_lint_`, in the bundle's signal order; `__builtin_linter_x` is another policy's
        "cupcake.policies.builtins.lint": ((), (("__builtin_lint_b", PY), ("__builtin_lint_a", PY))),
    }
    assert list(b.index.positions) == package_order(b.policies)
    assert b.index.positions["cupcake.policies.builtins.lint"] == 0


def test_index_survives_the_bundle_codec_and_takes_part_in_equality() -> None:
    b = bundle({"cupcake.policies.git": {"signals": ["git_status"]}}, {})
    key = b"k" * 32
    back = bundles.decode(bundles.encode(b, key), key)
    assert back == b and back is not None and back.index == b.index
    assert "index" not in b.header()
    assert bundle({"cupcake.policies.git": {"signals": ["git_branch"]}}, {}).index != b.index


def test_route_is_the_routing_lookup_with_its_flags_names_and_signal_users() -> None:
    routing = {"PreToolUse": ["cupcake.policies.p3"], "PreToolUse:Bash": ["cupcake.policies.p2", "cupcake.policies.p3"]}
    b = bundles.Bundle("k", "project", routing=routing,
                       policies={f"cupcake.policies.p{i}": {"signals": ["s"] if i == 2 else []} for i in (3, 1, 2)})
    route = b.index.route("PreToolUse", "Bash")
    assert list(route.packages) == lookup(routing, "PreToolUse", "Bash") == ["cupcake.policies.p3", "cupcake.policies.p2"]
    assert route.names == {"cupcake.policies.p2", "cupcake.policies.p3"}
    assert route.signal_users == ("cupcake.policies.p2",)
    assert list(route.flags) == routed_input(b.index.positions, route.packages) == [False, True, True]
    assert json.loads(route.flags_json) == [False, True, True]
    assert b.index.flags_json(route.flags) == route.flags_json
    assert b.index.flags_json(list(route.flags)) is None and b.index.flags_json((False, True, True)) is None
    assert b.index.route("PreToolUse", "Bash") is route  # memoised per (event, tool)
    assert list(b.index.route("PreToolUse", "Edit").flags) == [False, False, True]
    assert b.index.route("PostToolUse", None).packages == ()
    assert list(b.index.route("PostToolUse", None).flags) == [False, False, False]


@given(st.lists(st.tuples(st.sampled_from(["PreToolUse", "PostToolUse"]), st.sampled_from([None, "Bash", "Edit"])),
                max_size=200))
def test_route_memo_always_answers_what_a_fresh_lookup_answers(keys: list[tuple[str, str | None]]) -> None:
    routing = {"PreToolUse": ["cupcake.policies.a"], "PreToolUse:Bash": ["cupcake.policies.b"],
               "PostToolUse:Edit": ["cupcake.policies.a", "cupcake.policies.c"]}
    b = bundles.Bundle("k", "project", routing=routing,
                       policies={f"cupcake.policies.{x}": {"signals": []} for x in "abc"})
    for event, tool in keys:
        route = b.index.route(event, tool)
        expect = lookup(routing, event, tool)
        assert list(route.packages) == expect and route.names == set(expect)
        assert json.loads(route.flags_json) == routed_input(b.index.positions, expect)


NAMES = st.sampled_from(["s1", "s2", "s3", "history", "__builtin_b0_x", "__builtin_b1_y"])


@st.composite
def bundles_and_routes(draw: st.DrawFn) -> tuple[bundles.Bundle, list[str]]:
    n = draw(st.integers(1, 8))
    policies: dict[str, dict[str, Any]] = {}
    for i in range(n):
        info: dict[str, Any] = {"signals": draw(st.lists(NAMES, max_size=3))}
        if draw(st.booleans()):
            info["builtin"] = f"b{draw(st.integers(0, 2))}"
        policies[f"cupcake.policies.p{i}"] = info
    signal_names = draw(st.lists(st.sampled_from(["s1", "s2", "__builtin_b0_x", "__builtin_b0_z", "__builtin_b1_y",
                                                  "__builtin_b2_w"]), unique=True))
    signals = {s: draw(st.sampled_from([{}, PY])) for s in signal_names}
    routed = draw(st.permutations(list(policies)).map(lambda ps: ps[:draw(st.integers(0, len(ps)))]))
    return bundle(policies, signals), routed


@given(bundles_and_routes(), st.sampled_from([EDIT_PY, EDIT_MD, {}]))
def test_wanted_signals_equal_the_walk_over_every_routed_package(case: tuple[bundles.Bundle, list[str]],
                                                                 enriched: dict[str, Any]) -> None:
    b, routed = case
    assert wanted_signals(b.index, routed, enriched) == reference(b, routed, enriched)
