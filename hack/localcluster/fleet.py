"""More API servers beside a plane, for a fleet of kubeconfig contexts: bare kube-apiservers that share the plane's
etcd, each under its own ``--etcd-prefix``, with KubeVirt's CRDs of a chosen version and a catalog of their own.

A kube-apiserver keeps everything it stores under ``--etcd-prefix`` (default ``/registry``): two servers on one etcd
with different prefixes are two clusters that share nothing (not their CRDs, RBAC, namespaces nor objects). That
makes an extra cluster cost one kube-apiserver process (about 2-4 s to ready, plus its CRDs), not another etcd.
No controller runs for them: no namespace deletion, no garbage collection, no KubeVirt (use the plane for that).

:func:`write_kubeconfig` writes one kubeconfig naming several clusters, users and contexts, as a user with a fleet
has it. The test fixtures (tests/conftest.py ``fleet``) and ``make demo`` use both.
"""

from __future__ import annotations

import copy
import os
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from .controlplane import ControlPlane

# The CRDs an extra server serves: KubeVirt's instance types and preferences (both scopes), and the VMs (usage,
# revisions, lint read them). Fewer CRDs is a faster start: VMIs' and VMs' schemas are the largest.
KUBEVIRT_CRDS = (
    "virtualmachineinstancetypes.instancetype.kubevirt.io",
    "virtualmachineclusterinstancetypes.instancetype.kubevirt.io",
    "virtualmachinepreferences.instancetype.kubevirt.io",
    "virtualmachineclusterpreferences.instancetype.kubevirt.io",
    "virtualmachines.kubevirt.io",
)
VERSION_LABEL = "instancetype.kubevirt.io/common-instancetypes-version"


@dataclass
class SharedEtcdAPIServer(ControlPlane):
    """A bare kube-apiserver on ``etcd_url`` (another plane's etcd) under ``etcd_prefix``, with KubeVirt's CRDs
    (:data:`KUBEVIRT_CRDS` of ``kubevirt_version``), the plane's users (admin and :data:`USERS`, tokens of its own)
    and their RBAC. Start and stop it as a :class:`ControlPlane`; stopping it stops its kube-apiserver only."""

    etcd_prefix: str = "/fleet"
    kubevirt: bool = False
    controller_manager: bool = False
    scheduler: bool | None = False

    def _start_processes(self) -> None:
        if not self.etcd_url:
            raise RuntimeError("SharedEtcdAPIServer needs etcd_url: the etcd of a running plane")
        certs = self.workdir / "certs"
        certs.mkdir(exist_ok=True)
        self._write_credentials()
        self._spawn(
            "kube-apiserver",
            self._apiserver_argv(certs, f"--etcd-prefix={self.etcd_prefix}", "--authorization-mode=RBAC"),
        )

    def install_crds(self, crds: list[dict] | None = None) -> None:
        """Only :data:`KUBEVIRT_CRDS` (of this server's KubeVirt version)."""
        wanted = crds if crds is not None else [c for c in self._crds if c["metadata"]["name"] in KUBEVIRT_CRDS]
        super().install_crds(wanted)


def start_server(
    plane: ControlPlane, name: str, workdir: Path, kubevirt_version: str | None = None
) -> SharedEtcdAPIServer:
    """Start a :class:`SharedEtcdAPIServer` on ``plane``'s etcd under ``/fleet-<name>`` (work files in ``workdir``)."""
    server = SharedEtcdAPIServer(
        bin_dir=plane.bin_dir,
        workdir=workdir,
        etcd_url=plane.etcd_url,
        etcd_prefix=f"/fleet-{name}",
        kubevirt_version=kubevirt_version or plane.kubevirt_version,
    )
    return server.start()


def catalog_variant(
    version: str,
    *,
    drop: Iterable[str] = (),
    memory: dict[str, str] | None = None,
    cpu: dict[str, int] | None = None,
    namespace: str | None = None,
) -> list[dict]:
    """The embedded catalog as another common-instancetypes release would have it: every object labelled
    ``common-instancetypes-version: version``, the names in ``drop`` left out, and ``memory``/``cpu`` (name -> guest
    value) changed on those instance types. ``namespace``: the namespaced copies instead of the cluster objects."""
    from kubectl_instancetype.catalog.loader import load_catalog

    catalog = load_catalog()
    if namespace:
        catalog = catalog.namespaced(namespace)
    dropped = set(drop)
    objects = []
    for obj in [*catalog.instancetypes, *catalog.preferences]:
        name = obj["metadata"]["name"]
        if name in dropped:
            continue
        obj = copy.deepcopy(obj)
        obj["metadata"].setdefault("labels", {})[VERSION_LABEL] = version
        if obj["kind"].endswith("Instancetype"):
            if memory and name in memory:
                obj["spec"]["memory"]["guest"] = memory[name]
            if cpu and name in cpu:
                obj["spec"]["cpu"]["guest"] = cpu[name]
        objects.append(obj)
    return objects


@dataclass
class Member:
    """One context of a fleet kubeconfig: its cluster (server URL, CA file or none for plain HTTP) and its user's
    token (``None``: a user with no credentials)."""

    context: str
    server: str
    ca_file: Path | None = None
    token: str | None = None
    user: str = ""
    namespace: str = "default"
    extra_user: dict = field(default_factory=dict)  # more keys of the user entry (exec, as, ...)


def write_kubeconfig(path: Path, members: Sequence[Member], current: str | None = None) -> Path:
    """One kubeconfig with a cluster, a user and a context per member (named after the context, the user after
    ``member.user`` when given, so several contexts may share one user)."""
    clusters, users, contexts = [], {}, []
    for member in members:
        cluster: dict = {"server": member.server}
        if member.ca_file is not None:
            cluster["certificate-authority"] = str(member.ca_file)
        clusters.append({"name": member.context, "cluster": cluster})
        user_name = member.user or member.context
        user: dict = {}
        if member.token:
            user["token"] = member.token
        user.update(member.extra_user)
        users.setdefault(user_name, user)
        contexts.append(
            {
                "name": member.context,
                "context": {"cluster": member.context, "user": user_name, "namespace": member.namespace},
            }
        )
    config = {
        "apiVersion": "v1",
        "kind": "Config",
        "current-context": current or members[0].context,
        "clusters": clusters,
        "users": [{"name": name, "user": user} for name, user in users.items()],
        "contexts": contexts,
    }
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    os.chmod(path, 0o600)
    return path


def start_servers(plane: ControlPlane, specs: dict[str, str | None], workdir: Path) -> dict[str, SharedEtcdAPIServer]:
    """Start one :class:`SharedEtcdAPIServer` per ``{name: kubevirt_version}`` concurrently (each stopped again when
    another fails)."""
    with ThreadPoolExecutor(max_workers=max(1, len(specs))) as pool:
        futures = {
            name: pool.submit(start_server, plane, name, workdir / name, version) for name, version in specs.items()
        }
    servers, failure = {}, None
    for name, future in futures.items():
        try:
            servers[name] = future.result()
        except BaseException as exc:  # the others are stopped, then it is raised
            failure = failure or exc
    if failure is not None:
        for server in servers.values():
            server.stop()
        raise failure
    return servers
