"""Custom Rego builtins written in Python (docs/custom-builtins.md).

In: Python modules that declare builtins with `@builtin(name, args=[...], result=...)`
(types in OPA's type language: `any`, `null`, `boolean`, `number`, `string`, `array[T]`,
`array<T1, T2>`, `set[T]`, `object[K: V]`, `object<key: T, ...>`, `any<T1, T2>`). Modules are
named by `--custom-builtins MODULE` (an importable module name, or a path to a `.py` file; repeatable
or comma-separated), by the rulebook key `custom_builtins:`, or installed as entry points of the
group `cupcake_py.builtins` (value `package.module` or `package.module:attribute`; scanned by the
authoring commands only: `cupcake eval` runs just the modules its configuration names).

Out: a `CustomBuiltins` set: declarations (what the type checker, the planner and the WASM
builtin table see; `declared()` makes them visible to the compiler for a block of code) and
host implementations `name -> fn(ctx, *args)` for `PolicyModule.instantiate(builtins=...)`.
The user function takes the Rego arguments as Python values (cupcake_py.core.values) and returns
one; raising `BuiltinError` makes the call undefined (an error under strict builtin errors), any
other exception fails the evaluation.

Fails closed (CustomBuiltinError): a module that cannot be imported, a builtin without
declaration or with a bad type string, a name that is not a dotted identifier or that
redefines an OPA builtin, two modules defining one name, a function whose parameters do not
take the declared arguments. A policy that calls a builtin nobody provides is a compile error
(`undefined function`) and, for a bundle built with a module that is gone at evaluation time,
a fail-closed deny of `cupcake eval`.
"""

from __future__ import annotations

import sys

from cupcake_py.core.errors import CupcakeError
from cupcake_py.extensions.entry_points import ENTRY_POINT_GROUP, entry_point_specs
from cupcake_py.host.builtins._errors import BuiltinError

TYPE_CHECKING = False
if TYPE_CHECKING:  # (typing and contextlib stay off a `cupcake test` start-up, which loads this module)
    from collections.abc import Callable, Iterable, Mapping
    from contextlib import AbstractContextManager
    from typing import Any

__all__ = ["ENTRY_POINT_GROUP", "BuiltinError", "CustomBuiltin", "CustomBuiltinError", "CustomBuiltins", "builtin",
           "entry_point_specs", "load"]

MARK = "cupcake_builtin"  # attribute the decorator sets on the function
_NAME = r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*"  # (patterns compiled where used: `re` stays off a start-up)


class CustomBuiltinError(CupcakeError):
    """A custom builtin module or declaration is unusable."""


# ----------------------------------------------------------------------------- type language

_SCALARS = ("any", "null", "boolean", "number", "string")
_TOKEN = r"\s*([A-Za-z_][A-Za-z0-9_]*|\"[^\"]*\"|[\[\]<>:,])"


class _TypeParser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens: list[str] = []
        import re

        token = re.compile(_TOKEN)
        pos = 0
        while pos < len(text.rstrip()):
            m = token.match(text, pos)
            if m is None:
                raise self.error(f"unexpected {text[pos:].strip()[:10]!r}")
            self.tokens.append(m.group(1))
            pos = m.end()
        self.i = 0

    def error(self, what: str) -> CustomBuiltinError:
        return CustomBuiltinError(f"type {self.text!r}: {what} (see docs/custom-builtins.md for the type language)")

    def peek(self) -> str:
        return self.tokens[self.i] if self.i < len(self.tokens) else ""

    def take(self, want: str | None = None) -> str:
        tok = self.peek()
        if not tok or (want is not None and tok != want):
            raise self.error(f"expected {want or 'a type'}, got {tok or 'the end'!r}")
        self.i += 1
        return tok

    def parse(self) -> dict[str, Any]:
        t = self.type()
        if self.peek():
            raise self.error(f"unexpected {self.peek()!r}")
        return t

    def types(self, close: str) -> list[dict[str, Any]]:
        out = [self.type()]
        while self.peek() == ",":
            self.take(",")
            out.append(self.type())
        self.take(close)
        return out

    def type(self) -> dict[str, Any]:
        word = self.take()
        nxt = self.peek()
        if word == "any" and nxt == "<":
            self.take("<")
            return {"type": "any", "of": self.types(">")}
        if word in _SCALARS:
            return {"type": word}
        if word in ("array", "set") and nxt == "[":
            self.take("[")
            inner = self.type()
            self.take("]")
            return {"type": "array", "dynamic": inner} if word == "array" else {"type": "set", "of": inner}
        if word == "array" and nxt == "<":
            self.take("<")
            return {"type": "array", "static": self.types(">")}
        if word == "object" and nxt == "[":
            self.take("[")
            key = self.type()
            self.take(":")
            value = self.type()
            self.take("]")
            return {"type": "object", "dynamic": {"key": key, "value": value}}
        if word == "object" and nxt == "<":
            self.take("<")
            static: list[dict[str, Any]] = []
            while True:
                name = self.take().strip('"')
                self.take(":")
                static.append({"key": name, "value": self.type()})
                if self.peek() != ",":
                    break
                self.take(",")
            self.take(">")
            return {"type": "object", "static": static}
        raise self.error(f"unknown type {word!r}")


def parse_type(text: str) -> dict[str, Any]:
    """An OPA type string as a declaration (the format of rego/compile/builtins.json)."""
    return _TypeParser(text).parse()


# ----------------------------------------------------------------------------- declarations


class CustomBuiltin:
    """One builtin: its Rego name, the Python function, argument and result types."""

    __slots__ = ("name", "fn", "args", "result", "description", "origin")

    def __init__(self, name: str, fn: Callable[..., Any], args: Iterable[str] = (), result: str = "any",
                 description: str = "", origin: str = "") -> None:
        self.name, self.fn, self.args, self.result = name, fn, tuple(args), result
        self.description, self.origin = description, origin

    def decl(self) -> dict[str, Any]:
        return {"type": "function", "args": [parse_type(a) for a in self.args], "result": parse_type(self.result)}

    def host_fn(self) -> Callable[..., Any]:
        fn = self.fn

        def call(_ctx: Any, *args: Any) -> Any:
            return fn(*args)

        return call


def builtin(name: str, *, args: Iterable[str] = (), result: str = "any",
            description: str = "") -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Declare the decorated function as the Rego builtin `name` (args: one type per argument)."""

    def deco(fn: Callable[..., Any]) -> Callable[..., Any]:
        setattr(fn, MARK, CustomBuiltin(name, fn, args, result, description or (fn.__doc__ or "").strip()))
        return fn

    return deco


def _found_in(module: Any) -> list[CustomBuiltin]:
    found = [v for v in (getattr(module, "BUILTINS", None) or ()) if isinstance(v, CustomBuiltin)]
    found += [getattr(v, MARK) for v in vars(module).values() if isinstance(getattr(v, MARK, None), CustomBuiltin)]
    return found


class CustomBuiltins:
    """The custom builtins of one run: name -> CustomBuiltin, plus where they came from."""

    def __init__(self, items: Iterable[CustomBuiltin] = (), sources: Iterable[str] = ()) -> None:
        self.items: dict[str, CustomBuiltin] = {}
        self.sources = list(sources)
        for b in items:
            self.add(b)

    def __bool__(self) -> bool:
        return bool(self.items)

    def add(self, b: CustomBuiltin) -> None:
        import re

        from cupcake_py.rego.compile import builtins as B

        if not re.fullmatch(_NAME, b.name) or b.name.split(".")[0] in ("data", "input"):
            raise CustomBuiltinError(f"{b.origin}: {b.name!r} is not a valid builtin name (dotted identifiers, "
                                     "not under data or input)")
        if b.name in B.COMPILE_TIME or B.registry().get(b.name) is not None:
            raise CustomBuiltinError(f"{b.origin}: {b.name} is an OPA builtin and cannot be redefined")
        have = self.items.get(b.name)
        if have is not None and have.fn is not b.fn:
            raise CustomBuiltinError(f"builtin {b.name} is defined twice ({have.origin} and {b.origin})")
        b.decl()  # the types parse
        _check_arity(b)
        self.items[b.name] = b

    def declarations(self) -> dict[str, dict[str, Any]]:
        return {n: b.decl() for n, b in sorted(self.items.items())}

    def implementations(self) -> dict[str, Callable[..., Any]]:
        return {n: b.host_fn() for n, b in sorted(self.items.items())}

    def fingerprint(self) -> str:
        """Text that changes when a name, a declaration or a providing module changes."""
        return "\n".join(f"{n} {b.origin} {b.args} {b.result}" for n, b in sorted(self.items.items()))

    def declared(self) -> AbstractContextManager[None]:
        """Make the declarations visible to the compiler (type checks, planner) in this block."""
        from cupcake_py.rego.compile import builtins as B

        return B.custom_declarations(self.declarations())


def _check_arity(b: CustomBuiltin) -> None:
    import inspect

    try:
        inspect.signature(b.fn).bind(*range(len(b.args)))
    except TypeError:
        raise CustomBuiltinError(f"{b.origin}: the function of {b.name} does not take the {len(b.args)} "
                                 f"declared argument(s)") from None
    except ValueError:  # no signature (a C function): checked when called
        pass


# ----------------------------------------------------------------------------- loading


def _import(spec: str) -> Any:
    """`package.module`, `package.module:attr.path`, or a path to a .py file."""
    import importlib

    target, _, attr = spec.partition(":") if not spec.endswith(".py") else (spec, "", "")
    try:
        if target.endswith(".py"):
            import importlib.util
            import os
            import re

            name = "cupcake_custom_" + re.sub(r"\W", "_", os.path.abspath(target))
            if name in sys.modules:
                obj: Any = sys.modules[name]
            else:
                loader_spec = importlib.util.spec_from_file_location(name, target)
                if loader_spec is None or loader_spec.loader is None:
                    raise ImportError(f"cannot load {target}")
                obj = importlib.util.module_from_spec(loader_spec)
                sys.modules[name] = obj
                try:
                    loader_spec.loader.exec_module(obj)
                except BaseException:
                    del sys.modules[name]
                    raise
        else:
            obj = importlib.import_module(target)
        for part in filter(None, attr.split(".")):
            obj = getattr(obj, part)
    except CupcakeError:
        raise
    except Exception as e:  # noqa: BLE001 - any failure of user code is reported, closed
        raise CustomBuiltinError(f"custom builtins {spec!r} cannot be loaded: {type(e).__name__}: {e}") from None
    return obj


def _from_object(obj: Any, origin: str) -> list[CustomBuiltin]:
    if isinstance(obj, CustomBuiltin):
        found = [obj]
    elif isinstance(getattr(obj, MARK, None), CustomBuiltin):
        found = [getattr(obj, MARK)]
    elif isinstance(obj, list | tuple):
        found = [x for item in obj for x in _from_object(item, origin)]
    else:
        found = _found_in(obj)
    for b in found:
        b.origin = b.origin or origin
    return found


def split_specs(values: Iterable[str]) -> list[str]:
    """`--custom-builtins a,b --custom-builtins c` -> [a, b, c] (order kept, no duplicates)."""
    out: list[str] = []
    for v in values:
        for s in v.split(","):
            s = s.strip()
            if s and s not in out:
                out.append(s)
    return out


def load(specs: Iterable[str], *, entry_points: bool = True) -> CustomBuiltins:
    """Every builtin of the modules `specs` (plus the installed entry points)."""
    wanted = split_specs(specs)
    if entry_points:
        wanted += [s for s in entry_point_specs() if s not in wanted]
    out = CustomBuiltins(sources=wanted)
    for spec in wanted:
        found = _from_object(_import(spec), spec)
        if not found:
            raise CustomBuiltinError(f"custom builtins {spec!r} declare no builtin (use @builtin(...) from "
                                     "cupcake_py.extensions.builtins, or a BUILTINS list)")
        for b in found:
            out.add(b)
    return out


class declared_for:  # noqa: N801 - a context manager used as a function (contextlib stays off a start-up)
    """Load `specs` (plus entry points) and declare them for the block (the commands' --custom-builtins);
    the block gets the CustomBuiltins, None when there are none."""

    def __init__(self, specs: Iterable[str]) -> None:
        self.specs = specs
        self.found: CustomBuiltins | None = None
        self.scope: AbstractContextManager[None] | None = None

    def __enter__(self) -> CustomBuiltins | None:
        found = load(self.specs)
        if not found:
            return None
        self.found, self.scope = found, found.declared()
        self.scope.__enter__()
        return found

    def __exit__(self, *exc: Any) -> bool | None:
        return self.scope.__exit__(*exc) if self.scope is not None else None


def implementations_for(names: Iterable[str], specs: Iterable[str]) -> Mapping[str, Callable[..., Any]]:
    """Host implementations of `names` from the modules `specs` (the eval path: entry points are
    not scanned; `specs` are those the bundle was built with). Fails closed when one is missing."""
    names = sorted(set(names))
    if not names:
        return {}
    specs = list(specs)
    loaded = load(specs, entry_points=False)
    missing = [n for n in names if n not in loaded.items]
    if missing:
        where = ", ".join(specs) or "no custom builtin module"
        raise CustomBuiltinError(f"the policies call custom builtin(s) {', '.join(missing)} that {where} "
                                 "does not provide")
    return {n: loaded.items[n].host_fn() for n in names}
