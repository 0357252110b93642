"""Rules about what the harness really sends (OpenCode, or Claude Code for files under
policies/claude/; harness_facts.facts_for): event and tool names, routing that disagrees with a
rule's own guards, signals, `tool_input` fields and top-level input fields."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from cupcake_py.authoring import astq
from cupcake_py.authoring import harness_facts as H
from cupcake_py.authoring.findings import Finding, Severity, did_you_mean, finding, hint
from cupcake_py.authoring.lint_context import Check, ModuleInfo, Project
from cupcake_py.core.errors import Location
from cupcake_py.rego import ast as A

GUARD_FIELDS = frozenset({"tool_name", "tool", "hook_event_name"})


def _f(rule: str, loc: Location, mi: ModuleInfo, message: str, severity: Severity | None = None) -> Finding:
    return finding(rule, loc.file or mi.file, loc.row, loc.col, message, severity)


def _tool_guard(rule: A.Rule, F: H.Facts) -> list[astq.Guard]:  # noqa: N803 - the harness facts
    """Guards on the tool, all expressed as tool_name values (`input.tool` ids are mapped)."""
    out = []
    names = {tool: name for name, tool in F.tool_names.items()}
    for g in astq.guards(rule, GUARD_FIELDS):
        if g.field == "tool_name":
            out.append(g)
        elif g.field == "tool":
            out.append(astq.Guard("tool_name", frozenset(names.get(v, v) for v in g.values), g.location))
    return out


def _event_guard(rule: A.Rule) -> list[astq.Guard]:
    return [g for g in astq.guards(rule, GUARD_FIELDS) if g.field == "hook_event_name"]


def _allowed(gs: list[astq.Guard]) -> frozenset[str] | None:
    out: frozenset[str] | None = None
    for g in gs:
        out = g.values if out is None else out & g.values
    return out


def _event_problem(name: str, F: H.Facts) -> tuple[str, str] | None:  # noqa: N803
    if name in F.events:
        return None
    if name in H.ALL_EVENTS:
        return ("event-not-in-harness", f"event `{name}` is never sent by the {F.label} harness (it sends "
                f"{', '.join(sorted(F.events))})")
    return ("unknown-event", f"unknown event `{name}`{hint(name, H.ALL_EVENTS)}; {F.label} sends "
            f"{', '.join(sorted(F.events))}")


def _tool_problem(name: str, raw_id: bool, F: H.Facts) -> tuple[str, str, Severity | None] | None:  # noqa: N803
    """(rule, message, severity) for a tool name used in routing/guards (`raw_id`: compared
    with `input.tool`, which carries the agent's own tool ids)."""
    ids = set(F.tool_names.values())
    current = F.current_tools
    if raw_id:
        if name in ids:
            return None
        if name in F.tool_names:
            return ("unknown-tool", f"input.tool carries {F.label}'s tool id `{F.tool_names[name]}`, not `{name}`",
                    None)
        s = did_you_mean(name, ids)
        return ("unknown-tool", f"unknown {F.label} tool id `{name}` (did you mean `{s}`?)", None) if s else None
    if name == "*" or name in current:
        return None
    if name in F.legacy:
        return ("legacy-tool", f"{F.label} has no `{name}` tool; this never matches current events", None)
    if name in ids and F.tool_names.get(name) is None:
        mapped = {tool: n for n, tool in F.tool_names.items()}[name]
        return ("unknown-tool", f"`{name}` is {F.label}'s tool id; policies see tool_name `{mapped}`", None)
    s = did_you_mean(name, current)
    if s:
        return ("unknown-tool", f"unknown tool `{name}` (did you mean `{s}`?)", None)
    if "_" in name:  # MCP tools (`<server>_<tool>`, `mcp__<server>__<tool>`) and custom tools keep their names
        return None
    return ("unknown-tool", f"`{name}` is not a {F.label} built-in tool ({', '.join(sorted(current))}); fine if it "
            "is a custom tool", "info")


def _has_current(tools: Iterable[str], F: H.Facts) -> bool:  # noqa: N803
    """A list that also names a current tool keeps legacy names for older agent versions:
    harmless, so legacy-tool is reported only for lists that can never match today."""
    return any(t in F.current_tools for t in tools)


def names(mi: ModuleInfo, _: Project) -> Iterator[Finding]:
    if mi.is_test or mi.is_system:
        return
    F = H.facts_for(mi.file, mi.package)  # noqa: N806
    shared = H.folder_harness(mi.file) is None and mi.package.startswith(
        ("cupcake.policies.builtins.", "cupcake.global.policies.builtins."))  # serves every harness
    for e in mi.events:
        p = None if shared and any(e in H.facts(h).events for h in ("opencode", "claude")) else _event_problem(e, F)
        if p:
            yield _f(p[0], mi.routing_location(e), mi, p[1])
    compat = _has_current(mi.tools, F)
    for t in mi.tools:
        tp = _tool_problem(t, False, F)
        if tp and not (compat and tp[0] == "legacy-tool"):
            yield _f(tp[0], mi.routing_location(t), mi, tp[1], tp[2])
    for rule in mi.module.rules:
        for r in astq.rule_chain(rule):
            for g in astq.guards(r, GUARD_FIELDS):
                for v in sorted(g.values):
                    if g.field == "hook_event_name":
                        p = None if shared and any(v in H.facts(h).events for h in ("opencode", "claude")) \
                            else _event_problem(v, F)
                        if p:
                            yield _f(p[0], g.location, mi, p[1])
                    else:
                        tp = _tool_problem(v, g.field == "tool", F)
                        if tp and not (g.field == "tool_name" and _has_current(g.values, F) and tp[0] == "legacy-tool"):
                            yield _f(tp[0], g.location, mi, tp[1], tp[2])


def guards_vs_routing(mi: ModuleInfo, _: Project) -> Iterator[Finding]:
    if not mi.is_policy or not mi.routing_blocks:
        return
    routed_tools = None if mi.tools_wildcard else frozenset(mi.tools)
    routed_events = frozenset(mi.events)
    tool_cover: set[str] = set()
    event_cover: set[str] = set()
    all_tool_guarded = all_event_guarded = True
    F = H.facts_for(mi.file, mi.package)  # noqa: N806
    for r in mi.verb_rules():
        tg, eg = _tool_guard(r, F), _event_guard(r)
        tools, events = _allowed(tg), _allowed(eg)
        for gs, allowed, what in ((tg, tools, "input.tool_name"), (eg, events, "input.hook_event_name")):
            if allowed is not None and not allowed and len(gs) > 1:
                yield _f("contradictory-guards", gs[-1].location, mi,
                         f"`{r.head.name}` can never fire: {what} cannot be "
                         + " and ".join("/".join(sorted(g.values)) for g in gs) + " at once")
        if tools is None:
            all_tool_guarded = False
        else:
            tool_cover |= tools
            if tools and routed_tools is not None and not tools & routed_tools:
                yield _f("guard-tool-not-routed", tg[0].location, mi,
                         f"`{r.head.name}` requires tool {'/'.join(sorted(tools))} but the policy is routed only to "
                         f"{', '.join(sorted(routed_tools))}: it can never fire (add it to required_tools)")
        if events is None:
            all_event_guarded = False
        else:
            event_cover |= events
            if events and routed_events and not events & routed_events:
                yield _f("guard-event-not-routed", eg[0].location, mi,
                         f"`{r.head.name}` requires event {'/'.join(sorted(events))} but required_events is "
                         f"{', '.join(sorted(routed_events))}: it can never fire")
    if not mi.verb_names:
        return
    if routed_tools is not None and all_tool_guarded:
        for t in mi.tools:
            if t not in tool_cover:
                yield _f("routing-unused", mi.routing_location(t), mi,
                         f"the policy is routed to {t} but every decision rule requires another tool; drop {t} from "
                         "required_tools")
    if all_event_guarded:
        for e in mi.events:
            if e not in event_cover:
                yield _f("routing-unused", mi.routing_location(e), mi,
                         f"the policy is routed to {e} but every decision rule requires another event; drop {e} "
                         "from required_events")


# The native signals by name (docs/writing-policies.md "Signals"), for did-you-mean hints.
NATIVE_SIGNALS = ("git.is_repo", "git.branch", "git.is_dirty", "git.staged_files", "git.unstaged_files",
                  "git.untracked_files", "git.ahead_behind", "git.last_commit", "file.exists", "file.size",
                  "file.sha256", "file.line_count", "file.head", "history")


def signals(mi: ModuleInfo, proj: Project) -> Iterator[Finding]:
    if not mi.is_policy:
        return
    if proj.signals is not None:
        from cupcake_py.engine import native_signals

        for s in mi.signals:
            if s not in proj.signals and not native_signals.provides(s):
                yield _f("signal-undeclared", mi.routing_location(s), mi,
                         f"required signal `{s}` is not declared in rulebook.yml (signals:), not a file in "
                         f".cupcake/signals/ and not a native signal{hint(s, [*proj.signals, *NATIVE_SIGNALS])}")
    if not mi.routing_blocks:
        return
    seen: set[str] = set()
    for path, term in astq.input_refs(mi.module):
        if path and path[0] == "history" and "history" not in mi.signals and "history" not in seen:
            seen.add("history")
            yield _f("signal-not-required", term.location, mi,
                     "input.history is read but `history` is not in required_signals, so it is never gathered")
            continue
        if len(path) >= 2 and path[0] == "signals" and isinstance(path[1], str):
            name = path[1]
            dotted = f"{name}.{path[2]}" if len(path) >= 3 and isinstance(path[2], str) else ""
            if dotted and dotted in (*mi.signals, *NATIVE_SIGNALS) and dotted not in seen:
                seen.add(dotted)  # Rego reads input.signals.git.branch as signals["git"]["branch"]
                yield _f("signal-not-required", term.location, mi,
                         f"input.signals.{dotted} reads input.signals[\"{name}\"][\"{path[2]}\"], which is never "
                         f"set: the signal is input.signals[\"{dotted}\"]")
                continue
            if name in seen or name.startswith("__builtin_") or name in mi.signals:
                continue
            seen.add(name)
            yield _f("signal-not-required", term.location, mi,
                     f"input.signals.{name} is read but `{name}` is not in required_signals, so it is never "
                     f"gathered{hint(name, mi.signals)}")


def _rule_tools(mi: ModuleInfo, rule: A.Rule, F: H.Facts) -> frozenset[str] | None:  # noqa: N803
    """The tools a rule can see: its own tool guard if any, else the routed tools (None = any)."""
    own = _allowed(_tool_guard(rule, F)) if rule.head.name in H.VERBS else None
    if own:
        return own
    return None if mi.tools_wildcard else frozenset(mi.tools)


def input_fields(mi: ModuleInfo, _: Project) -> Iterator[Finding]:
    if not mi.is_policy:
        return
    F = H.facts_for(mi.file, mi.package)  # noqa: N806
    args = F.tool_args
    every_arg = frozenset().union(*args.values())
    known_top = F.input_fields
    for rule in mi.module.rules:
        for r in astq.rule_chain(rule):
            tools = _rule_tools(mi, r, F)
            for path, term in astq.input_refs(r):
                if not path or not isinstance(path[0], str):
                    continue
                top = path[0]
                if top not in known_top:
                    yield _f("unknown-input-field", term.location, mi,
                             f"input.{top} is not in any {F.label} event{hint(top, known_top)}")
                    continue
                if top not in ("tool_input", "args") or len(path) < 2 or not isinstance(path[1], str):
                    continue
                field = path[1]
                if tools is not None and all(t in args for t in tools):
                    have = frozenset().union(*(args[t] for t in tools))
                    if field not in have:
                        yield _f("tool-input-field", term.location, mi,
                                 f"{'/'.join(sorted(tools))} has no `{field}` argument ({F.label} sends: "
                                 f"{', '.join(sorted(have))}){hint(field, have)}")
                elif tools is None and field not in every_arg:
                    s = did_you_mean(field, every_arg)
                    if s:
                        yield _f("tool-input-field", term.location, mi,
                                 f"no {F.label} tool has a `{field}` argument (did you mean `{s}`?)", "warning")


# Arguments that name a file as the agent wrote it (relative, absolute, `./`, `..`: any spelling).
RAW_PATH_FIELDS = frozenset({"filePath", "file_path", "path", "notebook_path", "filepath"})
# prefix tests: function -> index of the argument holding the tested text
PREFIX_TESTS = {"startswith": 0, "strings.any_prefix_match": 0, "glob.match": 2}


def _raw_path(t: A.Term) -> str | None:
    p = astq.ref_path(t, "input")
    if p is None:
        return None
    if p == ["original_file_path"]:
        return "input.original_file_path"
    if len(p) == 2 and p[0] in ("tool_input", "args") and p[1] in RAW_PATH_FIELDS:
        return f"input.{p[0]}.{p[1]}"
    return None


def _call_args(x: A.Term | A.Expr) -> tuple[str, list[A.Term], Location] | None:
    if isinstance(x, A.Expr):
        if isinstance(x.terms, list) and x.operator is not None:
            loc = x.terms[0].location
            return x.operator, list(x.terms[1:]), loc if loc.row else x.location
        return None
    if isinstance(x.value, A.Call) and x.value.name is not None:
        return x.value.name, list(x.value.args), x.location
    return None


def raw_path_prefix(mi: ModuleInfo, _: Project) -> Iterator[Finding]:
    """A prefix test (startswith, glob.match, a `^` regex) of a raw path argument: `/proj/migrations/x`,
    `./migrations/x` and `src/../migrations/x` get past `startswith(..., "migrations/")`."""
    if mi.is_test:
        return
    for x in astq.walk(mi.module):
        call = _call_args(x)
        if call is None:
            continue
        name, args, loc = call
        idx = PREFIX_TESTS.get(name)
        if idx is None and name == "regex.match" and len(args) == 2 and isinstance(args[0].value, A.String) \
                and args[0].value.value.startswith("^"):
            idx = 1
        if idx is None or idx >= len(args):
            continue
        field = _raw_path(args[idx])
        if field is not None:
            yield _f("raw-path-prefix", loc, mi,
                     f"{name}() tests the raw path argument {field}: an absolute path, `./x` or `a/../x` gets past "
                     f"it; test input.project_file_path (the target relative to the project, resolved) instead")


CHECKS: tuple[Check, ...] = (names, guards_vs_routing, signals, input_fields, raw_path_prefix)
