"""Rego front-end errors (OPA's `rego_*` error codes) and their text/JSON formatting."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping

from cupcake_py.core.errors import CupcakeError, Location

PARSE = "rego_parse_error"
UNSAFE_VAR = "rego_unsafe_var_error"
RECURSION = "rego_recursion_error"
TYPE = "rego_type_error"
COMPILE = "rego_compile_error"
CODES = (PARSE, UNSAFE_VAR, RECURSION, TYPE, COMPILE)

MAX_ERRORS = 10  # like OPA: stop collecting after this many


class RegoError(CupcakeError):
    """One error in Rego source: `code` is one of CODES, `location` where it happened.
    `details` are extra lines (OPA's `have: (...)` / `want: (...)` of argument errors); they are
    shown indented under the message and do not take part in equality."""

    def __init__(self, code: str, message: str, location: Location | None,
                 details: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.location = location
        self.details = details

    def __str__(self) -> str:
        where = f"{self.location}: " if self.location is not None else ""
        return f"{where}{self.code}: {self.message}" + "".join(f"\n\t{d}" for d in self.details)

    def __repr__(self) -> str:
        return f"RegoError({self.code!r}, {self.message!r}, {self.location!r})"

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, RegoError)
            and (self.code, self.message, self.location) == (other.code, other.message, other.location)
        )

    def __hash__(self) -> int:
        return hash((self.code, self.message, self.location))

    def to_dict(self) -> dict[str, object]:
        d: dict[str, object] = {"code": self.code, "message": self.message}
        if self.location is not None:
            loc = self.location
            d["location"] = {"file": loc.file, "row": loc.row, "col": loc.col}
        if self.details:
            d["details"] = list(self.details)
        return d


class RegoErrors(CupcakeError):
    """Several RegoErrors (at most MAX_ERRORS are kept; `truncated` says more existed)."""

    def __init__(self, errors: Iterable[RegoError], truncated: bool = False) -> None:
        errs = list(errors)
        self.truncated = truncated or len(errs) > MAX_ERRORS
        self.errors = errs[:MAX_ERRORS]
        super().__init__(self._summary())

    def _summary(self) -> str:
        n = len(self.errors)
        head = f"{n} error{'s' if n != 1 else ''} occurred" + (" (too many errors)" if self.truncated else "")
        return head + ":\n" + "\n".join(str(e) for e in self.errors)

    def __iter__(self) -> Iterator[RegoError]:
        return iter(self.errors)

    def __len__(self) -> int:
        return len(self.errors)


def _caret_lines(err: RegoError, sources: Mapping[str, str]) -> list[str]:
    loc = err.location
    if loc is None or loc.row < 1 or loc.file not in sources:
        return []
    lines = sources[loc.file].splitlines()
    if loc.row > len(lines):
        return []
    line = lines[loc.row - 1].replace("\t", " ")
    return ["\t" + line, "\t" + " " * max(loc.col - 1, 0) + "^"]


def format_text(errors: Iterable[RegoError], sources: Mapping[str, str] | None = None) -> str:
    """`file:row:col: code: message`, then the source line and a caret under the column
    (when `sources` maps the file name to its text)."""
    out: list[str] = []
    for e in errors:
        out.extend(str(e).split("\n"))
        out.extend(_caret_lines(e, sources or {}))
    return "\n".join(out)


def format_json(errors: Iterable[RegoError]) -> str:
    """`{"errors": [{"code", "message", "location": {"file", "row", "col"}}]}`."""
    import orjson  # (its import loads datetime, uuid and json: only when JSON is asked for)

    return orjson.dumps({"errors": [e.to_dict() for e in errors]}, option=orjson.OPT_INDENT_2).decode()
