"""METADATA blocks: YAML parsing, attachment to package/rule, scopes, field validation."""

from __future__ import annotations

import pytest

from cupcake_py.core.errors import Location
from cupcake_py.rego import ast as A
from cupcake_py.rego import parse_module
from cupcake_py.rego.errors import RegoErrors
from cupcake_py.rego.printer import print_module

POLICY = """# METADATA
# title: Git safety
# description: Blocks dangerous git commands
# scope: subpackages
# authors:
# - Jane Doe <jane@example.com>
# - name: Bob
# organizations: [acme]
# related_resources:
# - https://example.com/a
# - ref: https://example.com/b
#   description: docs
# custom:
#   routing:
#     required_events: ["PreToolUse"]
#     required_tools: ["Bash"]
#     required_signals: [git_branch]
package cupcake.policies.git

import rego.v1

# a plain comment, not metadata
x := 1

# METADATA
# title: deny force push
# entrypoint: true
# schemas:
#   - input: schema.input
#   - input.tool: {type: string}
deny contains msg if {
	input.tool == "Bash"
	msg := "no"
}

# METADATA
# scope: document
# description: whole document
allow := true
"""


def test_package_and_rule_annotations() -> None:
    m = parse_module(POLICY, "git.rego")
    (pkg,) = m.package.annotations
    assert pkg.scope == "subpackages" and pkg.title == "Git safety"
    assert pkg.description == "Blocks dangerous git commands"
    assert pkg.authors == [A.AuthorAnnotation("Jane Doe", "jane@example.com"), A.AuthorAnnotation("Bob", "")]
    assert pkg.organizations == ["acme"]
    assert pkg.related_resources == [A.RelatedResourceAnnotation("https://example.com/a"),
                                     A.RelatedResourceAnnotation("https://example.com/b", "docs")]
    assert pkg.routing() == {"required_events": ["PreToolUse"], "required_tools": ["Bash"],
                             "required_signals": ["git_branch"]}
    assert pkg.location == Location("git.rego", 1, 1)
    x, deny, allow = m.rules
    assert x.annotations == []
    (d,) = deny.annotations
    assert d.scope == "rule" and d.title == "deny force push" and d.entrypoint
    assert [(s.path.dotted(), s.schema.dotted() if s.schema else None, s.definition) for s in d.schemas] == [
        ("input", "schema.input", None), ("input.tool", None, {"type": "string"})]
    assert d.routing() == {}
    (a,) = allow.annotations
    assert a.scope == "document" and a.description == "whole document"
    assert m.annotations == [pkg, d, a]


def test_default_scopes() -> None:
    m = parse_module("# METADATA\n# title: p\npackage p\n\n# METADATA\n# title: r\nr := 1\n", "s.rego")
    assert m.package.annotations[0].scope == "package"
    assert m.rules[0].annotations[0].scope == "rule"


def test_annotations_survive_printing() -> None:
    m = parse_module(POLICY, "git.rego")
    assert parse_module(print_module(m), "again.rego") == m


def test_indented_metadata_is_a_plain_comment() -> None:
    """Like OPA, only a `# METADATA` comment in column 1 opens a block."""
    src = "package p\n\na if {\n  # METADATA\n  # title: inner\n  true\n}\n\nb := 2\n"
    m = parse_module(src, "i.rego")
    assert m.rules[0].annotations == [] and m.rules[1].annotations == [] and m.annotations == []


@pytest.mark.parametrize("rule", ["p := 1 # tail", "p := 1 if { # tail\n\ttrue\n}", "p if true # x: y"])
def test_metadata_before_rule_line_with_trailing_comment(rule: str) -> None:
    """A comment at the end of the rule line is not part of the block above it."""
    m = parse_module(f"package a\n# METADATA\n# title: T\n{rule}\n", "t.rego")
    assert [a.title for a in m.rules[0].annotations] == ["T"]


def test_metadata_block_ends_at_a_gap_or_an_indented_comment() -> None:
    src = "package a\n# METADATA\n# title: A\n  # description: indented\n\n# description: after gap\np := 1\n"
    m = parse_module(src, "t.rego")
    assert [(a.title, a.description) for a in m.rules[0].annotations] == [("A", None)]


@pytest.mark.parametrize(("block", "target", "message"), [
    ("# title: [unclosed", "p := 1", "invalid METADATA block: YAML error"),
    ("# scope: galaxy", "p := 1", "invalid scope `galaxy`"),
    ("# scope: package", "p := 1", "annotation scope `package` must be applied to a package"),
    ("# scope: subpackages", "p := 1", "annotation scope `subpackages` must be applied to a package"),
    ("# title: [1]", "p := 1", "cannot unmarshal !!seq into string"),
    ("# entrypoint: yes please", "p := 1", "cannot unmarshal !!str `yes please` into bool"),
    ("# authors: 5", "p := 1", "`authors` must be a list"),
    ("# schemas: [input: 1]", "p := 1", "a schema must be a reference"),
    ("# custom: 3", "p := 1", "cannot unmarshal !!int into map[string]interface {}"),
    ("# - a list", "p := 1", "cannot unmarshal !!seq into ast.rawAnnotation"),
    ("# title: x", "", "METADATA block is not followed by a package or rule"),
])
def test_invalid_blocks(block: str, target: str, message: str) -> None:
    src = f"package p\n\n# METADATA\n{block}\n{target}\n"
    with pytest.raises(RegoErrors) as info:
        parse_module(src, "bad.rego")
    (err,) = info.value.errors
    assert err.code == "rego_parse_error" and message in err.message
    assert err.location is not None and err.location.file == "bad.rego" and err.location.row in (3, 4)


def test_rule_scope_before_package_is_an_error() -> None:
    with pytest.raises(RegoErrors, match="annotation scope `rule` must be applied to a rule"):
        parse_module("# METADATA\n# scope: rule\npackage p\n", "x.rego")


@pytest.mark.parametrize("key", ["description", "related_resources", "schemas", "authors",
                                 "organizations", "custom", "entrypoint", "scope"])
def test_empty_yaml_value_is_absent(key: str) -> None:
    """`description:` with nothing after it is YAML null: OPA reads it as the field's zero value."""
    m = parse_module(f"package a\n# METADATA\n# {key}:\n# title: T\np := 1\n", "t.rego")
    (ann,) = m.rules[0].annotations
    assert (ann.scope, ann.title) == ("rule", "T")
    assert not ann.authors and not ann.schemas and not ann.related_resources and not ann.custom


def test_unknown_and_compile_keys_are_ignored_as_in_opa() -> None:
    src = "package a\n# METADATA\n# colour: red\n# compile:\n#   unknowns: [input]\n# title: T\np := 1\n"
    (ann,) = parse_module(src, "t.rego").rules[0].annotations
    assert ann.title == "T"


@pytest.mark.parametrize("block", ["# METADATA\n", "# METADATA\n#\n#   \n"])
def test_metadata_block_without_yaml_is_an_error_as_in_opa(block: str) -> None:
    with pytest.raises(RegoErrors) as info:
        parse_module(f"package a\n{block}p := 1\n", "t.rego")
    assert "expected METADATA block, found whitespace" in str(info.value)


@pytest.mark.parametrize("block", [
    '# authors:\n# - ""',
    "# authors:\n# - name: ''\n#   email: ' '",
    '# related_resources:\n# - ""',
    "# related_resources:\n# - description: no ref",
    "# related_resources:\n# - ref: ''",
])
def test_empty_authors_and_resources_are_errors_as_in_opa(block: str) -> None:
    with pytest.raises(RegoErrors):
        parse_module(f"package a\n# METADATA\n{block}\np := 1\n", "t.rego")
