"""Node types of the compiled AST (added to `cupcake_py.rego.ast` by the passes) and the
compilation result.

After compilation every body is a list of `ast.Expr` whose `terms` is one of:
  * `[op, arg...]`  a call; `eq` is unification, every arg is flat (no nested calls);
  * `Term`          a flat term tested for truthiness (refs iterate);
  * `NotBody`       negation of a (flattened, safety-ordered) body (declared in rego/ast.py);
  * `Every`         with a compiled body and flat domain.
`with_` modifiers stay on the expression; `negated` is always False.
"""

from __future__ import annotations

from cupcake_py.core.slotted import dataclass, field
from cupcake_py.rego import ast as A


@dataclass(slots=True)
class CRule:
    """One rule definition (one body; `else_` chains continue it) in compiled form.

    path: the data path of the rule's group node (package + static head prefix).
    rel: head ref terms below `path` (for object/general ref heads, else []).
    kind: "complete" | "function" | "set" | "object".
    """

    path: tuple[str, ...]
    rel: list[A.Term]
    kind: str
    rule: A.Rule
    module: A.Module
    args: list[A.Term] | None = None
    key: A.Term | None = None
    value: A.Term | None = None
    body: list[A.Expr] = field(default_factory=list)
    else_: CRule | None = None
    default: bool = False
    leaf: str = "value"  # object kind: "value" (insert value at rel) or "set" (add value to the set at rel)

    @property
    def location(self) -> A.Location:
        return self.rule.location

    @property
    def name(self) -> str:
        return "data." + ".".join(self.path)

    def key_term(self) -> A.Term:
        """The key of a set or object rule (the compiler always gives those one)."""
        if self.key is None:
            raise TypeError(f"{self.name}: a {self.kind} rule without a key term")
        return self.key

    def value_term(self) -> A.Term:
        """The value of a complete, function or object rule (the compiler always gives those one)."""
        if self.value is None:
            raise TypeError(f"{self.name}: a {self.kind} rule without a value term")
        return self.value


@dataclass(slots=True)
class Group:
    """All rules planned as one IR function at one data path."""

    path: tuple[str, ...]
    kind: str  # complete | function | set | object
    rules: list[CRule] = field(default_factory=list)

    @property
    def name(self) -> str:
        return "data." + ".".join(self.path)

    @property
    def arity(self) -> int:
        for r in self.rules:
            if r.args is not None:
                return len(r.args)
        return 0


@dataclass(slots=True)
class Node:
    """Rule tree node: `group` when rules live exactly here, children below."""

    path: tuple[str, ...]
    group: Group | None = None
    children: dict[str, Node] = field(default_factory=dict)
    package: bool = False  # a package is declared here (its document exists, maybe empty)

    def child(self, key: str) -> Node:
        n = self.children.get(key)
        if n is None:
            n = self.children[key] = Node((*self.path, key))
        return n

    def groups(self) -> list[Group]:
        out = [self.group] if self.group else []
        for c in self.children.values():
            out.extend(c.groups())
        return out

    def find(self, path: tuple[str, ...]) -> Node | None:
        n: Node | None = self
        for p in path:
            if n is None:
                return None
            n = n.children.get(p)
        return n


@dataclass(slots=True)
class Compiled:
    modules: list[A.Module]
    groups: dict[tuple[str, ...], Group]
    tree: Node
    names: object  # walk.Names shared with query compilation
    entrypoints: list[tuple[str, ...]] = field(default_factory=list)
