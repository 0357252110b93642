"""Properties: any string (random or a mutated real command line) is analysed without an
exception, into a schema-valid result; unparsable input is opaque; the analysis is stable."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cupcake_py.shell import analyze

from .conftest import VALIDATOR
from .test_attack_classes import ATTACKS, BENIGN

SEEDS = [a[0] for a in ATTACKS] + BENIGN
SHELL_CHARS = st.sampled_from(list("abc.*?[]{}!$`'\"\\|&;<>()~#=-/ \n\t,@%^:+0123") +
                              ["$(", "${", "$((", "<<", "<<<", "&&", "||", "2>&1", "bash -c ", "eval ", "sudo ",
                               "git -c ", "xargs ", "$'\\x2e'", "cd ..; ", "for f in *; do ", "done", "EOF\n"])


@st.composite
def mutated(draw: st.DrawFn) -> str:
    base = draw(st.sampled_from(SEEDS))
    for _ in range(draw(st.integers(1, 4))):
        pos = draw(st.integers(0, len(base)))
        op = draw(st.sampled_from(["insert", "delete", "replace"]))
        piece = draw(SHELL_CHARS)
        if op == "insert":
            base = base[:pos] + piece + base[pos:]
        elif op == "delete":
            base = base[:pos] + base[pos + draw(st.integers(1, 5)):]
        else:
            base = base[:pos] + piece + base[pos + len(piece):]
    return base


COMMANDS = st.one_of(st.text(max_size=200), st.lists(SHELL_CHARS, max_size=40).map("".join), mutated())


def _run(project: Path, command: str) -> dict[str, Any]:
    return analyze(command, str(project), env={"HOME": str(project.parent)})


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(command=COMMANDS)
def test_never_raises_and_is_schema_valid(project: Path, command: str) -> None:
    out = _run(project, command)
    VALIDATOR.validate(out)
    assert not [o for o in out["opaque"] if o["reason"].startswith("internal analysis error")], out["opaque"]
    if not out["parsed"]:
        assert {"command", "reads", "writes", "deletes", "links", "executes"} <= {o["kind"] for o in out["opaque"]}


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(command=COMMANDS)
def test_stable(project: Path, command: str) -> None:
    first = _run(project, command)
    assert _run(project, command) == first
    for kind, paths in first["effects"].items():
        for p in paths:
            if os.path.lexists(p):  # realpath is idempotent on what was reported
                assert os.path.realpath(p) == p or kind in ("deletes", "links"), (kind, p)


def test_odd_inputs(project: Path) -> None:
    for command in ["", " ", "\0", "rm -rf \0x", "\ud800", "((", "$(", "'" * 1001, "{" * 500, "a" * 100_000,
                    "$(" * 300, "cat <<EOF", "x=$(( ))", "\\", "!", "&&", "|"]:
        out = _run(project, command)
        VALIDATOR.validate(out)
        assert not [o for o in out["opaque"] if o["reason"].startswith("internal analysis error")], (command, out)


def test_invalid_arguments_do_not_raise() -> None:
    out = analyze(None, None)  # type: ignore[arg-type]
    VALIDATOR.validate(out)


def test_engine_stops_pass_through(project: Path, monkeypatch: Any) -> None:
    """The evaluation's hard-deadline alarm (a CupcakeError raised into whatever runs) is not
    swallowed as an analysis failure; other internal errors become opacity."""
    import pytest

    from cupcake_py.core.errors import CupcakeError
    from cupcake_py.shell import walker

    def boom(*_a: Any, **_k: Any) -> None:
        raise CupcakeError("hard deadline")

    monkeypatch.setattr(walker.Walker, "run", boom)
    with pytest.raises(CupcakeError):
        _run(project, "ls")

    def bug(*_a: Any, **_k: Any) -> None:
        raise KeyError("bug")

    monkeypatch.setattr(walker.Walker, "run", bug)
    out = _run(project, "ls")
    assert out["parsed"] is False and {o["kind"] for o in out["opaque"]} >= {"command", "writes"}
