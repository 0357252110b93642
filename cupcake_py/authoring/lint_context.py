"""What every lint rule looks at: one parsed module with its routing (`ModuleInfo`) and the
set of modules linted together with the signals their project declares (`Project`)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from cupcake_py.authoring import astq
from cupcake_py.authoring.findings import Finding
from cupcake_py.authoring.harness_facts import VERBS
from cupcake_py.core.errors import Location
from cupcake_py.rego import ast as A

ROUTING_KEYS = ("required_events", "required_tools", "required_signals")
SYSTEM_ROOTS = ("cupcake.system", "cupcake.global.system")
POLICY_ROOTS = ("cupcake.policies", "cupcake.global.policies")


def _under(package: str, roots: tuple[str, ...]) -> bool:
    return any(package == r or package.startswith(r + ".") for r in roots)


@dataclass
class ModuleInfo:
    module: A.Module
    file: str
    text: str
    package: str = ""
    routing_blocks: list[tuple[A.Annotations, Any]] = field(default_factory=list)
    events: list[str] = field(default_factory=list)
    tools: list[str] = field(default_factory=list)
    signals: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.package = self.module.package.dotted()
        for ann in self.module.annotations:
            if "routing" in ann.custom:
                self.routing_blocks.append((ann, ann.custom["routing"]))
                block = ann.custom["routing"]
                if isinstance(block, dict):
                    for key, out in zip(ROUTING_KEYS, (self.events, self.tools, self.signals), strict=True):
                        vals = block.get(key)
                        if isinstance(vals, list):
                            out.extend(v for v in vals if isinstance(v, str) and v and v not in out)

    @property
    def is_test(self) -> bool:
        return self.file.endswith("_test.rego") or self.package.endswith("_test")

    @property
    def is_system(self) -> bool:
        return _under(self.package, SYSTEM_ROOTS)

    @property
    def is_policy(self) -> bool:
        """A non-test package that makes decisions (or sits under cupcake.policies)."""
        return not self.is_test and not self.is_system and (bool(self.verb_names) or _under(self.package, POLICY_ROOTS))

    @property
    def verb_names(self) -> list[str]:
        seen: list[str] = []
        for r in self.module.rules:
            if r.head.name in VERBS and r.head.name not in seen:
                seen.append(r.head.name)
        return seen

    def verb_rules(self) -> Iterator[A.Rule]:
        for r in self.module.rules:
            if r.head.name in VERBS:
                yield from astq.rule_chain(r)

    @property
    def tools_wildcard(self) -> bool:
        return not self.tools or "*" in self.tools

    @property
    def rule_names(self) -> set[str]:
        return {r.head.name for r in self.module.rules}

    def meta_location(self, ann: A.Annotations, needle: str) -> Location | None:
        """Where `needle` appears inside the METADATA block of `ann`."""
        row = ann.location.row
        for c in self.module.comments:
            if c.location.row < row:
                continue
            if c.location.row != row:
                break
            idx = c.text.find(needle)
            if idx >= 0:
                return Location(self.file, c.location.row, c.location.col + 1 + idx)
            row += 1
        return None

    def routing_location(self, needle: str) -> Location:
        """`needle` in the routing blocks, else the first block, else the package."""
        for ann, _ in self.routing_blocks:
            loc = self.meta_location(ann, needle)
            if loc is not None:
                return loc
        if self.routing_blocks:
            return self.routing_blocks[0][0].location
        return self.module.package.location


@dataclass
class Project:
    """Modules linted together. `signals` is None when no rulebook/.cupcake was found."""

    modules: list[ModuleInfo]
    signals: set[str] | None = None
    rule_ids: dict[str, list[tuple[str, Location]]] = field(default_factory=dict)
    references: set[str] = field(default_factory=set)


Check = Callable[[ModuleInfo, Project], Iterator[Finding]]


def at(loc: Location, file: str) -> tuple[str, int, int]:
    return (loc.file or file, loc.row, loc.col)
