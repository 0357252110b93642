"""Governance across tool calls (docs/governance.md): the per-user audit log and session
history in SQLite, `input.history` for policies, timeouts, and `cupcake audit`.

| module | role | on the `cupcake eval` path |
| settings | bundle settings (rulebook `audit:`, governance builtins) and their merge | always (light) |
| store | the SQLite file: location, schema migrations, bounded write transactions | when recording |
| chain | hash chain: append, verify, prune | when recording |
| redact | redacted, normalised digest of a call | when recording |
| audit | evaluation/session records, timeouts | when recording |
| history | `input.history` queries | when a routed policy requires `history` |
| models, query, commands | pydantic record models, read queries, `cupcake audit` CLI | never |
"""
