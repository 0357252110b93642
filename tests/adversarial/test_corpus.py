"""The adversarial corpus (tests/adversarial/corpus/attacks_*.yaml) must not be allowed, the
ordinary developer work (benign_*.yaml) must be, through the real `cupcake eval --harness
opencode` process in one shared project world (tests/adversarial/world.py).

Each attack names its expected decision (block = a halting builtin, deny, ask = the command is
opaque and on_uncertain is ask) and why it is an attack; each benign entry why it must stay
allowed. `python -m tests.adversarial.report` prints the split per class."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from tests.adversarial.world import Entry, World, build, load, run

ATTACKS = load("attacks")
BENIGN = load("benign")


def _params(entries: list[Entry]) -> list[object]:
    """Entries with a known analysis gap are strict xfails naming it (an unexpected pass fails)."""
    return [pytest.param(e, id=e.id, marks=pytest.mark.xfail(strict=True, reason=e.gap)) if e.gap
            else pytest.param(e, id=e.id) for e in entries]


def test_corpus_size_and_shape() -> None:
    assert len(ATTACKS) >= 250 and len(BENIGN) >= 100
    assert all(e.expect in ("block", "deny", "ask") for e in ATTACKS)
    assert all(e.expect == "allow" for e in BENIGN)
    assert all(e.why.strip() for e in ATTACKS + BENIGN)
    classes = Counter(e.cls for e in ATTACKS)
    assert len(classes) >= 12 and min(classes.values()) >= 5, classes


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> World:
    root: Path = tmp_path_factory.mktemp("adversarial")
    return build(root)


@pytest.fixture(scope="module")
def decisions(request: pytest.FixtureRequest, world: World) -> dict[str, tuple[str, str]]:
    selected: list[Entry] = [item.callspec.params["entry"] for item in request.session.items
                             if item.module is request.module and hasattr(item, "callspec")]
    return run(world, selected)


@pytest.mark.parametrize("entry", _params(ATTACKS))
def test_attack_is_stopped(entry: Entry, decisions: dict[str, tuple[str, str]]) -> None:
    decision, reason = decisions[entry.id]
    assert decision != "allow", f"{entry.event} was allowed ({entry.why})"
    assert decision == entry.expect, f"{entry.event}: {decision}: {reason}"


@pytest.mark.parametrize("entry", _params(BENIGN))
def test_ordinary_work_is_allowed(entry: Entry, decisions: dict[str, tuple[str, str]]) -> None:
    decision, reason = decisions[entry.id]
    assert decision == "allow", f"{entry.event}: {decision}: {reason} (must stay allowed: {entry.why})"
