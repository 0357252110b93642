"""Private CPython modules on the `cupcake eval` path: present here, and guarded where absent.

The eval path imports C accelerator modules directly to skip the start-up cost of their public
packages (docs/architecture.md section 6). They are CPython implementation details: a build
may lack one, and a CPython release may rename one (`_sha256` became `_sha2` in 3.12). Each
import is guarded: a fallback to the public module with the same interface, or, for `_json`
(whose public package has another encoder interface), an ImportError that names what is
missing. Absence is simulated in a fresh interpreter with a meta-path finder that refuses the
module to cupcake_py's own imports only: the public module may still use it (on CPython
`signal` and `hashlib` are built on these very modules), as on a Python that provides the
public module another way (PyPy has no `_signal`; OpenSSL can serve blake2b).
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import textwrap

import pytest

# (private module(s), cupcake module that imports it, probe code run after the import, expected
# probe output); probe None = no fallback, a clear error instead. `_sha2`/`_sha256` are
# alternatives (3.12+ / 3.11): one must exist.
_BLAKE2_PROBE = "import hashlib; print(m.blake2b is hashlib.blake2b, m.blake2b(b'abc', digest_size=8).hexdigest())"
_BLAKE2_OUT = "True " + __import__("hashlib").blake2b(b"abc", digest_size=8).hexdigest()
CASES: tuple[tuple[tuple[str, ...], str, str | None, str | None], ...] = (
    (("_json",), "cupcake_py.core.jsonio", None, None),
    (("_signal",), "cupcake_py.engine.reaper", "print(int(m.SIGKILL))", "9"),
    (("_signal",), "cupcake_py.core.termination", "print(m.signal.__name__, int(m.SIGNALS['SIGTERM']))", "signal 15"),
    (
        ("_sha2", "_sha256"),
        "cupcake_py.engine.bundle",
        "import hashlib; print(m.sha256 is hashlib.sha256, m.sha256(b'abc').hexdigest()[:16])",
        "True ba7816bf8f01cfea",
    ),
    (("_blake2",), "cupcake_py.host.cache", _BLAKE2_PROBE, _BLAKE2_OUT),
    (("_blake2",), "cupcake_py.core.cache_mac", _BLAKE2_PROBE, _BLAKE2_OUT),
    (
        ("_sqlite3",),
        "cupcake_py.governance.store",
        "print(callable(m.sqlite3.connect), m.sqlite3.sqlite_version.count('.'))",
        "True 2",
    ),
    (
        ("_thread",),
        "cupcake_py.host.engine",
        "import time; lock = m._new_lock(); got = []; m._start_thread(got.append, (1,)); time.sleep(0.5); "
        "print(lock.acquire(False), lock.locked(), got)",
        "True True [1]",
    ),
    (
        ("_operator",),
        "cupcake_py.core.cache_mac",
        "import hmac; print(m._compare_digest is hmac.compare_digest, m._compare_digest(b'a', b'a'))",
        "True True",
    ),
)
# `fast_eval` imports `_signal` too (as the `signal` name it calls setitimer/signal on). It imports
# cupcake_py.core.termination first, whose fallback loads the public `signal`, which loads `_signal` itself
# (the blocker refuses only cupcake_py's own imports): so whichever fast_eval then gets, it must work.
FAST_EVAL_PROBE = "print(m.signal.__name__ in ('signal', '_signal'), m.signal.SIGALRM == 14, callable(m.signal.setitimer))"

_BLOCKER = """
import sys
def _importer():
    f = sys._getframe(2)
    while f is not None and f.f_code.co_filename.startswith("<frozen importlib"):
        f = f.f_back
    return f.f_globals.get("__name__", "") if f is not None else ""
class _Refuse:
    def find_spec(self, name, path=None, target=None):
        who = _importer()
        if name in {blocked!r} and (who == "__main__" or who.startswith("cupcake_py")):
            raise ImportError(f"simulated absence of {{name}}", name=name)
        return None
sys.meta_path.insert(0, _Refuse())
for _name in {blocked!r}:
    sys.modules.pop(_name, None)
"""


def _run_without(blocked: tuple[str, ...], module: str, probe: str | None) -> subprocess.CompletedProcess[str]:
    code = _BLOCKER.format(blocked=set(blocked)) + textwrap.dedent(f"""
        __import__({module!r})
        m = sys.modules[{module!r}]
        {probe or "print('imported')"}
    """)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("names", sorted({c[0] for c in CASES}), ids="/".join)
def test_private_module_present_on_this_python(names: tuple[str, ...]) -> None:
    """On the supported CPython the fast path is really taken (a guard is no excuse to lose it)."""
    assert any(importlib.util.find_spec(n) is not None for n in names), f"none of {names} on {sys.version}"


@pytest.mark.parametrize(("names", "module", "probe", "expected"), [c for c in CASES if c[2]],
                         ids=[f"{'/'.join(c[0])}-{c[1]}" for c in CASES if c[2]])
def test_fallback_to_the_public_module_works(names: tuple[str, ...], module: str, probe: str, expected: str) -> None:
    out = _run_without(names, module, probe)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == expected


def test_fast_eval_falls_back_to_signal() -> None:
    out = _run_without(("_signal",), "cupcake_py.app.fast_eval", FAST_EVAL_PROBE)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "True True True"


def test_missing_json_accelerator_is_a_clear_error() -> None:
    """No silent switch to another encoder (its number and key handling differ): a clear error."""
    out = _run_without(("_json",), "cupcake_py.core.jsonio", None)
    assert out.returncode != 0
    assert "cupcake-py needs CPython's `_json` accelerator module" in out.stderr


def test_the_blocker_really_blocks() -> None:
    """The simulation is effective: with the blocker, importing the private module fails."""
    out = _run_without(("_blake2",), "_blake2", None)
    assert out.returncode != 0 and "simulated absence of _blake2" in out.stderr


def test_every_private_import_on_the_eval_path_is_listed() -> None:
    """A new private-module import in cupcake_py must be added to CASES (and guarded). Imports in
    the body of `if TYPE_CHECKING:` never run (its `else:` does, and is checked)."""
    import ast
    import pathlib

    root = pathlib.Path(__file__).resolve().parents[2] / "cupcake_py"
    listed = {n for names, *_ in CASES for n in names}
    found: dict[str, str] = {}
    for path in root.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        type_only = {id(n) for guard in ast.walk(tree)
                     if isinstance(guard, ast.If) and isinstance(guard.test, ast.Name) and guard.test.id == "TYPE_CHECKING"
                     for stmt in guard.body for n in ast.walk(stmt)}
        for node in ast.walk(tree):
            if id(node) in type_only:
                continue
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and not node.level and node.module:
                names = [node.module]
            for name in names:
                top = name.split(".")[0]
                if top.startswith("_") and not top.startswith("__") and name in sys.stdlib_module_names:
                    found[top] = str(path.relative_to(root.parent))
    assert set(found) <= listed, {k: v for k, v in found.items() if k not in listed}
