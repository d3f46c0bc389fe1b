"""KubeVirt's virt-api and virt-controller and CDI's cdi-apiserver as local processes beside kube-apiserver.

What virt-operator and CDI's operator would do on a cluster, done here with their own manifests
(hack/localcluster/crds.py): namespaces ``kubevirt`` and ``cdi``, the components' service accounts and RBAC,
kubeconfigs carrying tokens of those service accounts (KubeVirt's webhooks recognise its own service accounts by
name), certificates from KubeVirt's and CDI's CAs, the ``kubevirt-ca`` configmap, the KubeVirt CR with
``status.phase: Deployed`` and ``status.defaultArchitecture`` (without a phase virt-config ignores the CR's
configuration, pkg/virt-config/configuration.go), the generated webhook configurations with each ``clientConfig``
rewritten to ``url: https://127.0.0.1:PORT<path>``, and the APIServices pointing at ExternalName services
(``localhost``, the process's port). Every port is picked free per plane, so several planes run on one machine.

There is no kubelet: VMIs are created and stay ``Scheduling``. Teardown unregisters the webhooks (they fail
closed) and APIServices before the processes stop.
"""

from __future__ import annotations

import base64
import http.client
import platform
import ssl
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING

from .crds import CDI_DIR, cdi_bin_dir, cdi_manifests, kubevirt_bin_dir, kubevirt_manifests

if TYPE_CHECKING:
    from .controlplane import ControlPlane

KUBEVIRT_NAMESPACE = "kubevirt"
CDI_NAMESPACE = "cdi"
READY_TIMEOUT = 90.0
RBAC_KINDS = ("ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding")
WEBHOOK_KINDS = ("MutatingWebhookConfiguration", "ValidatingWebhookConfiguration")
# KubeVirt's architecture names (pkg/virt-config: amd64, arm64, s390x) from the machine's.
ARCHITECTURES = {"x86_64": "amd64", "aarch64": "arm64", "arm64": "arm64", "s390x": "s390x"}
TOKEN_SECONDS = 7 * 24 * 3600
CDI_FEATURE_GATES = ["HonorWaitForFirstConsumer", "WebhookPvcRendering"]


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


class KubeVirtComponents:
    """virt-api, virt-controller and cdi-apiserver of one plane (``plane.components``)."""

    def __init__(self, plane: ControlPlane, version: str, configuration: dict | None = None) -> None:
        self.plane = plane
        self.version = version
        self.configuration = configuration or {}
        self.ports: dict[str, int] = {}
        self.registered: list[dict] = []
        self.kubevirt_bin: Path | None = None
        self.cdi_bin: Path | None = None

    # -- build -----------------------------------------------------------------------------------

    def build(self) -> None:
        """Build (once, cached) KubeVirt's and CDI's binaries."""
        self.kubevirt_bin = kubevirt_bin_dir(self.version)
        self.cdi_bin = cdi_bin_dir()

    # -- start -----------------------------------------------------------------------------------

    def start(self) -> None:
        """Install what the operators would, start the three processes, register their APIs, wait until ready."""
        from .certs import Authority
        from .controlplane import free_port

        plane = self.plane
        if self.kubevirt_bin is None:
            self.build()
        kubevirt = kubevirt_manifests(self.version, KUBEVIRT_NAMESPACE)
        cdi = cdi_manifests(CDI_NAMESPACE)
        certs = plane.workdir / "certs"
        kubevirt_ca = Authority.create(certs, "kubevirt-ca", "kubevirt.io")
        kubevirt_ca.issue(
            "virt-api",
            "virt-api.kubevirt.svc",
            hosts=("virt-api.kubevirt.svc", "virt-api.kubevirt.svc.cluster.local", "localhost", "127.0.0.1"),
        )
        kubevirt_ca.issue("virt-handler-client", "kubevirt.io:system:client:virt-handler", client=True)
        kubevirt_ca.issue(
            "virt-controller", "virt-controller.kubevirt.svc", hosts=("virt-controller.kubevirt.svc", "127.0.0.1")
        )
        cdi_ca = Authority.create(certs, "cdi-ca", "cdi-apiserver-signer")
        cdi_ca.issue("cdi-api", "cdi-api.cdi.svc", hosts=("cdi-api.cdi.svc", "localhost", "127.0.0.1"))
        self.ports = {"virt-api": free_port(), "virt-controller": free_port(), "cdi-apiserver": free_port()}

        plane.apply_all(
            [
                {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": KUBEVIRT_NAMESPACE}},
                {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": CDI_NAMESPACE}},
            ]
        )
        rbac = [o for o in kubevirt + cdi if o["kind"] in RBAC_KINDS]
        plane.apply_all([o for o in rbac if o["kind"] == "ServiceAccount"])
        plane.apply_all(
            [o for o in rbac if o["kind"] != "ServiceAccount"]
            + [
                {
                    "apiVersion": "v1",
                    "kind": "ConfigMap",
                    "metadata": {"name": "kubevirt-ca", "namespace": KUBEVIRT_NAMESPACE},
                    "data": {"ca-bundle": kubevirt_ca.pem},
                },
                self._external_name_service(KUBEVIRT_NAMESPACE, "virt-api", self.ports["virt-api"]),
                self._external_name_service(CDI_NAMESPACE, "cdi-api", self.ports["cdi-apiserver"]),
            ]
        )
        self._install_kubevirt_cr()
        self._install_cdi_cr(cdi)
        kubeconfigs = {
            name: self._service_account_kubeconfig(namespace, account)
            for name, (namespace, account) in {
                "virt-api": (KUBEVIRT_NAMESPACE, "kubevirt-apiserver"),
                "virt-controller": (KUBEVIRT_NAMESPACE, "kubevirt-controller"),
                "cdi-apiserver": (CDI_NAMESPACE, "cdi-apiserver"),
            }.items()
        }
        assert self.kubevirt_bin is not None and self.cdi_bin is not None
        plane._spawn(
            "virt-api",
            [
                str(self.kubevirt_bin / "virt-api"),
                f"--kubeconfig={kubeconfigs['virt-api']}",
                "--listen=127.0.0.1",
                f"--port={self.ports['virt-api']}",
                f"--tls-cert-file={certs / 'virt-api.crt'}",
                f"--tls-key-file={certs / 'virt-api.key'}",
                f"--handler-cert-file={certs / 'virt-handler-client.crt'}",
                f"--handler-key-file={certs / 'virt-handler-client.key'}",
                "--ca-configmap-name=kubevirt-ca",
            ],
            # virt-api writes the client CA it reads from kubevirt-ca to os.MkdirTemp("", "certsdir") and never
            # removes it (pkg/virt-api/api.go): under the plane's workdir, it goes with the plane
            env={"TMPDIR": str(self._temporary(plane))},
        )
        plane._spawn(
            "virt-controller",
            [
                str(self.kubevirt_bin / "virt-controller"),
                f"--kubeconfig={kubeconfigs['virt-controller']}",
                "--listen=127.0.0.1",
                f"--port={self.ports['virt-controller']}",
                f"--launcher-image=quay.io/kubevirt/virt-launcher:{self.version}",
                f"--exporter-image=quay.io/kubevirt/virt-exportserver:{self.version}",
                f"--prom-cert-file={certs / 'virt-controller.crt'}",
                f"--prom-key-file={certs / 'virt-controller.key'}",
            ],
        )
        plane._spawn(
            "cdi-apiserver",
            [
                str(self.cdi_bin / "cdi-apiserver"),
                f"-kubeconfig={kubeconfigs['cdi-apiserver']}",
                "-listen=127.0.0.1",
                f"-port={self.ports['cdi-apiserver']}",
            ],
            env={"CERT_FILE": str(certs / "cdi-api.crt"), "KEY_FILE": str(certs / "cdi-api.key")},
        )
        self._wait_healthy(
            {
                "virt-api": (self.ports["virt-api"], "/apis/subresources.kubevirt.io/v1/healthz"),
                "virt-controller": (self.ports["virt-controller"], "/leader"),
                "cdi-apiserver": (self.ports["cdi-apiserver"], "/healthz"),
            }
        )
        self._register(kubevirt, self.ports["virt-api"], kubevirt_ca.pem)
        self._register(cdi, self.ports["cdi-apiserver"], cdi_ca.pem)
        self._wait_api_services()

    @staticmethod
    def _external_name_service(namespace: str, name: str, port: int) -> dict:
        # kube-apiserver's aggregator resolves an ExternalName service to https://<externalName>:<port>
        # (k8s.io/apiserver/pkg/util/proxy ResolveCluster) and verifies the certificate for <name>.<namespace>.svc.
        return {
            "apiVersion": "v1",
            "kind": "Service",
            "metadata": {"name": name, "namespace": namespace},
            "spec": {
                "type": "ExternalName",
                "externalName": "localhost",
                "ports": [{"name": "https", "port": port, "protocol": "TCP"}],
            },
        }

    def _install_kubevirt_cr(self) -> None:
        plane = self.plane
        plane.apply(
            {
                "apiVersion": "kubevirt.io/v1",
                "kind": "KubeVirt",
                "metadata": {"name": "kubevirt", "namespace": KUBEVIRT_NAMESPACE},
                "spec": {
                    "certificateRotateStrategy": {},
                    "configuration": self.configuration,
                    "customizeComponents": {},
                    "imagePullPolicy": "IfNotPresent",
                    "workloadUpdateStrategy": {},
                },
            }
        )
        now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        condition = {"lastProbeTime": now, "lastTransitionTime": now, "message": "All components are ready."}
        status = {
            "status": {
                # What virt-operator writes once the install strategy is deployed (pkg/virt-operator).
                "phase": "Deployed",
                "observedKubeVirtVersion": self.version,
                "targetKubeVirtVersion": self.version,
                "observedKubeVirtRegistry": "quay.io/kubevirt",
                "targetKubeVirtRegistry": "quay.io/kubevirt",
                "operatorVersion": self.version,
                "defaultArchitecture": ARCHITECTURES.get(platform.machine(), "amd64"),
                "conditions": [
                    {**condition, "type": "Available", "status": "True", "reason": "AllComponentsReady"},
                    {**condition, "type": "Progressing", "status": "False", "reason": "AllComponentsReady"},
                    {**condition, "type": "Degraded", "status": "False", "reason": "AllComponentsReady"},
                ],
            }
        }
        code, answer = plane.request(
            "PATCH",
            f"/apis/kubevirt.io/v1/namespaces/{KUBEVIRT_NAMESPACE}/kubevirts/kubevirt/status",
            status,
            content_type="application/merge-patch+json",
        )
        if code != 200:
            raise RuntimeError(f"setting the KubeVirt CR's status: {code} {answer}")

    def _install_cdi_cr(self, manifests: list[dict]) -> None:
        # The CDI CR as CDI's operator leaves it once deployed (its CRD has no status subresource, so the status is
        # written with the object). CDI's version as the operator reports it: status.observedVersion.
        crd = next(
            o for o in manifests if o["kind"] == "CustomResourceDefinition" and o["spec"]["names"]["kind"] == "CDI"
        )
        version = next(v["name"] for v in crd["spec"]["versions"] if v.get("storage"))
        cdi_version = (CDI_DIR / "CDI_VERSION").read_text().strip()
        now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        condition = {"lastHeartbeatTime": now, "lastTransitionTime": now, "message": "", "reason": ""}
        self.plane.apply(
            {
                "apiVersion": f"cdi.kubevirt.io/{version}",
                "kind": "CDI",
                "metadata": {"name": "cdi"},
                # CDI's release CR (manifests/templates/release/cdi-cr.yaml.in)
                "spec": {
                    "config": {"featureGates": CDI_FEATURE_GATES},
                    "imagePullPolicy": "IfNotPresent",
                    "infra": {"nodeSelector": {"kubernetes.io/os": "linux"}},
                    "workload": {"nodeSelector": {"kubernetes.io/os": "linux"}},
                },
                "status": {
                    "phase": "Deployed",
                    "operatorVersion": cdi_version,
                    "targetVersion": cdi_version,
                    "observedVersion": cdi_version,
                    "conditions": [
                        {**condition, "type": "Available", "status": "True"},
                        {**condition, "type": "Progressing", "status": "False"},
                        {**condition, "type": "Degraded", "status": "False"},
                    ],
                },
            }
        )

        # CDIConfig "config", which CDI's controller keeps from the CDI CR's spec.config
        # (pkg/controller/config-controller.go); CDI's webhooks read its feature gates (pkg/feature-gates). Its CRD
        # has no status subresource either.
        self.plane.apply(
            {
                "apiVersion": "cdi.kubevirt.io/v1beta1",
                "kind": "CDIConfig",
                "metadata": {"name": "config"},
                "spec": {"featureGates": CDI_FEATURE_GATES},
                "status": {"filesystemOverhead": {"global": "0.06"}},  # common.DefaultGlobalOverhead
            }
        )

    def configure(self, configuration: dict) -> None:
        """Replace the KubeVirt CR's ``spec.configuration`` (virt-api and virt-controller reload it)."""
        code, answer = self.plane.request(
            "PATCH",
            f"/apis/kubevirt.io/v1/namespaces/{KUBEVIRT_NAMESPACE}/kubevirts/kubevirt",
            [{"op": "replace", "path": "/spec/configuration", "value": configuration}],
            content_type="application/json-patch+json",
        )
        if code != 200:
            raise RuntimeError(f"configuring KubeVirt: {code} {answer}")
        self.configuration = configuration

    def _service_account_kubeconfig(self, namespace: str, account: str) -> Path:
        code, answer = self.plane.request(
            "POST",
            f"/api/v1/namespaces/{namespace}/serviceaccounts/{account}/token",
            {
                "apiVersion": "authentication.k8s.io/v1",
                "kind": "TokenRequest",
                "spec": {"expirationSeconds": TOKEN_SECONDS},
            },
        )
        if code != 201 or not answer:
            raise RuntimeError(f"a token for {namespace}/{account}: {code} {answer}")
        path = self.plane.workdir / f"kubeconfig-{account}"
        return self.plane.write_kubeconfig(
            path, f"system:serviceaccount:{namespace}:{account}", answer["status"]["token"], namespace
        )

    @staticmethod
    def _temporary(plane: ControlPlane) -> Path:
        folder = plane.workdir / "tmp"
        folder.mkdir(exist_ok=True)
        return folder

    def _wait_healthy(self, endpoints: dict[str, tuple[int, str]]) -> None:
        context = ssl.create_default_context()
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE  # readiness only: the registrations below carry the CA bundles
        pending = dict(endpoints)
        deadline = time.monotonic() + READY_TIMEOUT
        last: dict[str, str] = {}
        while pending:
            self.plane.check_processes()
            for name, (port, path) in list(pending.items()):
                connection = http.client.HTTPSConnection("127.0.0.1", port, context=context, timeout=2)
                try:
                    connection.request("GET", path)
                    response = connection.getresponse()
                    response.read()
                    if response.status == 200:
                        del pending[name]
                    last[name] = f"{path}: {response.status}"
                except (OSError, http.client.HTTPException) as exc:
                    last[name] = f"{path}: {exc}"
                finally:
                    connection.close()
            if pending and time.monotonic() > deadline:
                raise RuntimeError(f"not ready after {READY_TIMEOUT:.0f}s: " + "; ".join(last[n] for n in pending))
            if pending:
                time.sleep(0.1)

    def _register(self, manifests: list[dict], port: int, ca_pem: str) -> None:
        """Create the webhook configurations (service references -> URLs of the local process) and APIServices."""
        objects = []
        for obj in manifests:
            if obj["kind"] in WEBHOOK_KINDS:
                obj.setdefault("apiVersion", "admissionregistration.k8s.io/v1")
                for webhook in obj.get("webhooks") or []:
                    service = webhook["clientConfig"].get("service") or {}
                    webhook["clientConfig"] = {
                        "url": f"https://127.0.0.1:{port}{service.get('path') or '/'}",
                        "caBundle": _b64(ca_pem),
                    }
                objects.append(obj)
            elif obj["kind"] == "APIService":
                obj["spec"]["service"]["port"] = port
                obj["spec"]["caBundle"] = _b64(ca_pem)
                obj["spec"].pop("insecureSkipTLSVerify", None)
                objects.append(obj)
        self.plane.apply_all(objects)
        self.registered += objects

    def _wait_api_services(self) -> None:
        names = [o["metadata"]["name"] for o in self.registered if o["kind"] == "APIService"]
        deadline = time.monotonic() + READY_TIMEOUT
        for name in names:
            while True:
                code, answer = self.plane.request("GET", f"/apis/apiregistration.k8s.io/v1/apiservices/{name}")
                conditions = {c["type"]: c for c in ((answer or {}).get("status") or {}).get("conditions") or []}
                available = conditions.get("Available") or {}
                if available.get("status") == "True":
                    break
                if time.monotonic() > deadline:
                    raise RuntimeError(f"APIService {name} not available: {available.get('message') or code}")
                time.sleep(0.1)

    # -- stop ------------------------------------------------------------------------------------

    def unregister(self) -> None:
        """Delete the webhook configurations and APIServices (before the processes stop: webhooks fail closed)."""
        objects, self.registered = self.registered, []

        def delete(obj: dict) -> None:
            try:
                self.plane.delete(obj)
            except (OSError, RuntimeError, http.client.HTTPException):
                pass  # the API server is gone already: nothing to fail closed

        with ThreadPoolExecutor(max_workers=4) as pool:
            list(pool.map(delete, objects))

    def describe(self) -> dict:
        """Ports and versions, for state files and logs."""
        return {"version": self.version, "ports": dict(self.ports)}
