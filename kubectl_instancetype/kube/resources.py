"""The API resources the plugin uses, with their paths known up front (no discovery requests)."""

from __future__ import annotations

from ..errors import UsageError
from ..instancetype import kinds as type_kinds
from ..records import dataclass

_UNRESERVED = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")


def escape(text: str) -> str:
    """Percent-encode everything but RFC 3986 unreserved characters (``urllib.parse`` costs start-up time)."""
    return "".join(chr(byte) if byte in _UNRESERVED else f"%{byte:02X}" for byte in text.encode("utf-8"))


@dataclass(frozen=True)
class Resource:
    """One API resource: where it lives and how kubectl names it."""

    group: str
    version: str
    plural: str
    kind: str
    namespaced: bool

    @property
    def singular(self) -> str:
        """The lowercase kind, as ``-o name`` and error messages use it."""
        return self.kind.lower()

    @property
    def qualified(self) -> str:
        """``<plural>.<group>``, the resource as the server names it in messages."""
        return f"{self.plural}.{self.group}" if self.group else self.plural

    @property
    def api_version(self) -> str:
        """``group/version`` (``v1`` for the core group)."""
        return f"{self.group}/{self.version}" if self.group else self.version

    def path(
        self,
        namespace: str | None = None,
        name: str | None = None,
        *,
        subresource: str | int | None = "",
        **query: str | int | None,
    ) -> str:
        """The request path; ``namespace`` None on a namespaced resource means all namespaces; ``subresource``
        (``status``) follows the name."""
        for what, value in (("namespace", namespace), ("resource name", name)):
            if not value:
                continue
            from .names import invalid_path_segment  # a cluster-scoped list names neither

            if problem := invalid_path_segment(what, value):
                # client-go refuses these before sending: "..", "a/b" or "%2e%2e" would name another URL.
                raise UsageError(problem)
        root = f"/apis/{self.group}/{self.version}" if self.group else f"/api/{self.version}"
        if self.namespaced and namespace:
            root += f"/namespaces/{escape(namespace)}"
        root += f"/{self.plural}"
        if name:
            root += f"/{escape(name)}"
            if subresource:
                root += f"/{subresource}"
        params = [f"{key}={escape(str(value))}" for key, value in query.items() if value not in (None, "")]
        return f"{root}?{'&'.join(params)}" if params else root

    def name_of(self, obj_name: str) -> str:
        """``-o name`` form: ``<kind>.<group>/<name>``."""
        prefix = f"{self.singular}.{self.group}" if self.group else self.singular
        return f"{prefix}/{obj_name}"


INSTANCETYPE_GROUP = type_kinds.GROUP


def type_resource(kind: type_kinds.TypeKind) -> Resource:
    """The resource of one of the four kinds of instancetype.kubevirt.io, from the kinds table."""
    return Resource(type_kinds.GROUP, type_kinds.VERSION, kind.plural, kind.kind, kind.namespaced)


CLUSTER_INSTANCETYPES = type_resource(type_kinds.CLUSTER_INSTANCETYPE)
INSTANCETYPES = type_resource(type_kinds.INSTANCETYPE)
CLUSTER_PREFERENCES = type_resource(type_kinds.CLUSTER_PREFERENCE)
PREFERENCES = type_resource(type_kinds.PREFERENCE)
VIRTUAL_MACHINES = Resource("kubevirt.io", "v1", "virtualmachines", "VirtualMachine", namespaced=True)
VIRTUAL_MACHINE_INSTANCES = Resource(
    "kubevirt.io", "v1", "virtualmachineinstances", "VirtualMachineInstance", namespaced=True
)
KUBEVIRTS = Resource("kubevirt.io", "v1", "kubevirts", "KubeVirt", namespaced=True)
# what KubeVirt's VM snapshot controller records of a VM, its revisions renamed after the snapshot
# (pkg/storage/snapshot/source.go captureInstancetypeControllerRevision)
VIRTUAL_MACHINE_SNAPSHOT_CONTENTS = Resource(
    "snapshot.kubevirt.io", "v1beta1", "virtualmachinesnapshotcontents", "VirtualMachineSnapshotContent", True
)
VIRTUAL_MACHINE_POOLS = Resource("pool.kubevirt.io", "v1beta1", "virtualmachinepools", "VirtualMachinePool", True)
CUSTOM_RESOURCE_DEFINITIONS = Resource(
    "apiextensions.k8s.io", "v1", "customresourcedefinitions", "CustomResourceDefinition", namespaced=False
)
CONTROLLER_REVISIONS = Resource("apps", "v1", "controllerrevisions", "ControllerRevision", namespaced=True)
PERSISTENT_VOLUME_CLAIMS = Resource("", "v1", "persistentvolumeclaims", "PersistentVolumeClaim", namespaced=True)
DATA_VOLUMES = Resource("cdi.kubevirt.io", "v1beta1", "datavolumes", "DataVolume", namespaced=True)
DATA_SOURCES = Resource("cdi.kubevirt.io", "v1beta1", "datasources", "DataSource", namespaced=True)
VOLUME_SNAPSHOTS = Resource("snapshot.storage.k8s.io", "v1", "volumesnapshots", "VolumeSnapshot", namespaced=True)
NAMESPACES = Resource("", "v1", "namespaces", "Namespace", namespaced=False)
NODES = Resource("", "v1", "nodes", "Node", namespaced=False)
PODS = Resource("", "v1", "pods", "Pod", namespaced=True)
RESOURCE_QUOTAS = Resource("", "v1", "resourcequotas", "ResourceQuota", namespaced=True)
EVENTS = Resource("", "v1", "events", "Event", namespaced=True)
LIMIT_RANGES = Resource("", "v1", "limitranges", "LimitRange", namespaced=True)
RUNTIME_CLASSES = Resource("node.k8s.io", "v1", "runtimeclasses", "RuntimeClass", namespaced=False)
PRIORITY_CLASSES = Resource("scheduling.k8s.io", "v1", "priorityclasses", "PriorityClass", namespaced=False)
STORAGE_CLASSES = Resource("storage.k8s.io", "v1", "storageclasses", "StorageClass", namespaced=False)
CDI_CONFIGS = Resource("cdi.kubevirt.io", "v1beta1", "cdiconfigs", "CDIConfig", namespaced=False)
CDIS = Resource("cdi.kubevirt.io", "v1beta1", "cdis", "CDI", namespaced=False)
SUBJECT_ACCESS_REVIEWS = Resource(
    "authorization.k8s.io", "v1", "subjectaccessreviews", "SubjectAccessReview", namespaced=False
)
# KubeVirt's aggregated API (served by virt-api, kubevirt.io/kubevirt pkg/virt-api/api.go): its version, and the
# VM expansion endpoints (a VM's expand-spec subresource; expand-vm-spec takes a VM in the request body)
KUBEVIRT_SUBRESOURCES_GROUP, KUBEVIRT_SUBRESOURCES_VERSION = "subresources.kubevirt.io", "v1"
VM_SUBRESOURCES = Resource(
    KUBEVIRT_SUBRESOURCES_GROUP, KUBEVIRT_SUBRESOURCES_VERSION, "virtualmachines", "VirtualMachine", namespaced=True
)
EXPAND_VM_SPEC = Resource(
    KUBEVIRT_SUBRESOURCES_GROUP, KUBEVIRT_SUBRESOURCES_VERSION, "expand-vm-spec", "VirtualMachine", namespaced=True
)
# CDI's aggregated API (served by cdi-apiserver through an APIService, not a CRD)
UPLOAD_GROUP, UPLOAD_VERSION = "upload.cdi.kubevirt.io", "v1beta1"
UPLOAD_TOKEN_REQUESTS = Resource(
    "upload.cdi.kubevirt.io", "v1beta1", "uploadtokenrequests", "UploadTokenRequest", namespaced=True
)

BY_KIND = {
    resource.kind: resource
    for resource in (
        CLUSTER_INSTANCETYPES,
        INSTANCETYPES,
        CLUSTER_PREFERENCES,
        PREFERENCES,
        VIRTUAL_MACHINES,
        CONTROLLER_REVISIONS,
        PERSISTENT_VOLUME_CLAIMS,
        DATA_VOLUMES,
        DATA_SOURCES,
        VOLUME_SNAPSHOTS,
        NAMESPACES,
    )
}


def other_scope(resource: Resource) -> Resource | None:
    """The resource of the same instance type or preference kind in the other scope (None for other kinds)."""
    kind = type_kinds.BY_KIND.get(resource.kind)
    return BY_KIND[kind.other_scope.kind] if kind is not None else None
