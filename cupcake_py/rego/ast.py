"""Typed AST of Rego v1, modelled on the concepts of OPA's `ast` package.

Every node carries `location: Location` (file, row, col; 1-based) from
`cupcake_py.core.errors`. Locations never take part in `==` (dataclass fields with
`compare=False`), so two parses of differently formatted but equivalent source compare
equal. Nodes are mutable (compile passes rewrite them in place or with
`dataclasses.replace`); they are not hashable.

Node shapes
===========

Module(package, imports, rules, comments, annotations)
    package: Package; imports: list[Import]; rules: list[Rule] (source order, `else`
    branches are NOT listed here, they hang off their rule); comments: list[Comment];
    annotations: list[Annotations] (every METADATA block of the file, in order).

Package(path, annotations)  path: Ref, always `data` + String terms: `package a.b` is
                            Ref[Var data, String "a", String "b"].
Import(path, alias)         path: Term holding a Ref whose head is Var `data`, `input`,
                            `future` or `rego` (`import rego.v1`, `import future.keywords.in`);
                            alias: str | None (`as z`).
Comment(text)               text after `#` (without the `#`).

Rule(head, body, else_, default, annotations)
    body: Body (list[Expr]); a rule written without a body (`p := 1`) gets the body
          `[Expr(Term(Boolean(True)))]` exactly like OPA. `default` rules likewise.
    else_: Rule | None -- the next `else` of the chain. Its head is a copy of the
          owner's head (same ref, args) with the else value (Boolean(True) if omitted).
    default: bool; annotations: list[Annotations] attached to this rule.

Head(ref, args, key, value, assign)
    ref: Ref. `p` -> Ref[Var p]; `a.b[c].d` -> Ref[Var a, String b, Var c, String d];
         `p[k]` -> Ref[Var p, Var k].  `Head.name` is the first var's name.
    args: list[Term] | None -- function arguments (None = not a function; `f()` is
          rejected by OPA so args is never an empty list).
    key: Term | None -- set only for `contains` (partial set / multi-value rule):
         `p contains x` -> ref Ref[Var p], key x, value None.
    value: Term | None -- the rule's value. `p if {...}` and bodiless else chains get
         Boolean(True) as OPA does. `p contains x` has value None.
    assign: bool -- True when written with `:=`, False for `=` / implicit.
    Kinds: `Head.kind` is one of "function", "multi_value" (contains), "single_value"
    (everything else: complete rules, `p[k] := v`, deep ref heads).

Body = list[Expr]
Expr(terms, negated, with_, index, generated)
    terms is ONE of:
      * Term                  -- a plain term expression: `x`, `input.a`, `true`, `f(x)` is
                                NOT this (calls are the list form), but `[x | ...]` is.
      * list[Term]            -- a call: [operator, arg1, ...]; operator is a Term whose value
                                is a Ref naming the function: Ref[Var "eq"], Ref[Var "count"],
                                Ref[Var "internal", String "member_2"], Ref[Var "data",
                                String "x", String "f"] for a user function.
                                Infix operators become these calls (see OPERATORS below):
                                `x := 1` -> [assign, x, 1]; `x = 1` -> [eq, x, 1];
                                `a == b` -> [equal, a, b]; `x in xs` -> [internal.member_2, x, xs];
                                `k, v in xs` -> [internal.member_3, k, v, xs].
      * SomeDecl              -- `some x, y` or `some [k,] v in xs`.
      * Every                 -- `every [k,] v in xs { body }`.
    negated: bool (`not`); with_: list[With]; index: position in its body;
    generated: bool (True for the `true` expression OPA adds to bodiless rules).

With(target, value)         both Terms: `with input.x as 1` -> target Ref term, value 1.

Term(value, location)       value is one of the Value classes:
    Null(); Boolean(value: bool); Number(text: str) -- exact source text (e.g. "1e3",
        "-0.10", "12345678901234567890"); `Number.value` gives int (no '.', no exponent)
        or decimal.Decimal.
    String(value: str) -- decoded (escapes resolved, raw strings verbatim).
    Var(name: str) -- `_` is kept as Var("_"); compile passes rename wildcards.
    Ref(terms: list[Term]) -- terms[0] is the head (Var, or any term: call, array,
        object, set, comprehension, string); `.x` and `["x"]` both give a String term.
    Array(items); Object(items: list[tuple[Term, Term]], source order); Set(items)
        (`set()` is Set([])).
    ArrayComprehension(term, body); SetComprehension(term, body);
    ObjectComprehension(key, value, body).
    Call(operator: Ref, args: list[Term]) -- a call used as a term (`x := count(y)`
        -> Expr [assign, x, Term(Call(Ref[count], [y]))]). `a + b` in term position is
        Call(Ref[plus], [a, b]). Unary minus: `-1` is Number("-1"); `-x` is
        Call(Ref[minus], [Number 0, x]) as in OPA.
    TemplateString(parts: list[Term | Expr], multi_line: bool) -- `$"a {x} b"`: String
        terms for the literal text and Exprs for the `{...}` holes; `multi_line` is True
        for the raw form `` $`...` ``.

SomeDecl(symbols)           `some x, y` -> [Term(Var x), Term(Var y)];
                            `some v in xs` -> [Term(Call(internal.member_2, [v, xs]))];
                            `some k, v in xs` -> [Term(Call(internal.member_3, [k, v, xs]))].
Every(key, value, domain, body)   key: Term | None; value: Term; domain: Term; body: Body.

Annotations (METADATA, see annotations.py) are plain dataclasses defined here so the AST
module is self-contained: Annotations, AuthorAnnotation, RelatedResourceAnnotation,
SchemaAnnotation.
"""

from __future__ import annotations

from decimal import Decimal

from cupcake_py.core.errors import Location
from cupcake_py.core.slotted import dataclass, field

TYPE_CHECKING = False
if TYPE_CHECKING:  # (typing stays off a first `cupcake test` run's start-up)
    from typing import Any, TypeAlias

__all__ = [
    "Location", "Null", "Boolean", "Number", "String", "Var", "Ref", "Array", "Object", "Set",
    "ArrayComprehension", "SetComprehension", "ObjectComprehension", "Call", "TemplateString",
    "Value", "Term", "SomeDecl", "Every", "With", "Expr", "Body", "Head", "Rule", "Package",
    "Import", "Comment", "Module", "NotBody", "Annotations", "AuthorAnnotation", "RelatedResourceAnnotation",
    "SchemaAnnotation", "OPERATORS", "NO_LOCATION", "ref_of", "var_term", "string_term",
    "bool_term", "call_expr", "operator_name",
]

NO_LOCATION = Location("", 0, 0)


def _loc() -> Any:
    return field(default=NO_LOCATION, compare=False, repr=False)


# --------------------------------------------------------------------------- values


@dataclass(slots=True)
class Null:
    pass


@dataclass(slots=True)
class Boolean:
    value: bool


@dataclass(slots=True)
class Number:
    text: str

    @property
    def value(self) -> int | Decimal:
        t = self.text
        if "." in t or "e" in t or "E" in t:
            return Decimal(t)
        return int(t)


@dataclass(slots=True)
class String:
    value: str


@dataclass(slots=True)
class Var:
    name: str


@dataclass(slots=True)
class Ref:
    terms: list[Term]

    @property
    def head(self) -> Term:
        return self.terms[0]

    def dotted(self) -> str | None:
        """`a.b.c` for a ref of a Var head and String tail, else None."""
        h = self.terms[0].value
        if not isinstance(h, Var):
            return None
        parts = [h.name]
        for t in self.terms[1:]:
            if not isinstance(t.value, String):
                return None
            parts.append(t.value.value)
        return ".".join(parts)


@dataclass(slots=True)
class Array:
    items: list[Term]


@dataclass(slots=True)
class Object:
    items: list[tuple[Term, Term]]


@dataclass(slots=True)
class Set:
    items: list[Term]


@dataclass(slots=True)
class ArrayComprehension:
    term: Term
    body: Body


@dataclass(slots=True)
class SetComprehension:
    term: Term
    body: Body


@dataclass(slots=True)
class ObjectComprehension:
    key: Term
    value: Term
    body: Body


@dataclass(slots=True)
class Call:
    operator: Ref
    args: list[Term]

    @property
    def name(self) -> str | None:
        return self.operator.dotted()


@dataclass(slots=True)
class TemplateString:
    parts: list[Term | Expr]
    multi_line: bool = False


Value: TypeAlias = (
    Null | Boolean | Number | String | Var | Ref | Array | Object | Set | ArrayComprehension
    | SetComprehension | ObjectComprehension | Call | TemplateString
)


@dataclass(slots=True)
class Term:
    value: Value
    location: Location = _loc()


# --------------------------------------------------------------------------- expressions


@dataclass(slots=True)
class SomeDecl:
    symbols: list[Term]
    location: Location = _loc()


@dataclass(slots=True)
class Every:
    key: Term | None
    value: Term
    domain: Term
    body: Body
    location: Location = _loc()


@dataclass(slots=True)
class With:
    target: Term
    value: Term
    location: Location = _loc()


@dataclass(slots=True)
class NotBody:
    """The compiler's negation of a (flattened, safety-ordered) body: the form `not` takes over
    several expressions after compilation (rego/compile/nodes.py); never written by the parser."""
    body: list[Expr]
    location: Location = field(default=NO_LOCATION, compare=False, repr=False)


@dataclass(slots=True)
class Expr:
    terms: Term | list[Term] | SomeDecl | Every | NotBody  # NotBody only after the compiler's rewrite
    negated: bool = False
    with_: list[With] = field(default_factory=list)
    index: int = 0
    generated: bool = field(default=False, compare=False)
    location: Location = _loc()

    @property
    def operator(self) -> str | None:
        """Dotted operator name of a call expression (`eq`, `internal.member_2`), else None."""
        if isinstance(self.terms, list):
            op = self.terms[0].value
            return op.dotted() if isinstance(op, Ref) else None
        return None

    @property
    def operands(self) -> list[Term]:
        return self.terms[1:] if isinstance(self.terms, list) else []


Body: TypeAlias = list[Expr]


# --------------------------------------------------------------------------- annotations


@dataclass(slots=True)
class AuthorAnnotation:
    name: str = ""
    email: str = ""


@dataclass(slots=True)
class RelatedResourceAnnotation:
    ref: str
    description: str = ""


@dataclass(slots=True)
class SchemaAnnotation:
    path: Ref
    schema: Ref | None = None
    definition: Any = None


@dataclass(slots=True)
class Annotations:
    """One `# METADATA` block. `scope` is "package", "rule", "document" or "subpackages"."""

    scope: str
    title: str | None = None
    description: str | None = None
    organizations: list[str] = field(default_factory=list)
    related_resources: list[RelatedResourceAnnotation] = field(default_factory=list)
    authors: list[AuthorAnnotation] = field(default_factory=list)
    schemas: list[SchemaAnnotation] = field(default_factory=list)
    entrypoint: bool = False
    custom: dict[str, Any] = field(default_factory=dict)
    location: Location = _loc()

    def routing(self) -> dict[str, list[str]]:
        """`custom.routing` (required_events / required_tools / required_signals), {} if absent."""
        r = self.custom.get("routing")
        return r if isinstance(r, dict) else {}


# --------------------------------------------------------------------------- rules & modules


@dataclass(slots=True)
class Head:
    ref: Ref
    args: list[Term] | None = None
    key: Term | None = None
    value: Term | None = None
    assign: bool = False
    location: Location = _loc()

    @property
    def name(self) -> str:
        h = self.ref.terms[0].value
        return h.name if isinstance(h, Var) else ""

    @property
    def kind(self) -> str:
        if self.args is not None:
            return "function"
        if self.key is not None:
            return "multi_value"
        return "single_value"


@dataclass(slots=True)
class Rule:
    head: Head
    body: Body
    else_: Rule | None = None
    default: bool = False
    annotations: list[Annotations] = field(default_factory=list)
    location: Location = _loc()


@dataclass(slots=True)
class Package:
    path: Ref
    location: Location = _loc()
    annotations: list[Annotations] = field(default_factory=list)

    def dotted(self) -> str:
        """`a.b` for `package a.b` (without the `data.` root)."""
        return ".".join(t.value.value for t in self.path.terms[1:] if isinstance(t.value, String))


@dataclass(slots=True)
class Import:
    path: Term
    alias: str | None = None
    location: Location = _loc()


@dataclass(slots=True)
class Comment:
    text: str
    location: Location = _loc()


@dataclass(slots=True)
class Module:
    package: Package
    imports: list[Import] = field(default_factory=list)
    rules: list[Rule] = field(default_factory=list)
    comments: list[Comment] = field(default_factory=list, compare=False)
    annotations: list[Annotations] = field(default_factory=list)
    location: Location = _loc()
    # "v1", or "v0" for a module parsed with OPA's --v0-compatible syntax (and no `import rego.v1`)
    rego_version: str = field(default="v1", compare=False)


# --------------------------------------------------------------------------- operators & helpers

# Infix/keyword operator -> OPA builtin name used as the call operator.
OPERATORS: dict[str, str] = {
    ":=": "assign", "=": "eq", "==": "equal", "!=": "neq", "<": "lt", "<=": "lte", ">": "gt",
    ">=": "gte", "+": "plus", "-": "minus", "*": "mul", "/": "div", "%": "rem", "&": "and",
    "|": "or", "in": "internal.member_2", "in3": "internal.member_3",
}


def ref_of(dotted: str, location: Location = NO_LOCATION) -> Ref:
    """Ref for a dotted name: `internal.member_2` -> Ref[Var internal, String member_2]."""
    first, *rest = dotted.split(".")
    return Ref([Term(Var(first), location)] + [Term(String(p), location) for p in rest])


def var_term(name: str, location: Location = NO_LOCATION) -> Term:
    return Term(Var(name), location)


def string_term(s: str, location: Location = NO_LOCATION) -> Term:
    return Term(String(s), location)


def bool_term(b: bool, location: Location = NO_LOCATION) -> Term:
    return Term(Boolean(b), location)


def call_expr(operator: str, *args: Term, location: Location = NO_LOCATION) -> Expr:
    """Call expression `[operator, *args]` for a dotted operator name."""
    return Expr([Term(ref_of(operator, location), location), *args], location=location)


def operator_name(term: Term) -> str | None:
    """Dotted name of an operator term (its value must be a Ref)."""
    return term.value.dotted() if isinstance(term.value, Ref) else None


def call_operator(terms: list[Term]) -> Ref:
    """The operator of a call expression's terms (the parser builds calls on a ref only)."""
    op = terms[0].value
    if not isinstance(op, Ref):
        raise TypeError(f"a call on a {type(op).__name__}, not a ref")
    return op
