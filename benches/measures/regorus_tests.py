"""Run the `test_*` rules of a Rego corpus with regorus (python bindings), as `opa test` would:
every *.rego file loaded into one engine, every data.json mounted at its directory path, each
test rule evaluated; prints {"pass": n, "total": n, "seconds": {...}} and exits 2 unless all pass.

    python benches/measures/regorus_tests.py CORPUS_DIR
"""

from __future__ import annotations

import json
import re
import sys
import time
from pathlib import Path

TEST_RULE = re.compile(r"^(test_\w+)\s+(?:if\b|\{|:=|=)", re.M)


def main(root: Path) -> int:
    t0 = time.perf_counter()
    import regorus

    eng = regorus.Engine()
    tests: list[str] = []
    for p in sorted(root.rglob("*.rego")):
        src = p.read_text()
        pkg = eng.add_policy(str(p), src)
        tests += [f"{pkg}.{m.group(1)}" for m in TEST_RULE.finditer(src)]
    for p in sorted(root.rglob("data.json")):
        doc = json.loads(p.read_text())
        for part in reversed(p.parent.relative_to(root).parts):
            doc = {part: doc}
        eng.add_data(doc)
    t1 = time.perf_counter()
    passed = sum(1 for t in tests if eng.eval_rule(t) is True)
    t2 = time.perf_counter()
    print(json.dumps({"pass": passed, "total": len(tests), "seconds": {"load": t1 - t0, "eval": t2 - t1}}))
    return 0 if passed == len(tests) else 2


if __name__ == "__main__":
    raise SystemExit(main(Path(sys.argv[1])))
