"""Logging setup: logs go to stderr only, so stdout stays machine-readable.

`setup` at warning or error level does not import `logging` when nothing imported it yet
(every `cupcake eval` process): the configuration is applied by `cupcake_py.core.lazylog` when
a message at an enabled level is first emitted, so it looks exactly as with an eager setup.
"""

from __future__ import annotations

import sys

from cupcake_py.core import lazylog

LEVELS = ("debug", "info", "warning", "error")
FORMAT = "cupcake %(levelname)s %(name)s: %(message)s"
_NUMERIC = {"debug": lazylog.DEBUG, "info": lazylog.INFO, "warning": lazylog.WARNING, "error": lazylog.ERROR,
            "critical": lazylog.CRITICAL}


def setup(level: str = "warning") -> None:
    numeric = _NUMERIC.get(level.lower(), lazylog.WARNING)
    stream = sys.stderr  # the stream at setup time, also when applied later

    def apply() -> None:
        import logging

        handler = logging.StreamHandler(stream)
        handler.setFormatter(logging.Formatter(FORMAT))
        root = logging.getLogger("cupcake_py")
        root.handlers[:] = [handler]
        root.setLevel(numeric)
        root.propagate = False

    lazylog.defer_setup(numeric, apply)
    if numeric < lazylog.WARNING or "logging" in sys.modules:
        lazylog.ensure_logging()
