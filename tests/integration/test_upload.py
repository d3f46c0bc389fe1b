"""``kubectl instancetype upload`` on the real control plane, CDI's upload data path played by
tests/doubles/cdi_upload.py.

The token request goes through the real kube-apiserver (API aggregation) to CDI's real cdi-apiserver, which signs
it; the file goes to the double's HTTPS upload proxy, which verifies that token as CDI's proxy does; the double's
controller moves the DataVolume/PVC as CDI's controller would.
"""

from __future__ import annotations

import signal
import threading
import time

from tests.conftest import UPLOAD_NAMESPACE, api_exists, fresh_name

IT_LABEL = "instancetype.kubevirt.io/default-instancetype"
PREF_LABEL = "instancetype.kubevirt.io/default-preference"
PREF_KIND_LABEL = "instancetype.kubevirt.io/default-preference-kind"


def upload(cli, upload_double, *args: str, extra_env=None):
    return cli(
        "upload",
        *args,
        "-n",
        UPLOAD_NAMESPACE,
        "--uploadproxy-url",
        upload_double.proxy_url,
        "--insecure",
        extra_env=extra_env,
    )


def get(control_plane, path: str) -> dict:
    status, answer = control_plane.request("GET", path)
    assert status == 200, (path, status, answer)
    return answer


def pvc(control_plane, name):
    return get(control_plane, f"/api/v1/namespaces/{UPLOAD_NAMESPACE}/persistentvolumeclaims/{name}")


def dv(control_plane, name):
    return get(control_plane, f"/apis/cdi.kubevirt.io/v1beta1/namespaces/{UPLOAD_NAMESPACE}/datavolumes/{name}")


def dv_phase(control_plane, name, want: str, timeout: float = 10.0) -> str:
    """The DataVolume's phase once it is ``want`` (or whatever it is after ``timeout``). The plugin waits on the
    PVC's upload-pod phase annotation; CDI's DataVolume controller copies it to the DataVolume's phase on a later
    reconcile (pkg/controller/datavolume upload-controller.go, updateStatusPhase; the upload double: every 0.1 s), so right after the command the DataVolume may still say
    UploadReady."""
    deadline = time.monotonic() + timeout
    while True:
        phase = (dv(control_plane, name).get("status") or {}).get("phase")
        if phase == want or time.monotonic() > deadline:
            return str(phase)
        time.sleep(0.1)


def test_dv_upload_with_labels_and_datasource(cli, control_plane, upload_double, upload_image):
    name = fresh_name("fedora")
    result = upload(
        cli, upload_double, "dv", name, "--size", "1Gi", "--image-path", str(upload_image),
        "--default-instancetype", "u1.medium", "--default-preference", "fedora", "--datasource",
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == f"PVC {UPLOAD_NAMESPACE}/{name} not found"
    assert lines[1] == f"DataVolume {UPLOAD_NAMESPACE}/{name} created"
    assert f"Uploading data to {upload_double.proxy_url}" in lines
    assert f"Created a new DataSource {UPLOAD_NAMESPACE}/{name}" in lines
    assert lines[-1] == f"Uploading {upload_image} completed successfully"
    assert "Processing completed successfully" in lines
    # progress: plain lines on a non-terminal stderr, ending at 100%
    assert "Uploaded 100% (3.0 MiB of 3.0 MiB" in result.stderr
    # the token is the real cdi-apiserver's, for this PVC: the proxy verified its signature and read its claims
    claims = upload_double.posts[-1]["claims"]
    assert (claims["iss"], claims["operation"], claims["namespace"], claims["name"]) == (
        "cdi-apiserver",
        "Upload",
        UPLOAD_NAMESPACE,
        name,
    )
    assert claims["exp"] - claims["iat"] == 300  # CDI's 5-minute upload tokens
    assert upload_double.uploaded[(UPLOAD_NAMESPACE, name)] == upload_image.stat().st_size
    assert upload_double.posts[-1]["path"] == "/v1beta1/upload-async"
    created = dv(control_plane, name)
    assert created["metadata"]["labels"] == {IT_LABEL: "u1.medium", PREF_LABEL: "fedora"}
    assert created["spec"] == {
        "source": {"upload": {}},
        "contentType": "kubevirt",
        "storage": {"resources": {"requests": {"storage": "1Gi"}}},
    }
    assert dv_phase(control_plane, name, "Succeeded") == "Succeeded"
    assert pvc(control_plane, name)["metadata"]["labels"][IT_LABEL] == "u1.medium"  # CDI copied them
    source = get(control_plane, f"/apis/cdi.kubevirt.io/v1beta1/namespaces/{UPLOAD_NAMESPACE}/datasources/{name}")
    assert source["metadata"]["labels"] == {IT_LABEL: "u1.medium", PREF_LABEL: "fedora"}
    assert source["spec"]["source"]["pvc"] == {"name": name, "namespace": UPLOAD_NAMESPACE}
    # the plugin's own inference reads what the upload wrote
    inferred = cli("infer", f"datasource/{name}", "-n", UPLOAD_NAMESPACE, "-o", "json")
    assert inferred.exit_code == 0, inferred.stderr
    assert '"u1.medium"' in inferred.stdout


def test_pvc_upload_with_namespaced_preference_and_existing_datasource(cli, control_plane, upload_double, upload_image):
    name = fresh_name("rhel")
    control_plane.apply(
        {
            "apiVersion": "cdi.kubevirt.io/v1beta1",
            "kind": "DataSource",
            "metadata": {"name": name, "namespace": UPLOAD_NAMESPACE, "labels": {"team": "a"}},
            "spec": {"source": {"pvc": {"name": "old", "namespace": UPLOAD_NAMESPACE}}},
        }
    )
    preference = {
        "apiVersion": "instancetype.kubevirt.io/v1beta1",
        "kind": "VirtualMachinePreference",
        "metadata": {"name": "local-rhel", "namespace": UPLOAD_NAMESPACE},
        "spec": {},
    }
    control_plane.apply(preference)
    upload_double.async_supported = False
    try:
        result = upload(
        cli, upload_double, "pvc", name, "--size", "2Gi", "--image-path", str(upload_image), "--datasource",
            "--default-preference", "local-rhel", "--default-preference-kind", "VirtualMachinePreference",
        )  # fmt: skip
    finally:
        control_plane.delete(preference)  # other tests count the preferences of every namespace
    assert result.exit_code == 0, result.stderr
    assert f"PersistentVolumeClaim {UPLOAD_NAMESPACE}/{name} created" in result.stdout
    assert f"Updated an existing DataSource {UPLOAD_NAMESPACE}/{name}" in result.stdout
    assert upload_double.posts[-1]["path"] == "/v1beta1/upload"  # no async endpoint: the sync one
    claim = pvc(control_plane, name)
    assert claim["metadata"]["labels"] == {
        "cdi.kubevirt.io/applyStorageProfile": "true",
        PREF_LABEL: "local-rhel",
        PREF_KIND_LABEL: "virtualmachinepreference",
    }
    assert claim["metadata"]["annotations"]["cdi.kubevirt.io/storage.contentType"] == "kubevirt"
    assert claim["metadata"]["annotations"]["cdi.kubevirt.io/storage.pod.phase"] == "Succeeded"
    assert claim["spec"]["accessModes"] == ["ReadWriteOnce"]
    source = get(control_plane, f"/apis/cdi.kubevirt.io/v1beta1/namespaces/{UPLOAD_NAMESPACE}/datasources/{name}")
    assert source["metadata"]["labels"] == {
        "team": "a",
        PREF_LABEL: "local-rhel",
        PREF_KIND_LABEL: "virtualmachinepreference",
    }
    assert source["spec"]["source"]["pvc"] == {"name": name, "namespace": UPLOAD_NAMESPACE}


def test_missing_default_types_fail_before_anything_is_created(cli, control_plane, upload_double, upload_image):
    name = fresh_name("nothing")
    result = upload(
        cli, upload_double, "dv", name, "--size", "1Gi", "--image-path", str(upload_image),
        "--default-instancetype", "u1.nope", "--default-preference", "fedora",
    )  # fmt: skip
    assert result.exit_code == 1
    assert result.stderr.strip() == (
        'error: virtualmachineclusterinstancetype "u1.nope" not found; nothing was created '
        "(--skip-checks uploads anyway)"
    )
    assert not api_exists(
        control_plane, f"/apis/cdi.kubevirt.io/v1beta1/namespaces/{UPLOAD_NAMESPACE}/datavolumes/{name}"
    )


def test_expired_token_is_refreshed_after_a_first_failure(cli, control_plane, upload_double, upload_image):
    name = fresh_name("refresh")
    # the first POST fails (502) and the proxy then treats its token as expired: the second gets 401, a new token
    # is requested from cdi-apiserver through the API server, and the third succeeds
    upload_double.fail_with = [502]
    upload_double.expire_after_failure = True
    result = upload(cli, upload_double, "dv", name, "--size", "1Gi", "--image-path", str(upload_image), "--retry", "4")
    assert result.exit_code == 0, result.stderr
    posts = upload_double.posts[-3:]
    assert [post["status"] for post in posts] == [502, 401, 200]
    assert posts[0]["token"] == posts[1]["token"] != posts[2]["token"]  # the first token and one refresh
    assert posts[2]["claims"]["name"] == name
    assert result.stderr.count("Retrying the upload from the start") == 2


def test_first_attempt_401_fails_fast_and_reports_the_volume(cli, control_plane, upload_double, upload_image):
    name = fresh_name("denied")
    upload_double.reject_all = True
    result = upload(cli, upload_double, "pvc", name, "--size", "1Gi", "--image-path", str(upload_image))
    assert result.exit_code == 1
    assert [post["status"] for post in upload_double.posts[-1:]] == [401]
    error = result.stderr.strip().splitlines()[-1]
    # CDI's proxy answers a refused token with a bare 401 (no body): virtctl's words then end in ", "
    assert error.startswith("error: authentication failed: unexpected return value 401, ; ")
    assert (
        f"PersistentVolumeClaim {UPLOAD_NAMESPACE}/{name} was created; the upload did not complete (1 attempt failed)"
        in error
    )
    assert f"`kubectl delete pvc {name} -n {UPLOAD_NAMESPACE}`" in error


def test_proxy_failing_twice_then_succeeding(cli, control_plane, upload_double, upload_image):
    name = fresh_name("flaky")
    upload_double.fail_with = [500, 503]
    result = upload(cli, upload_double, "dv", name, "--size", "1Gi", "--image-path", str(upload_image))
    assert result.exit_code == 0, result.stderr
    assert [post["status"] for post in upload_double.posts[-3:]] == [500, 503, 200]
    assert result.stderr.count("Retrying the upload from the start") == 2
    assert dv_phase(control_plane, name, "Succeeded") == "Succeeded"


def test_proxy_failing_every_time_exhausts_the_retries(cli, control_plane, upload_double, upload_image):
    name = fresh_name("broken")
    upload_double.fail_with = [500] * 3
    result = upload(cli, upload_double, "dv", name, "--size", "1Gi", "--image-path", str(upload_image), "--retry", "3")
    assert result.exit_code == 1
    error = result.stderr.strip().splitlines()[-1]
    assert error.startswith(
        "error: error uploading image after 3 retries: unexpected return value 500, upload server error; "
        f"DataVolume {UPLOAD_NAMESPACE}/{name} was created; the upload did not complete (3 attempts failed); resume with "
        f"`kubectl instancetype upload dv {name} -n {UPLOAD_NAMESPACE} --no-create --image-path {upload_image}`"
    )


def test_proxy_that_never_answers_is_bounded_by_wait_secs(cli, control_plane, upload_double, upload_image):
    name = fresh_name("silent")
    upload_double.hang = True
    upload_double.hang_limit = 20
    result = upload(
        cli,
        upload_double,
        "dv",
        name,
        "--size",
        "1Gi",
        "--image-path",
        str(upload_image),
        "--wait-secs",
        "1",
        "--retry",
        "1",
    )
    assert result.exit_code == 1
    error = result.stderr.strip().splitlines()[-1]
    assert "error uploading image after 1 retries: Post " in error
    assert "no answer from the upload proxy within 1s (--wait-secs)" in error
    assert f"DataVolume {UPLOAD_NAMESPACE}/{name} was created" in error
    assert api_exists(control_plane, f"/apis/cdi.kubevirt.io/v1beta1/namespaces/{UPLOAD_NAMESPACE}/datavolumes/{name}")


def test_upload_never_ready_is_bounded_by_wait_secs(cli, control_plane, upload_double, upload_image):
    name = fresh_name("unready")
    upload_double.never_ready = True
    result = upload(
        cli, upload_double, "pvc", name, "--size", "1Gi", "--image-path", str(upload_image), "--wait-secs", "1"
    )
    assert result.exit_code == 1
    assert f"Waiting for PVC {name} upload pod to be ready..." in result.stdout
    error = result.stderr.strip()
    assert error.startswith(
        f"error: context deadline exceeded: PVC {name} was not ready for upload within --wait-secs=1; "
        f"PersistentVolumeClaim {UPLOAD_NAMESPACE}/{name} was created; no data was uploaded"
    )


def test_provisioning_failed_event_ends_the_wait(cli, control_plane, upload_double, upload_image):
    name = fresh_name("noroom")
    upload_double.provisioning_failure = "no space left in the pool"
    result = upload(
        cli, upload_double, "dv", name, "--size", "1Gi", "--image-path", str(upload_image), "--wait-secs", "30"
    )
    assert result.exit_code == 1
    assert result.stderr.strip().startswith(
        f"error: Provisioning failed: no space left in the pool; DataVolume {UPLOAD_NAMESPACE}/{name} was created"
    ), result.stderr


def test_interrupted_upload_reports_what_exists_and_resumes(cli, control_plane, upload_double, upload_image):
    name = fresh_name("interrupted")
    size = upload_image.stat().st_size
    fired = []

    def interrupt(received):
        if received > size // 3 and not fired:
            fired.append(received)
            # Ctrl-C, delivered to the main thread running the CLI (to the process, the kernel may pick another
            # thread and leave the main thread's send blocked), and nothing more is read meanwhile: the upload
            # cannot finish before the interrupt is handled, however loaded the machine
            signal.pthread_kill(threading.main_thread().ident, signal.SIGINT)
            time.sleep(1)

    upload_double.on_bytes = interrupt
    upload_double.complete_processing = True
    result = upload(cli, upload_double, "dv", name, "--size", "1Gi", "--image-path", str(upload_image))
    assert fired
    assert result.exit_code == 1
    error = result.stderr.strip().splitlines()[-1]
    assert error.startswith(f"error: interrupted: DataVolume {UPLOAD_NAMESPACE}/{name} was created; ")
    assert "bytes were sent (the upload is incomplete)" in error
    assert f"`kubectl delete dv {name} -n {UPLOAD_NAMESPACE}`" in error
    assert (UPLOAD_NAMESPACE, name) not in upload_double.uploaded
    # resuming as told finishes the upload
    upload_double.on_bytes = None
    resumed = upload(cli, upload_double, "dv", name, "--no-create", "--image-path", str(upload_image))
    assert resumed.exit_code == 0, resumed.stderr
    assert f"Using existing PVC {UPLOAD_NAMESPACE}/{name}" in resumed.stdout
    assert upload_double.uploaded[(UPLOAD_NAMESPACE, name)] == size


def test_existing_volume_checks(cli, control_plane, upload_double, upload_image):
    name = fresh_name("plain")
    control_plane.apply(
        {
            "apiVersion": "v1",
            "kind": "PersistentVolumeClaim",
            "metadata": {"name": name, "namespace": UPLOAD_NAMESPACE},
            "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}},
        }
    )
    result = upload(cli, upload_double, "pvc", name, "--size", "1Gi", "--image-path", str(upload_image))
    assert (result.exit_code, result.stderr) == (1, f"error: PVC {name} not available for upload\n")
    result = upload(cli, upload_double, "dv", name, "--size", "1Gi", "--image-path", str(upload_image))
    assert result.stderr == f"error: No DataVolume is associated with the existing PVC {UPLOAD_NAMESPACE}/{name}\n"
    result = upload(cli, upload_double, "dv", fresh_name("absent"), "--no-create", "--image-path", str(upload_image))
    assert result.exit_code == 1
    assert "not found" in result.stderr


def test_token_request_is_authorized_by_the_api_server(cli, control_plane, upload_double, upload_image):
    """The aggregated API sits behind kube-apiserver's RBAC: a user who may create PVCs but not
    UploadTokenRequests is refused by the API server, and is told what was created."""
    rules = [
        {"apiGroups": [""], "resources": ["persistentvolumeclaims"], "verbs": ["get", "create", "patch"]},
        {"apiGroups": [""], "resources": ["events"], "verbs": ["list"]},
    ]
    control_plane.apply(
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "Role",
            "metadata": {"name": "alice-pvcs", "namespace": "alice"},
            "rules": rules,
        }
    )
    control_plane.apply(
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "RoleBinding",
            "metadata": {"name": "alice-pvcs", "namespace": "alice"},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "alice-pvcs"},
            "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "alice"}],
        }
    )
    name = fresh_name("rbac")
    before = len(upload_double.posts)
    result = cli(
        "upload", "pvc", name, "--size", "1Gi", "--image-path", str(upload_image),
        "--uploadproxy-url", upload_double.proxy_url, "--insecure", user="alice",
    )  # fmt: skip
    assert result.exit_code == 1
    error = result.stderr.strip().splitlines()[-1]
    assert error.startswith(
        'Error from server (Forbidden): uploadtokenrequests.upload.cdi.kubevirt.io is forbidden: User "alice" '
        "cannot create resource "
        '"uploadtokenrequests" in API group "upload.cdi.kubevirt.io" in the namespace "alice"; '
        f"PersistentVolumeClaim alice/{name} was created; no data was uploaded"
    ), error
    assert len(upload_double.posts) == before  # no token, so nothing was sent to the upload proxy


def test_proxy_certificate_is_verified_without_insecure(cli, control_plane, upload_double, upload_image):
    def args(name):
        return ["upload", "dv", name, "-n", UPLOAD_NAMESPACE, "--size", "1Gi", "--image-path", str(upload_image),
                "--uploadproxy-url", upload_double.proxy_url, "--retry", "1"]  # fmt: skip

    refused = cli(*args(fresh_name("tls")))
    assert refused.exit_code == 1
    assert "tls: failed to verify certificate" in refused.stderr
    # Go's rule: SSL_CERT_FILE names the roots; the plugin reads it from its environment as Go does
    trusted = cli(*args(fresh_name("tls")), extra_env={"SSL_CERT_FILE": str(upload_double.ca_file)})
    assert trusted.exit_code == 0, trusted.stderr


def test_populator_data_volume_checks(cli, control_plane, upload_double, upload_image):
    """With CDI's populators the upload goes to the PVC prime named on the PVC; virtctl's checks and messages."""
    name = fresh_name("populated")
    claim = {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": name, "namespace": UPLOAD_NAMESPACE},
        "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}},
    }
    # The DataVolume first: CDI's webhook denies one whose PVC exists already; CDI's controller then makes the PVC.
    control_plane.apply(
        {
            "apiVersion": "cdi.kubevirt.io/v1beta1",
            "kind": "DataVolume",
            "metadata": {
                "name": name,
                "namespace": UPLOAD_NAMESPACE,
                "annotations": {"cdi.kubevirt.io/storage.usePopulator": "true"},
            },
            "spec": {
                "source": {"http": {"url": "http://example.invalid/disk.img"}},
                "storage": {"resources": {"requests": {"storage": "1Gi"}}},
            },
        }
    )
    control_plane.apply(claim)

    def attempt():
        return upload(cli, upload_double, "dv", name, "--no-create", "--image-path", str(upload_image))

    assert attempt().stderr == f"error: Unable to get PVC Prime name from PVC {UPLOAD_NAMESPACE}/{name}\n"
    path = f"/api/v1/namespaces/{UPLOAD_NAMESPACE}/persistentvolumeclaims/{name}"
    upload_double.merge_patch(
        path, {"metadata": {"annotations": {"cdi.kubevirt.io/storage.populator.pvcPrime": "gone"}}}
    )
    assert attempt().stderr == f"error: Unable to get PVC Prime {UPLOAD_NAMESPACE}/{name}\n"
    upload_double.merge_patch(path + "/status", {"status": {"phase": "Bound"}})
    assert attempt().stderr == f"error: PVC {name} already successfully populated\n"


def _b64(data: bytes) -> str:
    import base64

    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _jwt(claims: dict, key=None, alg: str = "PS256") -> str:
    """A compact JWS of ``claims``: PS256 with ``key`` (go-jose's signing, as cdi-apiserver's), or unsigned."""
    import json

    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import padding

    signing_input = f"{_b64(json.dumps({'alg': alg}).encode())}.{_b64(json.dumps(claims).encode())}"
    if key is None:
        return signing_input + "."
    scheme = padding.PSS(mgf=padding.MGF1(hashes.SHA256()), salt_length=32)
    return signing_input + "." + _b64(key.sign(signing_input.encode(), scheme, hashes.SHA256()))


def _claims(token: str) -> dict:
    import base64
    import json

    payload = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


def _post(double, authorization: str | None) -> tuple[int, str]:
    """An empty POST to the double's proxy: (status, body)."""
    import http.client
    import ssl

    context = ssl.create_default_context(cafile=str(double.ca_file))
    connection = http.client.HTTPSConnection("127.0.0.1", double.proxy_port, context=context, timeout=30)
    headers = {"Content-Length": "0"} | ({"Authorization": authorization} if authorization is not None else {})
    try:
        connection.request("POST", "/v1beta1/upload", headers=headers)
        response = connection.getresponse()
        return response.status, response.read().decode()
    finally:
        connection.close()


def test_the_proxy_takes_only_tokens_the_real_cdi_apiserver_signed(control_plane, upload_double) -> None:
    """The double's proxy checks a token as CDI's cdi-uploadproxy does, with the public key of the real
    cdi-apiserver (Secret cdi/cdi-api-signing-key): anything unsigned, forged, altered, expired or from another
    issuer is refused with 401, a token for another operation with 400, and only then is the claim's PVC looked up
    (503: it does not exist). Keys other than the public one are this test's, to show each check can fail."""
    import base64
    import time

    from cryptography.hazmat.primitives.asymmetric import rsa
    from cryptography.hazmat.primitives.serialization import load_pem_private_key

    missing = fresh_name("missing")
    status, answer = control_plane.request(
        "POST",
        f"/apis/upload.cdi.kubevirt.io/v1beta1/namespaces/{UPLOAD_NAMESPACE}/uploadtokenrequests",
        {"apiVersion": "upload.cdi.kubevirt.io/v1beta1", "kind": "UploadTokenRequest", "spec": {"pvcName": missing}},
    )
    assert status == 200, answer
    real = answer["status"]["token"]
    claims = _claims(real)
    assert (claims["iss"], claims["operation"], claims["name"]) == ("cdi-apiserver", "Upload", missing)
    _, secret = control_plane.request("GET", "/api/v1/namespaces/cdi/secrets/cdi-api-signing-key")
    signing_key = load_pem_private_key(base64.b64decode(secret["data"]["id_rsa"]), None)
    forger = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    header, payload, signature = real.split(".")
    altered = _b64(json_bytes({**claims, "name": "someone-elses"}))
    now = int(time.time())

    refused_pvc = f"rejecting Upload Request for PVC {missing} that doesn&#39;t exist"
    cases = {
        "cdi-apiserver's token": (f"Bearer {real}", 503, refused_pvc),
        "the same claims, signed with cdi-apiserver's key": (f"Bearer {_jwt(claims, signing_key)}", 503, refused_pvc),
        "no Authorization header": (None, 400, ""),
        "not a bearer token": (f"Basic {real}", 400, ""),
        "not a JWT": ("Bearer not-a-token", 401, ""),
        "unsigned (alg none)": (f"Bearer {_jwt(claims, alg='none')}", 401, ""),
        "signed with another key": (f"Bearer {_jwt(claims, forger)}", 401, ""),
        "claims altered after signing": (f"Bearer {header}.{altered}.{signature}", 401, ""),
        "another token's signature": (f"Bearer {header}.{payload}.{_jwt(claims, forger).split('.')[2]}", 401, ""),
        "expired": (f"Bearer {_jwt({**claims, 'iat': now - 400, 'nbf': now - 400, 'exp': now - 100}, signing_key)}", 401, ""),
        "not valid yet": (f"Bearer {_jwt({**claims, 'nbf': now + 60}, signing_key)}", 401, ""),
        "another issuer": (f"Bearer {_jwt({**claims, 'iss': 'someone'}, signing_key)}", 401, ""),
        "a clone token": (f"Bearer {_jwt({**claims, 'operation': 'Clone'}, signing_key)}", 400, ""),
        "not for a PVC": (f"Bearer {_jwt({**claims, 'resource': {'resource': 'pods'}}, signing_key)}", 400, ""),
    }  # fmt: skip
    answers = {what: _post(upload_double, authorization) for what, (authorization, _, _) in cases.items()}
    assert answers == {what: (status, body) for what, (_, status, body) in cases.items()}
    assert not [post for post in upload_double.posts[-len(cases) :] if post["status"] == 200]


def json_bytes(obj: dict) -> bytes:
    import json

    return json.dumps(obj).encode()
