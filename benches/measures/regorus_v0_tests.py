"""Run the `test_*` rules of some template directories with regorus in v0 mode, as an admission
library's CI runs `opa test --v0-compatible lib/ <template>/`: every *.rego file of the library
directories plus the template's, one engine, each test rule evaluated. Prints
{"pass": n, "total": n} and exits 2 unless all pass.

    python benches/measures/regorus_v0_tests.py LIB_DIR TEMPLATE_DIR
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

TEST_RULE = re.compile(r"^(test_\w+)\s*(?:if\b|\{|:=|=)", re.M)


def main(dirs: list[Path]) -> int:
    import regorus

    eng = regorus.Engine()
    eng.set_rego_v0(True)
    tests: list[str] = []
    for d in dirs:
        for p in sorted(d.rglob("*.rego")):
            src = p.read_text()
            pkg = eng.add_policy(str(p), src)
            tests += [f"{pkg}.{m.group(1)}" for m in TEST_RULE.finditer(src)]
    passed = sum(1 for t in tests if eng.eval_rule(t) is True)
    print(json.dumps({"pass": passed, "total": len(tests)}))
    return 0 if passed == len(tests) else 2


if __name__ == "__main__":
    raise SystemExit(main([Path(a) for a in sys.argv[1:]]))
