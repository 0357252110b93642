"""Four hand-written policy libraries for OPA 0.x run unchanged with `--v0-compatible` (issue 32; the
generated admission library of benches/admission_corpus.py is tests/rego/test_v0_library.py).

tests/rego/v0_libs/ holds four library-shaped corpora written for this test, in pre-1.0 syntax
with their own tests: an admission-control template library (shared `lib` helpers, one
directory per template, run as its CI runs `opa test` once per directory), a config-testing
tool's examples (`deny`/`warn`/`violation`, data files), a compliance rule library (100 rules,
`future.keywords` imports, a few v1 files selected by the bundle `.manifest`) and a release
policy library (ref heads, `else` chains, `walk`, `json.patch`, `lib.time`).

Each run is one `cupcake test --v0-compatible PATHS` (in process, the lean command path): every
test must pass. Each test's verdict is also compared with regorus's v0 mode where regorus can
evaluate it (it lacks OPA's deprecated builtins `any`, `all`, `re_match`, which v0 libraries
use, and reads YAML data files differently, so those runs are left to cupcake alone).
"""

from __future__ import annotations

import fnmatch
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from cupcake_py.authoring.testing import command

LIBS = Path(__file__).parent / "v0_libs"
ADMISSION = LIBS / "admission"
TEMPLATES = sorted(p.name for p in (ADMISSION / "templates").iterdir() if p.is_dir())
CONFIG = LIBS / "configtest"
# (run name, paths relative to LIBS, the tests it must at least hold)
RUNS: list[tuple[str, list[str], int]] = [
    *[(f"admission/{t}", ["admission/lib", f"admission/templates/{t}"], 15) for t in TEMPLATES],
    ("configtest/kubernetes", ["configtest/kubernetes/policy", "configtest/kubernetes/lib",
                               "configtest/kubernetes/data"], 13),
    ("configtest/docker", ["configtest/docker/policy", "configtest/docker/data"], 7),
    ("configtest/terraform", ["configtest/terraform/policy"], 6),
    ("configtest/ini", ["configtest/ini/policy"], 4),
    ("configtest/compose", ["configtest/compose/policy", "configtest/compose/lib"], 4),
    ("configtest/serverless", ["configtest/serverless/policy", "configtest/serverless/data"], 5),
    *[(f"configtest/{d}", [f"configtest/{d}/policy"], 3) for d in ("actions", "openapi", "helm", "awssam", "cue",
                                                                     "traefik")],
    ("compliance", ["compliance"], 300),
    ("release", ["release"], 73),
]
DEPRECATED = ("any(", "all(", "re_match(")  # OPA 0.x builtins Rego v1 removed, which regorus does not offer
REGORUS_LACKS = (*DEPRECATED, "rego.metadata.")
REGORUS_DIVERGES = {  # test -> why regorus's verdict differs from OPA's (cupcake follows OPA)
    "data.policy.release.tasks.test_mock_required_tasks":
        "`with required_tasks as ...` names a rule of the package: OPA resolves the target as it resolves refs "
        "(data.policy.release.tasks.required_tasks); regorus refuses it",
}


@pytest.fixture(autouse=True)
def _own_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """The host's native-code cache goes to a temporary directory, not the user's."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.getbasetemp() / "xdg-cache"))


def _cupcake_test(paths: list[Path], capsys: pytest.CaptureFixture[str], *flags: str) -> tuple[int | None, Any]:
    capsys.readouterr()
    code = command.main(["--v0-compatible", "--no-cache", "--format", "json", *flags, *map(str, paths)])
    out = capsys.readouterr()
    return code, json.loads(out.out) if out.out.strip() else out.err


def _verdicts(report: list[dict[str, Any]]) -> dict[str, str]:
    return {f"{t['package']}.{t['name']}": "error" if t.get("error") else "fail" if t.get("fail") else "pass"
            for t in report}


def test_every_template_directory_is_a_run() -> None:
    assert len(TEMPLATES) >= 15
    assert all((ADMISSION / "templates" / t / "src_test.rego").is_file() for t in TEMPLATES)


@pytest.mark.parametrize(("name", "paths", "at_least"), RUNS, ids=[r[0] for r in RUNS])
def test_v0_library_run_passes(name: str, paths: list[str], at_least: int, capsys: pytest.CaptureFixture[str]) -> None:
    code, report = _cupcake_test([LIBS / p for p in paths], capsys)
    assert isinstance(report, list), report
    verdicts = _verdicts(report)
    assert [k for k, v in verdicts.items() if v != "pass"] == []
    assert code == 0
    assert len(verdicts) >= at_least


def test_the_same_library_without_the_flag_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    code = command.main(["--no-cache", "--format", "json", str(ADMISSION / "lib"), str(ADMISSION / "templates" / "privileged")])
    err = capsys.readouterr().err
    assert code == 1
    assert "rego_parse_error: `if` keyword is required before rule body" in err
    assert "--v0-compatible" in err


def _regorus_verdicts(regorus: Any, root: Path, paths: list[Path], v1_globs: tuple[str, ...]) -> dict[str, str] | None:
    """Each test rule's verdict under regorus's v0 mode (v1 for the files the manifest names),
    JSON data files mounted at their directory as OPA's loader does; the packages whose policy
    calls a builtin regorus lacks are left out with their tests; None when the run has YAML data."""
    files = sorted(f for p in paths for f in (p.rglob("*") if p.is_dir() else [p]) if f.is_file())
    if any(f.suffix in (".yaml", ".yml") for f in files):
        return None
    lacking = {_package(f.read_text()) for f in files if f.suffix == ".rego" and any(
        c in line for line in f.read_text().splitlines() if not line.lstrip().startswith("#") for c in REGORUS_LACKS)}
    engine = regorus.Engine()
    tests: list[str] = []
    for f in files:
        text = f.read_text()
        if f.suffix == ".rego" and _package(text) not in lacking:
            rel = f.relative_to(root).as_posix()
            engine.set_rego_v0(not any(fnmatch.fnmatch(rel, g) for g in v1_globs))
            package = engine.add_policy(str(f), text)
            tests += [f"{package}.{line.split()[0]}" for line in text.splitlines() if line.startswith("test_")]
        elif f.suffix == ".json":
            base = next(p for p in paths if p in f.parents)
            doc: Any = json.loads(text)
            for part in reversed(f.parent.relative_to(base).parts):
                doc = {part: doc}
            engine.add_data(doc)
    verdicts = {}
    for name in tests:
        try:
            rows = engine.eval_query(name)["result"]
            verdicts[name] = "pass" if rows and rows[0]["expressions"][0]["value"] is True else "fail"
        except RuntimeError:
            verdicts[name] = "error"
    return verdicts


def _package(text: str) -> str:
    return next(line.split()[1] for line in text.splitlines() if line.startswith("package "))


def test_regorus_v0_mode_agrees_on_every_test_it_can_run(capsys: pytest.CaptureFixture[str]) -> None:
    regorus = pytest.importorskip("regorus")
    manifest = json.loads((LIBS / "compliance" / ".manifest").read_text())
    v1_globs = tuple(g for g, v in manifest["file_rego_versions"].items() if v == 1)
    compared, disagree = 0, []
    for name, paths, _ in RUNS:
        root = LIBS / paths[0].split("/")[0]
        theirs = _regorus_verdicts(regorus, root, [LIBS / p for p in paths], v1_globs if name == "compliance" else ())
        if theirs is None:
            continue
        _, report = _cupcake_test([LIBS / p for p in paths], capsys)
        ours = _verdicts(report)
        compared += len(theirs)
        disagree += [f"{k}: cupcake {ours.get(k)}, regorus {v}" for k, v in theirs.items()
                     if ours.get(k) != v and k not in REGORUS_DIVERGES]
    assert disagree == []
    assert compared >= 620  # measured: 644 tests (the runs without YAML data; packages calling what regorus lacks left out)


def test_fmt_v0_v1_converts_the_libraries_and_they_pass_as_rego_v1(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """`cupcake fmt --v0-v1` on every corpus: each file that calls no builtin Rego v1 removed is
    written in v1 syntax with `import rego.v1`; the converted runs then pass WITHOUT
    --v0-compatible with the same tests."""
    from cupcake_py.authoring import target_settings
    from cupcake_py.rego import versions
    from cupcake_py.rego.fmt import FormatError, format_source

    copy = tmp_path / "libs"
    shutil.copytree(LIBS, copy)
    refused = []
    for corpus in sorted(p for p in copy.iterdir() if p.is_dir()):
        with versions.use(target_settings.rego_versions([corpus], True)):
            for f in sorted(corpus.rglob("*.rego")):
                try:
                    f.write_text(format_source(f.read_text(), str(f), v0_v1=True))
                except FormatError as e:
                    assert "deprecated built-in function calls found" in str(e)
                    refused.append(f.relative_to(copy).as_posix())
    assert refused == sorted(f.relative_to(LIBS).as_posix() for f in LIBS.rglob("*.rego")
                             if any(d in f.read_text() for d in DEPRECATED))
    (copy / "compliance" / ".manifest").unlink()  # every file is v1 now
    converted = 0
    for name, paths, at_least in RUNS:
        if any(r.startswith(p + "/") for r in refused for p in paths):
            continue
        capsys.readouterr()
        code = command.main(["--no-cache", "--format", "json", *(str(copy / p) for p in paths)])
        report = json.loads(capsys.readouterr().out)
        assert (code, [k for k, v in _verdicts(report).items() if v != "pass"]) == (0, []), name
        assert len(report) >= at_least
        converted += 1
    assert converted >= 15


@pytest.mark.parametrize(("src", "want"), [
    ("package p\n\nimport future.keywords.in\nimport future.keywords.if\n\n# ok\ndeny[msg] {\n\tx := input.xs[_]\n"
     "\tx in {1, 2}\n\tmsg := sprintf(\"%v\", [x])\n}\n",
     "package p\n\nimport rego.v1\n\n# ok\ndeny contains msg if {\n\tx := input.xs[_]\n\tx in {1, 2}\n"
     "\tmsg := sprintf(\"%v\", [x])\n}\n"),
    ("package p\n\ndefault allow = false\n\nallow {\n\tinput.user == \"admin\"\n}\n\nf(x) = \"big\" {\n\tx > 10\n}"
     " else = \"small\" {\n\ttrue\n}\n",
     "package p\n\nimport rego.v1\n\ndefault allow = false\n\nallow if {\n\tinput.user == \"admin\"\n}\n\n"
     "f(x) = \"big\" if {\n\tx > 10\n} else = \"small\"\n"),
    ("package p\n\nlimits[name] = v {\n\tc := input.cs[_]\n\tname := c.name\n\tv := [y |\n\t\ty := c.xs[_]\n\t]\n}\n",
     "package p\n\nimport rego.v1\n\nlimits[name] = v if {\n\tc := input.cs[_]\n\tname := c.name\n"
     "\tv := [y |\n\t\ty := c.xs[_]\n\t]\n}\n"),
], ids=["partial set, future imports, comment", "default and else chain", "kept layout printed as v1"])
def test_fmt_v0_v1_output(src: str, want: str) -> None:
    from cupcake_py.rego import versions
    from cupcake_py.rego.fmt import format_source

    with versions.use(versions.V0_COMPATIBLE):
        assert format_source(src, "x.rego", v0_v1=True) == want
    assert format_source(want, "x.rego") == want  # v1 as it stands, and formatted


@pytest.mark.parametrize(("src", "problem"), [
    ("package p\n\np {\n\tany([input.a])\n}\n", "deprecated built-in function calls found: any"),
    ("package p\n\np {\n\tre_match(\"a\", input.a)\n}\n", "deprecated built-in function calls found: re_match"),
    ("package p\n\nq[x] {\n\tx := [y |\n\t\t# kept\n\t\ty := input[_]\n\t]\n}\n", "comments inside"),
])
def test_fmt_v0_v1_refuses_what_it_cannot_convert(src: str, problem: str) -> None:
    from cupcake_py.rego import versions
    from cupcake_py.rego.fmt import FormatError, format_source

    with versions.use(versions.V0_COMPATIBLE), pytest.raises(FormatError, match=problem):
        format_source(src, "x.rego", v0_v1=True)


@pytest.fixture(scope="module")
def cli() -> Any:
    from typer.testing import CliRunner

    from cupcake_py.cli.app import build_app

    runner, app = CliRunner(), build_app()
    return lambda *args: runner.invoke(app, [str(a) for a in args])


def test_check_build_and_query_read_the_manifest(cli: Any, tmp_path: Path) -> None:
    """The compliance corpus mixes v0 files and v1 files (its .manifest): every command that reads
    it picks each file's version from the manifest, with and without --v0-compatible."""
    corpus = LIBS / "compliance"
    for flags in ([], ["--v0-compatible"]):
        result = cli("check", *flags, corpus)
        assert (result.exit_code, result.output.strip()) == (0, "ok: 206 files checked, no errors")
    wasm = tmp_path / "summary.wasm"
    assert cli("build", "-e", "compliance_report/summary", "-o", wasm, corpus).exit_code == 0
    assert wasm.read_bytes()[:4] == b"\0asm"
    event = tmp_path / "in.json"
    event.write_text('{"resources": [{"type": "kms_resource", "name": "k", "config": {"logging_enabled": false}}]}')
    result = cli("query", "--format", "json", "-d", corpus, "-i", event, "data.rules.kms.bool_true.deny")
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["result"][0]["expressions"][0]["value"] == [
        {"id": "CPK-KMS-001", "message": "k: logging is not enabled", "resource": "k", "severity": "MEDIUM"}]


@pytest.mark.parametrize("manifest", ['{"rego_version": 2}', "not json", '{"file_rego_versions": {"*.rego": "v9"}}'])
def test_a_broken_manifest_stops_every_command(cli: Any, tmp_path: Path, manifest: str,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "p.rego").write_text("package p\n\nallow {\n\ttrue\n}\n")
    (tmp_path / ".manifest").write_text(manifest)
    for args, code in ((["check"], 2), (["build", "-e", "p/allow", "-o", tmp_path / "x.wasm"], 1),
                       (["query", "-d"], 2), (["fmt", "--v0-v1"], 2)):
        result = cli(*args, tmp_path, *(["x := 1"] if args == ["query", "-d"] else []))
        assert result.exit_code == code, (args, result.output)
        assert ".manifest" in result.output
    assert not (tmp_path / "x.wasm").exists()
    capsys.readouterr()
    assert command.main(["--no-cache", str(tmp_path)]) == 1
    assert ".manifest" in capsys.readouterr().err


def test_v1_code_read_as_v0_names_the_cause(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A converted (v1) library run with --v0-compatible: one error per rule, at the keyword, naming
    the missing `import rego.v1`; no follow-on errors from the rule's body."""
    (tmp_path / "p.rego").write_text("package p\n\ndeny contains msg if {\n\tmsg := input.m\n}\n\nallow if input.ok\n")
    capsys.readouterr()
    assert command.main(["--v0-compatible", "--no-cache", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert err.count("rego_parse_error") == 2
    assert ("p.rego:3:6: rego_parse_error: var cannot be used for rule name: `contains` is a keyword only in "
            "Rego v1 but this file is read as Rego v0") in err
    assert "p.rego:7:7: rego_parse_error: var cannot be used for rule name: `if` is a keyword only in Rego v1" in err
    assert "add `import rego.v1`" in err


def test_bundle_flag_as_opa_test_takes_it(cli: Any, capsys: pytest.CaptureFixture[str]) -> None:
    """`opa test -b DIR` (the manifest's versions): accepted by the lean path and the typer command alike."""
    capsys.readouterr()
    assert command.main(["-b", "--v0-compatible", "--no-cache", str(LIBS / "release")]) == 0
    lean = capsys.readouterr().out
    result = cli("test", "--bundle", "--v0-compatible", "--no-cache", LIBS / "release")
    assert (result.exit_code, result.output) == (0, lean)
    assert lean.strip().endswith("PASS: 73/73")
