"""Expanding VirtualMachines: their instance type and preference resolved (the cluster, ControllerRevisions,
``-f`` documents or ``--*-file``), inference run first, then the pure expansion engine
(:mod:`..instancetype.expand`) or KubeVirt's own ``expand-spec`` subresources (``--server``)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..instancetype.kinds import INSTANCETYPE_KINDS, PREFERENCE_KINDS
from .admission import Verdicts
from .manifests import iter_manifests, read_manifests, read_sources

if TYPE_CHECKING:
    from ..kube.session import Session
    from .launcher_inputs import LauncherPods


@dataclass(frozen=True)
class LauncherPodRequest:
    """``expand --launcher-pod``: the flags that override the KubeVirt configuration's defaults (None: the
    configuration's) and where the warnings about the configuration go."""

    architecture: str | None = None
    network_interface: str | None = None
    warn: Callable[[str], None] | None = None


def vm_name(vm: Mapping[str, Any]) -> str:
    """The VirtualMachine's name ("" without one)."""
    return str((vm.get("metadata") or {}).get("name") or "")


@dataclass
class Expanded:
    """A VirtualMachine as given, and as expanded with where each field came from (``provenance``: field path ->
    instancetype, preference or default; empty from the server), or None with the problems that stopped it."""

    vm: dict[str, Any]
    expanded: dict[str, Any] | None = None
    provenance: dict[str, str] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    launcher_pod: dict[str, Any] | None = None

    @property
    def name(self) -> str:
        """The VirtualMachine's name ("" without one)."""
        return vm_name(self.vm)


def expand(
    session: Session,
    defaults: Any,
    *,
    stdin: Any,
    name: str | None = None,
    filename: str | None = None,
    instancetype_file: str | None = None,
    preference_file: str | None = None,
    server: bool = False,
    check: bool = True,
    launcher_pod: LauncherPodRequest | None = None,
    validation: str = "strict",
    offline: bool = False,
    warn: Callable[[str], None] | None = None,
    note: Callable[[str], None] | None = None,
) -> Iterator[Expanded]:
    """``expand``: the stored VirtualMachine ``name`` or the VirtualMachines of ``filename``, each expanded
    locally (the engine) or by the cluster's KubeVirt (``server``), one at a time: a file of 100,000 VMs is
    converted, expanded and handed over document by document (its text is read once, within -f's bound).

    With ``launcher_pod``, each VM also gets the scheduling part of the virt-launcher pod virt-controller
    will create for it (``Expanded.launcher_pod``), with the cluster's KubeVirt configuration when the
    expansion reads the cluster and KubeVirt's defaults when it does not (``launcher_pod.warn`` says so).

    The VMs of ``filename`` are checked against KubeVirt's schema (``validation``: kubectl's --validate
    directive; ``warn`` receives its warnings) and, when a cluster is reachable and ``check`` is on, judged by
    KubeVirt with a server-side dry run (:mod:`.admission`; ``offline`` asks nothing): a VM KubeVirt denies is
    not expanded, its problem is KubeVirt's words. Unanswered, ``note`` receives the one line that says what
    was checked offline."""
    from .admission import DryRun, offline_note

    run = Expansion(
        session, defaults, check=check, stdin=stdin, launcher_pod=launcher_pod, validation=validation, warn=warn
    )
    if filename is not None:
        vms: Iterable[dict[str, Any]] = run.stream_manifests(filename)
    else:
        vms = [run.stored_vm(name or "")]
    run.load_overrides(instancetype_file, preference_file)
    # --server is KubeVirt's expand and nothing else (it does not run admission): as --skip-checks, no dry run
    asked = filename is not None and check and not server
    stored = name is not None
    with DryRun(session if asked else None, validation=validation, offline=offline) as judge:
        for vm in vms:
            verdict = judge.ask(vm) if asked else None
            if verdict is not None and not verdict.admitted:
                yield Expanded(vm, problems=[verdict.line()])
                continue
            yield run.expand_server(vm, stored=stored) if server else run.expand_local(vm, stored=stored)
        if asked and judge.offline and note is not None:
            note(offline_note(Verdicts(offline=judge.offline)))


_KIND_LINE = re.compile(r"^kind:[ \t]*([A-Za-z0-9]+)[ \t]*(?:#.*)?$", re.MULTILINE)


def _document_kind(chunk: str) -> str | None:
    """The ``kind`` of a block-style YAML document read from its one top-level ``kind:`` line; None when that is
    not plain (flow style, JSON, several lines, none): the document is then converted to know."""
    found = _KIND_LINE.findall(chunk)
    return found[0] if len(found) == 1 else None


def _plainly_a_vm(chunk: str) -> bool:
    return _document_kind(chunk) == "VirtualMachine"


def _plainly_not_a_vm(chunk: str) -> bool:
    kind = _document_kind(chunk)
    return kind is not None and kind != "VirtualMachine" and not kind.endswith("List")


class Expansion:
    """One invocation: the cluster connection (opened on first need), local objects, and the expansions.

    Every method returns data; nothing is printed here.
    """

    def __init__(
        self,
        session: Session,
        defaults: Any,
        *,
        check: bool,
        stdin: Any,
        launcher_pod: LauncherPodRequest | None = None,
        validation: str | None = None,
        warn: Callable[[str], None] | None = None,
    ) -> None:
        self.session = session
        self.validation = validation
        self.warn = warn
        self.stdin = stdin
        self.defaults = defaults
        self.check = check
        self.launcher_request = launcher_pod
        self.launcher: LauncherPods | None = None
        if launcher_pod is not None:
            from .launcher_inputs import LauncherPods

            self.launcher = LauncherPods(session, launcher_pod.warn)
        self.local: dict[tuple[str, Any], dict[str, Any]] = {}  # (kind, name) -> object, from -f documents
        self.overrides: dict[str, Any] = {}  # "instancetype"/"preference" -> spec from --*-file

    def connect(self) -> Any:
        """The cluster client (the session connects on first need: offline expansions never connect)."""
        return self.session.client()

    def namespace_of(self, vm: Mapping[str, Any]) -> str:
        """The VM's namespace, else -n, else the context's (only read when the cluster is needed anyway)."""
        namespace = (vm.get("metadata") or {}).get("namespace")
        if namespace:
            return str(namespace)
        if self.session.namespace_flag:
            return str(self.session.namespace_flag)
        return self.session.namespace if self._needs_cluster(vm) else "default"

    def _needs_cluster(self, vm: Mapping[str, Any]) -> bool:
        """True unless every matcher of ``vm`` is answered by --*-file or a document of the -f file."""
        spec = vm.get("spec") or {}
        for key, kinds in (("instancetype", INSTANCETYPE_KINDS), ("preference", PREFERENCE_KINDS)):
            matcher = spec.get(key)
            if matcher is None or key in self.overrides:
                continue
            if matcher.get("inferFromVolume") or matcher.get("revisionName"):
                return True
            if not any((kind, matcher.get("name")) in self.local for kind in kinds):
                return True
        return False

    def read_manifests(self, path: str) -> list[dict[str, Any]]:
        """The VirtualMachines of ``path``; its instance types and preferences are kept as local objects."""
        return list(self.stream_manifests(path))

    def stream_manifests(self, path: str) -> Iterator[dict[str, Any]]:
        """The VirtualMachines of ``path`` one at a time. A first pass keeps its instance types and preferences
        as local objects (a VM may name one written after it) without converting the VM documents; the second
        converts each VM as it is handed over."""
        from ..errors import InputError

        sources = read_sources(path, self.stdin)
        for source in sources:
            for doc in iter_manifests(source.text, source.name, skip=_plainly_a_vm):
                kind = doc.get("kind")
                if kind in INSTANCETYPE_KINDS + PREFERENCE_KINDS:
                    self._enforce(doc, source.name)
                    self.local[(kind, (doc.get("metadata") or {}).get("name"))] = doc
        found = False
        for source in sources:
            for doc in iter_manifests(source.text, source.name, skip=_plainly_not_a_vm):
                if doc.get("kind") == "VirtualMachine":
                    self._enforce(doc, source.name)
                    found = True
                    yield doc
        if not found:
            raise InputError(f"error decoding VirtualMachine: no VirtualMachine in {path}")

    def _enforce(self, obj: dict[str, Any], source: str) -> None:
        if self.validation is not None:
            from .fieldcheck import enforce

            enforce(obj, source, self.validation, self.warn)

    def load_overrides(self, instancetype_file: str | None, preference_file: str | None) -> None:
        """Read --instancetype-file / --preference-file (an object or a bare spec)."""
        from ..errors import InputError

        for key, path, kinds in (
            ("instancetype", instancetype_file, INSTANCETYPE_KINDS),
            ("preference", preference_file, PREFERENCE_KINDS),
        ):
            if path is None:
                continue
            docs = read_manifests(path, self.stdin, typed=False)
            if len(docs) != 1 or (docs[0].get("kind") not in kinds and "spec" in docs[0]):
                raise InputError(f"{path}: expected one {' or '.join(kinds)}")
            self.overrides[key] = docs[0]["spec"] if "spec" in docs[0] else docs[0]

    def stored_vm(self, name: str) -> dict[str, Any]:
        """GET the VirtualMachine ``name`` in the client's namespace."""
        from ..kube.resources import VIRTUAL_MACHINES

        client = self.connect()
        stored: dict[str, Any] = client.get(VIRTUAL_MACHINES, name, self.session.namespace)
        return stored

    def fetch(self, kind: str, name: str, namespace: str) -> Any:
        """Get an object for the resolver: local documents first, then the cluster; None when NotFound."""
        if (kind, name) in self.local:
            return self.local[(kind, name)]
        from .revisions import cluster_fetch

        return cluster_fetch(self.connect())(kind, name, namespace)

    def _launcher_defaults(self, online: bool) -> Any:
        """The expansion's cluster defaults for a launcher pod: the KubeVirt configuration's, flags first."""
        from .launcher_inputs import cluster_defaults

        assert self.launcher is not None and self.launcher_request is not None
        config = self.launcher.inputs(offline=not online).config
        request = self.launcher_request
        return cluster_defaults(config, architecture=request.architecture, network_interface=request.network_interface)

    def _with_launcher_pod(self, result: Expanded, online: bool) -> Expanded:
        if self.launcher is None or result.expanded is None:
            return result
        predicted = self.launcher.render(result.expanded, offline=not online)
        if predicted.pod is None:
            return Expanded(result.vm, problems=list(predicted.problems))
        result.launcher_pod = predicted.pod
        return result

    def expand_local(self, vm: dict[str, Any], *, stored: bool = False) -> Expanded:
        """``vm`` expanded with the engine (or the problems that stop it), with its launcher pod when asked."""
        online = stored or self._needs_cluster(vm)
        defaults = self._launcher_defaults(online) if self.launcher is not None else self.defaults
        return self._with_launcher_pod(self._expand_local(vm, defaults), online)

    def _expand_local(self, vm: dict[str, Any], defaults: Any) -> Expanded:
        from ..instancetype.expand import expand_vm
        from ..instancetype.expand.resolve import ResolveError, find_spec, infer

        had_namespace = bool((vm.get("metadata") or {}).get("namespace"))
        located = {**vm, "metadata": {**(vm.get("metadata") or {}), "namespace": self.namespace_of(vm)}}
        try:
            resolved = infer(located, self.fetch)
            specs = {}
            for key in ("instancetype", "preference"):
                if key in self.overrides and (resolved.get("spec") or {}).get(key) is not None:
                    specs[key] = self.overrides[key]
                else:
                    specs[key] = find_spec(resolved, key, self.fetch)[0]
        except ResolveError as exc:
            return Expanded(vm, problems=[str(exc)])
        if not had_namespace and not (self.session.namespace_flag or self._needs_cluster(vm)):
            # KubeVirt's expand-vm-spec writes the request's namespace into the VM (pkg/virt-api/rest/expand.go:
            # vm.Namespace = the path's namespace); with no -n and no cluster read, no namespace is known
            resolved["metadata"].pop("namespace", None)
        result = expand_vm(resolved, specs["instancetype"], specs["preference"], defaults=defaults, check=self.check)
        if result.vm is None:
            return Expanded(vm, problems=self._with_hints(vm, resolved, specs["preference"], result.problems))
        return Expanded(vm, result.vm, result.provenance)

    def _with_hints(
        self, vm: dict[str, Any], resolved: dict[str, Any], preference_spec: Any, problems: Sequence[Any]
    ) -> list[str]:
        """The problems' lines, a requirements failure with the smallest instance types that satisfy the
        preference: the cluster's when the expansion read the cluster, else the embedded catalog's (an expansion
        from local files contacts no cluster)."""
        from .fitting import matcher_preference, with_hints

        lines = [problem_line(problem) for problem in problems]
        preference = matcher_preference(resolved, preference_spec)
        if preference is None:
            return lines
        on_cluster = self._needs_cluster(vm)
        return with_hints(self.session if on_cluster else None, lines, preference, catalog=not on_cluster)

    def expand_server(self, vm: dict[str, Any], *, stored: bool) -> Expanded:
        """``vm`` expanded by KubeVirt: ``expand-spec`` of a stored VM, else ``expand-vm-spec``."""
        from ..errors import APIError, NotFoundError, PluginError

        client = self.connect()
        namespace = (vm.get("metadata") or {}).get("namespace") or self.session.namespace
        try:
            if stored:
                expanded = client.expand_spec(vm_name(vm), namespace)
            else:
                expanded = client.expand_vm_spec(vm, namespace)
        except NotFoundError as exc:
            if "could not find the requested resource" in exc.message or "page not found" in exc.message:
                subresource = "expand-spec" if stored else "expand-vm-spec"
                raise PluginError(
                    f"the server does not serve KubeVirt's {subresource} subresource (subresources.kubevirt.io/v1); "
                    "expand without --server to expand locally"
                ) from exc
            raise
        except APIError as exc:
            return Expanded(vm, problems=self._server_hints(vm, exc.message))
        return self._with_launcher_pod(Expanded(vm, expanded), True)

    def _server_hints(self, vm: dict[str, Any], message: str) -> list[str]:
        """The server's message; a requirements failure (KubeVirt v1.9's expand does not check requirements, a
        later one may) with the smallest instance types that satisfy the preference."""
        from .fitting import is_requirements_failure, matcher_preference, with_hints

        if not is_requirements_failure(message):
            return [message]
        from ..errors import PluginError
        from ..instancetype.expand.resolve import ResolveError, find_spec

        located = {**vm, "metadata": {**(vm.get("metadata") or {}), "namespace": self.namespace_of(vm)}}
        try:
            spec = find_spec(located, "preference", self.fetch)[0]
        except (ResolveError, PluginError):
            spec = None
        preference = matcher_preference(vm, spec)
        return with_hints(self.session, [message], preference) if preference is not None else [message]


def problem_line(problem: Any) -> str:
    """KubeVirt's message, with its field path in front when the message does not name it."""
    message = problem.error()
    return message if problem.path in message else f"{problem.path}: {message}"
