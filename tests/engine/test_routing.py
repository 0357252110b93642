from __future__ import annotations

import pytest

from cupcake_py.engine.routing import RoutingError, lookup, merge_routes, route_of_module, routing_table
from cupcake_py.rego import parse_module


def module(pkg: str, routing: str | None, body: str = 'deny contains "x" if { false }') -> object:
    meta = "" if routing is None else "# METADATA\n# custom:\n#   routing:\n" + "".join(
        f"#     {line}\n" for line in routing.splitlines())
    return parse_module(f"{meta}package {pkg}\n\nimport rego.v1\n\n{body}\n", f"{pkg}.rego")


def table(*mods: tuple[str, str | None]) -> dict[str, list[str]]:
    routes = [route_of_module(module(p, r), f"{p}.rego") for p, r in mods]
    return routing_table(merge_routes([r for r in routes if r is not None]))


def test_keys_and_lookup_with_wildcards() -> None:
    t = table(("cupcake.policies.bash", "required_events: [PreToolUse]\nrequired_tools: [Bash, Edit]"),
              ("cupcake.policies.star", 'required_events: [PreToolUse]\nrequired_tools: ["*"]'),
              ("cupcake.policies.event", "required_events: [PreToolUse, PostToolUse]"))
    assert t == {"PreToolUse": ["cupcake.policies.event", "cupcake.policies.star"],
                 "PostToolUse": ["cupcake.policies.event"],
                 "PreToolUse:Bash": ["cupcake.policies.bash"], "PreToolUse:Edit": ["cupcake.policies.bash"]}
    assert lookup(t, "PreToolUse", "Bash") == ["cupcake.policies.event", "cupcake.policies.star",
                                               "cupcake.policies.bash"]
    # `*` alone routes (Cupcake 0.5.2 needed another policy's key): MCP tools reach it.
    assert lookup(t, "PreToolUse", "demo_run_shell") == ["cupcake.policies.event", "cupcake.policies.star"]
    assert lookup(t, "PostToolUse", "Bash") == ["cupcake.policies.event"]
    assert lookup(t, "PermissionRequest", "Bash") == []


def test_signals_and_builtin_names() -> None:
    r = route_of_module(module("cupcake.policies.builtins.git_pre_check",
                               "required_events: [PreToolUse]\nrequired_signals: [a, b]"), "f")
    assert r is not None and r.signals == ["a", "b"] and r.builtin == "git_pre_check"


def test_packages_without_verbs_and_system_packages_need_no_routing() -> None:
    assert route_of_module(module("cupcake.policies.lib", None, "helper(x) if { x }"), "f") is None
    assert route_of_module(module("cupcake.system.extra", None), "f") is None


def test_split_package_routes_are_merged() -> None:
    t = table(("cupcake.policies.p", "required_events: [PreToolUse]\nrequired_tools: [Bash]"),
              ("cupcake.policies.p", "required_events: [PreToolUse]\nrequired_tools: [Read]"))
    assert t == {"PreToolUse:Bash": ["cupcake.policies.p"], "PreToolUse:Read": ["cupcake.policies.p"]}


@pytest.mark.parametrize(("pkg", "routing", "needle"), [
    ("cupcake.policies.x", None, "no METADATA"),
    ("cupcake.policies.x", "required_tools: [Bash]", "without required_events"),
    ("cupcake.policies.x", "required_events: PreToolUse", "list of non-empty strings"),
    ("cupcake.policies.x", "required_events: [PreToolUse]\nrequired_tool: [Bash]", "unknown custom.routing keys"),
    ("other.pkg", "required_events: [PreToolUse]", "outside cupcake.policies"),
])
def test_routing_mistakes(pkg: str, routing: str | None, needle: str) -> None:
    with pytest.raises(RoutingError, match=needle):
        route_of_module(module(pkg, routing), "f.rego")
