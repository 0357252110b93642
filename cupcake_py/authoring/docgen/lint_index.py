"""docs/lint/README.md: the table of lint rules, from authoring/findings.py RULES."""

from __future__ import annotations

from cupcake_py.authoring.docgen.page import banner
from cupcake_py.authoring.findings import RULES

PAGES_DIR = "../../cupcake_py/authoring/lint_docs"


def render() -> str:
    out = [banner("cupcake_py/authoring/findings.py"), "# `cupcake validate` lint rules\n\n",
           "`cupcake validate [--format text|json|sarif|github|junit] [--fail-level error|warning|info] [PATH...]` "
           "parses and compile-checks every `.rego` file under PATH (default: the current project's `.cupcake/`) "
           "and runs the rules below on the AST. Exit status 1 when a finding is at least as severe as "
           "--fail-level (default: error). `--changed [--base REF]` checks only the policies changed since REF "
           "and their importers ([ci.md](../ci.md)); `--watch` checks again on every change.\n\n",
           "## Silencing and re-levelling a rule\n\n",
           "As with Regal: a comment `# cupcake ignore:RULE` (several: `ignore:RULE1,RULE2`; every rule: "
           "`ignore:all`) on the line of a finding, or alone on the line above it, drops that finding. "
           "`.cupcake/lint.yml` (or `--config FILE`) sets a rule's level for the whole project and the files "
           "it ignores, under the rule's category:\n\n",
           "```yaml\nrules:\n  cupcake:\n    prefer-deny:\n      level: error        # error, warning, info "
           "or ignore\n  hygiene:\n    unused-function:\n      ignore:\n        files: "
           "[\"policies/opencode/legacy/*.rego\"]   # relative to .cupcake/\n```\n\n",
           "Compile errors (category `compile`) cannot be silenced: the engine refuses such policies. A "
           "config that is not this shape (an unknown category, rule or level; a key given twice) is an "
           "error at its file:row:col (exit 2).\n\n## Rules\n\n",
           "Each rule's page ships inside the package (`cupcake_py/authoring/lint_docs/`): "
           "`cupcake validate --explain RULE` prints it. SARIF output carries it as each rule's `help` and "
           "`helpUri` `urn:cupcake-py:lint:RULE` (set `CUPCAKE_DOCS_URL` to a site hosting the pages to get "
           "`$CUPCAKE_DOCS_URL/RULE.md` instead).\n\n",
           "| Rule | Severity | Category | What |\n| --- | --- | --- | --- |\n"]
    for r in RULES.values():
        out.append(f"| [{r.id}]({PAGES_DIR}/{r.id}.md) | {r.severity} | {r.category} | {r.summary} |\n")
    return "".join(out)
