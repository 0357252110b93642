"""Tamper-evident cache entries: the per-user MAC key and the MAC of a cache entry.

The bundle cache (`engine/bundle.py`) and the native-code cache (`host/cache.py`) live in the
user's cache dir, which code running as the same user can write. A checksum alone proves
nothing (whoever rewrites an entry recomputes it), so every entry carries a MAC keyed by a
per-user secret: `<global config dir>/cache.key` (`$XDG_CONFIG_HOME/cupcake/cache.key`),
32 random bytes, mode 0600, owned by the user, created atomically on first use. The
global config dir is one of cupcake's protected state paths (the rulebook security
guardrails make reading the key a violation), so an agent cannot forge an entry.

- `key()`: the key (created when missing), memoised per process; None when it cannot be
  used: wrong owner, mode readable or writable by others, not a regular file, wrong size,
  not creatable. Then callers neither read nor write cache entries (every evaluation
  rebuilds) and a warning goes to stderr once per process. Never raises.
- `tag(key, *parts)`: the MAC of the concatenated parts (keyed BLAKE2b-256, RFC 7693's
  keyed mode: a MAC by construction).
- `same(a, b)`: constant-time comparison.

Why keyed BLAKE2b rather than HMAC-SHA256: both are standard MACs, but `import hmac` loads
hashlib and OpenSSL (8-20 ms measured on this machine, more than a whole routing-miss
`cupcake eval`), while `_blake2` (what `hashlib.blake2b` is) is built into CPython and costs
~0.15 ms; the native-code cache already uses it.
"""

from __future__ import annotations

import os
import stat

from cupcake_py.core.userdirs import global_config_dir, warn

TYPE_CHECKING = False
if TYPE_CHECKING:  # the same function; typeshed types the public name
    from hmac import compare_digest as _compare_digest
else:
    try:
        from _operator import _compare_digest  # what hmac.compare_digest is, without importing hmac
    except ImportError:  # not a CPython private module everywhere: the public one is the same function
        from hmac import compare_digest as _compare_digest

try:  # re-exported (`as blake2b`, `hexdigest`): the sandbox names its files and memo keys with it
    from _blake2 import blake2b as blake2b
except ImportError:  # pragma: no cover - CPython always has it
    from hashlib import blake2b as blake2b


def hexdigest(data: bytes, size: int = 20) -> str:
    """The BLAKE2b digest of `data`, `size` bytes long, as hex (not a MAC: no key)."""
    return str(blake2b(data, digest_size=size).hexdigest())

KEY_NAME = "cache.key"
KEY_BYTES = 32

_memo: list[bytes | None] = []


def key_path() -> str:
    return os.path.join(global_config_dir(), KEY_NAME)


def key() -> bytes | None:
    if not _memo:
        k, problem = _load_or_create(key_path())
        if problem is not None:
            warn(f"cache MAC key {problem}; caches are not used (every evaluation recompiles the policies)")
        _memo.append(k)
    return _memo[0]


def forget() -> None:
    """Drop the memoised key (tests that change $XDG_CONFIG_HOME in one process)."""
    _memo.clear()


def _check(fd: int, path: str) -> str | None:
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        return f"{path} is not a regular file"
    if st.st_uid != os.getuid():
        return f"{path} is owned by uid {st.st_uid}, not by this user"
    if st.st_mode & 0o077:
        return f"{path} has mode {stat.S_IMODE(st.st_mode):04o} (must be 0600: only this user may read it)"
    if st.st_size != KEY_BYTES:
        return f"{path} has {st.st_size} bytes, expected {KEY_BYTES}"
    return None


def _read(path: str) -> tuple[bytes | None, str | None]:
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        problem = _check(fd, path)
        if problem is not None:
            return None, problem
        data = os.read(fd, KEY_BYTES + 1)
    finally:
        os.close(fd)
    if len(data) != KEY_BYTES:
        return None, f"{path} could not be read whole"
    return data, None


def _create(path: str) -> None:
    """Write a new key under a temporary name, then hard-link it into place: the key appears
    whole or not at all, and a concurrent creator's key wins (link fails with EEXIST)."""
    directory = os.path.dirname(path)
    os.makedirs(directory, mode=0o700, exist_ok=True)
    # unique per creator, threads of one process included (cupcake serve's fleet threads create it too)
    tmp = os.path.join(directory, f".{KEY_NAME}.{os.getpid()}.{os.urandom(4).hex()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    try:
        try:
            os.write(fd, os.urandom(KEY_BYTES))
            os.fsync(fd)
        finally:
            os.close(fd)
        try:
            os.link(tmp, path)
        except FileExistsError:
            pass
    finally:
        os.unlink(tmp)


def _load_or_create(path: str) -> tuple[bytes | None, str | None]:
    try:
        try:
            return _read(path)
        except FileNotFoundError:
            _create(path)
            return _read(path)
    except OSError as e:
        if e.filename is None:
            e.filename = path
        return None, f"unusable ({e.filename}: {e.strerror or e})"


def tag(k: bytes, *parts: bytes | memoryview) -> bytes:
    h = blake2b(key=k, digest_size=32, person=b"cupcake-cache")
    for p in parts:
        h.update(p)
    return h.digest()


def same(a: bytes, b: bytes) -> bool:
    return bool(_compare_digest(a, b))
