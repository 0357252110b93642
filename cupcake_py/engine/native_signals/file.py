"""`file.*` signals about the event's target file (`resolved_file_path`).

| signal | value |
| file.exists | bool (a dangling symlink or a missing file: false) |
| file.size | bytes (int), null for non-regular files |
| file.sha256 | hex digest of the content; absent for files over MAX_HASH_BYTES |
| file.line_count | newline count (+1 when the last line has no newline), from at most MAX_SCAN_BYTES |
| file.head | the first HEAD_BYTES (8 KiB) as text (UTF-8, invalid bytes replaced); `file.head_<N>kb` for the first N KiB (1..1024) |

Only regular files are read (a FIFO or device could block); everything stops at the deadline.
Without a target file (e.g. Bash events) only `file.exists: false` is reported.
"""

from __future__ import annotations

import os
import re
import stat
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

HEAD_BYTES = 8 << 10
MAX_HEAD_KB = 1024
MAX_SCAN_BYTES = 64 << 20
MAX_HASH_BYTES = 256 << 20
CHUNK = 1 << 20
_HEAD_N = re.compile(r"^file\.head_([0-9]{1,4})kb$")


def _head_size(name: str) -> int | None:
    if name == "file.head":
        return HEAD_BYTES
    m = _HEAD_N.match(name)
    if m and 1 <= int(m[1]) <= MAX_HEAD_KB:
        return int(m[1]) << 10
    return None


def _scan(path: str, want_lines: bool, want_hash: bool, size: int, deadline: float) -> dict[str, Any]:
    out: dict[str, Any] = {}
    lines = 0
    last = b""
    digest = None
    if want_hash and size <= MAX_HASH_BYTES:
        import hashlib  # only for file.sha256 (hashlib loads OpenSSL)

        digest = hashlib.sha256()
    limit = max(MAX_SCAN_BYTES if want_lines else 0, size if digest is not None else 0)
    done = 0
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        while done < limit:
            if time.monotonic() > deadline:
                return out
            chunk = os.read(fd, min(CHUNK, limit - done))
            if not chunk:
                break
            if want_lines and done < MAX_SCAN_BYTES:
                lines += chunk.count(b"\n", 0, MAX_SCAN_BYTES - done)
                last = chunk[-1:]
            if digest is not None:
                digest.update(chunk)
            done += len(chunk)
    finally:
        os.close(fd)
    if want_lines:
        out["file.line_count"] = lines + (1 if done and last != b"\n" and done <= MAX_SCAN_BYTES else 0)
    if digest is not None and done >= size:
        out["file.sha256"] = digest.hexdigest()
    return out


def _head(path: str, n: int) -> str:
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        return os.read(fd, n).decode("utf-8", "replace")
    finally:
        os.close(fd)


def gather(names: list[str], event: dict[str, Any], root: str | os.PathLike[str], deadline: float,
           inside: Callable[[list[str]], list[str]] | None = None) -> dict[str, Any]:
    path = event.get("resolved_file_path")
    if not isinstance(path, str) or not path:
        return {"file.exists": False} if "file.exists" in names else {}
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return {"file.exists": False} if "file.exists" in names else {}
    regular = stat.S_ISREG(st.st_mode)
    out: dict[str, Any] = {}
    if "file.exists" in names:
        out["file.exists"] = True
    if "file.size" in names:
        out["file.size"] = st.st_size if regular else None
    if not regular:
        return out
    try:
        want_lines, want_hash = "file.line_count" in names, "file.sha256" in names
        if want_lines or want_hash:
            out.update(_scan(path, want_lines, want_hash, st.st_size, deadline))
        for name in names:
            n = _head_size(name)
            if n is not None and time.monotonic() <= deadline:
                out[name] = _head(path, n)
    except OSError:
        pass
    return out
