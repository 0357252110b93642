"""Example events with expected responses (`harness/<name>/examples/cases/*.json`), run against the
example project every harness shares (`harness/examples/project`, `harness/examples/global-config`;
a harness may keep a project of its own under its `examples/`, as OpenCode's `engine-project`), and
a runner that feeds them to the real `cupcake eval --harness <name>` process (opencode, claude, codex,
gemini, qwen).

Case file:
    {"description": "...", "project": "engine-project",            # dir under examples/
     "global": "global-config",                                    # optional: dir under examples/ used
                                                                   # as $XDG_CONFIG_HOME/cupcake
     "demo": true,                                                 # optional: in `make demo`'s short list
     "setup": [{"write": "a.sh", "content": "...", "mode": "755"},   # optional, in the project copy
               {"symlink": "link", "to": ".env"}, {"mkdir": "d"},
               {"run": "git init -q -b main && git add -A && git commit -qm init"}],
     "args": ["--strict"],                                         # optional extra eval options
     "env": {"CUPCAKE_HOOK_EVENT": "preToolUse"},                  # optional: the hook's environment
                                                                   # (agents whose stdin lacks the event)
     "event": {...}, "expect": {...response...}, "exit": 0,
     "stderr": "..."}                                              # optional: text stderr must contain
`$PROJECT` in any string is the (symlink-free) path of the project copy, `$HOME` the home dir,
`$RUN` a token unique to this run (session ids: per-session state never leaks between runs).
`run` steps execute with `sh -c` in the project copy, with the case's environment (its cache and
config dirs), a fixed git identity, no user or system git configuration, and `$CUPCAKE` = the
cupcake command (e.g. to record state with an earlier event). Cases run with `--timeout 60` unless they set --timeout (examples
check decisions, not speed; deadlines have their own tests).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cupcake_py.harness.data import HarnessData, shared_examples_dir


@dataclass(frozen=True)
class Case:
    harness: str
    name: str
    description: str
    project: str
    global_config: str | None
    demo: bool
    setup: list[dict[str, Any]]
    args: list[str]
    event: Any
    expect: dict[str, Any]
    exit: int
    stderr: str | None = None
    env: dict[str, str] | None = None


@dataclass(frozen=True)
class Outcome:
    case: Case
    response: Any
    exit: int
    stderr: str
    expected: dict[str, Any]

    @property
    def ok(self) -> bool:
        return self.response == self.expected and self.exit == self.case.exit and \
            (self.case.stderr is None or self.case.stderr in self.stderr)


def examples_dir(harness: str = "opencode") -> Path:
    return Path(HarnessData(harness).dir()) / "examples"


def project_dir(harness: str = "opencode", name: str = "project") -> Path:
    """An example project (or global config dir) `name` of `harness`: its own under its examples/, else the
    one every harness shares."""
    own = examples_dir(harness) / name
    return own if own.is_dir() else Path(shared_examples_dir()) / name


def load_cases(directory: Path | None = None, harness: str = "opencode") -> list[Case]:
    d = directory or examples_dir(harness) / "cases"
    out = []
    for p in sorted(d.glob("*.json")):
        raw = json.loads(p.read_text("utf-8"))
        out.append(Case(harness, p.stem, raw.get("description", ""), raw.get("project", "engine-project"),
                        raw.get("global"), bool(raw.get("demo", False)), raw.get("setup", []), raw.get("args", []),
                        raw["event"], raw["expect"], raw.get("exit", 0), raw.get("stderr"), raw.get("env")))
    return out


def substitute(value: Any, mapping: dict[str, str]) -> Any:
    if isinstance(value, str):
        for k, v in mapping.items():
            value = value.replace(k, v)
        return value
    if isinstance(value, list):
        return [substitute(v, mapping) for v in value]
    if isinstance(value, dict):
        return {k: substitute(v, mapping) for k, v in value.items()}
    return value


def materialize(case: Case, workdir: Path, env: dict[str, str] | None = None) -> Path:
    """A private copy of the case's project with its setup applied; returns its real path."""
    dest = workdir / case.name
    shutil.copytree(project_dir(case.harness, case.project), dest, symlinks=True)
    dest = dest.resolve()
    for step in case.setup:
        if "write" in step:
            p = dest / step["write"]
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(step["content"], "utf-8")
            if "mode" in step:
                p.chmod(int(step["mode"], 8))
        elif "symlink" in step:
            p = dest / step["symlink"]
            p.parent.mkdir(parents=True, exist_ok=True)
            p.symlink_to(step["to"])
        elif "mkdir" in step:
            (dest / step["mkdir"]).mkdir(parents=True, exist_ok=True)
        elif "run" in step:
            import shlex

            run_env = {**(env or os.environ), **GIT_ENV, "CUPCAKE": " ".join(map(shlex.quote, cupcake_command())),
                       "RUN": RUN}
            subprocess.run(["/bin/sh", "-c", step["run"]], cwd=dest, env=run_env, check=True,
                           capture_output=True, timeout=60)
        else:
            raise ValueError(f"{case.name}: unknown setup step {step}")
    return dest


# `$RUN` in events (and `$RUN` in setup commands): unique per process, so state an evaluation keeps per
# session (Claude Code halts) never leaks from one run of the examples into the next.
RUN = f"run{os.getpid()}x{os.urandom(4).hex()}"

GIT_ENV = {"GIT_AUTHOR_NAME": "Example", "GIT_AUTHOR_EMAIL": "example@example.com", "GIT_COMMITTER_NAME": "Example",
           "GIT_COMMITTER_EMAIL": "example@example.com", "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": "/dev/null"}


BUSY_LOOP = "while True:\n    pass\n"


@contextmanager
def cpu_load(processes: int) -> Iterator[list[int]]:
    """`processes` CPU-bound busy loops (Python processes spinning) running while the block runs;
    yields their pids. Each is ended by its own pid when the block exits (even on an error)."""
    procs = [subprocess.Popen([sys.executable, "-c", BUSY_LOOP], stdin=subprocess.DEVNULL,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for _ in range(max(0, processes))]
    try:
        yield [p.pid for p in procs]
    finally:
        for p in procs:
            p.kill()
        for p in procs:
            p.wait()


def default_load() -> int:
    """The load the determinism checks run beside: one busy loop per CPU plus two."""
    return (os.cpu_count() or 1) + 2


def cupcake_command() -> list[str]:
    exe = Path(sys.executable).parent / "cupcake"
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "cupcake_py"]


def run_eval(stdin: bytes, cwd: Path, args: list[str], env: dict[str, str], timeout: float = 120,
             harness: str = "opencode") -> tuple[Any, int, str]:
    """(parsed stdout or the raw text when it is not JSON, exit status, stderr)."""
    proc = subprocess.run([*cupcake_command(), "eval", "--harness", harness, *args], input=stdin,
                          capture_output=True, cwd=cwd, env=env, timeout=timeout)
    text = proc.stdout.decode("utf-8", "replace")
    try:
        parsed: Any = json.loads(text)
    except ValueError:
        parsed = text
    return parsed, proc.returncode, proc.stderr.decode("utf-8", "replace")


def isolated_env(cache: Path, config: Path) -> dict[str, str]:
    """The environment with private cache and config homes, and a private state home beside the
    cache (`<cache>-state`: the audit log is on by default, and must not land in the user's)."""
    env = dict(os.environ)
    env.update(XDG_CACHE_HOME=str(cache), XDG_CONFIG_HOME=str(config),
               XDG_STATE_HOME=str(cache.with_name(cache.name + "-state")))
    return env


def config_home(case: Case, config_root: Path) -> Path:
    """XDG_CONFIG_HOME for a case: one per global config (`config-<name>/cupcake` holds a copy
    of the example global dir; `config-none` stays empty), so cases sharing a global config
    share bundle cache entries."""
    return config_root / f"config-{case.harness}-{case.global_config or 'none'}"


def prepare_configs(cases: list[Case], config_root: Path) -> None:
    """Fresh copies of the example global dirs the cases use."""
    for case in cases:
        home = config_home(case, config_root)
        if case.global_config is None:
            home.mkdir(parents=True, exist_ok=True)
            continue
        shutil.rmtree(home, ignore_errors=True)
        shutil.copytree(project_dir(case.harness, case.global_config), home / "cupcake", symlinks=True)


def run_case(case: Case, workdir: Path, env: dict[str, str]) -> Outcome:
    project = materialize(case, workdir, env)
    mapping = {"$PROJECT": str(project), "$XDG_CONFIG_HOME": env.get("XDG_CONFIG_HOME", ""), "$HOME": str(Path.home()),
               "$RUN": RUN}
    event = substitute(case.event, mapping)
    stdin = event.encode("utf-8") if isinstance(event, str) else json.dumps(event).encode("utf-8")
    args = case.args if any(a.startswith("--timeout") for a in case.args) else [*case.args, "--timeout", "60"]
    response, code, stderr = run_eval(stdin, project, args, {**env, **(case.env or {})}, harness=case.harness)
    return Outcome(case, response, code, stderr, substitute(case.expect, mapping))


def run_cases(cases: list[Case], root: Path, workers: int | None = None, *, config_root: Path | None = None,
              cache: Path | None = None) -> Iterator[Outcome]:
    """Outcomes of `cases` in order, evaluated by up to `workers` concurrent `cupcake eval`
    processes (default: CPU count + 1; evaluations wait on signals and process start-up). Project
    copies go below root/work; XDG_CONFIG_HOME dirs below `config_root` (default root/config) and
    the cache in `cache` (default root/cache): stable ones let bundles be reused across runs. The
    first case of each (project, global config) runs alone so it builds the shared bundles once."""
    from concurrent.futures import ThreadPoolExecutor

    config_root = config_root or root / "config"
    cache = cache or root / "cache"
    prepare_configs(cases, config_root)

    def one(case: Case) -> Outcome:
        return run_case(case, root / "work", isolated_env(cache, config_home(case, config_root)))

    first: dict[tuple[str, str, str | None], Case] = {}
    for c in cases:
        first.setdefault((c.harness, c.project, c.global_config), c)
    warm = {id(c): one(c) for c in first.values()}
    with ThreadPoolExecutor(max_workers=workers or (os.cpu_count() or 1) + 1) as pool:
        futures = [None if id(c) in warm else pool.submit(one, c) for c in cases]
        for c, f in zip(cases, futures, strict=True):
            yield warm[id(c)] if f is None else f.result()
