"""METADATA annotations: `# METADATA` comment blocks parsed as YAML and attached to the
package or rule that follows them (OPA's rules).

A block starts with a comment line starting with `METADATA` in column 1 and runs over
the following column-1 comment lines with no gap. It belongs to the first package or rule that starts
after it. Scopes: `rule` (default before a rule), `document` (before a rule; applies to
all rules of that name), `package` (default before the package), `subpackages`
(before the package). Fields: scope, title, description, related_resources, authors,
organizations, schemas, entrypoint, custom. As in OPA (Go YAML into a struct), a field left
empty (YAML null) is absent and other keys (`compile`, typos) are ignored; a known field
with a value of the wrong shape is a rego_parse_error.
"""

from __future__ import annotations

from collections.abc import Callable

from cupcake_py.core.errors import Location
from cupcake_py.rego import ast as A
from cupcake_py.rego.errors import PARSE, RegoError, RegoErrors

TYPE_CHECKING = False
if TYPE_CHECKING:  # (typing stays off a first `cupcake test` run's start-up)
    from typing import Any

RULE_SCOPES = frozenset({"rule", "document"})
PACKAGE_SCOPES = frozenset({"package", "subpackages"})


class _Invalid(Exception):
    pass


def _str(v: Any, key: str) -> str:
    if not isinstance(v, str):
        raise _Invalid(f"`{key}` must be a string")
    return v


def _str_list(v: Any, key: str) -> list[str]:
    if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
        raise _Invalid(f"`{key}` must be a list of strings")
    return list(v)


def _author(v: Any) -> A.AuthorAnnotation:
    if isinstance(v, str):
        text = v.strip()
        if not text:
            raise _Invalid("invalid author definition: author is an empty string")
        if text.endswith(">") and "<" in text:
            name, _, email = text[:-1].rpartition("<")
            return A.AuthorAnnotation(name.strip(), email.strip())
        return A.AuthorAnnotation(text, "")
    if isinstance(v, dict) and set(v) <= {"name", "email"}:
        name, email = _str(v.get("name", ""), "name").strip(), _str(v.get("email", ""), "email").strip()
        if name or email:
            return A.AuthorAnnotation(name, email)
    raise _Invalid("each author must be a string `Name <email>` or an object with `name`/`email`")


def _authors(v: Any) -> list[A.AuthorAnnotation]:
    if not isinstance(v, list):
        raise _Invalid("`authors` must be a list")
    return [_author(x) for x in v]


def _related(v: Any) -> list[A.RelatedResourceAnnotation]:
    if not isinstance(v, list):
        raise _Invalid("`related_resources` must be a list")
    out = []
    for x in v:
        if isinstance(x, str) and x.strip():
            out.append(A.RelatedResourceAnnotation(x))
        elif isinstance(x, dict) and isinstance(x.get("ref"), str) and x["ref"].strip() \
                and set(x) <= {"ref", "description"}:
            out.append(A.RelatedResourceAnnotation(_str(x["ref"], "ref"), _str(x.get("description", ""), "description")))
        else:
            raise _Invalid("each related resource must be a URL string or an object with `ref` [and `description`]")
    return out


def _schema_ref(text: str, what: str) -> A.Ref:
    from cupcake_py.rego.parser import parse_term_text

    try:
        term = parse_term_text(text)
    except RegoErrors:
        raise _Invalid(f"invalid {what} `{text}`") from None
    if isinstance(term.value, A.Var):
        return A.Ref([term])
    if isinstance(term.value, A.Ref):
        return term.value
    raise _Invalid(f"invalid {what} `{text}`: must be a reference such as `input.x`")


def _schemas(v: Any) -> list[A.SchemaAnnotation]:
    if not isinstance(v, list):
        raise _Invalid("`schemas` must be a list of `<path>: <schema>` entries")
    out = []
    for x in v:
        if not isinstance(x, dict) or len(x) != 1:
            raise _Invalid("each schema entry must be a single `<path>: <schema ref or definition>`")
        (path, schema), = x.items()
        ref = _schema_ref(str(path), "schema path")
        if isinstance(schema, str):
            out.append(A.SchemaAnnotation(ref, schema=_schema_ref(schema, "schema reference")))
        elif isinstance(schema, dict):
            out.append(A.SchemaAnnotation(ref, definition=schema))
        else:
            raise _Invalid("a schema must be a reference like `schema.input` or an inline definition object")
    return out


def _entrypoint(v: Any) -> bool:
    if not isinstance(v, bool):
        raise _Invalid("`entrypoint` must be true or false")
    return v


def _custom(v: Any) -> dict[str, Any]:
    if not isinstance(v, dict):
        raise _Invalid("`custom` must be a mapping")
    return v


_FIELDS: dict[str, tuple[str, Callable[[Any], Any]]] = {
    "title": ("title", lambda v: _str(v, "title")),
    "description": ("description", lambda v: _str(v, "description")),
    "organizations": ("organizations", lambda v: _str_list(v, "organizations")),
    "related_resources": ("related_resources", _related),
    "authors": ("authors", _authors),
    "schemas": ("schemas", _schemas),
    "entrypoint": ("entrypoint", _entrypoint),
    "custom": ("custom", _custom),
}


# the Go type of each field of OPA's rawAnnotation struct, as yaml_values.load_metadata takes them
_KINDS = {"scope": "string", "title": "string", "description": "string", "entrypoint": "bool",
          "organizations": "[]string", "related_resources": "any", "authors": "any", "schemas": "any",
          "custom": "map"}


def parse_block(yaml_text: str, location: Location, default_scope: str) -> A.Annotations:
    """Parse one block's YAML text; raises RegoError (rego_parse_error) when invalid."""
    if not yaml_text.strip():
        raise RegoError(PARSE, "expected METADATA block, found whitespace", location)
    import yaml  # (only a module with a METADATA block loads YAML)

    from cupcake_py.core import yaml_values

    try:
        # as go-yaml v3 decodes into OPA's struct: strings as written, timestamps stay text
        data = yaml_values.load_metadata(yaml_text, _KINDS)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        if mark is None:
            raise RegoError(PARSE, f"invalid METADATA block: {exc}", location) from None
        where = Location(location.file, location.row + 1 + mark.line, mark.column + 3)
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise RegoError(PARSE, f"invalid METADATA block: YAML error: {problem}", where) from None
    except (ValueError, TypeError, OverflowError, RecursionError) as exc:  # e.g. an impossible date
        raise RegoError(PARSE, f"invalid METADATA block: {exc}", location) from None
    ann = A.Annotations(scope=default_scope, location=location)
    try:
        for key, value in data.items():
            if value is None or key not in _FIELDS and key != "scope":
                continue  # a key left empty (YAML null) or one OPA does not know: ignored, as OPA does
            if key == "scope":
                scope = _str(value, "scope")
                if scope not in RULE_SCOPES | PACKAGE_SCOPES:
                    raise _Invalid(f"invalid scope `{scope}`: use rule, document, package or subpackages")
                ann.scope = scope
            else:
                attr, conv = _FIELDS[key]
                setattr(ann, attr, conv(value))
    except _Invalid as exc:
        raise RegoError(PARSE, f"invalid METADATA block: {exc}", location) from None
    return ann


def _is_metadata(c: A.Comment) -> bool:
    return c.location.col == 1 and c.text.strip().startswith("METADATA")  # (OPA: a prefix, `# METADATA:` too)


def _blocks(comments: list[A.Comment]) -> list[tuple[A.Comment, str, int]]:
    """(METADATA comment, YAML text, last row of the block). Like OPA, a block is a `# METADATA`
    comment in column 1 and the comments in column 1 on the rows right after it; a comment
    after code (`p := 1 # note`) never belongs to a block."""
    out = []
    i = 0
    while i < len(comments):
        c = comments[i]
        if not _is_metadata(c):
            i += 1
            continue
        lines = []
        row = c.location.row
        j = i + 1
        while j < len(comments) and comments[j].location.row == row + 1 and comments[j].location.col == 1 \
                and not _is_metadata(comments[j]):
            lines.append(comments[j].text)
            row += 1
            j += 1
        from textwrap import dedent  # (only a METADATA block loads it)

        out.append((c, dedent("\n".join(lines)), row))
        i = j
    return out


def attach_annotations(module: A.Module) -> list[RegoError]:
    """Parse the module's METADATA blocks and attach them; returns the errors found."""
    blocks = _blocks(module.comments)
    if not blocks:
        return []
    errors: list[RegoError] = []
    targets: list[tuple[int, A.Package | A.Rule]] = [(module.package.location.row, module.package)]
    targets += [(r.location.row, r) for r in module.rules]
    ti = 0
    for comment, text, last_row in blocks:
        while ti < len(targets) and targets[ti][0] <= last_row:
            ti += 1
        if ti == len(targets):
            errors.append(RegoError(PARSE, "METADATA block is not followed by a package or rule", comment.location))
            continue
        target = targets[ti][1]
        is_pkg = isinstance(target, A.Package)
        try:
            ann = parse_block(text, comment.location, "package" if is_pkg else "rule")
        except RegoError as exc:
            errors.append(exc)
            continue
        allowed = PACKAGE_SCOPES if is_pkg else RULE_SCOPES
        if ann.scope not in allowed:
            what = "package" if ann.scope in PACKAGE_SCOPES else "rule"
            errors.append(RegoError(PARSE, f"annotation scope `{ann.scope}` must be applied to a {what}",
                                    comment.location))
            continue
        target.annotations.append(ann)
        module.annotations.append(ann)
    return errors
