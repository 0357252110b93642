"""Dispatch of `env.opa_builtin0..4(id, ctx, args...)` to Python host builtins.

Builtins come from the host builtin library (`cupcake_py.host.builtins`: `known(name)`,
`lookup(name)` → object with `fn(ctx, *args)`), optionally overridden or extended by a
mapping `name -> fn(ctx, *args)` given by the caller (tests, the compliance runner's
`test.sleep`). Availability is checked at load time, so a missing builtin is reported
before any evaluation (MissingBuiltinError); a builtin's family module is imported on
its first call.

Per call: each argument is read straight from linear memory (`value_reader`; no call
into wasm), or, for the rare value it cannot reproduce exactly, dumped by the module
(`opa_value_dump`) and parsed with `values.parse_rego`. The result is encoded as JSON
(jsonio) when it is plain JSON, else as a Rego literal (`values.dump_rego`: sets,
non-string keys, big or decimal numbers), written into a per-evaluation scratch block of
the module's heap and parsed there with `opa_value_parse`: one call into wasm per
builtin call. `BuiltinError` means undefined (0), or a BuiltinEvalError in strict mode;
any other exception is a bug in the builtin and always fails the evaluation. One
BuiltinContext is created per evaluation, on the first builtin call.

Within one evaluation, a call of a MEMO_BUILTINS builtin repeated with the same string
arguments reuses the first call's encoded result (the Python implementation and the encoding
run once; the call still crosses into the host). Failed calls are not remembered.
"""

from __future__ import annotations

from cupcake_py.core import jsonio
from cupcake_py.core.lazylog import LazyLogger
from cupcake_py.host.errors import ABIError, BuiltinEvalError, MissingBuiltinError
from cupcake_py.host.memory import LinearMemory
from cupcake_py.host.value_reader import PROBE, NeedsDump, probe_value, read_value

TYPE_CHECKING = False  # (typing is not imported on the eval path)
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping
    from typing import Any

    from cupcake_py.host.fastcall import Ctx, I32Fn

    BuiltinFn = Callable[..., Any]  # fn(ctx, *args) -> value

log = LazyLogger(__name__)

SCRATCH_MIN = 512  # bytes: the first result block of an evaluation
# Builtins whose result depends only on their (string) arguments: no context, clock, randomness, I/O.
MEMO_BUILTINS = frozenset({"regex.match", "regex.replace", "regex.split", "regex.is_valid"})
MEMO_MAX = 4096  # remembered results per evaluation


def _library() -> Any:
    """The host builtin library, imported on first need (start-up time)."""
    from cupcake_py.host import builtins as lib

    return lib


def resolve(names: Iterable[str], extra: Mapping[str, BuiltinFn] | None = None) -> list[str]:
    """Check that every name has an implementation (imports nothing); returns the names.
    MissingBuiltinError lists every name without one."""
    names = list(names)
    if not names:
        return names
    missing = sorted(set(names) - available(names, extra))
    if missing:
        raise MissingBuiltinError(missing)
    return names


def available(names: Iterable[str], extra: Mapping[str, BuiltinFn] | None = None) -> set[str]:
    """The subset of `names` that has an implementation (the library itself is imported
    only to ask about names outside its generated index)."""
    from cupcake_py.host.builtin_index import FAMILY_OF

    extra = extra or {}
    found = {n for n in names if n in extra or n in FAMILY_OF}
    rest = [n for n in names if n not in found]
    if rest:
        known = _library().known
        found.update(n for n in rest if known(n))
    return found


def encode_result(value: Any) -> bytes:
    """Text for opa_value_parse: JSON when the value is plain JSON, else a Rego literal."""
    try:
        return jsonio.dumps(value)  # TypeError on sets, Decimal, non-string keys, NaN
    except TypeError:
        from cupcake_py.core import values

        return values.dump_rego(value).encode("utf-8")


class ModuleIO:
    """What the dispatcher needs from a running instance: its memory and the exports
    `opa_malloc`, `opa_value_parse`, `opa_value_dump` (fast callers taking a context)."""

    def __init__(self, memory: LinearMemory, malloc: I32Fn, value_parse: I32Fn, value_dump: I32Fn) -> None:
        self.memory = memory
        self.malloc = malloc
        self.value_parse = value_parse
        self.value_dump = value_dump


class BuiltinDispatcher:
    def __init__(
        self,
        ids: Mapping[int, str],
        io: ModuleIO | None,
        extra: Mapping[str, BuiltinFn] | None = None,
        strict: bool = False,
        context_factory: Callable[[], Any] | None = None,
        allow_net: bool = False,
    ) -> None:
        self._names = dict(ids)
        self._extra = dict(extra or {})
        self._fns: dict[int, BuiltinFn] = {}
        self._io = io
        self._strict = strict
        self._allow_net = allow_net
        self._context_factory = context_factory
        self._error_type: type[Exception] = _NeverRaised
        self._ctx: Any = None
        self._scratch = 0  # address of this evaluation's result block (0: none yet)
        self._scratch_size = 0
        self._direct: bool | None = None  # values laid out as value_reader expects (probed once)
        self._memo_ids = frozenset(i for i, name in self._names.items() if name in MEMO_BUILTINS)
        self._memo: dict[tuple[Any, ...], bytes] = {}

    def begin_eval(self) -> None:
        """Start a new evaluation: the next builtin call gets a fresh BuiltinContext (and a
        fresh result block: the module's heap was reset)."""
        self._ctx = None
        self._scratch = 0
        self._memo.clear()

    @property
    def context(self) -> Any:
        """The current evaluation's BuiltinContext (None before the first builtin call)."""
        return self._ctx

    def _implementation(self, bid: int) -> BuiltinFn:
        name = self._names.get(bid)
        if name is None:
            raise ABIError(f"module called unknown host builtin id {bid}")
        lib = _library()
        self._error_type = lib.BuiltinError
        fn = self._extra.get(name)
        if fn is None:
            try:
                found = lib.lookup(name)
            except Exception as e:  # noqa: BLE001 - a broken family module is a host bug, reported as such
                raise BuiltinEvalError(name, f"cannot load its implementation: {type(e).__name__}: {e}") from e
            if found is None:
                raise MissingBuiltinError([name])
            fn = found.fn
        self._fns[bid] = fn
        return fn

    def _new_context(self) -> Any:
        if self._context_factory is not None:
            return self._context_factory()
        return _library().BuiltinContext(strict=self._strict, allow_net=self._allow_net)

    def call(self, ctx: Ctx, bid: int, _opa_ctx: int, *arg_addrs: int) -> int:
        fn = self._fns.get(bid) or self._implementation(bid)
        io = self._io
        assert io is not None
        if self._direct is None:
            self._direct = self._probe(ctx, io)
        mem: memoryview | None = None  # valid until the next call into wasm
        if self._direct:
            mem = io.memory.view(ctx)
            args = []
            for addr in arg_addrs:
                if addr == 0:
                    raise ABIError(f"{self._names[bid]}: module passed an undefined argument")
                try:
                    args.append(read_value(mem, addr))
                except NeedsDump:
                    args.append(self._dumped(ctx, bid, io, addr))
                    mem = io.memory.view(ctx)
        else:
            args = [self._dumped(ctx, bid, io, a) for a in arg_addrs]
        key = (bid, *args) if bid in self._memo_ids and all(type(a) is str for a in args) else None
        text = self._memo.get(key) if key is not None else None
        if text is None:
            text = self._result_text(fn, bid, args)
            if text is None:
                return 0
            if key is not None:
                if len(self._memo) >= MEMO_MAX:
                    self._memo.clear()
                self._memo[key] = text
        n = len(text)
        addr = self._scratch
        if not self._direct:  # another runtime: its parser may keep pointers into the text
            addr = io.malloc(ctx, n)
            mem = None
        elif n > self._scratch_size or not addr:  # ours copies: one block per evaluation is reused
            self._scratch_size = max(n, SCRATCH_MIN, 2 * self._scratch_size if addr else 0)
            addr = self._scratch = io.malloc(ctx, self._scratch_size)
            mem = None
        if mem is None:
            mem = io.memory.view(ctx)
        if addr + n > len(mem):
            raise ABIError(f"opa_malloc returned a block outside linear memory ({addr:#x})")
        mem[addr:addr + n] = text
        value: int = io.value_parse(ctx, addr, n)
        if value == 0:
            raise ABIError(f"{self._names[bid]}: opa_value_parse rejected the builtin's result {text[:80]!r}")
        return value

    def _result_text(self, fn: BuiltinFn, bid: int, args: list[Any]) -> bytes | None:
        """The builtin's result encoded for opa_value_parse; None when it is undefined."""
        if self._ctx is None:
            self._ctx = self._new_context()
        try:
            result = fn(self._ctx, *args)
        except self._error_type as e:
            if self._strict:
                raise BuiltinEvalError(self._names[bid], str(e), getattr(e, "code", "eval_builtin_error")) from None
            log.debug("builtin %s undefined: %s", self._names[bid], e)
            return None
        except Exception as e:
            log.debug("builtin %s crashed", self._names[bid], exc_info=True)
            raise BuiltinEvalError(self._names[bid], f"internal error: {type(e).__name__}: {e}") from e
        try:
            return encode_result(result)
        except (TypeError, ValueError) as e:
            raise BuiltinEvalError(self._names[bid], f"returned a non-Rego value: {e}") from None

    @staticmethod
    def _probe(ctx: Ctx, io: ModuleIO) -> bool:
        """Whether the module's values have our runtime's layout: its own parse of PROBE
        reads back (value and key order) as expected. Any failure means "no"."""
        try:
            addr = io.malloc(ctx, len(PROBE))
            io.memory.view(ctx)[addr:addr + len(PROBE)] = PROBE
            value = io.value_parse(ctx, addr, len(PROBE))
            got = read_value(io.memory.view(ctx), value) if value else None
            want = probe_value()
            return got == want and list(got) == list(want)
        except Exception:  # noqa: BLE001 - a foreign layout may read as anything; fall back to dumps
            return False

    def _dumped(self, ctx: Ctx, bid: int, io: ModuleIO, addr: int) -> Any:
        from cupcake_py.core import values

        if addr == 0:
            raise ABIError(f"{self._names[bid]}: module passed an undefined argument")

        text = io.memory.read_cstr(ctx, io.value_dump(ctx, addr))
        try:
            return values.parse_rego(text)
        except values.ValueParseError as e:
            raise ABIError(f"{self._names[bid]}: unreadable argument {text[:80]!r}: {e}") from None


class _NeverRaised(Exception):
    """Placeholder error type before the library is loaded (no builtin ran yet)."""
