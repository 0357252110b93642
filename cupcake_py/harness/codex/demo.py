"""`make demo` line for the codex harness: the example events of harness/codex/examples through the real
`cupcake eval --harness codex` (Claude Code's answer format, summarised by the Claude Code demo)."""

from __future__ import annotations

import sys

from cupcake_py.harness.claude.demo import claude_answer
from cupcake_py.harness.demo import main

if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:], "codex", claude_answer, " (Codex CLI)"))
