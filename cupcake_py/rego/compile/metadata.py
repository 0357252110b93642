"""Inlining of `rego.metadata.rule()` and `rego.metadata.chain()` as constant terms."""

from __future__ import annotations

from typing import Any

from cupcake_py.rego import ast as A


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
    if isinstance(v, str):
        return A.Term(A.String(v), loc)
    if isinstance(v, list):
        return A.Term(A.Array([json_term(x, loc) for x in v]), loc)
    if isinstance(v, dict):
        return A.Term(A.Object([(json_term(k, loc), json_term(x, loc)) for k, x in v.items()]), loc)
    return A.Term(A.String(str(v)), loc)


def metadata_term(name: str, module: A.Module, rule: A.Rule, loc: A.Location) -> A.Term:
    rule_ann = [a for a in rule.annotations if a.scope in ("rule", "document")]
    if name == "rego.metadata.rule":
        return json_term(_annotations_json(rule_ann[0]) if rule_ann else {}, loc)
    pkg = [t.value.value for t in module.package.path.terms[1:] if isinstance(t.value, A.String)]
    path = ["data", *pkg, rule.head.name]
    chain: list[dict[str, Any]] = []
    entry: dict[str, Any] = {"path": path}
    if rule_ann:
        entry["annotations"] = _annotations_json(rule_ann[0])
    chain.append(entry)
    pkg_ann = [a for a in module.annotations if a.scope == "package"]
    if pkg_ann:
        chain.append({"path": ["data", *pkg], "annotations": _annotations_json(pkg_ann[0])})
    return json_term(chain, loc)
