"""cupcake's mounter: the profile's mounts applied inside bubblewrap's namespaces with the kernel's
mount API (mounter.c says how and why), then the command run with no capability left.

`locate()`: the prebuilt executable for this machine (`mounter-<machine>`, built by `make mounter`,
committed and shipped in the wheel), or None (another machine, or a checkout without it): the floor then
gives bubblewrap the mounts itself (sandbox/bwrap.py), same profile, same guarantees, slower.
"""

from __future__ import annotations

import os

MACHINES = ("x86_64", "aarch64")


def locate() -> str | None:
    machine = os.uname().machine
    if machine not in MACHINES:
        return None
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mounter-" + machine)
    return path if os.path.isfile(path) and os.access(path, os.X_OK) else None
