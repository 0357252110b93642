"""Shared fixtures of the shell-analysis tests: a small project on disk and `analyze` bound
to it. The project holds what the attack classes aim at (.env, .cupcake, secrets/, config/,
a git repository with hooks) and ordinary sources."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from cupcake_py.shell import analyze

SCHEMA = json.loads((Path(__file__).resolve().parents[2] / "harness/opencode/schemas/shell.schema.json").read_text())
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)


def make_project(root: Path) -> Path:
    for d in ("src", "secrets", "config", "con", ".cupcake", "build", "docs"):
        (root / d).mkdir(parents=True, exist_ok=True)
    for f, text in {".env": "API=1\n", "src/a.py": "a\n", "src/b.py": "b\n", "secrets/key.txt": "k\n",
                    "config/prod.yml": "p\n", ".cupcake/rulebook.yml": "r\n", "README.md": "x\n",
                    "s.sh": 'rm -rf se""crets\n', "inner.sh": "rm .env\n", "outer.sh": "#!/bin/sh\n. ./inner.sh\n",
                    "script.py": "print(1)\n", "tool.py": "#!/usr/bin/env python3\nprint(1)\n",
                    "p.diff": "diff --git a/src/a.py b/src/a.py\n--- a/src/a.py\n+++ b/src/a.py\n@@ -1 +1 @@\n-a\n+b\n",
                    "del.diff": "--- a/.env\n+++ /dev/null\n@@ -1 +0,0 @@\n-API=1\n"}.items():
        (root / f).write_text(text)
    (root / "blob.bin").write_bytes(b"\x7fELF\0\0rm -rf secrets\0")  # binary: never shell code
    os.chmod(root / "outer.sh", 0o755)
    os.chmod(root / "tool.py", 0o755)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


@pytest.fixture(scope="session")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_project(tmp_path_factory.mktemp("shell") / "proj").resolve()


@pytest.fixture(scope="session")
def an(project: Path) -> Any:
    def run(command: str, cwd: Path | str | None = None, **kw: Any) -> dict[str, Any]:
        out = analyze(command, str(cwd or project), env={"HOME": str(project.parent)}, **kw)
        VALIDATOR.validate(out)  # every analysed command is checked against the published schema
        return out
    return run


def opaque_kinds(result: dict[str, Any]) -> set[str]:
    return {o["kind"] for o in result["opaque"]}
