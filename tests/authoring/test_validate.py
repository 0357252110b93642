"""`cupcake validate`: the lint corpus (one bad policy per rule, each with its expected
findings), zero findings on the shipped policies, and every output format (SARIF checked
against a JSON schema written from the SARIF 2.1.0 spec)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlparse

import jsonschema
import pytest
from typer.testing import CliRunner

from cupcake_py.authoring.findings import LINT_DOCS, RULES, did_you_mean, rule_doc
from cupcake_py.authoring.reporters import FORMATS
from cupcake_py.authoring.validate import validate_paths
from cupcake_py.cli.app import app

HERE = Path(__file__).parent
REPO = HERE.parents[1]
CORPUS = HERE / "lint_corpus"
EXPECT = re.compile(r"^# expect: ([a-z-]+)@(\d+)$", re.M)

runner = CliRunner()


def corpus_cases() -> list[Path]:
    return sorted(p for p in CORPUS.iterdir() if p.suffix == ".rego" or p.is_dir())


def expected(case: Path) -> set[tuple[str, str, int]]:
    files = [case] if case.is_file() else sorted(case.rglob("*.rego"))
    out = set()
    for f in files:
        for rule, row in EXPECT.findall(f.read_text()):
            out.add((str(f), rule, int(row)))
    return out


@pytest.mark.parametrize("case", corpus_cases(), ids=lambda p: p.name)
def test_corpus_case_gives_exactly_its_finding(case: Path) -> None:
    want = expected(case)
    assert want, f"{case} has no `# expect: rule@row` line"
    report = validate_paths([case])
    got = {(f.file, f.rule, f.row) for f in report.findings}
    assert got == want, "\n".join(f"{f.file}:{f.row}:{f.col} {f.rule} {f.message}" for f in report.findings)


def test_every_rule_has_a_corpus_case_and_a_doc_page() -> None:
    covered = {rule for case in corpus_cases() for _, rule, _ in expected(case)}
    assert set(RULES) - covered == set()
    assert len(corpus_cases()) >= 30
    docs = {p.stem for p in LINT_DOCS.glob("*.md")}
    assert docs == set(RULES)
    for rule in RULES:
        text = rule_doc(rule)
        assert text.startswith(f"# {rule}\n") and "```rego" in text and "## Why\n" in text


def test_shipped_policies_have_zero_findings() -> None:
    report = validate_paths([REPO / "policies"])
    assert len(report.files) >= 2
    assert [f"{f.file}:{f.row} {f.rule}: {f.message}" for f in report.findings] == []


def test_did_you_mean() -> None:
    assert did_you_mean("file_path", ["filePath", "content"]) == "filePath"
    assert did_you_mean("PreToolUs", ["PreToolUse", "PostToolUse"]) == "PreToolUse"
    assert did_you_mean("zzz", ["PreToolUse"]) is None


# ------------------------------------------------------------------------ formats

BAD = CORPUS / "tool-input-field.rego"
WARN = CORPUS / "unused-import.rego"


def test_sarif_is_valid_sarif_2_1_0() -> None:
    schema = json.loads((HERE / "sarif-2.1.0-subset.schema.json").read_text())
    jsonschema.Draft7Validator.check_schema(schema)
    report = validate_paths([CORPUS])
    doc = json.loads(FORMATS["sarif"](report))
    jsonschema.validate(doc, schema)
    run = doc["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    assert {r["id"] for r in rules} == set(RULES)
    assert len(run["results"]) == len(report.findings) > 30
    for res in run["results"]:
        assert rules[res["ruleIndex"]]["id"] == res["ruleId"]
        uri = res["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        assert not urlparse(uri).scheme and not uri.startswith("/") and "\\" not in uri
        assert (Path.cwd() / uri).is_file()


# The official OASIS SARIF 2.1.0 schema, as shipped in the npm package @microsoft/jest-sarif
# (installed into tests/js/node_modules by `make test`'s node-deps step).
OFFICIAL_SARIF_SCHEMA = HERE.parent / "js" / "node_modules" / "@microsoft" / "jest-sarif" / "lib" / "schemas" / "sarif-2.1.0-rtm.5.json"


def test_sarif_is_valid_against_the_official_schema() -> None:
    assert OFFICIAL_SARIF_SCHEMA.is_file(), "run `make node-deps` (tests/js) to install the SARIF schema"
    schema = json.loads(OFFICIAL_SARIF_SCHEMA.read_text(encoding="utf-8-sig"))
    validator = jsonschema.Draft7Validator(schema)
    doc = json.loads(FORMATS["sarif"](validate_paths([CORPUS])))
    errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))
    assert not errors, "\n".join(f"{list(e.absolute_path)}: {e.message}" for e in errors[:10])
    doc["runs"][0]["results"][0]["level"] = "fatal"
    assert list(validator.iter_errors(doc)), "the official schema must reject an invalid level"


def test_sarif_schema_rejects_a_broken_log() -> None:
    schema = json.loads((HERE / "sarif-2.1.0-subset.schema.json").read_text())
    doc = json.loads(FORMATS["sarif"](validate_paths([BAD])))
    doc["runs"][0]["results"][0]["level"] = "fatal"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(doc, schema)
    del doc["version"]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(doc, schema)


def test_github_annotations() -> None:
    out = FORMATS["github"](validate_paths([BAD, WARN]))
    lines = out.splitlines()
    assert re.fullmatch(r"::error file=tests/authoring/lint_corpus/tool-input-field\.rego,line=12,col=\d+,"
                        r"title=tool-input-field::Edit has no `file_path` argument .*\(docs: cupcake validate --explain "
                        r"tool-input-field\)", lines[0])
    assert lines[1].startswith("::warning file=tests/authoring/lint_corpus/unused-import.rego,line=9,col=1,")
    assert lines[-1] == "2 files checked: 1 error, 1 warning, 0 info"


def test_text_and_json_formats() -> None:
    report = validate_paths([BAD])
    text = FORMATS["text"](report)
    assert "tool-input-field.rego:12:11: error [tool-input-field]" in text
    assert "did you mean `filePath`?" in text
    assert "docs: cupcake validate --explain tool-input-field" in text
    doc = json.loads(FORMATS["json"](report))
    assert doc["summary"] == {"error": 1, "warning": 0, "info": 0}
    assert doc["findings"][0] | {"message": ""} == {
        "rule": "tool-input-field", "severity": "error", "file": str(BAD.relative_to(Path.cwd())) if not BAD.is_absolute()
        else str(BAD), "row": 12, "col": 11, "message": "", "doc": "cupcake validate --explain tool-input-field",
        "help_uri": "urn:cupcake-py:lint:tool-input-field"}


# ------------------------------------------------------------------------ CLI


def test_cli_exit_codes() -> None:
    r = runner.invoke(app, ["validate", str(BAD)])
    assert r.exit_code == 1 and "[tool-input-field]" in r.stdout
    r = runner.invoke(app, ["validate", str(WARN), "--format", "json"])
    assert r.exit_code == 0 and json.loads(r.stdout)["summary"]["warning"] == 1
    r = runner.invoke(app, ["validate", str(REPO / "policies")])
    assert r.exit_code == 0, r.stdout
    r = runner.invoke(app, ["validate", "no/such/dir"])
    assert r.exit_code == 2 and "no such file or directory" in r.stderr


def test_cli_subprocess_sarif() -> None:
    proc = subprocess.run([sys.executable, "-m", "cupcake_py", "validate", "--format", "sarif", str(BAD)],
                          capture_output=True, text=True, cwd=REPO)
    assert proc.returncode == 1, proc.stderr
    assert json.loads(proc.stdout)["runs"][0]["results"][0]["ruleId"] == "tool-input-field"


def test_explain_prints_the_packaged_rule_page() -> None:
    r = runner.invoke(app, ["validate", "--explain", "prefer-deny"])
    assert r.exit_code == 0 and r.stdout == (LINT_DOCS / "prefer-deny.md").read_text()
    r = runner.invoke(app, ["validate", "--explain", "prefer_deny"])
    assert r.exit_code == 2 and "did you mean `prefer-deny`" in r.stderr


def test_sarif_rules_carry_help_uri_and_full_description(monkeypatch: pytest.MonkeyPatch) -> None:
    rules = json.loads(FORMATS["sarif"](validate_paths([BAD])))["runs"][0]["tool"]["driver"]["rules"]
    by_id = {r["id"]: r for r in rules}
    assert set(by_id) == set(RULES)
    for rid, r in by_id.items():
        assert r["helpUri"] == f"urn:cupcake-py:lint:{rid}"
        assert len(r["fullDescription"]["text"]) > len(r["shortDescription"]["text"]) + 20, rid
        assert r["help"]["markdown"] == rule_doc(rid)
    monkeypatch.setenv("CUPCAKE_DOCS_URL", "https://docs.example.org/lint/")
    rules = json.loads(FORMATS["sarif"](validate_paths([BAD])))["runs"][0]["tool"]["driver"]["rules"]
    assert rules[0]["helpUri"] == f"https://docs.example.org/lint/{rules[0]['id']}.md"


def test_validate_without_arguments_lints_the_current_project(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    pol = tmp_path / ".cupcake" / "policies"
    pol.mkdir(parents=True)
    (pol / "bad.rego").write_text((BAD).read_text())
    (tmp_path / "sub").mkdir()
    monkeypatch.chdir(tmp_path / "sub")
    r = runner.invoke(app, ["validate"])
    assert r.exit_code == 1 and "[tool-input-field]" in r.stdout and "1 file checked" in r.stdout
    empty = tmp_path.parent / f"{tmp_path.name}-empty"  # no .cupcake here or above
    empty.mkdir()
    monkeypatch.chdir(empty)
    r = runner.invoke(app, ["validate"])
    assert r.exit_code == 2 and "cupcake init --harness opencode" in r.stderr
