"""What a bundle's per-request work needs to know about its policies, computed once per bundle.

In: a bundle's `policies` (package → route info: "signals", optional "builtin") and `signals`
(name → spec; builtin-policy signals are named `__builtin_<policy>_…`). Out: `BundleIndex`:
- `signal_users`: only the packages that can ask for signals (declared signals, or a builtin
  policy with generated signals), each with its declared signal names and its builtin signals
  (name, spec) in the bundle's signal order. A request whose routed packages are not in it does
  no signal work at all, however many policies are routed.
- `positions`: package → its index in `input.cupcake_routed` (routed_aggregator.package_order);
  `routed_flags(routed)`: that input for a routed list, memoised (a bounded memo per bundle).
Pure data; raises nothing for a well-formed bundle (a malformed header fails where it is decoded).
"""

from __future__ import annotations

from cupcake_py.engine.routed_aggregator import package_order, routed_input

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    # (declared signal names, builtin-policy signals (name, spec) in bundle order)
    SignalUse = tuple[tuple[str, ...], tuple[tuple[str, dict[str, Any]], ...]]


class BundleIndex:
    """Derived data (not a Record: equal when the data is, whatever the memo of routed flags holds)."""

    __slots__ = ("signal_users", "positions", "_flags")
    signal_users: dict[str, SignalUse]
    positions: dict[str, int]

    def __init__(self, signal_users: dict[str, SignalUse], positions: dict[str, int]) -> None:
        self.signal_users, self.positions = signal_users, positions
        self._flags: dict[tuple[str, ...], list[bool]] = {}

    def routed_flags(self, routed: list[str]) -> list[bool]:
        """`input.cupcake_routed` for `routed` (a fresh list), memoised per routed list: a warm server
        sees the same few (one per event and tool), so a request does not rebuild a list as long as
        the bundle's package count."""
        key = tuple(routed)
        flags = self._flags.get(key)
        if flags is None:
            if len(self._flags) >= 64:
                self._flags.clear()
            flags = self._flags[key] = routed_input(self.positions, routed)
        return flags.copy()

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, BundleIndex):
            return NotImplemented
        return (self.signal_users, self.positions) == (other.signal_users, other.positions)

    __hash__ = None  # type: ignore[assignment]  # mutable: unhashable

    def __repr__(self) -> str:
        return f"BundleIndex(signal_users={self.signal_users!r}, positions={self.positions!r})"


def index(policies: dict[str, dict[str, Any]], signals: dict[str, dict[str, Any]]) -> BundleIndex:
    users: dict[str, SignalUse] = {}
    for pkg, info in policies.items():
        declared = tuple(info.get("signals") or ())
        name = info.get("builtin")
        prefix = f"__builtin_{name}_"
        builtin = tuple((s, spec) for s, spec in signals.items() if s.startswith(prefix)) if name else ()
        if declared or builtin:
            users[pkg] = (declared, builtin)
    return BundleIndex(users, {pkg: k for k, pkg in enumerate(package_order(policies))})
