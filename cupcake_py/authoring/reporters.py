"""Output formats of `cupcake validate`: text (people), json (tools), sarif (SARIF 2.1.0 for
code-scanning upload), github (workflow command annotations) and junit (JUnit XML for CI test reports)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

from cupcake_py import __version__
from cupcake_py.authoring.findings import RULES, help_uri, rule_doc
from cupcake_py.authoring.validate import Report

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
SARIF_LEVEL = {"error": "error", "warning": "warning", "info": "note"}
GITHUB_COMMAND = {"error": "error", "warning": "warning", "info": "notice"}


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def summary_line(report: Report) -> str:
    return (f"{_plural(len(report.files), 'file')} checked: {_plural(report.count('error'), 'error')}, "
            f"{_plural(report.count('warning'), 'warning')}, {report.count('info')} info")


def text(report: Report) -> str:
    out: list[str] = []
    for f in report.findings:
        out.append(f"{f.file}:{f.row}:{f.col}: {f.severity} [{f.rule}] {f.message}")
        lines = report.sources.get(f.file, "").splitlines()
        if 0 < f.row <= len(lines):
            line = lines[f.row - 1].replace("\t", " ")
            out.append(f"    {line}")
            out.append(f"    {' ' * (f.col - 1)}^")
        out.append(f"    docs: {f.doc}")
    out.append(summary_line(report))
    return "\n".join(out) + "\n"


def json_report(report: Report) -> str:
    doc = {"files": len(report.files),
           "summary": {s: report.count(s) for s in ("error", "warning", "info")},
           "findings": [f.to_json() for f in report.findings]}
    return orjson.dumps(doc, option=orjson.OPT_INDENT_2).decode() + "\n"


def _uri(file: str) -> str:
    """Repository-relative URI (forward slashes) when the file is under the working
    directory, else an absolute file:// URI."""
    p = Path(file)
    try:
        rel = p.absolute().relative_to(Path.cwd())
        return rel.as_posix()
    except ValueError:
        return p.absolute().as_uri()


def _why(markdown: str) -> str:
    """The `## Why` section of a rule page (its full description), as plain text."""
    _, _, rest = markdown.partition("## Why\n")
    return " ".join(rest.split("\n## ")[0].split())


def _rule_help(rule_id: str) -> dict[str, str]:
    markdown = rule_doc(rule_id)
    return {"text": f"{RULES[rule_id].summary}. {_why(markdown)}".strip(), "markdown": markdown}


def sarif(report: Report) -> str:
    rule_ids = sorted(RULES)
    index = {r: i for i, r in enumerate(rule_ids)}
    helps = {r: _rule_help(r) for r in rule_ids}
    rules: list[dict[str, Any]] = [{
        "id": r,
        "name": "".join(w.capitalize() for w in r.split("-")),
        "shortDescription": {"text": RULES[r].summary},
        "fullDescription": {"text": helps[r]["text"]},
        "help": helps[r],
        "helpUri": help_uri(r),
        "defaultConfiguration": {"level": SARIF_LEVEL[RULES[r].severity]},
        "properties": {"tags": [RULES[r].category]},
    } for r in rule_ids]
    results: list[dict[str, Any]] = [{
        "ruleId": f.rule,
        "ruleIndex": index[f.rule],
        "level": SARIF_LEVEL[f.severity],
        "message": {"text": f"{f.message}\nDocs: {f.doc}"},
        "locations": [{"physicalLocation": {
            "artifactLocation": {"uri": _uri(f.file)},
            "region": {"startLine": f.row, "startColumn": f.col},
        }}],
    } for f in report.findings]
    doc = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "cupcake-validate", "version": __version__,
                                "semanticVersion": __version__, "rules": rules}},
            "columnKind": "unicodeCodePoints",
            "artifacts": [{"location": {"uri": _uri(f)}} for f in report.files],
            "results": results,
        }],
    }
    return orjson.dumps(doc, option=orjson.OPT_INDENT_2).decode() + "\n"


def _escape_data(s: str) -> str:
    return s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_prop(s: str) -> str:
    return _escape_data(s).replace(":", "%3A").replace(",", "%2C")


def github(report: Report) -> str:
    out: list[str] = []
    for f in report.findings:
        path = _uri(f.file) if not os.path.isabs(f.file) or _uri(f.file)[:7] != "file://" else f.file
        props = ",".join([f"file={_escape_prop(path)}", f"line={f.row}", f"col={f.col}",
                          f"title={_escape_prop(f.rule)}"])
        out.append(f"::{GITHUB_COMMAND[f.severity]} {props}::{_escape_data(f'{f.message} (docs: {f.doc})')}")
    out.append(summary_line(report))
    return "\n".join(out) + "\n"


def junit(report: Report) -> str:
    """JUnit XML (CI test-report viewers): one testsuite per file, one failing testcase per finding
    (its rule and message; type = severity), one passing testcase for a file without findings."""
    import xml.etree.ElementTree as ET

    by_file: dict[str, list[Any]] = {f: [] for f in report.files}
    for f in report.findings:
        by_file.setdefault(f.file, []).append(f)
    root = ET.Element("testsuites", name="cupcake validate", tests=str(sum(max(1, len(v)) for v in by_file.values())),
                      failures=str(len(report.findings)))
    for file, found in by_file.items():
        suite = ET.SubElement(root, "testsuite", name=file, tests=str(max(1, len(found))), failures=str(len(found)))
        if not found:
            ET.SubElement(suite, "testcase", classname=file, name="lint")
        for f in found:
            case = ET.SubElement(suite, "testcase", classname=file, name=f"{f.rule}: {f.message}")
            failure = ET.SubElement(case, "failure", message=f.message, type=f.severity)
            failure.text = f"{f.file}:{f.row}:{f.col}: {f.severity} [{f.rule}] {f.message}\ndocs: {f.doc}\n"
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


FORMATS: dict[str, Callable[[Report], str]] = {"text": text, "json": json_report, "sarif": sarif, "github": github,
                                               "junit": junit}
