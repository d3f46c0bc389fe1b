"""``infer image`` against the real CNCF distribution registry on loopback (hack/registry), with images the tests
push: single-arch OCI, a multi-arch index, a Docker v2 manifest, and a token-authenticated registry (the token
service is the named test double tests/doubles/registry_token.py) with anonymous and private repositories."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import platform
import shutil
import socket
import ssl
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
import yaml

from tests.conftest import run_cli
from tests.doubles.hostile_registry import loopback_certificate
from tests.doubles.registry_token import ISSUER, PASSWORD, SERVICE, USER, TokenService

REPO = Path(__file__).resolve().parents[2]
BUILD_SCRIPT = REPO / "hack" / "registry" / "build.sh"
VERSION = (REPO / "hack" / "registry" / "REGISTRY_VERSION").read_text().strip()
IT, PREF = "INSTANCETYPE_KUBEVIRT_IO_DEFAULT_INSTANCETYPE", "INSTANCETYPE_KUBEVIRT_IO_DEFAULT_PREFERENCE"
OCI_MANIFEST = "application/vnd.oci.image.manifest.v1+json"
OCI_INDEX = "application/vnd.oci.image.index.v1+json"
DOCKER_MANIFEST = "application/vnd.docker.distribution.manifest.v2+json"


def _cached() -> bool:
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "kubectl-instancetype" / "registry"
    arch = {"x86_64": "amd64", "aarch64": "arm64"}.get(platform.machine(), platform.machine())
    return any(cache.glob(f"{VERSION}-*-{platform.system().lower()}-{arch}/registry"))


@pytest.fixture(scope="module")
def registry_binary() -> Path:
    if not shutil.which("go") or not shutil.which("openssl"):
        pytest.skip("Go and openssl are needed for the registry tests")
    if os.environ.get("KUBECTL_INSTANCETYPE_BUILD_VIRTCTL") != "1" and not _cached():
        pytest.skip("hack/registry not built (run hack/registry/build.sh or set KUBECTL_INSTANCETYPE_BUILD_VIRTCTL=1)")
    result = subprocess.run(["bash", str(BUILD_SCRIPT)], capture_output=True, text=True, check=False, timeout=1800)
    if result.returncode != 0:
        pytest.fail(f"building hack/registry failed: {result.stderr[-2000:]}")
    return Path(result.stdout.strip().splitlines()[-1])


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _start(
    binary: Path, workdir: Path, name: str, storage: Path, auth: dict | None, tls: tuple[Path, Path] | None = None
) -> tuple[subprocess.Popen, str]:
    port = _free_port()
    config = {
        "version": 0.1,
        "log": {"level": "error", "accesslog": {"disabled": True}},
        "storage": {"filesystem": {"rootdirectory": str(storage)}},
        "http": {"addr": f"127.0.0.1:{port}"},
    }
    if tls:
        config["http"]["tls"] = {"certificate": str(tls[0]), "key": str(tls[1])}
    if auth:
        config["auth"] = auth
    path = workdir / f"{name}.yml"
    path.write_text(yaml.safe_dump(config))
    with open(workdir / f"{name}.log", "wb") as log:  # the child keeps its own descriptor
        process = subprocess.Popen(
            [str(binary), "serve", str(path)],
            stdout=log,
            stderr=subprocess.STDOUT,
            env={"PATH": "/usr/bin:/bin", "OTEL_TRACES_EXPORTER": "none"},
        )
    base = f"{'https' if tls else 'http'}://127.0.0.1:{port}"
    trust = ssl.create_default_context(cafile=str(tls[0])) if tls else None
    deadline = time.monotonic() + 30
    while True:
        try:
            urllib.request.urlopen(f"{base}/v2/", timeout=2, context=trust).close()
            break
        except urllib.error.HTTPError:
            break  # 401 from the token registry: it is up
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                output = (workdir / f"{name}.log").read_text()[-2000:]
                raise RuntimeError(f"registry {name} did not start: {output}") from None
            time.sleep(0.1)
    return process, base


def _request(method: str, url: str, body: bytes = b"", content_type: str = "") -> urllib.request.Request:
    request = urllib.request.Request(url, data=body if method in ("POST", "PUT") else None, method=method)
    if content_type:
        request.add_header("Content-Type", content_type)
    return request


def push_blob(base: str, repository: str, data: bytes) -> dict:
    digest = "sha256:" + hashlib.sha256(data).hexdigest()
    with urllib.request.urlopen(_request("POST", f"{base}/v2/{repository}/blobs/uploads/"), timeout=10) as answer:
        location = answer.headers["Location"]
    location = location if "://" in location else base + location
    separator = "&" if "?" in location else "?"
    upload = _request("PUT", f"{location}{separator}digest={digest}", data, "application/octet-stream")
    urllib.request.urlopen(upload, timeout=10).close()
    return {"digest": digest, "size": len(data)}


def push_image(base: str, repository: str, tag: str, env: list[str], *, docker: bool = False, arch: str = "amd64"):
    """Push a one-layer image whose config has ``env``; returns the manifest's descriptor."""
    config = {"architecture": arch, "os": "linux", "config": {"Env": ["PATH=/usr/bin", *env]}, "rootfs": {}}
    config_blob = push_blob(base, repository, json.dumps(config).encode())
    layer = push_blob(base, repository, b"a tiny disk image " + arch.encode())
    media, config_media, layer_media = (
        (DOCKER_MANIFEST, "application/vnd.docker.container.image.v1+json",
         "application/vnd.docker.image.rootfs.diff.tar.gzip")
        if docker
        else (OCI_MANIFEST, "application/vnd.oci.image.config.v1+json", "application/vnd.oci.image.layer.v1.tar")
    )  # fmt: skip
    manifest = {
        "schemaVersion": 2,
        "mediaType": media,
        "config": {"mediaType": config_media, **config_blob},
        "layers": [{"mediaType": layer_media, **layer}],
    }
    data = json.dumps(manifest).encode()
    urllib.request.urlopen(_request("PUT", f"{base}/v2/{repository}/manifests/{tag}", data, media), timeout=10).close()
    return {"mediaType": media, "digest": "sha256:" + hashlib.sha256(data).hexdigest(), "size": len(data)}


def push_index(base: str, repository: str, tag: str, entries: list[tuple[dict, dict]]) -> None:
    index = {
        "schemaVersion": 2,
        "mediaType": OCI_INDEX,
        "manifests": [{**descriptor, "platform": spec} for descriptor, spec in entries],
    }
    data = json.dumps(index).encode()
    urllib.request.urlopen(
        _request("PUT", f"{base}/v2/{repository}/manifests/{tag}", data, OCI_INDEX), timeout=10
    ).close()


@pytest.fixture(scope="module")
def registries(registry_binary, tmp_path_factory):
    """An open registry and a token-authenticated one serving the same storage; images pushed to the open one."""
    workdir = tmp_path_factory.mktemp("registry")
    storage = workdir / "storage"
    tokens = TokenService(workdir).start()
    auth = {"token": {"realm": tokens.realm, "service": SERVICE, "issuer": ISSUER, "rootcertbundle": str(tokens.cert)}}
    open_process, open_base = _start(registry_binary, workdir, "open", storage, None)
    token_process = tls_process = None
    try:
        token_process, token_base = _start(registry_binary, workdir, "token", storage, auth)
        certificate = loopback_certificate(workdir)
        tls_process, tls_base = _start(registry_binary, workdir, "tls", storage, auth, certificate)
        push_image(open_base, "containerdisks/fedora", "41", [f"{IT}=u1.medium", f"{PREF}=fedora"])
        push_image(open_base, "private/disk", "1", [f"{IT}=cx1.large", f"{IT}_KIND=virtualmachineinstancetype"])
        push_image(open_base, "plain/docker", "1", [], docker=True)
        amd = push_image(open_base, "containerdisks/multi", "amd64", [f"{IT}=u1.large", f"{PREF}=rhel.9",
                         f"{PREF}_KIND=virtualmachinepreference"])  # fmt: skip
        arm = push_image(open_base, "containerdisks/multi", "arm64", [f"{IT}=u1.small", f"{PREF}=fedora"], arch="arm64")
        push_index(
            open_base,
            "containerdisks/multi",
            "1",
            [
                (arm, {"os": "linux", "architecture": "arm64", "variant": "v8"}),
                (amd, {"os": "linux", "architecture": "amd64"}),
            ],
        )
        yield {
            "open": open_base[len("http://") :],
            "token": token_base[len("http://") :],
            "tokens": tokens,
            "tls": tls_base[len("https://") :],  # HTTPS, its token realm the plain-HTTP token service
            "certificate": certificate[0],
        }
    finally:
        for process in (open_process, token_process, tls_process):
            if process is not None:
                process.terminate()
                try:
                    process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    process.kill()
        tokens.stop()


def infer(*args: str, environ: dict | None = None):
    return run_cli(["infer", "image", *args], environ=environ or {"HOME": "/nonexistent"})


def test_single_arch_image(registries) -> None:
    result = infer(f"{registries['open']}/containerdisks/fedora:41", "--insecure-registry")
    assert (result.exit_code, result.stderr) == (0, "")
    assert result.stdout.splitlines() == [
        "MATCHER        NAME        KIND     RESULT",
        "instancetype   u1.medium   <none>   inferred",
        "preference     fedora      <none>   inferred",
    ]


def test_multi_arch_index_picks_the_platform(registries) -> None:
    image = f"{registries['open']}/containerdisks/multi:1"
    amd = infer(image, "--insecure-registry", "-o", "json")
    assert amd.exit_code == 0, amd.stderr
    document = json.loads(amd.stdout)
    assert document["instancetype"] == {"name": "u1.large", "kind": ""}
    assert document["preference"] == {"name": "rhel.9", "kind": "virtualmachinepreference"}
    assert document["labels"] == {
        "instancetype.kubevirt.io/default-instancetype": "u1.large",
        "instancetype.kubevirt.io/default-preference": "rhel.9",
        "instancetype.kubevirt.io/default-preference-kind": "virtualmachinepreference",
    }
    assert [step["what"] for step in document["chain"]] == ["image index", "linux/amd64 manifest", "config"]
    arm = infer(image, "--insecure-registry", "--platform", "linux/arm64", "--explain")
    assert arm.stdout.splitlines()[1].split() == ["instancetype", "u1.small", "<none>", "inferred"]
    assert arm.stdout.splitlines()[3].startswith(f"chain: image {image} -> image index sha256:")
    missing = infer(image, "--insecure-registry", "--platform", "linux/s390x")
    assert (missing.exit_code, missing.stdout) == (1, "")
    assert (
        missing.stderr
        == f"error: {image}: no image for linux/s390x in the image index (available: linux/arm64/v8, linux/amd64)\n"
    )


def test_image_by_digest_is_verified(registries) -> None:
    tagged = infer(f"{registries['open']}/containerdisks/multi:1", "--insecure-registry", "-o", "json")
    digest = json.loads(tagged.stdout)["digest"]
    by_digest = infer(f"{registries['open']}/containerdisks/multi@{digest}", "--insecure-registry", "-o", "json")
    assert by_digest.exit_code == 0, by_digest.stderr
    assert json.loads(by_digest.stdout)["instancetype"]["name"] == "u1.large"


def test_docker_manifest_without_variables(registries) -> None:
    result = infer(f"{registries['open']}/plain/docker:1", "--insecure-registry")
    assert result.exit_code == 0
    assert result.stdout.splitlines()[1] == (
        "instancetype   <none>   <none>   the image config has no INSTANCETYPE_KUBEVIRT_IO_DEFAULT_INSTANCETYPE "
        "environment variable"
    )


def test_unknown_tag_and_repository(registries) -> None:
    result = infer(f"{registries['open']}/containerdisks/fedora:nope", "--insecure-registry")
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == (
        f"error: GET http://{registries['open']}/v2/containerdisks/fedora/manifests/nope: "
        "404 Not Found: MANIFEST_UNKNOWN: manifest unknown\n"
    )


def test_https_is_the_default(registries) -> None:
    result = infer(f"{registries['open']}/containerdisks/fedora:41")
    assert result.exit_code == 1
    assert result.stderr.startswith(f"error: GET https://{registries['open']}/v2/containerdisks/fedora/manifests/41: ")


def test_token_challenge_anonymous(registries) -> None:
    before = len(registries["tokens"].requests)
    result = infer(f"{registries['token']}/containerdisks/fedora:41", "--insecure-registry")
    assert (result.exit_code, result.stderr) == (0, "")
    assert result.stdout.splitlines()[1].split()[:2] == ["instancetype", "u1.medium"]
    # one token for the whole run, asked anonymously for pull access to the repository
    assert registries["tokens"].requests[before:] == [("repository:containerdisks/fedora:pull", "")]


def test_private_repository_needs_the_auth_file(registries, tmp_path) -> None:
    image = f"{registries['token']}/private/disk:1"
    anonymous = infer(image, "--insecure-registry")
    assert anonymous.exit_code == 1
    assert anonymous.stderr.startswith("error: getting a pull token from http://127.0.0.1:")
    assert "401 Unauthorized" in anonymous.stderr
    auth = tmp_path / "auth.json"
    login = base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
    auth.write_text(json.dumps({"auths": {registries["token"]: {"auth": login}}}))
    result = infer(image, "--insecure-registry", environ={"HOME": "/nonexistent", "REGISTRY_AUTH_FILE": str(auth)})
    assert (result.exit_code, result.stderr) == (0, "")
    assert result.stdout.splitlines()[1].split() == [
        "instancetype",
        "cx1.large",
        "virtualmachineinstancetype",
        "inferred",
    ]
    assert registries["tokens"].requests[-1] == ("repository:private/disk:pull", USER)
    docker = tmp_path / "home" / ".docker"
    docker.mkdir(parents=True)
    (docker / "config.json").write_text(auth.read_text())
    assert infer(image, "--insecure-registry", environ={"HOME": str(tmp_path / "home")}).exit_code == 0


def test_credentials_never_go_to_a_plain_http_realm_of_an_https_registry(registries, tmp_path) -> None:
    """The real registry over TLS names the plain-HTTP token service as its realm. With credentials stored for it,
    the plugin stops in one line and the token service hears nothing; --insecure-registry sends them."""
    image = f"{registries['tls']}/private/disk:1"
    auth = tmp_path / "auth.json"
    login = base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
    auth.write_text(json.dumps({"auths": {registries["tls"]: {"auth": login}}}))
    environ = {"HOME": "/nonexistent", "REGISTRY_AUTH_FILE": str(auth), "SSL_CERT_FILE": str(registries["certificate"])}
    heard = len(registries["tokens"].heard)
    refused = infer(image, environ=environ)
    assert (refused.exit_code, refused.stdout) == (1, "")
    assert refused.stderr == (
        f'error: {registries["tls"]} asks for a token from "{registries["tokens"].realm}", which is not https: '
        "the registry credentials are not sent in clear text (--insecure-registry sends them)\n"
    )
    assert registries["tokens"].heard[heard:] == []  # no request at all, so no credential in clear text
    allowed = infer(image, "--insecure-registry", environ=environ)
    assert (allowed.exit_code, allowed.stderr) == (0, "")
    assert allowed.stdout.splitlines()[1].split()[:2] == ["instancetype", "cx1.large"]
    assert registries["tokens"].heard[heard:] == [
        f"/token?service={SERVICE}&scope=repository%3Aprivate%2Fdisk%3Apull Basic {login}"
    ]


def test_an_https_registry_without_credentials_reads_through_a_plain_http_realm(registries) -> None:
    environ = {"HOME": "/nonexistent", "SSL_CERT_FILE": str(registries["certificate"])}
    result = infer(f"{registries['tls']}/containerdisks/fedora:41", environ=environ)
    assert (result.exit_code, result.stderr) == (0, "")
    assert registries["tokens"].requests[-1] == ("repository:containerdisks/fedora:pull", "")
    untrusted = infer(f"{registries['tls']}/containerdisks/fedora:41")
    assert untrusted.stderr == (
        f"error: GET https://{registries['tls']}/v2/containerdisks/fedora/manifests/41: tls: failed to verify "
        "certificate: self-signed certificate (--insecure-registry skips verification)\n"
    )


# ---- create vm --infer-from-image ------------------------------------------------------------------------------


def create_vm(*args: str):
    return run_cli(
        ["create", "vm", "--name", "from-image", "--dry-run=client", "-o", "yaml", *args],
        environ={"HOME": "/nonexistent"},
    )


def test_create_vm_infers_from_a_containerdisk_image(registries) -> None:
    image = f"{registries['open']}/containerdisks/fedora:41"
    result = create_vm("--volume-containerdisk", f"src:{image}", "--infer-from-image", "--insecure-registry")
    assert result.exit_code == 0, result.stderr
    spec = yaml.safe_load(result.stdout)["spec"]
    assert (spec["instancetype"], spec["preference"]) == ({"name": "u1.medium"}, {"name": "fedora"})
    assert "memory" not in spec["template"]["spec"]["domain"]  # the instance type brings its memory
    assert result.stderr.splitlines() == [
        f"Inferred instancetype: u1.medium (virtualmachineclusterinstancetype) from image {image} "
        "(volume from-image-containerdisk-0)",
        f"Inferred preference: fedora (virtualmachineclusterpreference) from image {image} "
        "(volume from-image-containerdisk-0)",
    ]


def test_create_vm_infers_from_a_registry_import_with_kinds(registries) -> None:
    image = f"{registries['open']}/containerdisks/multi:1"
    result = create_vm(
        "--volume-import", f"type:registry,url:docker://{image},size:1Gi", "--infer-from-image", "--insecure-registry"
    )
    assert result.exit_code == 0, result.stderr
    spec = yaml.safe_load(result.stdout)["spec"]
    assert spec["instancetype"] == {"name": "u1.large"}
    assert spec["preference"] == {"name": "rhel.9", "kind": "virtualmachinepreference"}


def test_an_explicit_type_is_kept_and_an_image_without_defaults_fails(registries) -> None:
    image = f"{registries['open']}/containerdisks/fedora:41"
    kept = create_vm(
        "--volume-containerdisk", f"src:{image}", "--preference", "rhel.9", "--infer-from-image", "--insecure-registry"
    )
    assert kept.exit_code == 0, kept.stderr
    assert yaml.safe_load(kept.stdout)["spec"]["preference"] == {"name": "rhel.9"}
    plain = f"{registries['open']}/plain/docker:1"
    failed = create_vm("--volume-containerdisk", f"src:{plain}", "--infer-from-image", "--insecure-registry")
    assert (failed.exit_code, failed.stdout) == (1, "")
    assert failed.stderr.endswith(f"error: image {plain} carries no default instance type or preference\n")
    none = create_vm("--infer-from-image")
    assert none.stderr == (
        "error: --infer-from-image needs a --volume-containerdisk or a --volume-import type:registry volume\n"
    )


def test_create_vm_keeps_credentials_from_a_plain_http_realm(registries, tmp_path) -> None:
    image = f"{registries['tls']}/private/disk:1"
    auth = tmp_path / "auth.json"
    login = base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
    auth.write_text(json.dumps({"auths": {registries["tls"]: {"auth": login}}}))
    environ = {"HOME": "/nonexistent", "REGISTRY_AUTH_FILE": str(auth), "SSL_CERT_FILE": str(registries["certificate"])}
    argv = ["create", "vm", "--name", "from-tls", "--dry-run=client", "-o", "yaml"]
    argv += ["--volume-containerdisk", f"src:{image}", "--infer-from-image"]
    heard = len(registries["tokens"].heard)
    refused = run_cli(argv, environ=environ)
    assert (refused.exit_code, refused.stdout) == (1, "")
    assert refused.stderr.splitlines()[-1] == (
        f'error: {registries["tls"]} asks for a token from "{registries["tokens"].realm}", which is not https: '
        "the registry credentials are not sent in clear text (--insecure-registry sends them)"
    )
    assert registries["tokens"].heard[heard:] == []
    allowed = run_cli([*argv, "--insecure-registry"], environ=environ)
    assert allowed.exit_code == 0, allowed.stderr
    assert yaml.safe_load(allowed.stdout)["spec"]["instancetype"] == {
        "name": "cx1.large",
        "kind": "virtualmachineinstancetype",
    }
