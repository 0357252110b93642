"""graphql.*: gqlparser-shaped ASTs, gqlparser's schema rules, validation, AST round trips."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cupcake_py.host.builtins import BuiltinError
from tests.host_builtins.calls import call, fails

SCHEMA = """
type Employee { id: String! salary: Int! }
type Query { employeeByID(id: String): Employee  search(text: String, tags: [String!] = ["a"]): [Employee] }
"""


def v(raw: str, kind: int, **extra: object) -> dict[str, object]:
    return {"Raw": raw, "Kind": kind, "ExpectedTypeHasDefault": False, **extra}


def test_parse_query_shape_fields_aliases_args_and_variables() -> None:
    ast = call(
        "graphql.parse_query", 'query Q($id: String! = "x") { boss: employeeByID(id: $id) { salary } }'
    )
    assert ast == {"Operations": [{
        "Name": "Q", "Operation": "query",
        "VariableDefinitions": [{"Variable": "id", "Type": {"NamedType": "String", "NonNull": True},
                                 "DefaultValue": v("x", 3), "Used": False}],
        "SelectionSet": [{"Alias": "boss", "Name": "employeeByID", "Arguments": [{"Name": "id", "Value": v("id", 0)}],
                          "SelectionSet": [{"Alias": "salary", "Name": "salary"}]}],
    }]}  # fmt: skip


@pytest.mark.parametrize(
    ("literal", "value"),
    [
        ("1", v("1", 1)), ("1.5e3", v("1.5e3", 2)), ('"s\\n"', v("s\n", 3)), ('"""\n  b\n    c\n"""', v("b\n  c", 4)),
        ("true", v("true", 5)), ("null", v("null", 6)), ("RED", v("RED", 7)),
        ("[1, $x]", v("", 8, Children=[{"Name": "", "Value": v("1", 1)}, {"Name": "", "Value": v("x", 0)}])),
        ('{a: "b"}', v("", 9, Children=[{"Name": "a", "Value": v("b", 3)}])),
        ("[]", v("", 8)),
    ],
)  # fmt: skip
def test_value_kinds_follow_gqlparser_numbering(literal: str, value: dict[str, object]) -> None:
    ast = call("graphql.parse_query", f"{{ f(a: {literal}) }}")
    assert ast["Operations"][0]["SelectionSet"][0]["Arguments"][0]["Value"] == value


def test_fragments_spreads_inline_fragments_directives() -> None:
    ast = call(
        "graphql.parse_query", "{ ...F ... on T { a } ... @skip(if: true) { b } } fragment F on T { c @x }"
    )
    sel = ast["Operations"][0]["SelectionSet"]
    assert sel[0] == {"Name": "F"}
    assert sel[1] == {"TypeCondition": "T", "SelectionSet": [{"Alias": "a", "Name": "a"}]}
    assert sel[2]["TypeCondition"] == "" and sel[2]["Directives"][0]["Name"] == "skip"
    assert ast["Fragments"] == [{"Name": "F", "TypeCondition": "T", "SelectionSet": [
        {"Alias": "c", "Name": "c", "Directives": [{"Name": "x", "Location": ""}]}]}]  # fmt: skip


def test_parse_schema_shape_lists_by_kind() -> None:
    ast = call(
        "graphql.parse_schema",
        """
        schema { query: Q }
        extend schema @d
        directive @d(a: Int = 1) repeatable on SCHEMA | FIELD
        "doc" enum E { A B @deprecated }
        union U = X | Y
        input I { f: [Int!]! = [1] }
        extend interface J { g: ID }
    """,
    )
    assert ast["Schema"] == [{"Description": "", "OperationTypes": [{"Operation": "query", "Type": "Q"}]}]
    assert ast["SchemaExtension"] == [{"Description": "", "Directives": [{"Name": "d", "Location": ""}]}]
    assert ast["Directives"] == [{"Description": "", "Name": "d", "IsRepeatable": True, "Locations": ["SCHEMA", "FIELD"],
                                  "Arguments": [{"Description": "", "Name": "a", "DefaultValue": v("1", 1),
                                                 "Type": {"NamedType": "Int", "NonNull": False}}]}]  # fmt: skip
    enum, union, inp = ast["Definitions"]
    assert enum["Description"] == "doc" and enum["Kind"] == "ENUM"
    assert [e["Name"] for e in enum["EnumValues"]] == ["A", "B"]
    assert union["Types"] == ["X", "Y"] and union["Kind"] == "UNION"
    assert inp["Fields"][0]["Type"] == {
        "NamedType": "",
        "NonNull": True,
        "Elem": {"NamedType": "Int", "NonNull": True},
    }
    assert ast["Extensions"][0]["Kind"] == "INTERFACE" and ast["Extensions"][0]["BuiltIn"] is False


@pytest.mark.parametrize(
    ("fname", "text", "message"),
    [
        ("graphql.parse_schema", "type o{d(g:[", "Expected Name, found <EOF> in GraphQL string at location 1:13"),
        ("graphql.parse_schema", "directive @f on FIELD | NOPE", 'Unexpected Name "NOPE" in GraphQL string at location 1:25'),
        ("graphql.parse_query", "{ a ", "Expected Name, found <EOF> in GraphQL string at location 1:5"),
        ("graphql.parse_query", "type T { a: Int }", 'Unexpected Name "type"'),
        ("graphql.parse_schema", "{ a }", "Unexpected { in GraphQL string at location 1:1"),
    ],
)  # fmt: skip
def test_parse_errors_name_the_location(fname: str, text: str, message: str) -> None:
    assert fails(fname, text).endswith(message) or message in fails(fname, text)


def test_empty_documents_parse_to_empty_asts() -> None:
    assert call("graphql.parse_query", "  # only a comment\n") == {}
    assert call("graphql.parse_schema", "") == {}
    assert call("graphql.parse", "", "type A { a: Int }") == [{}, {"Definitions": [
        {"BuiltIn": False, "Description": "", "Kind": "OBJECT", "Name": "A",
         "Fields": [{"Description": "", "Name": "a", "Type": {"NamedType": "Int", "NonNull": False}}]}]}]  # fmt: skip


@pytest.mark.parametrize(
    ("schema", "valid"),
    [
        ("type Hello { world: String }", True),  # no query root: gqlparser accepts it
        ("extend type Hello { world: String }", True),  # extending an undefined type defines it
        ("extend type A { a: Int } extend type A { b: Int }", True),
        ("type A { a: Int } extend type A { a: Int }", False),  # duplicate field
        ("extend scalar Foo extend type Foo { a: Int }", False),  # kinds disagree
        ("extend type Hello implements Greeting", False),
        ("type Hello {}", False),
        ("union U = Missing", False),
        ("schema { query: Query }", False),
        ("type Q { a: I } input I { b: Int }", False),  # input type as output
        ("input I { o: O } type O { a: Int }", False),  # output type in input
        ("interface A { id: ID } interface B implements A { id: ID } type C implements B { id: ID }", False),
        ("directive @d on SCHEMA type Query { x: Int } extend schema @d", True),
        ("type Query { x: Int @deprecated(reason: 1) }", False),
    ],
)
def test_schema_is_valid_like_gqlparser(schema: str, valid: bool) -> None:
    assert call("graphql.schema_is_valid", schema) is valid


@pytest.mark.parametrize(
    ("query", "valid"),
    [
        ('{ employeeByID(id: "a") { salary } }', True),
        ("{ employeeByID { id } }", True),
        ("{ employeeByID(id: 1) { salary } }", False),  # String argument given an Int
        ("{ employeeByID { nope } }", False),
        ("{ employeeByID }", False),  # object field without selection
        ("query A($v: String) { employeeByID { id } }", False),  # unused variable
        ("query ($t: [String!]) { search(tags: $t) { id } }", True),
        ("{ a: search { id } a: employeeByID { id } }", False),  # conflicting aliases
        ("{ ...F } fragment F on Employee { id }", False),  # fragment on the wrong type
    ],
)
def test_is_valid_runs_the_validation_rules(query: str, valid: bool) -> None:
    assert call("graphql.is_valid", query, SCHEMA) is valid
    verified = call("graphql.parse_and_verify", query, SCHEMA)
    assert verified[0] is valid
    if not valid:
        assert verified == [False, {}, {}]


def test_parse_reports_the_first_validation_error() -> None:
    msg = fails("graphql.parse", "{\n  employeeByID { nope } }", SCHEMA)
    assert msg == ('graphql.parse: Cannot query field "nope" on type "Employee" '
                   "in GraphQL string at location 2:18")  # fmt: skip


def test_ast_objects_are_accepted_and_round_trip() -> None:
    q = call(
        "graphql.parse_query",
        'query ($t: [String!] = ["x"]) { s: search(text: """blk""", tags: $t) { id ... on Employee { salary } } }',
    )
    s = call("graphql.parse_schema", SCHEMA)
    assert call("graphql.parse", q, s) == [q, s]
    assert call("graphql.parse_and_verify", q, s) == [True, q, s]
    assert call("graphql.is_valid", q, s) is True
    assert call("graphql.schema_is_valid", s) is True
    assert call("graphql.parse_query", q) == q


def test_operand_types() -> None:
    fails("graphql.parse_query", 1, match="operand 1 must be one of {object, string} but got number")
    fails("graphql.is_valid", "{a}", [], match="operand 2 must be one of {object, string} but got array")


_names = st.from_regex(r"[a-z][a-zA-Z0-9]{0,6}", fullmatch=True)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(_names, st.sampled_from(["Int", "String", "[ID!]", "Boolean!"])),
        min_size=1,
        max_size=5,
        unique_by=lambda t: t[0],
    )
)
def test_schema_shape_round_trips_through_text(fields: list[tuple[str, str]]) -> None:
    text = "type T { " + " ".join(f"{n}(a: Int = 3): {t}" for n, t in fields) + " }"
    ast = call("graphql.parse_schema", text)
    assert call("graphql.parse_schema", ast) == ast
    assert [f["Name"] for f in ast["Definitions"][0]["Fields"]] == [n for n, _ in fields]


@settings(max_examples=150, deadline=None)
@given(st.text('{}()[]!:$@=|&."# \nabtypeQuryInt0', max_size=40))
def test_arbitrary_text_gives_a_value_or_a_builtin_error(text: str) -> None:
    for name, args in (
        ("graphql.parse_query", (text,)),
        ("graphql.parse_schema", (text,)),
        ("graphql.is_valid", (text, "type Query { a: Int }")),
        ("graphql.schema_is_valid", (text,)),
    ):
        try:
            out = call(name, *args)
        except BuiltinError:
            continue
        assert isinstance(out, dict | bool)


def test_cached_failures_raise_fresh_errors() -> None:
    first = fails("graphql.parse_query", "{ a ")
    assert fails("graphql.parse_query", "{ a ") == first
    assert call("graphql.schema_is_valid", "type Q {}") is False
    assert call("graphql.schema_is_valid", "type Q {}") is False


def test_fragment_variable_definitions_parse_as_gqlparser() -> None:
    """gqlparser (OPA) reads `fragment F($v: T = d) on X`; the spread itself takes no arguments."""
    ast = call("graphql.parse_query", "fragment Pay($cur: String! = \"EUR\") on Employee { salary(in: $cur) }")
    (frag,) = ast["Fragments"]
    assert frag["VariableDefinition"] == [{"Variable": "cur", "Type": {"NamedType": "String", "NonNull": True},
                                           "DefaultValue": v("EUR", 3), "Used": False}]
    assert frag["TypeCondition"] == "Employee"


@pytest.mark.parametrize(("query", "message"), [
    ("query { ...Pay(cur: 1) }", "Expected Name, found ( in GraphQL string at location 1:15"),
    ("{ a { } }", "expected at least one definition, found } in GraphQL string at location 1:7"),
    ("{ a { # nothing here\n } }", "expected at least one definition, found } in GraphQL string at location 2:2"),
    ("{ }", "expected at least one definition, found } in GraphQL string at location 1:3"),
    ("{ a(x: \"\"\"s\"\"\" }", "Expected Name, found } in GraphQL string at location 1:16"),
    ("{ a { ... } }", "Expected {, found } in GraphQL string at location 1:11"),
    ("... on T", "Unexpected ... in GraphQL string at location 1:1"),
    ("query ($a: [Int] = [1, $b]) { f }", "Unexpected $ in GraphQL string at location 1:24"),
    ("{ f(x: 1 }", "Expected Name, found } in GraphQL string at location 1:10"),
    ("query Q { f } )", "Unexpected ) in GraphQL string at location 1:15"),
])
def test_invalid_queries_fail_with_gqlparser_messages(query: str, message: str) -> None:
    with pytest.raises(BuiltinError) as info:
        call("graphql.parse_query", query)
    assert str(info.value) == f"graphql.parse_query: {message}"


@pytest.mark.parametrize(("query", "message"), [
    ('{ f(a: "open) }', "Unterminated string."),
    ("{ f ^ }", 'Cannot parse the unexpected character "^".'),
    ("{ f(a: 007) }", 'Invalid number, unexpected digit after 0: "0".'),
    ("{ f(a: 2.) }", 'Invalid number, expected digit but got: ")".'),
    ("{ f(a: -", "Invalid number, expected digit but got: <EOF>."),
    ('{ f(a: "\\z") }', "Invalid character escape sequence: \\z."),
])
def test_lexer_errors_in_gqlparser_wording(query: str, message: str) -> None:
    fails("graphql.parse_query", query, match=f"graphql.parse_query: {message} in GraphQL string at location 1:")
