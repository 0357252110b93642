"""Regenerate `builtins.json` (the builtin registry) from the declarations OPA put into the
compliance suite's plans (`static.builtin_funcs`), plus `EXTRA` for builtins the suite never
calls. Run: `python -m cupcake_py.rego.compile.builtins_harvest [SUITE_DIR]`."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

_ANY: dict[str, Any] = {"type": "any"}
_BOOL: dict[str, Any] = {"type": "boolean"}
_STR: dict[str, Any] = {"type": "string"}


def _fn(args: list[dict[str, Any]], result: dict[str, Any] | None) -> dict[str, Any]:
    d: dict[str, Any] = {"type": "function", "args": args}
    if result is not None:
        d["result"] = result
    return d


# Builtins of OPA's capabilities that no suite plan declares (name -> decl).
EXTRA: dict[str, dict[str, Any]] = {
    "all": _fn([_ANY], _BOOL),
    "any": _fn([_ANY], _BOOL),
    "array.flatten": _fn([_ANY], _ANY),
    "base64url.encode": _fn([_STR], _STR),
    "cast_array": _fn([_ANY], _ANY),
    "cast_boolean": _fn([_ANY], _BOOL),
    "cast_null": _fn([_ANY], {"type": "null"}),
    "cast_object": _fn([_ANY], _ANY),
    "cast_set": _fn([_ANY], _ANY),
    "cast_string": _fn([_ANY], _STR),
    "crypto.x509.parse_and_verify_certificates_with_options": _fn([_STR, _ANY], _ANY),
    "graphql.is_valid": _fn([_ANY, _ANY], _BOOL),
    "internal.member_3": _fn([_ANY, _ANY, _ANY], _BOOL),
    "internal.print": _fn([_ANY], None),
    "is_object": _fn([_ANY], _BOOL),
    "json.match_schema": _fn([_ANY, _ANY], _ANY),
    "net.cidr_overlap": _fn([_STR, _STR], _BOOL),
    "opa.runtime": _fn([], _ANY),
    "re_match": _fn([_STR, _STR], _BOOL),
    "set_diff": _fn([_ANY, _ANY], _ANY),
    "strings.any_prefix_match": _fn([_ANY, _ANY], _BOOL),
    "strings.any_suffix_match": _fn([_ANY, _ANY], _BOOL),
    "strings.reverse": _fn([_STR], _STR),
    "trace": _fn([_STR], _BOOL),
    "upper": _fn([_STR], _STR),
}


def harvest(suite: Path) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for f in sorted(suite.glob("*/*.json")):
        for case in json.loads(f.read_text())["cases"]:
            for b in case.get("plan", {}).get("static", {}).get("builtin_funcs") or []:
                out[b["name"]] = b["decl"]
    for name, decl in EXTRA.items():
        out.setdefault(name, decl)
    return dict(sorted(out.items()))


def main() -> None:
    here = Path(__file__).resolve()
    suite = Path(sys.argv[1]) if len(sys.argv) > 1 else here.parents[4] / "shared/rego-compliance/v1"
    data = harvest(suite)
    (here.parent / "builtins.json").write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    print(f"{len(data)} builtins")


if __name__ == "__main__":
    main()
