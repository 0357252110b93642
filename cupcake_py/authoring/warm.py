"""Leave the caches warm so the first `cupcake eval` after `cupcake verify` / `cupcake init`
compiles nothing.

In: a configuration directory (and optionally the bundle just built for it). Out: the bundle
in the bundle cache under the key `cupcake eval` computes (engine/bundle.py cache_key, no
--custom-builtins) and its WASM module's native code in the host's module cache (default options,
as eval uses them). Fails with CupcakeError (BundleError, HostError) when the configuration
does not compile; callers report it and carry on (warming is an optimisation, never a
decision: eval rebuilds whatever is missing)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cupcake_py.engine.bundle import Bundle
    from cupcake_py.engine.project import ConfigDir


def warm(cfg: ConfigDir, built: Bundle | None = None) -> str:
    """Warm both caches; a one-line summary of what was done."""
    from cupcake_py.core import cache_mac
    from cupcake_py.engine import bundle as B
    from cupcake_py.host import HostOptions, PolicyModule

    mac_key = cache_mac.key()
    if mac_key is None:  # caches unusable (cache_mac warned why): eval recompiles anyway
        return "caches not used (no cache MAC key): every `cupcake eval` compiles"
    if built is not None and built.key == B.cache_key(cfg):
        B.write_cached(built, mac_key)
        b, hit = built, False
    else:
        b, hit = B.load(cfg)
    if not b.wasm:
        return "bundle cached (no routed policies, no WASM to compile)"
    stats = PolicyModule.load(b.wasm, HostOptions()).load_stats
    return (f"bundle cache {'already warm' if hit else 'written'}, native code cache "
            f"{'already warm' if stats.cache == 'hit' else 'written'}: the first `cupcake eval` compiles nothing")
