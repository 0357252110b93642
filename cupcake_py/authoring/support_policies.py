"""The shipped system policies (aggregator, command helpers) a set of authored modules is
compiled with when it does not bring its own, exactly as the engine adds them to a bundle.

In: the packages the author's modules define. Out: the parsed system policies whose package is
not among them. Used by `cupcake validate` (compile check) and `cupcake test` (the program the
tests run against), without loading either one's other modules (the lint rules). A shipped
policy that does not parse raises RegoErrors (a broken installation: the command fails).

`may_reach_support(packages, texts)`: whether modules with these packages and source texts
can observe the shipped policies at all: a package under `cupcake` (it could conflict with them
or be read by them), or a `data` that is not followed by `.name` with a name other than
`cupcake` (`data.cupcake…`, `data[x]`, `data` alone: a dynamic or whole-document read), found
in the raw text (comments and strings included), so it errs only towards "yes". When it says
no, the shipped policies cannot change a result or an error, and a test run leaves them out
(their parse and compile were most of a small library's first run: docs/testing.md).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from cupcake_py.rego import parse_module, read_source

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cupcake_py.rego import ast as A


# `data` as a root (not `.data`, `metadata`, `data_x`) that is not followed by `.` and a name
# other than `cupcake`
_ROOT_DATA_READ = re.compile(r"(?<![\w.$])data\b(?!\s*\.\s*(?!cupcake\b)[A-Za-z_])")


def may_reach_support(packages: Iterable[str], texts: Iterable[str]) -> bool:
    """False only when no module can see the shipped policies (see the module docstring)."""
    if any(p == "cupcake" or p.startswith("cupcake.") for p in packages):
        return True
    return any(_ROOT_DATA_READ.search(t) for t in texts)


def support_modules(packages: set[str]) -> list[A.Module]:
    """The shipped system policies not overridden by one of `packages`."""
    from cupcake_py.engine.project import rego_files, shipped_policies_dir

    out: list[A.Module] = []
    for f in rego_files(shipped_policies_dir() / "system"):
        m = parse_module(read_source(f), str(f))
        if m.package.dotted() not in packages:
            out.append(m)
    return out
