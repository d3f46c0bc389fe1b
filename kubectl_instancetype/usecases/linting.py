"""``lint``: the objects to check (``-f`` manifests, one cluster object, or every one in scope), the instance
types a preference is checked against, and the findings and fixes of :mod:`..instancetype.lint`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..instancetype.kinds import TYPE_KINDS

if TYPE_CHECKING:
    from ..instancetype.lint import Finding
    from ..kube.session import Session

# server-populated metadata left out of --fix output, so that it applies cleanly (kubectl apply -f -)
SERVER_FIELDS = ("uid", "resourceVersion", "generation", "creationTimestamp", "managedFields")


@dataclass
class LintReport:
    """The objects checked, their findings, the corrected objects (``--fix``) and where candidates came from."""

    objects: list[dict[str, Any]]
    findings: list[Finding]
    fixed: list[dict[str, Any]] = field(default_factory=list)
    candidates_from: str = ""
    note: str = ""  # what was checked without the cluster (the offline line), "" when KubeVirt answered

    @property
    def unfixed(self) -> list[Finding]:
        """Findings ``--fix`` leaves to the user."""
        return [finding for finding in self.findings if not finding.fixable]


@dataclass(frozen=True)
class LintRequest:
    """What ``lint`` checks: the objects of ``filename`` (``-`` reads ``stdin``), else the cluster object
    ``kind``/``name`` of the session's namespace, else every instance type and preference in the session's
    namespace (``all_namespaces``: in every namespace) and cluster-wide; ``fix`` makes the corrected objects.
    ``validation`` is kubectl's --validate directive for ``filename``'s fields, ``offline`` asks no cluster."""

    filename: str | None = None
    stdin: Any = None
    kind: str | None = None
    name: str | None = None
    all_namespaces: bool = False
    fix: bool = False
    validation: str = "strict"
    offline: bool = False
    warn: Callable[[str], None] | None = None


def lint(session: Session, request: LintRequest) -> LintReport:
    """``lint``: the findings (and with ``fix`` the corrections) for the objects ``request`` names."""
    if request.filename:
        return from_files(
            request.filename,
            request.stdin,
            fix=request.fix,
            session=session,
            validation=request.validation,
            offline=request.offline,
            warn=request.warn,
        )
    if request.kind is not None:
        return from_cluster(session, session.namespace, request.kind, request.name, fix=request.fix)
    return from_cluster(session, None if request.all_namespaces else session.namespace, fix=request.fix)


def _clean(obj: dict[str, Any]) -> dict[str, Any]:
    metadata = {key: value for key, value in (obj.get("metadata") or {}).items() if key not in SERVER_FIELDS}
    return {**{key: value for key, value in obj.items() if key != "status"}, "metadata": metadata}


def lint_objects(
    objects: list[dict[str, Any]], candidates: list[dict[str, Any]], candidates_from: str, *, fix: bool
) -> LintReport:
    """Lint ``objects`` (instance types and preferences; other kinds are skipped) against ``candidates``."""
    from ..instancetype import lint
    from ..instancetype.kinds import INSTANCETYPE_KINDS, PREFERENCE_KINDS

    chosen = [obj for obj in objects if obj.get("kind") in INSTANCETYPE_KINDS + PREFERENCE_KINDS]
    findings = lint.lint_all(chosen, candidates)
    fixed = [_clean(lint.fix(obj)[0]) for obj in chosen] if fix else []
    return LintReport(chosen, findings, fixed, candidates_from)


LINTED_KINDS = (*TYPE_KINDS, "VirtualMachine")


def from_files(
    path: str,
    stdin: Any,
    *,
    fix: bool,
    session: Session | None = None,
    validation: str = "strict",
    offline: bool = False,
    warn: Callable[[str], None] | None = None,
) -> LintReport:
    """Lint the objects of ``-f``: their fields against KubeVirt's schema (unknown fields are findings unless
    ``validation`` says otherwise), preferences against the file's instance types and the embedded
    common-instancetypes catalog, VirtualMachines against KubeVirt's admission (the cluster's verdict by a
    server-side dry run when one answers, else the offline rules with the file's and the catalog's types). A file
    with none of the kinds lint checks is refused."""
    from ..catalog.loader import load_catalog
    from ..errors import InputError
    from ..instancetype.kinds import INSTANCETYPE_KINDS
    from .manifests import read_manifests

    objects = read_manifests(path, stdin)
    chosen = [obj for obj in objects if obj.get("kind") in LINTED_KINDS]
    if not chosen:
        found = sorted({str(obj.get("kind")) for obj in objects})
        raise InputError(
            f"{path} holds nothing lint checks (found: {', '.join(found) or 'no objects'}): lint checks "
            f"{', '.join(LINTED_KINDS[:-1])} and {LINTED_KINDS[-1]} objects"
        )
    catalog = load_catalog()
    own = [obj for obj in objects if obj.get("kind") in INSTANCETYPE_KINDS]
    candidates = own + list(catalog.instancetypes)
    report = lint_objects(
        objects, candidates, f"the file's instance types and common-instancetypes {catalog.version}", fix=fix
    )
    report.objects = chosen
    early = _field_findings(chosen, path, validation, warn)
    verdicts = _verdict_findings(session, chosen, objects, catalog, validation=validation, offline=offline)
    report.findings = early + verdicts.findings + report.findings
    report.note = verdicts.note
    return report


def _finding(obj: dict[str, Any], path: str, rule: str, message: str, replacement: str = "") -> Finding:
    from ..instancetype.lint import Finding

    metadata = obj.get("metadata") or {}
    return Finding(
        str(obj.get("kind")),
        str(metadata.get("name") or ""),
        str(metadata.get("namespace") or ""),
        path,
        rule,
        message,
        replacement,
    )


def _field_findings(
    objects: list[dict[str, Any]], source: str, validation: str, warn: Callable[[str], None] | None
) -> list[Finding]:
    """Unknown fields (``strict``: findings; ``warn``: warnings) and schema violations (always findings)."""
    from .fieldcheck import check, suggestions

    findings = []
    for obj in objects:
        problems = check(obj, source)
        if problems is None:
            continue
        for error in problems.invalid:
            findings.append(_finding(obj, error.path, "schema", error.body))
        if validation == "strict":
            for item, guess in zip(problems.unknown, suggestions(problems.unknown), strict=True):
                findings.append(
                    _finding(obj, item.path, "unknown-field", f"strict decoding error: {item.error()}", guess)
                )
        elif validation == "warn" and warn is not None:
            for line in problems.warnings():
                warn(line)
    return findings


@dataclass
class _Verdicts:
    findings: list[Finding] = field(default_factory=list)
    note: str = ""


def _verdict_findings(
    session: Session | None,
    chosen: list[dict[str, Any]],
    objects: list[dict[str, Any]],
    catalog: Any,
    *,
    validation: str,
    offline: bool,
) -> _Verdicts:
    """KubeVirt's verdict on each object (a server-side dry run), else the offline admission rules for the
    VirtualMachines whose instance type and preference the file or the catalog holds."""
    from .admission import DryRun, Verdicts, hint, offline_note

    out = _Verdicts()
    with DryRun(session, validation=validation, offline=offline) as judge:
        for obj in chosen:
            verdict = judge.ask(obj)
            if verdict is not None and verdict.error is not None:
                out.findings.append(_finding(obj, "", "admission", verdict.error.render(), hint(verdict.error.message)))
        if not judge.offline:
            return out
        if any(obj.get("kind") == "VirtualMachine" for obj in chosen):
            out.note = offline_note(Verdicts(offline=judge.offline))
    local = {
        (str(obj.get("kind")), str((obj.get("metadata") or {}).get("name") or "")): obj.get("spec") or {}
        for obj in [*objects, *catalog.instancetypes, *catalog.preferences]
        if obj.get("kind") in LINTED_KINDS[:-1]
    }
    for vm in chosen:
        if vm.get("kind") == "VirtualMachine":
            out.findings += _offline_vm_findings(vm, local)
    return out


def _offline_vm_findings(vm: dict[str, Any], local: dict[tuple[str, str], Any]) -> list[Finding]:
    """VM admission's rules offline, when every matcher of ``vm`` names an object of the file or the catalog
    (an unresolved one could fill what the rules look at: then nothing is said)."""
    from ..instancetype.expand import admission_problems
    from ..instancetype.kinds import matcher_kind
    from .admission import hint

    spec = vm.get("spec") or {}
    specs: dict[str, Any] = {"instancetype": None, "preference": None}
    for key in ("instancetype", "preference"):
        matcher = spec.get(key)
        if matcher is None:
            continue
        if not isinstance(matcher, dict) or matcher.get("inferFromVolume") or matcher.get("revisionName"):
            return []
        kind = matcher_kind(str(matcher.get("kind") or ""), key)
        if kind is None:
            return []  # KubeVirt denies the kind itself: not the rules' to say
        found = local.get((kind.kind, str(matcher.get("name") or "")))
        if found is None:
            return []
        specs[key] = found
    problems = admission_problems(vm, specs["instancetype"], specs["preference"], whole_vm=True)
    return [_finding(vm, problem.path, "admission", problem.error(), hint(problem.error())) for problem in problems]


def from_cluster(
    session: Session, namespace: str | None, kind: str | None = None, name: str | None = None, *, fix: bool
) -> LintReport:
    """Lint one cluster object (``kind``/``name``) or every instance type and preference in scope (``namespace``
    None: all namespaces); preferences are checked against the cluster's instance types."""
    from ..kube import resources

    client = session.client()
    kinds = (
        resources.CLUSTER_INSTANCETYPES,
        resources.INSTANCETYPES,
        resources.CLUSTER_PREFERENCES,
        resources.PREFERENCES,
    )
    listed: dict[str, list[dict[str, Any]]] = {}
    for resource in kinds:
        scope = namespace if resource.namespaced else None
        listed[resource.kind] = [
            {"apiVersion": resource.api_version, "kind": resource.kind, **item}
            for page in client.list_pages(resource, scope)
            for item in page.get("items") or ()
        ]
    candidates = listed["VirtualMachineClusterInstancetype"] + listed["VirtualMachineInstancetype"]
    if kind is not None:
        resource = resources.BY_KIND[kind]
        obj = client.get(resource, str(name), session.namespace if resource.namespaced else None)
        objects = [{"apiVersion": resource.api_version, "kind": resource.kind, **obj}]
    else:
        objects = [obj for resource in kinds for obj in listed[resource.kind]]
    return lint_objects(objects, candidates, "the cluster's instance types", fix=fix)
