"""docs/rulebook.md: every rulebook.yml key with its type, default, description and example,
rendered from the JSON Schema that authoring/schema.py generates from the pydantic models."""

from __future__ import annotations

import json
from typing import Any

import yaml

from cupcake_py.authoring.docgen.page import banner
from cupcake_py.authoring.schema import SCHEMA_LINE, rulebook_schema

INTRO = """# `rulebook.yml` reference

The rulebook configures a cupcake project (`.cupcake/rulebook.yml`) or the global config
(`~/.config/cupcake/rulebook.yml`). Unknown keys are errors, reported as `file:row:col`;
`cupcake verify` checks it. `cupcake schema rulebook` prints its JSON Schema: `cupcake init`
saves it as `.cupcake/rulebook.schema.json` and starts the rulebook with

```yaml
{line}
```

so editors with the YAML language server complete and check every key.

"""


UNDOCUMENTED = "**(undocumented: add `Field(description=...)` in cupcake_py/engine/rulebook.py)**"


def _name(ref: str) -> str:
    return ref.rsplit("/", 1)[-1]


def _anchor(name: str) -> str:
    return f"#{name.lower()}"


def _type(p: dict[str, Any]) -> str:
    if "$ref" in p:
        return f"[{_name(p['$ref'])}]({_anchor(_name(p['$ref']))})"
    if "anyOf" in p:
        alts = [a for a in p["anyOf"] if a.get("type") != "null"]
        nullable = len(alts) < len(p["anyOf"])
        return " \\| ".join(_type(a) for a in alts) + (" or null" if nullable and len(alts) > 1 else "")
    if "const" in p or "enum" in p:
        return " \\| ".join(f"`{json.dumps(v)}`" for v in p.get("enum", [p.get("const")]))
    t = p.get("type")
    if t == "array":
        return f"list of {_type(p.get('items', {}))}"
    if t == "object":
        return f"map of name → {_type(p.get('additionalProperties', {}))}"
    return str(t)


def _default(key: str, p: dict[str, Any], required: list[str]) -> str:
    if key in required:
        return "required"
    if "$ref" in p and isinstance(p.get("default"), dict):
        return "its keys' defaults"
    if "default" in p:
        return f"`{json.dumps(p['default'])}`"
    return "—"


def _description(p: dict[str, Any], defs: dict[str, Any]) -> str:
    text = p.get("description")
    if text is None:  # an optional model (builtins): its class docstring
        refs = [a["$ref"] for a in p.get("anyOf", []) if "$ref" in a] or ([p["$ref"]] if "$ref" in p else [])
        text = defs[_name(refs[0])].get("description", "") if refs else ""
    return " ".join(text.split()).replace("|", "\\|") or UNDOCUMENTED


def _example(key: str, p: dict[str, Any]) -> str | None:
    """`key: value` with the field's first example, else its (non-null, non-model) default."""
    if p.get("examples"):
        value = p["examples"][0]
    elif p.get("default") is not None and not ("$ref" in p and isinstance(p["default"], dict)):
        value = p["default"]
    else:
        return None
    flow = yaml.safe_dump(value, sort_keys=False, default_flow_style=True, width=1000).strip()
    return f"{key}: {flow.removesuffix(chr(10) + '...').strip()}\n"


def _table(model: dict[str, Any], defs: dict[str, Any]) -> list[str]:
    out = ["| Key | Type | Default | Description |\n", "| --- | --- | --- | --- |\n"]
    examples = []
    required = model.get("required", [])
    for key, p in model.get("properties", {}).items():
        out.append(f"| `{key}` | {_type(p)} | {_default(key, p, required)} | {_description(p, defs)} |\n")
        ex = _example(key, p)
        if ex:
            examples.append(ex)
    if examples:
        out.append("\nExample:\n\n```yaml\n" + "".join(examples) + "```\n")
    return out


def _order(schema: dict[str, Any]) -> list[str]:
    """Model names in reading order: depth-first from the top level, each once."""
    defs = schema["$defs"]
    seen: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and _name(ref) not in seen:
                seen.append(_name(ref))
                walk(defs[_name(ref)])
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(schema.get("properties", {}))
    return seen


def render() -> str:
    schema = rulebook_schema()
    defs = schema["$defs"]
    out = [banner("cupcake_py/engine/rulebook.py (pydantic models)"), INTRO.format(line=SCHEMA_LINE),
           "## Top level\n\n", *_table(schema, defs)]
    for name in _order(schema):
        out += [f"\n## {name}\n\n", f"{_description(defs[name], defs)}\n\n", *_table(defs[name], defs)]
    return "".join(out)
