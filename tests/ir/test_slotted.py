"""core/slotted.py: the compiler's node classes declared like dataclasses without code generated at
import behave as `dataclasses.dataclass` classes do (constructor, defaults and factories,
keyword-only fields of a base, equality and hashing over compared fields, repr, frozen
assignment, pickling, replace, match args), checked against the standard library on
generated class shapes and calls; and the compiler path no longer imports `dataclasses`."""

from __future__ import annotations

import copy
import dataclasses
import json
import pickle
import subprocess
import sys
from typing import Any, ClassVar

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cupcake_py.core import slotted

NAMES = ["a", "b", "c", "d", "e"]


def _make(lib: Any, spec: list[tuple[str, int, bool]], frozen: bool, slots: bool, base_kw: bool) -> type:
    """A base with two keyword-only fields (`file`, `row` when `base_kw`) and a class with the
    fields of `spec`: (name, default kind 0 none / 1 value / 2 factory, compared)."""
    base_ns: dict[str, Any] = {"__annotations__": {"file": "int", "row": "int", "KEYS": "ClassVar[tuple[str, ...]]"},
                               "file": 0, "row": 0, "KEYS": ()}
    base = lib.dataclass(frozen=frozen, slots=slots, kw_only=base_kw)(type("Base", (), base_ns))
    ns: dict[str, Any] = {"__annotations__": {}}
    for name, kind, compared in spec:
        ns["__annotations__"][name] = "Any"
        if kind == 1:
            ns[name] = lib.field(default=len(name), compare=compared)
        elif kind == 2:
            ns[name] = lib.field(default_factory=list, compare=compared)
        elif not compared:
            ns[name] = lib.field(compare=False)
    return lib.dataclass(frozen=frozen, slots=slots)(type("Node", (base,), ns))


def _outcome(f: Any) -> Any:
    try:
        return ("ok", f())
    except TypeError:
        return ("TypeError",)
    except AttributeError:
        return ("AttributeError",)


def _view(x: Any) -> Any:
    return (type(x).__name__, repr(x), [(n, getattr(x, n)) for n in ("file", "row", *NAMES) if hasattr(x, n)])


specs = st.lists(st.tuples(st.sampled_from(NAMES), st.sampled_from([0, 0, 1, 2]), st.booleans()), max_size=4,
                 unique_by=lambda t: t[0]).map(lambda s: sorted(s, key=lambda t: t[1] > 0))  # defaults last
calls = st.tuples(st.lists(st.integers(0, 9), max_size=6),
                  st.dictionaries(st.sampled_from([*NAMES, "file", "row", "zz"]), st.integers(0, 9), max_size=3))


@settings(max_examples=150, deadline=None)
@given(specs, st.booleans(), st.booleans(), st.booleans(), calls, calls)
def test_behaves_as_a_dataclass(spec: list[tuple[str, int, bool]], frozen: bool, slots: bool, base_kw: bool,
                                call: tuple[list[int], dict[str, int]], other: tuple[list[int], dict[str, int]]) -> None:
    if not base_kw and any(kind == 0 for _, kind, _ in spec):
        base_kw = True  # a field without a default after the base's defaulted ones: refused by both
    ours, theirs = (_make(lib, spec, frozen, slots, base_kw) for lib in (slotted, dataclasses))
    assert ours.__match_args__ == theirs.__match_args__
    results = []
    for cls in (ours, theirs):
        a = _outcome(lambda cls=cls: cls(*call[0], **call[1]))
        b = _outcome(lambda cls=cls: cls(*other[0], **other[1]))
        row: list[Any] = [a[0], b[0]]
        if a[0] == "ok":
            x = a[1]
            row += [_view(x), _outcome(lambda x=x: setattr(x, "file", 7))[0], _view(x)]
            row.append(_view(copy.copy(x)) == _view(x))
            row.append(_view(copy.deepcopy(x)) == _view(x))
            row.append(_outcome(lambda x=x: hash(x))[0])
            if b[0] == "ok":
                row += [x == b[1], x != b[1]]
                if frozen:
                    row.append(hash(x) == hash(b[1]) if x == b[1] else None)
        results.append(row)
    assert results[0] == results[1]


def test_replace_fields_and_is_slotted() -> None:
    @slotted.dataclass(frozen=True, slots=True)
    class P:
        x: int
        y: list[int] = slotted.field(default_factory=list)
        K: ClassVar[int] = 3

    p = P(1)
    q = slotted.replace(p, x=2)
    assert (q.x, q.y, p.x) == (2, [], 1) and q.y is p.y
    assert [f.name for f in slotted.fields(P)] == ["x", "y"] == [f.name for f in slotted.fields(p)]
    assert slotted.is_slotted(p) and not slotted.is_slotted(P) and not slotted.is_slotted(1)
    assert P(1).y is not P(1).y and P.K == 3
    with pytest.raises(slotted.FrozenInstanceError):
        p.x = 3  # type: ignore[misc]
    with pytest.raises(TypeError):
        slotted.fields(1)


@slotted.dataclass(frozen=True, slots=True, kw_only=True)
class _Stmt:
    file: int = 0


@slotted.dataclass(frozen=True, slots=True)
class _Call(_Stmt):
    func: str
    args: tuple[int, ...] = ()


@slotted.dataclass(slots=True)
class _Term:
    value: object
    location: str = slotted.field(default="x.rego:1", compare=False, repr=False)


def test_pickle_round_trip() -> None:
    for x in (_Call("f", (1, 2), file=3), _Term(_Call("g")), _Term([1], location="y")):
        y = pickle.loads(pickle.dumps(x))
        assert y == x and repr(y) == repr(x) and type(y) is type(x)
    assert pickle.loads(pickle.dumps(_Term(1, location="y"))).location == "y"


def test_unsupported_declarations_are_refused() -> None:
    with pytest.raises(ValueError, match="mutable default"):
        slotted.dataclass(type("M", (), {"__annotations__": {"x": "list[int]"}, "x": []}))
    with pytest.raises(TypeError, match="not supported"):
        slotted.dataclass(type("I", (), {"__annotations__": {"x": "InitVar[int]"}}))


def test_the_shipped_init_templates_are_fresh_and_used() -> None:
    from pathlib import Path

    shipped = Path(slotted.__file__).with_name("slotted_inits.py")
    assert shipped.read_text() == slotted.init_templates_module(), "run `python -m cupcake_py.core.slotted`"

    @slotted.dataclass(slots=True)
    class Wide:  # more fields than the shipped templates: compiled once for its shape
        a: int
        b: int
        c: int
        d: int
        e: int
        f: int
        g: int
        h: int
        i: int
        j: int
        k: int
        m: int
        n: int
        o: int
        p: int
        q: int
        r: int = 7

    w = Wide(*range(16), r=9)
    assert (w.a, w.q, w.r) == (0, 15, 9) and Wide(*range(16)).r == 7


def test_the_compiler_path_does_not_import_dataclasses() -> None:
    code = ("import json, sys\nimport cupcake_py.rego.parser, cupcake_py.rego.compile.compiler, cupcake_py.plan.planner, "
            "cupcake_py.wasm.codegen, cupcake_py.wasm.linker\nprint(json.dumps(sorted(sys.modules)))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    loaded = set(json.loads(out.stdout))
    assert "cupcake_py.wasm.linker" in loaded and not loaded & {"dataclasses", "inspect", "yaml"}


def test_no_class_of_the_compiler_costs_a_compile() -> None:
    # Only the fallback's template compiles count: a fresh checkout also compiles each module's own source
    # to bytecode once (no __pycache__ yet), which is the import system's cost, not a class's.
    code = ("import builtins\ncalls = []\nreal = builtins.compile\n"
            "builtins.compile = lambda *a, **k: calls.append(a[1]) or real(*a, **k)\n"
            "import cupcake_py.rego.parser, cupcake_py.rego.compile.compiler, cupcake_py.plan.planner, "
            "cupcake_py.wasm.codegen, cupcake_py.wasm.linker\nprint([c for c in calls if str(c) == '<slotted __init__>'])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    assert out.stdout.strip() == "[]"
