"""opa.runtime: the runtime description object."""

from __future__ import annotations

from typing import Any

from cupcake_py.host.builtins import BuiltinContext, builtin

VERSION = "1.20.2"
"""OPA language version cupcake-py follows (capabilities of this OPA release)."""


@builtin("opa.runtime")
def opa_runtime(ctx: BuiltinContext) -> dict[str, Any]:
    """``{"version", "commit", "env"?}``; ``env`` only when the host passes one (``ctx.env``)."""
    from cupcake_py import __version__

    out: dict[str, Any] = {"version": VERSION, "commit": f"cupcake-py-{__version__}"}
    if ctx.env is not None:
        out["env"] = dict(ctx.env)
    return out
