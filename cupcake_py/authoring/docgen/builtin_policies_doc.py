"""docs/builtin-policies.md: the builtin policy reference.

Generated part, per policies/builtins/<name>.rego: its METADATA (title, description, rule
id, severity, routing), the decision verbs it uses, its rulebook configuration (a link to
the model's section of docs/rulebook.md) and the behaviours its unit tests pin down (the
`test_*` rule names of <name>_test.rego). Hand-written part: docs/_parts/builtin-policies.md (the
introduction) and docs/_parts/builtin-policies/<name>.md (examples of events it denies and allows,
what it cannot see), included verbatim; a missing part is shown as missing."""

from __future__ import annotations

from pathlib import Path

from cupcake_py.authoring.docgen.page import REPO, banner

PARTS = REPO / "docs" / "_parts"


def _config_model(name: str) -> str | None:
    """The rulebook model (docs/rulebook.md section) that configures builtin `name`."""
    from cupcake_py.engine.rulebook import Builtins

    field = Builtins.model_fields.get(name)
    if field is None:
        return None
    for arg in getattr(field.annotation, "__args__", (field.annotation,)):
        if isinstance(arg, type) and arg is not type(None):
            return arg.__name__
    return None


def _tests(test_file: Path) -> list[str]:
    from cupcake_py.rego import parse_module, read_source

    if not test_file.is_file():
        return []
    module = parse_module(read_source(test_file), str(test_file))
    names = []
    for rule in module.rules:
        head = rule.head.name
        if head.startswith("test_") and head not in names:
            names.append(head)
    return names


def _section(path: Path) -> str:
    from cupcake_py.authoring.lint_context import ModuleInfo
    from cupcake_py.rego import parse_module, read_source

    text = read_source(path)
    mi = ModuleInfo(parse_module(text, str(path)), str(path), text)
    ann = next((a for a in mi.module.annotations if a.scope == "package"), None)
    name = path.stem
    title = ann.title if ann and ann.title else name
    custom = ann.custom if ann else {}
    out = [f"## {name}\n\n", f"**{title}**\n\n"]
    if ann and ann.description:
        out.append(" ".join(ann.description.split()) + "\n\n")
    facts = [f"rule id `{custom.get('id', '?')}`", f"severity {custom.get('severity', '?')}",
             f"verbs {', '.join(f'`{v}`' for v in mi.verb_names) or '—'}",
             f"events {', '.join(mi.events) or '—'}", f"tools {', '.join(mi.tools) or '—'}"]
    if mi.signals:
        facts.append(f"signals {', '.join(mi.signals)}")
    out.append("- " + "; ".join(facts) + "\n")
    model = _config_model(name)
    if model:
        out.append(f"- configuration: `builtins.{name}` ([{model}](rulebook.md#{model.lower()}))\n")
    tests = _tests(path.with_name(f"{name}_test.rego"))
    if tests:
        shown = ", ".join(t[len("test_"):].replace("_", " ") for t in tests)
        out.append(f"- behaviour pinned by `policies/builtins/{name}_test.rego`: {shown}\n")
    part = PARTS / "builtin-policies" / f"{name}.md"
    if part.is_file():  # optional per-builtin notes
        out.append("\n" + part.read_text("utf-8").strip() + "\n")
    return "".join(out) + "\n"


def render() -> str:
    from cupcake_py.engine.project import is_test_file, rego_files, shipped_policies_dir

    policies = [p for p in rego_files(shipped_policies_dir() / "builtins") if not is_test_file(p)]
    intro = (PARTS / "builtin-policies.md").read_text("utf-8").strip() + "\n\n"
    index = "".join(f"- [{p.stem}](#{p.stem})\n" for p in policies) + "\n"
    body = "".join(_section(p) for p in policies)
    return banner("policies/builtins/*.rego METADATA and docs/_parts/builtin-policies*") + intro + index + body.rstrip() + "\n"
