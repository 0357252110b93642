"""Recursive-descent parser for Rego v1 (OPA 1.x syntax) producing `cupcake_py.rego.ast`.

Precedence, lowest first (as OPA's grammar): `:=`/`=` (expression level) < `in` <
`== != < <= > >=` < `|` < `&` < `+ -` < `* / %` < unary minus / terms. All binary
operators are left-associative. `.x`, `[x]` (refs) bind only when written without
whitespace before them. Comprehension heads are plain terms (`[x | ...]`), as in OPA.

As in OPA, the key-value membership `k, v in xs` is read wherever a term starts an
expression, a parenthesised term, a ref bracket, a rule value or `contains` key, an `else`
value or a `with` value; list items (arrays, sets, objects, call arguments) take the plain
`x in xs` only. After a rule's first `if`, a `{` is first read as one literal (an object,
a comprehension, ...) and only a bare set term falls back to a `{ body }`. A function head
with neither value nor body (`f("x")`) is a function that is true.

Errors never escape as anything but RegoError / RegoErrors: a statement-level error is
recorded, the parser skips to the next line starting in column 1, and goes on (up to
MAX_ERRORS errors per file).
"""

from __future__ import annotations

from collections.abc import Callable

from cupcake_py.core.deep_stack import recursion_limit
from cupcake_py.core.errors import Location
from cupcake_py.rego import ast as A
from cupcake_py.rego.errors import MAX_ERRORS, PARSE, RegoError, RegoErrors
from cupcake_py.rego.lexer import EOF, IDENT, NUM, RAW, STR, TMPL, Tokens, decode_string, tokenize
from cupcake_py.rego.parse_nodes import (
    TOKEN_NAMES,
    call_term,
    default_rule_problem,
    number_problem,
    op_ref,
    template_hole_problem,
    true_body,
    value_name,
)

KEYWORDS = frozenset(
    {"as", "contains", "default", "else", "every", "false", "if", "import", "in", "not", "null",
     "package", "some", "true", "with"}
)
# binary operator -> precedence (higher binds tighter); `in` and `:=`/`=` are handled apart.
BINARY_PRECEDENCE: dict[str, int] = {
    "==": 1, "!=": 1, "<": 1, "<=": 1, ">": 1, ">=": 1, "|": 2, "&": 3, "+": 4, "-": 4, "*": 5, "/": 5,
    "%": 5,
}
# Keywords OPA reads as a plain name wherever a term is expected (`contains(s, t)`,
# `x with contains as mock`): only a rule head gives `contains` its keyword meaning.
TERM_KEYWORDS = frozenset({"contains"})
IMPORT_ROOTS = frozenset({"data", "input", "future", "rego"})
FUTURE_KEYWORDS = frozenset({"in", "every", "if", "contains"})
V0_HINT = " (Rego v1; for Rego written for OPA 0.x: --v0-compatible, or rego_version 0 in the rulebook or .manifest)"
TYPE_CHECKING = False
if TYPE_CHECKING:  # (typing stays off a first `cupcake test` run's start-up)
    from typing import NoReturn, TypeVar

    T = TypeVar("T")
_NO_REF_POSTFIX = (A.Null, A.Boolean, A.Number, A.String, A.TemplateString)


def deepcopy(x: T) -> T:
    """copy.deepcopy, imported when first needed (`else` chains, chained bodies)."""
    from copy import deepcopy as copy_deep

    return copy_deep(x)


# Terms and bodies nested deeper than this are a parse error (OPA's parser has such a limit too,
# far higher; real policies stay below a few dozen). Every stage after the parser (compiler,
# planner, code generator, host) handles this depth: tests/rego/test_deep_nesting.py.
MAX_NESTING = 1000
NESTED_TOO_DEEPLY = f"expression nested too deeply (more than {MAX_NESTING} levels)"
# Operands of one chain of binary operators (`a + b + ...`, a term as deep as it is long): OPA
# compiles 10000; beyond this, a function needs more WASM locals than wasmtime accepts.
MAX_OPERANDS = 12_000
TOO_MANY_OPERANDS = f"too many operands in one chain of operators (more than {MAX_OPERANDS})"
# Python frames the parser may use: a nesting level takes about 8 (term, operators, list).
_RECURSION = 12 * MAX_NESTING + 2000


class _Bail(Exception):
    """Internal: abandon the current statement (the error is already recorded)."""


class _TooDeep(_Bail):
    """Internal: past MAX_NESTING; speculative parses do not retry another reading."""


class Parser:
    def __init__(self, toks: Tokens, rego_version: str = "v1") -> None:
        self.t = toks
        # v0 (OPA's --v0-compatible): `if`, `contains`, `in`, `every` are keywords only once a
        # `future.keywords` import names them; `import rego.v1` makes the module v1.
        self.v0 = rego_version == "v0"
        self.keywords = KEYWORDS - FUTURE_KEYWORDS if self.v0 else KEYWORDS
        self.k = toks.kinds
        self.x = toks.texts
        self.p = toks.pos
        self.nl = toks.nl
        self.ws = toks.ws
        self.i = 0
        self.speculating = False
        self.rule_start = 0
        self.truncated = False
        self.depth = 0
        self.errors: list[RegoError] = list(toks.errors)

    # ------------------------------------------------------------------ helpers

    def loc(self, i: int | None = None) -> Location:
        return self.t.location(self.p[self.i if i is None else i])

    def describe(self, i: int) -> str:
        kind = self.k[i]
        if kind == EOF:
            return "end of input"
        if kind == IDENT:
            return f"keyword `{self.x[i]}`" if self.x[i] in self.keywords else f"identifier `{self.x[i]}`"
        if kind in (NUM, STR, RAW, TMPL):
            return {NUM: "number", STR: "string", RAW: "raw string", TMPL: "template string"}[kind]
        return f"`{kind}`"

    def fail(self, msg: str, at: int | Location | None = None) -> NoReturn:
        self.errors.append(RegoError(PARSE, msg, at if isinstance(at, Location) else self.loc(at)))
        raise _Bail

    def unexpected(self, what: str) -> NoReturn:
        self.fail(f"unexpected {self.describe(self.i)}: expected {what}")

    def expect(self, kind: str, what: str) -> int:
        i = self.i
        if self.k[i] != kind:
            self.unexpected(what)
        self.i = i + 1
        return i

    def kw(self, word: str) -> bool:
        """`word` used as a keyword (not as the head of a ref or call)."""
        return (self.k[self.i] == IDENT and self.x[self.i] == word and word in self.keywords
                and not self.ref_follows(self.i))

    def ref_follows(self, i: int) -> bool:
        """A `.`, `[` or `(` written right after token i: a keyword there is a plain name
        (`input.if`, `not.foo := 1`, `contains(s, t)`)."""
        return self.k[i + 1] in (".", "[", "(") and not self.ws[i + 1]

    def expect_kw(self, word: str, what: str) -> None:
        if not self.kw(word):
            self.unexpected(what)
        self.i += 1

    def at_line_start(self, i: int) -> bool:
        pos = self.p[i]
        return pos == 0 or self.t.src[pos - 1] == "\n"

    # ------------------------------------------------------------------ module

    def parse_module(self) -> A.Module:
        with recursion_limit(_RECURSION):
            return self._parse_module()

    def _parse_module(self) -> A.Module:
        comments = [A.Comment(text, self.t.location(pos)) for pos, text in self.t.comments]
        start = self.loc()
        try:
            if not self.kw("package"):
                self.unexpected("`package` (a module starts with `package <path>`)")
            package = self.parse_package()
        except _Bail:
            raise_errors(self.errors)
        module = A.Module(package, comments=comments, location=start)
        while self.k[self.i] != EOF and len(self.errors) < MAX_ERRORS:
            begin = self.i
            try:
                if self.kw("import"):  # OPA accepts imports anywhere at the top level
                    module.imports.append(self.parse_import())
                elif self.kw("package"):
                    self.fail("a module has exactly one `package` declaration")
                else:
                    rule = self.parse_rule()
                    module.rules.append(rule)
                    module.rules.extend(self.chained_bodies(rule))
                self.end_statement()
            except _Bail:
                self.recover(begin)
            except RecursionError:  # (MAX_NESTING comes first; kept as a safety net)
                self.errors.append(RegoError(PARSE, NESTED_TOO_DEEPLY, self.loc()))
                self.depth = 0
                self.recover(begin)
        self.truncated = self.k[self.i] != EOF
        module.rego_version = "v0" if self.v0 else "v1"
        return module

    def end_statement(self) -> None:
        if self.k[self.i] == ";":
            self.i += 1
        elif self.k[self.i] != EOF and not self.nl[self.i]:
            self.unexpected("a newline before the next statement")

    def recover(self, begin: int) -> None:
        i = self.i
        if self.k[i] != EOF and (i == begin or not (self.k[i] == IDENT and self.nl[i] and self.at_line_start(i))):
            i += 1  # skip the offending token unless it plausibly starts the next rule
        k = self.k
        while k[i] != EOF and not (self.nl[i] and self.at_line_start(i)):
            i += 1
        self.i = i

    def parse_simple_ref(self, what: str) -> list[A.Term]:
        """ident (`.ident` | `["str"]`)* -- package and import paths."""
        if self.k[self.i] in (STR, RAW, NUM, TMPL):
            self.fail(f"unexpected {TOKEN_NAMES[self.k[self.i]]} token")
        i = self.expect(IDENT, what)
        return self.parse_ref_suffixes(i, string_keys=True)

    def parse_ref_suffixes(self, i: int, string_keys: bool) -> list[A.Term]:
        """The name at token `i` and the `.ident` / `[term]` suffixes written right after it;
        `string_keys`: a bracketed key must be a string (package and import paths)."""
        terms = [A.Term(A.Var(self.x[i]), self.loc(i))]
        while not self.ws[self.i] and self.k[self.i] in (".", "["):
            dot = self.k[self.i] == "."
            self.i += 1
            if dot:
                j = self.expect(IDENT, "a name after `.`")
                terms.append(A.Term(A.String(self.x[j]), self.loc(j)))
                continue
            j = self.i
            t = self.parse_in(True)
            if string_keys and not isinstance(t.value, A.String):
                self.fail(f"unexpected {value_name(t.value)} token: expecting string", j)
            terms.append(t)
            self.expect("]", "`]`")
        return terms

    def parse_package(self) -> A.Package:
        loc = self.loc()
        self.i += 1
        terms = self.parse_simple_ref("a package path (e.g. `package authz`)")
        head = terms[0].value
        assert isinstance(head, A.Var)
        if head.name in self.keywords:
            self.fail(f"keyword `{head.name}` cannot start a package path", self.i - len(terms))
        path = [A.Term(A.Var("data"), loc), A.Term(A.String(head.name), terms[0].location), *terms[1:]]
        self.end_statement()
        return A.Package(A.Ref(path), loc)

    def parse_import(self) -> A.Import:
        loc = self.loc()
        self.i += 1
        first = self.i
        terms = self.parse_simple_ref("an import path (e.g. `import data.lib`)")
        ref = A.Ref(terms)
        dotted = ref.dotted() or ""
        root = dotted.split(".")[0]
        if root not in IMPORT_ROOTS:
            self.fail(f"unexpected import path, must begin with one of: {{data, future, input, rego}}, got: {root}",
                      first)
        if root == "rego" and dotted != "rego.v1":
            self.fail(f"invalid import `{dotted}`: the only `rego` import is `rego.v1`", first)
        if root == "future":
            parts = dotted.split(".")
            if len(parts) < 2 or parts[1] != "keywords" or len(parts) > 3 or (
                len(parts) == 3 and parts[2] not in FUTURE_KEYWORDS
            ):
                self.fail(f"invalid import `{dotted}`: use `future.keywords` or future.keywords.<in|every|"
                          "if|contains>", first)
        alias = None
        if self.kw("as"):
            self.i += 1
            if root in ("future", "rego"):
                self.fail(f"`{dotted}` imports cannot be aliased", self.i - 1)
            j = self.expect(IDENT, "an alias name after `as`")
            alias = self.x[j]
            if alias in self.keywords:
                self.fail(f"keyword `{alias}` cannot be an import alias", j)
        elif root != "future":
            last = terms[-1]
            name = last.value.value if isinstance(last.value, A.String) else dotted
            if name in self.keywords:
                self.fail(f"unexpected import path, must not end with a keyword, got: {name}", last.location)
        if self.v0 and root == "future":  # the keywords it names are keywords from here on
            parts = dotted.split(".")
            named = FUTURE_KEYWORDS if len(parts) == 2 else {parts[2]}
            # OPA's scanner: importing `every` also imports `in` (`every x in xs { ... }`)
            self.keywords = self.keywords | named | ({"in"} if "every" in named else set())
        elif self.v0 and dotted == "rego.v1":
            self.v0, self.keywords = False, KEYWORDS
        return A.Import(A.Term(ref, terms[0].location), alias, loc)

    # ------------------------------------------------------------------ rules

    def parse_rule(self) -> A.Rule:
        keywords = self.keywords  # (a v1 keyword met in a v0 file is a keyword for the rest of its rule)
        try:
            return self.parse_rule_text()
        finally:
            self.keywords = keywords

    def parse_rule_text(self) -> A.Rule:
        self.rule_start = self.i
        loc = self.loc()
        default = self.kw("default")
        if default:
            self.i += 1
        hloc = self.loc()
        if self.k[self.i] != IDENT or self.x[self.i] in self.keywords and not self.ref_follows(self.i):
            self.unexpected("a rule (e.g. `allow if { ... }`, `x := 1`, `deny contains msg if { ... }`)")
        ref = self.parse_head_ref()
        name = ref.dotted() or A.Ref(ref.terms[:1]).dotted() or ""
        head = A.Head(ref, location=hloc)
        if self.k[self.i] == "(" and not self.ws[self.i]:
            self.i += 1
            head.args = self.parse_list(")")  # `f()`: a function of no arguments, called as `f()`
        if self.v0 and self.k[self.i] == IDENT and self.x[self.i] in ("contains", "if") and not self.nl[self.i] \
                and self.x[self.i] not in self.keywords and not self.ref_follows(self.i):
            self.note(f"var cannot be used for rule name: `{self.x[self.i]}` is a keyword only in Rego v1 but this "
                      f"file is read as Rego v0 "
                      f"(--v0-compatible or rego_version 0): add `import rego.v1`, or read it as v1")
            self.keywords = KEYWORDS  # read the rest of the rule as written, so one error is reported for it
        if self.kw("contains"):
            if default or head.args is not None:
                self.fail("`contains` cannot be used with default rules or functions")
            self.i += 1
            head.key = self.parse_in(True)
        elif self.k[self.i] in (":=", "="):
            head.assign = self.k[self.i] == ":="
            self.i += 1
            head.value = self.parse_in(True)
        body: A.Body | None = None
        used_if = self.kw("if")
        if used_if:
            if default:
                self.fail("default rules cannot have a body")
            body = self.parse_if_body(brace_literal=True)
        elif self.k[self.i] == "{":
            if default:
                self.v0_error(head, name)
            if not self.v0:  # OPA reports it and reads the body on: no follow-on errors from the body
                self.v1_keywords_required(head)
            self.i += 1
            body = self.parse_body("}")  # v0: `p { ... }`, `p = x { ... }`, `f(x) { ... }`
        if (self.v0 or body is not None) and not default and head.key is None and head.value is None \
                and head.args is None and len(ref.terms) == 2 and not used_if:
            # v0: `p[x] { ... }` (and `p.a { ... }`) without `if` is a partial set rule, as OPA's
            # parser keeps it; with `if` it is the single-value rule `p[x] = true`
            head.key, head.ref = ref.terms[1], A.Ref(ref.terms[:1])
            ref = head.ref
        if default:
            problem = default_rule_problem(head)
            if problem:
                self.fail(f"illegal default rule ({problem})", loc)
        if head.key is None and head.value is None:
            if body is None and head.args is None:
                self.v0_error(head, name, bodiless=True)
            if body is None:  # `f(x)` alone: a function that is true (OPA: a rule from a call)
                self.check_bodiless_function(name, hloc)
            head.value = A.Term(A.Boolean(True), hloc)
        rule = A.Rule(head, body or true_body(hloc), default=default, location=loc)
        cur = rule
        if body is None and not default and self.kw("else"):
            self.fail("`else` must follow a rule body: write `p := 1 if { ... } else := 2`")
        while self.kw("else"):
            eloc = self.loc()
            if default:
                self.unexpected("a newline before the next statement (default rules cannot have `else`)")
            if head.key is not None:
                self.fail("else keyword cannot be used on multi-value rules")
            if any(not isinstance(t.value, A.String) for t in ref.terms[1:]):
                self.fail("else keyword cannot be used on rules with variables in head")
            self.i += 1
            value = A.Term(A.Boolean(True), eloc)
            assign = head.assign
            if self.k[self.i] in (":=", "="):
                assign = self.k[self.i] == ":="
                self.i += 1
                value = self.parse_in(True)
            elif not self.kw("if") and self.k[self.i] != "{":
                self.unexpected("an else value (`else := <value>`) or body (`else if { ... }`)")
            if self.k[self.i] == "{" and not self.v0:
                self.fail(f"`if` keyword is required before an else body{V0_HINT}: write `else := <value> if "
                          "{ ... }`")
            has_body = self.kw("if") or self.k[self.i] == "{"
            if self.kw("if"):
                ebody = self.parse_if_body()
            elif has_body:  # v0: `else = x { ... }`
                self.i += 1
                ebody = self.parse_body("}")
            else:
                ebody = true_body(eloc)
            ehead = A.Head(deepcopy(ref), deepcopy(head.args), None, value, assign, eloc)
            cur.else_ = A.Rule(ehead, ebody, location=eloc)
            cur = cur.else_
            if not has_body:  # a bodiless `else` ends the chain (OPA reads on only after a body)
                break
        return rule

    def chained_bodies(self, rule: A.Rule) -> list[A.Rule]:
        """`p if { a } { b }`: each further `{ body }` after a rule's body is one more rule with
        the same head (OPA's chained rule bodies); not after an `else` chain."""
        out: list[A.Rule] = []
        has_body = not (len(rule.body) == 1 and rule.body[0].generated)
        while has_body and self.k[self.i] == "{":
            if rule.else_ is not None:
                self.fail("expected `else` keyword before another rule body")
            loc = self.loc()
            self.i += 1
            h = rule.head
            head = A.Head(deepcopy(h.ref), deepcopy(h.args), deepcopy(h.key), deepcopy(h.value),
                          h.assign, loc)
            out.append(A.Rule(head, self.parse_body("}"), location=loc))
        return out

    def note(self, msg: str, at: Location | None = None) -> None:
        """An error that does not stop the rule: parsing goes on after it."""
        self.errors.append(RegoError(PARSE, msg, at or self.loc()))

    def v1_keywords_required(self, head: A.Head) -> None:
        """A Rego v1 file with a v0 rule body `p { ... }` / `p[x] { ... }`: OPA's errors
        (`if` required; `contains` too for a partial set), at the rule."""
        written = self.t.src[self.p[self.rule_start]:self.p[self.i]].strip()
        ref = head.ref
        partial_set = len(ref.terms) == 2 and head.value is None and head.args is None \
            and not isinstance(ref.terms[-1].value, A.String)
        base = A.Ref(ref.terms[:1]).dotted() or ""
        if partial_set and written.startswith(base + "[") and written.endswith("]"):
            written = f"{base} contains {written[len(base) + 1:-1]}"
        self.note(f"`if` keyword is required before rule body{V0_HINT}: write `{written} if {{ ... }}`")
        if partial_set:
            self.note(f"`contains` keyword is required for partial set rules{V0_HINT}: write "
                      f"`{base} contains <element> if {{ ... }}`", head.location)

    def v0_error(self, head: A.Head, name: str, bodiless: bool = False) -> NoReturn:
        ref = head.ref
        if len(ref.terms) == 2 and head.value is None and head.args is None \
                and not isinstance(ref.terms[-1].value, A.String):
            base = A.Ref(ref.terms[:1]).dotted()
            self.fail(f"`contains` keyword is required for partial set rules{V0_HINT}: write "
                      f"`{base} contains <element> if {{ ... }}`", head.location)
        if bodiless:
            self.fail(f"rule `{name}` needs a value or a body: write `{name} := <value>` or "
                      f"`{name} if {{ ... }}`", head.location)
        written = self.t.src[self.p[self.rule_start]:self.p[self.i]].strip()
        self.fail(f"`if` keyword is required before rule body{V0_HINT}: write `{written} if {{ ... }}`")

    def parse_head_ref(self) -> A.Ref:
        self.i += 1
        return A.Ref(self.parse_ref_suffixes(self.i - 1, string_keys=False))

    def check_bodiless_function(self, name: str, loc: Location) -> None:
        from cupcake_py.rego.compile.builtins import lookup

        if lookup(name) is not None:
            self.fail("rule name conflicts with built-in function", loc)

    def parse_if_body(self, brace_literal: bool = False) -> A.Body:
        """After `if`: `{ body }` or one literal. `brace_literal` (a rule's first `if`, as in
        OPA): a `{` first tries one literal, kept unless it is a bare set, so
        `if {k: v | ...}` and `if {"a": 1}` are one-literal bodies and `if { x }` a body."""
        self.i += 1  # `if`
        if self.k[self.i] == "{":
            if brace_literal:
                lit = self.try_brace_literal()
                if lit is not None:
                    return [lit]
            self.i += 1
            return self.parse_body("}")
        e = self.parse_literal()
        if self.k[self.i] == ";":
            self.fail("a rule body without braces holds one expression: write `if { a; b }` for more")
        return [e]

    def try_brace_literal(self) -> A.Expr | None:
        """At `{` right after a rule's `if`: the literal starting there, or None (position
        and errors restored) when it does not parse or is a bare set term."""
        save, nerr, spec = self.i, len(self.errors), self.speculating
        self.speculating = True
        try:
            e = self.parse_literal()
        except _TooDeep:
            raise
        except _Bail:
            e = None
        finally:
            self.speculating = spec
        if e is None or (isinstance(e.terms, A.Term) and isinstance(e.terms.value, A.Set)) or not (
                self.k[self.i] in (EOF, ";") or self.nl[self.i] or self.kw("else")):
            del self.errors[nerr:]
            self.i = save
            return None
        return e

    # ------------------------------------------------------------------ bodies & literals

    def nest(self) -> None:
        """Enter one nesting level (a term or a body); fails past MAX_NESTING. The caller leaves
        it with `self.depth -= 1` in a `finally`."""
        self.depth += 1
        if self.depth > MAX_NESTING:
            self.errors.append(RegoError(PARSE, NESTED_TOO_DEEPLY, self.loc()))
            raise _TooDeep

    def parse_body(self, end: str) -> A.Body:
        """Literals separated by `;` or newlines, up to and including `end` (EOF: not consumed)."""
        try:
            self.nest()
            return self._parse_body(end)
        finally:
            self.depth -= 1

    def _parse_body(self, end: str) -> A.Body:
        body: A.Body = []
        k = self.k
        if k[self.i] == end:
            self.fail("found empty body")
        while True:
            e = self.parse_literal()
            e.index = len(body)
            body.append(e)
            if k[self.i] == ";":
                self.i += 1
                if k[self.i] == end:
                    break
                continue
            if k[self.i] == end:
                break
            if self.nl[self.i]:
                continue
            self.unexpected(f"`;`, a newline or {'end of input' if end == EOF else '`' + end + '`'}")
        if end != EOF:
            self.i += 1
        return body

    def parse_literal(self) -> A.Expr:
        loc = self.loc()
        if self.kw("some"):
            e = self.parse_some()
        elif self.kw("every"):
            e = self.parse_every()
        else:
            negated = self.kw("not")
            if negated:
                self.i += 1
            e = self.parse_expr()
            e.negated = negated
        e.location = loc
        while self.kw("with"):
            wloc = self.loc()
            self.i += 1
            target = self.parse_term()
            self.expect_kw("as", "`as` in `with <target> as <value>`")
            e.with_.append(A.With(target, self.parse_in(True), wloc))
        return e

    def parse_expr(self) -> A.Expr:
        loc = self.loc()
        lhs = self.parse_in(True)
        k = self.k[self.i]
        if k == ":=" or k == "=":
            oloc = self.loc()
            self.i += 1
            rhs = self.parse_in(True)
            op = A.Term(op_ref(A.OPERATORS[k], oloc), oloc)
            return A.Expr([op, lhs, rhs], location=loc)
        v = lhs.value
        if isinstance(v, A.Call):
            return A.Expr([A.Term(v.operator, lhs.location), *v.args], location=loc)
        return A.Expr(lhs, location=loc)

    def parse_some(self) -> A.Expr:
        loc = self.loc()
        self.i += 1
        first = self.parse_binary(1)
        if self.k[self.i] == ",":
            self.i += 1
            second = self.parse_binary(1)
            if self.kw("in"):
                self.i += 1
                dom = self.parse_binary(1)
                return A.Expr(A.SomeDecl([call_term("in3", [first, second, dom], loc)], loc), location=loc)
            symbols = [first, second]
            while self.k[self.i] == ",":
                self.i += 1
                symbols.append(self.parse_binary(1))
        elif self.kw("in"):
            self.i += 1
            dom = self.parse_binary(1)
            return A.Expr(A.SomeDecl([call_term("in", [first, dom], loc)], loc), location=loc)
        else:
            symbols = [first]
        for s in symbols:
            if not isinstance(s.value, A.Var):
                self.fail("expected variables after `some` (e.g. `some x, y` or `some x in xs`)", s.location)
        return A.Expr(A.SomeDecl(symbols, loc), location=loc)

    def parse_every(self) -> A.Expr:
        loc = self.loc()
        self.i += 1
        names = [self.parse_term()]
        if self.k[self.i] == ",":
            self.i += 1
            names.append(self.parse_term())
        for n in names:
            if not isinstance(n.value, A.Var):
                self.fail("expected variables after `every` (e.g. `every k, v in xs { ... }`)", n.location)
        self.expect_kw("in", "`in` in `every x in xs { ... }`")
        dom = self.parse_binary(1)
        self.expect("{", "`{` to start the body of `every`")
        body = self.parse_body("}")
        key, value = (names[0], names[1]) if len(names) == 2 else (None, names[0])
        return A.Expr(A.Every(key, value, dom, body, loc), location=loc)

    # ------------------------------------------------------------------ terms & operators

    def parse_in(self, keyval: bool, lhs: A.Term | None = None) -> A.Term:
        lhs = self.parse_binary(1, lhs)
        if keyval and self.k[self.i] == ",":
            save, nerr = self.i, len(self.errors)
            try:
                self.i += 1
                mid = self.parse_binary(1)
                if self.kw("in"):
                    self.i += 1
                    rhs = self.parse_binary(1)
                    lhs = call_term("in3", [lhs, mid, rhs], lhs.location)
                else:
                    self.i = save
            except _TooDeep:
                raise
            except _Bail:
                del self.errors[nerr:]
                self.i = save
        while self.kw("in"):
            self.i += 1
            rhs = self.parse_binary(1)
            lhs = call_term("in", [lhs, rhs], lhs.location)
        return lhs

    def parse_binary(self, min_prec: int, lhs: A.Term | None = None) -> A.Term:
        if lhs is None:
            lhs = self.parse_term()
        k = self.k
        operands = 1
        while True:
            op = k[self.i]
            prec = BINARY_PRECEDENCE.get(op)
            if prec is None or prec < min_prec:
                return lhs
            operands += 1
            if operands > MAX_OPERANDS:
                self.errors.append(RegoError(PARSE, TOO_MANY_OPERANDS, self.loc()))
                raise _TooDeep
            self.i += 1
            rhs = self.parse_binary(prec + 1)
            lhs = call_term(op, [lhs, rhs], lhs.location)

    def parse_list(self, end: str) -> list[A.Term]:
        """Comma-separated infix terms up to and including `end` (trailing comma allowed)."""
        items: list[A.Term] = []
        k = self.k
        while k[self.i] != end:
            items.append(self.parse_in(False))
            if k[self.i] == ",":
                self.i += 1
            elif k[self.i] != end:
                self.unexpected(f"`,` or `{end}`")
        self.i += 1
        return items

    def parse_term(self) -> A.Term:
        try:
            self.nest()
            return self._parse_term()
        finally:
            self.depth -= 1

    def _parse_term(self) -> A.Term:
        i = self.i
        kind = self.k[i]
        loc = self.loc(i)
        value: A.Value
        if kind == IDENT:
            name = self.x[i]
            self.i += 1
            if name in self.keywords and (self.ref_follows(i) or name in TERM_KEYWORDS):
                pass
            elif name == "true" or name == "false":
                return A.Term(A.Boolean(name == "true"), loc)
            elif name == "null":
                return A.Term(A.Null(), loc)
            elif name in self.keywords:
                self.i = i
                self.unexpected("a term")
            value = A.Var(name)
        elif kind == NUM:
            self.i += 1
            return A.Term(A.Number(self.number_text(i)), loc)
        elif kind == STR:
            self.i += 1
            s = decode_string(self.x[i][1:-1])
            if s is None:
                self.fail("invalid escape sequence in string (allowed: \\\" \\\\ \\/ \\b \\f \\n \\r \\t "
                          "\\uXXXX)", i)
            return A.Term(A.String(s), loc)
        elif kind == RAW:
            self.i += 1
            return A.Term(A.String(self.x[i][1:-1]), loc)
        elif kind == TMPL:
            self.i += 1
            return self.parse_template(i, loc)
        elif kind == "[":
            self.i += 1
            value = self.parse_array()
        elif kind == "{":
            self.i += 1
            value = self.parse_brace()
        elif kind == "(":
            self.i += 1
            inner = self.parse_in(True)
            self.expect(")", "`)`")
            if isinstance(inner.value, _NO_REF_POSTFIX):
                return inner
            return self.parse_postfix(inner)
        elif kind == "-":
            self.i += 1
            if self.k[self.i] == NUM:
                text = self.number_text(self.i)
                self.i += 1
                return A.Term(A.Number("-" + text), loc)
            operand = self.parse_term()
            return A.Term(A.Call(op_ref("minus", loc), [A.Term(A.Number("0"), loc), operand]), loc)
        else:
            self.unexpected("a term")
        return self.parse_postfix(A.Term(value, loc))

    def number_text(self, i: int) -> str:
        """The number at token i as JSON-valid text: `.5` is 0.5; `01` is an error (as OPA)."""
        text = self.x[i]
        problem = number_problem(text)
        if problem:
            self.fail(problem, i)
        return "0" + text if text.startswith(".") else text

    def parse_postfix(self, term: A.Term) -> A.Term:
        k = self.k
        parts: list[A.Term] | None = None
        while True:
            i = self.i
            kind = k[i]
            if kind == "." and not self.ws[i]:
                self.i += 1
                if k[self.i] != IDENT or self.ws[self.i]:
                    self.unexpected("a name after `.`")
                parts = parts or []
                parts.append(A.Term(A.String(self.x[self.i]), self.loc()))
                self.i += 1
            elif kind == "[" and not self.ws[i]:
                self.i += 1
                key = self.parse_in(True)
                self.expect("]", "`]`")
                parts = parts or []
                parts.append(key)
            elif kind == "(" and not self.nl[i] and isinstance(term.value, (A.Var, A.Ref)):
                if parts:
                    term = self._with_parts(term, parts)
                    parts = None
                self.i += 1
                args = self.parse_list(")")
                op = term.value if isinstance(term.value, A.Ref) else A.Ref([term])
                if not args and op.dotted() == "set":
                    term = A.Term(A.Set([]), term.location)
                else:
                    term = A.Term(A.Call(op, args), term.location)
            else:
                break
        return self._with_parts(term, parts) if parts else term

    @staticmethod
    def _with_parts(term: A.Term, parts: list[A.Term]) -> A.Term:
        if isinstance(term.value, A.Ref):
            return A.Term(A.Ref(term.value.terms + parts), term.location)
        return A.Term(A.Ref([term, *parts]), term.location)

    def parse_array(self) -> A.Value:
        if self.k[self.i] == "]":
            self.i += 1
            return A.Array([])
        head = self.parse_term()
        if self.k[self.i] == "|":
            body = self.try_comprehension_body("]")
            if body is not None:
                return A.ArrayComprehension(head, body)
        items = [self.parse_in(False, head)]
        if self.k[self.i] == ",":
            self.i += 1
            items.extend(self.parse_list("]"))
        else:
            self.expect("]", "`,` or `]`")
        return A.Array(items)

    def try_comprehension_body(self, end: str) -> A.Body | None:
        """At `|` after a comprehension head: the body, or None (position restored) when it does
        not parse, so `[a | b, c]` falls back to an array holding `a | b` (as OPA does).
        Speculation does not nest, which keeps failing input linear."""
        save, nerr = self.i, len(self.errors)
        self.i += 1
        if self.speculating:
            return self.parse_body(end)
        self.speculating = True
        try:
            return self.parse_body(end)
        except _TooDeep:
            raise
        except _Bail:
            del self.errors[nerr:]
            self.i = save
            return None
        finally:
            self.speculating = False

    def parse_brace(self) -> A.Value:
        k = self.k
        if k[self.i] == "}":
            self.i += 1
            return A.Object([])
        head = self.parse_term()
        if k[self.i] == "|":
            body = self.try_comprehension_body("}")
            if body is not None:
                return A.SetComprehension(head, body)
        plain_head = k[self.i] == ":"
        head = self.parse_in(False, head)
        if k[self.i] != ":":
            items = [head]
            if k[self.i] == ",":
                self.i += 1
                items.extend(self.parse_list("}"))
            else:
                self.expect("}", "`,` or `}`")
            return A.Set(items)
        self.i += 1
        value = self.parse_term()
        if plain_head and k[self.i] == "|":
            body = self.try_comprehension_body("}")
            if body is not None:
                return A.ObjectComprehension(head, value, body)
        pairs = [(head, self.parse_in(False, value))]
        while k[self.i] == ",":
            self.i += 1
            if k[self.i] == "}":
                break
            key = self.parse_in(False)
            self.expect(":", "`:` between object key and value")
            pairs.append((key, self.parse_in(False)))
        self.expect("}", "`,` or `}`")
        return A.Object(pairs)

    def parse_template(self, i: int, loc: Location) -> A.Term:
        raw, parts = self.t.templates[i]
        out: list[A.Term | A.Expr] = []
        for part in parts:
            if not part.hole:
                out.append(A.Term(A.String(part.text), self.t.location(part.start)))
                continue
            sub = Parser(tokenize(self.t.src, self.t.file, part.start, part.end, self.t.line_starts))
            try:
                if sub.k[0] == EOF:
                    sub.fail("empty template expression `{}`: write an expression inside the braces")
                e = sub.parse_literal()
                if sub.k[sub.i] != EOF:
                    sub.unexpected("`}` closing the template expression")
                banned = template_hole_problem(e)
                if banned:
                    sub.fail(f"unexpected {banned} in template-string expression", e.location)
                out.append(e)
            except _Bail:
                pass
            self.errors.extend(sub.errors)
        return A.Term(A.TemplateString(out, raw), loc)


def raise_errors(errors: list[RegoError], truncated: bool = False) -> NoReturn:
    raise RegoErrors(errors, truncated)


def _guarded(parser: Parser, fn: Callable[[], T], fallback: T) -> T:
    """Run one parse step; a bail or over-deep nesting leaves its error in parser.errors."""
    try:
        with recursion_limit(_RECURSION):
            return fn()
    except _Bail:
        return fallback
    except RecursionError:  # (MAX_NESTING comes first; kept as a safety net)
        parser.errors.append(RegoError(PARSE, NESTED_TOO_DEEPLY, parser.loc()))
        return fallback


def parse_query_text(text: str, filename: str = "<query>") -> A.Body:
    parser = Parser(tokenize(text, filename))

    def run() -> A.Body:
        if parser.k[0] == EOF:
            parser.fail("empty query")
        return parser.parse_body(EOF)

    body: A.Body = _guarded(parser, run, [])
    if parser.errors:
        raise_errors(parser.errors)
    return body


def parse_term_text(text: str, filename: str = "<term>") -> A.Term:
    parser = Parser(tokenize(text, filename))

    def run() -> A.Term:
        term = parser.parse_in(False)
        if parser.k[parser.i] != EOF:
            parser.unexpected("end of input after the term")
        return term

    term = _guarded(parser, run, A.Term(A.Null()))
    if parser.errors:
        raise_errors(parser.errors)
    return term
