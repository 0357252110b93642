"""Loggers that import `logging` only when a message is actually emitted.

`cupcake eval` starts a new process per agent tool call and nearly never logs, so its
import path must not pay for `logging` (and what it imports). A `LazyLogger` answers
`isEnabledFor` itself while `logging` is not imported: nothing can have configured it yet,
so the threshold is logging's default (WARNING) or the level `cupcake_py.core.logs.setup`
recorded. Messages below it are dropped without importing anything; anything else imports
`logging`, applies the deferred setup and goes through the real logger, so records look
exactly as if `logging` had been configured up front. Once `logging` is imported (by
anyone) the real logger decides everything.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

DEBUG, INFO, WARNING, ERROR, CRITICAL = 10, 20, 30, 40, 50  # logging's numeric levels

_threshold = WARNING  # effective level while `logging` is not imported
_pending: Callable[[], None] | None = None  # configuration to apply when logging is first needed


def defer_setup(threshold: int, apply: Callable[[], None]) -> None:
    """Record a logging configuration to apply when a message first needs `logging`;
    until then messages below `threshold` are dropped without importing it."""
    global _threshold, _pending
    _threshold, _pending = threshold, apply


def ensure_logging() -> None:
    """Import `logging` and apply a deferred setup (no-op once done)."""
    global _pending
    import logging  # noqa: F401 - the point of this function

    apply, _pending = _pending, None
    if apply is not None:
        apply()


class LazyLogger:
    """The subset of `logging.Logger` cupcake uses (debug … exception, log, isEnabledFor),
    plus every other Logger attribute through the real logger (imports `logging`)."""

    __slots__ = ("name", "_logger")

    def __init__(self, name: str) -> None:
        self.name = name
        self._logger: Any = None

    def real(self) -> Any:
        """The `logging.Logger` behind this proxy (imports and configures `logging`)."""
        if self._logger is None or _pending is not None:
            ensure_logging()
            import logging

            self._logger = logging.getLogger(self.name)
        return self._logger

    def isEnabledFor(self, level: int) -> bool:  # noqa: N802 - logging's name
        if "logging" not in sys.modules:  # nobody can have configured it: the recorded threshold holds
            return level >= _threshold
        return bool(self.real().isEnabledFor(level))

    def log(self, level: int, msg: object, *args: object, **kwargs: Any) -> None:
        if self.isEnabledFor(level):
            kwargs["stacklevel"] = kwargs.get("stacklevel", 1) + 1  # report the caller, not this proxy
            self.real().log(level, msg, *args, **kwargs)

    def debug(self, msg: object, *args: object, **kwargs: Any) -> None:
        self.log(DEBUG, msg, *args, **_caller(kwargs))

    def info(self, msg: object, *args: object, **kwargs: Any) -> None:
        self.log(INFO, msg, *args, **_caller(kwargs))

    def warning(self, msg: object, *args: object, **kwargs: Any) -> None:
        self.log(WARNING, msg, *args, **_caller(kwargs))

    def error(self, msg: object, *args: object, **kwargs: Any) -> None:
        self.log(ERROR, msg, *args, **_caller(kwargs))

    def critical(self, msg: object, *args: object, **kwargs: Any) -> None:
        self.log(CRITICAL, msg, *args, **_caller(kwargs))

    def exception(self, msg: object, *args: object, exc_info: Any = True, **kwargs: Any) -> None:
        self.log(ERROR, msg, *args, exc_info=exc_info, **_caller(kwargs))

    def __getattr__(self, attr: str) -> Any:
        return getattr(self.real(), attr)

    def __repr__(self) -> str:
        return f"<LazyLogger {self.name}>"


def _caller(kwargs: dict[str, Any]) -> dict[str, Any]:
    """One more frame to skip: the level method calls `log`, which calls the real logger."""
    kwargs["stacklevel"] = kwargs.get("stacklevel", 1) + 1
    return kwargs
