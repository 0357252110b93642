"""No secrets in the audit log: what the redaction must catch (adversarial) and what it must
keep readable (benign)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cupcake_py.governance.redact import _HARMLESS, SECRET_PATH, call_digest, is_secret_path, redact_text

SECRETS = [
    ("export AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "wJalrXUtnFEMI"),
    ("curl -H 'Authorization: Bearer abcdefghijklmnop123456' https://x", "abcdefghijklmnop123456"),
    ("git clone https://user:hunter2pass@github.com/o/r", "hunter2pass"),
    ("echo ghp_0123456789abcdefghijABCDEFGHIJ012345", "ghp_0123456789"),
    ("OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwx python app.py", "sk-proj-abcdefgh"),
    ("aws configure set aws_access_key_id AKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPLE"),
    ("mysql --password=s3cr3tP4ss -u root", "s3cr3tP4ss"),
    ("gh auth login --with-token ghtoken1234567890", "ghtoken1234567890"),
    ('{"password": "pa55word!"}', "pa55word!"),
    ("DB_PASSWORD: 'quoted secret value'", "quoted secret value"),
    ("-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\n-----END RSA PRIVATE KEY-----", "MIIEpAIBAAKCAQEA"),
    ("token=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N", "dozjgNryP4J3jVmNHl0w5N"),
    ("slack xoxb-1234567890-abcdefghij", "xoxb-1234567890"),
]


@pytest.mark.parametrize("text, secret", SECRETS, ids=[s[1][:12] for s in SECRETS])
def test_secrets_in_commands_are_redacted(text: str, secret: str) -> None:
    ev = {"session_id": "s", "tool_name": "Bash", "tool_input": {"command": text}}
    summary, _key, stored, _digest = call_digest(ev)
    assert secret not in summary and secret not in stored


def test_secret_named_keys_and_secret_paths_are_redacted() -> None:
    ev = {"tool_name": "Write", "resolved_file_path": "/p/.env",
          "tool_input": {"filePath": "/p/.env", "content": "DEBUG=1\nNAME=plain-looking-value\n"}}
    summary, _, stored, _ = call_digest(ev)
    assert "plain-looking-value" not in stored and "/p/.env" in stored and summary == "Write: /p/.env"
    ev = {"tool_name": "mcp_x", "tool_input": {"api_key": "zzz-unpatterned", "nested": {"client_secret": "qqq"}}}
    _, _, stored, _ = call_digest(ev)
    assert "zzz-unpatterned" not in stored and "qqq" not in stored
    post = {"tool_name": "Read", "resolved_file_path": "/home/u/.ssh/id_ed25519",
            "tool_input": {"filePath": "/home/u/.ssh/id_ed25519"}, "result": {"output": "AAAAC3NzaC1lZDI1NTE5"}}
    assert "AAAAC3NzaC1lZDI1NTE5" not in call_digest(post)[2]


@pytest.mark.parametrize("path", ["/p/.env", "/p/.env.local", "/h/.ssh/config", "/p/server.pem", "/h/.aws/credentials",
                                  "/p/config/secrets.yaml", "/h/.netrc"])
def test_secret_paths(path: str) -> None:
    assert is_secret_path(path)


# path pieces that make the patterns' alternatives (and near misses) likely
_PIECES = st.sampled_from(["/", ".", "_", "-", "env", "rc", "pem", "key", "store", "id", "rsa", "ssh", "gnupg", "aws",
                           "credentials", "config", "gcloud", "azure", "kube", "docker", "json", "npmrc", "netrc",
                           "git", "pgpass", "my", "cnf", "gem", "cargo", "toml", "secret", "token", "passwd",
                           "password", "api", "private", "yaml", "s", "src", "main", "py", "A", "Key", "ENV"])


@settings(max_examples=400, deadline=None)
@given(st.lists(_PIECES, max_size=10).map("".join))
def test_the_cheap_needle_check_never_changes_the_answer(path: str) -> None:
    """is_secret_path skips the regex when no needle occurs: the answer is the regex's own."""
    p = path.lower()
    assert is_secret_path(path) == (not p.endswith(_HARMLESS) and SECRET_PATH.get().search(p) is not None)


@pytest.mark.parametrize("path", ["/p/src/main.py", "/p/.env.example", "/p/README.md", "/h/.ssh/id_ed25519.pub",
                                  "/p/tokenizer.py"])
def test_ordinary_paths_are_not_secret(path: str) -> None:
    assert not is_secret_path(path)


@pytest.mark.parametrize("command", ["ls -la", "git commit -m 'fix token parsing'", "pytest -k test_password_reset",
                                     "make build", "grep -rn TODO src/", "cat src/auth.py"])
def test_ordinary_commands_stay_readable(command: str) -> None:
    summary, _, stored, _ = call_digest({"tool_name": "Bash", "tool_input": {"command": command}})
    assert summary == f"Bash: {command}" and command.replace("'", "'") in stored


def test_keys_are_stable_and_whitespace_insensitive_for_bash() -> None:
    a = call_digest({"tool_name": "Bash", "tool_input": {"command": "ls   -la"}})[1]
    b = call_digest({"tool_name": "Bash", "tool_input": {"command": "ls -la"}})[1]
    c = call_digest({"tool_name": "Bash", "tool_input": {"command": "ls -l"}})[1]
    assert a == b != c


def test_large_inputs_are_clipped() -> None:
    _, _, stored, digest = call_digest({"tool_name": "Write", "tool_input": {"filePath": "/p/a", "content": "x" * 50000}})
    assert len(stored) < 4100 and stored.endswith("…(clipped)") and len(digest) == 64


def test_redact_text_leaves_prose_alone() -> None:
    assert redact_text("the secret of good code is tests") == "the secret of good code is tests"


from hypothesis import given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_ALNUM = st.text(alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", min_size=36, max_size=40)
_PROSE = st.text(alphabet="abcdefgh ./-=:\n", max_size=40)


@given(_PROSE, st.sampled_from(["ghp_", "AKIA", "sk-", "xoxb-"]), _ALNUM, _PROSE)
def test_token_shapes_never_survive_anywhere_in_a_command(before: str, prefix: str, body: str, after: str) -> None:
    secret = prefix + (body.upper()[:16] if prefix == "AKIA" else body)
    text = f"{before} {secret} {after}"
    _, _, stored, _ = call_digest({"tool_name": "Bash", "tool_input": {"command": text}})
    assert secret not in stored and secret[4:] not in stored
