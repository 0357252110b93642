"""A small assembler for generated function bodies.

Bodies are kept as a list of parts: raw bytes, plus symbolic references (``FuncRef`` to a
function by symbol, ``TypeRef`` to a function type) that the linker resolves to final
indices. ``depth`` tracks open structured blocks so branch depths can be computed.
"""

from __future__ import annotations

from cupcake_py.core.slotted import dataclass
from cupcake_py.wasm import leb
from cupcake_py.wasm.module import FuncType


@dataclass(frozen=True, slots=True)
class FuncRef:
    """A function by symbol: ``rt:<export>`` (runtime), ``gen:<n>`` (generated), ``imp:<name>`` (env import)."""

    symbol: str


@dataclass(frozen=True, slots=True)
class TypeRef:
    type: FuncType


Part = bytes | FuncRef | TypeRef

EMPTY_BLOCK = 0x40

# opcodes used by the code generator
UNREACHABLE, BLOCK, LOOP, IF, ELSE, END, BR, BR_IF, RETURN = 0x00, 0x02, 0x03, 0x04, 0x05, 0x0B, 0x0C, 0x0D, 0x0F
CALL, CALL_INDIRECT, DROP, SELECT = 0x10, 0x11, 0x1A, 0x1B
LOCAL_GET, LOCAL_SET, LOCAL_TEE = 0x20, 0x21, 0x22
I32_LOAD, I32_LOAD16_U, I32_STORE = 0x28, 0x2F, 0x36
I32_CONST, I64_CONST = 0x41, 0x42
I32_EQZ, I32_EQ, I32_NE = 0x45, 0x46, 0x47
I32_ADD, I32_OR = 0x6A, 0x72


class Asm:
    __slots__ = ("parts", "_buf", "depth")

    def __init__(self) -> None:
        self.parts: list[Part] = []
        self._buf = bytearray()
        self.depth = 0

    def _flush(self) -> None:
        if self._buf:
            self.parts.append(bytes(self._buf))
            self._buf.clear()

    def finish(self) -> list[Part]:
        """Close the body with ``end`` and return its parts."""
        if self.depth != 0:
            raise AssertionError(f"unbalanced blocks at end of body (depth {self.depth})")
        self._buf.append(END)
        self._flush()
        return self.parts

    # raw
    def op(self, opcode: int) -> None:
        self._buf.append(opcode)

    def op_u32(self, opcode: int, n: int) -> None:
        self._buf.append(opcode)
        self._buf += leb.u32(n)

    # structure
    def block(self) -> int:
        """Open a ``block``; return its depth label (use with ``br_to``)."""
        self._buf += bytes((BLOCK, EMPTY_BLOCK))
        self.depth += 1
        return self.depth

    def loop(self) -> int:
        self._buf += bytes((LOOP, EMPTY_BLOCK))
        self.depth += 1
        return self.depth

    def if_(self) -> None:
        self._buf += bytes((IF, EMPTY_BLOCK))
        self.depth += 1

    def end(self) -> None:
        self._buf.append(END)
        self.depth -= 1

    def br_to(self, label: int) -> None:
        self.op_u32(BR, self.depth - label)

    def br_if_to(self, label: int) -> None:
        self.op_u32(BR_IF, self.depth - label)

    # values
    def i32(self, n: int) -> None:
        self._buf.append(I32_CONST)
        self._buf += leb.s64(n if n < 1 << 31 else n - (1 << 32))

    def i64(self, n: int) -> None:
        self._buf.append(I64_CONST)
        self._buf += leb.s64(n if n < 1 << 63 else n - (1 << 64))

    def get(self, local: int) -> None:
        self.op_u32(LOCAL_GET, local)

    def set(self, local: int) -> None:
        self.op_u32(LOCAL_SET, local)

    def tee(self, local: int) -> None:
        self.op_u32(LOCAL_TEE, local)

    def load(self, offset: int) -> None:
        self._buf += bytes((I32_LOAD, 2)) + leb.u32(offset)

    def load16_u(self, offset: int) -> None:
        """i32.load16_u (alignment hint 1: values are only 2-byte aligned)."""
        self._buf += bytes((I32_LOAD16_U, 1)) + leb.u32(offset)

    def store(self, offset: int) -> None:
        self._buf += bytes((I32_STORE, 2)) + leb.u32(offset)

    # calls
    def call(self, symbol: str) -> None:
        self._buf.append(CALL)
        self._flush()
        self.parts.append(FuncRef(symbol))

    def call_indirect(self, type_: FuncType) -> None:
        self._buf.append(CALL_INDIRECT)
        self._flush()
        self.parts.append(TypeRef(type_))
        self._buf.append(0)  # table 0
