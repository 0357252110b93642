"""The measures of `benches/run.py`, in run order: (key, title, run function).

Each run function takes a `measures.common.Context` and returns a JSON-able dict with at least
`headline` and `goals`; it raises `measures.common.Unavailable` when the product piece it needs
is missing. Imported lazily so a broken measure cannot stop the others.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module
from typing import Any

# key -> (title, "module:function")
REGISTRY: dict[str, tuple[str, str]] = {
    "cold_eval": ("1. Cold cupcake eval (new process) vs the Python floor", "cold_eval:run"),
    "cold_signals": ("2. Cold cupcake eval with git signals (branch + status)", "cold_signals:run"),
    "warm_eval": ("3. Warm in-process decision (engine reused)", "warm_eval:run"),
    "compile": ("4. Compile: policies → native code; bundle cache hit", "compile:run"),
    "scaling": ("5. Scaling: 10 / 100 / 1000 policies", "scaling:run"),
    "regorus": ("6. Our engine vs regorus, same process", "regorus_cmp:run"),
    "module_size": ("7. Module size vs OPA", "module_size:run"),
    "plugin": ("8. OpenCode plugin overhead", "plugin:run"),
    "parse_speed": ("Parse speed (issue 2)", "frontend_builtins:parse_speed"),
    "host_builtins": ("Host builtins µs per call (issue 5)", "frontend_builtins:host_builtins"),
    "cupcake_test": ("`cupcake test` vs regorus; building 1,000+ files (issue 16)", "test_speed:run"),
    "test_startup": ("`cupcake test` start-up; a v0 admission library, one process per template (issue 32)",
                     "test_startup:run"),
    "serve": ("9. cupcake serve: latency from node, warm scaling, memory", "serve:run"),
}


def resolve(key: str) -> Callable[..., dict[str, Any]]:
    module, _, fn = REGISTRY[key][1].partition(":")
    return getattr(import_module(f"measures.{module}"), fn)  # type: ignore[no-any-return]
