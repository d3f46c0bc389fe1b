"""``convert``: legacy objects read from ``-f`` converted (:mod:`..instancetype.convert`), presets matched against
VirtualMachines (a file, or the namespace's through the Session), and ``--apply``: each converted object
created in order, saying exactly what exists when one fails."""

from __future__ import annotations

from collections.abc import Callable
from typing import IO, TYPE_CHECKING, Any

from ..errors import InputError, PluginError, UsageError
from ..golang.strconv import go_quote

if TYPE_CHECKING:
    from ..instancetype.convert import Conversion
    from ..kube.session import Session

NO_PRESETS = "no VirtualMachineInstancePresets in the input: nothing to match against VirtualMachines"


def convert_file(filename: str, stdin: IO[str], *, default_memory: str | None = None) -> Conversion:
    """Read ``filename`` (a file, a directory of them, ``-`` for ``stdin``) and convert every object."""
    from ..instancetype.convert import convert
    from .manifests import read_manifests

    objects = read_manifests(filename, stdin)
    if not objects:
        raise InputError("no objects passed to convert")  # kubectl create's words for an empty input
    return convert(objects, default_memory=default_memory)


def match_presets(
    conversion: Conversion,
    *,
    vms_file: str | None = None,
    stdin: IO[str] | None = None,
    session: Session | None = None,
) -> list[str] | None:
    """What KubeVirt would have made of the presets for each VirtualMachine of ``vms_file``, with a ``session``
    of the session's namespace, else of the input itself (VirtualMachines and VirtualMachineInstances next to the
    presets, as ``expand -f`` reads the types next to its VMs): one line each. Presets with nothing to match
    against get a line naming their selector and how to see the VMs they match; None when there are no presets
    and no VMs were given."""
    from ..instancetype.convert import format_selector, report_presets

    vms: list[dict[str, Any]]
    if vms_file is not None:
        from .manifests import read_manifests

        vms = read_manifests(vms_file, stdin)
    elif session is not None:
        from ..kube.resources import VIRTUAL_MACHINES

        pages = session.client().list_pages(VIRTUAL_MACHINES, session.namespace)
        vms = [item for page in pages for item in page.get("items") or ()]
    elif conversion.presets and conversion.vms:
        vms = conversion.vms
    elif conversion.presets:
        return [
            f"{preset.kind} {preset.name} selects {format_selector(preset.selector)}: to see which VMs it matches and "
            "what each should reference, put them in the same input or pass --vms FILE or --from-cluster"
            for preset in conversion.presets
        ]
    else:
        return None
    if not conversion.presets:
        return [NO_PRESETS]
    return report_presets(conversion.presets, vms)


def nothing_written(conversion: Conversion, source: str) -> str | None:
    """The warning for a conversion that wrote no object (None when it wrote some)."""
    from ..instancetype.convert import nothing_written as explain

    return None if conversion.objects else explain(conversion, source)


def apply_converted(session: Session, conversion: Conversion, created: Callable[[str], None]) -> list[str]:
    """Create the converted objects in dependency order (``created`` receives each ``kind/name`` as the server
    accepts it); on a failure raise a :class:`PluginError` saying what was created and what was not attempted.
    Returns the names created."""
    from ..instancetype.convert import apply_order
    from ..kube.resources import BY_KIND

    flag = session.namespace_flag
    planned = []
    for obj in apply_order(conversion.objects):
        resource = BY_KIND[obj["kind"]]
        own = (obj.get("metadata") or {}).get("namespace")
        if resource.namespaced and own and flag and own != flag:
            raise UsageError(
                # cli-runtime visitor.go FilterNamespace: %q, %q, then '--namespace=%s'
                f"the namespace from the provided object {go_quote(own)} does not match the namespace {go_quote(flag)}. "
                f"You must pass '--namespace={own}' to perform this operation."
            )
        target = (own or session.namespace) if resource.namespaced else None
        planned.append((resource, obj, target, resource.name_of(obj["metadata"]["name"])))
    done: list[str] = []
    client = session.client()
    for index, (resource, obj, target, name) in enumerate(planned):
        try:
            client.create(resource, obj, target)
        except PluginError as exc:
            rest = [entry[3] for entry in planned[index + 1 :]]
            summary = f"created: {', '.join(done)}" if done else "nothing was created"
            if rest:
                summary += f"; not attempted: {', '.join(rest)}"
            raise PluginError(f"{exc.render().removeprefix('error: ')}; {name} was not created; {summary}") from exc
        done.append(name)
        created(name)
    return done
