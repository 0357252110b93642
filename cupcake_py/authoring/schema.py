"""`cupcake schema rulebook`: the JSON Schema of rulebook.yml, generated from the pydantic
models of engine/rulebook.py (so it cannot drift from what the engine accepts).

Out: a JSON Schema (draft 2020-12) dict; the Cupcake 0.5.2 builtin aliases (rulebook.ALIASES)
are listed as properties too, since the engine accepts them. Editors use it through the
`# yaml-language-server: $schema=rulebook.schema.json` line of `cupcake init`'s rulebook
(which writes the schema next to it). The engine itself validates with pydantic, which also
runs checks a schema cannot express exactly; the schema never accepts what pydantic rejects
for the cases tests/authoring/test_schema.py lists. `cupcake schema` (cli/schema.py) prints it."""

from __future__ import annotations

from typing import Any

SCHEMA_FILE = "rulebook.schema.json"
SCHEMA_LINE = f"# yaml-language-server: $schema={SCHEMA_FILE}"


def _factory_defaults(node: dict[str, Any], cls: Any) -> None:
    """pydantic leaves `default_factory` defaults out of the schema; put their values in."""
    from pydantic_core import to_jsonable_python

    for fname, info in cls.model_fields.items():
        if info.default_factory is not None and fname in node.get("properties", {}):
            node["properties"][fname]["default"] = to_jsonable_python(info.default_factory())


def rulebook_schema() -> dict[str, Any]:
    from pydantic import BaseModel

    from cupcake_py.engine import rulebook
    from cupcake_py.engine.rulebook import ALIASES, Rulebook

    schema = Rulebook.model_json_schema()
    _factory_defaults(schema, Rulebook)
    for name, sub in schema["$defs"].items():
        cls = getattr(rulebook, name, None)
        if isinstance(cls, type) and issubclass(cls, BaseModel):
            _factory_defaults(sub, cls)
    props = schema["$defs"]["Builtins"]["properties"]
    for alias, name in sorted(ALIASES.items()):
        props[alias] = {**props[name], "description": f"Cupcake 0.5.2 name of `{name}`."}
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "title": "cupcake rulebook.yml", **schema}


def schema_text() -> str:
    import json

    return json.dumps(rulebook_schema(), indent=2, sort_keys=True) + "\n"
