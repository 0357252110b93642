"""Cupcake's validator rules, done on the AST: metadata placement, package naming, routing
shape, decision object shape, verb/event compatibility, multi-value rule grouping."""

from __future__ import annotations

from collections.abc import Iterator

from cupcake_py.authoring import astq
from cupcake_py.authoring import harness_facts as H
from cupcake_py.authoring.findings import Finding, Severity, finding, hint
from cupcake_py.authoring.lint_context import POLICY_ROOTS, ROUTING_KEYS, Check, ModuleInfo, Project, _under
from cupcake_py.core.errors import Location
from cupcake_py.rego import ast as A


def _f(rule: str, loc: Location, mi: ModuleInfo, message: str, severity: Severity | None = None) -> Finding:
    return finding(rule, loc.file or mi.file, loc.row, loc.col, message, severity)


def metadata_placement(mi: ModuleInfo, _: Project) -> Iterator[Finding]:
    for rule in mi.module.rules:
        for ann in rule.annotations:
            if "routing" in ann.custom:
                yield _f("metadata-placement", ann.location, mi,
                         f"custom.routing is attached to rule `{rule.head.name}`; routing applies to the whole "
                         "package, so put it in the package's METADATA block before `package`")


def package_naming(mi: ModuleInfo, _: Project) -> Iterator[Finding]:
    if mi.is_test or mi.is_system:
        return
    loc = mi.module.package.location
    if mi.verb_names and not _under(mi.package, POLICY_ROOTS):
        yield _f("package-naming", loc, mi,
                 f"package {mi.package} defines {', '.join(mi.verb_names)} but is not under cupcake.policies, so "
                 "its decisions are never collected (use `package cupcake.policies.<name>`)")
    parts = mi.file.replace("\\", "/").split("/")
    if len(parts) >= 2 and parts[-2] == "builtins":
        stem = parts[-1].removesuffix(".rego")
        want = (f"cupcake.policies.builtins.{stem}", f"cupcake.global.policies.builtins.{stem}")
        if mi.package not in want:
            yield _f("package-naming", loc, mi,
                     f"a builtin file builtins/{stem}.rego must declare `package {want[0]}` (the engine enables "
                     f"builtins by package name); found {mi.package}")


def harness_folder(mi: ModuleInfo, _: Project) -> Iterator[Finding]:
    """A package naming another harness than the policies/<harness>/ folder the file is in: the
    engine evaluates it for the folder's harness (harness_facts.harness_of is the one rule)."""
    folder, named = H.folder_harness(mi.file), H.package_harness(mi.package)
    if folder is not None and named is not None and folder != named:
        rest = mi.package.split(f".{named}.", 1)[-1]
        yield _f("harness-folder-mismatch", mi.module.package.location, mi,
                 f"package {mi.package} names {named}, but the file is in policies/{folder}/: the engine evaluates "
                 f"it for {folder} (the folder decides) and lints it so; move it to policies/{named}/ or declare "
                 f"`package cupcake.policies.{folder}.{rest}`")


def routing_missing(mi: ModuleInfo, _: Project) -> Iterator[Finding]:
    if mi.is_policy and mi.verb_names and not mi.routing_blocks:
        yield _f("routing-missing", mi.module.package.location, mi,
                 f"policy {mi.package} defines {', '.join(mi.verb_names)} but has no METADATA block with "
                 "custom.routing; add one before `package` with required_events (e.g. [PreToolUse])")


def routing_shape(mi: ModuleInfo, _: Project) -> Iterator[Finding]:
    if mi.is_test or mi.is_system:
        return
    for ann, block in mi.routing_blocks:
        loc = mi.meta_location(ann, "routing") or ann.location
        if not isinstance(block, dict):
            yield _f("routing-malformed", loc, mi, "custom.routing must be a mapping with required_events, "
                     "required_tools and required_signals lists")
            continue
        for key in block:
            if key not in ROUTING_KEYS:
                kloc = mi.meta_location(ann, str(key)) or loc
                yield _f("routing-unknown-key", kloc, mi,
                         f"unknown custom.routing key `{key}`{hint(str(key), ROUTING_KEYS)}; the engine reads only "
                         f"{', '.join(ROUTING_KEYS)}")
        for key in ROUTING_KEYS:
            if key not in block or block[key] is None:
                continue
            v = block[key]
            if not isinstance(v, list) or not all(isinstance(x, str) and x for x in v):
                yield _f("routing-malformed", mi.meta_location(ann, key) or loc, mi,
                         f"custom.routing.{key} must be a list of non-empty strings, e.g. {key}: [\"...\"]")
        events = block.get("required_events")
        if mi.verb_names and not events:
            what = "required_tools but no required_events" if block.get("required_tools") else "no required_events"
            yield _f("routing-malformed", loc, mi,
                     f"custom.routing has {what}: the policy is never routed; list the events it answers, "
                     "e.g. required_events: [PreToolUse]")


def routing_on_system(mi: ModuleInfo, _: Project) -> Iterator[Finding]:
    if not mi.is_system:
        return
    for ann, block in mi.routing_blocks:
        if isinstance(block, dict) and any(block.get(k) for k in ROUTING_KEYS):
            yield _f("routing-on-system", mi.meta_location(ann, "routing") or ann.location, mi,
                     f"system package {mi.package} is never routed; its routing lists must be empty")


def _decision_object(rule: A.Rule) -> A.Term | None:
    key = rule.head.key
    if key is None:
        return None
    if isinstance(key.value, A.Var):
        return astq.assigned_object(rule, key.value.name)
    return key


_NON_OBJECT = (A.String, A.Number, A.Boolean, A.Null, A.Array, A.Set, A.ArrayComprehension, A.SetComprehension)
_NON_STRING = (A.Number, A.Boolean, A.Null, A.Array, A.Set, A.Object, A.ArrayComprehension, A.SetComprehension,
               A.ObjectComprehension)


def decisions(mi: ModuleInfo, _: Project) -> Iterator[Finding]:
    if not mi.is_policy:
        return
    for rule in mi.verb_rules():
        verb = rule.head.name
        term = _decision_object(rule)
        if term is None:
            continue
        loc = term.location if term.location.row else rule.head.location
        if verb == "add_context":
            if isinstance(term.value, _NON_STRING):
                yield _f("decision-shape", loc, mi, "add_context elements must be strings (the context text)")
            continue
        if verb == "sandbox":  # {read_only?, hidden?}: checked by the engine (engine/synthesis.py)
            if isinstance(term.value, _NON_OBJECT):
                yield _f("decision-shape", loc, mi, "sandbox elements must be objects like "
                         "{\"read_only\": [...], \"hidden\": [...]} (`cupcake docs sandbox`)")
            continue
        if isinstance(term.value, _NON_OBJECT):
            yield _f("decision-shape", loc, mi,
                     f"{verb} elements must be objects like {{\"rule_id\": ..., \"reason\": ..., \"severity\": ...}}")
            continue
        fields = astq.object_fields(term)
        if fields is None:
            continue
        required = H.MODIFY_REQUIRED if verb == "modify" else H.DECISION_REQUIRED
        missing = [k for k in required if k not in fields]
        if missing:
            yield _f("decision-missing-field", loc, mi,
                     f"{verb} decision lacks {', '.join(f'`{m}`' for m in missing)} (required: {', '.join(required)})")
        known = H.MODIFY_FIELDS if verb == "modify" else H.DECISION_FIELDS
        for k, v in fields.items():
            if k not in known:
                yield _f("decision-unknown-field", v.location if v.location.row else loc, mi,
                         f"`{k}` is not a {verb} decision field{hint(k, known)}; the engine ignores it")
        sev = fields.get("severity")
        if sev is not None and isinstance(sev.value, _NON_STRING + (A.String,)):
            text = sev.value.value if isinstance(sev.value, A.String) else None
            if text not in H.SEVERITIES:
                yield _f("decision-severity", sev.location, mi,
                         f"severity {text!r} is not one of {', '.join(H.SEVERITIES)}"
                         + hint(text or "", H.SEVERITIES))
        prio = fields.get("priority")
        if verb == "modify" and prio is not None and isinstance(prio.value, _NON_STRING + (A.String,)):
            ok = isinstance(prio.value, A.Number) and isinstance(prio.value.value, int) and 0 <= prio.value.value <= 255
            if not ok:
                yield _f("priority-range", prio.location, mi, "modify priority must be an integer from 0 to 255 "
                         "(higher wins a conflicting updated_input)")


def verb_events(mi: ModuleInfo, _: Project) -> Iterator[Finding]:
    if not mi.is_policy:
        return
    first: dict[str, A.Rule] = {}
    for r in mi.module.rules:
        first.setdefault(r.head.name, r)
    for verb in mi.verb_names:
        loc = first[verb].head.location
        for event in mi.events:
            allowed = H.VERB_MATRIX.get(event)
            if allowed is None:
                continue
            if verb not in allowed:
                yield _f("verb-event-compat", loc, mi,
                         f"`{verb}` has no effect on {event} (allowed there: {', '.join(sorted(allowed)) or 'none'})")
            elif verb == "block" and event == "PreToolUse":
                yield _f("prefer-deny", loc, mi, "use `deny` instead of `block` to refuse a tool call before it runs "
                         "(`block` is meant for events after the fact)")


def verb_kind(mi: ModuleInfo, _: Project) -> Iterator[Finding]:
    if mi.is_test or mi.is_system:
        return
    for r in mi.module.rules:
        if r.head.name in H.VERBS and (r.head.kind != "multi_value" or r.default or len(r.head.ref.terms) > 1):
            yield _f("verb-not-partial-set", r.head.location, mi,
                     f"`{r.head.name}` must be a multi-value rule: `{r.head.name} contains decision if {{ ... }}`; "
                     "the aggregator only collects sets")


def grouping(mi: ModuleInfo, _: Project) -> Iterator[Finding]:
    """Decision verbs interleaved with each other (deny, halt, deny). Helpers between two
    definitions are fine: files are often sectioned by tool with helpers next to their use."""
    last: dict[str, int] = {}
    reported: set[str] = set()
    verbs = [(i, r) for i, r in enumerate(mi.module.rules) if r.head.name in H.VERBS]
    for pos, (_i, r) in enumerate(verbs):
        name = r.head.name
        if name in last and last[name] != pos - 1 and name not in reported:
            reported.add(name)
            between = sorted({v.head.name for _, v in verbs[last[name] + 1:pos]})
            prev = verbs[last[name]][1]
            yield _f("incremental-rules-grouped", r.head.location, mi,
                     f"definitions of `{name}` are split by {', '.join(f'`{b}`' for b in between)}: this one follows "
                     f"them after the one at line {prev.head.location.row}; keep each verb's definitions together")
        last[name] = pos


CHECKS: tuple[Check, ...] = (metadata_placement, package_naming, harness_folder, routing_missing, routing_shape, routing_on_system,
                             decisions, verb_events, verb_kind, grouping)
