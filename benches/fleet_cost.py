"""The fleet's cost on the machine: a cold `cupcake eval` with decision-log export configured vs
without (export never runs on the eval path: the difference must stay within 1 ms), the org
tier's cost (an activated bundle checked per evaluation), and the time to activate a bundle.

    .venv/bin/python benches/fleet_cost.py [--runs 30]

Three machines (private XDG dirs each): no org tier; an org tier with one activated bundle
(a signed bundle pulled from a path source) and fleet.yml without `decision_logs`; the same with
`decision_logs` (OTLP + syslog) configured. Runs are interleaved; medians of wall and child CPU
time. Activation: `fleet.activate.activate` in-process, a new revision each time (signature check,
extraction, compile for the harness — cold compiler cache for the first, warm after), median of 5.
Prints a JSON summary; docs/fleet.md quotes it.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benches.eval_cold import timed  # noqa: E402
from cupcake_py.harness.examples import cupcake_command  # noqa: E402
from tests.fleet.helpers import ORG_DENY_CURL, bash, org_config, rsa_pair  # noqa: E402


def _machine(root: Path, org: bool, export: bool, bundle: Path, pub: Path) -> tuple[dict[str, str], Path]:
    env = dict(os.environ)
    for var, sub in (("XDG_CONFIG_HOME", "config"), ("XDG_CACHE_HOME", "cache"), ("XDG_STATE_HOME", "state")):
        (root / sub).mkdir(parents=True, mode=0o700)
        env[var] = str(root / sub)
    orgdir = root / "org"
    orgdir.mkdir()
    env["CUPCAKE_ORG_CONFIG"] = str(orgdir)
    project = root / "proj"
    org_config(project / ".cupcake", {"curl": ORG_DENY_CURL.replace("org.curl", "p.curl")})
    if org:
        text = f"bundles:\n  acme:\n    path: {bundle}\n    signing: {{keyid: ci}}\nkeys:\n  ci: {{key: {pub}}}\n"
        if export:
            text += ("decision_logs:\n  otlp: {endpoint: 'http://127.0.0.1:9/v1/logs'}\n"
                     "  syslog: [{address: '127.0.0.1:9', format: cef}]\n")
        (orgdir / "fleet.yml").write_text(text)
        import subprocess

        subprocess.run([*cupcake_command(), "bundle", "pull"], env=env, check=True, capture_output=True)
    return env, project


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=30)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for var in ("XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME"):  # this process's own work: private too
            os.environ[var] = str(root / "bench-home" / var.lower())
            os.makedirs(os.environ[var], mode=0o700)
        priv, pub = rsa_pair(root)
        from cupcake_py.fleet import build, opa_bundle, signing

        b = build.build(str(org_config(root / "src", {"curl": ORG_DENY_CURL})), "1")
        sig = signing.sign(b, priv.read_text(), "RS256", "ci")
        bundle = root / "bundle.tar.gz"
        bundle.write_bytes(opa_bundle.write({**b.files, opa_bundle.SIGNATURES: sig}))
        machines = {
            "no org tier": _machine(root / "m0", False, False, bundle, pub),
            "org bundle, no export": _machine(root / "m1", True, False, bundle, pub),
            "org bundle + export configured": _machine(root / "m2", True, True, bundle, pub),
        }
        cmd = [*cupcake_command(), "eval", "--harness", "opencode"]
        samples: dict[str, list[tuple[float, float]]] = {k: [] for k in machines}
        for env, project in machines.values():  # warm every cache once
            timed(cmd, bash(project, "ls"), project, env)
        for _ in range(args.runs):
            for name, (env, project) in machines.items():
                wall, cpu, _ = timed(cmd, bash(project, "ls"), project, env)
                samples[name].append((wall, cpu))
        def q(xs: list[float]) -> list[float]:
            qs = statistics.quantiles(xs, n=4)
            return [round(qs[0] * 1000, 1), round(qs[2] * 1000, 1)]

        med = {k: {"wall_ms": round(statistics.median(w for w, _ in v) * 1000, 2),
                   "cpu_ms": round(statistics.median(c for _, c in v) * 1000, 2),
                   "cpu_iqr_ms": q([c for _, c in v])} for k, v in samples.items()}
        base = med["org bundle, no export"]
        exp = med["org bundle + export configured"]
        out: dict[str, object] = {"runs": args.runs, "eval": med,
                                  "export_configured_minus_not_ms": {
                                      "wall": round(exp["wall_ms"] - base["wall_ms"], 2),
                                      "cpu": round(exp["cpu_ms"] - base["cpu_ms"], 2)},
                                  "org_tier_minus_none_ms": {
                                      "wall": round(base["wall_ms"] - med["no org tier"]["wall_ms"], 2),
                                      "cpu": round(base["cpu_ms"] - med["no org tier"]["cpu_ms"], 2)}}
        # in-process: the org tier's discovery on the eval path (pointer MAC, tree hashes, parsed fleet.yml),
        # the only code that reads fleet.yml, with and without decision_logs in it (median of 500)
        from cupcake_py.core import cache_mac
        from cupcake_py.engine import fleet_active

        discover: dict[str, float] = {}
        for name in ("org bundle, no export", "org bundle + export configured"):
            env = machines[name][0]
            for var in ("XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME", "CUPCAKE_ORG_CONFIG"):
                os.environ[var] = env[var]
            cache_mac.forget()
            fleet_active.org_configs("opencode")
            ts = []
            for _ in range(500):
                t0 = time.perf_counter()
                fleet_active.org_configs("opencode")
                ts.append(time.perf_counter() - t0)
            discover[name] = round(statistics.median(ts) * 1000, 4)
        out["org_discovery_in_process_ms"] = discover
        out["org_discovery_export_minus_not_ms"] = round(
            discover["org bundle + export configured"] - discover["org bundle, no export"], 4)
        # activation: in-process, the machine-1 environment
        env1 = machines["org bundle, no export"][0]
        for var in ("XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME"):
            os.environ[var] = env1[var]
        cache_mac.forget()
        from cupcake_py.fleet import activate

        cfg = signing.VerificationConfig({"ci": signing.VerificationKey(pub.read_text(), "RS256")}, "ci")
        times = []
        for i in range(5):
            src = org_config(root / f"rev{i}", {"curl": ORG_DENY_CURL, f"x{i}": ORG_DENY_CURL.replace(
                "org.curl", f"org.x{i}")})
            nb = build.build(str(src), str(100 + i), wasm=False)
            blob = opa_bundle.write({**nb.files, opa_bundle.SIGNATURES: signing.sign(nb, priv.read_text(), "RS256",
                                                                                       "ci")})
            t0 = time.perf_counter()
            activate.activate("acme", blob, cfg)
            times.append(time.perf_counter() - t0)
        out["activation_ms"] = {"median": round(statistics.median(times) * 1000, 1),
                                "each": [round(t * 1000, 1) for t in times], "bundle_bytes": len(blob)}
        print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
