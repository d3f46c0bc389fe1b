"""``convert``: legacy objects read from ``-f`` converted (:mod:`..instancetype.convert`), presets matched against
VirtualMachines (a file, or the namespace's through the Session), and ``--apply``: each converted object
created in order, saying exactly what exists when one fails."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import IO, TYPE_CHECKING, Any

from ..errors import InputError, PluginError, UsageError
from ..golang.strconv import go_quote

if TYPE_CHECKING:
    from ..instancetype.convert import Conversion
    from ..kube.session import Session

NO_PRESETS = "no VirtualMachineInstancePresets in the input: nothing to match against VirtualMachines"


@dataclass(frozen=True)
class ConvertRequest:
    """``convert``: the objects of ``filename`` (a file, a directory of them, ``-`` for ``stdin``), memory.guest
    for flavors without one, what the presets are matched against (``vms_file``, else the namespace's VMs with
    ``from_cluster``, else the input's own), and whether the converted objects are created (``apply``)."""

    filename: str
    stdin: Any = None
    default_memory: str | None = None
    vms_file: str | None = None
    from_cluster: bool = False
    apply: bool = False
    offline: bool = False  # no server-side dry run of the converted objects


@dataclass(frozen=True)
class Converted:
    """What the conversion made, before anything is written: the objects (``conversion.objects``), the
    warnings for fields without a v1beta1 home, the presets' matches (None: no presets and no VMs given), and,
    when no object was written, the warning that says why."""

    conversion: Conversion
    warnings: list[str]
    presets: list[str] | None
    nothing_written: str | None


@dataclass(frozen=True)
class ConvertResult:
    """The conversion, and with ``apply`` the ``kind/name`` of each object created, in order."""

    converted: Converted
    created: list[str] = field(default_factory=list)
    judged: Judged | None = None  # without apply: KubeVirt's verdict on the converted objects


@dataclass(frozen=True)
class Judged:
    """KubeVirt's verdict on the converted objects (a server-side dry run of each, :mod:`.admission`): one line
    per object it denies (``kind/name: Error from server ...; what to change``), or ``offline`` saying that no
    cluster was asked and what was checked instead."""

    denied: list[str] = field(default_factory=list)
    offline: str = ""


def judge_converted(session: Session | None, objects: list[dict[str, Any]], *, offline: bool = False) -> Judged:
    """Ask KubeVirt about each converted object (:class:`.admission.DryRun`), strict fields first (a converted
    object with a field KubeVirt's schema lacks is the converter's fault and is said so the same way)."""
    from .admission import DryRun, Verdicts, offline_note
    from .fieldcheck import check

    denied = []
    for obj in objects:
        problems = check(obj, "the converted output")
        if problems is not None:
            denied.append(problems.invalid_line() if problems.invalid else problems.strict_line())
    with DryRun(session, offline=offline) as judge:
        for obj in objects:
            verdict = judge.ask(obj)
            if verdict is not None and verdict.error is not None:
                name = (obj.get("metadata") or {}).get("name") or ""
                denied.append(f"{str(obj.get('kind')).lower()}/{name}: {verdict.line()}")
        has_vms = any(obj.get("kind") == "VirtualMachine" for obj in objects)
        note = offline_note(Verdicts(offline=judge.offline)) if judge.offline and has_vms else ""
    return Judged(denied, note)


def convert(
    session: Session,
    request: ConvertRequest,
    *,
    converted: Callable[[Converted], None] = lambda found: None,
    created: Callable[[str], None] = lambda name: None,
) -> ConvertResult:
    """``convert``: read and convert, match the presets, and with ``apply`` create the objects. ``converted``
    receives the conversion before anything is written (its warnings come first), ``created`` each object as
    the server accepts it (:func:`apply_converted`: a failure says what exists)."""
    conversion = convert_file(request.filename, request.stdin, default_memory=request.default_memory)
    presets = match_presets(
        conversion,
        vms_file=request.vms_file,
        stdin=request.stdin,
        session=session if request.from_cluster else None,
    )
    found = Converted(conversion, list(conversion.warnings), presets, nothing_written(conversion, request.filename))
    converted(found)
    if found.nothing_written is not None:
        return ConvertResult(found)
    if not request.apply:
        return ConvertResult(found, judged=judge_converted(session, conversion.objects, offline=request.offline))
    return ConvertResult(found, apply_converted(session, conversion, created))


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
