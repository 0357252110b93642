"""Go's fmt.Sprintf for the argument kinds OPA's sprintf passes: int, *big.Int, float64, string.

Implements verbs, flags (``#0+- ``), width/precision (incl. ``*`` and ``[n]`` indexes) and
Go's error forms (``%!d(string=x)``, ``%!v(MISSING)``, ``%!(EXTRA ...)``, ``%!(NOVERB)``,
``%!(BADWIDTH)``, ``%!(BADPREC)``, ``%!v(BADINDEX)``).
"""

from __future__ import annotations

import math
import struct
from decimal import Decimal

from cupcake_py.core.record import FrozenRecord

_INT64 = 1 << 63
_TOO_LARGE = 1_000_000


class GoArg(FrozenRecord):
    __slots__ = ("kind", "value")
    kind: str  # "int" | "bigint" | "float" | "string"
    value: int | float | str

    def __init__(self, kind: str, value: int | float | str) -> None:
        self._fill(kind, value)

    @property
    def type_name(self) -> str:
        return {"int": "int", "bigint": "*big.Int", "float": "float64", "string": "string"}[self.kind]


def go_int(n: int) -> GoArg:
    return GoArg("int" if -_INT64 <= n < _INT64 else "bigint", n)


# ------------------------------------------------------------- strconv helpers


def _shortest(v: float) -> tuple[str, int]:
    """Shortest round-trip decimal digits and decimal-point position of abs(v) (v != 0)."""
    t = Decimal(repr(abs(v))).as_tuple()
    digits = "".join(map(str, t.digits)).rstrip("0") or "0"
    dp = len(t.digits) + int(t.exponent)
    return digits, dp


def _fmt_e(digits: str, dp: int, prec: int, e: str) -> str:
    exp = dp - 1 if digits != "0" else 0
    body = digits[0]
    if prec > 0:
        body += "." + digits[1 : prec + 1].ljust(prec, "0")
    sign = "-" if exp < 0 else "+"
    return f"{body}{e}{sign}{abs(exp):02d}"


def _fmt_f(digits: str, dp: int, prec: int) -> str:
    if dp > 0:
        ip = digits[:dp].ljust(dp, "0")
    else:
        ip = "0"
    if prec <= 0:
        return ip
    frac = "".join(digits[dp + i] if 0 <= dp + i < len(digits) else "0" for i in range(prec))
    return ip + "." + frac


def _hexfloat(v: float, prec: int, upper: bool) -> str:
    if v == 0:
        mant, exp = 0, 0
    else:
        m, e = math.frexp(v)
        mant, exp = int(m * (1 << 53)), e - 1  # v = mant/2**52 * 2**exp, mant in [2**52, 2**53)
    frac = mant & ((1 << 52) - 1) if mant else 0
    lead = 1 if mant else 0
    if 0 <= prec < 13:
        shift = 4 * (13 - prec)
        q, r = divmod(frac, 1 << shift)
        half = 1 << (shift - 1)
        if r > half or (r == half and q & 1):
            q += 1
        if q >> (4 * prec):
            q, exp = 0, exp + 1
        hexd = f"{q:0{prec}x}" if prec else ""
    else:
        hexd = f"{frac:013x}".rstrip("0")
        if prec > 13:
            hexd = f"{frac:013x}".ljust(prec, "0")
    s = f"0x{lead}" + (f".{hexd}" if hexd else "") + f"p{'-' if exp < 0 else '+'}{abs(exp):02d}"
    return s.upper() if upper else s


def format_float(v: float, fmt: str, prec: int) -> str:
    """strconv.FormatFloat(v, fmt, prec, 64) (prec -1 = shortest)."""
    if math.isnan(v):
        return "NaN"
    if math.isinf(v):
        return "+Inf" if v > 0 else "-Inf"
    neg = math.copysign(1.0, v) < 0
    a = abs(v)
    if fmt == "b":
        bits = struct.unpack(">Q", struct.pack(">d", a))[0]
        e, m = bits >> 52, bits & ((1 << 52) - 1)
        if e:
            m |= 1 << 52
        else:
            e = 1
        body = f"{m}p{e - 1075:+d}"
        return ("-" if neg else "") + body
    if fmt in "xX":
        return ("-" if neg else "") + _hexfloat(a, prec, fmt == "X")
    if prec < 0:
        digits, dp = _shortest(a) if a else ("0", 1)
        if fmt in "eE":
            body = _fmt_e(digits, dp, len(digits) - 1, fmt)
        elif fmt == "f":
            body = _fmt_f(digits, dp, max(len(digits) - dp, 0))
        else:
            exp = dp - 1 if a else 0
            if exp < -4 or exp >= 6:
                body = _fmt_e(digits, dp, len(digits) - 1, "e" if fmt == "g" else "E")
            else:
                body = _fmt_f(digits, dp, max(len(digits) - dp, 0))
    elif fmt in "eEf":
        body = format(a, f".{prec}{fmt}")
        if fmt in "eE":
            mant, _, ex = body.partition(fmt)
            body = f"{mant}{fmt}{ex[0]}{int(ex[1:]):02d}"
    else:
        body = format(a, f".{max(prec, 1)}{'g' if fmt == 'g' else 'G'}")
        if "e" in body or "E" in body:
            mant, sep, ex = body.partition("e" if fmt == "g" else "E")
            body = f"{mant}{sep}{ex[0]}{int(ex[1:]):02d}"
    return ("-" if neg else "") + body


def _is_print(c: str) -> bool:
    return c.isprintable() or c == " "


_ESC = {"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v"}


def _quote_rune(c: str, quote: str, ascii_only: bool) -> str:
    if c == quote or c == "\\":
        return "\\" + c
    if _is_print(c) and (not ascii_only or ord(c) < 128):
        return c
    if c in _ESC:
        return _ESC[c]
    o = ord(c)
    if o < 0x80 and not ascii_only:
        return f"\\x{o:02x}"
    if o < 0x80:
        return f"\\x{o:02x}"
    if o < 0x10000:
        return f"\\u{o:04x}"
    return f"\\U{o:08x}"


def go_quote(s: str, ascii_only: bool = False) -> str:
    return '"' + "".join(_quote_rune(c, '"', ascii_only) for c in s) + '"'


def _can_backquote(s: str) -> bool:
    return all(c == "\t" or (c != "`" and c != "\ufeff" and (ord(c) >= 0x20 and c != "\x7f")) for c in s)


# ------------------------------------------------------------------- printer


class _Printer:
    def __init__(self, args: list[GoArg]) -> None:
        self.args = args
        self.buf: list[str] = []
        self.clear()

    def clear(self) -> None:
        self.sharp = self.zero = self.plus = self.minus = self.space = False
        self.sharp_v = self.plus_v = False
        self.wid = self.prec = 0
        self.wid_present = self.prec_present = False

    # -- padding
    def write_padding(self, n: int) -> None:
        if n > 0:
            self.buf.append(("0" if self.zero else " ") * n)

    def pad(self, s: str) -> None:
        if not self.wid_present or self.wid == 0:
            self.buf.append(s)
            return
        width = self.wid - len(s)
        if not self.minus:
            self.write_padding(width)
            self.buf.append(s)
        else:
            self.buf.append(s)
            self.write_padding(width)

    # -- integers
    def fmt_integer(self, n: int, base: int, verb: str, upper: bool = False) -> None:
        neg = n < 0
        u = -n if neg else n
        prec = 0
        if self.prec_present:
            prec = self.prec
            if prec == 0 and u == 0:
                old, self.zero = self.zero, False
                self.write_padding(self.wid)
                self.zero = old
                return
        elif self.zero and not self.minus and self.wid_present:
            prec = self.wid
            if neg or self.plus or self.space:
                prec -= 1
        digits = {10: str(u), 16: f"{u:x}", 8: f"{u:o}", 2: f"{u:b}"}[base]
        if upper:
            digits = digits.upper()
        digits = digits.rjust(prec, "0")
        if self.sharp:
            if base == 2:
                digits = "0b" + digits
            elif base == 8 and not digits.startswith("0"):
                digits = "0" + digits
            elif base == 16:
                digits = ("0X" if upper else "0x") + digits
        if verb == "O":
            digits = "0o" + digits
        if neg:
            digits = "-" + digits
        elif self.plus:
            digits = "+" + digits
        elif self.space:
            digits = " " + digits
        old, self.zero = self.zero, False
        self.pad(digits)
        self.zero = old

    def fmt_c(self, n: int) -> None:
        self.pad(_rune(n))

    def fmt_qc(self, n: int) -> None:
        c = _rune(n)
        self.pad("'" + _quote_rune(c, "'", self.plus) + "'")

    def fmt_unicode(self, n: int) -> None:
        prec = 4
        if self.prec_present and self.prec > 4:
            prec = self.prec
        s = "U+" + f"{n & 0xFFFFFFFFFFFFFFFF if n < 0 else n:X}".rjust(prec, "0")
        if self.sharp and 0 <= n <= 0x10FFFF and _is_print(chr(n)):
            s += " '" + chr(n) + "'"
        old, self.zero = self.zero, False
        self.pad(s)
        self.zero = old

    def print_int(self, n: int, verb: str) -> None:
        if verb in "vd":
            self.fmt_integer(n, 10, verb)
        elif verb == "b":
            self.fmt_integer(n, 2, verb)
        elif verb in "oO":
            self.fmt_integer(n, 8, verb)
        elif verb in "xX":
            self.fmt_integer(n, 16, verb, verb == "X")
        elif verb == "c":
            self.fmt_c(n)
        elif verb == "q":
            self.fmt_qc(n)
        elif verb == "U":
            self.fmt_unicode(n)
        else:
            self.bad_verb(verb, GoArg("int", n))

    def print_bigint(self, n: int, verb: str) -> None:
        base = {"b": 2, "o": 8, "O": 8, "d": 10, "s": 10, "v": 10, "x": 16, "X": 16}.get(verb)
        if base is None:
            self.buf.append(f"%!{verb}(big.Int={n})")
            return
        sign = "-" if n < 0 else "+" if self.plus or self.plus_v else " " if self.space else ""
        prefix = ""
        if self.sharp:
            prefix = {"b": "0b", "o": "0", "x": "0x", "X": "0X"}.get(verb, "")
        if verb == "O":
            prefix = "0o"
        u = abs(n)
        digits = {2: f"{u:b}", 8: f"{u:o}", 10: str(u), 16: f"{u:x}"}[base]
        if verb == "X":
            digits = digits.upper()
        left = zeros = right = 0
        if self.prec_present:
            if len(digits) < self.prec:
                zeros = self.prec - len(digits)
            elif digits == "0" and self.prec == 0:
                return
        length = len(sign) + len(prefix) + zeros + len(digits)
        if self.wid_present and length < self.wid:
            d = self.wid - length
            if self.minus:
                right = d
            elif self.zero and not self.prec_present:
                zeros = d
            else:
                left = d
        self.buf.append(" " * left + sign + prefix + "0" * zeros + digits + " " * right)

    # -- floats
    def fmt_float(self, v: float, verb: str, prec: int) -> None:
        if self.prec_present:
            prec = self.prec
        num = format_float(v, verb, prec)
        num = num if num[0] in "+-" else "+" + num
        if self.space and num[0] == "+" and not self.plus:
            num = " " + num[1:]
        if num[1] in "IN":
            old, self.zero = self.zero, False
            if num[1] == "N" and not self.space and not self.plus:
                num = num[1:]
            self.pad(num)
            self.zero = old
            return
        if self.sharp and verb != "b":
            digits = 0
            if verb in "vgGxX":
                digits = prec if prec != -1 else 6
            tail = ""
            body = num
            for i in range(1, len(num)):
                ch = num[i]
                if ch in "pP" or (ch in "eE" and verb not in "xX"):
                    tail, body = num[i:], num[:i]
                    break
            has_dot = "." in body
            saw_nonzero = False
            for ch in body[1:]:
                if ch == ".":
                    continue
                if verb in "xX" and ch in "xX":
                    continue
                if ch != "0":
                    saw_nonzero = True
                if saw_nonzero:
                    digits -= 1
            if not has_dot:
                if len(body) == 2 and body[1] == "0":
                    digits -= 1
                body += "."
            if digits > 0:
                body += "0" * digits
            num = body + tail
        if self.plus or num[0] != "+":
            if self.zero and not self.minus and self.wid_present and self.wid > len(num):
                self.buf.append(num[0])
                self.write_padding(self.wid - len(num))
                self.buf.append(num[1:])
                return
            self.pad(num)
            return
        self.pad(num[1:])

    def print_float(self, v: float, verb: str) -> None:
        if verb == "v":
            self.fmt_float(v, "g", -1)
        elif verb in "bgGxX":
            self.fmt_float(v, verb, -1)
        elif verb in "feEF":
            self.fmt_float(v, "f" if verb == "F" else verb, 6)
        else:
            self.bad_verb(verb, GoArg("float", v))

    # -- strings
    def trunc(self, s: str) -> str:
        return s[: self.prec] if self.prec_present else s

    def fmt_q(self, s: str) -> None:
        s = self.trunc(s)
        if self.sharp and _can_backquote(s):
            self.pad("`" + s + "`")
        else:
            self.pad(go_quote(s, self.plus))

    def fmt_sx(self, s: str, upper: bool) -> None:
        b = s.encode()
        length = min(len(b), self.prec) if self.prec_present else len(b)
        width = 2 * length
        if width > 0:
            if self.space:
                if self.sharp:
                    width *= 2
                width += length - 1
            elif self.sharp:
                width += 2
        else:
            if self.wid_present:
                self.write_padding(self.wid)
            return
        if self.wid_present and self.wid > width and not self.minus:
            self.write_padding(self.wid - width)
        x = "X" if upper else "x"
        out = ["0" + x] if self.sharp else []
        for i in range(length):
            if self.space and i > 0:
                out.append(" ")
                if self.sharp:
                    out.append("0" + x)
            out.append(f"{b[i]:02X}" if upper else f"{b[i]:02x}")
        self.buf.append("".join(out))
        if self.wid_present and self.wid > width and self.minus:
            self.write_padding(self.wid - width)

    def print_string(self, s: str, verb: str) -> None:
        if verb == "v":
            self.fmt_q(s) if self.sharp_v else self.pad(self.trunc(s))
        elif verb == "s":
            self.pad(self.trunc(s))
        elif verb in "xX":
            self.fmt_sx(s, verb == "X")
        elif verb == "q":
            self.fmt_q(s)
        else:
            self.bad_verb(verb, GoArg("string", s))

    # -- dispatch
    def print_arg(self, arg: GoArg, verb: str) -> None:
        if verb == "T":
            self.pad(self.trunc(arg.type_name))
            return
        if verb == "p":
            self.bad_verb(verb, arg)
            return
        if arg.kind == "int":
            self.print_int(int(arg.value), verb)
        elif arg.kind == "bigint":
            self.print_bigint(int(arg.value), verb)
        elif arg.kind == "float":
            self.print_float(float(arg.value), verb)
        else:
            self.print_string(str(arg.value), verb)

    def bad_verb(self, verb: str, arg: GoArg) -> None:
        self.buf.append(f"%!{verb}({arg.type_name}=")
        self.print_arg(arg, "v")
        self.buf.append(")")


def _rune(n: int) -> str:
    return chr(n) if 0 <= n <= 0x10FFFF and not 0xD800 <= n <= 0xDFFF else "\ufffd"


def _parsenum(s: str, i: int, end: int) -> tuple[int, bool, int]:
    num, isnum = 0, False
    while i < end and "0" <= s[i] <= "9":
        if num > _TOO_LARGE:
            return 0, False, end
        num = num * 10 + ord(s[i]) - 48
        isnum = True
        i += 1
    return num, isnum, i


def sprintf(fmt: str, args: list[GoArg]) -> str:
    p = _Printer(args)
    buf = p.buf
    end = len(fmt)
    arg_num = 0
    reordered = False
    i = 0

    def arg_number(arg_num: int, i: int) -> tuple[int, int, bool, bool]:
        """(argNum, i, found, good)."""
        nonlocal reordered
        if i >= end or fmt[i] != "[":
            return arg_num, i, False, True
        reordered = True
        close = fmt.find("]", i + 1)
        if end - i < 3 or close == -1:
            return arg_num, i + 1, False, False
        num, ok, newi = _parsenum(fmt, i + 1, close)
        if not ok or newi != close:
            return arg_num, close + 1, False, False
        index = num - 1
        if 0 <= index < len(args):
            return index, close + 1, True, True
        return arg_num, close + 1, True, False

    def int_from_arg(arg_num: int) -> tuple[int, bool, int]:
        if arg_num < len(args):
            a = args[arg_num]
            if a.kind == "int" and abs(int(a.value)) <= _TOO_LARGE:
                return int(a.value), True, arg_num + 1
            return 0, False, arg_num + 1
        return 0, False, arg_num

    while i < end:
        good = True
        lasti = i
        while i < end and fmt[i] != "%":
            i += 1
        if i > lasti:
            buf.append(fmt[lasti:i])
        if i >= end:
            break
        i += 1
        p.clear()
        while i < end:
            c = fmt[i]
            if c == "#":
                p.sharp = True
            elif c == "0":
                p.zero = not p.minus
            elif c == "+":
                p.plus = True
            elif c == "-":
                p.minus, p.zero = True, False
            elif c == " ":
                p.space = True
            else:
                break
            i += 1
        arg_num, i, after_index, ok = arg_number(arg_num, i)
        good = good and ok
        if i < end and fmt[i] == "*":
            i += 1
            p.wid, p.wid_present, arg_num = int_from_arg(arg_num)
            if not p.wid_present:
                buf.append("%!(BADWIDTH)")
            if p.wid < 0:
                p.wid, p.minus, p.zero = -p.wid, True, False
            after_index = False
        else:
            p.wid, p.wid_present, i = _parsenum(fmt, i, end)
            if after_index and p.wid_present:
                good = False
        if i + 1 < end and fmt[i] == ".":
            i += 1
            if after_index:
                good = False
            arg_num, i, after_index, ok = arg_number(arg_num, i)
            good = good and ok
            if i < end and fmt[i] == "*":
                i += 1
                p.prec, p.prec_present, arg_num = int_from_arg(arg_num)
                if p.prec < 0:
                    p.prec, p.prec_present = 0, False
                if not p.prec_present:
                    buf.append("%!(BADPREC)")
                after_index = False
            else:
                p.prec, p.prec_present, i = _parsenum(fmt, i, end)
                if not p.prec_present:
                    p.prec, p.prec_present = 0, True
        if not after_index:
            arg_num, i, after_index, ok = arg_number(arg_num, i)
            good = good and ok
        if i >= end:
            buf.append("%!(NOVERB)")
            break
        verb = fmt[i]
        i += 1
        if verb == "%":
            buf.append("%")
        elif not good:
            buf.append(f"%!{verb}(BADINDEX)")
        elif arg_num >= len(args):
            buf.append(f"%!{verb}(MISSING)")
        else:
            if verb == "v":
                p.sharp_v, p.sharp = p.sharp, False
                p.plus_v, p.plus = p.plus, False
            p.print_arg(args[arg_num], verb)
            arg_num += 1
    if not reordered and arg_num < len(args):
        p.clear()
        buf.append("%!(EXTRA ")
        for k, a in enumerate(args[arg_num:]):
            if k:
                buf.append(", ")
            buf.append(a.type_name + "=")
            p.print_arg(a, "v")
        buf.append(")")
    return "".join(buf)
