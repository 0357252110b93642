"""Generate a Rego corpus for `cupcake test` benchmarks: POLICIES policy files (packages
`corpus.p<i>`, each importing a shared library) and TESTED of them with a `*_test.rego` file of
TESTS_PER_FILE tests, plus a `data.json` read by the library. Deterministic: the same arguments
write the same files.

    .venv/bin/python benches/test_corpus.py OUT_DIR [--policies 1000] [--tested 300] [--tests-per-file 2]
"""

from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

LIB = """package corpus.lib

import rego.v1

words(cmd) := [w | some w in split(cmd, " "); w != ""]

flagged(cmd, prefix) if {
	some w in words(cmd)
	startswith(w, prefix)
}

severity(n) := "high" if n > data.corpus.limits.high
severity(n) := "low" if n <= data.corpus.limits.high
"""

POLICY = """package corpus.p{i:04d}

import data.corpus.lib
import rego.v1

deny contains msg if {{
	lib.flagged(input.command, "tool{i}")
	msg := sprintf("p{i:04d}: %s is not allowed (%s)", [input.command, lib.severity(count(input.command))])
}}

deny contains msg if {{
	some path in input.paths
	regex.match(`^/etc/(passwd|shadow)$`, path)
	msg := sprintf("p{i:04d}: protected file %s", [path])
}}

ask contains "p{i:04d}: review" if {{
	object.get(input, ["options", "force"], false)
	not input.user in {{"root", "admin"}}
}}

quota := n if {{
	n := count([p | some p in input.paths; endswith(p, ".{ext}")])
}}
"""

TEST = """package corpus.p{i:04d}_test

import data.corpus.p{i:04d}
import rego.v1
"""

CASES = [
    """
test_deny_fires_{k} if {{
	msgs := p{i:04d}.deny with input as {{"command": "tool{i} --x{k}", "paths": []}}
	count(msgs) == 1
}}
""",
    """
test_quiet_command_{k} if {{
	count(p{i:04d}.deny) == 0 with input as {{"command": "ls -la {k}", "paths": ["/tmp/a.{ext}"]}}
}}
""",
    """
test_protected_path_{k} if {{
	some msg in p{i:04d}.deny with input as {{"command": "cat", "paths": ["/etc/passwd", "/home/{k}"]}}
	contains(msg, "protected")
}}
""",
    """
test_force_asks_{k} if {{
	p{i:04d}.ask["p{i:04d}: review"] with input as {{"command": "x", "paths": [], "options": {{"force": true}}, "user": "u{k}"}}
	not p{i:04d}.ask["p{i:04d}: review"] with input as {{"command": "x", "paths": [], "options": {{"force": true}}, "user": "root"}}
}}
""",
    """
test_quota_{k} if {{
	p{i:04d}.quota == 2 with input as {{"command": "", "paths": ["a.{ext}", "b.{ext}", "c.txt"]}}
}}
""",
]

EXTS = ("py", "go", "rs", "ts", "md")


def policy_source(i: int) -> str:
    return POLICY.format(i=i, ext=EXTS[i % len(EXTS)])


def test_source(i: int, tests: int) -> str:
    body = [TEST.format(i=i)]
    for n in range(tests):
        body.append(CASES[n % len(CASES)].format(i=i, k=n, ext=EXTS[i % len(EXTS)]))
    return "".join(body)


def generate(out: Path, policies: int = 1000, tested: int = 300, tests_per_file: int = 2) -> dict[str, int]:
    """Write the corpus under `out` (replaced); returns its counts."""
    if out.exists():
        shutil.rmtree(out)
    (out / "corpus").mkdir(parents=True)
    (out / "corpus" / "lib.rego").write_text(LIB)
    (out / "corpus" / "limits").mkdir()
    (out / "corpus" / "limits" / "data.json").write_text(json.dumps({"high": 20}))
    step = max(1, policies // max(1, tested))
    tested_ids = list(range(0, policies, step))[:tested]
    for i in range(policies):
        (out / "corpus" / f"p{i:04d}.rego").write_text(policy_source(i))
    for i in tested_ids:
        (out / "corpus" / f"p{i:04d}_test.rego").write_text(test_source(i, tests_per_file))
    return {"policy_files": policies + 1, "test_files": len(tested_ids), "tests": len(tested_ids) * tests_per_file}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--policies", type=int, default=1000)
    ap.add_argument("--tested", type=int, default=300)
    ap.add_argument("--tests-per-file", type=int, default=2)
    a = ap.parse_args()
    print(json.dumps(generate(a.out, a.policies, a.tested, a.tests_per_file)))


if __name__ == "__main__":
    main()
