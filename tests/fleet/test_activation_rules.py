"""Activation rules in-process: rollback ordering (property-based), Rego v0 refused through the
manifest's per-file versions, the same content twice is "unchanged", and policies that do not
compile are refused with the active bundle kept."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cupcake_py.core import cache_mac
from cupcake_py.engine import fleet_active
from cupcake_py.fleet import activate, build, opa_bundle
from tests.fleet.conftest import Machine
from tests.fleet.helpers import ORG_DENY_CURL, org_config

versions = st.lists(st.integers(min_value=0, max_value=10_000), min_size=1, max_size=4)


@given(versions, versions)
def test_numeric_revisions_never_go_back(a: list[int], b: list[int]) -> None:
    new = {"revision": ".".join(map(str, a)), "digest": "n", "iat": None}
    active = {"revision": ".".join(map(str, b)), "digest": "a", "iat": None}
    problem = activate.rollback_problem(new, active)
    if tuple(a) < tuple(b) or a == b:
        assert problem is not None
    else:
        assert problem is None


@given(st.integers(0, 2**40), st.integers(0, 2**40))
def test_signature_age_orders_opaque_revisions(iat_new: int, iat_active: int) -> None:
    problem = activate.rollback_problem({"revision": "abc", "digest": "n", "iat": iat_new},
                                        {"revision": "def", "digest": "a", "iat": iat_active})
    assert (problem is not None) == (iat_new < iat_active)


def _archive(tmp: Path, revision: str, policies: dict[str, str], manifest: dict[str, object] | None = None) -> bytes:
    b = build.build(str(org_config(tmp / f"src{revision}", policies)), revision, wasm=False)
    files = dict(b.files)
    if manifest is not None:
        files[".manifest"] = opa_bundle.Manifest({**b.manifest.raw, **manifest}).encode()
    return opa_bundle.write(files)


LEGACY_V0 = ("# METADATA\n# custom:\n#   routing:\n#     required_events: [PreToolUse]\n#     required_tools: [Bash]\n"
             "package cupcake.policies.org.legacy\n\n"
             "deny[d] {\n\tcontains(input.tool_input.command, \"legacy-danger\")\n"
             "\td := {\"rule_id\": \"ORG-LEGACY\", \"reason\": \"org v0 says no\", \"severity\": \"HIGH\"}\n}\n")


def test_manifest_rego_versions_reach_the_engine(machine: Machine) -> None:
    """A bundle whose manifest says a file is Rego v0 (OPA's file_rego_versions) is activated and that
    file is parsed as v0 by `cupcake eval`; a rulebook's versions go into the manifest at build."""
    from cupcake_py.harness.examples import run_eval
    from tests.fleet.helpers import bash

    legacy = _archive(machine.root, "1", {"curl": ORG_DENY_CURL, "legacy": LEGACY_V0},
                      {"file_rego_versions": {"/policies/opencode/legacy.rego": 0}})
    assert activate.activate("acme", legacy, None)["changed"]
    (machine.org / "fleet.yml").write_text(f"bundles:\n  acme:\n    path: {machine.root}/unused\n")
    resp, _, err = run_eval(bash(machine.project, "echo legacy-danger"), machine.project, [], machine.env)
    assert resp == {"decision": "deny", "reason": "org v0 says no", "rule_ids": ["ORG-LEGACY"]}, (resp, err)
    files = dict(opa_bundle.read(_archive(machine.root, "2", {})).files)
    files[".manifest"] = b'{"revision": "2", "file_rego_versions": {"x": 7}}'
    with pytest.raises(activate.ActivationError, match="manifest"):
        activate.activate("acme", opa_bundle.write(files), None)
    src = org_config(machine.root / "v0src", {"legacy": LEGACY_V0},
                     rulebook="rego_version: 1\nfile_rego_versions: {\"policies/opencode/legacy.rego\": 0}\n")
    m = build.build(str(src), "3", wasm=True).manifest
    assert m.file_rego_versions == {"/policies/opencode/legacy.rego": 0}
    assert m.rego_version_of("policies/opencode/legacy.rego") == 0


def test_unchanged_and_uncompilable(machine: Machine) -> None:
    good = _archive(machine.root, "2", {"curl": ORG_DENY_CURL})
    assert activate.activate("acme", good, None)["changed"] is True
    assert activate.activate("acme", good, None)["changed"] is False
    broken = _archive(machine.root, "3", {"curl": ORG_DENY_CURL, "bad": "package cupcake.policies.bad\n\nnot rego(\n"})
    with pytest.raises(activate.ActivationError, match="do not build"):
        activate.activate("acme", broken, None)
    record, problem = fleet_active.read_pointer("acme", cache_mac.key())
    assert problem is None and record is not None and record["revision"] == "2"
    assert fleet_active.tree_problem("acme", record) is None


def test_polling_delays_spread_and_back_off() -> None:
    import random

    from cupcake_py.engine.fleet_config import BundleSource, Polling
    from cupcake_py.fleet.refresh import next_delay

    spec = BundleSource(url="http://x/b.tar.gz", polling=Polling(min_delay_seconds=60, max_delay_seconds=120))
    rng = random.Random(7)
    ok = [next_delay(spec, 0, rng) for _ in range(200)]
    assert all(60 <= d <= 120 for d in ok) and max(ok) - min(ok) > 30  # spread over the window
    backoff = [next_delay(spec, n, random.Random(1)) for n in range(1, 6)]
    assert 45 <= backoff[0] <= 60 and 90 <= backoff[1] <= 120 and all(d <= 120 for d in backoff)
