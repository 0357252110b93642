"""harness/codex: OpenAI Codex CLI command hooks (`cupcake eval --harness codex`)."""
