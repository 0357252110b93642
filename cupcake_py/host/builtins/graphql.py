"""graphql.*: parse GraphQL queries/schemas to OPA's AST shape and validate queries.

Parsing and query validation use graphql-core (the reference implementation's Python
port, kept in step with the GraphQL spec); the AST shape and the schema rules follow
gqlparser, the Go library OPA uses (see ``_graphql_ast``). Differences of gqlparser's
schema loader from graphql-core that OPA exposes, reproduced here:

* extending a type that is not defined defines it (the first extension becomes the
  definition);
* a schema without a query root type is valid;
* an empty document (only whitespace/comments) parses to an empty AST.

Every builtin accepts a document as GraphQL text or as an AST object (OPA's shape).
Errors read ``<fname>: <message> in GraphQL string at location <row>:<col>``.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from graphql import (
    GraphQLError,
    GraphQLSchema,
    ParallelVisitor,
    TypeInfo,
    TypeInfoVisitor,
    build_ast_schema,
    parse,
    validate_schema,
    visit,
)
from graphql.language import Lexer, Source, TokenKind
from graphql.language import ast as g
from graphql.validation import ValidationContext, specified_rules
from graphql.validation.validate import validate_sdl

from cupcake_py.host.builtins import BuiltinContext, builtin
from cupcake_py.host.builtins._errors import BuiltinError, OperandError, type_err
from cupcake_py.host.builtins._graphql_ast import print_query, print_schema, query_shape, schema_shape
from cupcake_py.host.builtins._values import FrozenObject, thaw

_BUILTIN_TYPES = frozenset(
    "Int Float String Boolean ID __Schema __Type __TypeKind __Field __InputValue __EnumValue __Directive "
    "__DirectiveLocation".split()
)
_EXT_TO_DEF: dict[type, type] = {
    g.ScalarTypeExtensionNode: g.ScalarTypeDefinitionNode,
    g.ObjectTypeExtensionNode: g.ObjectTypeDefinitionNode,
    g.InterfaceTypeExtensionNode: g.InterfaceTypeDefinitionNode,
    g.UnionTypeExtensionNode: g.UnionTypeDefinitionNode,
    g.EnumTypeExtensionNode: g.EnumTypeDefinitionNode,
    g.InputObjectTypeExtensionNode: g.InputObjectTypeDefinitionNode,
}
_CACHE_SIZE = 128
# gqlparser accepts a schema without a query root; graphql-core reports it.
_IGNORED_SCHEMA_ERRORS = ("Query root type must be provided.",)


@dataclass
class _Invalid(Exception):
    """A parse or validation failure: gqlparser-style message and 1-based location."""

    message: str
    row: int = 0
    col: int = 0

    def text(self, fname: str) -> str:
        where = f" in GraphQL string at location {self.row}:{self.col}" if self.row else ""
        return f"{fname}: {self.message}{where}"


_PUNCTUATOR = re.compile(r"'(\.\.\.|[!$&():=@\[\]{|}])'")
# Lexer errors: graphql-core's wording -> gqlparser's (which keeps the final period).
_LEXER_MESSAGES: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"^Unexpected character: '(.)'$"), r'Cannot parse the unexpected character "\1".'),
    (re.compile(r"^Invalid number, (.*): '(.)'$"), r'Invalid number, \1: "\2".'),
    (re.compile(r"^Invalid number, (.*): <EOF>$"), r"Invalid number, \1: <EOF>."),
    (re.compile(r"^Invalid character escape sequence: '(.*)'$"), r"Invalid character escape sequence: \1."),
    (re.compile(r"^Unterminated string$"), "Unterminated string."),
]


def _message(e: GraphQLError) -> _Invalid:
    """graphql-core's message in gqlparser's wording: no prefix/period, punctuators bare,
    names double-quoted, a variable in a constant reported at its `$`."""
    msg = e.message.removeprefix("Syntax Error: ").removesuffix(".")
    loc = e.locations[0] if e.locations else None
    for pattern, wording in _LEXER_MESSAGES:
        if pattern.match(msg):
            return _Invalid(pattern.sub(wording, msg), loc.line if loc else 0, loc.column if loc else 0)
    if msg.startswith("Unexpected variable '$") and msg.endswith("' in constant value"):
        msg = "Unexpected $"
    msg = _PUNCTUATOR.sub(r"\1", msg)
    msg = re.sub(r"found '([^\w\s'])'", r"found \1", msg)
    msg = re.sub(r"'([^']*)'", r'"\1"', msg)
    return _Invalid(msg, loc.line if loc else 0, loc.column if loc else 0)


def _syntax(e: GraphQLError, text: str) -> _Invalid:
    """A syntax error of an executable document; an empty selection set `{}` reads as
    gqlparser's "expected at least one definition" (graphql-core: "Expected Name")."""
    got = _message(e)
    if got.message == "Expected Name, found }" and e.positions and \
            _previous_token(text, next(iter(e.positions))) == TokenKind.BRACE_L:
        got.message = "expected at least one definition, found }"
    return got


def _previous_token(text: str, pos: int) -> TokenKind | None:
    lexer, prev = Lexer(Source(text)), None
    try:
        while True:
            tok = lexer.advance()
            if tok.kind == TokenKind.EOF or tok.start >= pos:
                return prev
            prev = tok.kind
    except GraphQLError:
        return prev


def _spread_arguments(doc: g.DocumentNode) -> _Invalid | None:
    """Fragment spreads with arguments: graphql-core's experimental fragment syntax parses
    them, gqlparser (which has fragment variable definitions only) does not."""
    todo: list[Any] = [doc]
    while todo:
        node = todo.pop()
        arguments = getattr(node, "arguments", None) if isinstance(node, g.FragmentSpreadNode) else None
        if arguments:
            paren = arguments[0].loc.start_token.prev if arguments[0].loc else None
            return _Invalid("Expected Name, found (", paren.line if paren else 0, paren.column if paren else 0)
        if isinstance(node, g.Node):
            todo.extend(getattr(node, k) for k in node.keys if k != "loc")
        elif isinstance(node, tuple | list):
            todo.extend(node)
    return None


def _is_blank(text: str) -> bool:
    try:
        return Lexer(Source(text)).advance().kind == TokenKind.EOF
    except GraphQLError:
        return False


def _parse(text: str, executable: bool) -> g.DocumentNode:
    got = _parse_cached(text, executable)
    if isinstance(got, _Invalid):
        raise _Invalid(got.message, got.row, got.col)  # a fresh one: no traceback build-up
    return got


@functools.lru_cache(maxsize=_CACHE_SIZE)
def _parse_cached(text: str, executable: bool) -> g.DocumentNode | _Invalid:
    """Parse results (documents are never mutated) and failures, memoised by text."""
    try:
        return _parse_uncached(text, executable)
    except _Invalid as e:
        return e


def _parse_uncached(text: str, executable: bool) -> g.DocumentNode:
    if _is_blank(text):
        return g.DocumentNode(definitions=())
    try:  # gqlparser: no empty selection sets; variable definitions on fragments
        doc = parse(text, allow_empty_selection_sets=not executable, experimental_fragment_arguments=executable)
    except GraphQLError as e:
        raise _syntax(e, text) from None
    if executable and (bad := _spread_arguments(doc)) is not None:
        raise bad
    want = (
        g.ExecutableDefinitionNode if executable else g.TypeSystemDefinitionNode | g.TypeSystemExtensionNode
    )
    for d in doc.definitions:
        if not isinstance(d, want):
            start = d.loc.start_token if d.loc else None
            if start is None:
                raise _Invalid("Unexpected definition")
            what = f'Name "{start.value}"' if start.kind == TokenKind.NAME else start.kind.value
            raise _Invalid(f"Unexpected {what}", start.line, start.column)
    return doc


def _document(fname: str, pos: int, v: Any, executable: bool) -> g.DocumentNode:
    """Operand `pos` (GraphQL text or an AST object) as a graphql-core document."""
    return _parse(_text(fname, pos, v, executable), executable)


def _text(fname: str, pos: int, v: Any, executable: bool) -> str:
    """Operand `pos` as GraphQL text (AST objects are printed)."""
    if isinstance(v, str):
        text = v
    elif isinstance(v, dict | FrozenObject):
        shape = thaw(v)
        if isinstance(shape, dict) and not all(isinstance(k, str) for k in shape):
            raise OperandError(f"{fname}: operand {pos} is not a GraphQL AST object")
        text = print_query(shape) if executable else print_schema(shape)
    else:
        raise type_err(fname, pos, v, "object", "string")
    return text


def _gqlparser_schema_doc(doc: g.DocumentNode) -> g.DocumentNode:
    """Turn the first extension of each undefined type into its definition (gqlparser rule)."""
    defined = {d.name.value for d in doc.definitions if isinstance(d, g.TypeDefinitionNode)} | _BUILTIN_TYPES
    out: list[g.DefinitionNode] = []
    for d in doc.definitions:
        cls = _EXT_TO_DEF.get(type(d))
        if cls is not None and isinstance(d, g.TypeExtensionNode) and d.name.value not in defined:
            defined.add(d.name.value)
            d = cls(**{k: getattr(d, k) for k in d.keys if k != "loc"}, loc=d.loc)
        out.append(d)
    return g.DocumentNode(definitions=tuple(out), loc=doc.loc)


def _schema(text: str) -> GraphQLSchema:
    """The schema of a schema document's text, memoised (building one is the costly step)."""
    got = _schema_cached(text)
    if isinstance(got, _Invalid):
        raise _Invalid(got.message, got.row, got.col)  # a fresh one: no traceback build-up
    return got


@functools.lru_cache(maxsize=_CACHE_SIZE)
def _schema_cached(text: str) -> GraphQLSchema | _Invalid:
    try:
        return _load_schema(_parse(text, executable=False))
    except _Invalid as e:
        return e


def _load_schema(doc: g.DocumentNode) -> GraphQLSchema:
    doc = _gqlparser_schema_doc(doc)
    errors = validate_sdl(doc)
    if errors:
        raise _message(errors[0])
    try:
        schema = build_ast_schema(doc, assume_valid_sdl=True)
    except (TypeError, GraphQLError) as e:
        raise (_message(e) if isinstance(e, GraphQLError) else _Invalid(str(e).removesuffix("."))) from None
    problems = [e for e in validate_schema(schema) if e.message not in _IGNORED_SCHEMA_ERRORS]
    if problems:
        raise _message(problems[0])
    return schema


def _validate_query(schema: GraphQLSchema, doc: g.DocumentNode) -> None:
    """graphql-core's query validation rules, without its root-type precondition (gqlparser has none)."""
    errors: list[GraphQLError] = []
    type_info = TypeInfo(schema)
    context = ValidationContext(schema, doc, type_info, errors.append)
    visitors = [rule(context) for rule in specified_rules]
    visit(doc, TypeInfoVisitor(type_info, ParallelVisitor(visitors)))
    if errors:
        raise _message(errors[0])


def _check(fname: str, query: Any, schema: Any) -> tuple[g.DocumentNode, g.DocumentNode]:
    """Parse both operands and validate the query against the schema (raises _Invalid)."""
    qtext = _text(fname, 1, query, executable=True)
    stext = _text(fname, 2, schema, executable=False)
    failure = _check_cached(qtext, stext)
    if failure is not None:
        raise _Invalid(failure.message, failure.row, failure.col)
    return _parse(qtext, executable=True), _parse(stext, executable=False)


@functools.lru_cache(maxsize=_CACHE_SIZE)
def _check_cached(qtext: str, stext: str) -> _Invalid | None:
    """Validation outcome per (query, schema) text: the rules are pure and cost milliseconds."""
    try:
        qdoc = _parse(qtext, executable=True)
        _validate_query(_schema(stext), qdoc)
    except _Invalid as e:
        return e
    return None


def _or_error(fname: str, work: Callable[[], Any]) -> Any:
    """`work()`, with a parse/validation failure turned into the builtin's error."""
    try:
        return work()
    except _Invalid as e:
        raise BuiltinError(e.text(fname)) from None


def _holds(work: Callable[[], object]) -> bool:
    """Whether `work()` finishes without a parse/validation failure."""
    try:
        work()
    except _Invalid:
        return False
    return True


@builtin("graphql.parse_query")
def parse_query(ctx: BuiltinContext, query: Any) -> Any:
    return _or_error("graphql.parse_query",
                     lambda: query_shape(_document("graphql.parse_query", 1, query, executable=True)))


@builtin("graphql.parse_schema")
def parse_schema(ctx: BuiltinContext, schema: Any) -> Any:
    return _or_error("graphql.parse_schema",
                     lambda: schema_shape(_document("graphql.parse_schema", 1, schema, executable=False)))


@builtin("graphql.parse")
def parse_and_validate(ctx: BuiltinContext, query: Any, schema: Any) -> list[Any]:
    qdoc, sdoc = _or_error("graphql.parse", lambda: _check("graphql.parse", query, schema))
    return [query_shape(qdoc), schema_shape(sdoc)]


@builtin("graphql.parse_and_verify")
def parse_and_verify(ctx: BuiltinContext, query: Any, schema: Any) -> list[Any]:
    try:
        qdoc, sdoc = _check("graphql.parse_and_verify", query, schema)
    except _Invalid:
        return [False, {}, {}]
    return [True, query_shape(qdoc), schema_shape(sdoc)]


@builtin("graphql.is_valid")
def is_valid(ctx: BuiltinContext, query: Any, schema: Any) -> bool:
    return _holds(lambda: _check("graphql.is_valid", query, schema))


@builtin("graphql.schema_is_valid")
def schema_is_valid(ctx: BuiltinContext, schema: Any) -> bool:
    return _holds(lambda: _schema(_text("graphql.schema_is_valid", 1, schema, executable=False)))
