"""A generated aggregator that evaluates only the routed policies (`cupcake/system/routed/evaluate`).

In: the parsed modules of a bundle (when the configuration keeps the shipped aggregator) and the
bundle's policy packages. Out: the Rego source of `package cupcake.system.routed`, whose
`evaluate` has the shape of `cupcake/system/evaluate` (policies/system/evaluate.rego), with one
guarded comprehension per (package, decision verb):

    route := input.cupcake_routed   (once per rule)
    [{"policy": "<pkg>", "decision": d} | route[<k>]; some d in data.<pkg>.<verb>]

(past CHUNK packages, the comprehensions of a verb go into rules `<key>_0`, `<key>_1`, … of CHUNK
each, which `<key>` joins in order: no WASM function grows with the number of policies), where k
is the package's position in `package_order` (the bundle's packages, sorted) and
`input.cupcake_routed` is the engine's array of booleans (`routed_input`): true at the positions
of the routed packages. (An array, not an object keyed by package names: with hundreds of
routed packages the names made the input tens of kilobytes to encode and to parse per event.)

The shipped aggregator walks every package, so each evaluation ran every policy of the bundle;
here a package that is not routed costs one array lookup and its rules are never evaluated, so
the cost of an evaluation follows the routed policies only. Elements come in the order of the
walk (package path, then the verb's set order), so both aggregators give the same decision set
for the same routed packages. The engine fills `input.cupcake_routed` (it overrides anything the
event carried) and still keeps only the routed packages' decisions; packages with decision rules
that are not bundle policies can never be routed and are left out. Such a bundle's module has
only this entrypoint; a configuration with its own system/evaluate.rego keeps that aggregator
(no module generated, entrypoint `cupcake/system/evaluate`).
"""

from __future__ import annotations

from cupcake_py.core import jsonio
from cupcake_py.engine.routing import POLICY_ROOTS, VERB_RULES

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping
    from typing import Any

ROUTED_ENTRYPOINT = "cupcake/system/routed/evaluate"
ROUTED_INPUT = "cupcake_routed"  # input key: [bool] by package_order position (routed_input)
PACKAGE = "cupcake.system.routed"
FILE = "<generated: cupcake.system.routed>"
# comprehensions per generated rule: one rule over every package made one WASM function of ~180 bytes
# and ~9 locals per package (10,000 packages: past wasmtime's 50,000 locals per function, and
# cranelift's time and memory grow faster than linearly with a function's size)
CHUNK = 64
# aggregator result key per verb (policies/system/evaluate.rego)
RESULT_KEYS = (("halts", "halt"), ("denials", "deny"), ("blocks", "block"), ("asks", "ask"),
               ("modifications", "modify"), ("add_context", "add_context"), ("sandbox", "sandbox"))


def entrypoint(available: dict[str, int]) -> str:
    """The aggregator entrypoint a bundle's module offers: the generated one, else the configuration's
    own `cupcake/system/evaluate`."""
    return ROUTED_ENTRYPOINT if ROUTED_ENTRYPOINT in available else "cupcake/system/evaluate"


def decision_rules(modules: list[Any]) -> dict[tuple[str, ...], set[str]]:
    """Package path (segments) → verbs it defines, for the packages under the policy roots."""
    out: dict[tuple[str, ...], set[str]] = {}
    for m in modules:
        if not m.package.dotted().startswith(POLICY_ROOTS):
            continue
        path = tuple(str(t.value.value) for t in m.package.path.terms[1:])
        verbs = {r.head.name for r in m.rules} & VERB_RULES
        if verbs:
            out.setdefault(path, set()).update(verbs)
    return out


def _ref(path: tuple[str, ...], verb: str) -> str:
    return "data" + "".join(f"[{jsonio.dumps(seg).decode()}]" for seg in (*path, verb))


def package_order(packages: Iterable[str]) -> list[str]:
    """The bundle's policy packages (dotted names) in the order `cupcake_routed` indexes them."""
    return sorted(packages)


def routed_input(positions: Mapping[str, int], routed: Iterable[str]) -> list[bool]:
    """`input.cupcake_routed`: true at the positions of the routed packages (`positions`: package →
    its index in `package_order`, computed once per bundle: `Bundle.index.positions`). A routed
    name that is not a bundle package fails loudly (KeyError): that would be an engine bug."""
    flags = [False] * len(positions)
    for name in routed:
        flags[positions[name]] = True
    return flags


def _collect(name: str, parts: list[str]) -> list[str]:
    """The rule `name := [x | route := input.cupcake_routed; some part in [<parts>]; some x in part]`."""
    return ["", f"{name} := [x |", f"\troute := input.{ROUTED_INPUT}", "\tsome part in [", *parts,
            "\t]", "\tsome x in part", "]"]


def _verb_rules(key: str, parts: list[str]) -> list[str]:
    """`key` over `parts` (one comprehension each): one rule, or, past CHUNK parts, one rule per
    CHUNK parts (`<key>_<j>`, in order) and `key` joining them in that order."""
    if len(parts) <= CHUNK:
        return _collect(key, parts)
    names = [f"{key}_{j}" for j in range(0, (len(parts) + CHUNK - 1) // CHUNK)]
    lines = ["", f"{key} := [x |", "\tsome part in [", *(f"\t\t{n}," for n in names), "\t]", "\tsome x in part", "]"]
    for j, name in enumerate(names):
        lines += _collect(name, parts[j * CHUNK:(j + 1) * CHUNK])
    return lines


def source(modules: list[Any], packages: Iterable[str]) -> str:
    rules = decision_rules(modules)
    position = {name: k for k, name in enumerate(package_order(packages))}
    lines = [f"package {PACKAGE}", "", "import rego.v1", "", "evaluate := {"]
    lines += [f'\t"{key}": {key},' for key, _ in RESULT_KEYS]
    lines.append("}")
    for key, verb in RESULT_KEYS:
        parts: list[str] = []
        # the walk's order: data.a.b.deny before data.a.deny ("b" < "deny")
        for path in sorted((path for path, verbs in rules.items() if verb in verbs), key=lambda p: [*p, verb]):
            k = position.get(".".join(path))
            if k is None:
                continue  # not a bundle policy: never routed
            name = jsonio.dumps(".".join(path)).decode()
            parts.append(f'\t\t[{{"policy": {name}, "decision": d}} | route[{k}]; '
                         f"some d in {_ref(path, verb)}],")
        lines += _verb_rules(key, parts)
    return "\n".join(lines) + "\n"
