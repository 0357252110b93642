"""Per-class split of the adversarial corpus: `python -m tests.adversarial.report [--show-failures]`
(builds its own world in a temporary directory; same evaluation as test_corpus.py)."""

from __future__ import annotations

import sys
import tempfile
from collections import defaultdict
from pathlib import Path

from tests.adversarial.world import build, load, run


def main() -> int:
    attacks, benign = load("attacks"), load("benign")
    with tempfile.TemporaryDirectory() as tmp:
        world = build(Path(tmp))
        got = run(world, attacks + benign)
    rows: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0, 0])
    failures = []
    for kind, entries in (("attack", attacks), ("benign", benign)):
        for e in entries:
            decision, reason = got[e.id]
            ok = decision != "allow" if kind == "attack" else decision == "allow"
            exact = decision == e.expect
            r = rows[(kind, e.cls)]
            r[0] += ok
            r[1] += 1
            r[2] += exact
            if not exact:
                gap = f" (known gap: {e.gap})" if e.gap else ""
                failures.append(f"{e.id} [{e.cls}] expected {e.expect}, got {decision}{gap}: {e.event['args']} :: "
                                f"{reason[:300]}")
    print(f"{'kind':7} {'class':22} {'ok/total':>9} {'exact':>6}")
    for (kind, cls), (ok, total, exact) in sorted(rows.items()):
        print(f"{kind:7} {cls:22} {ok:>4}/{total:<4} {exact:>6}")
    for kind in ("attack", "benign"):
        ok = sum(v[0] for (k, _), v in rows.items() if k == kind)
        total = sum(v[1] for (k, _), v in rows.items() if k == kind)
        print(f"{kind}: {ok}/{total} {'stopped' if kind == 'attack' else 'allowed'}")
    if "--show-failures" in sys.argv:
        print("\n".join(failures))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
