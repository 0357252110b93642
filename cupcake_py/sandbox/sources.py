"""What a sandbox profile is computed from (sandbox/profile.py `compute`), and the parts of it read
again for every evaluation.

Out:
- `Sources`: the state paths and PATH dirs of engine/state_paths.py (as data), the project root
  and the event's working directory, the merged `sandbox:` settings of the rulebooks, the
  protected path patterns, sensitive_data_protection's additional_patterns, system_protection's
  additional_paths, the paths policies add (`extension`), the home directory; `fs`, the file
  system questions the computation asks (sandbox/lookups.py); `scan` and `sockets` once read.
- `python_environment()`: the Python running cupcake: prefixes, site-packages, user site,
  pyvenv.cfg, the interpreter (read-only inside the sandbox).
- `covers(src)`: what the floor guarantees (`input.sandbox.covers`), without the profile.
- `scan(src)`: the project's secrets scan (sandbox/secrets.py `scan_roots`); `sockets()`: the
  sockets of processes outside the sandbox (sandbox/sockets.py). Both are read for every
  evaluation, never remembered (sandbox/profile_memo.py puts their answers in its key).
"""

from __future__ import annotations

import os
import sys

from cupcake_py.sandbox.lookups import Lookups

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any


class Sources:
    """What a profile is computed from (see the module docstring)."""

    __slots__ = ("state_paths", "path_dirs", "project_root", "cwd", "settings", "protected", "sensitive",
                 "extension", "home", "system", "fs", "memo_dir", "sockets", "scan")

    def __init__(self, state_paths: Sequence[dict[str, Any]], path_dirs: Sequence[str], project_root: str, cwd: str,
                 settings: dict[str, Any], protected: Sequence[str] = (), sensitive: Sequence[str] = (),
                 extension: dict[str, Any] | None = None, home: str | None = None,
                 system: Sequence[str] = (), memo_dir: str | None = None) -> None:
        from cupcake_py.core.userdirs import home_dir

        self.state_paths = state_paths
        self.path_dirs = path_dirs
        self.project_root = project_root
        self.cwd = cwd
        self.settings = settings
        self.protected = protected
        self.sensitive = sensitive
        self.extension = extension or {}
        self.home = home or home_dir()
        self.system = system  # system_protection's additional_paths
        # every question the computation asks the file system, with its answer (sandbox/lookups.py:
        # what sandbox/profile_memo.py asks again before it reuses a profile)
        self.fs = Lookups()
        self.memo_dir = memo_dir  # where the secrets scan remembers unchanged directories (sandbox/scan_memo.py)
        # The parts that are read again for every evaluation (not through `fs`): the sockets of
        # processes outside the sandbox (sandbox/sockets.py) and the project's secrets scan
        # (sandbox/secrets.py `scan_roots`); None: read by `compute`.
        self.sockets: list[str] | None = None
        self.scan: tuple[list[str], bool] | None = None


def python_environment() -> list[str]:
    """The Python running cupcake: prefixes, site-packages, user site, pyvenv.cfg, the interpreter."""
    out = [sys.prefix, sys.exec_prefix, sys.base_prefix, sys.base_exec_prefix, os.path.join(sys.prefix, "pyvenv.cfg")]
    if sys.executable:
        out.append(sys.executable)
    out += [p for p in sys.path if p and os.path.isabs(p) and ("site-packages" in p or "dist-packages" in p)]
    import site

    out += [p for p in getattr(site, "getsitepackages", list)() if isinstance(p, str)]
    if site.ENABLE_USER_SITE and isinstance(site.USER_SITE, str):
        out.append(site.USER_SITE)
    return out


def scan(src: Sources) -> tuple[list[str], bool]:
    """The project's secrets scan for `src` (sandbox/secrets.py `scan_roots`): read for every evaluation."""
    from cupcake_py.sandbox.secrets import scan_roots

    roots = [r for r in (src.project_root, src.cwd) if r and os.path.isabs(r)]
    return scan_roots(roots, src.memo_dir)


def sockets() -> list[str]:
    """The sockets of processes outside the sandbox (sandbox/sockets.py): read for every evaluation."""
    from cupcake_py.sandbox.sockets import outside_sockets

    return outside_sockets(os.environ)


STATE_PATTERNS = (".cupcake/", ".cupcake")  # protected patterns the state paths hold (every .cupcake cupcake reads)


def covers(src: Sources) -> dict[str, bool]:
    """What the floor guarantees for this call (`input.sandbox.covers`; sandbox/profile.py says
    what each means), without computing the profile: state paths always; system, secrets and
    protected paths when every pattern names a concrete path (and the secrets scan was complete).
    All false when processes are shared: a command then reaches every process of the user, and
    through /proc/<pid>/root their view of the file system, past every mount."""
    from cupcake_py.sandbox.secrets import concrete, fixed_secrets

    if src.scan is None:
        src.scan = scan(src)

    def concrete_all(patterns: Sequence[str]) -> bool:
        return all(p in STATE_PATTERNS or concrete(p.rstrip("/") or p, src.home) is not None for p in patterns)

    whole = not src.settings.get("share_processes", False)
    return {"state_paths": whole, "system": whole and concrete_all(src.system),
            "secrets": whole and fixed_secrets(src.home, src.sensitive)[1] and src.scan[1],
            "protected_paths": whole and concrete_all(src.protected)}
