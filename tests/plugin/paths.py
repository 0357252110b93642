"""Paths shared by the OpenCode plugin tests."""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PLUGIN_TS = REPO / "plugin-ts"
BUNDLE = REPO / "cupcake_py" / "harness" / "opencode" / "plugin" / "cupcake.js"
OPENCODE_BIN = PLUGIN_TS / "node_modules" / ".bin" / "opencode"
