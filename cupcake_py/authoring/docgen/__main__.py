"""`python -m cupcake_py.authoring.docgen [--check]`: regenerate (or check) the generated docs."""

from __future__ import annotations

import sys

from cupcake_py.authoring.docgen import COMMAND, stale, write


def main(argv: list[str]) -> int:
    if argv[:1] == ["--check"]:
        old = stale()
        for rel in old:
            print(f"stale: {rel} (regenerate with `{COMMAND}`)", file=sys.stderr)
        return 1 if old else 0
    if argv:
        print(f"usage: {COMMAND} [--check]", file=sys.stderr)
        return 2
    for rel in write():
        print(f"wrote {rel}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
