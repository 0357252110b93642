"""`input.secrets_below`: secret-looking files inside the directories a Bash command reads.

In:  the policy input of a Bash event with `shell.effects.reads` and builtin_config holding
     `sensitive_data_protection` (only then is it computed).
Out: `input.secrets_below = {dir: [file, …]}` for every read effect that is a directory
     (`grep -r API .`, `tar cf - .`, `cp -r . /tmp/x`; and the working directory of rg/ag/ack) when some command is a tree reader
     (TREE_READERS), listing the files whose name or
     directory looks like a secret by a cheap pre-filter (hidden files, key/cert/database
     extensions, secret words, `secrets/`, `.ssh/`, …). The policy
     (sensitive_data_protection.sensitive) decides which of them really are secrets; this list
     only keeps the policy input small. Bounded: MAX_ENTRIES entries walked per event,
     MAX_FILES files per directory, VCS/dependency directories skipped. A directory that
     cannot be walked completely is listed with the marker entry `<dir>/.env` so the policy
     treats it as holding a secret (fail safe: unknown content may hold one).
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

MAX_ENTRIES = 5000
MAX_FILES = 32
MAX_DEPTH = 8
SKIP_DIRS = frozenset({".git", "node_modules", ".venv", "venv", "__pycache__", ".mypy_cache", ".ruff_cache",
                       ".pytest_cache", ".tox", "dist", "build", "target", ".cache"})
WORDS = ("secret", "credential", "password", "passwd", "token", "apikey", "api_key", "api-key", "private", "id_rsa",
         "id_dsa", "id_ecdsa", "id_ed25519", "kubeconfig", "netrc", "pgpass")
EXTS = (".pem", ".key", ".p12", ".pfx", ".jks", ".keystore", ".ppk", ".asc", ".gpg", ".kdbx", ".db", ".sqlite",
        ".sqlite3", ".env")
# Commands that can read a whole tree (the policy's `recursive` decides with their flags).
TREE_READERS = frozenset({"grep", "egrep", "fgrep", "zgrep", "rg", "ag", "ack", "tar", "zip", "7z", "rsync", "scp",
                          "cpio", "cp", "find", "ugrep", "sift", "pt"})
CWD_SEARCHERS = frozenset({"rg", "ag", "ack", "ugrep", "sift", "pt"})
DIR_WORDS = ("secret", "credential", ".ssh", ".aws", ".gnupg", ".kube", ".docker", ".azure", "gcloud")


def candidate(name: str, in_secret_dir: bool) -> bool:
    """The cheap pre-filter: a name (in a secret-looking directory or not) that may be a secret."""
    n = name.lower()
    return in_secret_dir or n.startswith(".") or n.endswith(EXTS) or any(w in n for w in WORDS)


def scan(root: str) -> list[str]:
    found: list[str] = []
    budget = MAX_ENTRIES
    stack = [(root, 0, False)]
    while stack and len(found) < MAX_FILES:
        d, depth, secret_dir = stack.pop()
        try:
            with os.scandir(d) as it:
                entries = list(it)
        except OSError:
            return [*found, os.path.join(d, ".env")]  # unreadable: may hold a secret
        for e in entries:
            budget -= 1
            if budget < 0:
                return [*found, os.path.join(d, ".env")]
            try:
                is_dir = e.is_dir(follow_symlinks=False)
            except OSError:
                return [*found, os.path.join(d, ".env")]
            if is_dir:
                if e.name not in SKIP_DIRS and depth < MAX_DEPTH:
                    stack.append((e.path, depth + 1, secret_dir or any(w in e.name.lower() for w in DIR_WORDS)))
            elif candidate(e.name, secret_dir):
                found.append(e.path)
    return found


def add_secrets_below(policy_input: dict[str, Any]) -> None:
    if "sensitive_data_protection" not in (policy_input.get("builtin_config") or {}):
        return
    shell = policy_input.get("shell")
    if not isinstance(shell, dict):
        return
    reads = (shell.get("effects") or {}).get("reads")
    if not isinstance(reads, list):
        return
    commands = [c for c in shell.get("commands") or [] if isinstance(c, dict)]
    if not {c.get("name") for c in commands} & TREE_READERS:
        return
    # rg/ag/ack without a path operand search their working directory
    dirs = reads + [c["cwd"] for c in commands if c.get("name") in CWD_SEARCHERS and isinstance(c.get("cwd"), str)]
    out = {}
    for p in dict.fromkeys(dirs):
        if isinstance(p, str) and os.path.isdir(p):
            files = scan(p)
            if files:
                out[p] = files
    if out:
        policy_input["secrets_below"] = out
