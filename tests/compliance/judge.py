"""Judging a case's outcome the way OPA's Wasm e2e runner does (opa-wasm-abi.md section 9).

- want_result: no error allowed; result sets compared as SETS of binding objects after a
  JSON round trip (sets → sorted arrays); numbers compare by value (Rego equality).
  sort_bindings sorts array values of each binding first; ignore_generated_vars drops
  `__x__` variables.
- want_defined: only whether the result set is non-empty.
- strict_error (without want_result): Wasm has no strict builtin errors, so expect NO error
  and an EMPTY result set.
- other expected errors: only eval_conflict_error is accepted, matched on the message
  ("var assignment conflict" / "object insert conflict"); other codes cannot pass.
- compile-time errors (want_error_code `rego_*`, source mode only: OPA's plans exist only
  for cases that compile): one reported error must have that code and contain want_error.
- strict mode (`judge_strict`, the host under --strict-builtin-errors, which OPA's own Wasm
  runner never runs): a strict_error case without want_result must fail with a builtin error
  of want_error_code whose `code: message` text contains want_error (as OPA's topdown runner
  checks); every other case is judged as above.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from cupcake_py.core import values

CONFLICT_MESSAGES = ("var assignment conflict", "object insert conflict")


@dataclass(frozen=True)
class Verdict:
    ok: bool
    category: str  # pass, wrong-result, unexpected-error, missing-error, unsupported-expectation
    reason: str = ""


def _round_trip(v: Any) -> Any:
    return values.parse_json(values.dump_json(v))


def _normalize(rows: list[Any], sort_bindings: bool, ignore_generated: bool) -> list[Any]:
    out = []
    for row in rows:
        row = _round_trip(row)
        if isinstance(row, dict):
            if ignore_generated:
                row = {k: v for k, v in row.items() if not (isinstance(k, str) and k.startswith("__"))}
            if sort_bindings:
                row = {k: sorted(v, key=values.sort_key) if isinstance(v, list) else v for k, v in row.items()}
        out.append(row)
    out.sort(key=values.sort_key)
    dedup: list[Any] = []
    for row in out:
        if not dedup or values.compare(dedup[-1], row) != 0:
            dedup.append(row)
    return dedup


def same_result_sets(got: list[Any], want: list[Any], sort_bindings: bool = False,
                     ignore_generated: bool = False) -> bool:
    a = _normalize(got, sort_bindings, ignore_generated)
    b = _normalize(want, sort_bindings, ignore_generated)
    return len(a) == len(b) and all(values.compare(x, y) == 0 for x, y in zip(a, b, strict=True))


def _short(v: Any, n: int = 300) -> str:
    text = values.dump_json(v)
    return text if len(text) <= n else text[:n] + "…"


def judge_compile_errors(case: dict[str, Any], errors: Iterable[Any]) -> Verdict:
    """The source compiler rejected the case: right when an error has the wanted code and text."""
    code, text = case.get("want_error_code"), case.get("want_error", "")
    got = [(getattr(e, "code", ""), getattr(e, "message", str(e))) for e in errors]
    if any(c == code and text in m for c, m in got):
        return Verdict(True, "pass")
    return Verdict(False, "wrong-error", f"want {code} {text!r}, got {got[:5]}")


def judge_strict(case: dict[str, Any], rows: list[Any] | None, error: BaseException | None) -> Verdict:
    """The verdict under strict builtin errors."""
    if not case.get("strict_error") or "want_result" in case or "want_defined" in case:
        return judge(case, rows, error)
    code, text = case.get("want_error_code"), case.get("want_error", "")
    if error is None:
        return Verdict(False, "missing-error", f"want {code} {text!r}, got {_short(rows)}")
    got_code = getattr(error, "code", None)
    if got_code is None:
        return Verdict(False, "unexpected-error", f"want {code} {text!r}, got {type(error).__name__}: {error}")
    if (code is None or got_code == code) and text in f"{got_code}: {error}":
        return Verdict(True, "pass")
    return Verdict(False, "wrong-error", f"want {code} {text!r}, got {got_code}: {error}")


def judge(case: dict[str, Any], rows: list[Any] | None, error: BaseException | None) -> Verdict:
    """`rows` is the result set (None when `error` is set)."""
    err_text = f"{type(error).__name__}: {error}" if error is not None else ""
    if "want_result" in case:
        if error is not None:
            return Verdict(False, "unexpected-error", err_text)
        want = case["want_result"] or []
        if same_result_sets(rows or [], want, bool(case.get("sort_bindings")),
                            bool(case.get("ignore_generated_vars"))):
            return Verdict(True, "pass")
        return Verdict(False, "wrong-result", f"got {_short(rows)}, want {_short(want)}")
    if "want_defined" in case:
        if error is not None:
            return Verdict(False, "unexpected-error", err_text)
        if bool(rows) == bool(case["want_defined"]):
            return Verdict(True, "pass")
        return Verdict(False, "wrong-result", f"defined={bool(rows)}, want {bool(case['want_defined'])}")
    if case.get("strict_error"):
        if error is not None:
            return Verdict(False, "unexpected-error", err_text)
        if rows:
            return Verdict(False, "wrong-result", f"strict_error case: want an empty result, got {_short(rows)}")
        return Verdict(True, "pass")
    if "want_error_code" in case or "want_error" in case:
        code = case.get("want_error_code")
        if code != "eval_conflict_error":
            return Verdict(False, "unsupported-expectation", f"a Wasm host cannot report {code or 'this error'}")
        if error is None:
            return Verdict(False, "missing-error", f"want a conflict error, got {_short(rows)}")
        if any(m in str(error) for m in CONFLICT_MESSAGES):
            return Verdict(True, "pass")
        return Verdict(False, "unexpected-error", f"want a conflict error, got {err_text}")
    if error is not None:
        return Verdict(False, "unexpected-error", err_text)
    return Verdict(not rows, "pass" if not rows else "wrong-result", "" if not rows else f"got {_short(rows)}")
