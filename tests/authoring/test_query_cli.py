"""`cupcake query` (issue 33), through the real executable: opa eval's -d, -i, --format, a query
string; every answer also checked against regorus (an independent Rego engine) on the same inputs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.authoring.cli_project import cupcake, env_for

POLICY = """package authz

import rego.v1

default allow := false

allow if {
\tinput.user == "alice"
\tdata.roles[input.user][_] == "admin"
}

reasons contains msg if {
\tnot allow
\tmsg := sprintf("%s may not", [input.user])
}
"""
DATA = {"roles": {"alice": ["admin"], "bob": ["dev"]}}
QUERIES = [
    ("data.authz.allow", {"user": "alice"}),
    ("data.authz.allow", {"user": "bob"}),
    ("data.authz.reasons", {"user": "bob"}),
    ("x := data.roles[_][_]; x != \"admin\"", {}),
    ("1 > 2", {}),
    ("input.n + 1", {"n": 41}),
    ("count(data.roles)", {}),
    ("data.authz.nothing", {}),
]


@pytest.fixture()
def files(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    (tmp_path / "policy.rego").write_text(POLICY)
    (tmp_path / "data.json").write_text(json.dumps(DATA))
    return tmp_path, env_for(tmp_path)


def _regorus(query: str, inp: dict[str, Any]) -> list[dict[str, Any]]:
    regorus = pytest.importorskip("regorus")
    engine = regorus.Engine()
    engine.add_policy("policy.rego", POLICY)
    engine.add_data(DATA)
    engine.set_input(inp)
    result: list[dict[str, Any]] = engine.eval_query(query).get("result", [])
    return result


@pytest.mark.parametrize(("query", "inp"), QUERIES)
def test_json_matches_regorus(files: tuple[Path, dict[str, str]], query: str, inp: dict[str, Any]) -> None:
    d, env = files
    (d / "input.json").write_text(json.dumps(inp))
    r = cupcake(["query", "-d", "policy.rego", "-d", "data.json", "-i", "input.json", "--format", "json", query], d,
                env)
    assert r.code == 0, r.err
    ours = json.loads(r.out).get("result", [])
    want = _regorus(query, inp)
    norm = [{"values": [e["value"] for e in row["expressions"]], "bindings": row.get("bindings", {})}
            for row in ours]
    theirs = [{"values": [e["value"] for e in row["expressions"]], "bindings": row.get("bindings", {})}
              for row in want]
    def key(row: dict[str, Any]) -> str:
        return json.dumps(row, default=sorted, sort_keys=True)  # regorus gives sets as sets, OPA's JSON as arrays

    assert sorted(map(key, norm)) == sorted(map(key, theirs))
    if ours:
        assert ours[0]["expressions"][0]["text"] == query.split(";")[0].strip()


def test_pretty_output_and_undefined(files: tuple[Path, dict[str, str]]) -> None:
    d, env = files
    (d / "input.json").write_text('{"user": "alice"}')
    r = cupcake(["query", "-d", str(d), "-i", "input.json", "data.authz.allow"], d, env)
    assert (r.code, r.out) == (0, "true\n")
    r = cupcake(["query", "-d", str(d), "x := data.roles.bob[_]"], d, env)
    assert r.out.splitlines()[1] == "| x     |" and '"dev"' in r.out
    r = cupcake(["query", "-d", str(d), "data.authz.missing"], d, env)
    assert (r.code, r.out) == (0, "undefined\n")
    assert cupcake(["query", "-d", str(d), "--fail", "data.authz.missing"], d, env).code == 1
    r = cupcake(["query", "-I", "input.user"], d, env, stdin='{"user": "carol"}')
    assert r.out == '"carol"\n'


def test_errors_point_at_the_source(files: tuple[Path, dict[str, str]]) -> None:
    d, env = files
    r = cupcake(["query", "x := "], d, env)
    assert r.code == 2 and "<query>:1:" in r.err and "^" in r.err
    (d / "bad.rego").write_text("package bad\n\nimport rego.v1\n\np if { x }\n")
    r = cupcake(["query", "-d", "bad.rego", "data.bad.p"], d, env)
    assert r.code == 2 and "bad.rego:5:" in r.err
    r = cupcake(["query", "-i", "nope.json", "1"], d, env)
    assert r.code == 2 and "nope.json" in r.err


def test_v0_compatible_policies(tmp_path: Path) -> None:
    env = env_for(tmp_path)
    (tmp_path / "v0.rego").write_text('package x\n\nallow { input.user == "alice" }\nnames[n] { n := input.names[_] }\n')
    (tmp_path / "in.json").write_text('{"user": "alice", "names": ["a", "b"]}')
    r = cupcake(["query", "--v0-compatible", "-d", "v0.rego", "-i", "in.json", "--format", "json", "data.x"],
                tmp_path, env)
    assert r.code == 0, r.err
    assert json.loads(r.out)["result"][0]["expressions"][0]["value"] == {"allow": True, "names": ["a", "b"]}
    r = cupcake(["query", "-d", "v0.rego", "data.x"], tmp_path, env)
    assert r.code == 2 and "`if` keyword is required" in r.err
