"""What the plugin reads about KubeVirt and CDI on a cluster, with known paths (no discovery): their versions
(``version``, and behaviour that changed between releases), KubeVirt's default architecture and namespace, and
whether virt-api may read an object (its RBAC, not the user's).

Versions, at most four GETs:

- KubeVirt: virt-api's ``GET /apis/subresources.kubevirt.io/v1/version`` (what ``virtctl version`` reads;
  KubeVirt's ``kubevirt.io:default`` role lets every authenticated user read it); when virt-api does not
  answer, the KubeVirt CR's ``status.observedKubeVirtVersion`` (what virt-operator deployed);
- CDI: the CDI CR's ``status.observedVersion`` (``cdi.kubevirt.io/v1beta1`` ``cdis``, cluster-scoped); without
  one, whether cdi-apiserver serves ``upload.cdi.kubevirt.io/v1beta1`` (then CDI runs, its version unknown).
"""

from __future__ import annotations

import re
import weakref
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import APIError, ForbiddenError, NotFoundError, PluginError

if TYPE_CHECKING:
    from ..kube.client import Client
    from ..kube.resources import Resource

NOT_INSTALLED = "not installed"


@dataclass(frozen=True)
class ComponentVersion:
    """A version (``v1.9.0``), or ``""`` with ``note`` saying why it is unknown (``not installed``, ...)."""

    version: str
    note: str = ""

    def text(self) -> str:
        """The version, else the note (as the cluster wrote it: escape it before printing)."""
        return self.version or self.note or "unknown"


def kubevirt_version(client: Client) -> ComponentVersion:
    """virt-api's answer, else the KubeVirt CR's observed version, else why neither is known."""
    try:
        answer = client.kubevirt_version()
        if isinstance(answer, dict) and answer.get("gitVersion"):
            return ComponentVersion(str(answer["gitVersion"]))
        virt_api = "virt-api gave no version"
    except NotFoundError:
        virt_api = ""
    except APIError as exc:
        virt_api = f"virt-api: {exc.message}"
    from ..kube.resources import KUBEVIRTS

    from_cr = _observed(client, KUBEVIRTS, "observedKubeVirtVersion")
    if from_cr.version or not virt_api:
        return from_cr
    return ComponentVersion("", f"unknown ({virt_api})")


def cdi_version(client: Client) -> ComponentVersion:
    """The CDI CR's observed version, else whether cdi-apiserver answers."""
    from ..kube.resources import CDIS, UPLOAD_GROUP, UPLOAD_VERSION

    from_cr = _observed(client, CDIS, "observedVersion")
    if from_cr.version:
        return from_cr
    try:
        client.api_resources(UPLOAD_GROUP, UPLOAD_VERSION)
    except NotFoundError:
        return from_cr
    except APIError as exc:
        return ComponentVersion("", f"unknown (cdi-apiserver: {exc.message})")
    return ComponentVersion("", "unknown (cdi-apiserver answers; no CDI resource reports a version)")


def _observed(client: Client, resource: Resource, field: str) -> ComponentVersion:
    """``status.<field>`` of the first object of ``resource`` (there is one KubeVirt / CDI CR per cluster)."""
    try:
        answer = client.first_page(resource)
    except NotFoundError:
        return ComponentVersion("", NOT_INSTALLED)
    except ForbiddenError:
        return ComponentVersion("", f"unknown (forbidden to read {resource.plural})")
    except PluginError as exc:
        return ComponentVersion("", f"unknown ({exc.message})")
    items = answer.get("items") or [] if isinstance(answer, dict) else []
    if not items:
        return ComponentVersion("", NOT_INSTALLED)
    version = ((items[0].get("status") or {}).get(field)) or ""
    return ComponentVersion(str(version), "" if version else "unknown (not reported yet)")


def _first_kubevirt(client: Client) -> dict[str, Any]:
    from ..kube.resources import KUBEVIRTS

    return client.first_page(KUBEVIRTS)


_RELEASES: weakref.WeakKeyDictionary[Any, tuple[int, int, int] | None] = weakref.WeakKeyDictionary()


def kubevirt_release(client: Client) -> tuple[int, int, int] | None:
    """KubeVirt's (major, minor, patch) on this cluster, read once per client; None when it cannot be read."""
    if client not in _RELEASES:
        version = kubevirt_version(client).version
        match = re.match(r"v?(\d+)\.(\d+)\.(\d+)", version)
        _RELEASES[client] = (int(match.group(1)), int(match.group(2)), int(match.group(3))) if match else None
    return _RELEASES[client]


def follows_volume_snapshots(client: Client) -> bool:
    """Whether KubeVirt's inference follows VolumeSnapshot sources: v1.9.0 does (PR #18337), v1.8.0 to v1.8.2
    do not (the release-1.8 backport, PR #18395, came later). A version that cannot be read counts as the
    newest behaviour."""
    release = kubevirt_release(client)
    return release is None or release > (1, 8, 2)


_ARCHITECTURES: weakref.WeakKeyDictionary[Any, str | None] = weakref.WeakKeyDictionary()


def default_architecture(client: Client) -> str | None:
    """The architecture KubeVirt gives a VM that names none: the KubeVirt CR's ``status.defaultArchitecture``
    (virt-operator writes it; ``pkg/virt-config`` reads it from there). None when it cannot be read."""
    if client not in _ARCHITECTURES:
        try:
            answer = _first_kubevirt(client)
        except PluginError:
            answer = {}
        items = (answer.get("items") or []) if isinstance(answer, dict) else []
        architecture = ((items[0].get("status") or {}).get("defaultArchitecture") or None) if items else None
        _ARCHITECTURES[client] = str(architecture) if architecture else None
    return _ARCHITECTURES[client]


_NAMESPACES: weakref.WeakKeyDictionary[Any, str] = weakref.WeakKeyDictionary()
VIRT_API_SERVICE_ACCOUNT = "kubevirt-apiserver"
DEFAULT_KUBEVIRT_NAMESPACE = "kubevirt"


def kubevirt_namespace(client: Client) -> str:
    """The namespace KubeVirt runs in (its CR's), ``kubevirt`` when the CR cannot be read."""
    if client not in _NAMESPACES:
        try:
            answer = _first_kubevirt(client)
        except PluginError:
            answer = {}
        items = (answer.get("items") or []) if isinstance(answer, dict) else []
        namespace = ((items[0].get("metadata") or {}).get("namespace") or "") if items else ""
        _NAMESPACES[client] = str(namespace or DEFAULT_KUBEVIRT_NAMESPACE)
    return _NAMESPACES[client]


def virt_api_user(client: Client) -> str:
    """The user virt-api reads the cluster as (its service account), as the API server names it."""
    return f"system:serviceaccount:{kubevirt_namespace(client)}:{VIRT_API_SERVICE_ACCOUNT}"


def virt_api_may_get(client: Client, group: str, resource: str, namespace: str, name: str) -> bool | None:
    """Whether KubeVirt's virt-api may GET the object, asked with a SubjectAccessReview (its RBAC is the
    cluster's: v1.9.0's virt-operator grants it no access to VolumeSnapshots, for one). None when the
    question cannot be asked (the user may not create SubjectAccessReviews)."""
    service_account_namespace = kubevirt_namespace(client)
    review = {
        "apiVersion": "authorization.k8s.io/v1",
        "kind": "SubjectAccessReview",
        "spec": {
            "user": virt_api_user(client),
            "groups": [
                "system:serviceaccounts",
                f"system:serviceaccounts:{service_account_namespace}",
                "system:authenticated",
            ],
            "resourceAttributes": {
                "namespace": namespace,
                "verb": "get",
                "group": group,
                "resource": resource,
                "name": name,
            },
        },
    }
    try:
        answer = client.subject_access_review(review)
    except PluginError:
        return None
    return bool(((answer or {}).get("status") or {}).get("allowed"))
