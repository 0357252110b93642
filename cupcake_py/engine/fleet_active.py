"""The org tier on the eval path: which configuration directories the organisation imposes, read
from disk only (no network, no YAML or pydantic on a cache hit, no PyJWT: signatures were
checked when the bundle was activated, docs/fleet.md).

In: the harness name; the environment (`$CUPCAKE_ORG_CONFIG`, else /etc/cupcake, see
`userdirs.org_config_dir`). Out: `org_configs(harness) -> [ConfigDir(scope "org")]`:
- the org directory itself when it holds policies or a rulebook (a plain tier, like the global one);
- for every bundle source named in its `fleet.yml`: the tree of the bundle last activated for it
  (`fleet/activate.py`), at `<user_state_dir>/fleet/<name>/trees/<digest>/`.

The activated bundle is trusted only through its pointer `<user_state_dir>/fleet/<name>/active`:
MAGIC, a keyed MAC (`cache_mac`, the per-user key) and JSON naming the tree and the sha256 of every
file in it. Before use, the tree must hold exactly those files with those hashes (no file added,
removed or changed since activation). A source with no usable pointer, a pointer whose MAC fails,
or a tree that differs is a source with no good bundle: `FleetError` (the evaluation fails
closed, naming the source and why) unless the source says `on_missing: allow` (then it is left
out with a warning). A fleet.yml that does not validate fails closed as well.

fleet.yml is parsed once per content: the parsed list of sources is kept in
`<user_cache_dir>/fleet/<sha256 of the file>.json`, MAC'd like the bundle cache; a miss parses the
YAML (engine/fleet_config.py) and writes the entry.
"""

from __future__ import annotations

import os

from cupcake_py.core import cache_mac, jsonio
from cupcake_py.core.errors import CupcakeError
from cupcake_py.core.userdirs import (
    atomic_write,
    org_config_dir,
    private_dir,
    user_cache_dir,
    user_state_dir,
    warn,
)
from cupcake_py.engine.project import ConfigDir, is_config_dir

TYPE_CHECKING = False
if TYPE_CHECKING:
    from hashlib import sha256 as sha256
    from typing import Any
else:
    try:
        from _sha2 import sha256  # CPython 3.12+
    except ImportError:
        try:
            from _sha256 import sha256  # CPython 3.11
        except ImportError:
            from hashlib import sha256

POINTER_MAGIC = b"CUPCAKE-FLEET-ACTIVE-1\n"
PARSED_MAGIC = b"CUPCAKE-FLEET-CONFIG-1\n"
FLEET_FILE = "fleet.yml"


class FleetError(CupcakeError):
    pass


def store_dir(name: str) -> str:
    return os.path.join(user_state_dir(), "fleet", name)


def pointer_path(name: str) -> str:
    return os.path.join(store_dir(name), "active")


def encode_pointer(record: dict[str, Any], key: bytes) -> bytes:
    body = jsonio.dumps(record)
    return POINTER_MAGIC + cache_mac.tag(key, POINTER_MAGIC, body) + body


def read_pointer(name: str, key: bytes | None) -> tuple[dict[str, Any] | None, str | None]:
    """(pointer record, None) or (None, why there is none usable)."""
    path = pointer_path(name)
    try:
        with open(path, "rb") as f:
            blob = f.read()
    except FileNotFoundError:
        return None, "no bundle has been activated yet (run `cupcake bundle pull`)"
    except OSError as e:
        return None, f"{path} cannot be read: {e.strerror or e}"
    if key is None:
        return None, "the cache MAC key is unusable, so the activated bundle cannot be checked"
    n = len(POINTER_MAGIC)
    if not blob.startswith(POINTER_MAGIC) or len(blob) < n + 32 or \
            not cache_mac.same(cache_mac.tag(key, POINTER_MAGIC, blob[n + 32:]), blob[n:n + 32]):
        return None, f"{path} fails its MAC check (modified, or written under another key)"
    try:
        record = jsonio.loads(blob[n + 32:])
    except jsonio.JSONError:
        return None, f"{path} is not valid"
    if not isinstance(record, dict) or not isinstance(record.get("tree"), str) or \
            not isinstance(record.get("files"), dict):
        return None, f"{path} is not valid"
    return record, None


def tree_problem(name: str, record: dict[str, Any]) -> str | None:
    """None when the activated tree holds exactly the files the pointer lists, with their hashes."""
    root = os.path.join(store_dir(name), record["tree"])
    found: set[str] = set()
    try:
        for d, dirs, files in os.walk(root, followlinks=False):
            for n in dirs:
                if os.path.islink(os.path.join(d, n)):
                    return f"{os.path.join(d, n)} is a symbolic link (not part of the activated bundle)"
            for n in files:
                found.add(os.path.relpath(os.path.join(d, n), root))
    except OSError as e:
        return f"{root} cannot be read: {e}"
    listed: dict[str, str] = record["files"]
    if not found and not os.path.isdir(root):
        return f"the activated tree {root} is missing"
    if found != set(listed):
        extra = sorted(found - set(listed))
        missing = sorted(set(listed) - found)
        return f"the activated tree {root} was changed (" + ", ".join(
            ([f"added: {', '.join(extra[:3])}"] if extra else []) + ([f"removed: {', '.join(missing[:3])}"]
                                                                   if missing else [])) + ")"
    for rel, want in listed.items():
        p = os.path.join(root, rel)
        try:
            if os.path.islink(p):
                return f"{p} is a symbolic link (not part of the activated bundle)"
            with open(p, "rb") as f:
                got = sha256(f.read()).hexdigest()
        except OSError as e:
            return f"{p} cannot be read: {e.strerror or e}"
        if got != want:
            return f"{p} was changed after activation"
    return None


def _parsed_sources(org: str, key: bytes | None) -> list[list[str]]:
    """[[name, on_missing], ...] of the org dir's fleet.yml ([] without one)."""
    path = os.path.join(org, FLEET_FILE)
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except FileNotFoundError:
        return []
    except OSError as e:
        raise FleetError(f"{path} cannot be read: {e.strerror or e}") from None
    digest = sha256(raw).hexdigest()
    cache = user_cache_dir("fleet")
    entry = os.path.join(cache, f"{digest}.json")
    if key is not None:
        try:
            with open(entry, "rb") as f:
                blob = f.read()
            n = len(PARSED_MAGIC)
            if blob.startswith(PARSED_MAGIC) and cache_mac.same(cache_mac.tag(key, PARSED_MAGIC, raw, blob[n + 32:]),
                                                                blob[n:n + 32]):
                value = jsonio.loads(blob[n + 32:])
                if isinstance(value, list):
                    return value
        except (OSError, jsonio.JSONError):
            pass
    from cupcake_py.engine.fleet_config import FleetConfigError, parse

    try:
        config = parse(raw.decode("utf-8", errors="replace"), path)
    except FleetConfigError as e:
        raise FleetError(str(e)) from None
    sources = [[name, spec.on_missing] for name, spec in sorted(config.bundles.items())]
    if key is not None and private_dir(cache, "fleet config cache"):
        body = jsonio.dumps(sources)
        try:
            atomic_write(cache, f"{digest}.json", (PARSED_MAGIC, cache_mac.tag(key, PARSED_MAGIC, raw, body), body),
                         ".json")
        except OSError:
            pass
    return sources


def _has_tier_files(org: str) -> bool:
    return any(os.path.exists(os.path.join(org, n)) for n in ("rulebook.yml", "policies", "system"))


def org_configs(harness: str, org: str | None = None) -> list[ConfigDir]:
    """The org tier's configuration directories for this harness, in evaluation order."""
    org = org_config_dir() if org is None else org
    try:
        if not is_config_dir(org):
            return []
    except CupcakeError as e:
        raise FleetError(f"the org config dir: {e}") from None
    out: list[ConfigDir] = []
    if _has_tier_files(org):
        out.append(ConfigDir("org", org, org, harness))
    if not os.path.exists(os.path.join(org, FLEET_FILE)):
        return out
    key = cache_mac.key()
    for name, on_missing in _parsed_sources(org, key):
        record, problem = read_pointer(name, key)
        if record is not None:
            problem = tree_problem(name, record)
        if problem is None and record is not None:
            tree = os.path.join(store_dir(name), record["tree"])
            out.append(ConfigDir("org", tree, tree, harness))
            continue
        if on_missing == "allow":
            warn(f"org bundle {name!r}: no good bundle ({problem}); left out (on_missing: allow)")
            continue
        raise FleetError(f"org bundle {name!r} has no verified, activated bundle: {problem} "
                         "(fail closed: on_missing is deny)")
    return out
