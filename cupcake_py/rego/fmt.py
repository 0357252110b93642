"""`cupcake fmt`: Rego source -> the same module in `opa fmt`'s canonical layout, comments kept.

The layout `opa fmt` gives a Rego v1 module: tabs; `package`, one blank line, the imports (their
groups as written), one blank line, then the rules one blank line apart, except rules written on
one line each with nothing between them, which stay together (`x := 1` / `y := 2`); a rule body as
an indented block, or `head if expr` when the rule was written so (one line, one expression, no braces);
one space around operators and after commas; `:=`, `if`, `contains` spelled out; runs of blank
lines collapsed to one; no trailing whitespace; one newline at the end. Every comment is kept
where it was: on its own line before the statement or body expression it preceded, or at the end
of the line it ended. METADATA blocks are comments and are kept as written.

What this formatter leaves as written (it does not guess at a layout `opa fmt` would choose): a
rule whose head or an expression spans several lines (a multi-line object, a call broken over
lines, a nested `every` block with comments inside), or with a comment inside an expression or an
`else` chain. Such a rule is copied byte for byte, so its layout is the author's.

In: the text and its file name. Out: the formatted text; `format_source(format_source(x)) ==
format_source(x)` and the module parsed from the output equals the one parsed from the input
(locations aside); both are checked on every call. Fails with RegoErrors (the input does not
parse) or FormatError (the output would not be the same module: a bug, reported, never written).
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass

from cupcake_py.errors import CupcakeError
from cupcake_py.rego import ast as A
from cupcake_py.rego import parse_module
from cupcake_py.rego.printer import INFIX_OPERATORS, Printer

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _infix(t: A.Term) -> bool:
    """A call written with an infix operator (`a + b`, `x == y`): what grouping parentheses hold."""
    return isinstance(t.value, A.Call) and len(t.value.args) == 2 and t.value.operator.dotted() in INFIX_OPERATORS


class FormatError(CupcakeError):
    pass


@dataclass
class _Stmt:
    kind: str  # package | import | rule
    start: int  # first source row (1-based)
    end: int  # last source row with code
    node: A.Package | A.Import | A.Rule


class _Source:
    def __init__(self, text: str, comments: list[A.Comment]) -> None:
        self.lines = text.split("\n")  # not splitlines: a \r inside a raw string is the string's
        if self.lines and self.lines[-1] == "":
            self.lines.pop()
        self.comment: dict[int, A.Comment] = {c.location.row: c for c in comments}

    def line(self, row: int) -> str:
        return self.lines[row - 1] if 0 < row <= len(self.lines) else ""

    def code(self, row: int) -> str:
        """The row without its comment, stripped."""
        line = self.line(row)
        c = self.comment.get(row)
        return (line[:c.location.col - 1] if c is not None else line).strip()

    def comment_text(self, row: int) -> str:
        c = self.comment[row]
        return "#" + c.text

    def last_code_row(self, start: int, stop: int) -> int:
        """The last row in [start, stop) with code (start when none)."""
        for row in range(stop - 1, start - 1, -1):
            if self.code(row):
                return row
        return start


class _Printer(Printer):
    """The module printer without METADATA regeneration (kept as the comments they are), writing
    a string that was written raw (`...`) raw again, as opa fmt does."""

    def __init__(self, src: _Source) -> None:
        super().__init__()
        self.src = src

    def term(self, t: A.Term, min_prec: int = 0) -> str:
        v = t.value
        if isinstance(v, A.String) and "`" not in v.value:
            line = self.src.line(t.location.row)
            if 0 < t.location.col <= len(line) and line[t.location.col - 1] == "`":
                return f"`{v.value}`"
        if _infix(t) and self._chain_below(t) < self._groups_before(t):
            return "(" + super().term(t, 0) + ")"  # parentheses the author wrote stay (opa fmt keeps them)
        return super().term(t, min_prec)

    def _groups_before(self, t: A.Term) -> int:
        """How many grouping `(` open right before the term (not a call's `f(`)."""
        line, i, n = self.src.line(t.location.row), t.location.col - 2, 0
        while i >= 0 and line[i] in " \t(":
            if line[i] == "(":
                j = i - 1
                if j >= 0 and (line[j].isalnum() or line[j] in "_)]."):
                    break  # f( ... : a call's parenthesis
                n += 1
            i -= 1
        return n

    @staticmethod
    def _chain_below(t: A.Term) -> int:
        """How many calls below `t` start at the same place (`(a + b) + c`: the outer call and `a + b`)."""
        n, cur = 0, t
        while isinstance(cur.value, A.Call) and _infix(cur):
            first = cur.value.args[0]
            if not _infix(first) or first.location != cur.location:
                break
            n, cur = n + 1, first
        return n

    def rule(self, r: A.Rule) -> str:
        return super().rule(dataclasses.replace(r, annotations=[]))

    def ref(self, r: A.Ref) -> str:
        """`x["a"]` stays bracketed when written so (opa fmt keeps `p["a"] := 1`), else `x.a`."""
        text = super().ref(r)
        if not any(isinstance(t.value, A.String) and self._bracketed(t) for t in r.terms[1:]):
            return text
        head = r.terms[0]
        out = [self.term(head, 9) if not isinstance(head.value, A.Var) else head.value.name]
        for t in r.terms[1:]:
            if isinstance(t.value, A.String) and not self._bracketed(t) and _IDENT.fullmatch(t.value.value):
                out.append("." + t.value.value)
            else:
                out.append("[" + self.term(t) + "]")
        return "".join(out)

    def _bracketed(self, t: A.Term) -> bool:
        line = self.src.line(t.location.row)
        col = t.location.col
        return col >= 2 and line[col - 2:col - 1] == "["

    def every(self, t: A.Every, depth: int) -> str:
        """An `every` written on one line stays as written (opa fmt keeps `every x in xs { p(x) }`)."""
        row = t.location.row
        code = self.src.code(row)
        end = code.rfind("}")
        rest = code[end + 1:]
        one_line = code.startswith("every ") and end > 0 and (not rest or rest.startswith(" with ")) and \
            all(e.location.row == row for e in t.body)
        if one_line and not self.inline:
            return code[:end + 1]
        return super().every(t, depth)


def _statements(m: A.Module, src: _Source) -> list[_Stmt]:
    nodes: list[tuple[str, A.Package | A.Import | A.Rule]] = [("package", m.package)]
    nodes += [("import", i) for i in m.imports] + [("rule", r) for r in m.rules]
    nodes.sort(key=lambda kn: (kn[1].location.row, kn[1].location.col))
    out: list[_Stmt] = []
    for i, (kind, node) in enumerate(nodes):
        start = node.location.row
        stop = nodes[i + 1][1].location.row if i + 1 < len(nodes) else len(src.lines) + 1
        if i + 1 < len(nodes) and stop == start:
            raise FormatError("two statements on one line")  # written as such: keep the file as is
        out.append(_Stmt(kind, start, src.last_code_row(start, stop), node))
    return out


def _with_trailing(text: str, src: _Source, row: int) -> str:
    return f"{text} {src.comment_text(row)}" if row in src.comment and src.code(row) else text


def _rule_lines(st: _Stmt, src: _Source, p: _Printer) -> list[str] | None:
    """The rule in canonical layout with its comments placed, or None: keep it as written."""
    r = st.node
    assert isinstance(r, A.Rule)
    canon = p.rule(r)
    trivial = canon.count("\n") == 0 and " if " not in canon  # no body written
    rows = range(st.start, st.end + 1)
    comments = [row for row in rows if row in src.comment]
    if st.start == st.end:  # one source line
        braces = " if {" in src.code(st.start) or src.code(st.start).endswith("if{")
        if not trivial and not braces and len(r.body) == 1 and r.else_ is None and "\n" not in p.expr(r.body[0], 0):
            head = canon[:canon.index(" if {")] if " if {" in canon else canon
            return [_with_trailing(f"{head} if {p.expr(r.body[0], 0)}", src, st.start)]
        if not comments or (comments == [st.start] and r.else_ is None):
            lines = canon.split("\n")
            return lines[:-1] + [_with_trailing(lines[-1], src, st.start)]
        return None
    if trivial or r.else_ is not None:  # no body, or an else chain, over several lines
        return None if comments or _multiline(r, src, st) else canon.split("\n")
    if _multiline(r, src, st):
        return None
    head_rows = [row for row in range(st.start, r.body[0].location.row) if src.code(row)]
    if head_rows != [st.start] or not src.code(st.start).endswith("{") or src.code(st.end) != "}":
        return None
    head = canon[:canon.index(" if {") + len(" if {")]
    out = [_with_trailing(head, src, st.start)]
    starts = [e.location.row for e in r.body] + [st.end]
    for i, e in enumerate(r.body):
        before = range(starts[i - 1] + 1 if i else st.start + 1, starts[i])
        out += _own_line_comments(src, before, p.ind, first=i == 0)
        text = p.expr(e, 1, i == 0)
        if i + 1 < len(r.body) and p.expr(r.body[i + 1], 1).startswith("-"):
            text += ";"
        out.append(_with_trailing(p.ind + text, src, starts[i]))
    out += _own_line_comments(src, range(starts[-2] + 1, st.end), p.ind, last=True)
    out.append(_with_trailing("}", src, st.end))
    return out


def _multiline(r: A.Rule, src: _Source, st: _Stmt) -> bool:
    """Whether the head or a body expression spans several source lines."""
    if r.else_ is not None:
        return True
    body_rows = [e.location.row for e in r.body]
    if not body_rows or body_rows[0] <= st.start:
        return st.end != st.start
    if len(set(body_rows)) != len(body_rows):
        return True  # several expressions on one line (`a; b`): laid out one a line, fine
    bounds = body_rows + [st.end]
    for i in range(len(body_rows)):
        code_rows = [row for row in range(bounds[i], bounds[i + 1]) if src.code(row)]
        if len(code_rows) > 1:
            return True
    return False


def _own_line_comments(src: _Source, rows: range, indent: str, *, first: bool = False,
                       last: bool = False) -> list[str]:
    """The comment lines and blank lines (runs collapsed to one) between two lines of a body; no
    blank line right after the opening brace (`first`) or right before the closing one (`last`)."""
    out: list[str] = []
    for row in rows:
        if row in src.comment and not src.code(row):
            out.append(indent + src.comment_text(row))
        elif not src.line(row).strip() and (out[-1:] != [""]) and not (first and not out):
            out.append("")
    while last and out and out[-1] == "":
        out.pop()
    return out


def _gap(src: _Source, start: int, stop: int) -> list[str]:
    """The comment lines between two statements, blank lines collapsed to one, none at the ends."""
    out: list[str] = []
    for row in range(start, stop):
        if row in src.comment and not src.code(row):
            out.append(src.line(row).strip())
        elif not src.line(row).strip() and out and out[-1] != "":
            out.append("")
    while out and out[-1] == "":
        out.pop()
    return out


def _blank_before(src: _Source, stop: int) -> bool:
    return stop > 1 and not src.line(stop - 1).strip()


def _format(text: str, filename: str) -> str:
    m = parse_module(text, filename)
    src = _Source(text, m.comments)
    p = _Printer(src)
    stmts = _statements(m, src)
    out: list[str] = []
    prev: _Stmt | None = None
    prev_one_line = False
    for st in stmts:
        gap_start = prev.end + 1 if prev is not None else 1
        leading = _gap(src, gap_start, st.start)
        if st.kind == "rule":
            lines = _rule_lines(st, src, p)
            if lines is None:
                lines = [src.line(row) for row in range(st.start, st.end + 1)]  # byte for byte
        elif st.kind == "package":
            assert isinstance(st.node, A.Package)
            if st.start != st.end:
                return text  # a package path over several lines: leave the file to its author
            lines = [_with_trailing("package " + p.package_path(st.node.path), src, st.start)]
        else:
            assert isinstance(st.node, A.Import)
            if st.start != st.end or not isinstance(st.node.path.value, A.Ref):
                return text
            alias = f" as {st.node.alias}" if st.node.alias else ""
            lines = [_with_trailing(f"import {p.ref(st.node.path.value)}{alias}", src, st.start)]
        one_line = len(lines) == 1 and st.start == st.end
        if prev is not None:
            together = not leading and not _blank_before(src, st.start) and st.kind == prev.kind and \
                (st.kind == "import" or (st.kind == "rule" and prev_one_line and one_line))
            if not together:
                out.append("")
        if leading:
            out += leading
            if _blank_before(src, st.start):
                out.append("")
        out += lines
        prev, prev_one_line = st, one_line
    trailing = _gap(src, prev.end + 1 if prev is not None else 1, len(src.lines) + 1)
    if trailing:
        out += [""] + trailing
    return "\n".join(out).rstrip("\n") + "\n"


def _same(a: A.Module, b: A.Module) -> bool:
    return (a.package == b.package and a.imports == b.imports and a.rules == b.rules
            and [c.text.rstrip("\r") for c in a.comments] == [c.text.rstrip("\r") for c in b.comments])


def format_source(text: str, filename: str = "<stdin>") -> str:
    """`text` in canonical layout (see the module docstring). RegoErrors when it does not parse;
    FormatError when the result would not be the same module or not be stable."""
    before = parse_module(text, filename)
    lf = text.replace("\r\n", "\n")  # opa fmt writes LF line ends ...
    problem = ""
    for source in dict.fromkeys((lf, text)):  # ... unless a raw string holds a CRLF: then as written
        try:
            out = _format(source, filename)
        except FormatError as e:
            raise FormatError(f"{filename}: cannot format: {e}") from None
        if not _same(before, parse_module(out, filename)):
            problem = "formatting would change the module (a cupcake fmt bug); left as is"
        elif _format(out, filename) != out:
            problem = "formatting is not stable here (a cupcake fmt bug); left as is"
        else:
            return out
    raise FormatError(f"{filename}: {problem}")
