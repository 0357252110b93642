"""Data classes declared as with `dataclasses.dataclass`, without generating code at import.

`dataclasses` writes the source of `__init__`, `__repr__`, `__eq__`, `__hash__` and the frozen
`__setattr__`/`__delattr__` of every class and compiles it (`exec`) each time the module is
imported: about half a millisecond per class, ~40 ms for the ~100 node classes the compiler
loads before a first `cupcake test` or build. Here `__init__` is a copy of a template code
object for the number of fields, given the class's argument names and defaults (the
signature `dataclasses` would write, and as fast; the templates ship in core/slotted_inits.py,
written by `python -m cupcake_py.core.slotted`), and the other methods are shared
functions closed over the class's field table, so defining a class costs a few microseconds
and instances behave the same.

In: a class whose annotations are its fields (`ClassVar` annotations are not), with
defaults as class attributes or `field(default=…, default_factory=…, compare=…, repr=…,
kw_only=…)`; the decorator's `frozen`, `slots`, `kw_only`, `eq`, `repr` and `init` mean what
they mean for `dataclasses.dataclass` (fields of slotted bases come first; a method the
class defines itself is kept). Out: the class (a new one when `slots=True`) with
`__init__` (positional fields, then keyword-only ones; factories called per instance),
`__repr__` (`Name(a=1, b=…)`), `__eq__` (same class and equal compared fields), `__hash__`
(frozen and eq: hash of the compared fields' tuple; eq and not frozen: unhashable),
`__match_args__`, frozen assignment raising `FrozenInstanceError`, and pickling of frozen
slotted instances. `fields`, `replace` and `is_slotted` stand in for `dataclasses.fields`,
`dataclasses.replace` and `dataclasses.is_dataclass`. Unsupported options (`order`,
`unsafe_hash`, `InitVar`, `KW_ONLY`) are not accepted: TypeError at class definition.
Wrong constructor arguments raise TypeError, as a generated `__init__` would.
"""

from __future__ import annotations

from operator import attrgetter
from types import CodeType, FunctionType

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, TypeVar, dataclass_transform

    _T = TypeVar("_T")
else:
    def dataclass_transform(**_: object) -> object:  # (typing stays off the import: it only informs mypy)
        return lambda f: f

_MISSING: Any = object()
_FACTORY: Any = object()  # the default of a field with a default_factory: called per instance
_set = object.__setattr__
FIELDS = "__slotted_fields__"


class FrozenInstanceError(AttributeError):
    """Assignment to a field of a frozen instance."""


class Field:
    __slots__ = ("name", "default", "default_factory", "compare", "repr", "kw_only")

    def __init__(self, default: Any, default_factory: Any, compare: bool, repr: bool, kw_only: Any) -> None:
        if default is not _MISSING and default_factory is not _MISSING:
            raise TypeError("a field cannot have both a default and a default_factory")
        self.name = ""
        self.default, self.default_factory = default, default_factory
        self.compare, self.repr, self.kw_only = compare, repr, kw_only

    def __repr__(self) -> str:
        return f"Field(name={self.name!r})"


def field(*, default: Any = _MISSING, default_factory: Any = _MISSING, compare: bool = True, repr: bool = True,
          kw_only: Any = _MISSING) -> Any:
    return Field(default, default_factory, compare, repr, kw_only)


def fields(obj_or_class: Any) -> tuple[Field, ...]:
    got: tuple[Field, ...] | None = getattr(obj_or_class, FIELDS, None)
    if got is None:
        raise TypeError(f"{obj_or_class!r} is not a slotted data class or instance")
    return got


def is_slotted(obj: Any) -> bool:
    """An instance (not a class) of a class made by `dataclass` here."""
    return not isinstance(obj, type) and hasattr(type(obj), FIELDS)


def replace(obj: _T, /, **changes: Any) -> _T:
    """A new instance with the fields of `obj`, `changes` applied (through `__init__`)."""
    for f in fields(obj):
        if f.name not in changes:
            changes[f.name] = getattr(obj, f.name)
    return type(obj)(**changes)


def _is_classvar(annotation: Any) -> bool:
    text = annotation if isinstance(annotation, str) else repr(annotation)
    return text.startswith(("ClassVar", "typing.ClassVar"))


def _collect(cls: type, kw_only: bool) -> list[Field]:
    found: dict[str, Field] = {}
    for base in reversed(cls.__mro__[1:]):
        for f in base.__dict__.get(FIELDS, ()):
            found[f.name] = f
    for name, annotation in cls.__dict__.get("__annotations__", {}).items():
        if _is_classvar(annotation):
            continue
        if isinstance(annotation, str) and annotation.startswith(("InitVar", "KW_ONLY", "dataclasses.")):
            raise TypeError(f"{cls.__name__}.{name}: {annotation} is not supported by slotted data classes")
        value = cls.__dict__.get(name, _MISSING)
        f = value if isinstance(value, Field) else Field(value, _MISSING, True, True, _MISSING)
        if isinstance(f.default, list | dict | set):
            raise ValueError(f"mutable default {type(f.default)} for field {name} is not allowed: use default_factory")
        f.name = name
        if f.kw_only is _MISSING:
            f.kw_only = kw_only
        found.pop(name, None)
        found[name] = f
    return list(found.values())


SHIPPED_INITS = 16  # core/slotted_inits.py holds the templates of up to this many fields


def init_template_source(n: int, frozen: bool, checked: bool) -> str:
    """The source of the `__init__` template for `n` fields: argument i is stored in the field
    (a placeholder attribute `_attr<i>`, renamed per class; when frozen, through
    `object.__setattr__` and the global `_n<i>` naming it), or, `checked`, `_g<i>()` when the
    argument is the default-factory marker `_F`."""
    name = f"{'frozen' if frozen else 'plain'}{'_checked' if checked else ''}_{n}"
    lines = [f"def {name}(self: Any{''.join(f', f{i}: Any' for i in range(n))}) -> None:"]
    for i in range(n):
        value = f"f{i} if f{i} is not _F else _g{i}()" if checked else f"f{i}"
        lines.append(f"    _set(self, _n{i}, {value})" if frozen else f"    self._attr{i} = {value}")
    return "\n".join(lines if n else [*lines, "    pass"]) + "\n"


def init_templates_module() -> str:
    """The text of core/slotted_inits.py (`python -m cupcake_py.core.slotted` writes it)."""
    head = ('"""Generated by `python -m cupcake_py.core.slotted`: do not edit. The `__init__` templates of\n'
            'core/slotted.py for up to SHIPPED_INITS fields, so that no class costs a compile at import\n'
            '(their names are globals of the function each class makes from them)."""\n\n'
            "# ruff: noqa: F821\n\nfrom __future__ import annotations\n\nTYPE_CHECKING = False\nif TYPE_CHECKING:\n"
            "    from typing import Any\n\n    _set: Any\n    _F: Any\n"
            + "".join(f"    _n{i}: Any\n    _g{i}: Any\n" for i in range(SHIPPED_INITS)))
    parts = [init_template_source(n, frozen, checked)
             for frozen in (False, True) for checked in (False, True) for n in range(SHIPPED_INITS + 1)]
    return head + "\n\n" + "\n\n".join(parts)


_TEMPLATES: dict[tuple[int, bool, bool], CodeType] = {}


def _template(n: int, frozen: bool, checked: bool) -> CodeType:
    """The code of the `__init__` template (`init_template_source`): from core/slotted_inits.py,
    or compiled once per shape beyond its SHIPPED_INITS fields. Each class gets a copy with its
    own names (`_make_init`), so a class costs no compile."""
    key = (n, frozen, checked)
    code = _TEMPLATES.get(key)
    if code is None:
        name = f"{'frozen' if frozen else 'plain'}{'_checked' if checked else ''}_{n}"
        if n <= SHIPPED_INITS:
            from cupcake_py.core import slotted_inits

            code = getattr(slotted_inits, name).__code__
        else:
            namespace: dict[str, Any] = {}
            exec(compile(init_template_source(n, frozen, checked), "<slotted __init__>", "exec"), namespace)  # noqa: S102
            code = namespace[name].__code__
        _TEMPLATES[key] = code
    return code


def _make_init(qualname: str, flds: list[Field], frozen: bool) -> Callable[..., None]:
    """`__init__(self, <positional fields>, *, <keyword-only fields>)` with the fields' defaults,
    as `dataclasses` writes it (the same signature, so the same binding and errors)."""
    order = [f for f in flds if not f.kw_only] + [f for f in flds if f.kw_only]
    n_pos = sum(1 for f in order if not f.kw_only)
    scope: dict[str, Any] = {"_set": _set, "_F": _FACTORY}
    positional_defaults: list[Any] = []
    kw_defaults: dict[str, Any] = {}
    for i, f in enumerate(order):
        scope[f"_n{i}"] = f.name
        scope[f"_g{i}"] = f.default_factory
        default = _FACTORY if f.default_factory is not _MISSING else f.default
        if i >= n_pos:
            if default is not _MISSING:
                kw_defaults[f.name] = default
        elif default is not _MISSING:
            positional_defaults.append(default)
        elif positional_defaults:
            raise TypeError(f"{qualname}: field {f.name!r} without a default follows one with a default")
    code = _template(len(order), frozen, any(f.default_factory is not _MISSING for f in order))
    attrs = {f"_attr{i}": f.name for i, f in enumerate(order)}
    code = code.replace(co_varnames=("self", *(f.name for f in order)), co_names=tuple(attrs.get(x, x) for x in code.co_names),
                        co_argcount=1 + n_pos, co_kwonlyargcount=len(order) - n_pos, co_name="__init__",
                        co_qualname=f"{qualname}.__init__")
    init = FunctionType(code, scope, "__init__", tuple(positional_defaults) or None)
    init.__kwdefaults__ = kw_defaults or None
    init.__qualname__ = f"{qualname}.__init__"
    return init


def _getter(names: tuple[str, ...]) -> Callable[[Any], tuple[Any, ...]]:
    """The tuple of the named fields (attrgetter gives a bare value for one name)."""
    if len(names) >= 2:
        return attrgetter(*names)
    if names:
        one = attrgetter(names[0])
        return lambda obj: (one(obj),)
    return lambda obj: ()


def _methods(cls: type, flds: list[Field], frozen: bool, eq: bool, repr_: bool, init: bool) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if init:
        out["__init__"] = _make_init(cls.__qualname__, flds, frozen)
    if repr_:
        shown = tuple(f.name for f in flds if f.repr)

        def __repr__(self: Any) -> str:
            return f"{type(self).__qualname__}({', '.join(f'{n}={getattr(self, n)!r}' for n in shown)})"

        out["__repr__"] = __repr__
    compared = _getter(tuple(f.name for f in flds if f.compare))
    if eq:
        def __eq__(self: Any, other: Any) -> Any:
            if other.__class__ is self.__class__:
                return compared(self) == compared(other)
            return NotImplemented

        out["__eq__"] = __eq__
        own_hash = cls.__dict__.get("__hash__", _MISSING)
        if own_hash is _MISSING or own_hash is None and "__eq__" in cls.__dict__:  # not defined by the class
            out["__hash__"] = (lambda self: hash(compared(self))) if frozen else None
    if frozen:
        def __setattr__(self: Any, name: str, value: Any) -> None:
            raise FrozenInstanceError(f"cannot assign to field {name!r}")

        def __delattr__(self: Any, name: str) -> None:
            raise FrozenInstanceError(f"cannot delete field {name!r}")

        out["__setattr__"], out["__delattr__"] = __setattr__, __delattr__
    return out


def _frozen_getstate(self: Any) -> list[Any]:
    return [getattr(self, f.name) for f in getattr(self, FIELDS)]


def _frozen_setstate(self: Any, state: list[Any]) -> None:
    for f, value in zip(getattr(self, FIELDS), state, strict=True):
        _set(self, f.name, value)


@dataclass_transform(field_specifiers=(field, Field))
def dataclass(cls: Any = None, /, *, frozen: bool = False, slots: bool = False, kw_only: bool = False,
              eq: bool = True, repr: bool = True, init: bool = True, match_args: bool = True) -> Any:
    """`dataclasses.dataclass` for the options above (see the module docstring)."""

    def wrap(cls: type) -> type:
        flds = _collect(cls, kw_only)
        own = cls.__dict__.get("__annotations__", {})
        body = {k: v for k, v in cls.__dict__.items() if k not in ("__dict__", "__weakref__")}
        for f in flds:  # a default is the class attribute (without slots) or lives in the Field
            if f.name in own and f.name in body:
                if slots or f.default is _MISSING:
                    del body[f.name]
                else:
                    body[f.name] = f.default
        if frozen and ("__setattr__" in body or "__delattr__" in body):
            raise TypeError(f"frozen {cls.__name__} cannot define __setattr__ or __delattr__")
        for name, method in _methods(cls, flds, frozen, eq, repr, init).items():
            if name not in cls.__dict__ or name == "__hash__":
                body[name] = method
        body[FIELDS] = tuple(flds)
        if match_args and "__match_args__" not in body:
            body["__match_args__"] = tuple(f.name for f in flds if not f.kw_only)
        if slots:
            if "__slots__" in cls.__dict__:
                raise TypeError(f"{cls.__name__} already specifies __slots__")
            inherited = {f.name for b in cls.__mro__[1:] for f in b.__dict__.get(FIELDS, ())}
            body["__slots__"] = tuple(f.name for f in flds if f.name not in inherited)
            if frozen:
                body["__getstate__"], body["__setstate__"] = _frozen_getstate, _frozen_setstate
            made: type = type(cls)(cls.__name__, cls.__bases__, body)
            made.__qualname__ = cls.__qualname__
            return made
        for name in [k for k in cls.__dict__ if k not in body and k not in ("__dict__", "__weakref__")]:
            delattr(cls, name)
        for name, value in body.items():
            if cls.__dict__.get(name, _MISSING) is not value:
                setattr(cls, name, value)
        return cls

    return wrap if cls is None else wrap(cls)


if __name__ == "__main__":
    from pathlib import Path

    Path(__file__).with_name("slotted_inits.py").write_text(init_templates_module())
