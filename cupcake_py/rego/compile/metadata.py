"""Inlining of `rego.metadata.rule()` and `rego.metadata.chain()` as constant terms."""

from __future__ import annotations

from cupcake_py.rego import ast as A
from cupcake_py.rego.lexer import LONE_SURROGATE

TYPE_CHECKING = False
if TYPE_CHECKING:  # (typing stays off a first `cupcake test` run's start-up)
    from typing import Any


def _annotations_json(a: A.Annotations) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if a.authors:
        out["authors"] = [{k: v for k, v in (("name", x.name), ("email", x.email)) if v} for x in a.authors]
    if a.custom:
        out["custom"] = a.custom
    if a.description is not None:
        out["description"] = a.description
    if a.entrypoint:
        out["entrypoint"] = True
    if a.organizations:
        out["organizations"] = list(a.organizations)
    if a.related_resources:
        out["related_resources"] = [
            {k: v for k, v in (("ref", x.ref), ("description", x.description)) if v} for x in a.related_resources]
    out["scope"] = a.scope
    if a.title is not None:
        out["title"] = a.title
    return out


def json_term(v: Any, loc: A.Location) -> A.Term:
    if v is None:
        return A.Term(A.Null(), loc)
    if isinstance(v, bool):
        return A.Term(A.Boolean(v), loc)
    if isinstance(v, int | float):
        return A.Term(A.Number(str(v)), loc)
    if isinstance(v, str):  # YAML may hold an unpaired surrogate escape: U+FFFD, as Go decodes it
        return A.Term(A.String(LONE_SURROGATE.sub("\ufffd", v)), loc)
    if isinstance(v, list):
        return A.Term(A.Array([json_term(x, loc) for x in v]), loc)
    if isinstance(v, dict):
        return A.Term(A.Object([(json_term(k, loc), json_term(x, loc)) for k, x in v.items()]), loc)
    return A.Term(A.String(str(v)), loc)


class MetadataIndex:
    """The annotations of every module, looked up as OPA's annotation set does: package and
    `subpackages` scopes by package path and `document` scope by rule path, whichever module
    declared them (a package's METADATA may sit in another file of the same package)."""

    def __init__(self, modules: list[A.Module]) -> None:
        self.package: dict[tuple[Any, ...], A.Annotations] = {}
        self.subpackages: dict[tuple[Any, ...], A.Annotations] = {}
        self.document: dict[tuple[Any, ...], A.Annotations] = {}
        for m in modules:
            pkg = _package_path(m)
            for a in m.package.annotations:
                table = self.package if a.scope == "package" else self.subpackages
                table.setdefault(pkg, a)
            for r in m.rules:
                for a in r.annotations:
                    if a.scope == "document":
                        self.document.setdefault((*pkg, *_ground_prefix(r)), a)

    def term(self, name: str, module: A.Module, rule: A.Rule, loc: A.Location) -> A.Term:
        """The constant `rego.metadata.rule()` / `rego.metadata.chain()` of `rule`. Chain paths
        leave out the leading `data`, as OPA's do."""
        own = [a for a in rule.annotations if a.scope == "rule"]
        if name == "rego.metadata.rule":
            first = [a for a in rule.annotations if a.scope in ("rule", "document")]
            return json_term(_annotations_json(first[0]) if first else {}, loc)
        pkg = _package_path(module)
        path = [*pkg, *_ground_prefix(rule)]
        chain: list[dict[str, Any]] = [
            {"path": path, "annotations": _annotations_json(a)}
            for a in sorted(own, key=lambda a: (a.location.row, a.location.col), reverse=True)
        ] or [{"path": path}]
        doc = self.document.get(tuple(path))
        if doc is not None:
            chain.append({"path": path, "annotations": _annotations_json(doc)})
        if pkg in self.package:
            chain.append({"path": list(pkg), "annotations": _annotations_json(self.package[pkg])})
        for n in range(len(pkg), 0, -1):
            sub = self.subpackages.get(pkg[:n])
            if sub is not None:
                chain.append({"path": list(pkg[:n]), "annotations": _annotations_json(sub)})
        return json_term(chain, loc)


def _package_path(m: A.Module) -> tuple[Any, ...]:
    return tuple(t.value.value for t in m.package.path.terms[1:] if isinstance(t.value, A.String))


def _ground_prefix(rule: A.Rule) -> list[Any]:
    """The rule's head ref up to its first non-scalar key (OPA's `GroundPrefix`)."""
    ref = rule.head.ref
    out: list[Any] = [rule.head.name if isinstance(ref.terms[0].value, A.Var) else ""]
    for t in ref.terms[1:]:
        v = t.value
        if isinstance(v, A.String | A.Boolean):
            out.append(v.value)
        elif isinstance(v, A.Number):
            out.append(_number(v.text))
        else:
            break
    return out


def _number(text: str) -> int | float:
    try:
        return int(text)
    except ValueError:
        return float(text)
