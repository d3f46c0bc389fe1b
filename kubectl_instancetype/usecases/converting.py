"""``convert``: legacy objects read from ``-f`` converted (:mod:`..instancetype.convert`), presets matched against
VirtualMachines (a file, or the namespace's through the Session) and the VMs they applied to rewritten to
reference what they were converted to (unless ``keep_preset_vms``), and ``--apply``: everything checked first
(a server-side dry run of every object and update, and KubeVirt's conflict rules between each VM and its new
types), then each object created (and each cluster VM patched) in order, saying exactly what exists when one
fails."""

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
    keep_preset_vms: bool = False
    offline: bool = False  # no server-side dry run of the converted objects (without apply)


@dataclass(frozen=True)
class Converted:
    """What the conversion made, before anything is written: the objects (``conversion.objects``), the
    warnings for fields without a v1beta1 home, the presets' matches (None: no presets and no VMs given), and,
    when no object was written, the warning that says why."""

    conversion: Conversion
    warnings: list[str]
    presets: list[str] | None
    nothing_written: str | None
    # the cluster's VMs (--from-cluster) a preset applied to, rewritten: patched with --apply
    updates: list[dict[str, Any]] = field(default_factory=list)


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
    refused: Callable[[str], None] = lambda line: None,
) -> ConvertResult:
    """``convert``: read and convert, match the presets, rewrite the VMs they applied to, and with ``apply``
    check everything then create the objects. ``converted`` receives the conversion before anything is written
    (its warnings come first), ``refused`` each problem the checks found (then nothing is written), ``created``
    each object as the server accepts it (:func:`apply_converted`: a failure says what exists)."""
    conversion = convert_file(request.filename, request.stdin, default_memory=request.default_memory)
    vms = preset_vms(
        conversion, vms_file=request.vms_file, stdin=request.stdin, session=session if request.from_cluster else None
    )
    presets = match_presets(conversion, vms)
    updates: list[dict[str, Any]] = []
    if conversion.presets and vms is not None and not request.keep_preset_vms:
        updates = rewrite_preset_vms(
            conversion, vms, presets, cluster=request.from_cluster, into_output=request.vms_file is not None
        )
    found = Converted(
        conversion, list(conversion.warnings), presets, nothing_written(conversion, request.filename), updates
    )
    converted(found)
    if found.nothing_written is not None:
        return ConvertResult(found)
    if not request.apply:
        return ConvertResult(found, judged=judge_converted(session, conversion.objects, offline=request.offline))
    problems = check_converted(session, conversion, updates)
    if problems:
        for line in problems:
            refused(line)
        raise PluginError(
            f"{len(problems)} problem(s) found by checking every object first (listed above): nothing was created"
        )
    return ConvertResult(found, apply_converted(session, conversion, created, updates))


def preset_vms(
    conversion: Conversion, *, vms_file: str | None = None, stdin: IO[str] | None = None, session: Session | None = None
) -> list[dict[str, Any]] | None:
    """The VirtualMachines the presets are matched against: ``vms_file``'s, else the session's namespace's, else
    the input's own (None when there are none to match)."""
    if vms_file is not None:
        from .manifests import read_manifests

        return read_manifests(vms_file, stdin)
    if session is not None:
        from ..kube.resources import VIRTUAL_MACHINES

        pages = session.client().list_pages(VIRTUAL_MACHINES, session.namespace)
        return [item for page in pages for item in page.get("items") or ()]
    if conversion.presets and conversion.vms:
        return list(conversion.vms)
    return None


def rewrite_preset_vms(
    conversion: Conversion, vms: list[dict[str, Any]], lines: list[str] | None, *, cluster: bool, into_output: bool
) -> list[dict[str, Any]]:
    """Point every VM a preset applied to at what the preset became (:func:`..instancetype.convert.rewrite_vms`):
    the input's own converted VMs are rewritten in place, ``--vms`` VMs are added to the output, the cluster's
    are returned as the merge patches ``--apply`` sends. Each rewrite adds a report line."""
    from ..instancetype.convert import convert as convert_objects
    from ..instancetype.convert import rewrite_vms

    rewrites = rewrite_vms(conversion.presets, vms)
    by_name = {
        (str((vm.get("metadata") or {}).get("name")), (vm.get("metadata") or {}).get("namespace")): vm for vm in vms
    }
    updates: list[dict[str, Any]] = []
    for rewrite in rewrites:
        original = by_name[(rewrite.name, rewrite.namespace)]
        if cluster:
            updates.append(
                {
                    "metadata": {"name": rewrite.name, "namespace": rewrite.namespace},
                    "spec": {key: dict(matcher) for key, matcher in rewrite.references.items()},
                }
            )
        elif into_output:
            conversion.objects.extend(convert_objects([rewrite.apply(original)]).objects)
        else:
            for index, obj in enumerate(conversion.objects):
                meta = obj.get("metadata") or {}
                if obj.get("kind") == "VirtualMachine" and (meta.get("name"), meta.get("namespace")) == (
                    rewrite.name,
                    rewrite.namespace,
                ):
                    conversion.objects[index] = rewrite.apply(obj)
        if lines is not None:
            lines.append(rewrite.line + (" (patched with --apply)" if cluster else ""))
    return updates


def check_converted(session: Session, conversion: Conversion, updates: list[dict[str, Any]]) -> list[str]:
    """Everything ``--apply`` would write, checked before anything is: a server-side dry run (``dryRun=All``:
    the API server's validation and KubeVirt's webhooks) of every object and every VM patch, and KubeVirt's VM
    admission rules between each VM and its new types (the types of this batch are not stored yet, so the
    webhook cannot see them: :func:`..instancetype.expand.admission_problems` with their specs). One line per
    problem; empty when all would be accepted."""
    from ..instancetype.expand import admission_problems

    client = session.client()
    planned = _planned(session, conversion)
    batch = {
        (str(obj.get("kind")), str((obj.get("metadata") or {}).get("name"))): obj.get("spec") or {}
        for _, obj, _, _ in planned
        if obj.get("kind") != "VirtualMachine"
    }
    problems: list[str] = []
    for resource, obj, target, name in planned:
        try:
            client.create(resource, obj, target, dry_run=True)
        except PluginError as exc:
            problems.append(f"{name}: {exc.render().removeprefix('error: ')}")
        if obj.get("kind") == "VirtualMachine":
            problems += _type_problems(client, obj, target or session.namespace, batch, name, admission_problems)
    from ..kube.resources import VIRTUAL_MACHINES

    for update in updates:
        meta = update["metadata"]
        name = VIRTUAL_MACHINES.name_of(meta["name"])
        namespace = meta.get("namespace") or session.namespace
        try:
            stored = client.patch(VIRTUAL_MACHINES, meta["name"], namespace, {"spec": update["spec"]}, dry_run=True)
        except PluginError as exc:
            problems.append(f"{name}: {exc.render().removeprefix('error: ')}")
            continue
        problems += _type_problems(client, stored, namespace, batch, name, admission_problems)
    return problems


def _type_problems(
    client: Any, vm: dict[str, Any], namespace: str, batch: dict[tuple[str, str], Any], name: str, check: Any
) -> list[str]:
    """KubeVirt's admission problems between ``vm`` and the types it names (from this batch, else the cluster's),
    with what to remove when a field conflicts."""
    from ..errors import NotFoundError
    from ..kube.resources import BY_KIND

    specs: dict[str, Any] = {}
    spec = vm.get("spec") or {}
    for key, default in (
        ("instancetype", "VirtualMachineClusterInstancetype"),
        ("preference", "VirtualMachineClusterPreference"),
    ):
        matcher = spec.get(key) or {}
        if not matcher.get("name"):
            continue
        kind = str(matcher.get("kind") or default)
        found = batch.get((kind, str(matcher["name"])))
        if found is None and kind in BY_KIND:
            resource = BY_KIND[kind]
            try:
                found = (client.get(resource, str(matcher["name"]), namespace if resource.namespaced else None)).get(
                    "spec"
                )
            except NotFoundError:
                found = None  # KubeVirt v1.6+ admits it; its controller waits for the type
        specs[key] = found
    conflicts = check(vm, specs.get("instancetype"), specs.get("preference"))
    if not conflicts:
        return []
    paths = [conflict.path for conflict in conflicts if conflict.path and not conflict.message]
    remove = f"; remove {', '.join(paths)} from the VM (its new instance type sets them)" if paths else ""
    return [f"{name}: KubeVirt would deny it: {'; '.join(c.error() for c in conflicts)}{remove}"]


def convert_file(filename: str, stdin: IO[str], *, default_memory: str | None = None) -> Conversion:
    """Read ``filename`` (a file, a directory of them, ``-`` for ``stdin``) and convert every object."""
    from ..instancetype.convert import convert
    from .manifests import read_manifests

    objects = read_manifests(filename, stdin)
    if not objects:
        raise InputError("no objects passed to convert")  # kubectl create's words for an empty input
    return convert(objects, default_memory=default_memory)


def match_presets(conversion: Conversion, vms: list[dict[str, Any]] | None) -> list[str] | None:
    """What KubeVirt would have made of the presets for each of ``vms`` (:func:`preset_vms`): one line each.
    Presets with nothing to match against get a line naming their selector and how to see the VMs they match;
    None when there are no presets and no VMs were given."""
    from ..instancetype.convert import format_selector, report_presets

    if vms is None and conversion.presets:
        return [
            f"{preset.kind} {preset.name} selects {format_selector(preset.selector)}: to see which VMs it matches and "
            "what each should reference, put them in the same input or pass --vms FILE or --from-cluster"
            for preset in conversion.presets
        ]
    if vms is None:
        return None
    if not conversion.presets:
        return [NO_PRESETS]
    return report_presets(conversion.presets, vms)


def nothing_written(conversion: Conversion, source: str) -> str | None:
    """The warning for a conversion that wrote no object (None when it wrote some)."""
    from ..instancetype.convert import nothing_written as explain

    return None if conversion.objects else explain(conversion, source)


def _planned(session: Session, conversion: Conversion) -> list[tuple[Any, dict[str, Any], str | None, str]]:
    """(resource, object, namespace, kind/name) of each converted object, in creation order; an object whose
    namespace contradicts ``-n`` is refused as kubectl refuses it."""
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
    return planned


def apply_converted(
    session: Session,
    conversion: Conversion,
    created: Callable[[str], None],
    updates: list[dict[str, Any]] | None = None,
) -> list[str]:
    """Create the converted objects in dependency order, then patch the cluster VMs ``updates`` rewrites
    (``created`` receives kubectl's line for each as the server accepts it: ``kind/name created``, ``kind/name
    patched``);
    on a failure raise a :class:`PluginError` saying what was written and what was not attempted. Returns the
    names written."""
    from functools import partial

    from ..kube.resources import VIRTUAL_MACHINES

    planned = _planned(session, conversion)
    client = session.client()
    # (what the step writes, "created" or "patched", the request)
    steps: list[tuple[str, str, Callable[[], Any]]] = [
        (name, "created", partial(client.create, resource, obj, target)) for resource, obj, target, name in planned
    ]
    for update in updates or ():
        meta = update["metadata"]
        namespace = meta.get("namespace") or session.namespace
        request = partial(client.patch, VIRTUAL_MACHINES, meta["name"], namespace, {"spec": update["spec"]})
        steps.append((VIRTUAL_MACHINES.name_of(meta["name"]), "patched", request))
    done: list[str] = []
    for index, (name, verb, step) in enumerate(steps):
        try:
            step()
        except PluginError as exc:
            rest = [entry[0] for entry in steps[index + 1 :]]
            summary = f"written: {', '.join(done)}" if done else "nothing was written"
            if rest:
                summary += f"; not attempted: {', '.join(rest)}"
            raise PluginError(f"{exc.render().removeprefix('error: ')}; {name} was not {verb}; {summary}") from exc
        done.append(name if verb == "created" else f"{name} (patched)")
        created(f"{name} {verb}")
    return done
