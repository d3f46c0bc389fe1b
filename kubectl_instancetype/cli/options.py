"""The flags commands share, declared once, and typed options: one dataclass per command.

kubectl gives each command an ``XOptions`` struct, filled from its flags, checked by ``Validate()`` and run by
``Run()`` with one ``cmdutil.Factory`` (k8s.io/kubectl/pkg/cmd/get/get.go); flag groups shared by several
commands (``genericclioptions.ConfigFlags``, ``PrintFlags``) are declared once and added to each. Here:

- an options class is a dataclass whose fields are flags (``Annotated[T, Option(...)]`` or
  ``typer.Argument``) or flag groups (a field whose type is another such dataclass, e.g.
  :class:`ConnectionFlags`); ``validate()`` checks the values (pure: no I/O, raises :class:`UsageError`) and
  fills the fields declared with ``init=False`` from them (kubectl's ``Complete``: ``vm/NAME`` -> NAME); an
  optional ``warnings()`` returns the lines pflag prints while parsing (deprecated flags);
- :func:`command` makes the Typer command of an options class: the signature is the fields in order, groups
  flattened (so help, completion and parsing stay Typer's); on a run :func:`invoke` fills one options object,
  sets the verbosity, validates, builds the :class:`~..kube.session.Session` when the options have connection
  flags, and calls ``run(env, options[, session])``.

A flag is declared with :class:`Option` / :class:`Argument` (``typer.Option``'s and ``typer.Argument``'s
arguments, kept as data): importing a command module imports no Typer, which :func:`command` turns them into
only when the Typer app is built. The hot commands' fast path (:mod:`.fastpath`) runs the same options classes
without Typer at all. ``typer.Option`` itself still works in annotations.

The annotations of an options class may be objects (most command modules) or strings (``from __future__ import
annotations``: this module and the hot commands' ``list_options`` and ``list``, so that a ``list`` run evaluates
none of its 59 flags' declarations and imports no ``typing``). A string is evaluated in its module only when the
Typer app is built (:meth:`OptionField.annotation`; Typer gets the same objects either way); a run without Typer
only needs to know which fields are flag groups, and a group's annotation is a (dotted) name, looked up
(:meth:`OptionField.group`). Such a module spells ``X | None``, not ``X | None``: its annotations are evaluated
with its own names only.

The connection flags exist on every command that talks to a cluster: kubectl does not pass its own global
flags to plugins, so each command parses them itself.
"""

from __future__ import annotations

import sys

from ..errors import UsageError
from ..instancetype import kinds as type_kinds
from ..records import MISSING as _MISSING
from ..records import Field, field

# dataclasses and inspect are imported only when the Typer app is built (or an options class is a real
# dataclass): dataclasses imports inspect, and both cost a hot command more than its own work
TYPE_CHECKING = False
if TYPE_CHECKING:
    import inspect
    from collections.abc import Callable, Sequence
    from dataclasses import field as _dataclass_field
    from typing import Any, dataclass_transform
else:
    _dataclass_field = None

    def dataclass_transform(**kwargs):
        return lambda function: function


if TYPE_CHECKING:
    from typing import Annotated as Annotated
else:

    class Annotated:
        """``Annotated[T, Option(...)]`` of the options classes, at run time: the type and the metadata (as
        ``__origin__`` and ``__metadata__``, the attributes typing's alias has) without typing's alias machinery,
        which cost a ``list`` run 5.5M instructions (3%) for its 59 flags. Type checkers see ``typing.Annotated``;
        :func:`typer_annotation` makes typing's, with Typer's objects, when the Typer app is built. A command
        module takes ``Annotated`` from here (``typing.Annotated`` works too, at that cost)."""

        __slots__ = ("__metadata__", "__origin__")

        def __class_getitem__(cls, params: tuple) -> Annotated:
            declared = object.__new__(cls)
            declared.__origin__, declared.__metadata__ = params[0], tuple(params[1:])
            return declared

        def __repr__(self) -> str:
            return f"Annotated[{self.__origin__!r}, {', '.join(map(repr, self.__metadata__))}]"


CONNECTION_PANEL = "Connection"


class Option:
    """``typer.Option(*decls, **kwargs)`` as data: :meth:`typer` makes the Typer object when the app is built."""

    __slots__ = ("decls", "kwargs")

    def __init__(self, *decls: Any, **kwargs: Any):
        self.decls, self.kwargs = decls, kwargs

    def typer(self) -> Any:
        """The ``typer.Option`` these arguments declare (a :class:`FlagType` becomes its Click type)."""
        import typer

        return typer.Option(*self.decls, **_click_kwargs(self.kwargs))


class Argument(Option):
    """``typer.Argument(*decls, **kwargs)`` as data."""

    __slots__ = ()

    def typer(self) -> Any:
        """The ``typer.Argument`` these arguments declare."""
        import typer

        return typer.Argument(*self.decls, **_click_kwargs(self.kwargs))


def _click_kwargs(kwargs: dict[str, Any]) -> dict[str, Any]:
    kind = kwargs.get("click_type")
    return {**kwargs, "click_type": kind.click_type()} if isinstance(kind, FlagType) else kwargs


def typer_annotation(annotation: Any) -> Any:
    """``annotation`` with its :class:`Option`/:class:`Argument` metadata made Typer's (and a
    :class:`FlagType` given to ``typer.Option`` made a Click type); anything else is returned as it is."""
    metadata = getattr(annotation, "__metadata__", None)
    if not metadata:
        return annotation
    import typing

    converted = []
    for item in metadata:
        if isinstance(item, Option):
            item = item.typer()
        elif isinstance(getattr(item, "click_type", None), FlagType):  # Option(click_type=GO_INT)
            item.click_type = item.click_type.click_type()
        converted.append(item)
    return typing.Annotated[(annotation.__origin__, *converted)]


def flag_names(param: Any) -> str:
    """pflag's spelling of an option in messages: ``"-n, --namespace"``, or the long name alone."""
    opts = list(getattr(param, "opts", []) or [])
    short = [o for o in opts if len(o) == 2 and o[0] == "-" and o[1] != "-"]
    long = [o for o in opts if o.startswith("--")]
    if short and long:
        return f"{short[0]}, {long[0]}"
    return (long or short or [getattr(param, "name", "") or ""])[0]


class FlagType:
    """A flag value type of the plugin's own (pflag's rules), usable without Click: :meth:`convert` parses a
    value for the flag spelled ``flag``; :meth:`click_type` is the Click parameter type Typer uses."""

    name = "text"
    _click: Any = None

    def convert(self, value: object, flag: str) -> Any:
        """The value, or the :class:`UsageError` pflag would print."""
        raise NotImplementedError

    def click_type(self) -> Any:
        """This type as a Click ``ParamType`` (made once, when a Typer app is first built)."""
        if self._click is None:
            from typer._click.types import ParamType

            outer = self

            class Wrapped(ParamType):
                name = outer.name

                def convert(self, value: object, param: Any, ctx: object) -> Any:
                    return outer.convert(value, flag_names(param))

            Wrapped.__name__ = Wrapped.__qualname__ = type(self).__name__
            self._click = Wrapped()
        return self._click


class GoInt(FlagType):
    """pflag's int flag: ``strconv.ParseInt(value, 0, 64)`` (0x10 is 16; full-width digits are refused),
    with pflag's ``invalid argument "x" for "--cpu" flag: strconv.ParseInt: ...`` message."""

    name = "integer"

    def convert(self, value: object, flag: str) -> int:
        """Parse ``value`` as pflag would, or raise the usage error pflag would print."""
        if isinstance(value, int):
            return value
        from ..golang.strconv import GoNumError, go_parse_int

        try:
            return go_parse_int(str(value))
        except GoNumError as exc:
            raise UsageError(f'invalid argument "{value}" for "{flag}" flag: {exc}') from None


class NonBlank(FlagType):
    """A name or quantity flag: an empty or blank value is a usage error that names the flag, never "unset"."""

    name = "text"

    def convert(self, value: object, flag: str) -> str:
        """Return ``value``, refusing "" and blanks."""
        text = str(value)
        if not text.strip():
            raise UsageError(f'invalid argument "{text}" for "{flag}" flag: must not be empty')
        return text


GO_INT = GoInt()
NON_BLANK = NonBlank()


# ---- flag declarations, each shape once ------------------------------------------------------------------
# A command's field is ``name: Annotated[T, <one of these>] = default``; the help text is the command's own.


def text_option(*names: str, metavar: str, help: str, panel: str | None = None) -> Any:
    """A flag with a value that must not be blank (a name, a quantity, a selector)."""
    return Option(*names, click_type=NON_BLANK, metavar=metavar, help=help, rich_help_panel=panel, show_default=False)


def int_option(*names: str, metavar: str, help: str, panel: str | None = None) -> Any:
    """A flag with an integer value, parsed as pflag's int flag (:class:`GoInt`)."""
    return Option(*names, click_type=GO_INT, metavar=metavar, help=help, rich_help_panel=panel, show_default=False)


def path_option(*names: str, metavar: str, help: str, panel: str | None = None) -> Any:
    """A flag with a value taken as given (a file, a path; "" is a value)."""
    return Option(*names, metavar=metavar, help=help, rich_help_panel=panel, show_default=False)


def value_option(*names: str, metavar: str, help: str, panel: str | None = None) -> Any:
    """A flag with a value and a default the help shows (``--window DURATION ... [default: 14d]``)."""
    return Option(*names, metavar=metavar, help=help, rich_help_panel=panel)


def string_option(*names: str, help: str) -> Any:
    """A flag with a text value and no metavar (virtctl's string flags: ``--size string``)."""
    return Option(*names, help=help, show_default=False)


def bool_option(*names: str, help: str, panel: str | None = None) -> Any:
    """A boolean flag."""
    return Option(*names, help=help, rich_help_panel=panel)


def file_option(help: str, *more: str, panel: str | None = None) -> Any:
    """``-f/--filename FILE`` (``more``: further spellings, e.g. ``--file``)."""
    return path_option("-f", "--filename", *more, metavar="FILE", help=help, panel=panel)


def reference_option(flag: str, help: str) -> Any:
    """``--instancetype`` / ``--preference`` ``[KIND/]NAME``: an instance type or preference, by name."""
    return text_option(flag, metavar="[KIND/]NAME", help=help)


def all_namespaces_option(help: str) -> Any:
    """kubectl's ``-A/--all-namespaces``."""
    return bool_option("-A", "--all-namespaces", help=help)


def vm_argument(help: str = "A stored VirtualMachine.") -> Any:
    """The optional ``[vm/NAME]`` argument (see :func:`vm_target`)."""
    return Argument(metavar="[vm/NAME]", help=help, show_default=False)


def vm_arguments(help: str) -> Any:
    """Optional ``vm/NAME`` arguments, any number (``[vm/NAME ...]``; each through :func:`vm_target`)."""
    return Argument(metavar="[vm/NAME ...]", help=help, show_default=False)


def output_option(help: str, **extra: Any) -> Any:
    """``-o/--output FORMAT``, declared alike by every command; its help says which formats that command prints."""
    return Option("-o", "--output", metavar="FORMAT", show_default=False, help=help, **extra)


VMTarget = Annotated[str | None, vm_argument()]
TypeTarget = Annotated[
    str | None, Argument(metavar="[TYPE/NAME]", help="One instance type or preference.", show_default=False)
]
# a report (not objects) as data: fits, capacity, usage
ReportOutput = Annotated[str, output_option(help="yaml, json or a kubectl template (jsonpath=..., go-template=...).")]
# findings as data: lint, doctor
FindingsOutput = Annotated[
    str,
    output_option(help="yaml, json or a kubectl template (jsonpath=..., go-template=...): the findings as data."),
]


def _connection_option(*names: str, metavar: str, help: str, click_type: Any = None, **extra: Any) -> Any:
    return Option(
        *names,
        click_type=click_type,
        metavar=metavar,
        help=help,
        rich_help_panel=CONNECTION_PANEL,
        **({"show_default": False} | extra),
    )


Kubeconfig = Annotated[
    str | None,
    _connection_option(
        "--kubeconfig",
        metavar="PATH",
        help="Path to the kubeconfig file to use (default: $KUBECONFIG, then ~/.kube/config).",
    ),
]
Context = Annotated[
    str | None,
    _connection_option(
        "--context", click_type=NON_BLANK, metavar="NAME", help="The name of the kubeconfig context to use."
    ),
]
Namespace = Annotated[
    str | None,
    _connection_option(
        "-n",
        "--namespace",
        click_type=NON_BLANK,
        metavar="NAMESPACE",
        help="The namespace to use (default: the context's namespace, else default).",
    ),
]
Cluster = Annotated[
    str | None,
    _connection_option(
        "--cluster",
        click_type=NON_BLANK,
        metavar="NAME",
        help="The name of the kubeconfig cluster to use (replaces the context's cluster, as kubectl's --cluster).",
    ),
]
RequestTimeout = Annotated[
    str,
    _connection_option(
        "--request-timeout",
        metavar="DURATION",
        help="How long to wait for one server answer (1s, 2m, 3h); 0 waits forever.",
        show_default=True,
    ),
]
As = Annotated[
    str | None,
    _connection_option(
        "--as",
        metavar="string",
        help="Username to impersonate for the operation. User could be a regular user or a service account in a "
        "namespace.",
    ),
]
AsGroup = Annotated[
    list[str] | None,
    _connection_option(
        "--as-group",
        metavar="stringArray",
        help="Group to impersonate for the operation, this flag can be repeated to specify multiple groups.",
    ),
]
AsUid = Annotated[
    str | None,
    _connection_option("--as-uid", metavar="string", help="UID to impersonate for the operation."),
]
Verbosity = Annotated[
    int,
    _connection_option(
        "-v",
        "--v",
        click_type=GO_INT,
        metavar="LEVEL",
        help="Verbosity: 1 or more prints the traceback of a failure, 6 or more every HTTP request.",
    ),
]

# Flags whose value is optional, as Cobra's NoOptDefVal: alone they mean the value given here; a value
# must then be attached with "=" (--hugepages=1Gi). Click cannot express this, so argv is rewritten.
OPTIONAL_VALUE_FLAGS = {"--hugepages": "*"}
ANY_VALUE = "*"


def expand_optional_values(args: list[str], optional: dict[str, str] | None = None) -> list[str]:
    """pflag spellings click lacks: a bare ``--flag`` of ``optional`` becomes ``--flag=<default>``, and
    ``-v=6`` (a short flag with ``=``) becomes ``-v 6``."""
    optional = OPTIONAL_VALUE_FLAGS if optional is None else optional
    out: list[str] = []
    for index, arg in enumerate(args):
        if arg == "--":
            return out + args[index:]
        if arg in optional:
            out.append(f"{arg}={optional[arg]}")
        elif len(arg) > 3 and arg[0] == "-" and arg[1].isalpha() and arg[2] == "=":
            out += [arg[:2], arg[3:]]
        else:
            out.append(arg)
    return out


def expand_bare_flags(args: list[str], bare: dict[str, tuple[str, bool]]) -> list[str]:
    """A flag of ``bare`` given without a value becomes its replacement (``{flag: (replacement, always)}``):
    ``list --cluster`` (last, or before another flag or ``--``) -> ``list --cluster-only``, the deprecated
    scope flag, while ``--cluster NAME`` and ``--cluster=NAME`` stay kubectl's kubeconfig cluster. With
    ``always`` (a command without kubeconfig flags: ``catalog list``) every bare spelling is replaced."""
    out: list[str] = []
    for index, arg in enumerate(args):
        if arg == "--":
            return out + args[index:]
        if arg in bare:
            replacement, always = bare[arg]
            following = args[index + 1] if index + 1 < len(args) else None
            if always or following is None or following.startswith("-"):
                out.append(replacement)
                continue
        out.append(arg)
    return out


def parse_request_timeout(text: str) -> float | None:
    """kubectl's ``--request-timeout``: a bare integer is seconds, else a Go duration; 0 means none."""
    from ..golang.duration import DurationError, request_timeout_seconds

    try:
        return request_timeout_seconds(text)
    except DurationError as exc:
        raise UsageError(str(exc)) from None


VM_PREFIXES = ("vm/", "vms/", "virtualmachine/", "virtualmachines/", "virtualmachine.kubevirt.io/")


def vm_target(target: str, command: str) -> str:
    """NAME of a ``vm/NAME`` argument (kubectl's spellings of the kind; the prefix may be left out); a usage
    error naming ``command`` for another kind of object."""
    name = next((target[len(p) :] for p in VM_PREFIXES if target.lower().startswith(p)), target)
    if not name or "/" in name:
        raise UsageError(f'{command} takes a VirtualMachine: vm/NAME, not "{target}"')
    return name


# kubectl's spellings of the kinds an argument may name (short names, plurals, qualified) -> the kind
KIND_SPELLINGS = {
    "vm": "VirtualMachine",
    "vms": "VirtualMachine",
    "virtualmachine": "VirtualMachine",
    "virtualmachines": "VirtualMachine",
    "virtualmachine.kubevirt.io": "VirtualMachine",
    "virtualmachines.kubevirt.io": "VirtualMachine",
    "pvc": "PersistentVolumeClaim",
    "persistentvolumeclaim": "PersistentVolumeClaim",
    "persistentvolumeclaims": "PersistentVolumeClaim",
    "dv": "DataVolume",
    "dvs": "DataVolume",
    "datavolume": "DataVolume",
    "datavolumes": "DataVolume",
    "datavolume.cdi.kubevirt.io": "DataVolume",
    "datavolumes.cdi.kubevirt.io": "DataVolume",
    "das": "DataSource",
    "datasource": "DataSource",
    "datasources": "DataSource",
    "datasource.cdi.kubevirt.io": "DataSource",
    "datasources.cdi.kubevirt.io": "DataSource",
    "vs": "VolumeSnapshot",
    "volumesnapshot": "VolumeSnapshot",
    "volumesnapshots": "VolumeSnapshot",
    "volumesnapshot.snapshot.storage.k8s.io": "VolumeSnapshot",
    "volumesnapshots.snapshot.storage.k8s.io": "VolumeSnapshot",
}


def object_target(words: list[str], kinds: tuple[str, ...], unknown: str) -> tuple[str, str]:
    """(kind, NAME) of a ``TYPE/NAME`` or ``TYPE NAME`` argument whose kind is one of ``kinds``; ``unknown``
    (with ``{word}``) is the usage error for any other type."""
    if len(words) == 1 and "/" in words[0]:
        word, _, name = words[0].partition("/")
    elif len(words) == 2 and "/" not in words[0]:
        word, name = words
    else:
        raise UsageError("expected one TYPE/NAME (or TYPE NAME), e.g. pvc/fedora")
    kind = KIND_SPELLINGS.get(word.lower())
    if kind not in kinds:
        raise UsageError(unknown.format(word=word))
    if not name:
        raise UsageError(f"resource name may not be empty ({word}/NAME)")
    return kind, name


# kind -> its spellings (instancetype.kinds: singular, plural, the CRDs' shortNames), in the order messages list them
TYPE_SPELLINGS = {
    kind.kind: kind.spellings()
    for kind in (
        type_kinds.INSTANCETYPE,
        type_kinds.CLUSTER_INSTANCETYPE,
        type_kinds.PREFERENCE,
        type_kinds.CLUSTER_PREFERENCE,
    )
}


def type_target(text: str, command: str, kinds: dict[str, tuple[str, ...]] = TYPE_SPELLINGS) -> tuple[str, str]:
    """(kind, NAME) of a ``TYPE/NAME`` argument whose TYPE spells one of ``kinds`` (singular, plural or short,
    with or without its API group); a usage error naming ``command`` for any other."""
    word, slash, name = text.partition("/")
    lowered, _, group = word.lower().partition(".")
    for kind, spellings in kinds.items():
        if group not in ("", "apps" if kind == "ControllerRevision" else "instancetype.kubevirt.io"):
            continue
        if lowered in spellings or (lowered.endswith("s") and lowered[:-1] in spellings):
            if not slash or not name:
                raise UsageError(f"resource name may not be empty ({word}/NAME)")
            return kind, name
    known = ", ".join(spellings[0] for spellings in kinds.values())
    raise UsageError(f'{command} takes TYPE/NAME with TYPE one of {known}, not "{text}"')


# ---- typed options -------------------------------------------------------------------------------------


class OptionField:
    """One field of an options class: its name, type (an object, or the string of a module with ``from __future__
    import annotations``, and the module that declares it), default (or default factory) and whether it is a flag
    (``init``) or a value ``validate()`` derives (``field(init=False)``: :func:`..records.field`, or
    ``dataclasses.field``)."""

    __slots__ = ("_group", "default", "factory", "init", "module", "name", "type")

    def __init__(self, name: str, kind: Any, declared: Any, module: str = ""):
        self.name, self.type, self.init, self.factory = name, kind, True, _MISSING
        self.module, self._group = module, _MISSING
        dataclasses = sys.modules.get("dataclasses")
        if isinstance(declared, Field):
            self.default, self.factory, self.init = declared.default, declared.default_factory, declared.init
        elif dataclasses is not None and isinstance(declared, dataclasses.Field):
            self.default = _MISSING if declared.default is dataclasses.MISSING else declared.default
            self.factory = _MISSING if declared.default_factory is dataclasses.MISSING else declared.default_factory
            self.init = declared.init
        else:
            self.default = declared

    def group(self) -> type | None:
        """The flag group (an options class or a dataclass) this field is, else None (a flag, a derived value).
        A string annotation is not evaluated: a group's is its class's (dotted) name, which is looked up in the
        declaring module; any other string (``Annotated[...]``, an alias, ``bool``) names no group, and a name the
        module defines only for type checkers (``Any``) is none either."""
        if self._group is _MISSING:
            kind = self.type
            if isinstance(kind, str):
                kind = _named(kind, self.module)
            self._group = _group(kind)
        return self._group

    def annotation(self) -> Any:
        """The field's type as an object (what Typer reads): a string annotation is evaluated in the declaring
        module, once, when the Typer app is built."""
        if isinstance(self.type, str):
            self.type = eval(self.type, vars(sys.modules[self.module]))
        return self.type


def _named(text: str, module: str) -> Any:
    """The object the dotted name ``text`` names in ``module`` (its globals, then the builtins), or None when
    ``text`` is no dotted name or names nothing there."""
    import builtins

    head, *rest = text.split(".")
    if not head.isidentifier() or not all(part.isidentifier() for part in rest):
        return None
    found = vars(sys.modules[module]).get(head, getattr(builtins, head, None))
    for part in rest:
        found = getattr(found, part, None)
    return found


def _init(self: Any, **given: Any) -> None:
    for spec in type(self).__option_fields__:
        if spec.name in given:
            value = given.pop(spec.name)
        elif spec.factory is not _MISSING:
            value = spec.factory()
        elif spec.default is not _MISSING:
            value = spec.default
        else:
            raise TypeError(f"{type(self).__name__}: missing {spec.name!r}")
        setattr(self, spec.name, value)
    if given:
        raise TypeError(f"{type(self).__name__}: unexpected {', '.join(given)}")


def _repr(self: Any) -> str:
    shown = ", ".join(f"{spec.name}={getattr(self, spec.name)!r}" for spec in type(self).__option_fields__)
    return f"{type(self).__name__}({shown})"


@dataclass_transform(field_specifiers=(field, _dataclass_field))
def dataclass(cls: type) -> type:
    """Make ``cls`` a typed options class: a dataclass to readers and type checkers (PEP 681), with an
    ``__init__`` taking its fields by keyword and a ``__repr__``.

    Not ``dataclasses.dataclass``: generating and compiling ``__init__``/``__repr__``/``__eq__`` for ``list``'s
    30-odd flags costs several milliseconds on every run (as :class:`..instancetype.listing.Filters` notes);
    this reads the annotations once and shares one ``__init__``. Fields are the class's annotations in order,
    its bases' first; defaults are the class attributes, ``field(default_factory=...)`` and
    ``field(init=False, default=...)`` included (:func:`..records.field`, here ``options.field``; a hot
    command's modules use it, so that they import no ``dataclasses``; ``dataclasses.field`` works too).
    """
    fields: dict[str, OptionField] = {}
    for klass in reversed(cls.__mro__[:-1]):
        # inspect.get_annotations(klass), without importing inspect; strings stay strings (see OptionField)
        for name, kind in dict(klass.__dict__.get("__annotations__", {})).items():  # noqa: RUF063
            fields[name] = OptionField(name, kind, klass.__dict__.get(name, _MISSING), klass.__module__)
    cls.__option_fields__ = tuple(fields.values())  # type: ignore[attr-defined]
    cls.__init__ = _init  # type: ignore[misc]
    cls.__repr__ = _repr  # type: ignore[method-assign,assignment]
    return cls


@dataclass
class ConnectionFlags:
    """kubectl's global flags (k8s.io/cli-runtime/pkg/genericclioptions ``ConfigFlags``): where the cluster is,
    who to act as, and ``-v``.

    kubectl does not pass its own global flags to plugins, so each command that talks to a cluster has these.
    """

    kubeconfig: Kubeconfig = None
    context: Context = None
    cluster: Cluster = None
    namespace: Namespace = None
    request_timeout: RequestTimeout = "0"
    verbosity: Verbosity = 0
    # kubectl's impersonation flags (client-go's Impersonate-* headers on every request)
    as_user: As = None
    as_groups: AsGroup = None
    as_uid: AsUid = None

    def connection_options(self) -> Any:
        """The flags as :class:`~..kube.kubeconfig.ConnectionOptions`; a namespace that is no valid name or a
        timeout that is no duration is a :class:`UsageError` (checked when the session first needs them, before
        any request, as kubectl's ConfigFlags check them)."""
        from ..kube.kubeconfig.model import ConnectionOptions

        if self.namespace:
            from ..kube.names import invalid_namespace

            if problem := invalid_namespace(self.namespace):
                raise UsageError(problem)
        return ConnectionOptions(
            kubeconfig=self.kubeconfig or None,
            context=self.context or None,
            cluster=self.cluster or None,
            namespace=self.namespace or None,
            request_timeout=parse_request_timeout(self.request_timeout),
            as_user=self.as_user or None,
            as_uid=self.as_uid or None,
            as_groups=tuple(self.as_groups or ()),
        )

    def session(self, env: Any) -> Any:
        """The :class:`~..kube.session.Session` for these flags (nothing is checked, read or opened until asked
        for: ``version --client`` never parses them)."""
        from ..kube.session import Session
        from ..output.messages import request_logger, warn

        return Session(
            self.connection_options,
            env.environ,
            env.home(),
            log=request_logger(env),
            verbosity=self.verbosity,
            warn=lambda text: warn(env, text),
        )


FLEET_PANEL = "Contexts"
Contexts = Annotated[
    list[str] | None,
    _connection_option(
        "--context",
        click_type=NON_BLANK,
        metavar="NAME",
        help="The name of the kubeconfig context to use; more than once: run on each (one table or List, "
        "a CONTEXT column first).",
    ),
]
ContextPattern = Annotated[
    str | None,
    Option(
        "--contexts",
        metavar="REGEX",
        help="Run on every kubeconfig context whose name REGEX matches (a search: prod matches eu-prod-1).",
        rich_help_panel=FLEET_PANEL,
        show_default=False,
    ),
]
AllContexts = Annotated[
    bool,
    Option("--all-contexts", help="Run on every context of the kubeconfig.", rich_help_panel=FLEET_PANEL),
]
Parallel = Annotated[
    int,
    Option(
        "--parallel",
        click_type=GO_INT,
        metavar="N",
        help="With several contexts: how many run at once.",
        rich_help_panel=FLEET_PANEL,
    ),
]
ContextTimeout = Annotated[
    str,
    Option(
        "--context-timeout",
        metavar="DURATION",
        help="With several contexts: how long each context may take in all (1s, 2m); one that takes longer is "
        "reported as failed and the others print. 0 waits forever.",
        rich_help_panel=FLEET_PANEL,
    ),
]


@dataclass
class FleetConnectionFlags(ConnectionFlags):
    """:class:`ConnectionFlags` of a command that only reads, which may run on several contexts at once:
    ``--context`` more than once, ``--contexts REGEX``, ``--all-contexts``, ``--parallel``, ``--context-timeout``."""

    context: Contexts = None  # type: ignore[assignment]
    contexts: ContextPattern = None
    all_contexts: AllContexts = False
    parallel: Parallel = 8
    context_timeout: ContextTimeout = "30s"
    deadline: float | None = field(init=False, default=None)

    @property
    def several(self) -> bool:
        """Whether the command runs as a fleet (more than one --context, --contexts or --all-contexts)."""
        return len(self.context or ()) > 1 or self.contexts is not None or self.all_contexts

    def validate(self) -> None:
        """--parallel is positive and --context-timeout a duration."""
        if self.parallel < 1:
            raise UsageError(f"--parallel must be at least 1, not {self.parallel}")
        self.deadline = parse_request_timeout(self.context_timeout)

    def connection_options(self) -> Any:
        """As :meth:`ConnectionFlags.connection_options`, with the one --context (or none, for a fleet)."""
        names = list(self.context or ())
        single = ConnectionFlags(
            kubeconfig=self.kubeconfig,
            context=names[0] if len(names) == 1 and not self.several else None,
            cluster=self.cluster,
            namespace=self.namespace,
            request_timeout=self.request_timeout,
            verbosity=self.verbosity,
            as_user=self.as_user,
            as_groups=self.as_groups,
            as_uid=self.as_uid,
        )
        return single.connection_options()

    def fleet(self, env: Any) -> Any:
        """The :class:`~..kube.fleet.Fleet` of the selected contexts (nothing is read until asked)."""
        from ..kube.fleet import Fleet
        from ..output.messages import request_logger, warn

        return Fleet(
            self.connection_options(),
            env.environ,
            env.home(),
            names=tuple(self.context or ()),
            pattern=self.contexts,
            every=self.all_contexts,
            parallel=self.parallel,
            timeout=self.deadline or None,
            log=request_logger(env),
            verbosity=self.verbosity,
            warn=lambda text: warn(env, text),
        )


@dataclass
class FleetFlags(FleetConnectionFlags):
    """:class:`FleetConnectionFlags` of a command made for several contexts (``fleet diff``): it is given the
    :meth:`fleet` itself rather than run once per context, and without any context flag it runs on every one."""

    @property
    def several(self) -> bool:
        """Never run once per context by :func:`command`: the command compares the contexts itself."""
        return False

    def fleet(self, env: Any) -> Any:
        """As :meth:`FleetConnectionFlags.fleet`; every context when none was chosen."""
        fleet = super().fleet(env)
        if not (self.context or self.contexts is not None or self.all_contexts):
            fleet.every = True
        return fleet


def run_across_contexts(env: Any, opts: Any, connection: FleetConnectionFlags, run: Callable[..., Any]) -> int:
    """``run(env, opts, session)`` once per selected context (:func:`..usecases.fleet.across_contexts`), each
    printing into its own capture, then everything printed as one (:func:`..output.fleet.print_fleet`)."""
    from ..output.capture import Capture, capturing
    from ..output.fleet import print_fleet
    from ..usecases.fleet import across_contexts

    captures: dict[str, Capture] = {}

    def one(session: Any) -> int:
        target = captures[session.options.context] = Capture()
        with capturing(env, target) as context_env:
            return int(run(context_env, opts, session) or 0)

    result = across_contexts(connection.fleet(env), one)
    from ..kube.fleet import ContextTimeout

    # a context given up on may still be printing in its thread: only its warning shows
    shown = {r.context: captures.get(r.context) for r in result.results if not isinstance(r.error, ContextTimeout)}
    return print_fleet(env, result, {c: v for c, v in shown.items() if v is not None})


Validate = Annotated[
    str,
    Option(
        "--validate",
        metavar="MODE",
        help="Must be one of: strict (or true), warn, ignore (or false). The -f objects' fields are checked "
        "against KubeVirt's schema: strict refuses unknown fields, warn prints a warning for each, ignore drops them.",
    ),
]
Offline = Annotated[
    bool,
    Option(
        "--offline",
        help="Do not ask the cluster for KubeVirt's verdict (a server-side dry run): check offline only.",
    ),
]


@dataclass
class FieldValidation:
    """kubectl's ``--validate`` for objects read from ``-f`` (KubeVirt's schema; the directive it means in
    ``validation``)."""

    validate_mode: Validate = "strict"
    validation: str = field(init=False, default="strict")

    def validate(self) -> None:
        """kubectl's GetValidationDirective."""
        from ..usecases.fieldcheck import validation_directive

        self.validation = validation_directive(self.validate_mode)


@dataclass
class FileChecks(FieldValidation):
    """:class:`FieldValidation` and ``--offline`` (no server-side dry run for KubeVirt's verdict)."""

    offline: Offline = False


# pflag's NoOptDefVal of kubectl's --validate: alone it means strict
VALIDATE_OPTIONAL_VALUE = {"--validate": "strict"}


@dataclass
class ShortTimeoutConnectionFlags(ConnectionFlags):
    """:class:`ConnectionFlags` for a command that must not wait long for an answer (``version``)."""

    request_timeout: RequestTimeout = "5s"


def _group(kind: Any) -> type | None:
    """``kind`` when it is a flag group (an options class or a dataclass), else None."""
    if isinstance(kind, type) and ("__option_fields__" in kind.__dict__ or hasattr(kind, "__dataclass_fields__")):
        return kind
    return None


def _fields(options_class: Any) -> tuple[OptionField, ...]:
    """The fields of an :func:`dataclass` options class (or of a ``dataclasses.dataclass`` one)."""
    found = options_class.__dict__.get("__option_fields__")
    if found is None:
        import dataclasses

        found = tuple(
            OptionField(f.name, f.type, f, options_class.__module__) for f in dataclasses.fields(options_class)
        )
    return tuple(found)


def fields_of(options_class: type) -> list[tuple[str, Any, Any]]:
    """``(parameter name, annotation, default)`` of every flag of ``options_class``, groups flattened in place."""
    import inspect

    flat: list[tuple[str, Any, Any]] = []
    for spec in _fields(options_class):
        if not spec.init:  # a value validate() derives from the flags
            continue
        group = spec.group()
        if group is not None:
            flat.extend(fields_of(group))
            continue
        default = spec.default if spec.default is not _MISSING else inspect.Parameter.empty
        flat.append((spec.name, spec.annotation(), default))
    return flat


def _fill(options_class: type, values: dict[str, Any]) -> Any:
    """An ``options_class`` object from the flat ``values`` (consumed as the fields are filled)."""
    given = {}
    for spec in _fields(options_class):
        if not spec.init:
            continue
        group = spec.group()
        given[spec.name] = _fill(group, values) if group is not None else values.pop(spec.name)
    return options_class(**given)


def validate(opts: Any) -> None:
    """Validate the groups of ``opts`` (in field order), then ``opts`` itself."""
    for spec in _fields(type(opts)):
        if spec.group() is not None:
            validate(getattr(opts, spec.name))
    own = getattr(opts, "validate", None)
    if own is not None:
        own()


def warnings_of(opts: Any) -> list[str]:
    """The ``warnings()`` lines of the groups of ``opts`` (in field order), then of ``opts`` itself."""
    lines: list[str] = []
    for spec in _fields(type(opts)):
        if spec.group() is not None:
            lines += warnings_of(getattr(opts, spec.name))
    own = getattr(opts, "warnings", None)
    return lines + (list(own()) if own is not None else [])


def _connection(opts: Any) -> ConnectionFlags | None:
    found = getattr(opts, "connection", None)
    return found if isinstance(found, ConnectionFlags) else None


class ParsedValues:
    """Handed to a Typer app as its ``obj`` instead of the Environment: the command records the values Typer
    parsed (``values``, ``options_class``, ``run``) and runs nothing. How the fast path's agreement test asks
    Typer what an argv means (tests/unit/test_fastpath.py)."""

    def __init__(self) -> None:
        self.values: dict[str, Any] | None = None
        self.options_class: type | None = None
        self.run: Callable[..., Any] | None = None


def invoke(
    env: Any, options_class: type, run: Callable[..., Any], values: dict[str, Any], extra: Sequence[str] = ()
) -> Any:
    """Run a command from its parsed flag ``values`` (parameter name -> value), as Typer or the fast path
    (:mod:`.fastpath`) parsed them: fill one options object, print its warnings, validate it, and call
    ``run(env, options)``, or ``run(env, options, session)`` when the options have a ``connection`` group.
    The values of the ``extra`` parameters go to ``opts.extra``."""
    env.verbosity = values.get("verbosity", 0)  # first: a failure from here on shows its traceback at -v
    given = {name: values.pop(name) for name in extra}
    opts = _fill(options_class, values)
    if extra:
        opts.extra = given
    for line in warnings_of(opts):
        env.stderr.write(line + "\n")  # pflag prints a deprecated flag's line as it parses it
    validate(opts)
    connection = _connection(opts)
    if connection is None:
        return run(env, opts)
    if isinstance(connection, FleetConnectionFlags) and connection.several:
        return run_across_contexts(env, opts, connection, run)
    with connection.session(env) as session:
        return run(env, opts, session)


def command(
    options_class: type, run: Callable[..., Any], *, extra: Sequence[inspect.Parameter] = ()
) -> Callable[..., Any]:
    """The Typer command function for ``options_class``: Typer parses, :func:`invoke` runs.

    ``run``'s return value is the command's (an int is the exit status). ``extra`` parameters (flags made from
    a table, see :mod:`.flagtable`) come first; their values are handed to the options as ``opts.extra``.
    The function carries ``options_class``, ``run`` and ``extra`` (their names) as attributes, which the fast
    path's table is generated from.
    """
    import inspect

    import typer

    flat = fields_of(options_class)
    names = [name for name, _, _ in flat]
    if len(set(names)) != len(names):
        raise TypeError(f"{options_class.__name__}: a flag is declared twice: {names}")
    parameters = [inspect.Parameter("ctx", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=typer.Context)]
    parameters += [parameter.replace(annotation=typer_annotation(parameter.annotation)) for parameter in extra]
    parameters += [
        inspect.Parameter(
            name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=typer_annotation(annotation)
        )
        for name, annotation, default in flat
    ]
    extra_names = [parameter.name for parameter in extra]

    def typer_command(ctx: typer.Context, **values: Any) -> Any:
        env = ctx.obj
        if isinstance(env, ParsedValues):
            env.values, env.options_class, env.run = dict(values), options_class, run
            return 0
        return invoke(env, options_class, run, values, extra_names)

    typer_command.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    # Typer reads the annotations too (get_type_hints), not only the signature.
    typer_command.__annotations__ = {p.name: p.annotation for p in parameters}
    typer_command.__doc__ = options_class.__doc__
    typer_command.options_class = options_class  # type: ignore[attr-defined]
    typer_command.run = run  # type: ignore[attr-defined]
    typer_command.extra = tuple(extra_names)  # type: ignore[attr-defined]
    return typer_command


class Command:
    """One of the commands a module registers (:func:`add_commands`): its name, options class and run function,
    its help texts, Typer's other command settings (``no_args_is_help``), and ``make``, what makes the Typer
    command of the options class and run (:func:`command`, or a flag table's ``flagtable.table_command``)."""

    __slots__ = ("help", "make", "name", "options_class", "run", "settings", "short_help")

    def __init__(
        self,
        name: str,
        options_class: type,
        run: Callable[..., Any],
        *,
        help: str,
        short_help: str,
        make: Callable[[type, Callable[..., Any]], Any] | None = None,
        **settings: Any,
    ) -> None:
        self.name, self.options_class, self.run = name, options_class, run
        self.help, self.short_help, self.settings = help, short_help, settings
        self.make = make


def add_commands(parent: Any, argv: Sequence[str], *commands: Command) -> None:
    """Register ``commands`` on ``parent`` (the app or a group), only the one ``argv`` names (a module's ``argv``
    starts with its own command's name: registry.register_modules), or all of them when ``argv`` is empty (help
    lists every command). The others are not built: their options are never inspected."""
    for spec in commands:
        if argv and argv[0] != spec.name:
            continue
        function = (spec.make or command)(spec.options_class, spec.run)
        parent.command(spec.name, help=spec.help, short_help=spec.short_help, **spec.settings)(function)
