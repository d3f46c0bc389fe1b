"""``kubectl instancetype catalog diff``: how the cluster's objects differ from the embedded catalog."""

from typing import Annotated

import typer

from . import flagtable, options
from .catalog_install import InstancetypesOnly, Namespaced, PreferencesOnly, Version, check_kinds, scope_of

HELP = """Show how the cluster's objects differ from the embedded catalog, as a unified diff per object.

Compared: what the catalog says of each object (labels, annotations, spec); deployment metadata such as
app.kubernetes.io/* labels is left out. Objects the cluster lacks are diffed from /dev/null; vendor objects
(instancetype.kubevirt.io/vendor=kubevirt.io) the catalog no longer has, to /dev/null.

\b
Examples:
  kubectl instancetype catalog diff
  kubectl instancetype catalog diff --namespaced -n dev --preferences-only
  kubectl instancetype catalog diff --exit-code >/dev/null || echo "the cluster differs"
"""


def register(group: typer.Typer, argv: list[str]) -> None:
    """Add ``diff`` to the ``catalog`` group."""
    group.command("diff", help=HELP, short_help="Diff the cluster's objects against the catalog.")(diff_command)


def diff_command(
    ctx: typer.Context,
    version: Version = None,
    namespaced: Namespaced = False,
    instancetypes_only: InstancetypesOnly = False,
    preferences_only: PreferencesOnly = False,
    exit_code: Annotated[bool, typer.Option("--exit-code", help="Exit with 1 when there are differences.")] = False,
    kubeconfig: options.Kubeconfig = None,
    context: options.Context = None,
    namespace: options.Namespace = None,
    request_timeout: options.RequestTimeout = "0",
    verbosity: options.Verbosity = 0,
) -> int:
    """Print the differences."""
    from ..catalog import DEFAULT_VERSION, load_catalog
    from ..usecases import catalog_install as use

    env = ctx.obj
    env.verbosity = verbosity
    check_kinds(instancetypes_only, preferences_only)
    catalog = load_catalog(version or DEFAULT_VERSION)
    with flagtable.connect(env, kubeconfig, context, namespace, request_timeout) as client:
        scope = scope_of(client, namespaced, instancetypes_only, preferences_only)
        objects = use.catalog_objects(catalog, scope)
        kinds = list(dict.fromkeys(resource for resource, _ in objects))
        existing = use.existing_objects(client, kinds, scope.namespace)
    diffs = use.diff(catalog, objects, existing, kinds)
    env.stdout.write("".join(diffs))
    return 1 if diffs and exit_code else 0
