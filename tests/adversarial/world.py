"""The one project world the adversarial corpus runs in (tests/adversarial/corpus/*.yaml).

Built once per session below a temporary root:
- `home/`: HOME of the evaluated process, with shell start-up files, ~/.ssh, ~/.aws, ~/.gitconfig
  and ~/.local/bin (on PATH);
- `config/`: XDG_CONFIG_HOME holding the global config made by `cupcake init --global`;
- `home/proj/`: the project made by `cupcake init --harness opencode` (its default rulebook) plus
  protected_paths (config/production.yml, secrets/, migrations/*.sql, *.lock), git_block_no_verify
  and a git_pre_check that passes, with .env, secrets/, sources, a git repository with a
  pre-commit hook, scripts (a harmful and a harmless one), a patch touching secrets/, hard and
  symbolic links to protected files.
`run(entries)` evaluates corpus entries through the real `cupcake eval --harness opencode`
process, a few at a time; `$PROJECT` and `$HOME` in an entry are replaced by the real paths.
"""

from __future__ import annotations

import json
import os
import subprocess
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from cupcake_py.harness.opencode.examples import GIT_ENV, cupcake_command, run_eval

CORPUS = Path(__file__).parent / "corpus"
PROTECTED = ["config/production.yml", "secrets/", "migrations/*.sql", "*.lock"]
FILES = {
    ".env": "API_KEY=sk-live-123\n", ".env.example": "API_KEY=\n", "secrets/key.txt": "k3y\n",
    "secrets/db.json": '{"password": "x"}\n', "config/production.yml": "db: prod\n", "config/dev.yml": "db: dev\n",
    "src/app.py": "print('app')\n", "src/util.py": "X = 1\n", "tests/test_app.py": "def test_x():\n    assert True\n",
    "migrations/001_init.sql": "create table t (id int);\n", "build/out.o": "obj\n", "README.md": "# demo\n",
    "Makefile": "all:\n\techo ok\n", "package.json": '{"scripts": {"test": "echo ok"}}\n', "poetry.lock": "lock\n",
    "scripts/evil.sh": "#!/bin/sh\nrm -rf secrets\n", "scripts/ok.sh": "#!/bin/sh\necho hi\n",
    "scripts/inner.sh": "#!/bin/sh\n. ./scripts/evil.sh\n", "script.py": "print('hello')\n",
    "p.diff": "--- a/secrets/key.txt\n+++ b/secrets/key.txt\n@@ -1 +1 @@\n-k3y\n+pwned\n",
    "ok.diff": "--- a/src/util.py\n+++ b/src/util.py\n@@ -1 +1 @@\n-X = 1\n+X = 2\n",
}
HOME_FILES = {
    ".bashrc": "# rc\n", ".profile": "# profile\n", ".zshrc": "# zsh\n", ".ssh/id_rsa": "PRIVATE\n",
    ".ssh/authorized_keys": "ssh-ed25519 AAA\n", ".aws/credentials": "[default]\n", ".gitconfig": "[user]\n\tname = x\n",
    ".local/bin/.keep": "", ".config/fish/config.fish": "# fish\n",
}


@dataclass(frozen=True)
class World:
    root: Path
    home: Path
    project: Path
    env: dict[str, str]


@dataclass(frozen=True)
class Entry:
    id: str
    cls: str
    event: dict[str, Any]
    expect: str
    why: str
    gap: str  # a known gap of the analysis (the test is a strict xfail naming it); "" otherwise


def _write(base: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        p = base / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)


def _cupcake(args: list[str], cwd: Path, env: dict[str, str]) -> None:
    subprocess.run([*cupcake_command(), *args], cwd=cwd, env=env, check=True, capture_output=True, timeout=120)


def build(root: Path) -> World:
    home = root / "home"
    project = home / "proj"
    project.mkdir(parents=True)
    _write(home, HOME_FILES)
    env = dict(os.environ)
    env.update(HOME=str(home), XDG_CONFIG_HOME=str(root / "config"), XDG_CACHE_HOME=str(home / ".cache"),
               PATH=f"{home / '.local/bin'}:{os.environ.get('PATH', '/usr/bin:/bin')}", **GIT_ENV)
    _cupcake(["init", "--harness", "opencode", "--dir", str(project)], project, env)
    _cupcake(["init", "--global", "--harness", "opencode"], project, env)
    rulebook = project / ".cupcake" / "rulebook.yml"
    book = yaml.safe_load(rulebook.read_text()) or {}
    builtins = book.setdefault("builtins", {}) or {}
    book["builtins"] = builtins
    builtins["protected_paths"] = {"paths": PROTECTED}
    builtins.setdefault("git_block_no_verify", {})
    builtins.setdefault("git_pre_check", {"checks": [{"command": "true", "message": "checks failed"}]})
    rulebook.write_text(yaml.safe_dump(book, sort_keys=False))
    _write(project, FILES)
    for script in ("scripts/evil.sh", "scripts/ok.sh"):
        (project / script).chmod(0o755)
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=project, check=True, env=env)
    hook = project / ".git" / "hooks" / "pre-commit"
    hook.write_text("#!/bin/sh\nexit 0\n")
    hook.chmod(0o755)
    subprocess.run(["git", "add", "-A"], cwd=project, check=True, env=env)
    subprocess.run(["git", "commit", "-qm", "init"], cwd=project, check=True, env=env)
    os.link(project / "secrets" / "key.txt", project / "hl")  # a hard link to a protected file
    (project / "sl").symlink_to(project / "secrets")  # a symlink to a protected directory
    return World(root, home, project, env)


def load(kind: str) -> list[Entry]:
    """Corpus entries of `kind` (attacks | benign), from every YAML file of that kind."""
    out: list[Entry] = []
    for f in sorted(CORPUS.glob(f"{kind}_*.yaml")):
        for i, raw in enumerate(yaml.safe_load(f.read_text()) or []):
            if "cmd" in raw:
                event = {"tool": "bash", "args": {"command": raw["cmd"], **raw.get("args", {})}}
            else:
                event = {"tool": raw["tool"], "args": raw.get("args", {})}
            out.append(Entry(f"{f.stem}-{i:03d}", raw.get("class", f.stem.split("_", 1)[1]), event,
                             str(raw.get("expect", "allow" if kind == "benign" else "non-allow")), str(raw["why"]),
                             str(raw.get("gap", ""))))
    return out


def _substitute(value: Any, mapping: dict[str, str]) -> Any:
    if isinstance(value, str):
        for k, v in mapping.items():
            value = value.replace(k, v)
        return value
    if isinstance(value, list):
        return [_substitute(v, mapping) for v in value]
    if isinstance(value, dict):
        return {k: _substitute(v, mapping) for k, v in value.items()}
    return value


def decide(world: World, entry: Entry) -> tuple[str, str]:
    """(decision, reason or error text) of one entry through `cupcake eval`."""
    mapping = {"$PROJECT": str(world.project), "$HOME": str(world.home)}
    event = {"hook_event_name": "PreToolUse", "session_id": "ses_adv", "cwd": str(world.project),
             **_substitute(entry.event, mapping)}
    resp, code, stderr = run_eval(json.dumps(event).encode(), world.project, ["--timeout", "60"], world.env)
    if not isinstance(resp, dict) or "decision" not in resp:
        return f"error(exit {code})", f"{resp!r} {stderr.strip()[-400:]}"
    return str(resp["decision"]), str(resp.get("reason", ""))



def run(world: World, entries: list[Entry], workers: int = 2) -> dict[str, tuple[str, str]]:
    if not entries:
        return {}
    first = decide(world, entries[0])  # builds the bundles once
    with ThreadPoolExecutor(max_workers=workers) as pool:
        rest = list(pool.map(lambda e: decide(world, e), entries[1:]))
    return {e.id: r for e, r in zip(entries, [first, *rest], strict=True)}
