"""Host protocol tests against the hand-written ABI module (tests/host/abi_mock.py)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from cupcake_py.host import UNDEFINED, HostOptions, PolicyModule
from cupcake_py.host import errors as E

from .abi_mock import ENTRYPOINTS, mock_module

OPTS = HostOptions(cache_dir=None)


@pytest.fixture(scope="module")
def fast_module() -> PolicyModule:
    return PolicyModule(mock_module(), OPTS)


@pytest.fixture(scope="module")
def ctx_module() -> PolicyModule:
    return PolicyModule(mock_module(minor=1, fast_path=False), OPTS)


@pytest.mark.parametrize("which", ["fast_module", "ctx_module"])
def test_protocols_agree(which: str, request: pytest.FixtureRequest) -> None:
    module: PolicyModule = request.getfixturevalue(which)
    p = module.instantiate(data={"d": [1, Decimal("2.50")]})
    assert p.abi_version == ((1, 3) if which == "fast_module" else (1, 1))
    assert p._fast is (which == "fast_module")
    assert p.entrypoints == ENTRYPOINTS and p.builtins == {}
    assert p.eval("echo", {"x": [1, "a", None]}) == [{"result": {"x": [1, "a", None]}}]
    assert p.eval("echo") == []  # input undefined
    assert p.eval("echo", None) == [{"result": None}]  # input null is defined
    assert p.eval("echo", input_json=b' {"big": 123456789012345678901234567890} ') == \
        [{"result": {"big": 123456789012345678901234567890}}]
    assert p.eval("data") == [{"result": {"d": [1, Decimal("2.50")]}}]
    assert p.eval(ENTRYPOINTS["data"]) == p.eval("data")
    # heap reset: many evaluations do not grow memory
    for i in range(200):
        assert p.eval("echo", {"i": i, "pad": "x" * 1000}) == [{"result": {"i": i, "pad": "x" * 1000}}]
    assert p._mem is not None and p._mem.memory.size(p._ctx) <= 4


def test_data_json_and_set_data(fast_module: PolicyModule) -> None:
    p = fast_module.instantiate(data_json=b'{"a": 1.0}')
    assert p.eval("data") == [{"result": {"a": Decimal("1.0")}}]
    p.set_data({"b": 2})
    assert p.eval("data") == [{"result": {"b": 2}}]
    p.set_data()
    assert p.eval("data") == [{"result": {}}]
    assert fast_module.instantiate().eval("data") == [{"result": {}}]


def test_large_input_grows_memory(fast_module: PolicyModule) -> None:
    p = fast_module.instantiate()
    big = {"s": "y" * (3 * 65536)}
    assert p.eval("echo", big) == [{"result": big}]


def test_rego_terms_as_input(fast_module: PolicyModule) -> None:
    # A Python set is sent as a Rego literal (the mock echoes the text verbatim).
    p = fast_module.instantiate()
    assert p.eval_raw("echo", {"s": frozenset({2, 1})}) == b'[{"result":{"s":{1,2}}}]'


def test_input_and_entrypoint_errors(fast_module: PolicyModule) -> None:
    p = fast_module.instantiate()
    with pytest.raises(E.InputError, match="input is not valid JSON"):
        p.eval("echo", input_json=b"{nope")
    with pytest.raises(E.InputError, match="data is not valid JSON"):
        fast_module.instantiate(data_json=b"[1,")
    with pytest.raises(E.UnknownEntrypointError, match="unknown entrypoint 'nope'"):
        p.eval("nope")
    with pytest.raises(E.UnknownEntrypointError):
        p.eval(99)
    with pytest.raises(E.UnknownEntrypointError):
        p.eval()  # several entrypoints: the name is required
    assert p.eval("echo", 1) == [{"result": 1}]


def test_abi_checks() -> None:
    with pytest.raises(E.ModuleError, match="not a valid WebAssembly module"):
        PolicyModule(b"\0asm\x01\0\0\0garbage", OPTS)
    with pytest.raises(E.ABIError, match="env.something"):
        PolicyModule(mock_module(extra_import='(import "env" "something" (func (param i32)))'), OPTS)
    import wasmtime
    bare = wasmtime.wat2wasm('(module (memory (export "memory") 1) (func (export "eval") (param i32) (result i32) i32.const 0))')
    with pytest.raises(E.ABIError, match="not an OPA WASM policy"):
        PolicyModule(bytes(bare), OPTS).instantiate()
    with pytest.raises(E.ABIError, match="unsupported OPA WASM ABI version 2"):
        PolicyModule(mock_module(major=2), OPTS).instantiate()


def test_summary(fast_module: PolicyModule) -> None:
    s = fast_module.summary()
    assert s.abi_version == (1, 3) and s.entrypoints == ENTRYPOINTS
    assert {(i.module, i.name) for i in s.imports} == {("env", "memory"), ("env", "opa_abort"), ("env", "opa_builtin1")}
    assert "opa_eval" in {e.name for e in s.exports}


def test_unused_input_key_is_not_undefined(fast_module: PolicyModule) -> None:
    assert fast_module.instantiate().eval("echo", UNDEFINED) == []
