"""The C runtime's header `opa.h` agrees with the one ABI table (`cupcake_py.wasm.abi`): value
tags, every runtime function the generated code calls or the module re-exports (declared
`OPA_EXPORT`, with the table's parameter count, 64-bit parameters and used results), and every
`OPA_IMPORT` (a name the table knows, with its signature). A name added on one side only fails.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cupcake_py.wasm import abi

HEADER = Path(abi.__file__).parent / "runtime" / "include" / "opa.h"
_DECL = re.compile(r"(OPA_EXPORT|OPA_IMPORT\(\"(\w+)\"\))\s+([^;{()]*?)\b(\w+)\s*\(([^)]*)\)", re.S)


def _declarations(kind: str) -> dict[str, tuple[str, list[str]]]:
    """name -> (return type, parameter types) of every `OPA_EXPORT` / `OPA_IMPORT` declaration."""
    text = re.sub(r"/\*.*?\*/", " ", HEADER.read_text(), flags=re.S)
    out: dict[str, tuple[str, list[str]]] = {}
    for m in _DECL.finditer(text):
        if not m.group(1).startswith(kind):
            continue
        params = [p.strip() for p in m.group(5).split(",") if p.strip() not in ("", "void")]
        ret = " ".join(m.group(3).replace("_Noreturn", "").split())
        out[m.group(2) if kind == "OPA_IMPORT" else m.group(4)] = (ret, params)
    return out


def _c_kind(c_type: str) -> str:
    return "i64" if re.search(r"\bu?int64_t\b", c_type) else "i32"


def test_value_tags_match_the_header() -> None:
    text = HEADER.read_text()
    found = {name: int(v) for name, v in re.findall(r"\bOPA_(NULL|BOOLEAN|NUMBER|STRING|ARRAY|OBJECT|SET)\s*=\s*(\d+)",
                                                    text)}
    assert found == abi.TAGS


def test_number_representations_and_layout_match_the_header() -> None:
    text = HEADER.read_text()
    reprs = dict(re.findall(r"\bOPA_NUMBER_REPR_(INT|REF)\s*=\s*(\d+)", text))
    assert (int(reprs["INT"]), int(reprs["REF"])) == (abi.NUMBER_REPR_INT, abi.NUMBER_REPR_REF)
    # codegen's inline `x == true/false` reads a boolean's {u8 type, u8 v} with one 16-bit load
    assert re.search(r"typedef struct \{ opa_value hdr; uint8_t v; \} opa_boolean_t;", text)
    # wasm/data.py lays static numbers out as {u8 type @0, u8 repr @1, i64 @8}
    assert re.search(r"opa_value hdr;\s*uint8_t repr;\s*union \{\s*int64_t i;", text)


@pytest.mark.parametrize("name", sorted(abi.RUNTIME_CALLS))
def test_runtime_calls_are_declared_with_the_table_signature(name: str) -> None:
    exports = _declarations("OPA_EXPORT")
    assert name in exports, f"{name} is in abi.RUNTIME_CALLS but opa.h does not declare it OPA_EXPORT"
    ret, params = exports[name]
    want_params, result_used = abi.RUNTIME_CALLS[name]
    assert tuple(_c_kind(p) for p in params) == want_params
    if result_used:
        assert ret != "void", f"{name}: the generated code uses its result"


def test_abi_exports_are_declared() -> None:
    exports = _declarations("OPA_EXPORT")
    assert [n for n in (*abi.ABI_EXPORTS, *abi.EXTENSION_EXPORTS) if n not in exports] == []
    assert set(abi.HOST_CALLED_EXPORTS) - set(abi.GENERATED_EXPORTS) <= {*abi.ABI_EXPORTS, *abi.EXTENSION_EXPORTS}


def test_imports_of_the_header_are_in_the_table() -> None:
    imports = _declarations("OPA_IMPORT")
    assert imports, "opa.h declares no OPA_IMPORT (the pattern no longer matches the header)"
    known = {abi.RUNTIME_IMPORT_EVAL: abi.RUNTIME_IMPORT_EVAL_TYPE, **abi.HOST_IMPORTS}
    for name, (ret, params) in imports.items():
        assert name in known, f"opa.h imports env.{name}, which abi.py does not know"
        want_params, want_results = known[name]
        assert tuple(_c_kind(p) for p in params) == want_params, name
        assert (ret == "void") == (want_results == ()), name


def test_the_pattern_reads_declarations() -> None:
    """Guard against a regex that matches nothing (every check above would pass vacuously)."""
    exports = _declarations("OPA_EXPORT")
    assert exports["opa_value_number_set_int"] == ("void", ["opa_value *v", "int64_t i"])
    assert _declarations("OPA_IMPORT")["opa_abort"] == ("void", ["const char *msg"])
    assert len(exports) >= len(abi.ABI_EXPORTS) + len(abi.RUNTIME_CALLS)
