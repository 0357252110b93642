"""Work counted, not timed (tests never assert wall-clock speed): the Python and C calls a piece of
code makes, for tests that compare the work at two input sizes to show linear growth."""

from __future__ import annotations

import sys
from collections.abc import Callable
from types import FrameType
from typing import Any


def calls(run: Callable[[], Any]) -> int:
    """Python calls and C calls made while `run` runs (sys.setprofile events)."""
    count = 0

    def profile(_frame: FrameType, _event: str, _arg: object) -> None:
        nonlocal count
        count += 1

    sys.setprofile(profile)
    try:
        run()
    finally:
        sys.setprofile(None)
    return count
