"""The lazy builtin registry: the generated name -> family table matches the decorators,
and a lookup imports only the family that defines the builtin."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from cupcake_py.host import builtins as lib
from cupcake_py.host.builtin_index import FAMILY_OF

REPO = Path(__file__).resolve().parents[2]


def test_index_matches_the_decorators() -> None:
    origin = lib.load_all()
    assert origin == FAMILY_OF, "stale cupcake_py/host/builtin_index.py: run `python -m cupcake_py.host.builtins`"
    assert set(FAMILY_OF.values()) == set(lib.FAMILIES)
    index = Path(lib.__file__).parent.parent / "builtin_index.py"
    assert index.read_text() == lib._index_source(origin)


def test_registry_mapping_is_complete_and_consistent() -> None:
    assert set(lib.REGISTRY) == set(FAMILY_OF)
    assert len(lib.REGISTRY) == len(FAMILY_OF)
    assert lib.REGISTRY["sprintf"] is lib.lookup("sprintf")
    assert "regex.match" in lib.REGISTRY and "no.such" not in lib.REGISTRY
    assert lib.lookup("no.such") is None and not lib.known("no.such")


def _modules_after(code: str) -> set[str]:
    out = subprocess.run([sys.executable, "-c", code + "\nimport sys\nprint(' '.join(sorted(sys.modules)))"],
                         capture_output=True, text=True, check=True, cwd=REPO).stdout
    return set(out.split())


FAMILY_PREFIX = "cupcake_py.host.builtins."


def test_lookup_imports_only_the_family_it_needs() -> None:
    mods = _modules_after("from cupcake_py.host.builtins import known, lookup\n"
                          "assert known('io.jwt.decode') and lookup('sprintf') is not None")
    families = {m.removeprefix(FAMILY_PREFIX) for m in mods if m.startswith(FAMILY_PREFIX)} & set(lib.FAMILIES)
    assert families == {"sprintf"}
    assert not {"cryptography", "graphql", "yaml", "jwt"} & {m.split(".")[0] for m in mods}


def test_host_import_path_stays_lean() -> None:
    """What `cupcake eval` pays for the host: no builtin family, no logging/values/decimal."""
    mods = _modules_after("import cupcake_py.host")
    assert not {m for m in mods if m.startswith("cupcake_py.host.builtins")}
    assert not {"logging", "decimal", "cupcake_py.core.values", "tempfile", "importlib.metadata"} & mods
