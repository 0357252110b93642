"""ABI entry points: opa_eval, contexts, opa_rt_init + mapping, memoization,
runtime errors, static values, and data path updates."""

from __future__ import annotations

import pytest

from tests.runtime.runtime_host import Abort, Runtime


def echo_input(rt: Runtime, ctx: int) -> int:
    """A stand-in for generated code: result set {{"result": input}} when
    input is defined, plus the entrypoint id as "ep"."""
    rs = rt("opa_set")
    rt.write(ctx + 8, rs.to_bytes(4, "little"))
    inp = rt.u32(ctx)
    if inp:
        row = rt("opa_object")
        rt("opa_object_insert", row, rt.string("result"), inp)
        rt("opa_object_insert", row, rt.string("ep"), rt("opa_number_int", rt.u32(ctx + 12)))
        rt("opa_set_add", rs, row)
    return 0


def _fast_eval(rt: Runtime, input_text: bytes, fmt: int = 0, entrypoint: int = 0, reserved: int = 0) -> str:
    base = rt("opa_heap_ptr_get")
    rt.write(base, input_text)
    return rt.cstr(rt("opa_eval", reserved, entrypoint, 0, base, len(input_text), base + len(input_text), fmt))


def test_fast_path(rt: Runtime) -> None:
    rt.gen_eval = echo_input
    assert _fast_eval(rt, b'{"x": {1, 2}, "b": [1.50]}') == '[{"ep":0,"result":{"b":[1.50],"x":[1,2]}}]'
    assert _fast_eval(rt, b'{"x": {1, 2}}', fmt=1, entrypoint=3) == '{{"ep": 3, "result": {"x": {1, 2}}}}'
    assert _fast_eval(rt, b"") == "[]"


def test_fast_path_resets_the_heap_every_time(rt: Runtime) -> None:
    rt.gen_eval = echo_input
    base = rt("opa_heap_ptr_get")
    text = b'{"a": "' + b"x" * 5000 + b'"}'
    for _ in range(50):
        rt.write(base, text)
        out = rt("opa_eval", 0, 0, 0, base, len(text), base + len(text), 0)
        assert rt.cstr(out).startswith('[{"ep":0,"result":{"a":"xxx')
    assert rt("opa_heap_ptr_get") < base + len(text) + 40000


def test_fast_path_errors(rt: Runtime) -> None:
    rt.gen_eval = echo_input
    with pytest.raises(Abort, match="invalid reserved argument"):
        _fast_eval(rt, b"1", reserved=1)
    with pytest.raises(Abort, match="invalid input"):
        _fast_eval(rt, b"{")
    rt.gen_eval = lambda rt_, ctx: 1
    with pytest.raises(Abort, match="eval failed"):
        _fast_eval(rt, b"1")


def test_context_path(rt: Runtime) -> None:
    rt.gen_eval = echo_input
    ctx = rt("opa_eval_ctx_new")
    assert rt.read(ctx, 16) == bytes(16)
    inp, data = rt.val("[1]"), rt.val("{}")
    rt("opa_eval_ctx_set_input", ctx, inp)
    rt("opa_eval_ctx_set_data", ctx, data)
    rt("opa_eval_ctx_set_entrypoint", ctx, 7)
    assert (rt.u32(ctx), rt.u32(ctx + 4), rt.u32(ctx + 12)) == (inp, data, 7)
    echo_input(rt, ctx)
    assert rt.dump(rt("opa_eval_ctx_get_result", ctx)) == '[{"ep":7,"result":[1]}]'


def _init_with_static(rt: Runtime, mapping: bytes) -> tuple[int, int, int]:
    """Like the linker's start function: static data at the old heap start,
    the heap moved above it. Returns (static string, static boolean, new base)."""
    low = rt("opa_heap_ptr_get")
    rt.write(low, mapping)
    text = low + len(mapping)
    rt.write(text, b"hello")
    s = (text + 5 + 7) & ~7
    rt.write(s, bytes([4, 0, 0, 0]) + (5).to_bytes(4, "little") + text.to_bytes(4, "little"))
    b = s + 12
    rt.write(b, bytes([2, 1]))
    heap_base = b + 2 + 4096
    rt("opa_rt_init", heap_base, low, len(mapping))
    return s, b, heap_base


def test_rt_init_mapping_and_static_values(rt: Runtime) -> None:
    mapping = b'{"g0":{"pkg":{"rule":3,"other":5},"a":{"b":{"c":9}}}}'
    s, b, heap_base = _init_with_static(rt, mapping)
    assert rt("opa_heap_ptr_get") >= heap_base

    def lookup(*path: str) -> int:
        arr = rt("opa_array")
        for p in path:
            rt("opa_array_append", arr, rt.string(p))
        return rt("opa_mapping_lookup", arr)

    assert lookup("g0", "pkg", "rule") == 3
    assert lookup("g0", "pkg", "other") == 5
    assert lookup("g0", "a", "b", "c") == 9
    assert lookup("g0", "pkg") == 0
    assert lookup("g0", "pkg", "rule", "x") == 0
    assert lookup("nope") == 0
    # static values behave like values and are never freed
    assert rt.dump(s) == '"hello"' and rt.dump(b) == "true"
    assert rt("opa_value_compare", s, rt.string("hello")) == 0
    assert rt("opa_value_hash", s) == rt("opa_value_hash", rt.string("hello"))
    obj = rt("opa_object")
    rt("opa_object_insert", obj, s, b)
    assert rt("opa_value_get", obj, rt.string("hello")) == b
    rt("opa_value_free", obj)
    rt("opa_value_free", s)
    rt("opa_free", b)
    assert rt.dump(s) == '"hello"'


@pytest.mark.parametrize("nfuncs", [0, 140])  # a hashed root frame, a direct one (indexes < nfuncs)
def test_memoize(rt: Runtime, nfuncs: int) -> None:
    v, w = rt.val("1"), rt.val("2")
    rt("opa_memoize_init", nfuncs)
    assert rt("opa_memoize_get", 3) == 0
    rt("opa_memoize_insert", 3, v)
    for i in range(100, 140):
        rt("opa_memoize_insert", i, w)
    assert rt("opa_memoize_get", 3) == v and rt("opa_memoize_get", 120) == w and rt("opa_memoize_get", 99) == 0
    rt("opa_memoize_push")
    assert rt("opa_memoize_get", 3) == 0
    rt("opa_memoize_insert", 3, w)
    assert rt("opa_memoize_get", 3) == w
    rt("opa_memoize_pop")
    assert rt("opa_memoize_get", 3) == v
    rt("opa_memoize_init", nfuncs)
    assert rt("opa_memoize_get", 3) == 0
    with pytest.raises(Abort, match="memoize stack underflow"):
        rt("opa_memoize_pop")


def test_memoize_direct_frame_refuses_an_index_past_the_plan(rt: Runtime) -> None:
    rt("opa_memoize_init", 4)
    assert rt("opa_memoize_get", 4) == 0 and rt("opa_memoize_get", -1) == 0
    with pytest.raises(Abort, match="memoize index out of range"):
        rt("opa_memoize_insert", 4, rt.val("1"))


def test_null_and_booleans_are_shared_static_values(rt: Runtime) -> None:
    t1, t2, f1, n1 = rt.val("true"), rt.val("true"), rt.val("false"), rt.val("null")
    assert t1 == t2 and t1 != f1 and n1 == rt.val("null")
    assert t1 < rt("opa_heap_ptr_get")  # below the heap: never freed, never reset
    rt("opa_value_free", t1)  # freeing a static value is a no-op
    assert rt.dump(t2) == "true" and rt.dump(f1) == "false" and rt.dump(n1) == "null"


def test_runtime_error(rt: Runtime) -> None:
    f, m = rt.bytes_in(b"abort.rego\0"), rt.bytes_in(b"var assignment conflict\0")
    with pytest.raises(Abort) as e:
        rt("opa_runtime_error", f, 6, 1, m)
    assert str(e.value) == "abort.rego:6:1: var assignment conflict"


@pytest.mark.parametrize(
    "base,path,value,code,after",
    [
        ('{"a": {}}', '["a", "b"]', "1", 0, '{"a": {"b": 1}}'),
        ("{}", '["x", "y", "z"]', "[1]", 0, '{"x": {"y": {"z": [1]}}}'),
        ('{"a": 1}', '["a"]', "2", 0, '{"a": 2}'),
        ('{"a": 1}', '["a", "b"]', "2", 2, '{"a": 1}'),
        ("[]", '["a"]', "2", 2, "[]"),
        ("{}", "[]", "2", 3, "{}"),
        ("{}", '"a"', "2", 3, "{}"),
    ],
)
def test_add_path(rt: Runtime, base: str, path: str, value: str, code: int, after: str) -> None:
    b = rt.val(base)
    assert rt("opa_value_add_path", b, rt.val(path), rt.val(value)) == code
    assert rt.dump(b, True) == after


@pytest.mark.parametrize(
    "base,path,code,after",
    [
        ('{"a": {"b": 1, "c": 2}}', '["a", "b"]', 0, '{"a": {"c": 2}}'),
        ('{"a": 1}', '["a"]', 0, "{}"),
        ('{"a": 1}', '["x", "y"]', 0, '{"a": 1}'),
        ('{"a": 1}', '["a", "y"]', 2, '{"a": 1}'),
        ('{"a": 1}', "[]", 3, '{"a": 1}'),
    ],
)
def test_remove_path(rt: Runtime, base: str, path: str, code: int, after: str) -> None:
    b = rt.val(base)
    assert rt("opa_value_remove_path", b, rt.val(path)) == code
    assert rt.dump(b, True) == after


def test_add_path_copies_keys_so_the_path_can_be_freed(rt: Runtime) -> None:
    base = rt.val("{}")
    path = rt.val('["k1", "k2"]')
    rt("opa_value_add_path", base, path, rt.val("1"))
    rt("opa_value_free", path)
    rt.val('["zzzzzzzz", "yyyyyyyy"]')  # reuse the freed blocks
    assert rt.dump(base) == '{"k1":{"k2":1}}'


def test_reading_data_during_an_evaluation_leaves_no_pointers_into_the_reset_heap(rt: Runtime) -> None:
    """Data parsed before `base` is sorted/iterated during evaluations; after
    the heap is reset and overwritten, the data must be intact."""
    text = '{"z": [3, 2, 1], "b": {"y": 1, "x": 2, "w": {"k": {3, 1, 2}}}, "a": {"q", "p"}}'
    data = rt.val(text)
    base = rt("opa_heap_ptr_get")

    def walk(rt_: Runtime, ctx: int) -> int:
        stack, seen = [rt_.u32(ctx + 4)], 0
        while stack:
            v = stack.pop()
            k = 0
            while (k := rt_("opa_value_iter", v, k)) != 0:
                seen += 1
                stack.append(rt_("opa_value_get", v, k))
        rs = rt_("opa_set")
        rt_("opa_set_add", rs, rt_("opa_number_int", seen))
        rt_.write(ctx + 8, rs.to_bytes(4, "little"))
        return 0

    rt.gen_eval = walk
    for _ in range(3):
        out = rt.cstr(rt("opa_eval", 0, 0, data, base, 0, base, 0))
        assert out == "[15]"
        rt("opa_heap_ptr_set", base)
        junk = rt("opa_malloc", 4096)
        rt.write(junk, b"\xff" * 4096)
    assert rt.dump(data) == '{"a":["p","q"],"b":{"w":{"k":[1,2,3]},"x":2,"y":1},"z":[3,2,1]}'
