"""The shipped system policies (aggregator, command helpers) a set of authored modules is
compiled with when it does not bring its own, exactly as the engine adds them to a bundle.

In: the packages the author's modules define. Out: the parsed system policies whose package is
not among them. Used by `cupcake validate` (compile check) and `cupcake test` (the program the
tests run against), without loading either one's other modules (the lint rules). A shipped
policy that does not parse raises RegoErrors (a broken installation: the command fails).
"""

from __future__ import annotations

from cupcake_py.rego import parse_module, read_source

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cupcake_py.rego import ast as A


def support_modules(packages: set[str]) -> list[A.Module]:
    """The shipped system policies not overridden by one of `packages`."""
    from cupcake_py.engine.project import rego_files, shipped_policies_dir

    out: list[A.Module] = []
    for f in rego_files(shipped_policies_dir() / "system"):
        m = parse_module(read_source(f), str(f))
        if m.package.dotted() not in packages:
            out.append(m)
    return out
