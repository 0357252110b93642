"""A logger proxy that imports `logging` on first use: the host's import path (every
`cupcake eval`) does not pay for it unless something is actually logged."""

from __future__ import annotations

from typing import Any


class LazyLogger:
    __slots__ = ("_name", "_logger")

    def __init__(self, name: str) -> None:
        self._name = name
        self._logger: Any = None

    def __getattr__(self, attr: str) -> Any:
        logger = self._logger
        if logger is None:
            import logging

            logger = self._logger = logging.getLogger(self._name)
        return getattr(logger, attr)
