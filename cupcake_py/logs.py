"""Logging setup: logs go to stderr only, so stdout stays machine-readable."""

from __future__ import annotations

import logging
import sys

LEVELS = ("debug", "info", "warning", "error")


def setup(level: str = "warning") -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("cupcake %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger("cupcake_py")
    root.handlers[:] = [handler]
    root.setLevel(getattr(logging, level.upper(), logging.WARNING))
    root.propagate = False
