"""The user's directories that cupcake-py reads and writes (str paths: this module is on the
start-up path of every `cupcake eval`, which does not import pathlib), and how its caches
are written: private to the user, replaced atomically.

- `home_dir()`: $HOME as set, else the user's home directory; `expand_home(path)` replaces
  a leading `~` / `$HOME` / `${HOME}` with it.
- `user_cache_dir(name)`: `$XDG_CACHE_HOME/cupcake-py/<name>` (else `~/.cache/...`); the
  bundle cache is "bundles", the host's native-code cache "modules".
- `global_config_dir()`: `$XDG_CONFIG_HOME/cupcake` (else `~/.config/cupcake`), the global
  configuration (and the cache MAC key); `user_state_dir()`: `$XDG_STATE_HOME/cupcake-py`
  (else `~/.local/state/cupcake-py`), the per-user state (the audit/history database,
  cupcake_py/governance), protected by the self-protection guardrails.
- `org_config_dir()`: `$CUPCAKE_ORG_CONFIG`, else `/etc/cupcake`: the organisation's tier above
  the global one (docs/fleet.md), normally writable by root only.
- `warn(text)`: a security-relevant warning, always written to stderr (whatever --log-level).
- `private_dir(path, what)`: create it 0700 if needed; False (and a log line) when it cannot
  be created or when someone else owns it or can write to it (a cache entry that others can
  plant is not trusted: native code is loaded from it).
- `atomic_write(directory, name, chunks, suffix)`: write to a temporary file in `directory`
  and rename it over `name`, so concurrent `cupcake eval` processes only ever see whole
  entries; the temporary file is removed on any failure, which is re-raised.
"""

from __future__ import annotations

import os
import stat

from cupcake_py.core.lazylog import LazyLogger

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable

log = LazyLogger(__name__)


def home_dir() -> str:
    return os.environ.get("HOME") or os.path.expanduser("~")


def expand_home(path: str, home: str | None = None) -> str:
    """`~`, `~/…`, `$HOME/…` and `${HOME}/…` with the home directory (`home`, else
    `home_dir()`); anything else unchanged (no `~user`, no other variables)."""
    h = (home or home_dir()).rstrip("/")
    if path == "~" or path.startswith("~/"):
        return h + path[1:]
    for var in ("$HOME", "${HOME}"):
        if path == var or path.startswith(var + "/"):
            return h + path[len(var):]
    return path


def user_cache_dir(name: str) -> str:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(home_dir(), ".cache")
    return os.path.join(base, "cupcake-py", name)


def global_config_dir() -> str:
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(home_dir(), ".config")
    return os.path.join(os.path.normpath(base), "cupcake")


def user_state_dir() -> str:
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(home_dir(), ".local", "state")
    return os.path.join(os.path.normpath(base), "cupcake-py")


ORG_CONFIG_DEFAULT = "/etc/cupcake"


def org_config_dir() -> str:
    return os.path.normpath(os.environ.get("CUPCAKE_ORG_CONFIG") or ORG_CONFIG_DEFAULT)


def warn(text: str) -> None:
    import sys

    try:
        sys.stderr.write(f"cupcake: WARNING: {text}\n")
    except (OSError, ValueError):  # stderr closed: the warning cannot be shown, the answer is unaffected
        pass


def private_dir(path: str, what: str) -> bool:
    try:
        os.makedirs(path, mode=0o700, exist_ok=True)
        st = os.stat(path)
    except OSError as e:
        log.debug("%s disabled: %s", what, e)
        return False
    if st.st_uid != os.getuid() or st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        log.warning("%s %s is not private to this user; not using it", what, path)
        return False
    return True


def _exclusive_temp(directory: str, suffix: str) -> tuple[int, str]:
    """A new file `.tmp-<random><suffix>` in `directory`, created exclusively, mode 0600, not
    inherited by children: what tempfile.mkstemp makes (importing tempfile costs a `cupcake
    test` first run ~2 ms: shutil, random, bz2, lzma)."""
    flags = os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    for _ in range(100):
        path = os.path.join(directory, f".tmp-{os.urandom(8).hex()}{suffix}")
        try:
            return os.open(path, flags, 0o600), path
        except FileExistsError:
            continue
    raise FileExistsError(f"no unused temporary file name in {directory}")


def atomic_write(directory: str, name: str, chunks: Iterable[bytes], suffix: str) -> None:
    fd, tmp = _exclusive_temp(directory, suffix)
    try:
        with os.fdopen(fd, "wb") as f:
            for chunk in chunks:
                f.write(chunk)
        os.replace(tmp, os.path.join(directory, name))
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
