"""Options shared by every command that talks to a cluster, declared once (kubectl's global flags).

kubectl does not pass its own global flags to plugins, so each command parses them itself.
"""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from ..errors import UsageError

CONNECTION_PANEL = "Connection"

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


def connection_options(kubeconfig: str | None, context: str | None, namespace: str | None, request_timeout: str):
    """Bundle the global flags for :mod:`kubectl_instancetype.kube` (a ``ConnectionOptions``)."""
    from ..kube.config import ConnectionOptions  # only commands that talk to a cluster need it

    return ConnectionOptions(
        kubeconfig=kubeconfig or None,
        context=context or None,
        namespace=namespace or None,
        request_timeout=parse_request_timeout(request_timeout),
    )
