"""Activation: a downloaded bundle archive -> the tree and MAC'd pointer the engine's org tier
reads (`engine/fleet_active.py`), atomically, or a refusal that leaves the active bundle alone.

In: the source's name and config (`engine/fleet_config.BundleSource`), the verification keys, the
archive bytes. Steps, each of which refuses (`ActivationError`, the previous bundle stays active):
1. read the archive (opa_bundle.read: truncated/corrupt/unsafe entries refused);
2. verify the signature as the source's `signing:` block demands (signing.verify);
3. the manifest's `rego_version` / `file_rego_versions` must be valid; they are written into the
   tree's rulebook.yml, so the engine parses each file as the bundle says (v0 or v1, issue 32);
4. rollback: against the active bundle, unless `allow_rollback`: refused when its signature is
   older (`iat`), when both revisions are numeric (`42`, `2026.11.27.1`) and the new one is
   lower, or when it reuses the active revision with different content (a replay);
5. extract to `trees/<digest>` under a temporary name and rename it into place; compile it for
   every harness it has policies for (the engine's build, which also warms the bundle cache):
   policies that do not compile are refused;
6. write the pointer (MAC'd; atomic rename) — the switch; older trees but the previous one removed.
An archive with the same content as the active one is "unchanged" (nothing written).
Concurrent activations of one source are serialised by a lock file.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import time

from cupcake_py.core import cache_mac
from cupcake_py.core.errors import CupcakeError
from cupcake_py.core.userdirs import atomic_write, private_dir
from cupcake_py.engine import fleet_active
from cupcake_py.fleet import opa_bundle, signing
from cupcake_py.fleet.build import RULEBOOK_DATA

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from cupcake_py.engine.fleet_config import BundleSource, FleetConfig


class ActivationError(CupcakeError):
    pass


class RollbackError(ActivationError):
    pass


def verification_for(config: FleetConfig, org_dir: str, spec: BundleSource) -> signing.VerificationConfig | None:
    from cupcake_py.engine.fleet_config import key_text

    if spec.signing is None:
        return None
    keys = {k: signing.VerificationKey(key_text(org_dir, v), v.algorithm) for k, v in config.keys.items()}
    return signing.VerificationConfig(keys, spec.signing.keyid, spec.signing.scope)


def content_digest(bundle: opa_bundle.Bundle) -> str:
    """sha256 over the signed files' names and hashes: the same bundle from any source, one digest."""
    h = hashlib.sha256()
    for name, data in sorted(bundle.signed_files().items()):
        h.update(f"{name}\0{hashlib.sha256(data).hexdigest()}\n".encode())
    return h.hexdigest()


def _numeric(revision: str) -> tuple[int, ...] | None:
    return tuple(int(p) for p in re.split(r"[.\-]", revision)) if re.fullmatch(r"\d+([.\-]\d+)*", revision) else None


def rollback_problem(new: dict[str, Any], active: dict[str, Any]) -> str | None:
    """Why `new` (revision, iat, digest) is older than or replays `active`; None when it is not."""
    if new["revision"] == active.get("revision") and new["revision"] and new["digest"] != active.get("digest"):
        return f"revision {new['revision']!r} is already active with different content (a replayed or reused revision)"
    if isinstance(new.get("iat"), int | float) and isinstance(active.get("iat"), int | float) \
            and new["iat"] < active["iat"]:
        return (f"its signature (iat {new['iat']}) is older than the active bundle's (iat {active['iat']}, "
                f"revision {active.get('revision')!r})")
    a, b = _numeric(new["revision"]), _numeric(str(active.get("revision", "")))
    if a is not None and b is not None and a < b:
        return f"revision {new['revision']!r} is older than the active revision {active.get('revision')!r}"
    return None


def _tree_files(bundle: opa_bundle.Bundle) -> dict[str, bytes]:
    """The bundle's files laid out as a configuration directory: the rulebook data as rulebook.yml,
    with the manifest's `rego_version` / `file_rego_versions` (paths relative to the bundle root,
    which is the configuration dir) written into it, so the engine parses each file as the bundle says."""
    files = {n: b for n, b in bundle.files.items() if n != opa_bundle.SIGNATURES}
    text = files.get(RULEBOOK_DATA)
    m = bundle.manifest
    if m.raw.get("rego_version") is None and not m.file_rego_versions:
        if text is not None:
            files["rulebook.yml"] = text
        return files
    import yaml

    try:
        rulebook = yaml.safe_load(text.decode("utf-8")) if text else {}
    except (yaml.YAMLError, UnicodeDecodeError) as e:
        raise ActivationError(f"{RULEBOOK_DATA} is not YAML: {e}") from None
    if not isinstance(rulebook, dict):
        raise ActivationError(f"{RULEBOOK_DATA} is not a mapping")
    rulebook["rego_version"] = m.rego_version
    if m.file_rego_versions:
        rulebook["file_rego_versions"] = {k.lstrip("/"): v for k, v in m.file_rego_versions.items()}
    files["rulebook.yml"] = yaml.safe_dump(rulebook, sort_keys=True).encode()
    return files


class _Lock:
    def __init__(self, path: str) -> None:
        self.path = path
        self.fd = -1

    def __enter__(self) -> _Lock:
        import fcntl

        self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        fcntl.flock(self.fd, fcntl.LOCK_EX)
        return self

    def __exit__(self, *exc: object) -> None:
        os.close(self.fd)


def _check_manifest(manifest: opa_bundle.Manifest) -> None:
    from cupcake_py.rego.versions import RegoVersionError, RegoVersions

    try:
        RegoVersions.from_manifest(manifest.raw)
    except RegoVersionError as e:
        raise ActivationError(f".manifest: {e}") from None


def _compile(tree: str) -> None:
    from cupcake_py.engine import bundle as engine_bundle
    from cupcake_py.engine.project import ConfigDir
    from cupcake_py.fleet.build import harnesses_in

    for h in harnesses_in(tree):
        try:
            engine_bundle.load(ConfigDir("org", tree, tree, h))
        except CupcakeError as e:
            raise ActivationError(f"the bundle's {h} policies do not build: {e}") from None


def activate(name: str, blob: bytes, verification: signing.VerificationConfig | None,
             allow_rollback: bool = False, source: str = "", now: float | None = None) -> dict[str, Any]:
    """Activate the archive `blob` for source `name`; the new pointer record (with "changed")."""
    now = time.time() if now is None else now
    try:
        bundle = opa_bundle.read(blob)
        payload = signing.verify(bundle, verification)
        manifest = bundle.manifest
        _check_manifest(manifest)
    except CupcakeError as e:
        raise ActivationError(str(e)) from None
    key = cache_mac.key()
    if key is None:
        raise ActivationError("the cache MAC key is unusable: an activated bundle could not be checked by the engine")
    store = fleet_active.store_dir(name)
    if not private_dir(store, "fleet store"):
        raise ActivationError(f"the fleet store {store} cannot be created or is not private to this user")
    with _Lock(os.path.join(store, ".lock")):
        active, _ = fleet_active.read_pointer(name, key)
        digest = content_digest(bundle)
        new = {"name": name, "revision": manifest.revision, "digest": digest,
               "iat": payload.get("iat") if payload else None, "signed": payload is not None,
               "keyid": (payload or {}).get("kid"), "source": source, "activated_at": now,
               "manifest": manifest.raw}
        if active is not None and active.get("digest") == digest and \
                fleet_active.tree_problem(name, active) is None:
            return {**active, "changed": False}
        if active is not None and not allow_rollback:
            problem = rollback_problem(new, active)
            if problem is not None:
                raise RollbackError(f"refused: {problem} (set allow_rollback: true to allow)")
        files = _tree_files(bundle)
        trees = os.path.join(store, "trees")
        os.makedirs(trees, mode=0o700, exist_ok=True)
        tree_name = digest[:32]
        final = os.path.join(trees, tree_name)
        tmp = os.path.join(trees, f".tmp-{tree_name}-{os.getpid()}")
        shutil.rmtree(tmp, ignore_errors=True)
        for rel, data in files.items():
            p = os.path.join(tmp, rel)
            os.makedirs(os.path.dirname(p), mode=0o700, exist_ok=True)
            with open(p, "wb") as f:
                f.write(data)
        _compile(tmp)
        if os.path.exists(final):
            shutil.rmtree(final)
        os.replace(tmp, final)
        _compile(final)  # the cache key names the files relative to the tree: warm the final location's entries
        record = {**new, "tree": os.path.join("trees", tree_name),
                  "files": {rel: hashlib.sha256(data).hexdigest() for rel, data in sorted(files.items())}}
        atomic_write(store, "active", (fleet_active.encode_pointer(record, key),), ".active")
        keep = {tree_name, os.path.basename(str(active.get("tree", ""))) if active else ""}
        for old in os.listdir(trees):
            if old not in keep and not old.startswith(".tmp-"):
                shutil.rmtree(os.path.join(trees, old), ignore_errors=True)
    return {**record, "changed": True}


def describe(record: dict[str, Any]) -> str:
    return json.dumps({k: record.get(k) for k in ("name", "revision", "digest", "signed", "keyid", "changed")})
