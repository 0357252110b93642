"""The installed custom builtin modules: the entry points of the group `cupcake_py.builtins`
(docs/custom-builtins.md), as the authoring commands scan them (`cupcake eval` runs only the
modules its configuration names).

In: the installed distributions on sys.path. Out: `entry_point_specs()`, their `module[:attr]`
values, sorted. Kept apart from extensions/builtins.py (which imports the host's builtin
library) so a `cupcake test` process that has no custom builtin to load checks that without
importing it. A scan that fails, a cache entry that is missing, stale or forged: the scan runs
again (never a stale answer).
"""

from __future__ import annotations

import os
import sys

ENTRY_POINT_GROUP = "cupcake_py.builtins"


def entry_point_specs() -> list[str]:
    """The `module[:attr]` values of the installed `cupcake_py.builtins` entry points (sorted).

    The scan (importlib.metadata: ~20 ms of imports and reads, paid by every `cupcake test`
    process) is remembered in the user's cache dir under the fingerprint of what it reads:
    every sys.path entry (its mtime) and the entry_points.txt of each *.dist-info / *.egg-info
    folder in it (size, mtime), so installing, removing or reinstalling a package rescans.
    The entry carries a MAC (cache_mac: a module named there is imported); no key, a missing,
    stale or forged entry: the scan runs."""
    from cupcake_py.core import cache_mac
    from cupcake_py.core.userdirs import atomic_write, private_dir, user_cache_dir

    mac_key = cache_mac.key()
    if mac_key is None:
        return _scan_entry_points()
    digest = cache_mac.tag(mac_key, _installed_fingerprint()).hex()[:32]  # (keyed BLAKE2b: no hashlib import)
    folder = user_cache_dir("entry-points")  # one entry per sys.path (each script has its own)
    try:
        with open(os.path.join(folder, digest), "rb") as f:
            tag, _, body = f.read().partition(b"\n")
        lines = body.decode().split("\n")
        if lines[0] == digest and cache_mac.same(bytes.fromhex(tag.decode()), cache_mac.tag(mac_key, body)):
            return [s for s in lines[1:] if s]
    except (OSError, ValueError):
        pass  # a miss: scan
    specs = _scan_entry_points()
    if private_dir(folder, "entry point cache"):
        body = "\n".join([digest, *specs]).encode()
        try:
            atomic_write(folder, digest, (cache_mac.tag(mac_key, body).hex().encode(), b"\n", body), ".tmp")
        except OSError:  # an unwritable cache only costs the next process the scan
            pass
    return specs


def _scan_entry_points() -> list[str]:
    from importlib.metadata import entry_points

    return sorted({ep.value for ep in entry_points(group=ENTRY_POINT_GROUP)})


def _installed_fingerprint() -> bytes:
    """What the entry point scan reads: each sys.path entry and the entry_points.txt of every
    distribution folder in it."""
    parts = [sys.version]
    for entry in sys.path:
        d = entry or "."
        try:
            parts.append(f"{entry}\0{os.stat(d).st_mtime_ns}")
            names = sorted(n for n in os.listdir(d) if n.endswith((".dist-info", ".egg-info")))
        except OSError:
            continue
        for n in names:
            try:
                st = os.stat(os.path.join(d, n, "entry_points.txt"))
                parts.append(f"{n}\0{st.st_size}\0{st.st_mtime_ns}")
            except OSError:
                parts.append(n)
    return "\n".join(parts).encode()
