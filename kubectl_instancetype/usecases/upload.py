"""``upload``: virtctl image-upload's protocol on the plugin's own client, step by step.

1. (before anything is written) the default instance type and preference the labels name must exist;
2. GET the PVC: an existing one is checked (and its DataVolume, PVC prime with populators) as virtctl checks
   it; otherwise the DataVolume (``source.upload``) or the PVC (CDI's upload annotations) is created with the
   default-type labels;
3. wait (every 2 s, up to ``--wait-secs``) for upload readiness: DataVolume phase ``UploadReady``, or the PVC's
   ``cdi.kubevirt.io/storage.pod.ready`` annotation, failing early on ProvisioningFailed/ErrClaimNotValid events;
4. the upload proxy URL (flag, else CDIConfig ``config``), a token from an ``UploadTokenRequest``
   (``upload.cdi.kubevirt.io/v1beta1``, an aggregated API on real clusters);
5. HEAD ``/v1beta1/upload-async`` (else the sync path), then POST the file streamed from disk with
   ``Authorization: Bearer``, retried with a small random back-off and a new token on a later 401;
6. the DataSource (``--datasource``), created or JSON-patched with the labels;
7. wait for CDI's processing (the PVC's pod phase annotation ``Succeeded``).

What exists is tracked all along: an interruption (Ctrl-C) or a failure after something was created says
which objects exist, how many bytes went up, and how to resume (``--no-create``) or delete them.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import APIError, PluginError, UploadError, UsageError
from ..golang.neturl import redacted
from ..golang.strconv import go_quote
from ..instancetype import upload as spec

if TYPE_CHECKING:
    from ..kube.client import Client
    from ..kube.session import Session
    from ..output.progress import Progress


@dataclass
class Settings:
    """Where the use case talks to and how it reports (the CLI fills it from the flags and the environment)."""

    uploadproxy_url: str = ""
    insecure: bool = False
    skip_checks: bool = False
    say: Callable[[str], None] = lambda line: None  # virtctl's lines (the command prints them on stdout)
    progress: Callable[[int], Progress] | None = None  # total bytes -> a progress display (stderr)
    sleep: Callable[[float], None] = time.sleep
    monotonic: Callable[[], float] = time.monotonic
    jitter: Callable[[int], int] = lambda bound: 0  # rand.UintN(50) in virtctl's back-off


@dataclass
class State:
    """What the upload has done: the result of a run, and the interruption and failure reports of one cut short."""

    namespace: str
    plan: spec.Plan
    created: bool = False
    existing: bool = False
    sent: int = 0  # bytes of the current attempt sent so far
    total: int = 0
    attempts: int = 0  # POSTs that failed
    uploaded: bool = False
    datasource: str = ""  # "created" / "updated"

    def report(self) -> str:
        """One sentence: the objects that exist, how much went up, and the commands to resume or delete."""
        plan = self.plan
        noun = "DataVolume" if not plan.create_pvc else "PersistentVolumeClaim"
        short = "pvc" if plan.create_pvc else "dv"
        where = f"{self.namespace}/{plan.name}"
        if not self.created and not self.existing:
            return "nothing was created"
        what = f"{noun} {where} {'was created' if self.created else 'exists'}"
        if self.uploaded:
            status = "the upload completed; CDI goes on processing it"
        elif self.sent:
            status = f"{self.sent} of {self.total} bytes were sent (the upload is incomplete)"
        elif self.attempts:
            noun = "attempt" if self.attempts == 1 else "attempts"
            status = f"the upload did not complete ({self.attempts} {noun} failed)"
        else:
            status = "no data was uploaded"
        parts = [f"{what}; {status}"]
        if self.datasource:
            parts.append(f"DataSource {where} was {self.datasource}")
        if not self.uploaded:
            flag = "--archive-path" if plan.archive_upload else "--image-path"
            resume = (
                f"kubectl instancetype upload {short} {plan.name} -n {self.namespace} --no-create "
                f"{flag} {plan.image_path}"
            )
            delete = f"kubectl delete {short} {plan.name} -n {self.namespace}"
            parts.append(f"resume with `{resume}` or remove it with `{delete}`")
        return "; ".join(parts)


def upload(session: Session, plan: spec.Plan, settings: Settings) -> State:
    """Run the whole upload in the session's namespace and return what it did (the volume created or reused,
    the bytes sent, the DataSource); raise :class:`UploadError` (with :meth:`State.report`) when it cannot
    finish. virtctl's progress lines go to ``settings.say`` as they happen. An image that cannot be read
    fails first, before the kubeconfig is read (:func:`check_image`)."""
    check_image(plan.image_path)
    namespace = session.namespace
    state = State(namespace, plan)
    if settings.uploadproxy_url:
        check_proxy_url(settings.uploadproxy_url)  # before anything is created
    try:
        _run(session, plan, namespace, settings, state)
    except KeyboardInterrupt:
        raise UploadError(f"interrupted: {state.report()}") from None
    except Exception as exc:  # whatever ends the upload once a volume exists, the report says so
        if not (state.created or state.existing):
            raise
        from ..errors import render

        message = (
            exc.render()
            if isinstance(exc, PluginError)
            else str(exc)
            if isinstance(exc, spec.UploadFailed)
            else render(exc)
        )
        message = message[len("error: ") :] if message.startswith("error: ") else message
        raise UploadError(f"{message}; {state.report()}") from exc
    return state


def check_proxy_url(url: str) -> str:
    """The upload proxy URL with virtctl's default scheme, refused as Go refuses it (``url.Parse``, then the
    http.Client's scheme check) before anything is created; messages show it with its password redacted."""
    from ..golang.neturl import URLError, parse_url

    full = spec.with_scheme(url)
    try:
        parsed = parse_url(full)
    except URLError as exc:
        raise UsageError(f"parse {go_quote(redacted(full))}: {exc}") from None
    if parsed is None or not parsed.host:
        raise UsageError(f"parse {go_quote(redacted(full))}: the upload proxy URL names no host")
    if parsed.scheme not in ("http", "https"):
        target = redacted(spec.proxy_path(full, spec.UPLOAD_PROXY_URI))
        raise UsageError(f"Post {go_quote(target)}: unsupported protocol scheme {go_quote(parsed.scheme)}")
    if parsed.port and (len(parsed.port) > 5 or int(parsed.port) > 65535):
        # Go's dialer refuses it at the first request; here before the volume exists
        target = redacted(spec.proxy_path(full, spec.UPLOAD_PROXY_URI))
        raise UsageError(f"Post {go_quote(target)}: dial tcp: address {parsed.port}: invalid port")
    return full


def check_image(path: str) -> None:
    """Fail early (before connecting) when the image cannot be opened, with Go's ``open PATH: ...`` message."""
    _open_image(path).close()


def _open_image(path: str) -> Any:
    import errno
    import stat

    from ..golang.goos import path_error

    # checked before opening: opening a FIFO waits for a writer, and a device never ends
    try:
        mode = os.stat(path).st_mode
    except OSError as exc:
        raise UsageError(path_error("open", path, exc)) from None
    if stat.S_ISDIR(mode):
        raise UsageError(path_error("read", path, errno.EISDIR))
    if not stat.S_ISREG(mode):
        raise UsageError(f"{path}: not a regular file (a FIFO, device or socket has no size to upload)")
    try:
        handle = open(path, "rb")  # noqa: SIM115 - closed by the caller
    except OSError as exc:
        raise UsageError(path_error("open", path, exc)) from None
    return handle


def _run(session: Session, plan: spec.Plan, namespace: str, settings: Settings, state: State) -> None:
    from ..kube import resources

    client = session.client()
    image = _open_image(plan.image_path)
    try:
        state.total = os.fstat(image.fileno()).st_size
        require_cdi(client)
        if plan.labels and not settings.skip_checks:
            _check_types(session, plan, namespace)
        name = plan.name
        pvc = _existing_pvc(client, plan, namespace, settings)
        if pvc is None:
            if plan.create_pvc:
                body = spec.upload_pvc(plan, namespace)
            else:
                body = spec.data_volume(plan, namespace)
            if plan.storage_class:
                client.get(resources.STORAGE_CLASSES, plan.storage_class)
            resource = resources.PERSISTENT_VOLUME_CLAIMS if plan.create_pvc else resources.DATA_VOLUMES
            created = client.create(resource, body, namespace)
            state.created = True
            settings.say(f"{plan.kind} {namespace}/{created['metadata']['name']} created")
        else:
            state.existing = True
            settings.say(f"Using existing PVC {namespace}/{pvc['metadata']['name']}")
        if plan.create_pvc:
            _wait_pvc_ready(client, plan, namespace, settings)
        else:
            _wait_dv_ready(client, plan, namespace, settings)
        url = settings.uploadproxy_url or _proxy_url_from_cdiconfig(client)
        if not url:
            raise UsageError("uploadproxy URL not found")
        url = check_proxy_url(url)
        settings.say(f"Uploading data to {redacted(url)}")
        token = upload_token(client, name, namespace)
        _upload_data(session, plan, namespace, settings, state, url, token, image)
        state.uploaded = True
        if plan.datasource:
            _data_source(client, plan, namespace, settings, state)
        settings.say(
            "Uploading data completed successfully, waiting for processing to complete, "
            "you can hit ctrl-c without interrupting the progress"
        )
        if not _poll(
            settings,
            spec.PROCESSING_WAIT_INTERVAL,
            spec.PROCESSING_WAIT_TOTAL,
            lambda: _processed(client, plan, namespace, settings),
        ):
            settings.say(
                "Timed out waiting for post upload processing to complete, please check upload pod status for progress"
            )
            raise UploadError("context deadline exceeded")
        settings.say(f"Uploading {plan.image_path} completed successfully")
    finally:
        image.close()


class CDIMissing(PluginError):
    """The cluster does not run CDI: nothing can answer an upload."""


def require_cdi(client: Client) -> None:
    """Fail at once, before anything is created, when CDI's upload API (cdi-apiserver, through the API server's
    aggregation) is not served: without CDI no upload pod ever becomes ready and the wait would only time out."""
    from ..errors import NotFoundError
    from ..kube.resources import UPLOAD_GROUP, UPLOAD_VERSION

    try:
        client.api_resources(UPLOAD_GROUP, UPLOAD_VERSION)
    except NotFoundError:
        raise CDIMissing(
            "CDI is not installed: the server does not serve upload.cdi.kubevirt.io/v1beta1 (CDI's cdi-apiserver); "
            "install CDI (containerized-data-importer) first; nothing was created"
        ) from None


def _check_types(session: Session, plan: spec.Plan, namespace: str) -> None:
    """Unlike virtctl: the instance type and preference the labels name must exist before anything is created."""
    from ..instancetype.infer import (
        INSTANCETYPE_KIND_LABEL,
        INSTANCETYPE_LABEL,
        PREFERENCE_KIND_LABEL,
        PREFERENCE_LABEL,
    )
    from ..instancetype.kinds import DEFAULT_KIND, matcher_kind
    from .fitting import check_default_types
    from .references import DEFAULT_FLAGS, TypeReference, require_types

    labels = plan.labels
    wanted = {
        # the kind as the command checked it (infer.canonical_kind), read as KubeVirt reads the label
        key: TypeReference(
            matcher_kind(labels.get(kind_label) or "", key) or DEFAULT_KIND[key], labels[label], DEFAULT_FLAGS[key]
        )
        for key, label, kind_label in (
            ("instancetype", INSTANCETYPE_LABEL, INSTANCETYPE_KIND_LABEL),
            ("preference", PREFERENCE_LABEL, PREFERENCE_KIND_LABEL),
        )
        if labels.get(label)
    }
    then = "; nothing was created (--skip-checks uploads anyway)"
    found = dict(zip(wanted, require_types(session, list(wanted.values()), namespace, then=then)))
    # the pair must work together too: KubeVirt denies every VM that infers both from the volume otherwise
    volume = f"{'pvc' if plan.create_pvc else 'dv'}/{plan.name}"
    check_default_types(session, found.get("instancetype"), found.get("preference"), volume=volume, then=then)


def _existing_pvc(client: Client, plan: spec.Plan, namespace: str, settings: Settings) -> dict[str, Any] | None:
    """``getAndValidateUploadPVC`` + ``ensurePVCSupportsUpload``: the PVC to upload to, or None to create one."""
    from ..kube import resources

    try:
        pvc = client.get(resources.PERSISTENT_VOLUME_CLAIMS, plan.name, namespace)
    except APIError as exc:
        if exc.code != 404:
            raise  # virtctl says "not found" for any failure here; a Forbidden is not that
        settings.say(f"PVC {namespace}/{plan.name} not found")
        if not plan.no_create:
            return None
        raise
    if not plan.create_pvc:
        pvc = _data_volume_pvc(client, plan, namespace, pvc)
    spec.check_existing_pvc(pvc, plan)
    annotations = (pvc.get("metadata") or {}).get("annotations") or {}
    if spec.UPLOAD_REQUEST_ANNOTATION not in annotations:
        pvc = client.patch(
            resources.PERSISTENT_VOLUME_CLAIMS,
            pvc["metadata"]["name"],
            namespace,
            {"metadata": {"annotations": {spec.UPLOAD_REQUEST_ANNOTATION: ""}}},
        )
    return pvc


def _data_volume_pvc(client: Client, plan: spec.Plan, namespace: str, pvc: dict[str, Any]) -> dict[str, Any]:
    """``validateUploadDataVolume``: the DataVolume must exist; with populators the upload goes to the PVC prime."""
    from ..kube import resources

    try:
        dv = client.get(resources.DATA_VOLUMES, plan.name, namespace)
    except APIError as exc:
        if exc.code == 404:
            raise UsageError(spec.missing_data_volume_message(pvc, plan.name)) from None
        raise
    if ((dv.get("metadata") or {}).get("annotations") or {}).get(spec.USE_POPULATOR_ANNOTATION) == "true":
        if (pvc.get("status") or {}).get("phase") == "Bound":
            raise UsageError(f"PVC {plan.name} already successfully populated")
        prime = ((pvc.get("metadata") or {}).get("annotations") or {}).get(spec.PVC_PRIME_ANNOTATION)
        if prime is None:
            raise UsageError(f"Unable to get PVC Prime name from PVC {namespace}/{plan.name}")
        try:
            return client.get(resources.PERSISTENT_VOLUME_CLAIMS, prime, namespace)
        except APIError:
            raise UsageError(f"Unable to get PVC Prime {namespace}/{plan.name}") from None
    return pvc


def _poll(settings: Settings, interval: float, timeout: float, condition: Callable[[], bool]) -> bool:
    """``wait.PollUntilContextTimeout(immediate)``: True once ``condition`` holds, False when ``timeout`` passes."""
    ends = settings.monotonic() + timeout
    while True:
        if condition():
            return True
        left = ends - settings.monotonic()
        if left <= 0:
            return False
        settings.sleep(min(interval, left))


def _wait_pvc_ready(client: Client, plan: spec.Plan, namespace: str, settings: Settings) -> None:
    from ..kube import resources

    logged = [False]

    def ready() -> bool:
        try:
            pvc = client.get(resources.PERSISTENT_VOLUME_CLAIMS, plan.name, namespace)
        except APIError as exc:
            if exc.code == 404:  # the DataVolume controller may not have created it yet
                return False
            raise
        done = spec.pvc_upload_ready(pvc)
        if not done:
            _event_errors(client, namespace, plan.name, "")
            if not logged[0]:
                settings.say(f"Waiting for PVC {plan.name} upload pod to be ready...")
                logged[0] = True
        elif logged[0]:
            settings.say("Pod now ready")
        return done

    if not _poll(settings, spec.READY_WAIT_INTERVAL, plan.wait_secs, ready):
        raise UsageError(
            f"context deadline exceeded: PVC {plan.name} was not ready for upload within --wait-secs={plan.wait_secs}"
        )


def _wait_dv_ready(client: Client, plan: spec.Plan, namespace: str, settings: Settings) -> None:
    from ..kube import resources

    logged = [False]

    def ready() -> bool:
        try:
            dv = client.get(resources.DATA_VOLUMES, plan.name, namespace)
        except APIError as exc:
            if exc.code == 404:
                settings.say(f"DV {plan.name} not found... ")
                return False
            raise
        done = spec.dv_upload_ready(dv, plan.force_bind)
        if not done:
            claim = str((dv.get("status") or {}).get("claimName") or "")
            _event_errors(client, namespace, claim, plan.name)
            if not logged[0]:
                settings.say(f"Waiting for PVC {plan.name} upload pod to be ready...")
                logged[0] = True
        elif logged[0]:
            settings.say("Pod now ready")
        return done

    if not _poll(settings, spec.READY_WAIT_INTERVAL, plan.wait_secs, ready):
        raise UsageError(
            f"context deadline exceeded: DataVolume {plan.name} was not ready for upload within --wait-secs={plan.wait_secs}"
        )


def _event_errors(client: Client, namespace: str, pvc_name: str, dv_name: str) -> None:
    """``handleEventErrors``: events of the PVC and DataVolume that make waiting pointless."""
    from ..kube import resources

    def uid(resource: Any, name: str) -> str:
        if not name:
            return ""
        try:
            return str(client.get(resource, name, namespace)["metadata"].get("uid") or "")
        except APIError as exc:
            if exc.code == 404:
                return ""
            raise

    events = [item for page in client.list_pages(resources.EVENTS, namespace) for item in page.get("items") or ()]
    message = spec.event_error(
        events, uid(resources.PERSISTENT_VOLUME_CLAIMS, pvc_name), uid(resources.DATA_VOLUMES, dv_name)
    )
    if message:
        raise UsageError(message)


def _proxy_url_from_cdiconfig(client: Client) -> str:
    """``getUploadProxyURL``: CDIConfig ``config``'s ``spec.uploadProxyURLOverride``, else ``status.uploadProxyURL``."""
    from ..kube import resources

    config = client.get(resources.CDI_CONFIGS, "config")
    override = (config.get("spec") or {}).get("uploadProxyURLOverride")
    if override is not None:
        return str(override)
    return str((config.get("status") or {}).get("uploadProxyURL") or "")


def upload_token(client: Client, pvc_name: str, namespace: str) -> str:
    """``getUploadToken``: create an UploadTokenRequest and read ``status.token`` (never printed)."""
    from ..kube import resources

    request = {
        "apiVersion": "upload.cdi.kubevirt.io/v1beta1",
        "kind": "UploadTokenRequest",
        "metadata": {"generateName": spec.TOKEN_GENERATE_NAME},
        "spec": {"pvcName": pvc_name},
    }
    answer = client.create(resources.UPLOAD_TOKEN_REQUESTS, request, namespace)
    return str((answer.get("status") or {}).get("token") or "")


# ---- the upload proxy -------------------------------------------------------------------------------------


def _upload_url(connections: Any, url: str, token: str) -> str:
    """``ConstructUploadProxyPathAsync``: the async endpoint when a HEAD with the token answers 200."""
    async_url = spec.proxy_path(url, spec.UPLOAD_PROXY_URI_ASYNC)
    try:
        response = connections.request("HEAD", async_url, {"Authorization": f"Bearer {token}"})
    except Exception:  # noqa: BLE001 - any failure means the sync endpoint, as in virtctl
        return spec.proxy_path(url, spec.UPLOAD_PROXY_URI)
    if response.status == 200:
        return async_url
    return spec.proxy_path(url, spec.UPLOAD_PROXY_URI)


def _upload_data(
    session: Session,
    plan: spec.Plan,
    namespace: str,
    settings: Settings,
    state: State,
    url: str,
    token: str,
    image: Any,
) -> None:
    """``uploadData``: POST the file (streamed) with retries; a 401 after the first attempt refreshes the token."""
    timeout = float(plan.wait_secs or 300)
    client = session.client()
    connections = session.upload_proxy(url, insecure=settings.insecure, timeout=timeout)
    # virtctl's loop runs --retry times and, with --retry=0, sends nothing yet reports success: one attempt at least.
    policy = spec.RetryPolicy(max(plan.retry, 1))
    display = settings.progress(state.total) if settings.progress else None

    def progress(sent: int) -> None:
        state.sent = sent
        if display is not None:
            display.update(sent)

    try:
        while policy.should_try():
            target = _upload_url(connections, url, token)
            if policy.attempt > 0:
                state.sent = 0
                if display is not None:
                    display.restart()
                settings.sleep(policy.attempt * settings.jitter(50) / 1000)
            image.seek(0)
            headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/octet-stream"}
            try:
                response = connections.request(
                    "POST", target, headers, image, content_length=state.total, progress=progress
                )
            except connections.FAILURES as exc:
                # net/url's Error: "%s %q: %s"
                status, message = 0, f"Post {go_quote(redacted(target))}: {connections.describe(exc)}"
            else:
                if response.status == 200:
                    if display is not None:
                        display.finish()
                    return
                # the proxy's text, on the one error line: its line breaks shown as \n (stderr escapes the rest)
                body = response.body[:4096].decode("utf-8", "replace").strip().replace("\r\n", "\n")
                body = body.replace("\n", "\\n")
                status, message = response.status, f"unexpected return value {response.status}, {body}"
            state.attempts, state.sent = state.attempts + 1, 0  # the proxy keeps nothing of a failed POST
            if policy.failed(status, message) == "refresh":
                try:
                    token = upload_token(client, plan.name, namespace)
                except PluginError as exc:
                    raise UploadError(f"failed to get upload token: {exc.message}") from exc
    finally:
        if display is not None:
            display.close()


def _data_source(client: Client, plan: spec.Plan, namespace: str, settings: Settings, state: State) -> None:
    """``handleDataSource``: create the DataSource, or JSON-patch an existing one's labels and PVC source."""
    from ..kube import resources
    from ..kube.client import JSON_PATCH

    try:
        existing = client.get(resources.DATA_SOURCES, plan.name, namespace)
    except APIError as exc:
        if exc.code != 404:
            raise
        client.create(resources.DATA_SOURCES, spec.data_source(plan, namespace), namespace)
        state.datasource = "created"
        settings.say(f"Created a new DataSource {namespace}/{plan.name}")
        return
    patch = spec.data_source_patch(existing, plan, namespace)
    client.patch(resources.DATA_SOURCES, plan.name, namespace, patch, JSON_PATCH)
    state.datasource = "updated"
    settings.say(f"Updated an existing DataSource {namespace}/{plan.name}")


def _processed(client: Client, plan: spec.Plan, namespace: str, settings: Settings) -> bool:
    from ..kube import resources

    pvc = client.get(resources.PERSISTENT_VOLUME_CLAIMS, plan.name, namespace)
    done = spec.processing_complete(pvc)
    if done:
        settings.say("Processing completed successfully")
    return done
