"""The sensitive set of sensitive_data_protection as concrete paths, for the sandbox's hidden list.

In: the home directory, the project root and the event's working directory, the rulebook's
`additional_patterns` of sensitive_data_protection.
Out: `secret_environment(environ, passed)` → the names of environment variables holding secrets
(`sensitive_env`: tokens, passwords, API keys by name), unset inside the sandbox but those passed.
`hidden_paths(...)` → (sorted absolute paths that exist, complete), the union of
`fixed_secrets(home, additional)` (the candidates that need no walk, existing or not) and
`scan_roots(roots, memo_dir)` (what the walk finds): the home's credential
stores and shell histories (`HOME_SECRETS`), /etc/shadow and /etc/gshadow, the concrete
(`~`/absolute, glob-free) additional patterns, and every file or directory below the project
root and the working directory (depth ≤ `SCAN_DEPTH`, at most `SCAN_LIMIT` entries, skipping
`SKIP_DIRS`) whose name the policy calls sensitive. `complete` is False when the walk stopped
at its limit or an additional pattern is not concrete: the floor then does not claim to hide
every secret (input.sandbox.covers.secrets is false and the reading policies decide alone).

The name rules mirror `sensitive_name`/`harmless` of policies/builtins/sensitive_data_protection.rego
with the tables of policies/system/tables.rego (tests/sandbox/test_secrets.py parses the Rego
tables and fails when they differ). Never raises: an unreadable directory is skipped and makes
the set incomplete. With `memo_dir` (cupcake's sandbox dir) each root's walk reuses what the
last one read of every directory that has not changed since (sandbox/scan_memo.py).
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    from cupcake_py.sandbox.scan_memo import Entries, ScanMemo

# tables.rego (checked equal by tests/sandbox/test_secrets.py)
KEY_EXTS = frozenset({"pem", "key", "p12", "pfx", "jks", "keystore", "ppk", "asc", "gpg", "kdbx", "sqlite", "sqlite3",
                      "db", "tfstate", "age"})
TEXT_EXTS = frozenset({"json", "yaml", "yml", "toml", "ini", "cfg", "conf", "txt", "env", "xml", "properties", "csv"})
SECRET_NAMES = frozenset({
    "id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", ".npmrc", ".pypirc", ".netrc", "_netrc", ".git-credentials",
    ".pgpass", ".my.cnf", "kubeconfig", ".kubeconfig", ".envrc", ".htpasswd", "shadow", "gshadow",
})
SECRET_WORDS = frozenset({"secret", "credential", "password", "passwd", "apikey", "api_key", "api-key", "private_key",
                          "private-key", "token", "service-account", "service_account", "serviceaccount"})
HARMLESS_EXTS = frozenset({"example", "sample", "template", "dist", "tmpl", "pub"})
SECRET_DIR_NAMES = frozenset({"secrets", "secret", ".secrets", "credentials", "private_keys"})

# Below the home directory: the secret directories of tables.sdp_secret_dirs, the secret file
# names that live there, and the shell and REPL histories.
HOME_SECRETS = (
    ".ssh", ".gnupg", ".aws", ".config/gcloud", ".azure", ".kube", ".docker/config.json", ".gem/credentials",
    ".cargo/credentials", ".cargo/credentials.toml", ".password-store", ".config/gh/hosts.yml", ".vault-token",
    ".terraform.d/credentials", ".terraform.d/credentials.tfrc.json", ".config/op", ".local/share/keyrings",
    ".netrc", "_netrc", ".npmrc", ".pypirc", ".git-credentials", ".pgpass", ".my.cnf", ".kubeconfig", ".envrc",
    ".bash_history", ".zsh_history", ".zhistory", ".sh_history", ".history", ".local/share/fish/fish_history",
    ".python_history", ".node_repl_history", ".psql_history", ".mysql_history", ".sqlite_history", ".rediscli_history",
    ".lesshst", ".viminfo", ".wget-hsts", ".mozilla", ".config/google-chrome", ".config/chromium",
    # the coding agents' own credentials (OAuth tokens, provider API keys) and git's credential store
    ".claude/.credentials.json", ".local/share/opencode/auth.json", ".codex/auth.json", ".gemini/oauth_creds.json",
    ".config/git/credentials", ".config/github-copilot",
    # the credential stores of cloud and deployment CLIs (found by the second red team)
    ".s3cfg", ".boto", ".config/rclone/rclone.conf", ".terraformrc", ".config/hub", ".config/sops/age",
    ".pulumi/credentials.json", ".databrickscfg", ".config/doctl", ".fly/config.yml",
    ".config/configstore/firebase-tools.json", ".oci", ".m2/settings-security.xml", ".config/netlify",
    ".local/share/com.vercel.cli",
)
SYSTEM_SECRETS = ("/etc/shadow", "/etc/gshadow", "/etc/shadow-", "/etc/gshadow-")

SCAN_DEPTH = 4
SCAN_LIMIT = 20_000
MEMO_MIN_ENTRIES = 200  # a smaller tree is read faster than its memo
SKIP_DIRS = frozenset({".git", "node_modules", ".venv", "venv", "__pycache__", ".mypy_cache", ".ruff_cache",
                       ".pytest_cache", ".tox", ".nox", ".hypothesis"})


def _ext(name: str) -> str:
    parts = name.split(".")
    return parts[-1] if len(parts) > 1 else ""


def harmless(name: str) -> bool:
    if _ext(name) in HARMLESS_EXTS:
        return True
    return any(f".{e}." in name for e in HARMLESS_EXTS if e != "pub")


def sensitive_name(name: str) -> bool:
    """`name` (a file or directory name, any case) is sensitive by the policy's name rules."""
    n = name.lower()
    if harmless(n):
        return False
    if n == ".env" or n.startswith(".env.") or n.endswith(".env") or n in SECRET_NAMES:
        return True
    if any(n.startswith(k) for k in ("id_rsa", "id_dsa", "id_ecdsa", "id_ed25519")):
        return True
    if _ext(n) in KEY_EXTS:
        return True
    return any(w in n and (_ext(n) in TEXT_EXTS or n.endswith(w) or n.endswith(w + "s")) for w in SECRET_WORDS)


def memo_path(directory: str, root: str) -> str:
    """Where the walk below `root` is remembered (sandbox/scan_memo.py)."""
    from cupcake_py.core.cache_mac import hexdigest

    name = hexdigest(root.encode("utf-8", "surrogateescape"), 16)
    return os.path.join(directory, f"scan-{name}.json")


def rules_digest() -> str:
    """The name rules the scan applies (a memo made under other rules is not used)."""
    from cupcake_py.core.cache_mac import hexdigest

    tables = (KEY_EXTS, TEXT_EXTS, SECRET_NAMES, SECRET_WORDS, HARMLESS_EXTS, SECRET_DIR_NAMES, SKIP_DIRS)
    return hexdigest(repr([sorted(t) for t in tables]).encode(), 12)


def _classify(d: str) -> Entries:
    """(number of entries, names of the sensitive ones, names of the directories to walk) of d; OSError."""
    count = 0
    found: list[str] = []
    walk: list[str] = []
    for e in os.scandir(d):
        count += 1
        try:
            is_dir = e.is_dir(follow_symlinks=False)
        except OSError:
            is_dir = False
        name = e.name
        if is_dir and name.lower() in SECRET_DIR_NAMES and not harmless(name.lower()):
            found.append(name)
        elif sensitive_name(name):
            found.append(name)
        elif is_dir and name not in SKIP_DIRS:
            walk.append(name)
    return count, found, walk


def _entries(d: str, memo: ScanMemo | None) -> Entries:
    """`_classify(d)`, remembered by `memo` while d is unchanged; OSError."""
    if memo is None:
        return _classify(d)
    known = memo.entries_of(d)
    if known is not None:
        return known
    ident = memo.stat(d)  # before reading: a change from now on shows in the mtime
    got = _classify(d)
    memo.keep(d, ident, got)
    return got


def _scan(root: str, out: set[str], budget: list[int], memo: ScanMemo | None = None) -> bool:
    """Add the sensitive entries below `root`; False when the walk was cut short."""
    stack = [(root, 0)]
    complete = True
    while stack:
        d, depth = stack.pop()
        try:
            count, found, walk = _entries(d, memo)
        except OSError:
            complete = False
            continue
        budget[0] -= count
        if budget[0] < 0:
            return False
        out.update(os.path.join(d, name) for name in found)
        if walk and depth + 1 >= SCAN_DEPTH:
            complete = False
        elif walk:
            stack += [(os.path.join(d, name), depth + 1) for name in walk]
    return complete


def concrete(pattern: str, home: str) -> str | None:
    """The absolute path a `~`/absolute glob-free pattern names, else None."""
    from cupcake_py.core.userdirs import expand_home

    p = expand_home(pattern, home)
    if not os.path.isabs(p) or any(c in p for c in "*?["):
        return None
    return os.path.normpath(p)


def fixed_secrets(home: str, additional: Sequence[str] = ()) -> tuple[list[str], bool]:
    """(the secret paths that do not depend on a walk, existing or not: the home's credential stores
    and histories, the system's, the concrete additional patterns; whether every pattern was concrete)."""
    found = [os.path.join(home, rel) for rel in HOME_SECRETS] + list(SYSTEM_SECRETS)
    complete = True
    for pattern in additional:
        p = concrete(pattern, home)
        if p is None:
            complete = False
        else:
            found.append(p)
    return found, complete


def scan_roots(roots: Sequence[str], memo_dir: str | None = None) -> tuple[list[str], bool]:
    """(the sensitive entries below the roots, sorted; whether the walk was complete)."""
    found: set[str] = set()
    complete = True
    budget = [SCAN_LIMIT]
    for root in dict.fromkeys(roots):
        if not root or not os.path.isabs(root) or root == "/":
            continue
        path = memo_path(memo_dir, root) if memo_dir is not None else None
        memo = None
        if path is not None and os.path.exists(path):  # else a small tree: not worth importing the memo
            from cupcake_py.sandbox.scan_memo import ScanMemo

            memo = ScanMemo(path, root, rules_digest(), MEMO_MIN_ENTRIES)
        before = budget[0]
        if not _scan(root, found, budget, memo):
            complete = False
        if memo is not None:
            memo.save(root)
        elif path is not None and before - budget[0] >= MEMO_MIN_ENTRIES:
            from cupcake_py.sandbox.scan_memo import start

            start(path, root, rules_digest())  # remembered from the next walk on
    return sorted(found), complete


def hidden_paths(home: str, roots: Sequence[str], additional: Sequence[str] = (),
                 memo_dir: str | None = None) -> tuple[list[str], bool]:
    fixed, complete = fixed_secrets(home, additional)
    scanned, scan_complete = scan_roots(roots, memo_dir)
    return sorted(p for p in {*fixed, *scanned} if os.path.lexists(p)), complete and scan_complete


# Parts of an environment variable's name (split at `_`, any case) that make its value a secret,
# and pairs of consecutive parts that do (`API_KEY`, `ACCESS_KEY`, `PRIVATE_KEY`, …).
SECRET_ENV_PARTS = frozenset({"TOKEN", "SECRET", "SECRETS", "PASSWORD", "PASSWD", "PASSPHRASE", "APIKEY", "CREDENTIAL",
                              "CREDENTIALS", "PAT"})
SECRET_ENV_PAIRS = frozenset({("API", "KEY"), ("ACCESS", "KEY"), ("PRIVATE", "KEY"), ("SECRET", "KEY"),
                              ("AUTH", "KEY"), ("SIGNING", "KEY"), ("MASTER", "KEY"), ("LICENSE", "KEY")})


def sensitive_env(name: str) -> bool:
    """`name` is an environment variable whose value is a secret by its name (GITHUB_TOKEN,
    AWS_SECRET_ACCESS_KEY, OPENAI_API_KEY, PGPASSWORD, NPM_CONFIG__AUTH …)."""
    parts = [p for p in name.upper().split("_") if p]
    if any(p in SECRET_ENV_PARTS or p.endswith("PASSWORD") or p.endswith("TOKEN") for p in parts):
        return True
    return any(pair in SECRET_ENV_PAIRS for pair in zip(parts, parts[1:], strict=False)) or (
        len(parts) > 1 and parts[-1] in ("KEY", "AUTH"))


def secret_environment(environ: dict[str, str] | os._Environ[str], passed: Sequence[str] = ()) -> list[str]:
    """The names of `environ` that hold secrets (`sensitive_env`), but those `passed`: unset inside
    the sandbox (the reading stops `env`/`printenv`; an inline program printing os.environ is
    what only the floor can stop)."""
    keep = set(passed)
    return sorted(n for n in environ if n not in keep and sensitive_env(n))
