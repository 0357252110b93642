"""Member names of a tar or zip archive that a command extracts (tar -x, unzip).

In: the archive's absolute path and the byte budget left. Out: the member names (as stored,
relative), or a reason why they cannot be listed (missing, unreadable, corrupt, larger than
the budget, more members than MAX_MEMBERS): the caller then marks the writes opaque.
tarfile/zipfile are imported only here (a rare branch). Never raises.
"""

from __future__ import annotations

import os

MAX_MEMBERS = 2000


def members(path: str, kind: str, budget: int) -> tuple[list[str] | None, str]:
    if os.path.exists(path) and not os.path.isfile(path):
        return None, f"archive {path} is not a regular file (device, pipe or socket); its members are not known"
    try:
        size = os.path.getsize(path)
    except OSError as exc:
        return None, f"archive {path} cannot be read ({exc.strerror or exc}); its members are not known"
    if size > budget:
        return None, f"archive {path} ({size} bytes) exceeds the analysis byte budget"
    try:
        if kind == "zip":
            import zipfile

            with zipfile.ZipFile(path) as zf:
                names = zf.namelist()
        else:
            import tarfile

            names = []
            with tarfile.open(path, "r:*") as tf:
                for member in tf:
                    names.append(member.name)
                    if len(names) > MAX_MEMBERS:
                        break
    except Exception as exc:  # noqa: BLE001 - any failure to list means: members unknown (opaque)
        return None, f"archive {path} cannot be listed ({type(exc).__name__}); its members are not known"
    if len(names) > MAX_MEMBERS:
        return None, f"archive {path} has more than {MAX_MEMBERS} members"
    return names, ""


def strip(name: str, components: int) -> str | None:
    parts = [p for p in name.split("/") if p not in ("", ".")]
    if len(parts) <= components:
        return None
    return "/".join(parts[components:])
