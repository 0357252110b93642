"""The C runtime every generated module is linked with.

``runtime.wasm`` is built from ``src/`` by ``make runtime`` (see ``build.py``)
and committed; ``include/opa.h`` documents its API.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

RUNTIME_WASM_PATH: Path = Path(__file__).resolve().parent / "runtime.wasm"


@cache
def load_runtime_bytes() -> bytes:
    """The bytes of the committed runtime.wasm."""
    return RUNTIME_WASM_PATH.read_bytes()
