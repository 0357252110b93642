"""`cupcake schema rulebook`: the JSON Schema generated from the pydantic rulebook models
accepts every rulebook in the repository (templates, examples, fixtures) and rejects the
rulebooks the engine rejects; `cupcake init` writes it next to the rulebook."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
import yaml
from typer.testing import CliRunner

from cupcake_py.authoring.scaffold import TEMPLATES, rulebook_text
from cupcake_py.authoring.schema import SCHEMA_FILE, SCHEMA_LINE, rulebook_schema
from cupcake_py.cli.app import app
from tests.engine.rulebook_cases import BAD_RULEBOOKS

REPO = Path(__file__).resolve().parents[2]
SKIP_DIRS = {".venv", "node_modules", ".git", ".cache"}
runner = CliRunner()


def repo_rulebooks() -> list[Path]:
    # the raw init template has a placeholder; its rendered forms are checked as template:*
    return sorted(p for p in REPO.rglob("rulebook.y*ml") if not SKIP_DIRS & set(p.relative_to(REPO).parts)
                  and p.parent != TEMPLATES)


def validator() -> jsonschema.protocols.Validator:
    schema = rulebook_schema()
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


def test_cli_prints_the_schema() -> None:
    r = runner.invoke(app, ["schema", "rulebook"])
    assert r.exit_code == 0 and json.loads(r.stdout) == rulebook_schema()
    r = runner.invoke(app, ["schema", "rulebook", "--markdown"])
    assert r.exit_code == 0 and r.stdout == (REPO / "docs/rulebook.md").read_text()


def test_every_rulebook_in_the_repo_is_valid() -> None:
    found = repo_rulebooks()
    assert len(found) >= 4, found
    v = validator()
    docs = {str(p.relative_to(REPO)): p.read_text() for p in found}
    docs |= {"template:project": rulebook_text("project"), "template:global": rulebook_text("global")}
    for name, text in docs.items():
        errors = [e.message for e in v.iter_errors(yaml.safe_load(text) or {})]
        assert errors == [], name


@pytest.mark.parametrize(("text", "needle"), BAD_RULEBOOKS)
def test_bad_rulebooks_are_rejected(text: str, needle: str) -> None:
    try:
        doc = yaml.safe_load(text)
    except yaml.YAMLError:
        return  # not YAML: no schema is consulted (the engine reports the YAML error)
    assert list(validator().iter_errors(doc)), f"the schema accepts a rulebook the engine rejects ({needle})"


def test_init_writes_the_schema_and_the_rulebook_names_it(tmp_path: Path) -> None:
    r = runner.invoke(app, ["init", "--harness", "opencode", "--dir", str(tmp_path)])
    assert r.exit_code == 0, r.output
    cc = tmp_path / ".cupcake"
    assert json.loads((cc / SCHEMA_FILE).read_text()) == rulebook_schema()
    assert (cc / "rulebook.yml").read_text().splitlines()[0] == SCHEMA_LINE


def test_every_rulebook_key_is_documented() -> None:
    """Each key of every rulebook model has a description (Field(description=...), or for an
    optional builtin model its class docstring): docs/rulebook.md shows it."""
    from cupcake_py.authoring.docgen.rulebook_doc import UNDOCUMENTED

    page = (REPO / "docs/rulebook.md").read_text()
    assert UNDOCUMENTED not in page, "a rulebook key lacks a description (see docs/rulebook.md)"


def test_the_reference_examples_are_valid() -> None:
    """Every Example block of docs/rulebook.md validates against its model's schema."""
    import re

    schema = rulebook_schema()
    page = (REPO / "docs/rulebook.md").read_text()
    checked = 0
    for section in re.split(r"^## ", page, flags=re.M)[1:]:
        name = section.splitlines()[0].strip()
        m = re.search(r"^Example:\n\n```yaml\n(.*?)^```", section, re.M | re.S)
        if m is None:
            continue
        target = schema if name == "Top level" else {"$defs": schema["$defs"], "$ref": f"#/$defs/{name}"}
        jsonschema.validate(yaml.safe_load(m.group(1)), target)
        checked += 1
    assert checked >= 10
