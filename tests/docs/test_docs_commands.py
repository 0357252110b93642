"""Every shell example of README.md and docs/*.md runs against the built wheel.

The wheel is built from the checkout (`pip wheel . --no-deps`), installed into a fresh
virtual environment (no network: the dependencies come from the running environment's
site-packages through a .pth line; cupcake_py itself only from the wheel), and each page's
`sh` blocks run in order with bash -e in an empty directory outside the checkout, with that
venv first on PATH and private XDG_CONFIG_HOME / XDG_CACHE_HOME. Expected `output` blocks are
compared. Takes about 40 s here (one wheel build ≈ 3 s, one venv ≈ 3 s, the rest is the
commands, which compile policies)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest

from tests.docs.doc_blocks import Block, blocks, matches, pages

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """bin/ of a fresh venv holding the wheel built from this checkout."""
    root = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", str(REPO), "--no-deps", "-q", "-w", str(root / "dist")],
                   check=True, capture_output=True, timeout=300)
    wheel = next((root / "dist").glob("cupcake_py-*.whl"))
    env_dir = root / "venv"
    venv.EnvBuilder(with_pip=False).create(env_dir)
    py = env_dir / "bin" / "python"
    site = Path(subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                               check=True, capture_output=True, text=True).stdout.strip())
    # dependencies from the running environment (a plain path: its .pth files, among them an
    # editable install of this checkout, are not processed)
    (site / "zz_deps.pth").write_text(sysconfig.get_path("purelib") + "\n")
    subprocess.run([sys.executable, "-m", "pip", "--python", str(py), "install", "--no-deps", "-q", str(wheel)],
                   check=True, capture_output=True, timeout=300)
    where = subprocess.run([str(py), "-c", "import cupcake_py; print(cupcake_py.__file__)"], check=True,
                           capture_output=True, text=True, cwd=root).stdout
    assert where.startswith(str(site)), f"cupcake_py must come from the wheel, not {where}"
    return env_dir / "bin"


def test_the_wheel_carries_the_docs_it_points_to(installed: Path) -> None:
    site = Path(subprocess.run([str(installed / "python"), "-c", "import cupcake_py, os; "
                                "print(os.path.dirname(cupcake_py.__file__))"],
                               check=True, capture_output=True, text=True).stdout.strip())
    assert len(list((site / "authoring" / "lint_docs").glob("*.md"))) >= 38
    proc = subprocess.run([str(installed / "cupcake"), "validate", "--explain", "prefer-deny"],
                          capture_output=True, text=True, cwd=site.parent)
    assert proc.returncode == 0 and proc.stdout.startswith("# prefer-deny\n")


POINTER = re.compile(r"cupcake docs (?!cupcake\b)([A-Za-z0-9_/-]*[a-z][A-Za-z0-9_/-]*)")  # not TOPIC / PAGE
RAW_PAGE = re.compile(r"[A-Za-z0-9_/-]+\.md\b")


def _flat(text: str) -> str:
    """Help text unwrapped (click breaks long lines at spaces and after hyphens)."""
    return re.sub(r"\s+", " ", re.sub(r"-\n\s*", "-", text))


def test_every_help_and_explain_pointer_is_cupcake_docs_of_a_shipped_page(installed: Path, tmp_path: Path) -> None:
    """Every `--help` of every command and every `validate --explain RULE` page, from the wheel: each
    documentation pointer is `cupcake docs TOPIC` (never a docs/*.md path the user does not have, nor
    a URL: the project has none, docs/contributing.md), and every TOPIC prints a page of the wheel."""
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config"), "XDG_CACHE_HOME": str(tmp_path / "cache"),
           "XDG_STATE_HOME": str(tmp_path / "state"), "HOME": str(tmp_path)}
    probe = subprocess.run([str(installed / "python"), str(Path(__file__).with_name("help_texts_probe.py"))],
                           capture_output=True, text=True, cwd=tmp_path, env=env, timeout=300)
    assert probe.returncode == 0, probe.stderr
    texts: dict[str, str] = json.loads(probe.stdout)
    for command in ("eval", "serve"):  # answered without typer (cupcake_py/cli/help_texts.py)
        texts[f"cupcake {command} --help"] = subprocess.run([str(installed / "cupcake"), command, "--help"],
                                                            capture_output=True, text=True, cwd=tmp_path, env=env,
                                                            timeout=120).stdout
    assert sum(k.endswith("--help") for k in texts) >= 30 and sum("--explain" in k for k in texts) >= 38
    topics: dict[str, str] = {}
    raw: dict[str, list[str]] = {}
    for where, text in texts.items():
        assert text.strip(), where
        flat = _flat(text)
        for topic in POINTER.findall(flat):
            topics.setdefault(topic, where)
        leftover = RAW_PAGE.findall(POINTER.sub("", flat)) + re.findall(r"https?://\S+", flat)
        if leftover:
            raw[where] = leftover
    assert raw == {}, "pointers that are not `cupcake docs TOPIC`"
    assert {"testing", "custom-builtins", "governance", "serve", "claude-code", "codex", "lint/README",
            "rulebook"} <= set(topics), topics
    for topic, where in sorted(topics.items()):
        proc = subprocess.run([str(installed / "cupcake"), "docs", topic], capture_output=True, text=True,
                              cwd=tmp_path, env=env, timeout=120)
        assert proc.returncode == 0 and re.search(r"^# ", proc.stdout, re.M), (topic, where, proc.stderr)
    assert "cupcake docs" in texts["cupcake --help"]


def test_doc_blocks_are_tagged() -> None:
    problems = [p for page in pages(REPO) for p in blocks(page, REPO)[1]]
    assert problems == []


def _run(block: Block, cwd: Path, env: dict[str, str]) -> None:
    proc = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", block.code], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=180)
    where = f"{block.page}:{block.line}"
    assert proc.returncode == 0, f"{where}: exit {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    if block.expected is not None:
        assert matches(block.expected, proc.stdout), (f"{where}: output differs\n--- documented\n{block.expected}"
                                                     f"--- got\n{proc.stdout}")


RUNNABLE = [p for p in pages(REPO) if blocks(p, REPO)[0]]


@pytest.mark.parametrize("page", RUNNABLE, ids=[str(p.relative_to(REPO)) for p in RUNNABLE])
def test_every_shell_example_runs(page: Path, installed: Path, tmp_path: Path) -> None:
    work = tmp_path / "project"
    work.mkdir()
    path = [d for d in os.environ.get("PATH", "").split(os.pathsep) if d and Path(d).resolve() != REPO / ".venv/bin"]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CUPCAKE", "VIRTUAL_ENV", "PYTHON"))}
    env |= {"PATH": os.pathsep.join([str(installed), *path]), "HOME": str(tmp_path / "home"),
            "XDG_CONFIG_HOME": str(tmp_path / "config"), "XDG_CACHE_HOME": str(tmp_path / "cache"),
            "XDG_STATE_HOME": str(tmp_path / "state")}
    (tmp_path / "home").mkdir()
    for block in blocks(page, REPO)[0]:
        _run(block, work, env)
