"""A WebAssembly module as plain data, with a decoder and an encoder of the binary format.

Function bodies and constant expressions stay raw bytes (``Code.body``, ``*.init``/``offset``
include the final ``end``); ``opcodes`` walks them when indices must be found or rewritten.
``decode(encode(m)) == m`` and ``encode(decode(b)) == b`` for modules that use the canonical
(shortest) LEB128 section headers.
"""

from __future__ import annotations

from collections.abc import Callable

from cupcake_py.core.slotted import dataclass, field
from cupcake_py.wasm import leb
from cupcake_py.wasm.errors import WasmFormatError
from cupcake_py.wasm.leb import Reader
from cupcake_py.wasm.opcodes import expr_end

MAGIC = b"\x00asm\x01\x00\x00\x00"

I32, I64, F32, F64, V128, FUNCREF, EXTERNREF = 0x7F, 0x7E, 0x7D, 0x7C, 0x7B, 0x70, 0x6F
VALTYPES = frozenset({I32, I64, F32, F64, V128, FUNCREF, EXTERNREF})
VALTYPE_CODES: dict[str, int] = {"i32": I32, "i64": I64, "f32": F32, "f64": F64}  # text name -> binary code

# external kinds
KIND_FUNC, KIND_TABLE, KIND_MEMORY, KIND_GLOBAL = 0, 1, 2, 3

# section ids
SEC_CUSTOM, SEC_TYPE, SEC_IMPORT, SEC_FUNCTION, SEC_TABLE, SEC_MEMORY, SEC_GLOBAL = range(7)
SEC_EXPORT, SEC_START, SEC_ELEMENT, SEC_CODE, SEC_DATA, SEC_DATACOUNT = 7, 8, 9, 10, 11, 12


@dataclass(frozen=True, slots=True)
class FuncType:
    params: tuple[int, ...]
    results: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Limits:
    min: int
    max: int | None = None


@dataclass(frozen=True, slots=True)
class TableType:
    elem: int
    limits: Limits


@dataclass(frozen=True, slots=True)
class GlobalType:
    valtype: int
    mutable: bool


@dataclass(frozen=True, slots=True)
class Import:
    module: str
    name: str
    kind: int
    desc: int | TableType | Limits | GlobalType  # type index | table | memory limits | global


@dataclass(frozen=True, slots=True)
class Global:
    type: GlobalType
    init: bytes


@dataclass(frozen=True, slots=True)
class Export:
    name: str
    kind: int
    index: int


@dataclass(frozen=True, slots=True)
class Element:
    """``flags`` is the binary segment flavour (0-7). ``funcs`` holds function indices
    (flags 0-3) and ``exprs`` raw constant expressions (flags 4-7)."""

    flags: int
    table: int = 0
    offset: bytes | None = None
    elemkind: int = 0  # elemkind byte (flags 1-3) or reftype (flags 5-7)
    funcs: tuple[int, ...] = ()
    exprs: tuple[bytes, ...] = ()


@dataclass(frozen=True, slots=True)
class Code:
    locals: tuple[tuple[int, int], ...]  # (count, valtype)
    body: bytes  # instructions, ending with `end`


@dataclass(frozen=True, slots=True)
class EncodedCode:
    """A code entry already in binary form (size prefix included); lets a linker reuse
    encodings across modules. Only ``encode`` accepts it."""

    raw: bytes


@dataclass(frozen=True, slots=True)
class Data:
    flags: int  # 0 active memory 0, 1 passive, 2 active explicit memory
    init: bytes
    offset: bytes | None = None
    memory: int = 0


@dataclass(frozen=True, slots=True)
class Custom:
    name: str
    payload: bytes
    after: int  # id of the last non-custom section before it (0 = before all)


@dataclass(slots=True)
class Module:
    types: list[FuncType] = field(default_factory=list)
    imports: list[Import] = field(default_factory=list)
    funcs: list[int] = field(default_factory=list)  # type index of each defined function
    tables: list[TableType] = field(default_factory=list)
    memories: list[Limits] = field(default_factory=list)
    globals: list[Global] = field(default_factory=list)
    exports: list[Export] = field(default_factory=list)
    start: int | None = None
    elements: list[Element] = field(default_factory=list)
    datacount: int | None = None
    codes: list[Code | EncodedCode] = field(default_factory=list)
    datas: list[Data] = field(default_factory=list)
    customs: list[Custom] = field(default_factory=list)

    def imported(self, kind: int) -> list[Import]:
        return [i for i in self.imports if i.kind == kind]

    def func_type(self, index: int) -> FuncType:
        """Type of function ``index`` in the function index space (imports first)."""
        fimports = self.imported(KIND_FUNC)
        if index < len(fimports):
            desc = fimports[index].desc
            assert isinstance(desc, int)
            return self.types[desc]
        return self.types[self.funcs[index - len(fimports)]]

    def export(self, name: str, kind: int | None = None) -> Export | None:
        return next((e for e in self.exports if e.name == name and (kind is None or e.kind == kind)), None)


# ------------------------------------------------------------------------------------ decode


def _limits(r: Reader) -> Limits:
    flag = r.byte()
    if flag not in (0, 1):
        raise r.fail(f"unsupported limits flag {flag:#x} (shared/64-bit memories)")
    lo = r.u32()
    return Limits(lo, r.u32() if flag == 1 else None)


def _valtype(r: Reader) -> int:
    t = r.byte()
    if t not in VALTYPES:
        raise r.fail(f"unknown value type {t:#x}")
    return t


def _expr(r: Reader) -> bytes:
    start = r.pos
    r.pos = expr_end(r.data, r.pos, r.end)
    return bytes(r.data[start : r.pos])


TYPE_CHECKING = False
if TYPE_CHECKING:  # (typing stays off a first `cupcake test` run's start-up)
    from typing import TypeVar

    _T = TypeVar("_T")


def _vec(r: Reader, item: Callable[[Reader], _T]) -> list[_T]:
    return [item(r) for _ in range(r.u32())]


def _functype(r: Reader) -> FuncType:
    if r.byte() != 0x60:
        raise r.fail("expected a function type (0x60)")
    return FuncType(tuple(_vec(r, _valtype)), tuple(_vec(r, _valtype)))


def _import(r: Reader) -> Import:
    mod, nm, kind = r.name(), r.name(), r.byte()
    desc: int | TableType | Limits | GlobalType
    if kind == KIND_FUNC:
        desc = r.u32()
    elif kind == KIND_TABLE:
        desc = TableType(_valtype(r), _limits(r))
    elif kind == KIND_MEMORY:
        desc = _limits(r)
    elif kind == KIND_GLOBAL:
        desc = GlobalType(_valtype(r), bool(r.byte()))
    else:
        raise r.fail(f"unknown import kind {kind}")
    return Import(mod, nm, kind, desc)


def _element(r: Reader) -> Element:
    flags = r.u32()
    if flags > 7:
        raise r.fail(f"unknown element segment flags {flags}")
    table, offset, kind = 0, None, 0
    if flags & 1 == 0:  # active
        if flags & 2:
            table = r.u32()
        offset = _expr(r)
    if flags & 3 != 0:  # explicit elemkind / reftype
        kind = r.byte()
    elif flags & 4:
        kind = FUNCREF
    if flags & 4:
        return Element(flags, table, offset, kind, exprs=tuple(_vec(r, _expr)))
    return Element(flags, table, offset, kind, funcs=tuple(_vec(r, Reader.u32)))


def _code(r: Reader) -> Code:
    body = r.sub(r.u32())
    locals_ = tuple((body.u32(), _valtype(body)) for _ in range(body.u32()))
    return Code(locals_, bytes(body.data[body.pos : body.end]))


def _data(r: Reader) -> Data:
    flags = r.u32()
    if flags == 1:
        return Data(1, r.bytes(r.u32()))
    if flags in (0, 2):
        memory = r.u32() if flags == 2 else 0
        offset = _expr(r)
        return Data(flags, r.bytes(r.u32()), offset, memory)
    raise r.fail(f"unknown data segment flags {flags}")


def decode(data: bytes) -> Module:
    if data[:8] != MAGIC:
        raise WasmFormatError("not a WebAssembly 1.0 binary (bad magic or version)")
    m = Module()
    r = Reader(data, 8)
    last = 0
    while not r.at_end():
        sid = r.byte()
        s = r.sub(r.u32())
        if sid == SEC_CUSTOM:
            m.customs.append(Custom(s.name(), bytes(s.data[s.pos : s.end]), last))
            continue
        if sid == SEC_TYPE:
            m.types = _vec(s, _functype)
        elif sid == SEC_IMPORT:
            m.imports = _vec(s, _import)
        elif sid == SEC_FUNCTION:
            m.funcs = _vec(s, Reader.u32)
        elif sid == SEC_TABLE:
            m.tables = _vec(s, lambda x: TableType(_valtype(x), _limits(x)))
        elif sid == SEC_MEMORY:
            m.memories = _vec(s, _limits)
        elif sid == SEC_GLOBAL:
            m.globals = _vec(s, lambda x: Global(GlobalType(_valtype(x), bool(x.byte())), _expr(x)))
        elif sid == SEC_EXPORT:
            m.exports = _vec(s, lambda x: Export(x.name(), x.byte(), x.u32()))
        elif sid == SEC_START:
            m.start = s.u32()
        elif sid == SEC_ELEMENT:
            m.elements = _vec(s, _element)
        elif sid == SEC_DATACOUNT:
            m.datacount = s.u32()
        elif sid == SEC_CODE:
            m.codes = _vec(s, _code)
        elif sid == SEC_DATA:
            m.datas = _vec(s, _data)
        else:
            raise r.fail(f"unknown section id {sid}")
        if not s.at_end():
            raise s.fail(f"section {sid} has {s.end - s.pos} trailing bytes")
        last = sid
    if len(m.funcs) != len(m.codes):
        raise WasmFormatError(f"{len(m.funcs)} function declarations but {len(m.codes)} bodies")
    return m


# ------------------------------------------------------------------------------------ encode


def _enc_limits(lim: Limits) -> bytes:
    if lim.max is None:
        return b"\x00" + leb.u32(lim.min)
    return b"\x01" + leb.u32(lim.min) + leb.u32(lim.max)


def _enc_import(i: Import) -> bytes:
    head = leb.name(i.module) + leb.name(i.name) + bytes([i.kind])
    d = i.desc
    if isinstance(d, int):
        return head + leb.u32(d)
    if isinstance(d, TableType):
        return head + bytes([d.elem]) + _enc_limits(d.limits)
    if isinstance(d, Limits):
        return head + _enc_limits(d)
    return head + bytes([d.valtype, int(d.mutable)])


def _enc_element(e: Element) -> bytes:
    out = bytearray(leb.u32(e.flags))
    if e.flags & 1 == 0:
        if e.flags & 2:
            out += leb.u32(e.table)
        assert e.offset is not None
        out += e.offset
    if e.flags & 3:
        out.append(e.elemkind)
    if e.flags & 4:
        out += leb.vec(list(e.exprs))
    else:
        out += leb.vec([leb.u32(f) for f in e.funcs])
    return bytes(out)


def encode_code(c: Code | EncodedCode) -> bytes:
    if isinstance(c, EncodedCode):
        return c.raw
    body = leb.vec([leb.u32(n) + bytes([t]) for n, t in c.locals]) + c.body
    return leb.u32(len(body)) + body


def _enc_data(d: Data) -> bytes:
    if d.flags == 1:
        return b"\x01" + leb.u32(len(d.init)) + d.init
    assert d.offset is not None
    head = b"\x00" if d.flags == 0 else b"\x02" + leb.u32(d.memory)
    return head + d.offset + leb.u32(len(d.init)) + d.init


def encode(m: Module) -> bytes:
    sections: list[tuple[int, bytes]] = []

    def add(sid: int, items: list[bytes] | None, raw: bytes | None = None) -> None:
        if raw is not None:
            sections.append((sid, raw))
        elif items:
            sections.append((sid, leb.vec(items)))

    add(SEC_TYPE, [b"\x60" + leb.vec([bytes([p]) for p in t.params]) + leb.vec([bytes([x]) for x in t.results])
                   for t in m.types])  # fmt: skip
    add(SEC_IMPORT, [_enc_import(i) for i in m.imports])
    add(SEC_FUNCTION, [leb.u32(t) for t in m.funcs])
    add(SEC_TABLE, [bytes([t.elem]) + _enc_limits(t.limits) for t in m.tables])
    add(SEC_MEMORY, [_enc_limits(lim) for lim in m.memories])
    add(SEC_GLOBAL, [bytes([g.type.valtype, int(g.type.mutable)]) + g.init for g in m.globals])
    add(SEC_EXPORT, [leb.name(e.name) + bytes([e.kind]) + leb.u32(e.index) for e in m.exports])
    if m.start is not None:
        add(SEC_START, None, leb.u32(m.start))
    add(SEC_ELEMENT, [_enc_element(e) for e in m.elements])
    if m.datacount is not None:
        add(SEC_DATACOUNT, None, leb.u32(m.datacount))
    add(SEC_CODE, [encode_code(c) for c in m.codes])
    add(SEC_DATA, [_enc_data(d) for d in m.datas])

    out = bytearray(MAGIC)

    def custom(after: int) -> None:
        for c in m.customs:
            if c.after == after:
                payload = leb.name(c.name) + c.payload
                out.extend(b"\x00" + leb.u32(len(payload)) + payload)

    custom(0)
    for sid, payload in sections:
        out.extend(bytes([sid]) + leb.u32(len(payload)) + payload)
        custom(sid)
    # customs placed after sections that this module no longer has: emit them at the end
    present = {0} | {sid for sid, _ in sections}
    for c in m.customs:
        if c.after not in present:
            payload = leb.name(c.name) + c.payload
            out.extend(b"\x00" + leb.u32(len(payload)) + payload)
    return bytes(out)
