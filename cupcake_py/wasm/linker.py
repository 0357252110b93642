"""Links generated code into the runtime module and writes one OPA ABI 1.3 module.

Steps: analyse the runtime once per process (exports, ``__heap_base``, the call graph: from
``runtime/call_graph.py``, written by ``make runtime`` next to ``runtime.wasm``, when it was made
from these bytes, else each runtime function's body is read the first time a link reaches it); generate
code for the policy; replace the runtime's ``env.gen_eval`` import by the generated ``eval``;
import ``env.opa_builtin0..4``, ``env.opa_abort`` (and ``env.opa_println`` only if still
reachable) and ``env.memory``; keep only runtime functions reachable from the exports, the
start function and table elements; renumber function indices; append the generated types,
functions, data segment, CallDynamic table elements, ABI globals and the start function.
The output depends only on the IR and the runtime bytes.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

from cupcake_py import ir
from cupcake_py.core.slotted import dataclass, replace
from cupcake_py.wasm import abi, codegen, leb
from cupcake_py.wasm.asm import FuncRef, Part, TypeRef
from cupcake_py.wasm.data import align
from cupcake_py.wasm.errors import CodegenError, WasmFormatError
from cupcake_py.wasm.module import (
    FUNCREF,
    I32,
    KIND_FUNC,
    KIND_GLOBAL,
    KIND_MEMORY,
    KIND_TABLE,
    SEC_DATA,
    VALTYPE_CODES,
    Code,
    Custom,
    Data,
    Element,
    EncodedCode,
    Export,
    FuncType,
    Global,
    GlobalType,
    Import,
    Limits,
    Module,
    TableType,
    decode,
    encode,
    encode_code,
)
from cupcake_py.wasm.opcodes import func_refs

PAGE = 65536


def functype(sig: tuple[tuple[str, ...], tuple[str, ...]]) -> FuncType:
    """The binary function type of an ABI table signature (("i32", ...), (...))."""
    params, results = sig
    return FuncType(tuple(VALTYPE_CODES[p] for p in params), tuple(VALTYPE_CODES[r] for r in results))


ALLOWED_RUNTIME_IMPORTS = {
    abi.IMPORT_MEMORY: KIND_MEMORY,
    abi.IMPORT_ABORT: KIND_FUNC,
    abi.IMPORT_PRINTLN: KIND_FUNC,
    abi.RUNTIME_IMPORT_EVAL: KIND_FUNC,
}


Refs = tuple[tuple[int, int, int], ...]  # (start, stop, function index) of each reference in a body


class _BodyRefs:
    """The function references of each runtime body (`func_refs`): from the shipped call graph
    when it matches the runtime, else read when first asked for (a link reaches a third of the
    runtime's functions; walking all of them was most of the analysis, ~9 ms per process)."""

    __slots__ = ("bodies", "done")

    def __init__(self, bodies: list[bytes], known: Sequence[Refs] | None = None) -> None:
        self.bodies = bodies
        self.done: list[Refs | None] = list(known) if known is not None else [None] * len(bodies)

    def __getitem__(self, i: int) -> Refs:
        got = self.done[i]
        if got is None:
            b = self.bodies[i]
            got = self.done[i] = tuple(func_refs(b, 0, len(b)))
        return got


@dataclass(frozen=True, slots=True)
class Runtime:
    """The runtime module, analysed once."""

    module: Module
    func_imports: tuple[str, ...]  # names of imported functions, in index order
    exports: dict[str, int]  # exported function name -> function index
    heap_base: int
    refs: _BodyRefs  # per defined function: func refs in its body
    memory: Limits
    info: codegen.RuntimeInfo
    # (live defined functions, final index of each runtime import) -> their encoded code entries
    code_cache: dict[tuple[tuple[int, ...], tuple[int, ...]], list[EncodedCode]]

    @property
    def n_imports(self) -> int:
        return len(self.func_imports)


def _runtime_info(m: Module, exports: dict[str, int], heap_base: int) -> codegen.RuntimeInfo:
    return codegen.RuntimeInfo(
        exports={name: m.func_type(i) for name, i in exports.items()},
        data_base=align(heap_base, 16),
        table_base=max(1, m.tables[0].limits.min) if m.tables else 1,
    )


def _const_i32(expr: bytes) -> int:
    r = leb.Reader(expr)
    if r.byte() != 0x41:
        raise WasmFormatError("__heap_base is not an i32.const global")
    v = r.s64()
    return v & 0xFFFFFFFF


@functools.lru_cache(maxsize=4)
def analyse_runtime(raw: bytes) -> Runtime:
    m = decode(raw)
    func_imports: list[str] = []
    memory: Limits | None = None
    for imp in m.imports:
        kind = ALLOWED_RUNTIME_IMPORTS.get(imp.name)
        if imp.module != abi.IMPORT_MODULE or kind != imp.kind:
            raise CodegenError(f"runtime.wasm imports {imp.module}.{imp.name}, which the linker cannot satisfy")
        if imp.kind == KIND_FUNC:
            func_imports.append(imp.name)
        else:
            assert isinstance(imp.desc, Limits)
            memory = imp.desc
    if memory is None or m.memories:
        raise CodegenError("runtime.wasm must import its memory as env.memory and define none")
    if len(m.tables) > 1 or any(i.kind == KIND_TABLE for i in m.imports):
        raise CodegenError("runtime.wasm may define at most one table and import none")
    if any(i.kind == KIND_GLOBAL for i in m.imports):
        raise CodegenError("runtime.wasm must not import globals")
    exports = {e.name: e.index for e in m.exports if e.kind == KIND_FUNC}
    hb = m.export(abi.HEAP_BASE_EXPORT, KIND_GLOBAL)
    if hb is None:
        raise CodegenError("runtime.wasm does not export __heap_base")
    heap_base = _const_i32(m.globals[hb.index - len([i for i in m.imports if i.kind == KIND_GLOBAL])].init)
    bodies = [c.body for c in m.codes if isinstance(c, Code)]
    if len(bodies) != len(m.codes):  # a decoded module has no pre-encoded entries
        raise CodegenError("runtime.wasm: code entries must be decoded")
    refs = _BodyRefs(bodies, _shipped_call_graph(raw, len(bodies)))
    info = _runtime_info(m, exports, heap_base)
    rt = Runtime(m, tuple(func_imports), exports, heap_base, refs, memory, info, {})
    _check_runtime(rt)
    return rt


def _fingerprint(raw: bytes) -> str:
    import binascii  # (a C module; hashlib would load OpenSSL)

    return f"{len(raw)}:{binascii.crc32(raw):08x}"


def _shipped_call_graph(raw: bytes, n_bodies: int) -> Sequence[Refs] | None:
    from cupcake_py.wasm.runtime import call_graph

    if call_graph.RUNTIME != _fingerprint(raw) or len(call_graph.REFS) != n_bodies:
        return None  # runtime.wasm was rebuilt without it: read the bodies
    return call_graph.REFS


def call_graph_source(raw: bytes) -> str:
    """The text of ``runtime/call_graph.py`` for the runtime ``raw`` (``make runtime`` writes it)."""
    m = decode(raw)
    lines = ['"""Generated by `make runtime` (cupcake_py/wasm/runtime/build.py) from runtime.wasm: do not edit.',
             "",
             "The function references in each function body of the runtime ((start, stop, function index)",
             "of each call, return_call and ref.func immediate, `opcodes.func_refs`), so the linker need not",
             'walk the bodies in every process (wasm/linker.py). RUNTIME: length and CRC-32 of runtime.wasm."""',
             "", "from __future__ import annotations", "",
             f'RUNTIME = "{_fingerprint(raw)}"', "REFS: tuple[tuple[tuple[int, int, int], ...], ...] = ("]
    for c in m.codes:
        assert isinstance(c, Code)
        refs = func_refs(c.body, 0, len(c.body))
        if not refs:
            lines.append("    (),")
            continue
        lines.append("    (")
        for k in range(0, len(refs), 6):
            lines.append("        " + " ".join(f"({a}, {b}, {t})," for a, b, t in refs[k:k + 6]))
        lines.append("    ),")
    return "\n".join([*lines, ")", ""])


def _check_runtime(rt: Runtime) -> None:
    m = rt.module
    problems = []
    for name, (params, want_result) in abi.RUNTIME_CALLS.items():
        if name not in rt.exports:
            problems.append(f"missing export {name}")
            continue
        t = m.func_type(rt.exports[name])
        if t.params != functype((params, ())).params or (want_result and t.results != (I32,)) or len(t.results) > 1:
            problems.append(f"{name} has type {t}")
    for name in abi.ABI_EXPORTS:
        if name not in rt.exports:
            problems.append(f"missing export {name}")
    for i, name in enumerate(rt.func_imports):
        t = m.func_type(i)
        if name == abi.RUNTIME_IMPORT_EVAL and t != functype(abi.RUNTIME_IMPORT_EVAL_TYPE):
            problems.append(f"import gen_eval has type {t}")
        if name in (abi.IMPORT_ABORT, abi.IMPORT_PRINTLN) and t != functype(abi.HOST_IMPORTS[name]):
            problems.append(f"import {name} has type {t}")
    if problems:
        raise CodegenError("runtime.wasm does not fit the code generator: " + "; ".join(problems))


class _Types:
    """The final type section: the runtime's types (indices kept) plus new ones."""

    def __init__(self, types: Sequence[FuncType]) -> None:
        self.types = list(types)
        self.index: dict[FuncType, int] = {}
        for i, t in enumerate(types):
            self.index.setdefault(t, i)

    def __call__(self, t: FuncType) -> int:
        if t not in self.index:
            self.index[t] = len(self.types)
            self.types.append(t)
        return self.index[t]


def _splice(body: bytes, refs: Sequence[tuple[int, int, int]], new_index: Sequence[int]) -> bytes:
    if not refs:
        return body
    out, pos = [], 0
    for start, stop, old in refs:
        out.append(body[pos:start])
        out.append(leb.u32(new_index[old]))
        pos = stop
    out.append(body[pos:])
    return b"".join(out)


def _runtime_codes(rt: Runtime, live_defined: list[int], new_index: list[int]) -> list[EncodedCode]:
    """Encoded bodies of the kept runtime functions with renumbered calls (cached: many
    policies keep the same runtime functions)."""
    key = (tuple(live_defined), tuple(new_index[: rt.n_imports]))
    hit = rt.code_cache.get(key)
    if hit is None:
        n_imp = rt.n_imports
        hit = []
        for i in live_defined:
            c = rt.module.codes[i - n_imp]
            assert isinstance(c, Code)
            body = _splice(c.body, rt.refs[i - n_imp], new_index)
            hit.append(EncodedCode(encode_code(Code(c.locals, body))))
        if len(rt.code_cache) > 64:
            rt.code_cache.clear()
        rt.code_cache[key] = hit
    return hit


def _reachable(rt: Runtime, roots: set[int]) -> set[int]:
    """Function indices (runtime index space) reachable from ``roots``."""
    seen, stack = set(), list(roots)
    n_imp = rt.n_imports
    while stack:
        f = stack.pop()
        if f in seen:
            continue
        seen.add(f)
        if f >= n_imp:
            stack.extend(t for _, _, t in rt.refs[f - n_imp] if t not in seen)
    return seen


def _elem_funcs(e: Element) -> list[int]:
    out = list(e.funcs)
    for x in e.exprs:
        out += [t for _, _, t in func_refs(x, 0, len(x))]
    return out


def _runtime_func_names(m: Module) -> dict[int, str]:
    """Function names from the runtime's "name" section (subsection 1), if it has one."""
    names: dict[int, str] = {}
    for c in m.customs:
        if c.name != "name":
            continue
        r = leb.Reader(c.payload)
        while not r.at_end():
            sub_id, sub = r.byte(), r.sub(r.u32())
            if sub_id == 1:
                for _ in range(sub.u32()):
                    idx = sub.u32()
                    names[idx] = sub.name()
    return names


def _name_section(names: dict[int, str]) -> Custom:
    body = leb.vec([leb.u32(i) + leb.name(n) for i, n in sorted(names.items())])
    return Custom("name", b"\x01" + leb.u32(len(body)) + body, SEC_DATA)


def link(rt: Runtime, gen: codegen.Generated, debug_names: bool = False) -> bytes:
    m = rt.module
    n_imp = rt.n_imports
    gen_syms = {f"gen:{i}" for i in range(len(gen.funcs))}

    # ---- roots and reachability (runtime index space)
    used_rt: set[str] = set()
    for f in gen.funcs:
        used_rt.update(p.symbol[3:] for p in f.body if isinstance(p, FuncRef) and p.symbol.startswith("rt:"))
    extension_exports = [name for name in abi.EXTENSION_EXPORTS if name in rt.exports]
    roots = {rt.exports[name] for name in (*abi.ABI_EXPORTS, *extension_exports, *sorted(used_rt))}
    for e in m.elements:
        roots.update(_elem_funcs(e))
    for g in m.globals:
        roots.update(t for _, _, t in func_refs(g.init, 0, len(g.init)))
    if m.start is not None:
        roots.add(m.start)
    live = _reachable(rt, roots)

    # ---- final function index space
    imports: list[Import] = []
    types = _Types(m.types)
    for name in abi.HOST_BUILTIN_IMPORTS:
        imports.append(Import(abi.IMPORT_MODULE, name, KIND_FUNC, types(functype(abi.HOST_IMPORTS[name]))))
    imported = [abi.IMPORT_ABORT]
    if any(rt.func_imports[i] == abi.IMPORT_PRINTLN for i in live if i < n_imp):
        imported.append(abi.IMPORT_PRINTLN)
    for name in imported:
        imports.append(Import(abi.IMPORT_MODULE, name, KIND_FUNC, types(functype(abi.HOST_IMPORTS[name]))))
    final_of_import = {imp.name: i for i, imp in enumerate(imports)}
    next_index = len(imports)
    live_defined = sorted(i for i in live if i >= n_imp)
    new_index = [-1] * (n_imp + len(m.codes))
    for i in live_defined:
        new_index[i] = next_index
        next_index += 1
    gen_base = next_index
    for i, name in enumerate(rt.func_imports):
        if name == abi.RUNTIME_IMPORT_EVAL:
            new_index[i] = gen_base + codegen.EVAL
        elif name in final_of_import:
            new_index[i] = final_of_import[name]

    memory = Limits(max(rt.memory.min, -(-gen.heap_start // PAGE)), rt.memory.max)
    imports.append(Import(abi.IMPORT_MODULE, abi.IMPORT_MEMORY, KIND_MEMORY, memory))

    def resolve(symbol: str) -> int:
        kind, _, name = symbol.partition(":")
        if kind == "rt":
            return new_index[rt.exports[name]]
        if kind == "gen" and symbol in gen_syms:
            return gen_base + int(name)
        if kind == "imp" and name in final_of_import:
            return final_of_import[name]
        raise CodegenError(f"internal: unresolved symbol {symbol}")

    def assemble(parts: list[Part]) -> bytes:
        out = []
        for p in parts:
            if isinstance(p, bytes):
                out.append(p)
            elif isinstance(p, FuncRef):
                out.append(leb.u32(resolve(p.symbol)))
            elif isinstance(p, TypeRef):
                out.append(leb.u32(types(p.type)))
        return b"".join(out)

    # ---- functions and code
    funcs = [m.funcs[i - n_imp] for i in live_defined]
    codes: list[Code | EncodedCode] = list(_runtime_codes(rt, live_defined, new_index))
    start_parts: list[Part] = gen.funcs[codegen.START].body
    if m.start is not None:  # run the runtime's own start function first
        start_parts = [b"\x10" + leb.u32(new_index[m.start])] + start_parts
    for i, f in enumerate(gen.funcs):
        funcs.append(types(f.type))
        body = assemble(start_parts if i == codegen.START else f.body)
        codes.append(Code(((f.locals, I32),) if f.locals else (), body))

    # ---- table and elements
    tables = list(m.tables)
    elements = [
        replace(e, funcs=tuple(new_index[f] for f in e.funcs),
                exprs=tuple(_splice(x, func_refs(x, 0, len(x)), new_index) for x in e.exprs))
        for e in m.elements
    ]  # fmt: skip
    if gen.table:
        base = rt.info.table_base
        size = base + len(gen.table)
        if tables:
            t = tables[0]
            tables[0] = TableType(t.elem, Limits(max(t.limits.min, size), None if t.limits.max is None else
                                                 max(t.limits.max, size)))  # fmt: skip
        else:
            tables.append(TableType(FUNCREF, Limits(size, size)))
        offset = b"\x41" + leb.s64(base) + b"\x0b"
        elements.append(Element(0, 0, offset, 0, funcs=tuple(gen_base + g for g in gen.table)))

    # ---- globals, exports, data
    globals_ = [replace(g, init=_splice(g.init, func_refs(g.init, 0, len(g.init)), new_index)) for g in m.globals]
    abi_globals = len(globals_)
    for value in (abi.ABI_VERSION, abi.ABI_MINOR_VERSION):
        globals_.append(Global(GlobalType(I32, False), b"\x41" + leb.s64(value) + b"\x0b"))
    exports = [Export("memory", KIND_MEMORY, 0)]
    exports += [Export(name, KIND_FUNC, gen_base + i)
                for name, i in ((abi.EXPORT_EVAL, codegen.EVAL), (abi.EXPORT_BUILTINS, codegen.BUILTINS),
                                (abi.EXPORT_ENTRYPOINTS, codegen.ENTRYPOINTS))]  # fmt: skip
    exports += [Export(name, KIND_FUNC, new_index[rt.exports[name]]) for name in (*abi.ABI_EXPORTS, *extension_exports)]
    exports += [Export(abi.ABI_VERSION_GLOBAL, KIND_GLOBAL, abi_globals),
                Export(abi.ABI_MINOR_VERSION_GLOBAL, KIND_GLOBAL, abi_globals + 1)]  # fmt: skip
    datas = list(m.datas)
    if gen.data:
        datas.append(Data(0, gen.data, b"\x41" + leb.s64(gen.data_base) + b"\x0b"))

    out = Module(
        types=types.types,
        imports=imports,
        funcs=funcs,
        tables=tables,
        memories=[],
        globals=globals_,
        exports=exports,
        start=gen_base + codegen.START,
        elements=elements,
        datacount=len(datas) if m.datacount is not None else None,
        codes=codes,
        datas=datas,
        customs=[],
    )
    if debug_names:
        names = {i: imp.name for i, imp in enumerate(imports) if imp.kind == KIND_FUNC}
        names.update({new_index[i]: n for i, n in _runtime_func_names(m).items() if new_index[i] >= len(imports)})
        names.update({gen_base + i: f.name for i, f in enumerate(gen.funcs)})
        out.customs.append(_name_section(names))
    return encode(out)


def compile_with_runtime(policy: ir.Policy, runtime_bytes: bytes, debug_names: bool = False) -> bytes:
    """Compile ``policy`` against the given runtime module bytes; ``debug_names`` adds a
    "name" section (function names in traps and backtraces)."""
    rt = analyse_runtime(runtime_bytes)
    return link(rt, codegen.generate(policy, rt.info), debug_names)
