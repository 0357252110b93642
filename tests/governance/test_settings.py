"""The rulebook's `audit:` section and governance builtins, as bundles store them."""

from __future__ import annotations

from pathlib import Path

import pytest

from cupcake_py.engine.rulebook import RulebookError, parse_rulebook
from cupcake_py.governance.settings import bundle_settings, merge

P = Path("rulebook.yml")


@pytest.mark.parametrize("text, mode", [("", "on"), ("audit: on", "on"), ("audit: off", "off"),
                                        ("audit: required", "required"), ("audit: true", "on"),
                                        ("audit: {mode: on, retention_days: 7}", "on")])
def test_audit_shorthands(text: str, mode: str) -> None:
    assert parse_rulebook(text, P).audit.mode == mode


@pytest.mark.parametrize("text, where", [
    ("audit: sometimes", "rulebook.yml:1:8: audit.mode"),
    ("audit: {mode: on, retention_days: 0}", "audit.retention_days"),
    ("audit: {mode: on, colour: red}", "audit.colour: unknown key"),
    ("builtins:\n  rate_limit: {limits: []}", "builtins.rate_limit.limits"),
    ("builtins:\n  rate_limit: {limits: [{tools: [Bash], max_calls: 3, action: halt}]}", "action"),
    ("builtins:\n  loop_guard: {max_repeats: 1}", "builtins.loop_guard.max_repeats"),
    ("builtins:\n  escalation: {timeout_minutes: 0}", "builtins.escalation.timeout_minutes"),
])
def test_mistakes_are_reported_with_their_place(text: str, where: str) -> None:
    with pytest.raises(RulebookError, match=where.replace(".", r"\.").replace("[", r"\[")):
        parse_rulebook(text, P)


def test_history_builtins_record_even_with_audit_off() -> None:
    rb = parse_rulebook("builtins:\n  escalation: {window_minutes: 15, timeout_minutes: 3}\n"
                        "  rate_limit: {limits: [{tools: [Bash], max_calls: 9, window_minutes: 2}]}\n"
                        "  loop_guard: {max_repeats: 20}\n", P)
    s = bundle_settings(rb, uses_history=True)
    assert s["mode"] == "on" and s["windows"] == [1, 2, 5, 15, 60] and s["history_last_n"] == 20
    assert s["timeout_rules"] == {"BUILTIN-ESCALATION": 180}
    assert bundle_settings(parse_rulebook("audit: off", P), uses_history=False)["mode"] == "off"
    forced = bundle_settings(parse_rulebook("audit: off", P), uses_history=True)
    assert forced["mode"] == "on" and forced["explicit"]


def test_merge_takes_the_strictest() -> None:
    base = bundle_settings(parse_rulebook("audit: {mode: on, retention_days: 9, write_budget_ms: 50}", P), False)
    other = bundle_settings(parse_rulebook("audit: {mode: required, retention_days: 30}", P), False)
    m = merge([base, other])
    assert m is not None and m["mode"] == "required" and m["retention_days"] == 9 and m["write_budget_ms"] == 250
    assert merge([bundle_settings(parse_rulebook("audit: off", P), False), {}]) is None


def _merged_mode(*rulebooks: str, history: bool = False) -> str:
    m = merge([bundle_settings(parse_rulebook(text, P), history) for text in rulebooks])
    return "off" if m is None else str(m["mode"])


@pytest.mark.parametrize("rulebooks, mode", [
    (("",), "on"),                                   # no audit key: on by default
    (("audit: {retention_days: 7}",), "on"),         # the object form without a mode: the default mode
    (("audit: off",), "off"), (("audit: false",), "off"), (("audit: {mode: off}",), "off"),
    (("", ""), "on"),                                # global and project both silent
    (("", "audit: off"), "off"),                     # the project's explicit off is not overruled by a default
    (("audit: off", ""), "off"),                     # nor the global rulebook's explicit off
    (("audit: required", "audit: off"), "required"),  # explicit choices: the strictest
    (("audit: off", "audit: on"), "on"),
])
def test_audit_is_on_unless_a_rulebook_says_off(rulebooks: tuple[str, ...], mode: str) -> None:
    assert _merged_mode(*rulebooks) == mode


def test_history_records_even_beside_an_explicit_off() -> None:
    assert _merged_mode("audit: off", "", history=True) == "on"
