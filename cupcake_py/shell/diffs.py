"""Target files of a unified / git diff (what `patch` and `git apply` would touch).

In: the diff text and the number of leading path components to strip (None: `patch`
without -p, which uses the file name only; both that and the full name are reported).
Out: (kind, relative path) pairs: `writes` for modified/created files, `deletes` for files
the diff removes or renames away. Lines that are not headers are ignored. Never raises.
"""

from __future__ import annotations

import re

GIT_HEADER = r'^diff --git ("?)a/(.+?)\1 ("?)b/(.+?)\3$'  # patterns are compiled on first use (re's cache)


def _strip(path: str, strip: int | None) -> list[str]:
    path = path.split("\t", 1)[0].strip()
    if path.startswith('"') and path.endswith('"') and len(path) > 1:
        path = path[1:-1]
    if path == "/dev/null" or not path:
        return []
    if strip is None:
        name = path.rsplit("/", 1)[-1]
        return [path] if name == path else [path, name]
    parts = path.split("/")
    return ["/".join(parts[strip:])] if len(parts) > strip else []


def targets(diff: str, strip: int | None, *, git_style: bool = False) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    old: str | None = None
    deleted = False
    for line in diff.splitlines():
        m = re.match(GIT_HEADER, line)
        if m:
            deleted = False
            for p in _strip("a/" + m.group(2), 1 if strip is None and git_style else strip):
                out.append(("writes", p))
            for p in _strip("b/" + m.group(4), 1 if strip is None and git_style else strip):
                out.append(("writes", p))
            continue
        if line.startswith("deleted file mode"):
            deleted = True
        elif line.startswith("--- "):
            old = line[4:]
        elif line.startswith("+++ ") and old is not None:
            new = line[4:]
            kind = "deletes" if new.split("\t", 1)[0].strip() == "/dev/null" or deleted else "writes"
            for p in _strip(old, strip):
                out.append((kind if kind == "deletes" else "writes", p))
            for p in _strip(new, strip):
                out.append(("writes", p))
            old = None
        elif line.startswith(("rename from ", "copy from ")):
            for p in _strip(line.split(" ", 2)[2], 0):
                out.append(("deletes" if line.startswith("rename") else "reads", p))
        elif line.startswith(("rename to ", "copy to ")):
            for p in _strip(line.split(" ", 2)[2], 0):
                out.append(("writes", p))
        elif line.startswith("*** ") and not line.startswith("*** Begin"):
            for p in _strip(line[4:], strip):
                out.append(("writes", p))
    if deleted:
        out = [("deletes", p) for _, p in out] + out
    return list(dict.fromkeys(out))
