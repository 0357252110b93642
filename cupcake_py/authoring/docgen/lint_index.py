"""docs/lint/README.md: the table of lint rules, from authoring/findings.py RULES."""

from __future__ import annotations

from cupcake_py.authoring.docgen import banner
from cupcake_py.authoring.findings import RULES

PAGES_DIR = "../../cupcake_py/authoring/lint_docs"


def render() -> str:
    out = [banner("cupcake_py/authoring/findings.py"), "# `cupcake validate` lint rules\n\n",
           "`cupcake validate [--format text|json|sarif|github] [PATH...]` parses and compile-checks every `.rego` "
           "file under PATH (default: the current project's `.cupcake/`) and runs the rules below on the AST. "
           "Exit status 1 when any finding is an error. `--changed [--base REF]` checks only the policies "
           "changed since REF and their importers ([ci.md](../ci.md)).\n\n",
           "Each rule's page ships inside the package (`cupcake_py/authoring/lint_docs/`): "
           "`cupcake validate --explain RULE` prints it. SARIF output carries it as each rule's `help` and "
           "`helpUri` `urn:cupcake-py:lint:RULE` (set `CUPCAKE_DOCS_URL` to a site hosting the pages to get "
           "`$CUPCAKE_DOCS_URL/RULE.md` instead).\n\n",
           "| Rule | Severity | Category | What |\n| --- | --- | --- | --- |\n"]
    for r in RULES.values():
        out.append(f"| [{r.id}]({PAGES_DIR}/{r.id}.md) | {r.severity} | {r.category} | {r.summary} |\n")
    return "".join(out)
