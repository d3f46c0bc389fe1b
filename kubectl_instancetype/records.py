"""Dataclasses for the modules every hot command imports, without ``dataclasses``' cost at start-up.

``dataclasses.dataclass`` writes the source of ``__init__``, ``__repr__``, ``__eq__``, ``__hash__`` and, when
frozen, ``__setattr__``/``__delattr__`` for each class and compiles each with ``exec`` when the class is defined;
and ``import dataclasses`` imports ``inspect`` (with ``ast``, ``dis``, ``tokenize``, ``linecache``). On CPython
3.11, for the twenty-odd classes a ``list`` or ``create vm`` run defines, that is about a third of the
instructions the whole run executes (callgrind: 42M for the import, 50M for eleven frozen classes, of 307M).

:func:`dataclass` makes the same class from one shared implementation of each method, reading the fields once:
the same fields (annotations in order, a dataclass base's first, ``ClassVar`` left out), defaults and
``field(default_factory=...)``, positional or keyword ``__init__`` and ``__post_init__``, ``Name(a=1, b=2)``
``repr`` (``repr=False`` fields left out), ``==`` by fields between objects of one class, ``frozen`` objects
that refuse assignment with ``dataclasses.FrozenInstanceError``'s words and hash by their fields, unfrozen ones
unhashable (unless the class defines ``__hash__``), as the dataclasses module decides. ``dataclasses.fields``,
``replace``, ``asdict`` and ``is_dataclass`` work on them: ``__dataclass_fields__`` is made, by the
dataclasses module itself, the first time something asks for it. tests/unit/test_records.py compares both
decorators on generated classes, and test_fastpath.py keeps ``dataclasses`` and ``inspect`` off the fast runs.

Use it (``from ..records import dataclass, field``) in a module a hot command imports; elsewhere
``dataclasses`` reads more familiarly and costs nothing that matters.
"""

from __future__ import annotations

import sys
from _thread import get_ident

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, TypeVar, dataclass_transform

    T = TypeVar("T")
else:

    def dataclass_transform(**kwargs):
        return lambda function: function

    class Generic:
        """``typing.Generic`` to type checkers; at run time a plain base, ``Generic[T]`` itself, so that a generic
        record on a hot path (usecases.listing.Listing) imports no ``typing``. Nothing subscripts such a class at
        run time: its type arguments live in annotations, which are strings there."""

        __slots__ = ()

        def __class_getitem__(cls, params: object) -> type:
            return cls


__all__ = ["MISSING", "Field", "FrozenRecordError", "dataclass", "field", "fields", "replace"]


class _Missing:
    __slots__ = ()

    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()


class FrozenRecordError(AttributeError):
    """Assignment to a field of a frozen record (``dataclasses.FrozenInstanceError``'s words)."""


class Field:
    """What :func:`field` declares: a default or a default factory, whether ``__init__`` takes it, whether
    ``repr`` and ``==`` include it."""

    __slots__ = ("compare", "default", "default_factory", "init", "name", "repr", "type")

    def __init__(self, default: Any, default_factory: Any, init: bool, repr: bool, compare: bool):
        if default is not MISSING and default_factory is not MISSING:
            raise ValueError("cannot specify both default and default_factory")
        self.default, self.default_factory = default, default_factory
        self.init, self.repr, self.compare = init, repr, compare
        self.name: str = ""
        self.type: Any = None


def field(
    *,
    default: Any = MISSING,
    default_factory: Callable[[], Any] | Any = MISSING,
    init: bool = True,
    repr: bool = True,
    compare: bool = True,
) -> Any:
    """``dataclasses.field`` for :func:`dataclass` (these parameters only)."""
    return Field(default, default_factory, init, repr, compare)


def _is_class_var(annotation: Any) -> bool:
    if isinstance(annotation, str):  # `from __future__ import annotations`, as dataclasses reads it
        return annotation.startswith(("ClassVar", "typing.ClassVar"))
    typing = sys.modules.get("typing")
    return typing is not None and (
        annotation is typing.ClassVar or getattr(annotation, "__origin__", None) is typing.ClassVar
    )


def _fields_of(cls: type) -> tuple[Field, ...]:
    """The fields of ``cls``: its dataclass bases' (the nearest last), then its own annotations in order."""
    found: dict[str, Field] = {}
    for base in reversed(cls.__mro__[1:-1]):
        for inherited in base.__dict__.get("__record_fields__", ()):
            found[inherited.name] = inherited
    for name, annotation in cls.__dict__.get("__annotations__", {}).items():  # noqa: RUF063 - no inspect here
        if _is_class_var(annotation):
            continue
        if isinstance(annotation, str) and ("InitVar" in annotation or "KW_ONLY" in annotation):
            raise TypeError(f"{cls.__name__}.{name}: records.dataclass has no InitVar or KW_ONLY; use dataclasses")
        declared = cls.__dict__.get(name, MISSING)
        if isinstance(declared, Field):
            spec = declared
            if spec.default is MISSING:
                delattr(cls, name)  # as dataclasses: no class attribute for a field without a default
            else:
                setattr(cls, name, spec.default)
        else:
            if isinstance(declared, (list, dict, set)):
                raise ValueError(
                    f"mutable default {type(declared)} for field {name} is not allowed: use default_factory"
                )
            spec = Field(declared, MISSING, True, True, True)
        spec.name, spec.type = name, annotation
        found[name] = spec
    seen_default = False
    for spec in found.values():
        if not spec.init:
            continue
        if spec.default is MISSING and spec.default_factory is MISSING:
            if seen_default:
                raise TypeError(f"non-default argument {spec.name!r} follows default argument")
        else:
            seen_default = True
    return tuple(found.values())


def _init(self: Any, *args: Any, **kwargs: Any) -> None:
    fields = type(self).__record_init__
    if len(args) > len(fields):
        raise TypeError(
            f"{type(self).__qualname__}.__init__() takes {len(fields) + 1} positional arguments "
            f"but {len(args) + 1} were given"
        )
    setter = object.__setattr__
    for index, spec in enumerate(fields):
        name = spec.name
        if index < len(args):
            if name in kwargs:
                raise TypeError(f"{type(self).__qualname__}.__init__() got multiple values for argument {name!r}")
            value = args[index]
        elif name in kwargs:
            value = kwargs.pop(name)
        elif spec.default is not MISSING:
            value = spec.default
        elif spec.default_factory is not MISSING:
            value = spec.default_factory()
        else:
            raise TypeError(f"{type(self).__qualname__}.__init__() missing 1 required positional argument: {name!r}")
        setter(self, name, value)
    if kwargs:
        raise TypeError(
            f"{type(self).__qualname__}.__init__() got an unexpected keyword argument {next(iter(kwargs))!r}"
        )
    for spec in type(self).__record_derived__:  # init=False fields: their default or factory
        setter(self, spec.name, spec.default_factory() if spec.default_factory is not MISSING else spec.default)
    post_init = getattr(self, "__post_init__", None)
    if post_init is not None:
        post_init()


_repr_running: set[tuple[int, int]] = set()


def _repr(self: Any) -> str:
    key = (id(self), get_ident())
    if key in _repr_running:  # dataclasses' reprlib.recursive_repr
        return "..."
    _repr_running.add(key)
    try:
        shown = ", ".join(f"{spec.name}={getattr(self, spec.name)!r}" for spec in type(self).__record_repr__)
    finally:
        _repr_running.discard(key)
    return f"{type(self).__qualname__}({shown})"


def _values(self: Any) -> tuple[Any, ...]:
    return tuple(getattr(self, spec.name) for spec in type(self).__record_compare__)


def _eq(self: Any, other: Any) -> Any:
    if other.__class__ is self.__class__:
        return _values(self) == _values(other)
    return NotImplemented


def _hash(self: Any) -> int:
    return hash(_values(self))


def _frozen_setattr(self: Any, name: str, value: Any) -> None:
    cls = type(self)
    if cls is self.__record_class__ or name in cls.__record_names__:
        raise FrozenRecordError(f"cannot assign to field {name!r}")
    super(self.__record_class__, self).__setattr__(name, value)


def _frozen_delattr(self: Any, name: str) -> None:
    cls = type(self)
    if cls is self.__record_class__ or name in cls.__record_names__:
        raise FrozenRecordError(f"cannot delete field {name!r}")
    super(self.__record_class__, self).__delattr__(name)


class _Twin:
    """``__dataclass_fields__`` and ``__dataclass_params__``, made on first use by ``dataclasses`` itself, from a
    twin of the class that it decorates: what ``dataclasses.fields``, ``replace``, ``asdict``, ``is_dataclass``
    and a dataclass subclass read."""

    def __init__(self, attribute: str):
        self.attribute = attribute

    def __get__(self, instance: Any, owner: type) -> Any:
        twin = owner.__dict__.get("__record_twin__")
        if twin is None:
            import dataclasses

            namespace: dict[str, Any] = {"__annotations__": {}}
            for spec in owner.__record_fields__:  # type: ignore[attr-defined]
                namespace["__annotations__"][spec.name] = spec.type
                namespace[spec.name] = dataclasses.field(
                    default=dataclasses.MISSING if spec.default is MISSING else spec.default,
                    default_factory=dataclasses.MISSING if spec.default_factory is MISSING else spec.default_factory,
                    init=spec.init,
                    repr=spec.repr,
                    compare=spec.compare,
                )
            twin = dataclasses.dataclass(frozen=owner.__record_frozen__)(type(owner.__name__, (), namespace))  # type: ignore[attr-defined]
            type.__setattr__(owner, "__record_twin__", twin)
        return twin.__dict__[self.attribute]


@dataclass_transform(field_specifiers=(field,))
def dataclass(cls: type[T] | None = None, /, *, frozen: bool = False, eq: bool = True) -> Any:
    """``dataclasses.dataclass`` (``frozen`` and ``eq`` only), without generating code: see the module's doc."""

    def make(cls: type[T]) -> type[T]:
        fields = _fields_of(cls)
        own = cls.__dict__
        explicit_hash = "__hash__" in own and not (own["__hash__"] is None and "__eq__" in own)
        added: dict[str, Any] = {
            "__record_class__": cls,
            "__record_frozen__": frozen,
            "__record_fields__": fields,
            "__record_names__": frozenset(spec.name for spec in fields),
            "__record_init__": tuple(spec for spec in fields if spec.init),
            "__record_derived__": tuple(spec for spec in fields if not spec.init),
            "__record_repr__": tuple(spec for spec in fields if spec.repr),
            "__record_compare__": tuple(spec for spec in fields if spec.compare),
            "__dataclass_fields__": _Twin("__dataclass_fields__"),
            "__dataclass_params__": _Twin("__dataclass_params__"),
            "__match_args__": tuple(spec.name for spec in fields if spec.init),
        }
        for name, method in (("__init__", _init), ("__repr__", _repr), ("__eq__", _eq)):
            if name not in own and (eq or name != "__eq__"):
                added[name] = method
        if frozen:
            if "__setattr__" in own or "__delattr__" in own:
                raise TypeError(f"Cannot overwrite attribute __setattr__ or __delattr__ in class {cls.__name__}")
            added["__setattr__"], added["__delattr__"] = _frozen_setattr, _frozen_delattr
        # dataclasses' hash action table (unsafe_hash=False): eq and frozen add one; eq alone makes the class
        # unhashable; an explicit __hash__ is kept
        if eq and not explicit_hash:
            added["__hash__"] = _hash if frozen else None
        for name, value in added.items():
            setattr(cls, name, value)
        return cls

    return make if cls is None else make(cls)


def fields(class_or_record: Any) -> tuple[Field, ...]:
    """``dataclasses.fields`` of a record class or object (its fields in order, ``init=False`` ones included),
    without importing dataclasses."""
    cls = class_or_record if isinstance(class_or_record, type) else type(class_or_record)
    return cls.__record_fields__  # type: ignore[attr-defined]


def replace(obj: T, /, **changes: Any) -> T:
    """``dataclasses.replace`` for a record: a new object with ``changes``, the other fields as ``obj`` has them
    (fields that ``__init__`` does not take cannot be changed; they get their default again, and
    ``__post_init__`` runs)."""
    cls = type(obj)
    for spec in cls.__record_derived__:  # type: ignore[attr-defined]
        if spec.name in changes:
            raise ValueError(f"field {spec.name} is declared with init=False, it cannot be specified with replace()")
    for spec in cls.__record_init__:  # type: ignore[attr-defined]
        if spec.name not in changes:
            changes[spec.name] = getattr(obj, spec.name)
    return cls(**changes)
