"""What a compiled module is, for people and tools (`cupcake inspect`, `PolicyModule.summary`):
ABI version, entrypoints, host builtins, imports and exports. Not on the eval path."""

from __future__ import annotations

from typing import NamedTuple

from cupcake_py.host import capi
from cupcake_py.host.abi import describe


class Extern(NamedTuple):
    module: str  # "" for exports
    name: str
    kind: str  # func, memory, global, table
    signature: str

    def as_dict(self) -> dict[str, str]:
        d = {"name": self.name, "kind": self.kind, "type": self.signature}
        if self.module:
            d = {"module": self.module, **d}
        return d


class ModuleSummary(NamedTuple):
    abi_version: tuple[int, int]
    entrypoints: dict[str, int]
    builtins: dict[int, str]  # host builtins only (sparse ids)
    imports: list[Extern]
    exports: list[Extern]


def imports_of(module: capi.Module) -> list[Extern]:
    return [Extern(mod, name, ty.kind, describe(ty)) for mod, name, ty in module.imports()]


def exports_of(module: capi.Module) -> list[Extern]:
    return [Extern("", name, ty.kind, describe(ty)) for name, ty in module.exports()]
