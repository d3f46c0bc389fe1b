"""``kubectl instancetype expand``: a VirtualMachine with its instance type and preference applied, as KubeVirt would.

No ``from __future__ import annotations`` in command modules (typer evaluates annotations on every run).
"""

from typing import Annotated, Any, Optional

import typer

from . import options

OUTPUT_PANEL = "Output"
SOURCE_PANEL = "Sources"
CLUSTER_PANEL = "Cluster defaults"
EXPAND_VM_SPEC = "/apis/subresources.kubevirt.io/v1/namespaces/{namespace}/expand-vm-spec"
EXPAND_SPEC = "/apis/subresources.kubevirt.io/v1/namespaces/{namespace}/virtualmachines/{name}/expand-spec"
VM_PREFIXES = ("vm/", "vms/", "virtualmachine/", "virtualmachines/", "virtualmachine.kubevirt.io/")

HELP = """Show a VirtualMachine with its instance type and preference applied, as KubeVirt applies them.

The output is the whole VirtualMachine with spec.template.spec expanded and the matchers removed, as
KubeVirt's expand returns it: default disks and the default pod network, the instance type (conflicts
are errors), the preference (filling only unset fields), then VMI defaults. Unlike KubeVirt's expand,
inferFromVolume matchers are inferred first, and VM admission's checks (spread divisibility, preference
requirements) are run unless --skip-checks.

The instance type and preference are read from the cluster (honouring revisionName and the ControllerRevisions
in status), from --instancetype-file / --preference-file, or from documents of the same file (-f); with
everything local no cluster is contacted.

\b
Examples:
  kubectl instancetype expand vm/my-vm
  kubectl instancetype expand -f vm.yaml --explain
  kubectl instancetype expand -f vm.yaml --instancetype-file u1.medium.yaml --preference-file fedora.yaml --diff
  kubectl instancetype expand vm/my-vm --server -o json"""


def register(app: typer.Typer, argv: list[str]) -> None:
    """Add the command to ``app``."""
    app.command("expand", help=HELP, short_help="Show a VirtualMachine with its instance type and preference applied.")(
        expand_command
    )


def expand_command(
    ctx: typer.Context,
    target: Annotated[
        Optional[str], typer.Argument(metavar="[vm/NAME]", help="A stored VirtualMachine.", show_default=False)
    ] = None,
    filename: Annotated[
        Optional[str],
        typer.Option(
            "-f",
            "--filename",
            "--file",
            metavar="FILE",
            help="A VirtualMachine manifest (YAML or JSON, one or more documents); - reads stdin.",
            rich_help_panel=SOURCE_PANEL,
            show_default=False,
        ),
    ] = None,
    instancetype_file: Annotated[
        Optional[str],
        typer.Option(
            "--instancetype-file",
            metavar="FILE",
            help="Use this (cluster) instance type instead of the one the VM names.",
            rich_help_panel=SOURCE_PANEL,
            show_default=False,
        ),
    ] = None,
    preference_file: Annotated[
        Optional[str],
        typer.Option(
            "--preference-file",
            metavar="FILE",
            help="Use this (cluster) preference instead of the one the VM names.",
            rich_help_panel=SOURCE_PANEL,
            show_default=False,
        ),
    ] = None,
    server: Annotated[
        bool,
        typer.Option(
            "--server",
            help="Ask the cluster's KubeVirt (expand-vm-spec subresource) instead of expanding locally.",
            rich_help_panel=SOURCE_PANEL,
        ),
    ] = False,
    output: Annotated[
        str,
        typer.Option("-o", "--output", metavar="FORMAT", help="yaml or json.", rich_help_panel=OUTPUT_PANEL),
    ] = "yaml",
    diff: Annotated[
        bool,
        typer.Option(
            "--diff", help="A unified diff of spec.template.spec before and after.", rich_help_panel=OUTPUT_PANEL
        ),
    ] = False,
    explain: Annotated[
        bool,
        typer.Option(
            "--explain",
            help="A table of every field the expansion set: FIELD, VALUE, SOURCE (instancetype, preference, default).",
            rich_help_panel=OUTPUT_PANEL,
        ),
    ] = False,
    skip_checks: Annotated[
        bool,
        typer.Option(
            "--skip-checks",
            help="Do not run VM admission's spread and requirement checks (KubeVirt's expand does not).",
        ),
    ] = False,
    default_architecture: Annotated[
        str,
        typer.Option(
            "--default-architecture",
            metavar="ARCH",
            help="The cluster's default architecture, for VMs and preferences that set none.",
            rich_help_panel=CLUSTER_PANEL,
        ),
    ] = "amd64",
    default_network_interface: Annotated[
        str,
        typer.Option(
            "--default-network-interface",
            metavar="BINDING",
            help="The cluster's default pod interface binding (bridge or masquerade).",
            rich_help_panel=CLUSTER_PANEL,
        ),
    ] = "bridge",
    kubeconfig: options.Kubeconfig = None,
    context: options.Context = None,
    namespace: options.Namespace = None,
    request_timeout: options.RequestTimeout = "0",
    verbosity: options.Verbosity = 0,
) -> None:
    """Expand VirtualMachines and print them, their diff or their provenance."""
    from ..errors import UsageError

    env = ctx.obj
    env.verbosity = verbosity
    if output not in ("yaml", "json"):
        raise UsageError(f"not supported output format defined: {output} (use yaml or json)")
    if diff and explain:
        raise UsageError("--diff and --explain cannot be used together")
    if (target is None) == (filename is None):
        raise UsageError("a VirtualMachine (vm/NAME) or a file (-f FILE) must be given, but not both")
    if server and (instancetype_file or preference_file):
        raise UsageError(
            "--server expands with the cluster's objects; it cannot use --instancetype-file or --preference-file"
        )
    name = None
    if target is not None:
        name = next((target[len(p) :] for p in VM_PREFIXES if target.lower().startswith(p)), target)
        if not name or "/" in name:
            raise UsageError(f'expand takes a VirtualMachine: vm/NAME, not "{target}"')
    from ..instancetype.expand import ClusterDefaults

    run = _Run(
        env,
        options.connection_options(kubeconfig, context, namespace, request_timeout),
        ClusterDefaults(architecture=default_architecture, network_interface=default_network_interface),
        check=not skip_checks,
    )
    try:
        if filename is not None:
            vms = run.read_manifests(filename)
        else:
            vms = [run.stored_vm(name or "")]
        run.load_overrides(instancetype_file, preference_file)
        results = [run.expand_server(vm, stored=name is not None) if server else run.expand_local(vm) for vm in vms]
    finally:
        run.close()
    failed = [result for result in results if result[1] is None]
    if failed:
        for vm, _, problems in failed:
            prefix = f"virtualmachine/{_vm_name(vm)}: " if len(vms) > 1 else ""
            for line in problems:
                env.stderr.write(f"error: {prefix}{line}\n")
        raise typer.Exit(1)
    expanded = [(vm, data) for vm, data, _ in results]
    if explain:
        _print_explain(env, expanded)
    elif diff:
        _print_diff(env, expanded)
    else:
        _print_objects(env, output, [data for _, data in expanded])


def _vm_name(vm) -> str:
    return str((vm.get("metadata") or {}).get("name") or "")


def _read_documents(env, path: str) -> list:
    """The documents of a YAML or JSON file (``-`` = stdin), empty ones dropped."""
    from ..errors import InputError

    try:
        if path == "-":
            text = env.stdin.read()
        else:
            with open(path, encoding="utf-8") as stream:
                text = stream.read()
    except OSError as exc:
        raise InputError(f"error reading file {exc}") from exc
    import yaml

    try:
        documents = [doc for doc in yaml.safe_load_all(text) if doc is not None]
    except yaml.YAMLError as exc:
        raise InputError(f"error decoding {path}: {exc}") from exc
    flat: list[dict] = []
    for doc in documents:
        if not isinstance(doc, dict):
            raise InputError(f"error decoding {path}: a document is not an object")
        # a kubectl List holds its objects in items
        flat.extend((doc.get("items") or []) if doc.get("kind") == "List" else [doc])
    return flat


INSTANCETYPE_KINDS = ("VirtualMachineInstancetype", "VirtualMachineClusterInstancetype")
PREFERENCE_KINDS = ("VirtualMachinePreference", "VirtualMachineClusterPreference")


class _Run:
    """One invocation: the cluster connection (opened on first need), local objects, and the expansions."""

    def __init__(self, env, connection, defaults, *, check: bool) -> None:
        self.env = env
        self.connection = connection
        self.defaults = defaults
        self.check = check
        self.client: Any = None
        self.local: dict[tuple[str, Any], dict] = {}  # (kind, name) -> object, from -f documents
        self.overrides: dict[str, Any] = {}  # "instancetype"/"preference" -> spec from --*-file

    def connect(self):
        if self.client is None:
            from ..kube.client import connect
            from ..output import messages

            self.client = connect(self.connection, self.env.environ, self.env.home(), messages.request_logger(self.env))
        return self.client

    def close(self) -> None:
        if self.client is not None:
            self.client.close()

    def namespace_of(self, vm) -> str:
        """The VM's namespace, else -n, else the context's (only read when the cluster is needed anyway)."""
        namespace = (vm.get("metadata") or {}).get("namespace")
        if namespace:
            return str(namespace)
        if self.connection.namespace:
            return self.connection.namespace
        return self.connect().namespace if self._needs_cluster(vm) else "default"

    def _needs_cluster(self, vm) -> bool:
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

    def read_manifests(self, path: str) -> list:
        from ..errors import InputError

        vms = []
        for doc in _read_documents(self.env, path):
            kind = doc.get("kind")
            if kind == "VirtualMachine":
                vms.append(doc)
            elif kind in INSTANCETYPE_KINDS + PREFERENCE_KINDS:
                self.local[(kind, (doc.get("metadata") or {}).get("name"))] = doc
        if not vms:
            raise InputError(f"error decoding VirtualMachine: no VirtualMachine in {path}")
        return vms

    def load_overrides(self, instancetype_file, preference_file) -> None:
        from ..errors import InputError

        for key, path, kinds in (
            ("instancetype", instancetype_file, INSTANCETYPE_KINDS),
            ("preference", preference_file, PREFERENCE_KINDS),
        ):
            if path is None:
                continue
            docs = _read_documents(self.env, path)
            if len(docs) != 1 or (docs[0].get("kind") not in kinds and "spec" in docs[0]):
                raise InputError(f"{path}: expected one {' or '.join(kinds)}")
            self.overrides[key] = docs[0]["spec"] if "spec" in docs[0] else docs[0]

    def stored_vm(self, name: str):
        from ..kube.resources import VIRTUAL_MACHINES

        client = self.connect()
        return client.get(VIRTUAL_MACHINES, name, client.namespace)

    def fetch(self, kind: str, name: str, namespace: str):
        """Get an object for the resolver: local documents first, then the cluster; None when NotFound."""
        if (kind, name) in self.local:
            return self.local[(kind, name)]
        from ..errors import NotFoundError
        from ..kube.resources import BY_KIND

        resource = BY_KIND[kind]
        try:
            return self.connect().get(resource, name, namespace if resource.namespaced else None)
        except NotFoundError:
            return None

    def expand_local(self, vm):
        """(vm, (expanded VM, provenance) or None, problem lines) with the engine."""
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
            return vm, None, [str(exc)]
        if not had_namespace:
            # KubeVirt's expand returns the VM as it was given, without a namespace it did not have
            resolved["metadata"].pop("namespace", None)
        result = expand_vm(
            resolved, specs["instancetype"], specs["preference"], defaults=self.defaults, check=self.check
        )
        if result.vm is None:
            return vm, None, [_problem_line(problem) for problem in result.problems]
        return vm, (result.vm, result.provenance), []

    def expand_server(self, vm, *, stored: bool):
        """(vm, expanded VM or None, problem lines) from KubeVirt: ``expand-spec`` of a stored VM, else ``expand-vm-spec``."""
        from ..errors import APIError, NotFoundError, PluginError
        from ..kube.resources import escape

        client = self.connect()
        namespace = (vm.get("metadata") or {}).get("namespace") or client.namespace
        try:
            if stored:
                path = EXPAND_SPEC.format(namespace=escape(namespace), name=escape(_vm_name(vm)))
                expanded = client.transport.request("GET", path)
            else:
                expanded = client.transport.request("PUT", EXPAND_VM_SPEC.format(namespace=escape(namespace)), vm)
        except NotFoundError as exc:
            if "could not find the requested resource" in exc.message or "page not found" in exc.message:
                subresource = "expand-spec" if stored else "expand-vm-spec"
                raise PluginError(
                    f"the server does not serve KubeVirt's {subresource} subresource (subresources.kubevirt.io/v1); "
                    "expand without --server to expand locally"
                ) from exc
            raise
        except APIError as exc:
            return vm, None, [exc.message]
        return vm, (expanded, {}), []


def _problem_line(problem) -> str:
    """KubeVirt's message, with its field path in front when the message does not name it."""
    message = problem.error()
    return message if problem.path in message else f"{problem.path}: {message}"


def _print_objects(env, output: str, results) -> None:
    vms = [expanded for expanded, _ in results]
    if output == "json":
        import json

        from ..output.printers import as_list

        document = vms[0] if len(vms) == 1 else as_list(vms)
        env.stdout.write(json.dumps(document, indent=4, sort_keys=True, ensure_ascii=False) + "\n")
        return
    from ..output.goyaml import dump, dump_all

    env.stdout.write(dump(vms[0]) if len(vms) == 1 else dump_all(vms))


def _template_spec(vm) -> dict:
    return ((vm.get("spec") or {}).get("template") or {}).get("spec") or {}


def _print_diff(env, results) -> None:
    import difflib

    from ..output.goyaml import dump

    for vm, (expanded, _) in results:
        name = _vm_name(vm)
        before = dump(_template_spec(vm)).splitlines(keepends=True)
        after = dump(_template_spec(expanded)).splitlines(keepends=True)
        env.stdout.writelines(
            difflib.unified_diff(
                before, after, f"virtualmachine/{name} spec.template.spec", f"virtualmachine/{name} expanded"
            )
        )


def _format_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (dict, list)):
        import json

        return json.dumps(value, separators=(",", ":"), sort_keys=True)
    return "" if value is None else str(value)


def _path_key(path: str):
    """Sort fields by path with list indexes in numeric order."""
    import re

    return [int(part) if part.isdigit() else part for part in re.split(r"\[(\d+)\]", path)]


def _print_explain(env, results) -> None:
    from ..instancetype.expand import lookup
    from ..output.table import render_table

    blocks = []
    for vm, (expanded, provenance) in results:
        rows = [
            (path, _format_value(lookup(expanded, path)), source)
            for path, source in sorted(provenance.items(), key=lambda item: _path_key(item[0]))
        ]
        header = f"virtualmachine/{_vm_name(vm)}\n" if len(results) > 1 else ""
        blocks.append(header + render_table(("FIELD", "VALUE", "SOURCE"), rows))
    env.stdout.write("\n".join(blocks))
