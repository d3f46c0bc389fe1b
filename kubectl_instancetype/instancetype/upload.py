"""``upload``'s pure parts: virtctl image-upload's argument checks, the objects it creates, and its decisions.

Everything here mirrors ``pkg/virtctl/imageupload/imageupload.go`` of KubeVirt v1.9.0 (messages verbatim):
argument parsing (``parseArgs``, ``validateDefaultInstancetypeArgs``), the DataVolume / PVC / DataSource
bodies, the checks on an existing PVC, the readiness and completion predicates, the event errors, the upload
proxy URLs and the retry/token-refresh policy of ``uploadData``. No I/O: :mod:`..usecases.upload` sends.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import UsageError
from .infer import INSTANCETYPE_KIND_LABEL, INSTANCETYPE_LABEL, PREFERENCE_KIND_LABEL, PREFERENCE_LABEL

# CDI's annotations (imageupload.go constants)
POD_PHASE_ANNOTATION = "cdi.kubevirt.io/storage.pod.phase"
POD_READY_ANNOTATION = "cdi.kubevirt.io/storage.pod.ready"
UPLOAD_REQUEST_ANNOTATION = "cdi.kubevirt.io/storage.upload.target"
FORCE_BIND_ANNOTATION = "cdi.kubevirt.io/storage.bind.immediate.requested"
CONTENT_TYPE_ANNOTATION = "cdi.kubevirt.io/storage.contentType"
DELETE_AFTER_COMPLETION_ANNOTATION = "cdi.kubevirt.io/storage.deleteAfterCompletion"
USE_POPULATOR_ANNOTATION = "cdi.kubevirt.io/storage.usePopulator"
PVC_PRIME_ANNOTATION = "cdi.kubevirt.io/storage.populator.pvcPrime"
APPLY_STORAGE_PROFILE_LABEL = "cdi.kubevirt.io/applyStorageProfile"

UPLOAD_PROXY_URI = "/v1beta1/upload"
UPLOAD_PROXY_URI_ASYNC = "/v1beta1/upload-async"
TOKEN_GENERATE_NAME = "token-for-virtctl-"
PROVISIONING_FAILED = "ProvisioningFailed"
ERR_CLAIM_NOT_VALID = "ErrClaimNotValid"
OPTIMISTIC_LOCK_MESSAGE = "the object has been modified; please apply your changes to the latest version and try again"
READY_WAIT_INTERVAL = 2.0  # seconds between readiness polls (uploadReadyWaitInterval)
PROCESSING_WAIT_INTERVAL = 2.0
PROCESSING_WAIT_TOTAL = 24 * 3600.0
MAX_TOKEN_REFRESHES = 3
READONLY_MESSAGE = "cannot upload to a readonly volume, use either ReadWriteOnce or ReadWriteMany if supported"


@dataclass(frozen=True)
class Flags:
    """The command line as given (virtctl's flag set; empty strings mean "not given", as in Go)."""

    args: tuple[str, ...] = ()
    pvc_name: str = ""
    pvc_size: str = ""
    size: str = ""
    storage_class: str = ""
    access_mode: str = ""
    block_volume: bool = False
    volume_mode: str = ""
    image_path: str = ""
    archive_path: str = ""
    no_create: bool = False
    wait_secs: int = 300
    retry: int = 5
    force_bind: bool = False
    datasource: bool = False
    default_instancetype: str = ""
    default_instancetype_kind: str = ""
    default_preference: str = ""
    default_preference_kind: str = ""


@dataclass(frozen=True)
class Plan:
    """What to do, after virtctl's checks: the target, the file, and how to create the volume."""

    name: str
    create_pvc: bool  # "pvc" (or --pvc-name); False: a DataVolume
    image_path: str
    archive_upload: bool
    size: str
    storage_class: str
    access_mode: str
    volume_mode: str  # "", "block" or "filesystem"
    no_create: bool
    force_bind: bool
    datasource: bool
    wait_secs: int
    retry: int
    labels: Mapping[str, str]

    @property
    def kind(self) -> str:
        """The kind created: ``PersistentVolumeClaim`` or ``DataVolume``."""
        return "PersistentVolumeClaim" if self.create_pvc else "DataVolume"

    @property
    def content_type(self) -> str:
        """CDI's content type: ``archive`` for --archive-path, else ``kubevirt``."""
        return "archive" if self.archive_upload else "kubevirt"


def parse_flags(flags: Flags) -> Plan:
    """virtctl's ``parseArgs`` then ``validateDefaultInstancetypeArgs``: the same checks in the same order.

    Raises :class:`UsageError` with virtctl's message. The deprecated ``--pvc-name`` form returns early, as
    virtctl's does (it skips the volume-mode and path checks, which virtctl then never makes).
    """
    size = flags.size
    if flags.size and flags.pvc_size and flags.size != flags.pvc_size:
        raise UsageError("--pvc-size and --size can not be specified at the same time")
    if flags.pvc_size:
        size = flags.pvc_size
    volume_mode = flags.volume_mode
    image_path = flags.image_path
    archive = False
    if flags.pvc_name:
        if flags.args:
            raise UsageError("cannot use --pvc-name and args")
        name, create_pvc = flags.pvc_name, True
    else:
        if flags.block_volume:
            if volume_mode == "":
                volume_mode = "block"
            elif volume_mode != "block":
                raise UsageError(f"incompatible --volume-mode '{volume_mode}' and --block-volume")
        if volume_mode not in ("block", "filesystem", ""):
            raise UsageError(f"Invalid volume mode '{volume_mode}'. Valid values are 'block' and 'filesystem'.")
        if not flags.image_path and not flags.archive_path:
            raise UsageError("either image-path or archive-path must be provided")
        if flags.image_path and flags.archive_path:
            raise UsageError("cannot handle both image-path and archive-path, provide only one")
        if flags.archive_path:
            archive, image_path = True, flags.archive_path
            if volume_mode == "block":
                raise UsageError("In archive upload the volume mode should always be filesystem")
        if len(flags.args) != 2:
            raise UsageError("expecting two args")
        resource = flags.args[0].lower()
        if resource not in ("dv", "pvc"):
            raise UsageError(f"invalid resource type {flags.args[0]}")
        name, create_pvc = flags.args[1], resource == "pvc"
    if not flags.default_instancetype and flags.default_instancetype_kind:
        raise UsageError("--default-instancetype must be provided with --default-instancetype-kind")
    if not flags.default_preference and flags.default_preference_kind:
        raise UsageError("--default-preference must be provided with --default-preference-kind")
    if (flags.default_instancetype or flags.default_preference) and flags.no_create:
        raise UsageError("--default-instancetype and --default-preference cannot be used with --no-create")
    return Plan(
        name=name,
        create_pvc=create_pvc,
        image_path=image_path,
        archive_upload=archive,
        size=size,
        storage_class=flags.storage_class,
        access_mode=flags.access_mode,
        volume_mode=volume_mode,
        no_create=flags.no_create,
        force_bind=flags.force_bind,
        datasource=flags.datasource,
        wait_secs=flags.wait_secs,
        retry=flags.retry,
        labels=default_labels(flags),
    )


def default_labels(flags: Flags) -> dict[str, str]:
    """``setDefaultInstancetypeLabels``: each of the four labels only when its flag is non-empty."""
    pairs = (
        (INSTANCETYPE_LABEL, flags.default_instancetype),
        (INSTANCETYPE_KIND_LABEL, flags.default_instancetype_kind),
        (PREFERENCE_LABEL, flags.default_preference),
        (PREFERENCE_KIND_LABEL, flags.default_preference_kind),
    )
    return {key: value for key, value in pairs if value}


def check_size(plan: Plan) -> str:
    """The size for a new volume, parsed as resource.ParseQuantity parses it (virtctl's messages)."""
    from ..golang.quantity import QuantityError, parse

    if not plan.size:
        raise UsageError("when creating a resource, the size must be specified")
    try:
        parse(plan.size)
    except QuantityError as exc:
        raise UsageError(f"validation failed for size={plan.size}: {exc}") from None
    return plan.size


def storage_spec(plan: Plan) -> dict[str, Any]:
    """``createStorageSpec``: the DataVolume's ``spec.storage``."""
    spec: dict[str, Any] = {"resources": {"requests": {"storage": check_size(plan)}}}
    if plan.storage_class:
        spec["storageClassName"] = plan.storage_class
    if plan.access_mode:
        if plan.access_mode == "ReadOnlyMany":
            raise UsageError(READONLY_MESSAGE)
        spec["accessModes"] = [plan.access_mode]
    if plan.volume_mode == "block":
        spec["volumeMode"] = "Block"
    elif plan.volume_mode == "filesystem":
        spec["volumeMode"] = "Filesystem"
    return spec


def data_volume(plan: Plan, namespace: str) -> dict[str, Any]:
    """``createUploadDataVolume``'s body: source.upload, the content type, the storage and the labels."""
    spec = storage_spec(plan)
    metadata: dict[str, Any] = {"name": plan.name, "namespace": namespace}
    metadata["annotations"] = {FORCE_BIND_ANNOTATION: ""} if plan.force_bind else {}
    if plan.labels:
        metadata["labels"] = dict(plan.labels)
    return {
        "apiVersion": "cdi.kubevirt.io/v1beta1",
        "kind": "DataVolume",
        "metadata": metadata,
        "spec": {"source": {"upload": {}}, "contentType": plan.content_type, "storage": spec},
    }


def upload_pvc(plan: Plan, namespace: str) -> dict[str, Any]:
    """``createUploadPVC``'s body (``storagetypes.RenderPVC`` plus CDI's upload annotations and the labels)."""
    if plan.access_mode == "ReadOnlyMany":
        raise UsageError(READONLY_MESSAGE)
    size = check_size(plan)
    spec: dict[str, Any] = {
        "accessModes": [plan.access_mode or "ReadWriteOnce"],
        "resources": {"requests": {"storage": size}},
    }
    if plan.storage_class:
        spec["storageClassName"] = plan.storage_class
    if plan.volume_mode == "block":
        spec["volumeMode"] = "Block"
    elif plan.volume_mode == "filesystem":
        spec["volumeMode"] = "Filesystem"
    annotations = {UPLOAD_REQUEST_ANNOTATION: "", CONTENT_TYPE_ANNOTATION: plan.content_type}
    if plan.force_bind:
        annotations[FORCE_BIND_ANNOTATION] = ""
    labels = {APPLY_STORAGE_PROFILE_LABEL: "true", **plan.labels}
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": plan.name, "namespace": namespace, "annotations": annotations, "labels": labels},
        "spec": spec,
    }


def check_existing_pvc(pvc: Mapping[str, Any], plan: Plan) -> None:
    """``getAndValidateUploadPVC``'s checks on a PVC that exists (after the DataVolume checks)."""
    annotations = (pvc.get("metadata") or {}).get("annotations") or {}
    if annotations.get(POD_PHASE_ANNOTATION) == "Succeeded":
        raise UsageError(f"PVC {plan.name} already successfully imported/cloned/updated")
    if not plan.no_create and UPLOAD_REQUEST_ANNOTATION not in annotations:
        raise UsageError(f"PVC {plan.name} not available for upload")
    if plan.archive_upload and annotations.get(CONTENT_TYPE_ANNOTATION) != "archive":
        raise UsageError(f"PVC {plan.name} doesn't have archive contentType annotation")


def missing_data_volume_message(pvc: Mapping[str, Any], name: str) -> str:
    """``validateUploadDataVolume``'s message when the PVC exists but its DataVolume does not."""
    metadata = pvc.get("metadata") or {}
    annotations = metadata.get("annotations") or {}
    namespace = metadata.get("namespace", "")
    if annotations.get(DELETE_AFTER_COMPLETION_ANNOTATION) == "true" and annotations.get(POD_PHASE_ANNOTATION) == (
        "Succeeded"
    ):
        return f"DataVolume already garbage-collected: Assuming PVC {namespace}/{name} is successfully populated"
    return f"No DataVolume is associated with the existing PVC {namespace}/{name}"


def pvc_upload_ready(pvc: Mapping[str, Any]) -> bool:
    """``waitUploadServerReady``: the PVC's ``cdi.kubevirt.io/storage.pod.ready`` annotation parses true."""
    annotations = (pvc.get("metadata") or {}).get("annotations") or {}
    from ..golang.strconv import GoNumError, go_parse_bool

    try:
        return go_parse_bool(str(annotations.get(POD_READY_ANNOTATION, "")))
    except GoNumError:
        return False  # virtctl ignores ParseBool's error: not ready


def dv_phase(dv: Mapping[str, Any]) -> str:
    """The DataVolume's ``status.phase`` ("" when unset)."""
    return str((dv.get("status") or {}).get("phase") or "")


def dv_upload_ready(dv: Mapping[str, Any], force_bind: bool) -> bool:
    """``waitDvUploadScheduled``: ``UploadReady``; WaitForFirstConsumer/PendingPopulation fail without force-bind."""
    phase = dv_phase(dv)
    if phase in ("WaitForFirstConsumer", "PendingPopulation") and not force_bind:
        raise UsageError(
            f"cannot upload to DataVolume in {phase} phase, make sure the PVC is Bound, or use force-bind flag"
        )
    return phase == "UploadReady"


def processing_complete(pvc: Mapping[str, Any]) -> bool:
    """``waitUploadProcessingComplete``: the PVC's pod phase annotation is ``Succeeded``."""
    annotations = (pvc.get("metadata") or {}).get("annotations") or {}
    return annotations.get(POD_PHASE_ANNOTATION) == "Succeeded"


def event_error(events: Sequence[Mapping[str, Any]], pvc_uid: str, dv_uid: str) -> str | None:
    """``handleEventErrors``: the first ProvisioningFailed (PVC) or ErrClaimNotValid (DV) event's message."""
    for event in events:
        involved = event.get("involvedObject") or {}
        reason, message = event.get("reason"), str(event.get("message") or "")
        kind, uid = involved.get("kind"), involved.get("uid")
        if kind == "PersistentVolumeClaim" and pvc_uid and uid == pvc_uid and reason == PROVISIONING_FAILED:
            if OPTIMISTIC_LOCK_MESSAGE not in message:
                return f"Provisioning failed: {message}"
        elif kind == "DataVolume" and dv_uid and uid == dv_uid and reason == ERR_CLAIM_NOT_VALID:
            return f"Claim not valid: {message}"
    return None


def with_scheme(url: str) -> str:
    """virtctl prefixes ``https://`` when the upload proxy URL has no scheme."""
    scheme, colon, _ = url.partition("://")
    if colon and scheme and scheme[0].isalpha() and all(c.isalnum() or c in "+-." for c in scheme):
        return url
    return f"https://{url}"


def proxy_path(url: str, uri: str) -> str:
    """``ConstructUploadProxyPath[Async]``: ``uri`` path-joined onto the URL's path unless already contained."""
    if uri in url:
        return url
    scheme, _, rest = url.partition("://")
    authority, slash, path = rest.partition("/")
    query = ""
    if "?" in path:
        path, _, query = path.partition("?")
    parts = [p for p in (slash + path + uri).split("/") if p and p != "."]
    joined = "/" + "/".join(parts)
    return f"{scheme}://{authority}{joined}" + (f"?{query}" if query else "")


def data_source(plan: Plan, namespace: str) -> dict[str, Any]:
    """``createNewDataSource``'s body: ``spec.source.pvc`` naming the volume, and the labels."""
    return {
        "apiVersion": "cdi.kubevirt.io/v1beta1",
        "kind": "DataSource",
        "metadata": {"name": plan.name, "namespace": namespace, "labels": dict(plan.labels)},
        "spec": {"source": {"pvc": {"name": plan.name, "namespace": namespace}}},
    }


def data_source_patch(existing: Mapping[str, Any], plan: Plan, namespace: str) -> list[dict[str, Any]]:
    """``updateExistingDataSource``'s JSON patch: ``/metadata/labels`` (merged) and ``/spec/source/pvc``.

    virtctl sends ``replace``, which the API server refuses when the DataSource has no labels or no
    ``source.pvc`` yet (RFC 6902: the target must exist); ``add`` sets or replaces either, and a
    ``source.snapshot`` is removed so that the DataSource names one source.
    """
    labels = dict((existing.get("metadata") or {}).get("labels") or {})
    labels.update(plan.labels)
    patch: list[dict[str, Any]] = [
        {"op": "add", "path": "/metadata/labels", "value": labels},
    ]
    source = (existing.get("spec") or {}).get("source")
    if not isinstance(source, Mapping):
        patch.append({"op": "add", "path": "/spec/source", "value": {}})
    elif "snapshot" in source:
        patch.append({"op": "remove", "path": "/spec/source/snapshot"})
    patch.append({"op": "add", "path": "/spec/source/pvc", "value": {"name": plan.name, "namespace": namespace}})
    return patch


@dataclass
class RetryPolicy:
    """``uploadData``'s loop state: attempts left, token refreshes left, and the last error."""

    retries: int
    attempt: int = 0
    refreshes_left: int = MAX_TOKEN_REFRESHES
    last_error: str = ""

    def should_try(self) -> bool:
        """Another POST may be sent."""
        return self.attempt < self.retries

    def failed(self, status: int, message: str) -> str:
        """Record a failed attempt; return ``"retry"``, ``"refresh"`` (new token, then retry), or raise.

        A 401 on the first attempt is an authentication failure, not an expired token (virtctl fails fast);
        so is a 401 once the three refreshes are spent. Running out of attempts raises virtctl's message.
        """
        self.last_error = message
        action = "retry"
        if status == 401:
            if self.attempt == 0 or self.refreshes_left == 0:
                raise UploadFailed(f"authentication failed: {message}")
            self.refreshes_left -= 1
            action = "refresh"
        self.attempt += 1
        if self.attempt >= self.retries:
            raise UploadFailed(f"error uploading image after {self.retries} retries: {message}")
        return action


class UploadFailed(Exception):
    """The upload to the proxy failed for good (the message is virtctl's)."""
