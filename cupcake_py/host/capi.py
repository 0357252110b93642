"""A lean ctypes binding to the parts of wasmtime's C API the host uses.

The native library is the one the `wasmtime` PyPI package ships (`wasmtime/<os>-<arch>/`);
this module loads it directly instead of importing the `wasmtime` Python package, whose
import declares every C function and type of the whole API (~80 ms per process on our CI
machine, more than everything else in a cold `cupcake eval`). The C API used here is that
of wasmtime 50 (`SUPPORTED_MAJOR`); the struct sizes below are checked against the
package's own declarations by tests/host/test_capi.py.

Objects own their C handles and free them when collected: Engine (never freed: one per
configuration per process), Module, Store, Linker. Memory, Instance and Extern are
values inside a store (valid while it lives). Every failure is a `WasmError`; traps are
`WasmTrap` with wasmtime's trap code (`TRAP_INTERRUPT`: the epoch deadline passed).
"""

from __future__ import annotations

import ctypes
import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from _ctypes import CFuncPtr
    from typing import Any

    _CType = type[ctypes._SimpleCData[Any]] | type[ctypes._Pointer[Any]]

SUPPORTED_MAJOR = 50

_vp, _sz, _u8, _u32, _u64, _i64, _bool, _cp = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_uint8, ctypes.c_uint32,
                                               ctypes.c_uint64, ctypes.c_int64, ctypes.c_bool, ctypes.c_char_p)


class ByteVec(ctypes.Structure):
    """wasm_byte_vec_t / wasm_name_t / wasm_message_t."""

    _fields_ = [("size", _sz), ("data", _vp)]

    def text(self) -> bytes:
        return ctypes.string_at(self.data, self.size) if self.size else b""


class PtrVec(ctypes.Structure):
    """wasm_*_vec_t of pointers (import types, export types, value types)."""

    _fields_ = [("size", _sz), ("data", ctypes.POINTER(_vp))]


class Limits(ctypes.Structure):
    _fields_ = [("min", _u32), ("max", _u32)]


_BYTEVEC_P, _PTRVEC_P = ctypes.POINTER(ByteVec), ctypes.POINTER(PtrVec)

# Sizes and offsets of the C structs handled as raw bytes (wasmtime 50, 64-bit).
EXTERN_SIZE = 32  # wasmtime_extern_t: kind (u8) at 0, the item union at 8
EXTERN_ITEM = 8
INSTANCE_SIZE = 16  # wasmtime_instance_t (items of an extern: func 16, memory 24, global 24 bytes)
VAL_SIZE = 32  # wasmtime_val_t: kind (u8) at 0, the value union at 8
# The buffer types, made once: `c_ubyte * n` makes a new type on each use once the last one was freed,
# and a ctypes type is freed only by the cyclic GC (a long-running server piled them up between
# collections: issue 29).
_ExternBuf = ctypes.c_ubyte * EXTERN_SIZE
_InstanceBuf = ctypes.c_ubyte * INSTANCE_SIZE
_ValBuf = ctypes.c_ubyte * VAL_SIZE
RAW_SLOT = 16  # wasmtime_val_raw_t

EXTERN_FUNC, EXTERN_GLOBAL, EXTERN_TABLE, EXTERN_MEMORY = 0, 1, 2, 3
VALKIND_NAMES = {0: "i32", 1: "i64", 2: "f32", 3: "f64", 4: "v128", 128: "externref", 129: "funcref"}
STRATEGY = {"cranelift": 1, "winch": 2}
OPT_SPEED = 1
TRAP_INTERRUPT = 10
TRAP_NAMES = ("stack overflow", "memory out of bounds", "heap misaligned", "table out of bounds",
              "indirect call to null", "bad signature", "integer overflow", "integer division by zero",
              "bad conversion to integer", "unreachable", "interrupt", "out of fuel")


class WasmError(Exception):
    """A failure reported by wasmtime (compile, link, instantiate, call, grow...)."""


class WasmTrap(WasmError):
    """A WebAssembly trap; `code` is wasmtime's trap code (None for host-made traps)."""

    def __init__(self, message: str, code: int | None) -> None:
        super().__init__(message)
        self.code = code

    @property
    def code_name(self) -> str | None:
        if self.code is None:
            return None
        return TRAP_NAMES[self.code] if self.code < len(TRAP_NAMES) else f"trap code {self.code}"


def library_path() -> str:
    """The libwasmtime of the installed `wasmtime` package, found without importing it."""
    if sys.platform in ("linux", "android"):
        name, plat = "_libwasmtime.so", "linux"
    elif sys.platform == "darwin":
        name, plat = "_libwasmtime.dylib", "darwin"
    elif sys.platform == "win32":
        name, plat = "_wasmtime.dll", "win32"
    else:
        raise WasmError(f"wasmtime does not support this platform ({sys.platform})")
    if plat == "win32":
        machine = os.environ.get("PROCESSOR_ARCHITECTURE", "")
    else:
        machine = os.uname().machine
    machine = {"AMD64": "x86_64", "arm64": "aarch64", "ARM64": "aarch64"}.get(machine, machine)
    for entry in sys.path:
        candidate = os.path.join(entry or os.curdir, "wasmtime", f"{plat}-{machine}", name)
        if os.path.isfile(candidate):
            return candidate
    raise WasmError(f"the wasmtime package is not installed for {plat}-{machine} (no wasmtime/{plat}-{machine}/{name} "
                    "on sys.path)")


_lib_path = library_path()
_lib = ctypes.CDLL(_lib_path)
# The same library, called with the GIL held: for functions that return at once and never
# call back into Python (no GIL release and re-acquisition per call, and no opening for the
# epoch ticker's thread to take the GIL in the middle of an evaluation).
_lib_gil = ctypes.PyDLL(_lib_path, handle=_lib._handle)


# Every C function this binding declares, by C name (tests compare each signature with the
# wasmtime package's own declaration of the same function).
DECLARED: dict[str, CFuncPtr] = {}


def _c(name: str, restype: _CType | None, *argtypes: _CType, hold_gil: bool = False) -> CFuncPtr:
    fn = (_lib_gil if hold_gil else _lib)[name]
    fn.restype, fn.argtypes = restype, list(argtypes)
    DECLARED[name] = fn
    return fn


# -- the functions ------------------------------------------------------------------
config_new = _c("wasm_config_new", _vp)
config_epoch_interruption_set = _c("wasmtime_config_epoch_interruption_set", None, _vp, _bool)
config_strategy_set = _c("wasmtime_config_strategy_set", None, _vp, _u8)
config_cranelift_opt_level_set = _c("wasmtime_config_cranelift_opt_level_set", None, _vp, _u8)
engine_new_with_config = _c("wasm_engine_new_with_config", _vp, _vp)
engine_increment_epoch = _c("wasmtime_engine_increment_epoch", None, _vp, hold_gil=True)

module_new = _c("wasmtime_module_new", _vp, _vp, _cp, _sz, _vp)
module_deserialize = _c("wasmtime_module_deserialize", _vp, _vp, _cp, _sz, _vp)
module_serialize = _c("wasmtime_module_serialize", _vp, _vp, _vp)
module_delete = _c("wasmtime_module_delete", None, _vp)
module_imports = _c("wasmtime_module_imports", None, _vp, _vp)
module_exports = _c("wasmtime_module_exports", None, _vp, _vp)
importtype_vec_delete = _c("wasm_importtype_vec_delete", None, _vp)
exporttype_vec_delete = _c("wasm_exporttype_vec_delete", None, _vp)
importtype_module = _c("wasm_importtype_module", _BYTEVEC_P, _vp)
importtype_name = _c("wasm_importtype_name", _BYTEVEC_P, _vp)
importtype_type = _c("wasm_importtype_type", _vp, _vp)
exporttype_name = _c("wasm_exporttype_name", _BYTEVEC_P, _vp)
exporttype_type = _c("wasm_exporttype_type", _vp, _vp)
externtype_kind = _c("wasm_externtype_kind", _u8, _vp)
externtype_as_functype = _c("wasm_externtype_as_functype_const", _vp, _vp)
externtype_as_globaltype = _c("wasm_externtype_as_globaltype_const", _vp, _vp)
externtype_as_tabletype = _c("wasm_externtype_as_tabletype_const", _vp, _vp)
externtype_as_memorytype = _c("wasm_externtype_as_memorytype_const", _vp, _vp)
functype_params = _c("wasm_functype_params", _PTRVEC_P, _vp)
functype_results = _c("wasm_functype_results", _PTRVEC_P, _vp)
functype_new = _c("wasm_functype_new", _vp, _vp, _vp)
functype_delete = _c("wasm_functype_delete", None, _vp)
valtype_new = _c("wasm_valtype_new", _vp, _u8)
valtype_kind = _c("wasm_valtype_kind", _u8, _vp)
valtype_vec_new = _c("wasm_valtype_vec_new", None, _vp, _sz, _vp)
globaltype_content = _c("wasm_globaltype_content", _vp, _vp)
globaltype_mutability = _c("wasm_globaltype_mutability", _u8, _vp)
tabletype_element = _c("wasm_tabletype_element", _vp, _vp)
tabletype_limits = _c("wasm_tabletype_limits", ctypes.POINTER(Limits), _vp)
memorytype_new = _c("wasmtime_memorytype_new", _vp, _u64, _bool, _u64, _bool, _bool, _u8, _vp)
memorytype_delete = _c("wasm_memorytype_delete", None, _vp)
memorytype_minimum = _c("wasmtime_memorytype_minimum", _u64, _vp)
memorytype_maximum = _c("wasmtime_memorytype_maximum", _bool, _vp, _vp)

store_new = _c("wasmtime_store_new", _vp, _vp, _vp, _vp)
store_context = _c("wasmtime_store_context", _vp, _vp)
store_delete = _c("wasmtime_store_delete", None, _vp)
store_limiter = _c("wasmtime_store_limiter", None, _vp, _i64, _i64, _i64, _i64, _i64)
context_set_epoch_deadline = _c("wasmtime_context_set_epoch_deadline", None, _vp, _u64, hold_gil=True)
memory_new = _c("wasmtime_memory_new", _vp, _vp, _vp, _vp)
memory_data = _c("wasmtime_memory_data", _vp, _vp, _vp, hold_gil=True)
memory_data_size = _c("wasmtime_memory_data_size", _sz, _vp, _vp, hold_gil=True)
memory_size = _c("wasmtime_memory_size", _u64, _vp, _vp)
memory_grow = _c("wasmtime_memory_grow", _vp, _vp, _vp, _u64, _vp)
linker_new = _c("wasmtime_linker_new", _vp, _vp)
linker_delete = _c("wasmtime_linker_delete", None, _vp)
linker_define = _c("wasmtime_linker_define", _vp, _vp, _vp, _cp, _sz, _cp, _sz, _vp)
linker_define_func_unchecked = _c("wasmtime_linker_define_func_unchecked", _vp, _vp, _cp, _sz, _cp, _sz, _vp, _vp,
                                  _vp, _vp)
linker_instantiate = _c("wasmtime_linker_instantiate", _vp, _vp, _vp, _vp, _vp, _vp)
instance_export_get = _c("wasmtime_instance_export_get", _bool, _vp, _vp, _cp, _sz, _vp)
global_get = _c("wasmtime_global_get", None, _vp, _vp, _vp)
func_call_unchecked = _c("wasmtime_func_call_unchecked", _vp, _vp, _vp, _vp, _sz, _vp)
caller_context = _c("wasmtime_caller_context", _vp, _vp)

error_message = _c("wasmtime_error_message", None, _vp, _vp)
error_delete = _c("wasmtime_error_delete", None, _vp)
byte_vec_delete = _c("wasm_byte_vec_delete", None, _vp)
trap_new = _c("wasmtime_trap_new", _vp, _cp, _sz)
trap_message = _c("wasm_trap_message", None, _vp, _vp)
trap_code = _c("wasmtime_trap_code", _bool, _vp, _vp)
trap_delete = _c("wasm_trap_delete", None, _vp)

# Host functions: wasm_trap_t *callback(void *env, wasmtime_caller_t *caller,
#                                        wasmtime_val_raw_t *args_and_results, size_t n)
HOST_CALLBACK = ctypes.CFUNCTYPE(_vp, _vp, _vp, _vp, _sz)


# -- errors -------------------------------------------------------------------------
def take_error(err: int) -> WasmError:
    """The WasmError for a wasmtime_error_t (which this frees)."""
    vec = ByteVec()
    error_message(err, ctypes.byref(vec))
    text = vec.text().decode("utf-8", "replace")
    byte_vec_delete(ctypes.byref(vec))
    error_delete(err)
    return WasmError(text)


def take_trap(trap: int) -> WasmTrap:
    """The WasmTrap for a wasm_trap_t (which this frees)."""
    vec = ByteVec()
    trap_message(trap, ctypes.byref(vec))
    text = vec.text().rstrip(b"\0").decode("utf-8", "replace")
    byte_vec_delete(ctypes.byref(vec))
    code = _u8()
    known = trap_code(trap, ctypes.byref(code))
    trap_delete(trap)
    return WasmTrap(text, code.value if known else None)


def check(err: int | None) -> None:
    if err:
        raise take_error(err)


def new_trap(message: bytes) -> int:
    """A host-made trap to return from a host function (wasmtime takes ownership)."""
    return trap_new(message, len(message)) or 0


# -- types ----------------------------------------------------------------------------
class ExternType:
    """What an import or export is: kind ("func", "global", "table", "memory") and its
    type (params/results as value type names; minimum/maximum pages or elements;
    content/mutable of a global; element of a table)."""

    __slots__ = ("kind", "params", "results", "minimum", "maximum", "content", "mutable", "element")

    def __init__(self, kind: str, params: tuple[str, ...] = (), results: tuple[str, ...] = (), minimum: int = 0,
                 maximum: int | None = None, content: str = "", mutable: bool = False, element: str = "") -> None:
        self.kind, self.params, self.results, self.minimum, self.maximum = kind, params, results, minimum, maximum
        self.content, self.mutable, self.element = content, mutable, element

    def __repr__(self) -> str:
        return f"ExternType({self.kind!r}, params={self.params}, results={self.results}, minimum={self.minimum}, " \
               f"maximum={self.maximum}, content={self.content!r}, mutable={self.mutable}, element={self.element!r})"


def _valtypes(vec: ctypes._Pointer[PtrVec]) -> tuple[str, ...]:
    v = vec.contents
    return tuple(VALKIND_NAMES.get(valtype_kind(v.data[i]), "?") for i in range(v.size))


def describe(externtype: int) -> ExternType:
    kind = externtype_kind(externtype)
    if kind == EXTERN_FUNC:
        ft = externtype_as_functype(externtype)
        return ExternType("func", params=_valtypes(functype_params(ft)), results=_valtypes(functype_results(ft)))
    if kind == EXTERN_MEMORY:
        mt = externtype_as_memorytype(externtype)
        top = _u64()
        has_max = memorytype_maximum(mt, ctypes.byref(top))
        return ExternType("memory", minimum=memorytype_minimum(mt), maximum=top.value if has_max else None)
    if kind == EXTERN_GLOBAL:
        gt = externtype_as_globaltype(externtype)
        return ExternType("global", content=VALKIND_NAMES.get(valtype_kind(globaltype_content(gt)), "?"),
                          mutable=globaltype_mutability(gt) == 1)
    if kind == EXTERN_TABLE:
        tt = externtype_as_tabletype(externtype)
        lim = tabletype_limits(tt).contents
        return ExternType("table", element=VALKIND_NAMES.get(valtype_kind(tabletype_element(tt)), "?"),
                          minimum=lim.min, maximum=None if lim.max == 0xFFFFFFFF else lim.max)
    return ExternType(f"extern kind {kind}")


def _name(vec: ctypes._Pointer[ByteVec]) -> str:
    return vec.contents.text().decode("utf-8", "replace")


_POINTER_ARRAYS: dict[int, type[ctypes.Array[ctypes.c_void_p]]] = {}  # by length (a handful of signatures)


def _pointer_array(n: int) -> type[ctypes.Array[ctypes.c_void_p]]:
    """`c_void_p * n`, made once per length (see _ExternBuf)."""
    known = _POINTER_ARRAYS.get(n)
    if known is None:
        known = _POINTER_ARRAYS[n] = _vp * n
    return known


def i32_functype(nparams: int, nresults: int) -> int:
    """A new wasm_functype_t of i32 params and results (the caller deletes it)."""
    vecs = []
    for n in (nparams, nresults):
        vec = PtrVec()
        items = _pointer_array(max(n, 1))(*[valtype_new(0) for _ in range(n)])
        valtype_vec_new(ctypes.byref(vec), n, items)  # takes the value types
        vecs.append(vec)
    functype: int = functype_new(ctypes.byref(vecs[0]), ctypes.byref(vecs[1]))  # takes both vectors
    return functype


# -- objects --------------------------------------------------------------------------
class Engine:
    """A wasmtime engine with epoch interruption on; lives as long as the process."""

    def __init__(self, compiler: str) -> None:
        if compiler not in STRATEGY:
            raise ValueError(f"unknown compiler {compiler!r} (cranelift or winch)")
        config = config_new()
        config_epoch_interruption_set(config, True)
        config_strategy_set(config, STRATEGY[compiler])
        if compiler == "cranelift":
            config_cranelift_opt_level_set(config, OPT_SPEED)
        self.ptr: int = engine_new_with_config(config)  # takes the config
        if not self.ptr:
            raise WasmError("wasmtime could not create an engine")
        self.compiler = compiler

    def increment_epoch(self) -> None:
        engine_increment_epoch(self.ptr)


class Module:
    """A compiled module (native code)."""

    def __init__(self, ptr: int) -> None:
        self.ptr = ptr

    @classmethod
    def compile(cls, engine: Engine, wasm: bytes) -> Module:
        out = _vp()
        check(module_new(engine.ptr, wasm, len(wasm), ctypes.byref(out)))
        return cls(out.value or 0)

    @classmethod
    def deserialize(cls, engine: Engine, native: bytes) -> Module:
        """From `serialize()` output of a compatible engine (wasmtime checks the header)."""
        out = _vp()
        check(module_deserialize(engine.ptr, native, len(native), ctypes.byref(out)))
        return cls(out.value or 0)

    def serialize(self) -> bytes:
        vec = ByteVec()
        check(module_serialize(self.ptr, ctypes.byref(vec)))
        try:
            return vec.text()
        finally:
            byte_vec_delete(ctypes.byref(vec))

    def imports(self) -> list[tuple[str, str, ExternType]]:
        vec = PtrVec()
        module_imports(self.ptr, ctypes.byref(vec))
        try:
            return [(_name(importtype_module(it)), _name(importtype_name(it)), describe(importtype_type(it)))
                    for it in (vec.data[i] for i in range(vec.size))]
        finally:
            importtype_vec_delete(ctypes.byref(vec))

    def exports(self) -> list[tuple[str, ExternType]]:
        vec = PtrVec()
        module_exports(self.ptr, ctypes.byref(vec))
        try:
            return [(_name(exporttype_name(et)), describe(exporttype_type(et)))
                    for et in (vec.data[i] for i in range(vec.size))]
        finally:
            exporttype_vec_delete(ctypes.byref(vec))

    def __del__(self, _delete: CFuncPtr = module_delete) -> None:
        if self.ptr:
            _delete(self.ptr)
            self.ptr = 0


class Store:
    """A store (one instance's world); `ctx` is its wasmtime_context_t address."""

    def __init__(self, engine: Engine, memory_limit: int | None = None) -> None:
        self.ptr: int = store_new(engine.ptr, None, None)
        if not self.ptr:
            raise WasmError("wasmtime could not create a store")
        self.ctx: int = store_context(self.ptr)
        if memory_limit is not None:
            store_limiter(self.ptr, memory_limit, -1, -1, -1, -1)

    def set_epoch_deadline(self, ticks: int) -> None:
        context_set_epoch_deadline(self.ctx, ticks)

    def __del__(self, _delete: CFuncPtr = store_delete) -> None:
        if self.ptr:
            _delete(self.ptr)
            self.ptr = 0


class Extern:
    """A wasmtime_extern_t (an export or a definition); `item` is the address of its
    func / memory / global struct."""

    __slots__ = ("buf", "kind", "addr", "item")

    def __init__(self) -> None:
        self.buf = _ExternBuf()
        self.kind = -1
        self.addr = ctypes.addressof(self.buf)
        self.item = self.addr + EXTERN_ITEM


class Memory:
    """A linear memory (handle into its store); sizes in 64 KiB pages."""

    __slots__ = ("ext", "ref")

    def __init__(self, ext: Extern) -> None:
        self.ext = ext
        self.ref = ext.item  # the wasmtime_memory_t address the memory_* functions take

    @classmethod
    def new(cls, store: Store, minimum: int, maximum: int) -> Memory:
        mt = _vp()
        check(memorytype_new(minimum, True, maximum, False, False, 16, ctypes.byref(mt)))
        ext = Extern()
        try:
            check(memory_new(store.ctx, mt, ext.item))
        finally:
            memorytype_delete(mt)
        ext.buf[0] = ext.kind = EXTERN_MEMORY
        return cls(ext)

    def size(self, ctx: int) -> int:
        pages: int = memory_size(ctx, self.ref)
        return pages

    def grow(self, ctx: int, pages: int) -> None:
        previous = _u64()
        check(memory_grow(ctx, self.ref, pages, ctypes.byref(previous)))


class Instance:
    __slots__ = ("buf",)

    def __init__(self) -> None:
        self.buf = _InstanceBuf()

    def export(self, ctx: int, name: str) -> Extern | None:
        ext = Extern()
        raw = name.encode()
        if not instance_export_get(ctx, self.buf, raw, len(raw), ext.addr):
            return None
        ext.kind = ext.buf[0]
        return ext


def global_i32(ctx: int, ext: Extern) -> int:
    """The value of an exported i32 global (the caller checked its type)."""
    val = _ValBuf()
    global_get(ctx, ext.item, val)
    if val[0] != 0:
        raise WasmError(f"global is not an i32 (value kind {val[0]})")
    return ctypes.c_int32.from_buffer(val, 8).value


class Linker:
    def __init__(self, engine: Engine) -> None:
        self.ptr: int = linker_new(engine.ptr)

    def define(self, store: Store, module: str, name: str, ext: Extern) -> None:
        m, n = module.encode(), name.encode()
        check(linker_define(self.ptr, store.ctx, m, len(m), n, len(n), ext.addr))

    def define_unchecked(self, module: str, name: str, nparams: int, nresults: int, callback: CFuncPtr) -> None:
        """Define an i32-only host function; `callback` is a HOST_CALLBACK the caller keeps
        alive as long as any store may call it."""
        m, n = module.encode(), name.encode()
        ty = i32_functype(nparams, nresults)
        try:
            check(linker_define_func_unchecked(self.ptr, m, len(m), n, len(n), ty,
                                               ctypes.cast(callback, _vp).value, None, None))
        finally:
            functype_delete(ty)

    def instantiate(self, store: Store, module: Module) -> Instance:
        inst, trap = Instance(), _vp()
        check(linker_instantiate(self.ptr, store.ctx, module.ptr, inst.buf, ctypes.byref(trap)))
        if trap.value:
            raise take_trap(trap.value)
        return inst

    def __del__(self, _delete: CFuncPtr = linker_delete) -> None:
        if self.ptr:
            _delete(self.ptr)
            self.ptr = 0
