"""Load and evaluate OPA-ABI WebAssembly policies under wasmtime.

    module = PolicyModule.load(wasm_bytes)             # compiled (native-code cache)
    policy = module.instantiate(data={"x": 1})         # data parsed once
    policy.eval("example/allow", input={"user": "a"})  # -> [{"result": ...}]

Evaluation follows opa-wasm-abi.md section 5: `opa_eval` (ABI >= 1.2) with the input
written at the heap base and the heap reset per call, or the `opa_eval_ctx_*` path for
older modules. Every call into wasm runs under the deadline (epoch interruption) and the
memory cap; every trap becomes a typed HostError, and an instance that trapped is
rebuilt before its next use. A PolicyInstance is not thread-safe.
"""

from __future__ import annotations

from cupcake_py.core import jsonio
from cupcake_py.core.lazylog import LazyLogger
from cupcake_py.host import abi, capi
from cupcake_py.host.builtin_dispatch import BuiltinDispatcher, ModuleIO, resolve
from cupcake_py.host.cache import load_module
from cupcake_py.host.engine import HostOptions, get_engine, get_ticker
from cupcake_py.host.errors import (
    BUILTIN_ERROR_CODES,
    ABIError,
    AbortError,
    BuiltinEvalError,
    DeadlineExceeded,
    HostError,
    InputError,
    MemoryLimitExceeded,
    TrapError,
    UnknownEntrypointError,
)
from cupcake_py.host.fastcall import Ctx, Pending, define_import, i32_caller, i32_signature, memory_span
from cupcake_py.host.memory import LinearMemory
from cupcake_py.wasm import abi as table  # the one ABI table (names, signatures)

TYPE_CHECKING = False  # (typing is not imported on the eval path)
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any

    from cupcake_py.host.builtin_dispatch import BuiltinFn
    from cupcake_py.host.summary import ModuleSummary

log = LazyLogger(__name__)


class _Undefined:
    def __repr__(self) -> str:
        return "UNDEFINED"


UNDEFINED: Any = _Undefined()  # "no input" (distinct from None = JSON null)



def encode_value(v: Any) -> bytes:
    """Text of a Python value for opa_value_parse: JSON when possible, else a Rego literal
    (sets, non-string keys, Decimal numbers)."""
    try:
        return jsonio.dumps(v)
    except TypeError:
        from cupcake_py.core import values

        return values.dump_rego(v).encode("utf-8")


def check_json(raw: bytes, what: str) -> None:
    try:
        jsonio.loads(raw)
    except jsonio.JSONError:
        from cupcake_py.core import values

        try:
            values.parse_json(raw)
        except values.ValueParseError as e:
            raise InputError(f"{what} is not valid JSON: {e}") from None


# Python frames for reading a result set: values nested like the deepest Rego term the parser
# takes (rego.parser.MAX_NESTING) and more; deeper ones are an unreadable result (ABIError).
RESULT_RECURSION = 10_000


def _trap_error(exc: capi.WasmError, deadline: float) -> HostError:
    if isinstance(exc, capi.WasmTrap) and exc.code == capi.TRAP_INTERRUPT:
        return DeadlineExceeded(f"evaluation exceeded its deadline of {deadline:g} s")
    name = exc.code_name if isinstance(exc, capi.WasmTrap) else None
    if name is not None:
        return TrapError(f"wasm trap: {name}")
    lines = [ln.strip() for ln in str(exc).splitlines() if ln.strip()]
    return TrapError(f"wasm error: {lines[-1] if lines else type(exc).__name__}")


def _abort_error(message: str) -> HostError:
    if "out of memory" in message:
        return MemoryLimitExceeded(f"module ran out of memory ({message})")
    code, _, rest = message.partition(": ")
    if code in BUILTIN_ERROR_CODES and ": " in rest:  # a native builtin's strict error (opa.h)
        name, _, detail = rest.partition(": ")
        return BuiltinEvalError(name, detail, code)
    return AbortError(message)


class _Guard:
    """`with instance._guard():` — the deadline ticks while inside; any failure marks the
    instance for rebuilding and wasmtime's errors become typed HostErrors. (A class, not
    contextlib.contextmanager: contextlib is not imported on the eval path.)"""

    __slots__ = ("_inst",)

    def __init__(self, inst: PolicyInstance) -> None:
        self._inst = inst

    def __enter__(self) -> None:
        inst = self._inst
        inst._store.set_epoch_deadline(inst._options.deadline_ticks)
        inst._ticker.enter()

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, _tb: object) -> None:
        inst = self._inst
        inst._ticker.exit()
        if exc is None:
            return
        inst._poisoned = True
        if isinstance(exc, capi.WasmError):
            raise _trap_error(exc, inst._options.deadline) from None


class PolicyModule:
    """A compiled OPA-ABI module; immutable and cheap to instantiate many times."""

    def __init__(self, wasm: bytes, options: HostOptions | None = None) -> None:
        self.options = options or HostOptions()
        self.engine = get_engine(self.options.compiler)
        self.module, self.load_stats = load_module(bytes(wasm), self.options.compiler, self.options.cache_path)
        self.memory_type = abi.check_imports(self.module)
        self.export_types = dict(self.module.exports())
        self.export_names = frozenset(self.export_types)
        self.export_sigs: dict[str, tuple[int, int]] = {}
        for name, ty in self.export_types.items():
            if name in table.HOST_CALLED_EXPORTS and ty.kind == "func":
                sig = i32_signature(ty)
                if sig is None:
                    raise ABIError(f"export {name} must take and return only i32 values "
                                   f"({', '.join(ty.params)}) -> ({', '.join(ty.results)})")
                self.export_sigs[name] = sig

    @classmethod
    def load(cls, wasm: bytes, options: HostOptions | None = None) -> PolicyModule:
        return cls(wasm, options)

    def instantiate(
        self,
        data: Any = UNDEFINED,
        *,
        data_json: bytes | None = None,
        builtins: Mapping[str, BuiltinFn] | None = None,
        check_builtins: bool = True,
        context_factory: Callable[[], Any] | None = None,
    ) -> PolicyInstance:
        """An instance with `data` (a Python value) or `data_json` (raw JSON) loaded;
        `{}` when neither is given. `builtins` adds/overrides host builtins by name (calls a
        native fast path answers, e.g. sprintf's common cases, never reach an override);
        `context_factory` makes the per-evaluation BuiltinContext (default:
        `BuiltinContext(strict=options.strict, allow_net=options.allow_net)`)."""
        return PolicyInstance(self, data, data_json, builtins, check_builtins, context_factory)

    def summary(self) -> ModuleSummary:
        from cupcake_py.host.summary import ModuleSummary, exports_of, imports_of

        inst = self.instantiate(check_builtins=False)
        return ModuleSummary(inst.abi_version, dict(inst.entrypoints), dict(inst.builtins),
                             imports_of(self.module), exports_of(self.module))


class PolicyInstance:
    def __init__(
        self,
        module: PolicyModule,
        data: Any,
        data_json: bytes | None,
        builtins: Mapping[str, BuiltinFn] | None,
        check_builtins: bool,
        context_factory: Callable[[], Any] | None = None,
    ) -> None:
        self._module = module
        self._context_factory = context_factory
        self._options = module.options
        self._ticker = get_ticker(module.engine)
        self._extra_builtins = dict(builtins or {})
        self._check_builtins = check_builtins
        if data_json is not None:
            self._data_raw, self._data_is_json = bytes(data_json), True
            check_json(self._data_raw, "data")
        elif data is UNDEFINED:
            self._data_raw, self._data_is_json = b"{}", True
        else:
            self._data_raw, self._data_is_json = encode_value(data), False
        self._poisoned = True
        self._start()

    # -- lifecycle -------------------------------------------------------------

    def _start(self) -> None:
        opts = self._options
        store = capi.Store(self._module.engine, memory_limit=opts.memory_limit)
        self._store = store
        self._ctx: Ctx = store.ctx
        self._pending = pending = Pending()
        mt = self._module.memory_type
        memory: capi.Memory | None = None
        max_pages = opts.memory_pages
        linker = capi.Linker(self._module.engine)
        if mt is not None:
            max_pages = max_pages if mt.maximum is None else min(mt.maximum, max_pages)
            if mt.minimum > max_pages:
                raise MemoryLimitExceeded(
                    f"module needs {mt.minimum} pages of memory at start; the limit allows {max_pages}")
            memory = capi.Memory.new(store, mt.minimum, max_pages)
            linker.define(store, table.IMPORT_MODULE, table.IMPORT_MEMORY, memory.ext)
        ctx = self._ctx
        handlers = {table.IMPORT_ABORT: self._on_abort, table.IMPORT_PRINTLN: self._on_println}
        self._imports = [  # the callbacks must live as long as the store
            define_import(linker, table.IMPORT_MODULE, name, len(params), bool(results),
                          handlers.get(name, self._on_builtin), ctx, pending)
            for name, (params, results) in table.HOST_IMPORTS.items()
        ]
        self._dispatcher = BuiltinDispatcher({}, None)
        self._mem: LinearMemory | None = None
        with self._guard():
            instance = linker.instantiate(store, self._module.module)
        names = self._module.export_names
        if memory is None:
            exported = instance.export(ctx, "memory") if "memory" in names else None
            if exported is None or exported.kind != capi.EXTERN_MEMORY:
                raise ABIError("module neither imports nor exports a memory")
            memory = capi.Memory(exported)
        self._mem = LinearMemory(memory, max_pages, ctx)
        self.abi_version = self._read_version(instance)
        abi.check_exports(names, need_builtin_io=False)
        self._fn = {n: i32_caller(f, sig, pending) for n, sig in self._module.export_sigs.items()
                    if (f := instance.export(ctx, n)) is not None and f.kind == capi.EXTERN_FUNC}
        self._fast = self.abi_version >= (1, 2) and table.FAST_PATH_EXPORT in self._fn
        if self._options.strict and table.EXPORT_STRICT_BUILTIN_ERRORS in self._fn:
            self._fn[table.EXPORT_STRICT_BUILTIN_ERRORS](ctx, 1)
        self.entrypoints: dict[str, int] = self._dump_export(table.EXPORT_ENTRYPOINTS)
        raw_builtins: dict[str, int] = self._dump_export(table.EXPORT_BUILTINS)
        self.builtins: dict[int, str] = {int(i): name for name, i in raw_builtins.items()}
        if self.builtins and self._check_builtins:
            abi.check_exports(names, need_builtin_io=True)
            resolve(self.builtins.values(), self._extra_builtins)
            fn = self._fn
            io = ModuleIO(self._mem, fn["opa_malloc"], fn["opa_value_parse"], fn["opa_value_dump"])
            self._dispatcher = BuiltinDispatcher(self.builtins, io, self._extra_builtins, strict=self._options.strict,
                                                 context_factory=self._context_factory,
                                                 allow_net=self._options.allow_net)
        with self._guard():
            self._load_data()
        self._poisoned = False

    def close(self) -> None:
        """Free the wasmtime store (the instance and its linear memory) now. The instance's host
        callbacks refer back to it, so without this the store would live until the cyclic GC finds
        the cycle (a server dropping instances held their memory that long: issue 29). A closed
        instance starts afresh if it is used again."""
        self._poisoned = True
        self._mem = None
        self._dispatcher = BuiltinDispatcher({}, None)
        self._fn = {}
        if hasattr(self, "_store"):
            del self._store  # first: the callbacks below must outlive the store
        self._imports = []

    def _read_version(self, instance: capi.Instance) -> tuple[int, int]:
        def get(name: str) -> int | None:
            ty = self._module.export_types.get(name)
            if ty is None or ty.kind != "global" or ty.content != "i32":
                return None
            g = instance.export(self._ctx, name)
            return capi.global_i32(self._ctx, g) if g is not None else None

        major = get(table.ABI_VERSION_GLOBAL)
        if major is None:
            raise ABIError("module does not export opa_wasm_abi_version: not an OPA WASM policy")
        if major != table.ABI_VERSION:
            raise ABIError(f"unsupported OPA WASM ABI version {major} (this host supports {table.ABI_VERSION}.x)")
        return (major, get(table.ABI_MINOR_VERSION_GLOBAL) or 0)

    def _dump_export(self, name: str) -> dict[str, int]:
        with self._guard():
            addr = self._fn[name](self._ctx)
            text = self._json_dump(addr)
        try:
            got = jsonio.loads(text)
        except jsonio.JSONError as e:
            raise ABIError(f"{name}() did not return a JSON object: {e}") from None
        if not isinstance(got, dict) or not all(isinstance(v, int) for v in got.values()):
            raise ABIError(f"{name}() must return an object of integer ids, got {text[:80]!r}")
        return got

    def _json_dump(self, addr: int) -> bytes:
        if addr == 0:
            raise ABIError("module returned an undefined value where one was required")
        assert self._mem is not None
        return self._mem.read_cstr(self._ctx, self._fn["opa_json_dump"](self._ctx, addr))

    def _parse_in_module(self, raw: bytes, as_json: bool, what: str) -> int:
        """Copy `raw` into fresh heap memory and parse it there; returns the value address."""
        assert self._mem is not None
        ctx = self._ctx
        addr = self._fn["opa_malloc"](ctx, len(raw))
        self._mem.write(ctx, addr, raw)
        parse = "opa_json_parse" if as_json or "opa_value_parse" not in self._fn else "opa_value_parse"
        value: int = self._fn[parse](ctx, addr, len(raw))
        if value == 0:
            raise InputError(f"the module could not parse the {what}")
        return value

    def _load_data(self) -> None:
        self._heap_start = self._fn["opa_heap_ptr_get"](self._ctx)
        self._data_addr = self._parse_in_module(self._data_raw, self._data_is_json, "data")
        self._base = self._fn["opa_heap_ptr_get"](self._ctx)

    def set_data(self, data: Any = UNDEFINED, *, data_json: bytes | None = None) -> None:
        """Replace the base document (`{}` when neither argument is given)."""
        if data_json is not None:
            check_json(bytes(data_json), "data")
            self._data_raw, self._data_is_json = bytes(data_json), True
        elif data is UNDEFINED:
            self._data_raw, self._data_is_json = b"{}", True
        else:
            self._data_raw, self._data_is_json = encode_value(data), False
        if self._poisoned:
            self._start()
            return
        with self._guard():
            self._fn["opa_heap_ptr_set"](self._ctx, self._heap_start)
            self._load_data()

    def set_deadline(self, seconds: float) -> None:
        """The deadline of the next calls into wasm (the module's options give the first one)."""
        self._options = self._options.with_deadline(seconds)

    @property
    def poisoned(self) -> bool:
        """Whether the last call into wasm failed (the instance is rebuilt before its next use)."""
        return self._poisoned

    @property
    def memory_bytes(self) -> int:
        """Current size of the instance's linear memory (it never shrinks while the instance lives)."""
        assert self._mem is not None
        return memory_span(self._ctx, self._mem.memory.ref)[1]

    # -- host imports ------------------------------------------------------------

    def _on_abort(self, ctx: Ctx, addr: int) -> None:
        try:
            assert self._mem is not None
            message = self._mem.read_cstr(ctx, addr).decode("utf-8", "replace")
        except HostError:
            message = f"(unreadable abort message at {addr:#x})"
        raise _abort_error(message)

    def _on_println(self, ctx: Ctx, addr: int) -> None:
        assert self._mem is not None
        log.info("opa_println: %s", self._mem.read_cstr(ctx, addr).decode("utf-8", "replace"))

    def _on_builtin(self, ctx: Ctx, bid: int, opa_ctx: int, *args: int) -> int:
        return self._dispatcher.call(ctx, bid, opa_ctx, *args)

    # -- evaluation ----------------------------------------------------------------

    def _guard(self) -> _Guard:
        """Run wasm calls under the deadline; map every failure to a typed HostError."""
        return _Guard(self)

    def entrypoint_id(self, entrypoint: str | int | None) -> int:
        if entrypoint is None:
            if len(self.entrypoints) != 1:
                raise UnknownEntrypointError("(none given)", sorted(self.entrypoints))
            return next(iter(self.entrypoints.values()))
        if isinstance(entrypoint, int) and not isinstance(entrypoint, bool):
            if entrypoint in self.entrypoints.values():
                return entrypoint
        elif entrypoint in self.entrypoints:
            return self.entrypoints[entrypoint]
        raise UnknownEntrypointError(entrypoint, sorted(self.entrypoints))

    def eval_raw(
        self,
        entrypoint: str | int | None = None,
        input: Any = UNDEFINED,
        *,
        input_json: bytes | None = None,
        rego_format: bool = False,
        input_encoded: bool = False,
    ) -> bytes:
        """The result set as text: JSON (`[{"result": ...}]`), or a Rego literal
        (`{{"result": ...}}`, sets kept) when rego_format. `input_encoded`: `input_json` is
        `jsonio.dumps` output (strict JSON by construction), so it is not parsed again here."""
        ep = self.entrypoint_id(entrypoint)
        if input_json is not None:
            raw, raw_is_json = bytes(input_json), True
            if not input_encoded:
                check_json(raw, "input")
        elif input is UNDEFINED:
            raw, raw_is_json = b"", True
        else:
            raw, raw_is_json = encode_value(input), False
        if self._poisoned:
            self._start()
        self._dispatcher.begin_eval()
        with self._guard():
            out = self._eval_fast(ep, raw, rego_format) if self._fast else \
                self._eval_ctx(ep, raw, raw_is_json, rego_format)
        return out

    def _eval_fast(self, ep: int, raw: bytes, rego_format: bool) -> bytes:
        assert self._mem is not None
        ctx, base = self._ctx, self._base
        self._mem.write(ctx, base, raw)
        heap = (base + len(raw) + 7) & ~7
        addr = self._fn["opa_eval"](ctx, 0, ep, self._data_addr, base, len(raw), heap, int(rego_format))
        if addr == 0:
            raise ABIError("opa_eval returned no result")
        return self._mem.read_cstr(ctx, addr)

    def _eval_ctx(self, ep: int, raw: bytes, raw_is_json: bool, rego_format: bool) -> bytes:
        assert self._mem is not None
        store, fn = self._ctx, self._fn
        fn["opa_heap_ptr_set"](store, self._base)
        input_addr = self._parse_in_module(raw, raw_is_json, "input") if raw else 0
        ctx = fn["opa_eval_ctx_new"](store)
        if input_addr:
            fn["opa_eval_ctx_set_input"](store, ctx, input_addr)
        fn["opa_eval_ctx_set_data"](store, ctx, self._data_addr)
        fn["opa_eval_ctx_set_entrypoint"](store, ctx, ep)
        fn["eval"](store, ctx)
        result = fn["opa_eval_ctx_get_result"](store, ctx)
        if rego_format:
            if "opa_value_dump" not in fn:
                raise ABIError("module lacks opa_value_dump (needed for Rego-format results)")
            return self._mem.read_cstr(store, fn["opa_value_dump"](store, result))
        return self._json_dump(result)

    def eval(
        self,
        entrypoint: str | int | None = None,
        input: Any = UNDEFINED,
        *,
        input_json: bytes | None = None,
        keep_sets: bool = False,
    ) -> list[dict[str, Any]]:
        """The result set as Python values: `[{"result": value}]`, `[]` when undefined.
        Sets arrive as sorted-by-module arrays unless keep_sets (then as frozensets)."""
        from cupcake_py.core import values
        from cupcake_py.core.deep_stack import recursion_limit

        raw = self.eval_raw(entrypoint, input, input_json=input_json, rego_format=keep_sets)
        try:
            with recursion_limit(RESULT_RECURSION):  # values as deep as Rego terms may be written
                if keep_sets:
                    got = values.parse_rego(raw)
                    rows = [values.thaw(b) for b in sorted(got, key=values.sort_key)] \
                        if isinstance(got, frozenset) else got
                else:
                    rows = values.parse_json(raw)
        except values.ValueParseError as e:
            raise ABIError(f"module returned an unreadable result set: {e}") from None
        if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
            raise ABIError(f"module returned a result set that is not a list of bindings: {raw[:80]!r}")
        return rows

    @property
    def builtin_context(self) -> Any:
        """The BuiltinContext of the last evaluation (None if it called no host builtin)."""
        return self._dispatcher.context


def load_policy(
    wasm: bytes,
    data: Any = UNDEFINED,
    *,
    data_json: bytes | None = None,
    options: HostOptions | None = None,
    builtins: Mapping[str, BuiltinFn] | None = None,
) -> PolicyInstance:
    """Compile (or fetch from the cache) and instantiate in one step."""
    return PolicyModule(wasm, options).instantiate(data, data_json=data_json, builtins=builtins)
