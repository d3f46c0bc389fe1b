"""records.dataclass behaves as dataclasses.dataclass on the same class (kubectl_instancetype/records.py).

Each case declares one class body twice, once under each decorator, and compares what the classes do: the
``__init__`` they accept and refuse, ``repr``, ``==``, hashing, frozen assignment, ``__post_init__``, and what
``dataclasses.fields``/``replace``/``asdict`` read from them. Generated field lists (hypothesis) cover the
shapes: with and without defaults, factories, ``init=False``, ``repr=False``, ``compare=False``.
"""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from typing import Any, ClassVar, Generic, TypeVar

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kubectl_instancetype import records

T = TypeVar("T")


def twins(body: dict[str, Any], annotations: dict[str, Any], **params: Any) -> tuple[type, type]:
    """(the stdlib dataclass, the record) of one class body; ``body`` values may be ("field", kwargs)."""

    def make(decorator: Any, field: Any) -> type:
        namespace: dict[str, Any] = {"__annotations__": dict(annotations)}
        for name, value in body.items():
            namespace[name] = field(**value[1]) if isinstance(value, tuple) and value[:1] == ("field",) else value
        return decorator(**params)(type("Shape", (), namespace))

    return make(dataclasses.dataclass, dataclasses.field), make(records.dataclass, records.field)


def outcome(action: Any) -> tuple[str, Any]:
    try:
        return ("ok", action())
    except (records.FrozenRecordError, dataclasses.FrozenInstanceError) as exc:
        return ("frozen", str(exc))
    except Exception as exc:
        return (type(exc).__name__, "")


FIELD_KINDS = st.sampled_from(["required", "default", "factory", "no-init", "no-repr", "no-compare"])


@settings(max_examples=150, deadline=None)
@given(kinds=st.lists(FIELD_KINDS, max_size=5), frozen=st.booleans(), values=st.lists(st.integers(0, 3), max_size=6))
def test_generated_classes_behave_alike(kinds: list[str], frozen: bool, values: list[int]) -> None:
    annotations, body = {}, {}
    for index, kind in enumerate(kinds):
        name = f"f{index}"
        annotations[name] = "int"
        if kind == "default":
            body[name] = index
        elif kind == "factory":
            body[name] = ("field", {"default_factory": lambda index=index: index * 10})
        elif kind == "no-init":
            body[name] = ("field", {"init": False, "default": 7})
        elif kind == "no-repr":
            body[name] = ("field", {"default": 1, "repr": False})
        elif kind == "no-compare":
            body[name] = ("field", {"default": 2, "compare": False})
    made = outcome(lambda: twins(body, annotations, frozen=frozen))
    if made[0] != "ok":
        return
    classes = made[1]
    objects = [outcome(lambda cls=cls: cls(*values)) for cls in classes]
    assert objects[0][0] == objects[1][0], (kinds, values, objects)
    keyword = {f"f{i}": v for i, v in enumerate(values)}
    by_keyword = [outcome(lambda cls=cls: cls(**keyword)) for cls in classes]
    assert by_keyword[0][0] == by_keyword[1][0]
    if objects[0][0] != "ok":
        return
    ours, theirs = objects[1][1], objects[0][1]
    assert repr(ours) == repr(theirs)
    assert (ours == classes[1](*values)) == (theirs == classes[0](*values))
    assert outcome(lambda: hash(ours))[0] == outcome(lambda: hash(theirs))[0]
    if frozen and kinds:
        assert outcome(lambda: setattr(ours, "f0", 1)) == outcome(lambda: setattr(theirs, "f0", 1))
        assert outcome(lambda: delattr(ours, "f0")) == outcome(lambda: delattr(theirs, "f0"))
    assert [f.name for f in dataclasses.fields(ours)] == [f.name for f in dataclasses.fields(theirs)]
    assert [f.name for f in records.fields(ours)] == [f.name for f in dataclasses.fields(theirs)]
    assert [f.name for f in records.fields(type(ours))] == [f.name for f in dataclasses.fields(theirs)]
    assert dataclasses.asdict(ours) == dataclasses.asdict(theirs)
    assert ours.__match_args__ == theirs.__match_args__
    changes = {f.name: 3 for f in dataclasses.fields(theirs) if f.init}
    assert repr(dataclasses.replace(ours, **changes)) == repr(dataclasses.replace(theirs, **changes))
    assert repr(records.replace(ours, **changes)) == repr(dataclasses.replace(theirs, **changes))


def test_the_frozen_error_reads_as_dataclasses_and_is_an_attribute_error() -> None:
    stdlib, ours = twins({"a": 1}, {"a": "int"}, frozen=True)
    with pytest.raises(dataclasses.FrozenInstanceError) as theirs_error:
        stdlib().a = 2
    with pytest.raises(AttributeError) as our_error:
        ours().a = 2
    assert str(our_error.value) == str(theirs_error.value) == "cannot assign to field 'a'"


def test_mutable_defaults_and_order_of_defaults_are_refused_alike() -> None:
    assert outcome(lambda: twins({"a": []}, {"a": "list"})[1])[0] == "ValueError"
    assert outcome(lambda: twins({"a": 1}, {"a": "int", "b": "int"})[1])[0] == "TypeError"
    with pytest.raises(ValueError):
        records.field(default=1, default_factory=list)


def test_class_vars_post_init_inheritance_and_explicit_hash() -> None:
    @records.dataclass(frozen=True)
    class Base:
        kinds: ClassVar[tuple[str, ...]] = ("a",)
        a: int = 0

    @records.dataclass(frozen=True)
    class Child(Base):
        b: int = 1

        def __post_init__(self) -> None:
            object.__setattr__(self, "b", self.b * 2)

    child = Child(5, 3)
    assert (repr(child), child.kinds, Base.__match_args__) == (
        "test_class_vars_post_init_inheritance_and_explicit_hash.<locals>.Child(a=5, b=6)",
        ("a",),
        ("a",),
    )
    assert child != Base(5) and Child(5, 3) == child and hash(Child(5, 3)) == hash(child)

    @records.dataclass
    class Mutable:
        a: int = 0

    @records.dataclass
    class Hashed:
        a: int = 0

        def __hash__(self) -> int:
            return 42

    assert Mutable.__hash__ is None and hash(Hashed()) == 42
    mutable = Mutable()
    mutable.a = 3
    assert mutable == Mutable(3)

    @dataclasses.dataclass(frozen=True)
    class StdlibChild(Base):  # a stdlib dataclass on a record reads its fields and its frozen flag
        c: int = 2

    assert repr(StdlibChild(1, 2)).endswith("StdlibChild(a=1, c=2)")


def test_a_generic_frozen_record_is_made_through_its_alias() -> None:
    @records.dataclass(frozen=True)
    class Box(Generic[T]):
        item: T

    assert Box[int](3).item == 3  # typing sets __orig_class__ and takes the AttributeError as dataclasses' one


def test_fast_runs_import_neither_dataclasses_nor_inspect(tmp_path) -> None:
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text(
        "apiVersion: v1\nkind: Config\ncurrent-context: c\n"
        "clusters:\n- name: c\n  cluster:\n    server: https://127.0.0.1:1\n    insecure-skip-tls-verify: true\n"
        "users:\n- name: u\n  user:\n    token: t\n"
        "contexts:\n- name: c\n  context:\n    cluster: c\n    user: u\n"
    )
    lines = {
        "list": ["list", "--scope=cluster", "--cpu", "4"],  # refused connection: the whole path up to the socket
        "describe": ["describe", "vmcf/u1.medium"],
        "create vm": ["create", "vm", "--name", "x", "--instancetype", "u1.medium", "--dry-run=client", "-o", "yaml", "--skip-checks"],
        "version": ["version", "--client"],
    }  # fmt: skip
    for name, argv in lines.items():
        code = (
            "import io, sys; from kubectl_instancetype.cli.main import run;"
            "from kubectl_instancetype.env import Environment;"
            f"run({argv!r}, Environment(stdout=io.StringIO(), stderr=io.StringIO(),"
            f" environ={{'HOME': {str(tmp_path)!r}, 'KUBECONFIG': {str(kubeconfig)!r}}}));"
            "print(sorted({'dataclasses', 'inspect', 'typer'} & set(sys.modules)))"
        )
        result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
        assert result.stdout.strip() == "[]", (name, result.stdout, result.stderr)
