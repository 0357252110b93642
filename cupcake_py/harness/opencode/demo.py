"""`make demo` for OpenCode: the example events of harness/opencode/examples through the real
`cupcake eval --harness opencode` (the table itself: cupcake_py/harness/demo.py)."""

from __future__ import annotations

from cupcake_py.harness.demo import main

if __name__ == "__main__":
    raise SystemExit(main())
