"""``infer image``'s pure part: docker's reference normalisation, CDI's env-to-label mapping, the registry
challenge, platform selection, and the credentials file."""

from __future__ import annotations

import base64
import json

import pytest

from kubectl_instancetype.instancetype import imagedefaults
from kubectl_instancetype.instancetype.imagedefaults import (
    ImageError,
    Platform,
    defaults_from_config,
    env_to_label,
    labels_from_config,
    parse_challenge,
    parse_platform,
    parse_reference,
    select_manifest,
)
from kubectl_instancetype.oci.client import RegistryError, credentials


@pytest.mark.parametrize(
    ("text", "registry", "repository", "tag", "digest", "api_host"),
    [
        ("fedora", "docker.io", "library/fedora", "latest", "", "registry-1.docker.io"),
        ("kubevirt/fedora-cloud-container-disk-demo", "docker.io", "kubevirt/fedora-cloud-container-disk-demo", "latest", "", "registry-1.docker.io"),
        ("index.docker.io/library/ubuntu:24.04", "docker.io", "library/ubuntu", "24.04", "", "registry-1.docker.io"),
        ("quay.io/containerdisks/fedora:41", "quay.io", "containerdisks/fedora", "41", "", "quay.io"),
        ("docker://quay.io/containerdisks/fedora:41", "quay.io", "containerdisks/fedora", "41", "", "quay.io"),
        ("localhost/disk", "localhost", "disk", "latest", "", "localhost"),
        ("127.0.0.1:5000/a/b/c:v1", "127.0.0.1:5000", "a/b/c", "v1", "", "127.0.0.1:5000"),
        ("quay.io/x/y@sha256:" + "a" * 64, "quay.io", "x/y", "", "sha256:" + "a" * 64, "quay.io"),
        ("quay.io/x/y:t@sha256:" + "b" * 64, "quay.io", "x/y", "t", "sha256:" + "b" * 64, "quay.io"),
    ],
)  # fmt: skip
def test_parse_reference(text, registry, repository, tag, digest, api_host):
    ref = parse_reference(text)
    assert (ref.registry, ref.repository, ref.tag, ref.digest, ref.api_host) == (
        registry,
        repository,
        tag,
        digest,
        api_host,
    )
    assert ref.reference == (digest or tag)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "invalid reference format: the image reference is empty"),
        ("Quay.io/x/Y", 'invalid reference format: repository name (image "Quay.io/x/Y") must be lowercase'),
        ("quay.io/x:bad tag", 'invalid reference format: tag "bad tag" of "quay.io/x:bad tag"'),
        ("quay.io//x", 'invalid reference format: "quay.io//x"'),
        ("quay.io/x@md5", 'invalid reference format: digest "md5" of "quay.io/x@md5"'),
    ],
)
def test_parse_reference_errors(text, message):
    with pytest.raises(ImageError) as caught:
        parse_reference(text)
    assert str(caught.value) == message


@pytest.mark.parametrize(
    ("variable", "label"),
    [
        # CDI's own test vectors (pkg/importer: "Should correctly convert an env var to a label")
        ("INSTANCETYPE_KUBEVIRT_IO_DEFAULT_INSTANCETYPE", "instancetype.kubevirt.io/default-instancetype"),
        ("INSTANCETYPE_KUBEVIRT_IO_DEFAULT_PREFERENCE_KIND", "instancetype.kubevirt.io/default-preference-kind"),
        ("KUBEVIRT_IO_TEST", "kubevirt.io/test"),
        ("ONE_TWO_KUBEVIRT_IO_THREE_FOUR", "one.two.kubevirt.io/three-four"),
        ("INSTANCETYPE_KUBEVIRT_IO_DISPLAY_NEEDED", "instancetype.kubevirt.io/display-needed"),
    ],
)
def test_env_to_label(variable, label):
    assert env_to_label(variable) == label


def config(*env: str) -> dict:
    return {"architecture": "amd64", "os": "linux", "config": {"Env": list(env)}}


def test_labels_and_defaults_from_config():
    cfg = config(
        "PATH=/usr/bin",
        "NOTAVALIDENVVAR",
        "INSTANCETYPE_KUBEVIRT_IO_DEFAULT_INSTANCETYPE=u1.small",
        "INSTANCETYPE_KUBEVIRT_IO_DEFAULT_INSTANCETYPE=u1.medium",
        "INSTANCETYPE_KUBEVIRT_IO_DEFAULT_INSTANCETYPE_KIND=virtualmachineinstancetype",
        "INSTANCETYPE_KUBEVIRT_IO_DEFAULT_PREFERENCE=",
    )
    assert labels_from_config(cfg) == {
        "instancetype.kubevirt.io/default-instancetype": "u1.medium",
        "instancetype.kubevirt.io/default-instancetype-kind": "virtualmachineinstancetype",
        "instancetype.kubevirt.io/default-preference": "",
    }
    defaults = defaults_from_config(cfg)
    assert (defaults["instancetype"].name, defaults["instancetype"].kind) == ("u1.medium", "virtualmachineinstancetype")
    assert defaults["preference"].ok and defaults["preference"].name == ""
    missing = defaults_from_config(config("PATH=/usr/bin"))
    assert missing["preference"].problem == (
        "the image config has no INSTANCETYPE_KUBEVIRT_IO_DEFAULT_PREFERENCE environment variable"
    )
    assert defaults_from_config({})["instancetype"].ok is False


def test_parse_challenge():
    challenge = parse_challenge(
        'Bearer realm="https://quay.io/v2/auth",service="quay.io",scope="repository:containerdisks/fedora:pull"'
    )
    assert challenge.scheme == "bearer"
    assert dict(challenge.params) == {
        "realm": "https://quay.io/v2/auth",
        "service": "quay.io",
        "scope": "repository:containerdisks/fedora:pull",
    }
    assert parse_challenge('Basic realm="Registry Realm"') == imagedefaults.Challenge(
        "basic", {"realm": "Registry Realm"}
    )
    assert dict(parse_challenge('Bearer realm="a\\"b", service=bare').params) == {"realm": 'a"b', "service": "bare"}


INDEX = {
    "mediaType": imagedefaults.OCI_INDEX,
    "manifests": [
        {"digest": "sha256:amd", "platform": {"os": "linux", "architecture": "amd64"}},
        {"digest": "sha256:att", "platform": {"os": "unknown", "architecture": "unknown"}},
        {"digest": "sha256:arm7", "platform": {"os": "linux", "architecture": "arm", "variant": "v7"}},
        {"digest": "sha256:arm64", "platform": {"os": "linux", "architecture": "arm64", "variant": "v8"}},
    ],
}


@pytest.mark.parametrize(
    ("platform", "digest"),
    [
        ("linux/amd64", "sha256:amd"),
        ("arm64", "sha256:arm64"),
        ("linux/arm64/v8", "sha256:arm64"),
        ("linux/arm/v7", "sha256:arm7"),
    ],
)
def test_select_manifest(platform, digest):
    assert select_manifest(INDEX, parse_platform(platform)) == digest


def test_select_manifest_lists_what_there_is():
    with pytest.raises(ImageError) as caught:
        select_manifest(INDEX, Platform("linux", "s390x"))
    assert (
        str(caught.value)
        == "no image for linux/s390x in the image index (available: linux/amd64, linux/arm/v7, linux/arm64/v8)"
    )


def test_credentials_from_auth_files(tmp_path):
    auth = base64.b64encode(b"me:s3cret:with:colons").decode()
    docker = tmp_path / ".docker"
    docker.mkdir()
    (docker / "config.json").write_text(
        json.dumps(
            {"auths": {"https://index.docker.io/v1/": {"auth": auth}, "quay.io": {"username": "u", "password": "p"}}}
        )
    )
    home = str(tmp_path)
    assert credentials("docker.io", {}, home) == ("me", "s3cret:with:colons")
    assert credentials("quay.io", {}, home) == ("u", "p")
    assert credentials("ghcr.io", {}, home) is None
    podman = tmp_path / "auth.json"
    podman.write_text(json.dumps({"auths": {"ghcr.io": {"auth": base64.b64encode(b"g:h").decode()}}}))
    assert credentials("ghcr.io", {"REGISTRY_AUTH_FILE": str(podman)}, home) == ("g", "h")
    assert credentials("quay.io", {"DOCKER_CONFIG": str(tmp_path / "nothing")}, home) is None
    podman.write_text("{not json")
    with pytest.raises(RegistryError, match="reading the registry credentials in"):
        credentials("ghcr.io", {"REGISTRY_AUTH_FILE": str(podman)}, home)


def test_image_defaults_matchers_for_create_vm():
    from kubectl_instancetype.usecases.infer_resolve import ImageDefaults

    found = ImageDefaults(
        image=None,
        defaults=defaults_from_config(
            config(
                "INSTANCETYPE_KUBEVIRT_IO_DEFAULT_INSTANCETYPE=u1.medium",
                "INSTANCETYPE_KUBEVIRT_IO_DEFAULT_INSTANCETYPE_KIND=virtualmachineinstancetype",
            )
        ),
    )
    assert found.matcher("instancetype") == {"name": "u1.medium", "kind": "virtualmachineinstancetype"}
    assert found.matcher("preference") is None
