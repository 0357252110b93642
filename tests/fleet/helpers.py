"""Shared pieces of the fleet tests: an org configuration directory, keys, events."""

from __future__ import annotations

import json
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa

HEAD = """# METADATA
# custom:
#   routing:
#     required_events: ["PreToolUse"]
#     required_tools: ["Bash"]
package cupcake.policies.{pkg}

import rego.v1

"""


def policy(pkg: str, verb: str, word: str, rule: str, reason: str) -> str:
    return HEAD.format(pkg=pkg) + (f'{verb} contains {{"rule_id": "{rule}", "severity": "HIGH", "reason": "{reason}"}} '
                                   f'if {{ contains(input.tool_input.command, "{word}") }}\n')


ORG_DENY_CURL = policy("org.curl", "deny", "curl", "ORG-CURL", "org: no curl")
ORG_HALT_SHRED = policy("org.shred", "halt", "shred", "ORG-SHRED", "org: no shred")


def org_config(d: Path, policies: dict[str, str] | None = None, rulebook: str = "") -> Path:
    (d / "policies/opencode").mkdir(parents=True, exist_ok=True)
    for name, text in (policies if policies is not None else {"curl": ORG_DENY_CURL}).items():
        (d / "policies/opencode" / f"{name}.rego").write_text(text)
    if rulebook:
        (d / "rulebook.yml").write_text(rulebook)
    return d


def rsa_pair(d: Path, name: str = "rsa") -> tuple[Path, Path]:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return _write_pair(d, name, key)


def ec_pair(d: Path, name: str = "ec") -> tuple[Path, Path]:
    return _write_pair(d, name, ec.generate_private_key(ec.SECP256R1()))


def _write_pair(d: Path, name: str, key: rsa.RSAPrivateKey | ec.EllipticCurvePrivateKey) -> tuple[Path, Path]:
    priv = d / f"{name}.key.pem"
    pub = d / f"{name}.pub.pem"
    priv.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                       serialization.NoEncryption()))
    pub.write_bytes(key.public_key().public_bytes(serialization.Encoding.PEM,
                                                  serialization.PublicFormat.SubjectPublicKeyInfo))
    return priv, pub


def bash(cwd: Path, command: str, session: str = "s") -> bytes:
    return json.dumps({"hook_event_name": "PreToolUse", "session_id": session, "cwd": str(cwd), "tool": "bash",
                       "args": {"command": command}}).encode()
