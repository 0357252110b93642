"""Constant regex patterns → programs for the runtime's native matcher (regex_vm.c).

In: a ``regex.match`` pattern known at build time. Out: ``compile_pattern`` returns the
program bytes, or None when the pattern is outside the subset whose RE2 semantics the
native matcher reproduces exactly — the caller then keeps the host call, so anything
unusual (other flags, Unicode classes, POSIX classes, ``\\B``, backreference-looking escapes,
invalid patterns, odd ``{`` or ``-`` placement, huge repetitions) still gets RE2's answer
or RE2's error. Nothing here fails: an unsupported pattern is simply not native.

Subset (RE2 / Go syntax; the only flag is a leading ``(?i)``, and then only over ASCII letters
and classes, folded like RE2 including the Kelvin sign and the long s): literals (any code
point), the escapes of ASCII punctuation and ``\\n \\t \\r \\f \\v \\a``, ``.`` (any code
point but ``\\n``), ``\\d \\w \\s`` and their negations, bracket classes with ranges,
negation and those escapes, anchors ``^``/``\\A`` (start of text), ``$``/``\\z`` (end of
text), ``\\b`` (ASCII word boundary), groups ``( )`` and ``(?: )``, alternation and
``* + ? {n} {n,} {n,m}`` (lazy forms too).

Program layout (little-endian u32 words, 4-aligned in the data segment):
``n_inst, n_ranges, lit_len, flags`` · required literal bytes padded to 4 ·
``n_inst`` instructions ``(op | a << 8, b)`` (``a``: a code point, a range offset or a
jump target, all below 2**24) · ``n_ranges`` pairs ``(lo, hi)``.
``flags`` bit 0: every match starts at the start of the text. The required literal is a
byte string every match contains (empty: none known); the matcher answers "no match"
without running the program when the subject lacks it.
"""

from __future__ import annotations

import struct

from cupcake_py.core.slotted import dataclass

# Opcodes (regex_vm.c mirrors them).
OP_MATCH, OP_CHAR, OP_CLASS, OP_SPLIT, OP_JMP, OP_BOT, OP_EOT, OP_WORDB = range(8)
FLAG_ANCHORED = 1

MAX_CODEPOINT = 0x10FFFF
MAX_INSTRUCTIONS = 2000  # regex_vm.c's thread lists hold this many
MAX_REPEAT = 1000  # RE2's repeat count limit (also the nested-product limit)

Ranges = tuple[tuple[int, int], ...]

_WORD: Ranges = ((0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A))
_PERL: dict[str, Ranges] = {
    "d": ((0x30, 0x39),),
    "w": _WORD,
    "s": ((0x09, 0x0A), (0x0C, 0x0D), (0x20, 0x20)),
}
_CONTROL_ESCAPES = {"n": 0x0A, "t": 0x09, "r": 0x0D, "f": 0x0C, "v": 0x0B, "a": 0x07}
_PUNCT = frozenset(chr(c) for c in range(0x21, 0x7F) if not chr(c).isalnum() and chr(c) != "_")


class Unsupported(Exception):
    """The pattern is outside the native subset (or invalid): keep the host call."""


# ---------------------------------------------------------------- AST


@dataclass(frozen=True, slots=True)
class Char:
    cp: int


@dataclass(frozen=True, slots=True)
class Class:
    ranges: Ranges  # sorted, disjoint, non-adjacent


@dataclass(frozen=True, slots=True)
class Assert:
    op: int  # OP_BOT | OP_EOT | OP_WORDB


@dataclass(frozen=True, slots=True)
class Cat:
    items: tuple[Node, ...]


@dataclass(frozen=True, slots=True)
class Alt:
    items: tuple[Node, ...]


@dataclass(frozen=True, slots=True)
class Repeat:
    node: Node
    min: int
    max: int  # -1: unbounded
    counted: bool  # written as {n,m} (RE2's nesting limit counts these)


Node = Char | Class | Assert | Cat | Alt | Repeat


def normalize(ranges: list[tuple[int, int]]) -> Ranges:
    out: list[tuple[int, int]] = []
    for lo, hi in sorted(ranges):
        if out and lo <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(out[-1][1], hi))
        else:
            out.append((lo, hi))
    return tuple(out)


def negate(ranges: Ranges) -> Ranges:
    out: list[tuple[int, int]] = []
    nxt = 0
    for lo, hi in ranges:
        if lo > nxt:
            out.append((nxt, lo - 1))
        nxt = hi + 1
    if nxt <= MAX_CODEPOINT:
        out.append((nxt, MAX_CODEPOINT))
    return tuple(out)


_DOT = negate(((0x0A, 0x0A),))


# ---------------------------------------------------------------- parser


class _Parser:
    def __init__(self, pattern: str) -> None:
        self.p = pattern
        self.i = 0
        self.fold = pattern.startswith("(?i)")  # only as the whole pattern's leading flag
        if self.fold:
            self.i = 4

    def folded(self, ranges: Ranges) -> Ranges:
        """A positive class under (?i): ASCII members plus their simple case folds (RE2 adds
        the Kelvin sign to k and the long s to s); non-ASCII members are not native."""
        if not self.fold:
            return ranges
        out = list(ranges)
        for lo, hi in ranges:
            if hi >= 0x80:
                raise Unsupported("case folding beyond ASCII")
            for cp in range(max(lo, 0x41), min(hi, 0x7A) + 1):
                ch = chr(cp)
                if ch.isalpha():
                    other = ord(ch.swapcase())
                    out.append((other, other))
                    if ch in "kK":
                        out.append((0x212A, 0x212A))
                    elif ch in "sS":
                        out.append((0x17F, 0x17F))
        return normalize(out)

    def peek(self) -> str:
        return self.p[self.i] if self.i < len(self.p) else ""

    def take(self) -> str:
        c = self.peek()
        if not c:
            raise Unsupported("unexpected end")
        self.i += 1
        return c

    def parse(self) -> Node:
        node = self.alt()
        if self.i != len(self.p):
            raise Unsupported(f"unexpected {self.peek()!r}")
        return node

    def alt(self) -> Node:
        items = [self.cat()]
        while self.peek() == "|":
            self.i += 1
            items.append(self.cat())
        return items[0] if len(items) == 1 else Alt(tuple(items))

    def cat(self) -> Node:
        items: list[Node] = []
        while self.peek() not in ("", "|", ")"):
            atom = self.atom()
            if self.peek() in ("*", "+", "?", "{"):
                atom = self.quantified(atom)
                if self.peek() in ("*", "+", "?", "{"):
                    raise Unsupported("nested repetition operator")
            items.append(atom)
        return items[0] if len(items) == 1 else Cat(tuple(items))

    def quantified(self, atom: Node) -> Node:
        c = self.take()
        if c == "{":
            lo, hi = self.counts()
            node = Repeat(atom, lo, hi, True)
        else:
            lo, hi = {"*": (0, -1), "+": (1, -1), "?": (0, 1)}[c]
            node = Repeat(atom, lo, hi, False)
        if self.peek() == "?":  # lazy: the same language for a boolean match
            self.i += 1
        return node

    def counts(self) -> tuple[int, int]:
        lo = self.number()
        hi = lo
        if self.peek() == ",":
            self.i += 1
            hi = -1 if self.peek() == "}" else self.number()
        if self.take() != "}" or lo > MAX_REPEAT or hi > MAX_REPEAT or (hi >= 0 and hi < lo):
            raise Unsupported("repeat count")
        return lo, hi

    def number(self) -> int:
        start = self.i
        while self.peek().isascii() and self.peek().isdigit():
            self.i += 1
        if self.i == start or self.i - start > 4:
            raise Unsupported("repeat count")
        return int(self.p[start : self.i])

    def atom(self) -> Node:
        c = self.take()
        if c == "(":
            if self.peek() == "?":
                if self.p[self.i : self.i + 2] != "?:":
                    raise Unsupported("group flags")
                self.i += 2
            node = self.alt()
            if self.take() != ")":
                raise Unsupported("missing )")
            return node
        if c == "[":
            return Class(self.bracket())
        if c == ".":
            return Class(_DOT)
        if c == "^":
            return Assert(OP_BOT)
        if c == "$":
            return Assert(OP_EOT)
        if c == "\\":
            return self.escape()
        if c in "*+?{)":
            raise Unsupported(f"unexpected {c!r}")
        cp = _codepoint(c)
        if self.fold and (cp >= 0x80 or c.isalpha()):
            return Class(self.folded(((cp, cp),)))
        return Char(cp)

    def escape(self) -> Node:
        c = self.take()
        if c in ("A", "z", "b"):
            return Assert({"A": OP_BOT, "z": OP_EOT, "b": OP_WORDB}[c])
        ranges = self.class_escape(c)
        return Class(ranges) if len(ranges) != 1 or ranges[0][0] != ranges[0][1] else Char(ranges[0][0])

    def class_escape(self, c: str) -> Ranges:
        if c in _PUNCT:
            return ((ord(c), ord(c)),)
        if c in _CONTROL_ESCAPES:
            v = _CONTROL_ESCAPES[c]
            return ((v, v),)
        if c.lower() in _PERL:
            ranges = self.folded(_PERL[c.lower()])
            return negate(ranges) if c.isupper() else ranges
        raise Unsupported(f"escape \\{c}")

    def bracket(self) -> Ranges:
        negated = self.peek() == "^"
        if negated:
            self.i += 1
        items: list[tuple[int, int]] = []
        perl: list[tuple[int, int]] = []  # Perl classes: already folded
        first = True
        while True:
            c = self.take()
            if c == "]" and not first:
                break
            if c == "[" and self.peek() == ":":
                raise Unsupported("POSIX class")
            is_range = self.peek() == "-" and self.p[self.i + 1 : self.i + 2] not in ("]", "")
            if c == "\\":
                ranges = self.class_escape(self.take())
                is_range = self.peek() == "-" and self.p[self.i + 1 : self.i + 2] not in ("]", "")
                if len(ranges) != 1 or ranges[0][0] != ranges[0][1]:
                    if is_range:
                        raise Unsupported("class range from a Perl class")
                    perl += ranges
                    first = False
                    continue
                lo = ranges[0][0]
            elif c == "-" and not first and self.peek() != "]":
                raise Unsupported("ambiguous - in class")
            else:
                lo = _codepoint(c)
            if is_range:
                self.i += 1
                hi = self.range_end()
                if hi < lo:
                    raise Unsupported("class range")
                items.append((lo, hi))
            else:
                items.append((lo, lo))
            first = False
        ranges = normalize([*self.folded(normalize(items)), *perl])
        return negate(ranges) if negated else ranges

    def range_end(self) -> int:
        c = self.take()
        if c in "-[":
            raise Unsupported("odd class range end")
        if c != "\\":
            return _codepoint(c)
        ranges = self.class_escape(self.take())
        if len(ranges) != 1 or ranges[0][0] != ranges[0][1]:
            raise Unsupported("class range ending in a Perl class")
        return ranges[0][0]


def _codepoint(c: str) -> int:
    cp = ord(c)
    if 0xD800 <= cp <= 0xDFFF:
        raise Unsupported("surrogate in pattern")
    return cp


# ---------------------------------------------------------------- analysis


def _check_nesting(node: Node, budget: int = MAX_REPEAT) -> None:
    """RE2 rejects nested counted repetitions whose product exceeds 1000."""
    if isinstance(node, Repeat):
        if node.counted:
            m = node.max if node.max >= 0 else node.min
            if m > 0:
                budget //= m
                if budget == 0:
                    raise Unsupported("nested repeat product")
        _check_nesting(node.node, budget)
    elif isinstance(node, Cat | Alt):
        for n in node.items:
            _check_nesting(n, budget)


def _required(node: Node) -> list[bytes]:
    """Byte strings that every match contains, as maximal literal runs of a sequence."""
    if isinstance(node, Char):
        return [chr(node.cp).encode()]
    if isinstance(node, Repeat) and node.min >= 1:
        return _required(node.node)
    if isinstance(node, Cat):
        out: list[bytes] = []
        run = b""
        for item in node.items:
            if isinstance(item, Char):
                run += chr(item.cp).encode()
                continue
            if isinstance(item, Assert):
                continue  # zero width: the literal run goes on
            if run:
                out.append(run)
                run = b""
            out += _required(item)
        if run:
            out.append(run)
        return out
    return []


def _anchored(node: Node) -> bool:
    if isinstance(node, Assert):
        return node.op == OP_BOT
    if isinstance(node, Cat):
        return bool(node.items) and _anchored(node.items[0])
    if isinstance(node, Alt):
        return all(_anchored(n) for n in node.items)
    return False


# ---------------------------------------------------------------- code generation


class _Emitter:
    def __init__(self) -> None:
        self.code: list[list[int]] = []
        self.ranges: list[tuple[int, int]] = []
        self.class_at: dict[Ranges, tuple[int, int]] = {}

    def emit(self, op: int, a: int = 0, b: int = 0) -> int:
        if len(self.code) >= MAX_INSTRUCTIONS:
            raise Unsupported("program too large")
        self.code.append([op, a, b])
        return len(self.code) - 1

    def node(self, n: Node) -> None:
        if isinstance(n, Char):
            self.emit(OP_CHAR, n.cp)
        elif isinstance(n, Class):
            if n.ranges not in self.class_at:
                self.class_at[n.ranges] = (len(self.ranges), len(n.ranges))
                self.ranges += n.ranges
            self.emit(OP_CLASS, *self.class_at[n.ranges])
        elif isinstance(n, Assert):
            self.emit(n.op)
        elif isinstance(n, Cat):
            for item in n.items:
                self.node(item)
        elif isinstance(n, Alt):
            self.alt(n.items)
        else:
            self.repeat(n)

    def alt(self, items: tuple[Node, ...]) -> None:
        jumps = []
        for item in items[:-1]:
            split = self.emit(OP_SPLIT)
            self.code[split][1] = len(self.code)
            self.node(item)
            jumps.append(self.emit(OP_JMP))
            self.code[split][2] = len(self.code)
        self.node(items[-1])
        for j in jumps:
            self.code[j][1] = len(self.code)

    def optional(self, n: Node) -> int:
        split = self.emit(OP_SPLIT)
        self.code[split][1] = len(self.code)
        self.node(n)
        self.code[split][2] = len(self.code)
        return split

    def repeat(self, r: Repeat) -> None:
        for _ in range(r.min):
            self.node(r.node)
        if r.max < 0:
            split = self.emit(OP_SPLIT)
            self.code[split][1] = len(self.code)
            self.node(r.node)
            self.emit(OP_JMP, split)
            self.code[split][2] = len(self.code)
            return
        for _ in range(r.max - r.min):
            self.optional(r.node)


def parse(pattern: str) -> Node:
    """The AST of a pattern in the subset; raises Unsupported otherwise."""
    node = _Parser(pattern).parse()
    _check_nesting(node)
    return node


def compile_pattern(pattern: str) -> bytes | None:
    """Program bytes for ``pattern``, or None when it must stay a host call."""
    try:
        node = parse(pattern)
        em = _Emitter()
        em.node(node)
        em.emit(OP_MATCH)
    except Unsupported:
        return None
    literal = max(_required(node), key=len, default=b"")
    header = struct.pack("<4I", len(em.code), len(em.ranges), len(literal), FLAG_ANCHORED if _anchored(node) else 0)
    lit = literal + bytes(-len(literal) % 4)
    code = b"".join(struct.pack("<2I", op | a << 8, b) for op, a, b in em.code)
    ranges = b"".join(struct.pack("<2I", lo, hi) for lo, hi in em.ranges)
    return header + lit + code + ranges
