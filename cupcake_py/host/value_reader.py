"""Read a runtime value straight out of linear memory into its Python form
(docs/architecture.md section 1), without a call into wasm.

Layouts (runtime/include/opa.h, wasm32, little endian): tag byte @0 (1 null, 2 boolean,
3 number, 4 string, 5 array, 6 object, 7 set); boolean v @1; number repr @1 (1 INT: i64
@8; 2 REF: text ptr @8, len @12); string len @4, bytes ptr @8; array len @4, element
pointer array @12; object sorted flag @1, len @4, entries @12 of {key, value, hash, next}
(16 bytes); set sorted flag @1, len @4, entries @12 of {value, hash, next} (12 bytes).

The result equals `values.parse_rego(opa_value_dump(v))`: objects come in Rego key order
(the dump's order), numbers as int when written without fraction/exponent else Decimal.
Whatever this reader does not reproduce byte-for-byte (strings that are not valid UTF-8,
which the dump rewrites Go-style; nesting deeper than Python's stack) raises `NeedsDump`
so the caller uses the dump instead; pointers outside the memory raise ABIError.
"""

from __future__ import annotations

from struct import error as StructError
from struct import unpack_from

from cupcake_py.host.errors import ABIError

TYPE_CHECKING = False  # (typing is not imported on the eval path)
if TYPE_CHECKING:
    from typing import Any

_DIGITS = frozenset(b"0123456789")


def _digits(text: bytes, i: int) -> int:
    """The index after the run of ASCII digits at `i`."""
    while i < len(text) and text[i] in _DIGITS:
        i += 1
    return i


def is_json_number(text: bytes) -> bool:
    """`text` is a JSON number: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? (without `re`: a
    `cupcake test` run that reads one would pay its import)."""
    i = 1 if text[:1] == b"-" else 0
    if text[i:i + 1] == b"0":
        i += 1
    elif i < len(text) and text[i] in _DIGITS and text[i] != 0x30:
        i = _digits(text, i)
    else:
        return False
    if text[i:i + 1] == b".":
        j = _digits(text, i + 1)
        if j == i + 1:
            return False
        i = j
    if text[i:i + 1] in (b"e", b"E"):
        i += 2 if text[i + 1:i + 2] in (b"+", b"-") else 1
        j = _digits(text, i)
        if j == i:
            return False
        i = j
    return i == len(text)


class NeedsDump(Exception):
    """This value must go through opa_value_dump + values.parse_rego."""


# A module's own opa_value_parse of PROBE must read back as probe_value(): the layout check
# for modules not built on our runtime (the ABI itself treats values as opaque).
PROBE = b'{"b": [1, "x\\u00e9", true, null, 1.50, -12345678901234567890123, 7e2], "a": {3, "s"}, [1]: false}'


def probe_value() -> dict[Any, Any]:
    from decimal import Decimal

    return {"a": frozenset({3, "s"}), "b": [1, "x\u00e9", True, None, Decimal("1.50"), -12345678901234567890123,
                                             Decimal("7e2")], (1,): False}


def read_value(mem: memoryview, addr: int) -> Any:
    try:
        return _read(mem, addr)
    except RecursionError:
        raise NeedsDump from None
    except (IndexError, StructError):
        raise ABIError(f"value at {addr:#x} points outside linear memory") from None


def _bytes(mem: memoryview, ptr: int, n: int) -> bytes:
    if ptr + n > len(mem):
        raise IndexError
    return mem[ptr:ptr + n].tobytes()


def _number(mem: memoryview, addr: int) -> Any:
    if mem[addr + 1] == 1:
        return unpack_from("<q", mem, addr + 8)[0]
    ptr, n = unpack_from("<II", mem, addr + 8)
    text = _bytes(mem, ptr, n)
    if not is_json_number(text):
        raise ABIError(f"number at {addr:#x} has invalid text {text[:40]!r}")
    if b"." in text or b"e" in text or b"E" in text:
        from decimal import Decimal

        return Decimal(text.decode("ascii"))
    return int(text)


def _read(mem: memoryview, addr: int) -> Any:
    tag = mem[addr]
    if tag == 4:
        n, ptr = unpack_from("<II", mem, addr + 4)
        if ptr + n > len(mem):
            raise IndexError
        try:
            return str(mem[ptr:ptr + n], "utf-8")
        except UnicodeDecodeError:
            raise NeedsDump from None
    if tag == 5:
        n, _, ptr = unpack_from("<III", mem, addr + 4)
        return [_read(mem, a) for a in unpack_from(f"<{n}I", mem, ptr)] if n else []
    if tag == 3:
        return _number(mem, addr)
    if tag == 2:
        return mem[addr + 1] != 0
    if tag == 1:
        return None
    if tag == 6:
        return _object(mem, addr)
    if tag == 7:
        n, _, ptr = unpack_from("<III", mem, addr + 4)
        if not n:
            return frozenset()
        from cupcake_py.core.values import freeze

        return frozenset(freeze(_read(mem, a)) for a in unpack_from(f"<{3 * n}I", mem, ptr)[::3])
    raise ABIError(f"value at {addr:#x} has unknown type tag {tag}")


def _first(pair: tuple[Any, Any]) -> Any:
    return pair[0]


def _object(mem: memoryview, addr: int) -> dict[Any, Any]:
    n, _, ptr = unpack_from("<III", mem, addr + 4)
    if not n:
        return {}
    words = unpack_from(f"<{4 * n}I", mem, ptr)
    keys = [_read(mem, a) for a in words[::4]]
    vals = [_read(mem, a) for a in words[1::4]]
    if all(type(k) is str for k in keys):
        pairs = zip(keys, vals, strict=True)
        return dict(sorted(pairs, key=_first) if not mem[addr + 1] and n > 1 else pairs)
    from cupcake_py.core.values import freeze, sort_key

    frozen = [(freeze(k), v) for k, v in zip(keys, vals, strict=True)]
    if not mem[addr + 1] and n > 1:
        frozen.sort(key=lambda kv: sort_key(kv[0]))
    return dict(frozen)
