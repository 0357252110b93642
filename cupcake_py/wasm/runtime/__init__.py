"""The C runtime every generated module is linked with.

``runtime.wasm`` is built from ``src/`` by ``make runtime`` (see ``build.py``)
and committed; ``include/opa.h`` documents its API. ``RUNTIME_WASM_FILE`` is its path;
``RUNTIME_WASM_PATH`` the same as a pathlib Path (made on first use: pathlib stays off
the import path of a first `cupcake test` run).
"""

from __future__ import annotations

import os
from functools import cache

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

    RUNTIME_WASM_PATH: Path

RUNTIME_WASM_FILE: str = os.path.join(os.path.dirname(os.path.realpath(__file__)), "runtime.wasm")


def __getattr__(name: str) -> object:
    if name == "RUNTIME_WASM_PATH":
        from pathlib import Path

        return Path(RUNTIME_WASM_FILE)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@cache
def load_runtime_bytes() -> bytes:
    """The bytes of the committed runtime.wasm."""
    with open(RUNTIME_WASM_FILE, "rb") as f:
        return f.read()
