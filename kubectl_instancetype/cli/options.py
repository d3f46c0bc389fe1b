"""Options shared by every command that talks to a cluster, declared once (kubectl's global flags).

kubectl does not pass its own global flags to plugins, so each command parses them itself.
"""

from __future__ import annotations

from typing import Annotated, Any, Optional

import typer
from typer._click.core import Parameter
from typer._click.types import ParamType

from ..errors import UsageError

CONNECTION_PANEL = "Connection"


def flag_names(param: Parameter | None) -> str:
    """pflag's spelling of an option in messages: ``"-n, --namespace"``, or the long name alone."""
    opts = list(getattr(param, "opts", []) or [])
    short = [o for o in opts if len(o) == 2 and o[0] == "-" and o[1] != "-"]
    long = [o for o in opts if o.startswith("--")]
    if short and long:
        return f"{short[0]}, {long[0]}"
    return (long or short or [getattr(param, "name", "") or ""])[0]


class GoInt(ParamType):
    """pflag's int flag: ``strconv.ParseInt(value, 0, 64)`` (0x10 is 16; full-width digits are refused),
    with pflag's ``invalid argument "x" for "--cpu" flag: strconv.ParseInt: ...`` message."""

    name = "integer"

    def convert(self, value: object, param: Parameter | None, ctx: object) -> int:
        """Parse ``value`` as pflag would, or raise the usage error pflag would print."""
        if isinstance(value, int):
            return value
        from ..instancetype.params import GoNumError, go_parse_int

        try:
            return go_parse_int(str(value))
        except GoNumError as exc:
            raise UsageError(f'invalid argument "{value}" for "{flag_names(param)}" flag: {exc}') from None


class NonBlank(ParamType):
    """A name or quantity flag: an empty or blank value is a usage error that names the flag, never "unset"."""

    name = "text"

    def convert(self, value: object, param: Parameter | None, ctx: object) -> str:
        """Return ``value``, refusing "" and blanks."""
        text = str(value)
        if not text.strip():
            raise UsageError(f'invalid argument "{text}" for "{flag_names(param)}" flag: must not be empty')
        return text


GO_INT = GoInt()
NON_BLANK = NonBlank()

Kubeconfig = Annotated[
    Optional[str],
    typer.Option(
        "--kubeconfig",
        metavar="PATH",
        help="Path to the kubeconfig file to use (default: $KUBECONFIG, then ~/.kube/config).",
        rich_help_panel=CONNECTION_PANEL,
        show_default=False,
    ),
]
Context = Annotated[
    Optional[str],
    typer.Option(
        "--context",
        click_type=NON_BLANK,
        metavar="NAME",
        help="The name of the kubeconfig context to use.",
        rich_help_panel=CONNECTION_PANEL,
        show_default=False,
    ),
]
Namespace = Annotated[
    Optional[str],
    typer.Option(
        "-n",
        "--namespace",
        click_type=NON_BLANK,
        metavar="NAMESPACE",
        help="The namespace to use (default: the context's namespace, else default).",
        rich_help_panel=CONNECTION_PANEL,
        show_default=False,
    ),
]
RequestTimeout = Annotated[
    str,
    typer.Option(
        "--request-timeout",
        metavar="DURATION",
        help="How long to wait for one server answer (1s, 2m, 3h); 0 waits forever.",
        rich_help_panel=CONNECTION_PANEL,
    ),
]
Verbosity = Annotated[
    int,
    typer.Option(
        "-v",
        "--v",
        click_type=GO_INT,
        metavar="LEVEL",
        help="Verbosity: 1 or more prints the traceback of a failure, 6 or more every HTTP request.",
        rich_help_panel=CONNECTION_PANEL,
        show_default=False,
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


def parse_request_timeout(text: str) -> float | None:
    """kubectl's ``--request-timeout``: a bare integer is seconds, else a Go duration; 0 means none."""
    from ..golang.duration import DurationError, request_timeout_seconds

    try:
        return request_timeout_seconds(text)
    except DurationError as exc:
        raise UsageError(str(exc)) from None


_IMPERSONATION_META = "kubectl_instancetype.impersonation"


def impersonation_options() -> list[Parameter]:
    """kubectl's ``--as``, ``--as-group`` and ``--as-uid``, added to every command that has ``--kubeconfig``
    (helpformat.CobraCommand does it, so command modules need not declare them).

    Their values go to the context's ``meta`` and :func:`connection_options` reads them from there.
    """
    from typer.core import TyperOption

    def keep(ctx: Any, param: Parameter, value: Any) -> Any:
        if value:
            ctx.meta.setdefault(_IMPERSONATION_META, {})[param.name] = tuple(value) if param.multiple else value
        return value

    help_as = (
        "Username to impersonate for the operation. User could be a regular user or a service account in a namespace."
    )
    return [
        TyperOption(
            param_decls=["--as", "as_user"],
            metavar="string",
            help=help_as,
            expose_value=False,
            callback=keep,
            rich_help_panel=CONNECTION_PANEL,
        ),
        TyperOption(
            param_decls=["--as-group", "as_groups"],
            metavar="stringArray",
            multiple=True,
            help="Group to impersonate for the operation, this flag can be repeated to specify multiple groups.",
            expose_value=False,
            callback=keep,
            rich_help_panel=CONNECTION_PANEL,
        ),
        TyperOption(
            param_decls=["--as-uid", "as_uid"],
            metavar="string",
            help="UID to impersonate for the operation.",
            expose_value=False,
            callback=keep,
            rich_help_panel=CONNECTION_PANEL,
        ),
    ]


def _impersonation_flags() -> dict[str, Any]:
    from typer._click.globals import get_current_context

    ctx = get_current_context(silent=True)
    return dict(ctx.meta.get(_IMPERSONATION_META, {})) if ctx is not None else {}


def connection_options(kubeconfig: str | None, context: str | None, namespace: str | None, request_timeout: str):
    """Bundle the global flags for :mod:`kubectl_instancetype.kube` (a ``ConnectionOptions``)."""
    from ..kube.config import ConnectionOptions  # only commands that talk to a cluster need it
    from ..kube.names import invalid_namespace

    if namespace and (problem := invalid_namespace(namespace)):
        raise UsageError(problem)

    acting_as = _impersonation_flags()
    return ConnectionOptions(
        kubeconfig=kubeconfig or None,
        context=context or None,
        namespace=namespace or None,
        request_timeout=parse_request_timeout(request_timeout),
        as_user=acting_as.get("as_user") or None,
        as_uid=acting_as.get("as_uid") or None,
        as_groups=tuple(acting_as.get("as_groups") or ()),
    )


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
