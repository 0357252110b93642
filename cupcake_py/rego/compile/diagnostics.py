"""Compile errors collected per stage, reported like OPA's compiler: the stages run in a
fixed order and compilation stops after the first stage that found errors, so a later
check never reports a follow-up of an earlier one (e.g. an arity error is never followed
by an unsafe compiler temporary). Errors are sorted by location within the stage;
callers report at most MAX_ERRORS of them."""

from __future__ import annotations

from enum import IntEnum

from cupcake_py.rego.errors import RegoError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Protocol
else:  # (typing stays off a first `cupcake test` run's start-up: at run time the sinks are plain classes)
    Protocol = object


class Stage(IntEnum):
    """OPA's compiler stages that can report errors, in the order they run."""

    RESOLVE = 1  # args must not shadow input/data
    KEYWORDS = 2  # rules/variables must not shadow input/data
    IMPORTS = 3  # duplicate imports
    LOCALS = 4  # `:=` / `some` declarations
    VOID_CALLS = 5  # a void function (`print`) used as a value
    WITH = 6  # `with` targets
    CONFLICTS = 7  # rule kinds, arities, defaults, rules/packages below rules
    FUNCS = 8  # undefined functions, arity
    SAFETY_HEADS = 9
    SAFETY_BODIES = 10
    RECURSION = 11
    TYPES = 12  # constant argument types, calls of non-functions, `with` function arities
    DEPRECATED = 13  # deprecated builtins called from v1 modules


class ErrorSink(Protocol):
    """Where a pass reports its errors: a list, or one stage of StagedErrors (StageSink)."""

    def append(self, err: RegoError) -> None: ...


class SizedErrorSink(ErrorSink, Protocol):
    """An ErrorSink that also counts (a pass that compares counts to see whether it failed)."""

    def __len__(self) -> int: ...


class StageSink:
    """The `ErrorSink` of one stage of a `StagedErrors` (passes call `errors.append(err)`)."""

    def __init__(self, owner: StagedErrors, stage: Stage) -> None:
        self.owner = owner
        self.stage = stage

    def append(self, err: RegoError) -> None:
        self.owner.add(self.stage, err)

    def __len__(self) -> int:
        return len(self.owner.by_stage.get(self.stage, []))


class StagedErrors:
    def __init__(self) -> None:
        self.by_stage: dict[Stage, list[RegoError]] = {}

    def at(self, stage: Stage) -> StageSink:
        return StageSink(self, stage)

    def add(self, stage: Stage, err: RegoError) -> None:
        bucket = self.by_stage.setdefault(stage, [])
        if err not in bucket:
            bucket.append(err)

    def __bool__(self) -> bool:
        return any(self.by_stage.values())

    def reported(self) -> list[RegoError]:
        """Every error of the first stage that has any, sorted by location (callers cap the list
        at MAX_ERRORS; RegoErrors marks it truncated)."""
        for stage in sorted(self.by_stage):
            errs = self.by_stage[stage]
            if errs:
                return sort_errors(errs)
        return []


def sort_errors(errors: list[RegoError]) -> list[RegoError]:
    def key(e: RegoError) -> tuple[str, int, int]:
        loc = e.location
        return (loc.file, loc.row, loc.col) if loc is not None else ("", 0, 0)

    return sorted(errors, key=key)
