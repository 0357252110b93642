"""What a bundle's per-request work needs to know about its policies, computed once per bundle.

In: a bundle's `policies` (package → route info: "signals", optional "builtin") and `signals`
(name → spec; builtin-policy signals are named `__builtin_<policy>_…`). Out: `BundleIndex`:
- `signal_users`: only the packages that can ask for signals (declared signals, or a builtin
  policy with generated signals), each with its declared signal names and its builtin signals
  (name, spec) in the bundle's signal order. A request whose routed packages are not in it does
  no signal work at all, however many policies are routed.
- `positions`: package → its index in `input.cupcake_routed` (routed_aggregator.package_order);
- `route(event, tool)`: the `Route` of that event and tool (the routing lookup, the routed names as
  a set, the routed signal users and `input.cupcake_routed` with its JSON text), memoised (a
  bounded memo per bundle): a warm server sees the same few keys, so a request with hundreds of
  routed packages neither looks them up, nor builds their set or flags, nor encodes the flags.
Pure data; raises nothing for a well-formed bundle (a malformed header fails where it is decoded).
"""

from __future__ import annotations

from cupcake_py.core import jsonio
from cupcake_py.engine.routed_aggregator import package_order, routed_input
from cupcake_py.engine.routing import lookup

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    # (declared signal names, builtin-policy signals (name, spec) in bundle order)
    SignalUse = tuple[tuple[str, ...], tuple[tuple[str, dict[str, Any]], ...]]


class Route:
    """The packages routed to one (event, tool) in a bundle, in routing order, and what a request
    derives from them."""

    __slots__ = ("packages", "names", "signal_users", "flags", "flags_json")

    def __init__(self, packages: list[str], signal_users: Mapping[str, object], positions: Mapping[str, int]) -> None:
        self.packages: tuple[str, ...] = tuple(packages)
        self.names: frozenset[str] = frozenset(packages)
        self.signal_users: tuple[str, ...] = tuple(p for p in packages if p in signal_users)
        # `input.cupcake_routed` (a tuple: shared by every request of the route, never changed)
        self.flags: tuple[bool, ...] = tuple(routed_input(positions, packages))
        self.flags_json = jsonio.dumps(self.flags)


class BundleIndex:
    """Derived data (not a Record: equal when the data is, whatever the memo of routes holds)."""

    __slots__ = ("routing", "signal_users", "positions", "_routes")
    routing: dict[str, list[str]]
    signal_users: dict[str, SignalUse]
    positions: dict[str, int]

    def __init__(self, routing: dict[str, list[str]], signal_users: dict[str, SignalUse],
                 positions: dict[str, int]) -> None:
        self.routing, self.signal_users, self.positions = routing, signal_users, positions
        self._routes: dict[tuple[str, str | None], Route] = {}

    def route(self, event: str, tool: str | None) -> Route:
        """The packages routed to (event, tool) (routing.lookup of the bundle's table), memoised."""
        key = (event, tool)
        found = self._routes.get(key)
        if found is None:
            if len(self._routes) >= 64:
                self._routes.clear()
            found = self._routes[key] = Route(lookup(self.routing, event, tool), self.signal_users, self.positions)
        return found

    def flags_json(self, value: object) -> bytes | None:
        """The JSON text of `value` when it is the very `flags` tuple of a memoised route (the
        evaluator splices it into the policy input instead of encoding it), else None."""
        for route in self._routes.values():
            if route.flags is value:
                return route.flags_json
        return None

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, BundleIndex):
            return NotImplemented
        return ((self.routing, self.signal_users, self.positions)
                == (other.routing, other.signal_users, other.positions))

    __hash__ = None  # type: ignore[assignment]  # mutable: unhashable

    def __repr__(self) -> str:
        return (f"BundleIndex(routing={self.routing!r}, signal_users={self.signal_users!r}, "
                f"positions={self.positions!r})")


def index(routing: dict[str, list[str]], policies: dict[str, dict[str, Any]],
          signals: dict[str, dict[str, Any]]) -> BundleIndex:
    users: dict[str, SignalUse] = {}
    for pkg, info in policies.items():
        declared = tuple(info.get("signals") or ())
        name = info.get("builtin")
        prefix = f"__builtin_{name}_"
        builtin = tuple((s, spec) for s, spec in signals.items() if s.startswith(prefix)) if name else ()
        if declared or builtin:
            users[pkg] = (declared, builtin)
    return BundleIndex(routing, users, {pkg: k for k, pkg in enumerate(package_order(policies))})
