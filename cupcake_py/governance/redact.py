"""What the audit log and `input.history` keep of a tool call: redacted, never secrets.

In: the preprocessed event (tool_name, tool_input, resolved_file_path, affected_files, result).
Out:
- `redact_value(v, sensitive_path)`: a copy where (1) values of secret-named keys
  (password, token, api_key, secret, credential, private_key, authorization, …) are
  "[REDACTED]"; (2) inside strings, token/key patterns (AWS, GitHub, Slack, OpenAI/Anthropic
  style `sk-…`, Google `AIza…`, JWTs, PEM private keys, `Bearer …`, URL passwords) and the
  values of secret-named assignments (`API_TOKEN=…`, `password: …`, `--token …`) are
  replaced; (3) when the call touches a known secret path (.env, ~/.ssh/, *.pem, credentials
  files: the list of the sensitive-data rules), every string except the path itself is
  "[REDACTED: secret path]".
- `call_digest(event) -> (summary, call_key, input_json, input_sha256)`: the normalised call
  (Bash: the whitespace-collapsed command; file tools: tool + path; others: tool + args), a
  one-line redacted summary (≤ 200 chars), a sha256 key of the normalised redacted call (what
  loop_guard compares), the redacted input as JSON clipped to MAX_INPUT bytes and the sha256
  of the whole redacted JSON.
Pure functions; never fail on odd input (non-dict args, non-string values are kept as is).
"""

from __future__ import annotations

from cupcake_py.core import jsonio
from cupcake_py.engine.bundle import sha256  # the builtin sha256 (hashlib loads OpenSSL: ~2 ms)

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re
    from typing import Any

MAX_INPUT = 4000
MAX_SUMMARY = 200
REDACTED = "[REDACTED]"
SECRET_FILE = "[REDACTED: secret path]"


class _Lazy:
    """A regex compiled on first use: most calls hold no candidate for most patterns, and
    compiling all of them costs a few ms per `cupcake eval` (the `needles` guard skips them)."""

    __slots__ = ("source", "compiled")

    def __init__(self, source: str) -> None:
        self.source = source
        self.compiled: re.Pattern[str] | None = None

    def get(self) -> re.Pattern[str]:
        if self.compiled is None:
            import re

            self.compiled = re.compile(self.source)
        return self.compiled


_SECRET_WORDS = (r"(?:secret|token|passw(?:or)?d|passwd|api[_-]?key|access[_-]?key|private[_-]?key|credential"
                 r"|auth(?:orization)?|session[_-]?key|client[_-]?secret)")
# lowercase substrings without which no _SECRET_WORDS match is possible
_WORD_NEEDLES = ("secret", "token", "passw", "passwd", "key", "credential", "auth")
SECRET_KEY = _Lazy(rf"(?i)^[a-z0-9_.-]*{_SECRET_WORDS}[a-z0-9_.-]*$")

# (needles, pattern, replacement): applied in order to every string value in which one of the
# lowercase needles occurs.
PATTERNS: tuple[tuple[tuple[str, ...], _Lazy, str], ...] = (
    (("private key",), _Lazy(r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|$)"),
     "[REDACTED PRIVATE KEY]"),
    (("akia", "asia"), _Lazy(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"), REDACTED),
    (("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
     _Lazy(r"\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})"), REDACTED),
    (("xox",), _Lazy(r"\bxox[abposr]-[A-Za-z0-9-]{10,}"), REDACTED),
    (("sk-",), _Lazy(r"\bsk-[A-Za-z0-9_-]{16,}"), REDACTED),
    (("aiza",), _Lazy(r"\bAIza[0-9A-Za-z_-]{30,}"), REDACTED),
    (("eyj",), _Lazy(r"\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"), REDACTED),
    (("bearer", "basic"), _Lazy(r"(?i)\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]{8,}"), r"\1 " + REDACTED),
    (("@",), _Lazy(r"(?i)(://[^/\s:@]+:)[^@\s/]+@"), r"\1" + REDACTED + "@"),
    # NAME=value / NAME: value / "name": "value" where NAME is secret-ish (dotenv, YAML, JSON, shell)
    (_WORD_NEEDLES, _Lazy(rf"(?i)([A-Za-z0-9_.-]*{_SECRET_WORDS}[A-Za-z0-9_.-]*[\"']?\s*[=:]\s*)"
                          r"(\"[^\"\n]*\"|'[^'\n]*'|[^\s,;&|]+)"), r"\1" + REDACTED),
    # --token VALUE / --password=VALUE
    (_WORD_NEEDLES, _Lazy(rf"(?i)(--?[a-z0-9-]*{_SECRET_WORDS}[a-z0-9-]*(?:=|\s+))(\"[^\"]*\"|'[^']*'|\S+)"),
     r"\1" + REDACTED),
)

# The known secret paths (the sensitive-data rules' list, policies/builtins/sensitive_data_protection.rego).
SECRET_PATH = _Lazy("|".join((
    r"(^|/)\.env(\.[^/]*)?$", r"(^|/)[^/]*\.env$", r"(^|/)\.envrc$",
    r"\.(pem|key|p12|pfx|jks|keystore|ppk|asc|gpg|kdbx)$",
    r"(^|/)id_(rsa|dsa|ecdsa|ed25519)$", r"/\.ssh/", r"/\.gnupg/",
    r"/\.aws/(credentials|config)$", r"/\.config/gcloud/", r"/\.azure/", r"(^|/)\.?kubeconfig$", r"/\.kube/config$",
    r"/\.docker/config\.json$", r"(^|/)\.(npmrc|pypirc|netrc|git-credentials|pgpass|my\.cnf)$",
    r"/\.gem/credentials$", r"/\.cargo/credentials(\.toml)?$",
    r"(^|/)[^/]*(secret|credential|password|passwd|api[_-]?key|private[_-]?key|token)s?[^/]*"
    r"\.(json|ya?ml|toml|ini|cfg|conf|txt|env|xml|properties|csv)$",
    r"(^|/)[^/]*(secret|credential|password|passwd|api[_-]?key|token)s?$",
)))
# lowercase substrings without which no SECRET_PATH match is possible (an ordinary path skips the
# regex, and with it the `re` import, on every audited `cupcake eval`)
_PATH_NEEDLES = (".env", ".pem", ".key", ".p12", ".pfx", ".jks", ".ppk", ".asc", ".gpg", ".kdbx", "id_", "/.ssh/",
                 "/.gnupg/", "/.aws/", "/.config/gcloud/", "/.azure/", "kubeconfig", "/.kube/", "/.docker/",
                 ".npmrc", ".pypirc", ".netrc", ".git-credentials", ".pgpass", ".my.cnf", "/.gem/", "/.cargo/",
                 "secret", "credential", "passw", "api", "private", "token")
_HARMLESS = (".example", ".sample", ".template", ".dist", ".tmpl", ".pub")
_PATH_KEYS = frozenset({"filePath", "path", "file_path"})
_FILE_TOOLS = frozenset({"Read", "Edit", "Write", "MultiEdit", "NotebookEdit", "List", "Glob", "Grep"})


def is_secret_path(path: str) -> bool:
    p = path.lower()
    return (not p.endswith(_HARMLESS) and any(n in p for n in _PATH_NEEDLES)
            and SECRET_PATH.get().search(p) is not None)


def _secret_key(key: str) -> bool:
    low = key.lower()
    return any(n in low for n in _WORD_NEEDLES) and SECRET_KEY.get().match(key) is not None


def redact_text(text: str) -> str:
    low = text.lower()
    for needles, pattern, repl in PATTERNS:
        if any(n in low for n in needles):
            text = pattern.get().sub(repl, text)
    return text


def redact_value(value: Any, sensitive_path: bool = False, key: str = "") -> Any:
    if isinstance(value, dict):
        return {k: REDACTED if not isinstance(v, (dict, list)) and v not in (None, "") and _secret_key(k)
                else redact_value(v, sensitive_path, k) for k, v in value.items()}
    if isinstance(value, list):
        return [redact_value(v, sensitive_path, key) for v in value]
    if isinstance(value, str):
        if sensitive_path and key not in _PATH_KEYS:
            return SECRET_FILE
        return redact_text(value)
    return value


def _paths(event: dict[str, Any]) -> list[str]:
    args = event.get("tool_input") if isinstance(event.get("tool_input"), dict) else event.get("args")
    found = [event.get("resolved_file_path")] + list(event.get("affected_files") or [])
    if isinstance(args, dict):
        found += [args.get(k) for k in _PATH_KEYS]
    return [p for p in found if isinstance(p, str) and p]


def _clip(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[:limit - 1] + "…"


_memo: list[Any] = [None, None]  # [event, digest]: history and the audit record digest the same event


def call_digest(event: dict[str, Any]) -> tuple[str, str, str, str]:
    if _memo[0] is event:
        digest: tuple[str, str, str, str] = _memo[1]
        return digest
    digest = _digest(event)
    _memo[0], _memo[1] = event, digest
    return digest


def _digest(event: dict[str, Any]) -> tuple[str, str, str, str]:
    tool = str(event.get("tool_name") or event.get("tool") or "")
    args = event.get("tool_input") if isinstance(event.get("tool_input"), dict) else event.get("args")
    if not isinstance(args, dict):
        args = {}
    sensitive = any(is_secret_path(p) for p in _paths(event))
    red_args = redact_value(args, sensitive)
    command = red_args.get("command")
    if tool == "Bash" and isinstance(command, str):
        normal = " ".join(command.split())
        summary = normal
    elif tool in _FILE_TOOLS and _paths(event):
        path = event.get("resolved_file_path") or _paths(event)[0]
        normal = jsonio.dumps({"path": path, "args": red_args}).decode()
        summary = str(path)
    else:
        normal = jsonio.dumps(red_args).decode()
        summary = normal
    key = sha256(f"{tool}\0{normal}".encode()).hexdigest()[:32]
    kept: dict[str, Any] = {"tool": tool, "args": red_args}
    result = event.get("result")
    if isinstance(result, dict):
        kept["result"] = redact_value(result, sensitive)
    full = jsonio.dumps(kept)
    text = full.decode("utf-8")
    if len(full) > MAX_INPUT:
        text = full[:MAX_INPUT].decode("utf-8", "ignore") + "…(clipped)"
    return f"{tool}: {_clip(summary, MAX_SUMMARY)}", key, text, sha256(full).hexdigest()
