"""strings.render_template: Go's text/template over Rego values.

OPA hands the template variables to Go as JSON-like data (objects → maps, sets → slices,
numbers → ``json.Number``, a string type). This module implements text/template's
language on that data:

* text and ``{{pipeline}}`` actions with ``{{-``/``-}}`` trimming and ``{{/* */}}`` comments;
* pipelines: ``.`` / ``.a.b`` / ``$`` / ``$x.a`` / ``(pipe).a`` / literals (strings, raw
  strings, chars, numbers, ``true``/``false``/``nil``), commands chained with ``|``,
  variable declaration ``$x :=`` and assignment ``$x =``;
* ``if``/``else if``/``else``, ``range`` (slices, maps in key order, integers; ``$i, $v :=``;
  ``{{else}}``; ``break``/``continue``), ``with``/``else with``;
* functions: and or not len index slice print printf println eq ne lt le gt ge html js urlquery.

Numbers from the variables behave as Go's ``json.Number`` (a string kind: truthy when
non-empty, compared as strings, printed as written). A key missing from a map renders as
``<undefined>`` (OPA's WebAssembly behaviour); in strict mode it is an error, as with Go's
``missingkey=error``. ``null`` prints ``<no value>``.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from decimal import Decimal
from functools import partial
from typing import Any
from urllib.parse import quote_plus

from cupcake_py.host.builtins import BuiltinContext, builtin
from cupcake_py.host.builtins._errors import BuiltinError, want_obj, want_str
from cupcake_py.host.builtins._gofmt import GoArg, go_int
from cupcake_py.host.builtins._gofmt import sprintf as go_sprintf
from cupcake_py.host.builtins._values import FrozenObject, number_text, obj_items, sorted_values, thaw

_F = "strings.render_template"


class JsonNumber(str):
    """A number from the template variables: Go's json.Number (a string kind)."""


class _Missing:
    """The value of a key missing from a map."""

    def __repr__(self) -> str:
        return "<undefined>"


MISSING = _Missing()


class TemplateError(Exception):
    pass


def to_go(v: Any) -> Any:
    """Rego value → template data (dict/list/str/JsonNumber/bool/None)."""
    v = thaw(v) if isinstance(v, FrozenObject | tuple) else v
    if isinstance(v, bool) or v is None or isinstance(v, str):
        return v
    if isinstance(v, int | Decimal):
        return JsonNumber(number_text(v))
    if isinstance(v, list | tuple):
        return [to_go(x) for x in v]
    if isinstance(v, frozenset | set):
        return [to_go(x) for x in sorted_values(v)]
    if isinstance(v, dict | FrozenObject):
        return {(k if isinstance(k, str) else str(to_go(k))): to_go(x) for k, x in obj_items(v)}
    raise TypeError(f"not a Rego value: {type(v).__name__}")


# ------------------------------------------------------------------------------ printing


def go_text(v: Any, top: bool = True) -> str:
    """fmt.Sprint's rendering of template data."""
    if v is MISSING:
        return "<undefined>"
    if v is None:
        return "<no value>" if top else "<nil>"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, str):
        return str.__str__(v)
    if isinstance(v, float):
        return str(int(v)) if v.is_integer() and abs(v) < 1e21 else repr(v)
    if isinstance(v, int):
        return str(v)
    if isinstance(v, list):
        return "[" + " ".join(go_text(x, False) for x in v) + "]"
    if isinstance(v, dict):
        return "map[" + " ".join(f"{k}:{go_text(x, False)}" for k, x in sorted(v.items())) + "]"
    return str(v)


def truth(v: Any) -> bool:
    """text/template's isTrue: false, 0, nil, empty string/slice/map and missing are false."""
    if v is MISSING or v is None:
        return False
    if isinstance(v, bool):
        return v
    if isinstance(v, int | float):
        return v != 0
    if isinstance(v, str | list | dict):
        return len(v) > 0
    return True


# ------------------------------------------------------------------------------ lexing/parsing

_TOKEN = re.compile(
    r"""\s+|(?P<decl>:=)|(?P<assign>=)|(?P<punct>[|(),])
    |(?P<str>"(?:[^"\\\n]|\\.)*")|(?P<raw>`[^`]*`)|(?P<char>'(?:[^'\\\n]|\\.)+')
    |(?P<num>[+-]?(?:0[xX][0-9a-fA-F_]+|0[bB][01_]+|0[oO][0-7_]+|(?:\d[\d_]*\.?[\d_]*|\.\d[\d_]*)(?:[eE][+-]?\d+)?))
    |(?P<var>\$\w*)|(?P<field>(?:\.\w+)+|\.)|(?P<ident>[A-Za-z_]\w*)""",
    re.VERBOSE,
)
_KEYWORDS = {"if", "else", "end", "range", "with", "break", "continue", "define", "template", "block"}
_ESCAPES = {
    "a": "\a",
    "b": "\b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
    "\\": "\\",
    "'": "'",
    '"': '"',
}


def _unquote(body: str) -> str:
    out, i = [], 0
    while i < len(body):
        c = body[i]
        if c != "\\":
            out.append(c)
            i += 1
            continue
        e = body[i + 1]
        if e in _ESCAPES:
            out.append(_ESCAPES[e])
            i += 2
        elif e in "xuU01234567":
            n = {"x": 2, "u": 4, "U": 8}.get(e, 3)
            start = i + 1 if e.isdigit() else i + 2
            digits = body[start : start + n]
            try:
                out.append(chr(int(digits, 8 if e.isdigit() else 16)))
            except ValueError:
                raise TemplateError(f"invalid syntax: bad escape \\{e}{digits}") from None
            if len(digits) != n:
                raise TemplateError(f"invalid syntax: bad escape \\{e}{digits}")
            i = start + n
        else:
            raise TemplateError(f"invalid syntax: unknown escape \\{e}")
    return "".join(out)


def _number(text: str) -> int | float:
    t = text.replace("_", "")
    try:
        if re.fullmatch(r"[+-]?0[xXbBoO].*", t) or re.fullmatch(r"[+-]?\d+", t):
            return int(t, 0) if not re.fullmatch(r"[+-]?0\d+", t) else int(t, 8)
        return float(t)
    except ValueError:
        raise TemplateError(f"bad number syntax: {text!r}") from None


@dataclass
class Tok:
    kind: str
    text: str


@dataclass
class Pipe:
    decl: list[str]
    assign: bool
    cmds: list[list[Any]]
    pos: str = ""


@dataclass
class Lit:
    value: Any


@dataclass
class Field:
    base: Any  # None = dot, str = variable name, Pipe = parenthesised pipeline
    names: list[str]
    text: str = ""


@dataclass
class Func:
    name: str


@dataclass
class Block:
    kind: str  # "if" | "range" | "with"
    pipe: Pipe
    body: list[Any] = field(default_factory=list)
    else_: list[Any] = field(default_factory=list)


@dataclass
class Action:
    pipe: Pipe


_FUNCS: set[str] = set()  # filled below
_BREAK, _CONTINUE = object(), object()


def _lex_action(text: str) -> list[Tok]:
    toks, i = [], 0
    while i < len(text):
        m = _TOKEN.match(text, i)
        if m is None:
            raise TemplateError(f"unexpected {text[i]!r} in command")
        i = m.end()
        kind = m.lastgroup
        if kind is not None:
            toks.append(Tok(kind, m.group()))
    return toks


class _Parser:
    def __init__(self, source: str) -> None:
        self.items = list(self._split(source))
        self.i = 0

    @staticmethod
    def _split(src: str) -> Iterator[tuple[str, str, int]]:
        """(kind, text, line): "text" chunks and "action" bodies, trim markers applied."""
        pos, line, trim_next = 0, 1, False
        while True:
            start = src.find("{{", pos)
            chunk = src[pos:] if start < 0 else src[pos:start]
            if trim_next:
                chunk = chunk.lstrip(" \t\r\n")
            if start < 0:
                if chunk:
                    yield "text", chunk, line
                return
            body_start = start + 2
            if src.startswith("- ", body_start) or src[body_start : body_start + 2] in ("-\t", "-\n", "-\r"):
                chunk = chunk.rstrip(" \t\r\n")
                body_start += 2
            if chunk:
                yield "text", chunk, line
            line += src.count("\n", pos, start)
            end = src.find("}}", body_start)
            if src.startswith("/*", body_start):
                end = src.find("*/", body_start)
                end = src.find("}}", end) if end >= 0 else -1
            if end < 0:
                raise TemplateError(f"template: :{line}: unclosed action")
            body = src[body_start:end]
            trim_next = body.endswith(" -") or body.endswith("\t-") or body.endswith("\n-")
            if trim_next:
                body = body[:-2]
            if not body.strip().startswith("/*"):
                yield "action", body, line
            line += src.count("\n", start, end)
            pos = end + 2

    def parse(self) -> list[Any]:
        nodes, stop = self._list()
        if stop is not None:
            raise TemplateError(f"unexpected {{{{{stop[0]}}}}}")
        return nodes

    def _list(self) -> tuple[list[Any], tuple[str, list[Tok], int] | None]:
        """Nodes up to an {{end}}/{{else ...}} (returned as the stop marker) or the end."""
        out: list[Any] = []
        while self.i < len(self.items):
            kind, text, line = self.items[self.i]
            self.i += 1
            if kind == "text":
                out.append(text)
                continue
            toks = _lex_action(text)
            if not toks:
                raise TemplateError(f"template: :{line}: missing value for command")
            head = toks[0].text if toks[0].kind == "ident" else ""
            if head in ("end", "else"):
                return out, (head, toks[1:], line)
            if head in ("if", "range", "with"):
                out.append(self._block(head, toks[1:], line))
            elif head in ("break", "continue"):
                out.append(_BREAK if head == "break" else _CONTINUE)
            elif head in ("define", "template", "block"):
                raise TemplateError(f"template: :{line}: {{{{{head}}}}} is not supported")
            else:
                out.append(Action(_parse_pipe(toks, line)))
        return out, None

    def _block(self, kind: str, toks: list[Tok], line: int) -> Block:
        blk = Block(kind, _parse_pipe(toks, line))
        blk.body, stop = self._list()
        if stop is None:
            raise TemplateError(f"template: :{line}: unexpected EOF")
        if stop[0] == "else":
            rest = stop[1]
            if rest and rest[0].kind == "ident" and rest[0].text in ("if", "with") and kind != "range":
                blk.else_ = [self._block(rest[0].text, rest[1:], stop[2])]
                return blk
            blk.else_, stop = self._list()
            if stop is None or stop[0] != "end":
                raise TemplateError(f"template: :{line}: expected end; found {stop[0] if stop else 'EOF'}")
        return blk


def _parse_pipe(toks: list[Tok], line: int) -> Pipe:
    decl: list[str] = []
    assign = False
    for n in (1, 2):  # `$x :=`, `$i, $v :=`
        k = 2 * n - 1
        if len(toks) > k and all(t.kind == "var" for t in toks[:k:2]) and toks[k].kind in ("decl", "assign"):
            if n == 2 and toks[1].text != ",":
                continue
            decl, assign, toks = [t.text for t in toks[:k:2]], toks[k].kind == "assign", toks[k + 1 :]
            break
    cmds: list[list[Any]] = [[]]
    for arg in _group(toks):
        if arg == "|":
            cmds.append([])
        else:
            cmds[-1].append(arg)
    if not all(cmds):
        raise TemplateError(f"template: :{line}: missing command")
    return Pipe(decl, assign, cmds, f":{line}")


def _group(toks: list[Tok]) -> Iterator[Any]:
    """Arguments of a pipeline: Lit/Field/Func/"|", parentheses parsed recursively."""
    i = 0
    while i < len(toks):
        t = toks[i]
        i += 1
        if t.kind == "punct" and t.text == "|":
            yield "|"
        elif t.kind == "punct" and t.text == "(":
            depth, j = 1, i
            while j < len(toks) and depth:
                depth += {"(": 1, ")": -1}.get(toks[j].text, 0) if toks[j].kind == "punct" else 0
                j += 1
            if depth:
                raise TemplateError("unclosed left paren")
            inner = _parse_pipe(toks[i : j - 1], 0)
            i = j
            names: list[str] = []
            if i < len(toks) and toks[i].kind == "field" and toks[i].text != ".":
                names = toks[i].text[1:].split(".")
                i += 1
            yield Field(inner, names, "(...)")
        elif t.kind == "str":
            yield Lit(_unquote(t.text[1:-1]))
        elif t.kind == "raw":
            yield Lit(t.text[1:-1])
        elif t.kind == "char":
            ch = _unquote(t.text[1:-1])
            if len(ch) != 1:
                raise TemplateError(f"malformed character constant: {t.text}")
            yield Lit(ord(ch))
        elif t.kind == "num":
            yield Lit(_number(t.text))
        elif t.kind == "field":
            yield Field(None, [] if t.text == "." else t.text[1:].split("."), t.text)
        elif t.kind == "var":
            names = []
            if i < len(toks) and toks[i].kind == "field" and toks[i].text != ".":
                names = toks[i].text[1:].split(".")
                i += 1
            yield Field(t.text, names, t.text)
        elif t.kind == "ident":
            if t.text in ("true", "false"):
                yield Lit(t.text == "true")
            elif t.text == "nil":
                yield Lit(None)
            elif t.text in _FUNCS:
                yield Func(t.text)
            else:
                raise TemplateError(f'function "{t.text}" not defined')
        else:
            raise TemplateError(f"unexpected {t.text!r} in command")


# ------------------------------------------------------------------------------ execution


class _Break(Exception):
    pass


class _Continue(Exception):
    pass


@dataclass
class _State:
    strict: bool
    vars: list[tuple[str, Any]]
    out: list[str] = field(default_factory=list)

    def lookup(self, name: str) -> Any:
        for n, v in reversed(self.vars):
            if n == name:
                return v
        raise TemplateError(f"undefined variable: {name}")

    def set(self, name: str, value: Any) -> None:
        for i in range(len(self.vars) - 1, -1, -1):
            if self.vars[i][0] == name:
                self.vars[i] = (name, value)
                return
        raise TemplateError(f"undefined variable: {name}")


def _field(st: _State, v: Any, names: list[str], text: str) -> Any:
    for name in names:
        if isinstance(v, dict):
            if name not in v:
                if st.strict:
                    raise TemplateError(f'executing "" at <{text}>: map has no entry for key "{name}"')
                v = MISSING
                continue
            v = v[name]
        elif v is None or v is MISSING:
            raise TemplateError(f'executing "" at <{text}>: nil pointer evaluating interface {{}}.{name}')
        else:
            raise TemplateError(
                f'executing "" at <{text}>: can\'t evaluate field {name} in type {_go_type(v)}'
            )
    return v


def _go_type(v: Any) -> str:
    if isinstance(v, JsonNumber):
        return "json.Number"
    return {
        bool: "bool",
        str: "string",
        int: "int",
        float: "float64",
        list: "[]interface {}",
        dict: "map[string]interface {}",
    }.get(type(v), "interface {}")


def _arg(st: _State, dot: Any, a: Any) -> Any:
    if isinstance(a, Lit):
        return a.value
    if isinstance(a, Field):
        if a.base is None:
            base = dot
        elif isinstance(a.base, Pipe):
            base = _pipe(st, dot, a.base)
        else:
            base = st.lookup(a.base)
        return _field(st, base, a.names, a.text)
    if isinstance(a, Func):
        return _call(st, dot, a.name, [], None)
    raise TemplateError(f"can't evaluate {a!r}")


def _pipe(st: _State, dot: Any, p: Pipe) -> Any:
    value: Any = None
    for i, cmd in enumerate(p.cmds):
        head = cmd[0]
        if isinstance(head, Func):
            value = _call(st, dot, head.name, cmd[1:], value if i > 0 else _NOARG)
        else:
            if len(cmd) > 1 or i > 0:
                raise TemplateError(f"can't give argument to non-function {getattr(head, 'text', head)}")
            value = _arg(st, dot, head)
    if len(p.decl) == 1:  # `$x :=` / `$x =`; `$i, $v :=` only appears in range (handled there)
        if p.assign:
            st.set(p.decl[0], value)
        else:
            st.vars.append((p.decl[0], value))
    return value


_NOARG = object()


def _call(st: _State, dot: Any, name: str, args: list[Any], final: Any) -> Any:
    if name in ("and", "or"):  # short-circuit: evaluate lazily
        thunks: list[Callable[[], Any]] = [partial(_arg, st, dot, a) for a in args]
        if final is not _NOARG:
            thunks.append(lambda: final)
        if not thunks:
            raise TemplateError(f"wrong number of args for {name}: want at least 1 got 0")
        v: Any = None
        for th in thunks:
            v = th()
            if truth(v) != (name == "and"):
                return v
        return v
    vals = [_arg(st, dot, a) for a in args]
    if final is not _NOARG:
        vals.append(final)
    return _BUILTINS[name](vals)


def _cmp_key(v: Any) -> tuple[str, Any]:
    if v is MISSING or v is None:
        raise TemplateError("invalid type for comparison")
    if isinstance(v, bool):
        return "bool", v
    if isinstance(v, str):
        return "string", str.__str__(v)
    if isinstance(v, int | float):
        return ("int" if isinstance(v, int) else "float"), v
    raise TemplateError("invalid type for comparison")


def _eq(vals: list[Any]) -> bool:
    if len(vals) < 2:
        raise TemplateError("missing argument for comparison")
    k0, a = _cmp_key(vals[0])
    for other in vals[1:]:
        k1, b = _cmp_key(other)
        if k0 != k1 and {k0, k1} != {"int", "float"}:
            raise TemplateError("incompatible types for comparison")
        if a == b:
            return True
    return False


def _lt(vals: list[Any]) -> bool:
    if len(vals) != 2:
        raise TemplateError(f"wrong number of args: want 2 got {len(vals)}")
    (k0, a), (k1, b) = _cmp_key(vals[0]), _cmp_key(vals[1])
    if k0 == "bool" or k1 == "bool":
        raise TemplateError("invalid type for comparison")
    if k0 != k1 and {k0, k1} != {"int", "float"}:
        raise TemplateError("incompatible types for comparison")
    return bool(a < b)


def _sprint(vals: list[Any], spaces: bool) -> str:
    out: list[str] = []
    for i, v in enumerate(vals):
        is_str = isinstance(v, str)
        if i and (spaces or not (is_str or isinstance(vals[i - 1], str))):
            out.append(" ")
        out.append(go_text(v, top=False) if v is not None else "<nil>")
    return "".join(out)


def _go_arg(v: Any) -> GoArg:
    if isinstance(v, bool):
        return GoArg("string", "true" if v else "false")
    if isinstance(v, int):
        return go_int(v)
    if isinstance(v, float):
        return GoArg("float", v)
    return GoArg("string", go_text(v, top=False))


def _index(vals: list[Any]) -> Any:
    if not vals:
        raise TemplateError("index of untyped nil")
    v = vals[0]
    for k in vals[1:]:
        if isinstance(v, dict):
            v = v.get(k, None) if isinstance(k, str) else _fail("value has type int; should be string")
        elif isinstance(v, list | str):
            if not isinstance(k, int) or isinstance(k, bool):
                raise TemplateError("cannot index slice/array with non-integer type")
            if not 0 <= k < len(v):
                raise TemplateError(f"error calling index: index out of range: {k}")
            v = v[k] if isinstance(v, list) else v.encode()[k]
        else:
            raise TemplateError(f"can't index item of type {_go_type(v)}")
    return v


def _slice(vals: list[Any]) -> Any:
    v, idx = vals[0], vals[1:]
    if not isinstance(v, list | str) or len(idx) > 2 or not all(isinstance(i, int) for i in idx):
        raise TemplateError("error calling slice: can't slice item")
    lo = idx[0] if idx else 0
    hi = idx[1] if len(idx) > 1 else len(v)
    if not 0 <= lo <= hi <= len(v):
        raise TemplateError(f"error calling slice: index out of range: {hi}")
    return v[lo:hi]


def _fail(msg: str) -> Any:
    raise TemplateError(msg)


def _length(v: Any) -> int:
    if isinstance(v, str):
        return len(str.__str__(v).encode())
    if isinstance(v, list | dict):
        return len(v)
    raise TemplateError(f"error calling len: len of type {_go_type(v)}")


_JS_ESC = {
    "\\": "\\\\",
    "'": "\\'",
    '"': '\\"',
    "<": "\\u003C",
    ">": "\\u003E",
    "&": "\\u0026",
    "=": "\\u003D",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
}

_BUILTINS: dict[str, Callable[[list[Any]], Any]] = {
    "not": lambda vs: not truth(vs[0]) if len(vs) == 1 else _fail("wrong number of args for not"),
    "len": lambda vs: _length(vs[0]) if len(vs) == 1 else _fail("wrong number of args for len"),
    "index": _index,
    "slice": _slice,
    "print": lambda vs: _sprint(vs, False),
    "println": lambda vs: _sprint(vs, True) + "\n",
    "printf": lambda vs: (
        go_sprintf(str(vs[0]), [_go_arg(v) for v in vs[1:]]) if vs else _fail("missing format")
    ),
    "eq": _eq,
    "ne": lambda vs: not _eq(vs) if len(vs) == 2 else _fail("wrong number of args for ne"),
    "lt": _lt,
    "le": lambda vs: _lt(vs) or _eq(vs),
    "gt": lambda vs: not (_lt(vs) or _eq(vs)),
    "ge": lambda vs: not _lt(vs),
    "html": lambda vs: html.escape(_sprint(vs, False)).replace("&#x27;", "&#39;").replace("&quot;", "&#34;"),
    "js": lambda vs: "".join(
        _JS_ESC.get(c, c if c.isprintable() else f"\\u{ord(c):04X}") for c in _sprint(vs, False)
    ),
    "urlquery": lambda vs: quote_plus(_sprint(vs, False), safe=""),
}
_FUNCS.update(_BUILTINS, {"and", "or"})


def _run(st: _State, dot: Any, nodes: list[Any]) -> None:
    for n in nodes:
        if isinstance(n, str):
            st.out.append(n)
        elif n is _BREAK or n is _CONTINUE:
            raise _Break() if n is _BREAK else _Continue()
        elif isinstance(n, Action):
            v = _pipe(st, dot, n.pipe)
            if not n.pipe.decl:
                st.out.append(go_text(v))
        else:
            mark = len(st.vars)
            try:
                _run_block(st, dot, n)
            finally:
                del st.vars[mark:]


def _run_block(st: _State, dot: Any, b: Block) -> None:
    if b.kind != "range":
        v = _pipe(st, dot, b.pipe)
        if truth(v):
            _run(st, v if b.kind == "with" else dot, b.body)
        else:
            _run(st, dot, b.else_)
        return
    decl, b.pipe.decl = b.pipe.decl, []
    try:
        v = _pipe(st, dot, b.pipe)
    finally:
        b.pipe.decl = decl
    if isinstance(v, dict):
        items: list[tuple[Any, Any]] = sorted(v.items())
    elif isinstance(v, list):
        items = list(enumerate(v))
    elif isinstance(v, int) and not isinstance(v, bool):
        items = [(i, i) for i in range(v)]
    elif v is None or v is MISSING:
        items = []
    else:
        raise TemplateError(f"range can't iterate over {go_text(v)}")
    if not items:
        _run(st, dot, b.else_)
        return
    for k, x in items:
        mark = len(st.vars)
        if len(decl) == 2:
            st.vars += [(decl[0], k), (decl[1], x)]
        elif decl:
            st.vars.append((decl[0], x))
        try:
            _run(st, x, b.body)
        except _Continue:
            pass
        except _Break:
            break
        finally:
            del st.vars[mark:]


def render(template: str, data: Any, strict: bool = False) -> str:
    """Execute ``template`` on template data (see ``to_go``); raises TemplateError."""
    nodes = _Parser(template).parse()
    st = _State(strict, [("$", data)])
    try:
        _run(st, data, nodes)
    except (_Break, _Continue):
        raise TemplateError("{{break}}/{{continue}} outside {{range}}") from None
    return "".join(st.out)


@builtin("strings.render_template")
def render_template(ctx: BuiltinContext, template: Any, variables: Any) -> str:
    text = want_str(_F, 1, template)
    data = to_go(want_obj(_F, 2, variables))
    try:
        return render(text, data, ctx.strict)
    except TemplateError as e:
        msg = str(e)
        raise BuiltinError(f"{_F}: {msg if msg.startswith('template:') else 'template: ' + msg}") from None
    except RecursionError:
        raise BuiltinError(f"{_F}: template: nesting too deep") from None
