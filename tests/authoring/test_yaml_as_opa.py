"""YAML is read as OPA reads it (issue 32): unquoted timestamps stay the string written in
METADATA blocks, .yaml/.yml data files and yaml.unmarshal; numbers stay exact; and a data file
named on the `cupcake test` command line is data, not a Rego module."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from cupcake_py.authoring.testing.cases import TestSetupError
from cupcake_py.authoring.testing.runner import run_tests
from cupcake_py.core import yaml_values
from cupcake_py.rego import parse_module

from .test_opa_test_semantics import _statuses, _write


@pytest.mark.parametrize("text", ["2001-02-03", "2001-02-03T04:05:06Z", "2001-12-14t21:59:43.10-05:00",
                                  "2002-12-14 21:59:43.10 -5"])
def test_timestamps_stay_the_text_written(text: str) -> None:
    assert yaml_values.load(f"at: {text}\n") == {"at": text}
    assert yaml_values.load(f"at: {text}\n", exact=False) == {"at": text}


def test_numbers_keys_and_refusals() -> None:
    assert yaml_values.load("f: 1.10\ni: 7\nk:\n  1: a\n  true: b\n") == {
        "f": Decimal("1.10"), "i": 7, "k": {"1": "a", "true": "b"}}
    with pytest.raises(yaml.YAMLError):
        yaml_values.load("x: .inf\n")
    assert yaml_values.load("") is None


@settings(max_examples=50, deadline=None)
@given(st.dates())
def test_any_date_round_trips_as_text(d: object) -> None:
    assert yaml_values.load(f"d: {d}\n") == {"d": str(d)}


def test_metadata_timestamps_stay_strings() -> None:
    m = parse_module("# METADATA\n# custom:\n#   since: 2001-02-03\n#   until: 2030-01-01T00:00:00Z\n"
                     "package p\n\nimport rego.v1\n\nx := 1\n", "p.rego")
    assert m.package.annotations[0].custom == {"since": "2001-02-03", "until": "2030-01-01T00:00:00Z"}


def test_yaml_data_files_and_data_named_on_the_command_line(tmp_path: Path) -> None:
    _write(tmp_path, {
        "extra.yml": "released: 2024-05-06\n",
        "pol/limits/data.yaml": "since: 2001-02-03\nratio: 0.10\n",
        "pol/p_test.rego": "package p_test\n\nimport rego.v1\n\n"
                           "test_date if data.limits.since == \"2001-02-03\"\n"
                           "test_ratio if data.limits.ratio == 0.1\n"
                           "test_root_file if data.released == \"2024-05-06\"\n",
    })
    run = run_tests([tmp_path / "extra.yml", tmp_path / "pol"])
    assert _statuses(run) == {"test_date": "pass", "test_ratio": "pass", "test_root_file": "pass"}
    assert sorted(Path(f).name for f in run.data_files) == ["data.yaml", "extra.yml"]
    assert all(f.endswith(".rego") for f in run.files)


@pytest.mark.parametrize(("text", "value"), [
    ("y", True), ("n", False), ("On", True), ("NO", False),  # go-yaml v2's booleans (PyYAML: y/n are text)
    ("1e3", 1000), ("-2E2", -200), ("08", 8), ("0o17", 15), ("017", 15), ("0x1F", 31), ("-0b101", -5),
    ("1_000", 1000), (".5", Decimal("0.5")), ("1.0", 1), ("12345678901234567890", 12345678901234567890),
    ("1:30", "1:30"), ("0.1.2", "0.1.2"), ("1e400", "1e400"), ("+", "+"), ("Yes!", "Yes!"),
])
def test_plain_scalars_resolve_as_go_yaml_v2(text: str, value: object) -> None:
    got = yaml_values.load(f"v: {text}\n")["v"]
    assert got == value and type(got) is type(value)


def test_go_yaml_keys_and_binary() -> None:
    assert yaml_values.load("y: 1\n1e3: 2\n") == {"true": 1, "1000": 2}
    assert yaml_values.load("b: !!binary aGk=\nbad: !!binary /w==\n") == {"b": "hi", "bad": "\ufffd"}
    with pytest.raises(yaml.YAMLError):
        yaml_values.load("b: !!binary '%%%'\n")


def test_go_yaml_scalars_in_data_files_and_yaml_unmarshal(tmp_path: Path) -> None:
    _write(tmp_path, {
        "pol/cfg/data.yaml": "replicas: 1e1\nmonth: 08\nanswer: y\nblob: !!binary aGk=\n",
        "pol/p_test.rego": "package p_test\n\nimport rego.v1\n\n"
                           "test_numbers if { data.cfg.replicas == 10; data.cfg.month == 8 }\n"
                           "test_bool if data.cfg.answer == true\n"
                           "test_binary if data.cfg.blob == \"hi\"\n"
                           "test_unmarshal if yaml.unmarshal(\"a: 1e3\\nb: n\") == {\"a\": 1000, \"b\": false}\n",
    })
    run = run_tests([tmp_path / "pol"])
    assert _statuses(run) == {"test_numbers": "pass", "test_bool": "pass", "test_binary": "pass",
                              "test_unmarshal": "pass"}


def test_metadata_scalars_resolve_as_go_yaml_v3() -> None:
    m = parse_module("# METADATA\n# custom:\n#   a: yes\n#   b: on\n#   c: 1e3\n#   d: 0o17\n#   e: 1:30\n"
                     "#   f: y\n#   g: 08\n#   h: True\n#   i: 0.5\npackage p\n\nimport rego.v1\n\nx := 1\n", "p.rego")
    assert m.package.annotations[0].custom == {"a": "yes", "b": "on", "c": 1000, "d": 15, "e": "1:30", "f": "y",
                                               "g": 8, "h": True, "i": 0.5}


@pytest.mark.parametrize(("text", "message"), [
    ("~: a\n", "unsupported map key of type: %!s(<nil>), key: <nil>"),
    ("a:\n  null: 1\n", "unsupported map key of type: %!s(<nil>)"),
    ("18446744073709551615: a\n", "unsupported map key of type: uint64"),
    ("? [a]\n: 1\n", "yaml: invalid map key"),
    ("<<: 5\n", "map merge requires map or sequence of maps"),
])
def test_keys_json_cannot_have_are_load_errors(tmp_path: Path, text: str, message: str) -> None:
    """As OPA's loader (sigs.k8s.io/yaml over go-yaml v2): a YAML data file whose keys JSON cannot
    have does not load; the tests never run."""
    _write(tmp_path, {"pol/cfg/data.yaml": text,
                      "pol/p_test.rego": "package p_test\n\nimport rego.v1\n\ntest_x if true\n"})
    with pytest.raises(TestSetupError, match="error converting YAML to JSON") as info:
        run_tests([tmp_path / "pol"])
    assert message in str(info.value)


def test_data_file_keys_and_merges_as_go_yaml_v2(tmp_path: Path) -> None:
    _write(tmp_path, {
        "pol/cfg/data.yaml": "defaults: &d {replicas: 1, tier: web}\n"
                             "svc:\n  replicas: 3\n  <<: *d\n"  # a merge after a key overrides it (v2)
                             "pinned:\n  <<: *d\n  replicas: 5\n"
                             "ports: {80: http, 1.5: odd, 1000000.0: big, yes: on}\n",
        "pol/p_test.rego": "package p_test\n\nimport rego.v1\n\n"
                           "test_merge_order if { data.cfg.svc.replicas == 1; data.cfg.pinned.replicas == 5 }\n"
                           "test_keys if data.cfg.ports == {\"80\": \"http\", \"1.5\": \"odd\", \"1e+06\": \"big\","
                           " \"true\": true}\n",
    })
    assert _statuses(run_tests([tmp_path / "pol"])) == {"test_merge_order": "pass", "test_keys": "pass"}


def test_float_keys_print_as_go_float32() -> None:
    assert [yaml_values.go_float32_text(f) for f in (0.1, 1e6, 123456.0, 1e-5, 3.14159265358979, 2.5e38, 1e39, -0.0)] \
        == ["0.1", "1e+06", "123456", "1e-05", "3.1415927", "2.5e+38", ".inf", "-0"]


def test_unpaired_surrogate_escapes_in_data_files(tmp_path: Path) -> None:
    """JSON (Go's encoding/json): an unpaired \\ud800 escape is U+FFFD and a pair is one
    character; YAML (go-yaml): any surrogate escape in a double-quoted scalar is refused."""
    _write(tmp_path, {
        "pol/x/data.json": '{"a": "\\ud800z", "\\udc00": 1, "b": "\\ud83d\\ude00"}',
        "pol/p_test.rego": "package p_test\n\nimport rego.v1\n\n"
                           "test_lone if { data.x.a == \"\\ufffdz\"; data.x[\"\\ufffd\"] == 1 }\n"
                           "test_pair if data.x.b == \"\U0001F600\"\n",
    })
    assert _statuses(run_tests([tmp_path / "pol"])) == {"test_lone": "pass", "test_pair": "pass"}
    (tmp_path / "pol" / "x" / "more.yaml").write_text('c: "\\ud83d\\ude00"\n')
    with pytest.raises(TestSetupError, match="found invalid Unicode character escape code"):
        run_tests([tmp_path / "pol"])
