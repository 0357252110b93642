"""cupcake_py.core.lazylog / logs.setup (logging imported only to emit) and the slotted records
that replace dataclasses on the eval path."""

from __future__ import annotations

import copy
import pickle
import subprocess
import sys

import pytest

from cupcake_py.core.errors import Location, new_location
from cupcake_py.engine.bundle import Bundle, decode, encode
from cupcake_py.engine.project import ConfigDir
from cupcake_py.engine.synthesis import Decision, DecisionSet, FinalDecision
from cupcake_py.enrich.patch import PatchOp


def _run(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)


def test_deferred_setup_imports_logging_only_to_emit_and_formats_as_before() -> None:
    out = _run(
        "import sys\n"
        "from cupcake_py.core import logs\n"
        "from cupcake_py.core.lazylog import LazyLogger\n"
        "log = LazyLogger('cupcake_py.engine.bundle')\n"
        "logs.setup('warning')\n"
        "log.debug('dropped %s', 1); log.info('dropped too')\n"
        "print('before', 'logging' in sys.modules, log.isEnabledFor(20), log.isEnabledFor(30))\n"
        "log.warning('cache %s is writable by others', '/x')\n"
        "log.error('bad: %d', 7)\n"
        "print('after', 'logging' in sys.modules)\n")
    assert out.stdout.splitlines() == ["before False False True", "after True"]
    assert out.stderr.splitlines() == ["cupcake WARNING cupcake_py.engine.bundle: cache /x is writable by others",
                                       "cupcake ERROR cupcake_py.engine.bundle: bad: 7"]


def test_error_level_setup_drops_warnings_without_importing_logging() -> None:
    out = _run("import sys\nfrom cupcake_py.core import logs\nfrom cupcake_py.core.lazylog import LazyLogger\n"
               "logs.setup('error')\nLazyLogger('cupcake_py.x').warning('no')\nprint('logging' in sys.modules)\n")
    assert (out.stdout, out.stderr) == ("False\n", "")


def test_debug_setup_is_eager_and_shows_exceptions() -> None:
    out = _run("import sys\nfrom cupcake_py.core import logs\nfrom cupcake_py.core.lazylog import LazyLogger\n"
               "logs.setup('debug')\nprint('logging' in sys.modules)\nlog = LazyLogger('cupcake_py.engine')\n"
               "log.debug('d %s', 1)\n"
               "try:\n    1 / 0\nexcept ZeroDivisionError:\n    log.exception('boom')\n")
    assert out.stdout == "True\n"
    lines = out.stderr.splitlines()
    assert lines[:2] == ["cupcake DEBUG cupcake_py.engine: d 1", "cupcake ERROR cupcake_py.engine: boom"]
    assert "ZeroDivisionError: division by zero" in out.stderr


def test_without_setup_warnings_reach_logging_defaults() -> None:
    """No setup at all (library use): logging's own default (WARNING, last-resort handler)."""
    out = _run("from cupcake_py.core.lazylog import LazyLogger\nlog = LazyLogger('cupcake_py.y')\n"
               "log.info('hidden'); log.warning('shown %s', 2)\n")
    assert out.stderr == "shown 2\n"


def test_lazy_logger_reports_its_caller_and_proxies_the_rest(caplog: pytest.LogCaptureFixture) -> None:
    from cupcake_py.core.lazylog import LazyLogger

    log = LazyLogger("tests.lazylog")
    assert log.real().name == "tests.lazylog" and log.getEffectiveLevel() == log.real().getEffectiveLevel()
    with caplog.at_level("INFO", logger="tests.lazylog"):
        log.info("hello %s", "there")
    rec = caplog.records[-1]
    assert rec.getMessage() == "hello there" and rec.funcName == "test_lazy_logger_reports_its_caller_and_proxies_the_rest"


# --------------------------------------------------------------------------- records

def test_frozen_records_compare_hash_print_copy_like_dataclasses() -> None:
    d = Decision("deny", "r", "ID")
    assert d == Decision("deny", "r", "ID", "MEDIUM", None, None, None, 50) and d != Decision("deny", "r", "ID2")
    assert hash(d) == hash(Decision("deny", "r", "ID")) and len({d, Decision("deny", "r", "ID")}) == 1
    assert repr(PatchOp("add", "a")) == "PatchOp(action='add', path='add')".replace("path='add'", "path='a'")
    assert FinalDecision("allow") == FinalDecision("allow", None, (), None, (), ())
    assert PatchOp("add", "a") != ("add", "a")
    for value in (d, ConfigDir("project", "/p/.cupcake", "/p"), PatchOp("x", "y")):
        assert copy.deepcopy(value) == value and pickle.loads(pickle.dumps(value)) == value
        with pytest.raises(AttributeError):
            value.kind = "x"  # type: ignore[union-attr]


def test_mutable_records_are_unhashable_and_have_fresh_defaults() -> None:
    a, b = DecisionSet(), DecisionSet()
    a.decisions.append(Decision("ask", "r", "I"))
    assert b.decisions == [] and a != b and a == DecisionSet([Decision("ask", "r", "I")])
    with pytest.raises(TypeError):
        hash(a)
    bundle = Bundle(key="k", scope="project", routing={"PreToolUse": ["p"]}, wasm=b"\0asm")
    assert decode(encode(bundle, b"k" * 32), b"k" * 32) == bundle and Bundle("k", "project") != bundle


def test_location_is_immutable_hashable_and_slotted() -> None:
    loc = Location("f.rego", 3, 7)
    assert str(loc) == "f.rego:3:7" and repr(loc) == "Location(file='f.rego', row=3, col=7)"
    assert loc == Location("f.rego", 3, 7) and hash(loc) == hash(("f.rego", 3, 7)) and loc != ("f.rego", 3, 7)
    assert not hasattr(loc, "__dict__") and new_location("f.rego", 3, 7) == loc  # the lexer's constructor
    with pytest.raises(AttributeError):
        loc.row = 1  # type: ignore[misc]
    assert copy.deepcopy(loc) == loc and pickle.loads(pickle.dumps(loc)) == loc


def _record_classes() -> list[type]:
    """Every Record/FrozenRecord subclass defined in the package (all its modules imported)."""
    import importlib
    import pkgutil

    import cupcake_py
    from cupcake_py.core.record import FrozenRecord, Record

    for info in pkgutil.walk_packages(cupcake_py.__path__, "cupcake_py."):
        if info.name.endswith(("__main__", ".demo")) or ".runtime.build" in info.name:
            continue
        importlib.import_module(info.name)
    found: list[type] = []
    todo: list[type] = [Record]
    while todo:
        cls = todo.pop()
        for sub in cls.__subclasses__():
            todo.append(sub)
            if sub is not FrozenRecord:
                found.append(sub)
    return found


def test_every_record_constructor_fills_the_slot_of_the_same_name() -> None:
    """`_fill` sets fields in `__slots__` order, so an `__init__` that passes its arguments in
    another order would silently swap fields: each parameter must land in its own slot."""
    import inspect

    # constructor parameters named differently from their field (the value is converted: str paths)
    renamed = {"ConfigDir": {"cupcake_dir": "cupcake_path", "root": "root_path"}}
    # constructor parameters whose value is converted on the way in: (the argument, the field's value)
    marker = object()
    converted = {"EventAnswers": {"events": (("/events-value",), frozenset({"/events-value"}))},
                 "AnswerTable": {"strict_events": (("/strict-value",), frozenset({"/strict-value"}))}}
    classes = _record_classes()
    assert len(classes) >= 10
    for cls in classes:
        params = [p for p in inspect.signature(cls.__init__).parameters.values() if p.name != "self"]
        fields = {p.name: renamed.get(cls.__name__, {}).get(p.name, p.name) for p in params}
        assert set(fields.values()) <= set(cls.__slots__), cls
        args: dict[str, object] = {}
        expected: dict[str, object] = {}
        for p in params:
            arg, want = converted.get(cls.__name__, {}).get(p.name, (marker, marker))
            if arg is marker:
                arg = f"/{p.name}-value" if p.name != fields[p.name] else object()
                want = arg
            args[p.name], expected[p.name] = arg, want
        obj = cls(**args)
        for name in args:
            assert getattr(obj, fields[name]) == expected[name], f"{cls.__qualname__}.{fields[name]}"
        assert all(hasattr(obj, name) for name in cls.__slots__), cls
