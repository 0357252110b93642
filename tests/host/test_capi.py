"""The lean wasmtime C API binding (cupcake_py/host/capi.py), checked against the wasmtime
package's own declarations of the same C API and exercised on small modules."""

from __future__ import annotations

import ctypes
import os
import subprocess
import sys
from pathlib import Path

import pytest
import wasmtime
from wasmtime import _bindings as wb
from wasmtime import _ffi

from cupcake_py.host import capi
from cupcake_py.host.engine import get_engine, wasmtime_version


def wat(text: str) -> bytes:
    return bytes(wasmtime.wat2wasm(text))  # type: ignore[arg-type]


def test_binding_matches_the_installed_wasmtime() -> None:
    assert wasmtime_version().split(".")[0] == str(capi.SUPPORTED_MAJOR)
    assert os.path.samefile(capi.library_path(), _ffi.filename)
    assert ctypes.sizeof(wb.wasmtime_extern_t) == capi.EXTERN_SIZE
    assert wb.wasmtime_extern_t.of.offset == capi.EXTERN_ITEM
    assert ctypes.sizeof(wb.wasmtime_val_t) == capi.VAL_SIZE
    assert wb.wasmtime_val_t.of.offset == 8
    assert ctypes.sizeof(wb.wasmtime_val_raw_t) == capi.RAW_SLOT
    assert ctypes.sizeof(wb.wasmtime_instance_t) == capi.INSTANCE_SIZE
    for item in (wb.wasmtime_func_t, wb.wasmtime_memory_t, wb.wasmtime_global_t):
        assert ctypes.sizeof(item) <= capi.EXTERN_SIZE - capi.EXTERN_ITEM
    assert ctypes.sizeof(wb.wasm_byte_vec_t) == ctypes.sizeof(capi.ByteVec)
    assert ctypes.sizeof(wb.wasm_limits_t) == ctypes.sizeof(capi.Limits)
    for code, name in enumerate(capi.TRAP_NAMES):
        assert wasmtime.TrapCode(code).name.lower().replace("_", " ") == name
    assert wasmtime.TrapCode.INTERRUPT.value == capi.TRAP_INTERRUPT


def _c_kind(t: object) -> tuple[object, ...]:
    """How a ctypes type crosses the C ABI: ("void",), ("pointer", pointee size or None) or
    ("scalar", size, signed)."""
    if t is None:
        return ("void",)
    assert isinstance(t, type)
    if issubclass(t, ctypes._Pointer):
        pointee = t._type_  # type: ignore[attr-defined]
        return ("pointer", ctypes.sizeof(pointee) if issubclass(pointee, ctypes.Structure) else None)
    if issubclass(t, (ctypes.c_void_p, ctypes.c_char_p, ctypes._CFuncPtr)):
        return ("pointer", None)
    if t is ctypes.c_bool:
        return ("scalar", 1, False)
    size = ctypes.sizeof(t)  # type: ignore[arg-type]
    return ("scalar", size, t(-1).value == -1)  # type: ignore[operator]


def _compatible(ours: object, theirs: object) -> bool:
    a, b = _c_kind(ours), _c_kind(theirs)
    if a[0] == "pointer" and b[0] == "pointer":  # an untyped pointer stands for any pointer
        return a[1] is None or b[1] is None or a[1] == b[1]
    return a == b


def test_every_declared_function_matches_wasmtimes_declaration() -> None:
    """Each of the C functions capi declares has the argument count, argument kinds (pointer,
    or integer of the same size and signedness) and return kind of the wasmtime package's own
    declaration of that function."""
    assert len(capi.DECLARED) >= 60
    for name, fn in capi.DECLARED.items():
        theirs = getattr(wb, f"_{name}", None)
        assert theirs is not None, f"{name}: not declared by the wasmtime package"
        assert len(fn.argtypes) == len(theirs.argtypes), name
        for i, (a, b) in enumerate(zip(fn.argtypes, theirs.argtypes, strict=True)):
            assert _compatible(a, b), f"{name} argument {i}: {a} vs wasmtime's {b}"
        assert _compatible(fn.restype, theirs.restype), f"{name} result: {fn.restype} vs wasmtime's {theirs.restype}"


def test_signature_check_catches_a_wrong_declaration() -> None:
    assert not _compatible(ctypes.c_uint32, ctypes.c_uint64)
    assert not _compatible(ctypes.c_int64, ctypes.c_uint64)
    assert not _compatible(ctypes.c_void_p, ctypes.c_uint64)
    assert not _compatible(None, ctypes.c_void_p)
    assert not _compatible(ctypes.POINTER(capi.Limits), ctypes.POINTER(wb.wasm_byte_vec_t))
    assert _compatible(ctypes.POINTER(capi.ByteVec), ctypes.POINTER(wb.wasm_byte_vec_t))


def test_module_types_compile_errors_and_serialization() -> None:
    engine = get_engine("winch")
    module = capi.Module.compile(engine, wat("""(module
      (import "env" "f" (func (param i32 i64) (result f64)))
      (import "env" "memory" (memory 2 9))
      (global (export "g") (mut i32) (i32.const 7))
      (table (export "t") 3 funcref)
      (func (export "h") (param f32))
      (memory (export "m") 1))"""))
    imports = {(m, n): t for m, n, t in module.imports()}
    f, mem = imports[("env", "f")], imports[("env", "memory")]
    assert (f.kind, f.params, f.results) == ("func", ("i32", "i64"), ("f64",))
    assert (mem.kind, mem.minimum, mem.maximum) == ("memory", 2, 9)
    exports = dict(module.exports())
    assert (exports["g"].kind, exports["g"].content, exports["g"].mutable) == ("global", "i32", True)
    assert (exports["t"].kind, exports["t"].element, exports["t"].minimum, exports["t"].maximum) == \
        ("table", "funcref", 3, None)
    assert (exports["h"].params, exports["m"].maximum) == (("f32",), None)
    native = module.serialize()
    again = capi.Module.deserialize(engine, native)
    assert [n for n, _ in again.exports()] == [n for n, _ in module.exports()]
    with pytest.raises(capi.WasmError, match="."):
        capi.Module.compile(engine, b"\0asm\1\0\0\0\xff")
    with pytest.raises(capi.WasmError):
        capi.Module.deserialize(engine, b"not native code at all")
    with pytest.raises(capi.WasmError):  # native code of the other compiler's engine
        capi.Module.deserialize(get_engine("cranelift"), native)


def _instance(text: str, limit: int | None = None) -> tuple[capi.Store, capi.Instance]:
    engine = get_engine("winch")
    store = capi.Store(engine, memory_limit=limit)
    store.set_epoch_deadline(1 << 40)
    inst = capi.Linker(engine).instantiate(store, capi.Module.compile(engine, wat(text)))
    return store, inst


def test_traps_globals_memory_and_limits() -> None:
    from cupcake_py.host.fastcall import Pending, i32_caller

    store, inst = _instance("""(module (memory (export "memory") 1 4) (global (export "v") i32 (i32.const -3))
      (func (export "boom") (result i32) unreachable)
      (func (export "div") (param i32) (result i32) (i32.div_u (i32.const 1) (local.get 0)))
      (func (export "sum3") (param i32 i32 i32) (result i32)
        (i32.add (local.get 0) (i32.add (local.get 1) (local.get 2)))))""", limit=2 * 65536)
    ctx = store.ctx
    glob = inst.export(ctx, "v")
    assert glob is not None and glob.kind == capi.EXTERN_GLOBAL and capi.global_i32(ctx, glob) == -3
    assert inst.export(ctx, "missing") is None
    pending = Pending()
    boom = inst.export(ctx, "boom")
    div = inst.export(ctx, "div")
    assert boom is not None and div is not None
    with pytest.raises(capi.WasmTrap) as e:
        i32_caller(boom, (0, 1), pending)(ctx)
    assert e.value.code_name == "unreachable"
    with pytest.raises(capi.WasmTrap) as e:
        i32_caller(div, (1, 1), pending)(ctx, 0)
    assert e.value.code_name == "integer division by zero"
    assert i32_caller(div, (1, 1), pending)(ctx, 1) == 1
    sum3 = inst.export(ctx, "sum3")
    assert sum3 is not None
    call3 = i32_caller(sum3, (3, 1), pending)  # 3+ arguments: packed by one struct call
    assert call3(ctx, 1, 2, 3) == 6
    assert call3(ctx, -1, 0, 0) == 0xFFFFFFFF and call3(ctx, 2**32 + 5, 1, 0) == 6  # modulo 2**32
    with pytest.raises(TypeError):
        call3(ctx, 1, 2)
    ext = inst.export(ctx, "memory")
    assert ext is not None and ext.kind == capi.EXTERN_MEMORY
    mem = capi.Memory(ext)
    assert mem.size(ctx) == 1
    mem.grow(ctx, 1)
    assert mem.size(ctx) == 2 and capi.memory_data_size(ctx, mem.ref) == 2 * 65536
    with pytest.raises(capi.WasmError):  # the store's limiter: 2 pages
        mem.grow(ctx, 1)


def test_host_function_exceptions_cross_wasm_unchanged() -> None:
    from cupcake_py.host.fastcall import Pending, define_import, i32_caller

    engine = get_engine("winch")
    store = capi.Store(engine)
    store.set_epoch_deadline(1 << 40)
    linker = capi.Linker(engine)
    pending = Pending()
    seen: list[tuple[int, ...]] = []

    class Boom(Exception):
        pass

    def handler(ctx: int, a: int, b: int) -> int:
        seen.append((a, b))
        if a == 13:
            raise Boom("unlucky")
        return a * b

    keep = define_import(linker, "env", "mul", 2, True, handler, store.ctx, pending)
    module = capi.Module.compile(engine, wat("""(module (import "env" "mul" (func $m (param i32 i32) (result i32)))
      (func (export "go") (param i32) (result i32) (call $m (local.get 0) (i32.const 3))))"""))
    inst = linker.instantiate(store, module)
    go = inst.export(store.ctx, "go")
    assert go is not None
    call = i32_caller(go, (1, 1), pending)
    assert call(store.ctx, 5) == 15
    with pytest.raises(Boom, match="unlucky"):
        call(store.ctx, 13)
    assert pending.error is None and call(store.ctx, 2) == 6 and seen == [(5, 3), (13, 3), (2, 3)]
    del keep


def test_eval_path_does_not_import_the_wasmtime_package(tmp_path: Path) -> None:
    """The host binds libwasmtime itself: loading and evaluating a policy (host builtins
    included) does not import the `wasmtime` Python package, which is slow to import."""
    from cupcake_py.plan import compile_query
    from cupcake_py.wasm import compile_policy

    wasm = tmp_path / "p.wasm"
    # (a float verb: sprintf's native fast path hands this call to the host builtin)
    wasm.write_bytes(compile_policy(compile_query(['package t\n\nx := sprintf("%.1f", [input.n + 0.5])\n'],
                                                  "data.t.x = x")))
    probe = subprocess.run([sys.executable, "-c", """if True:
        import sys
        from cupcake_py.host import HostOptions, PolicyModule
        p = PolicyModule(open(sys.argv[1], "rb").read(), HostOptions(cache_dir=None)).instantiate()
        print(p.eval("eval", {"n": 1}), "wasmtime" in sys.modules)
    """, str(wasm)], capture_output=True, text=True, check=True)
    assert probe.stdout.strip() == "[{'x': '1.5'}] False"


@pytest.mark.skipif(not os.path.exists("/proc/self/statm"), reason="reads the resident set size from Linux /proc")
def test_instances_and_modules_are_freed() -> None:
    """A dropped PolicyInstance (callbacks, linker, store) and PolicyModule are collected, so
    their wasmtime handles are deleted: long runs (cupcake test, compliance) do not grow."""
    import gc
    import weakref

    from cupcake_py.host import HostOptions, PolicyModule
    from cupcake_py.plan import compile_query
    from cupcake_py.wasm import compile_policy

    wasm = compile_policy(compile_query(['package t\n\nx := sprintf("%d", [input.n + 1])\n'], "data.t.x = x"))
    opts = HostOptions(cache_dir=None, compiler="winch")
    module = PolicyModule(wasm, opts)
    inst = module.instantiate()
    assert inst.eval("eval", {"n": 1}) == [{"x": "2"}]
    refs = [weakref.ref(inst._store), weakref.ref(inst), weakref.ref(module.module)]
    del inst, module
    gc.collect()
    assert [r() for r in refs] == [None, None, None]
    again = PolicyModule(wasm, opts)
    before = _resident_bytes()
    for n in range(600):  # kept alive, 600 instances would add ~70 MiB here
        assert again.instantiate().eval("eval", {"n": n}) == [{"x": str(n + 1)}]
    gc.collect()
    assert _resident_bytes() - before < 24 * 2**20


def _resident_bytes() -> int:
    """Current resident set size (Linux /proc; the high-water mark of getrusage would hide
    growth in a pytest process that was larger before)."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
