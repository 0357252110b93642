"""Every input a fuzz run found (fuzz/run.py, `make fuzz`) and that was fixed is kept in
fuzz/regressions/<target>/ and replayed here through the same target function (no atheris
needed): each must now pass its target's contract (fuzz/targets.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from fuzz.targets import TARGETS

REGRESSIONS = Path(__file__).resolve().parents[2] / "fuzz" / "regressions"
CASES = sorted((t.name, p) for t in REGRESSIONS.iterdir() if t.is_dir() for p in sorted(t.iterdir()) if p.is_file())


def test_every_regression_names_a_target() -> None:
    assert CASES and {t for t, _ in CASES} <= set(TARGETS)


@pytest.mark.parametrize(("target", "path"), CASES, ids=[f"{t}/{p.name}" for t, p in CASES])
def test_fixed_finding_stays_fixed(target: str, path: Path) -> None:
    TARGETS[target](path.read_bytes())


@pytest.mark.parametrize("target", sorted(TARGETS))
def test_every_target_accepts_its_seeds(target: str) -> None:
    """The targets run on the repository's examples (the seed corpora) without a finding."""
    from fuzz.run import seeds

    for data in seeds(target)[:8]:
        TARGETS[target](data)
