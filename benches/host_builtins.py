"""µs per call of a few host builtins (direct Python calls, warm caches).

Run: .venv/bin/python benches/host_builtins.py
"""

from __future__ import annotations

import timeit
from decimal import Decimal

from cupcake_py.host.builtins import BuiltinContext, lookup

CASES = [
    ("sprintf", ("user %s has %d items (%.2f%%)", ["alice", 42, Decimal("99.5")])),
    ("sprintf", ("%v", [{"a": [1, 2, frozenset({3})]}])),
    ("regex.match", (r"^[a-z]+\[[0-9]+\]$", "foo[123]")),
    ("regex.replace", ("the quick brown fox", r"(\w+)", "<$1>")),
    ("glob.match", ("*.github.com", ["."], "api.github.com")),
    ("time.parse_rfc3339_ns", ("2017-06-02T19:00:00.123456789-07:00",)),
    ("time.format", ([1670006453141828752, "Asia/Kolkata", "RFC1123Z"],)),
    ("units.parse_bytes", ("4.5GiB",)),
    ("io.jwt.decode", ("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIwIiwiaXNzIjoib3BhIn0."
                       "XmVoLoHI3pxMtMO_WRONMSJzGUDP9pDjy8Jp0_tdRXY",)),
]  # fmt: skip


def main() -> None:
    ctx = BuiltinContext(seed=1)
    for name, args in CASES:
        b = lookup(name)
        assert b is not None
        fn = b.fn
        fn(ctx, *args)  # warm caches
        n = 20000
        best = min(timeit.repeat(lambda fn=fn, args=args: fn(ctx, *args), number=n, repeat=5))
        print(f"{name:28s} {best / n * 1e6:8.2f} µs/call")


if __name__ == "__main__":
    main()
