"""``upload`` and ``label`` against CDI's real cdi-apiserver (its UploadTokenRequest API and DataVolume webhooks),
and ``upload`` on a cluster without CDI. The upload data path itself (the upload server runs in a pod, and no
kubelet runs here) is tests/doubles/cdi_upload.py's, in test_upload.py."""

from __future__ import annotations

import pytest

from kubectl_instancetype.kube.client import Client, ClusterConfig
from tests.conftest import run_cli

pytestmark = pytest.mark.controlplane


def _client(plane) -> Client:
    config = ClusterConfig(server=plane.server, ca_file=str(plane.ca_file), token=plane.tokens["admin"])
    return Client(config, environ={})


@pytest.fixture
def image(tmp_path):
    path = tmp_path / "disk.raw"
    path.write_bytes(b"\0" * 4096)
    return str(path)


def test_a_data_volume_cdi_denies_is_denied_with_cdis_words(cli, control_plane, namespace, image) -> None:
    result = cli("upload", "dv", "tiny", "-n", namespace, "--size", "100Ki", "--image-path", image, "--wait-secs", "5")
    assert result.exit_code == 1
    assert result.stderr == (
        'Error from server: admission webhook "datavolume-validate.cdi.kubevirt.io" denied the request:  '
        "Storage size should be at least 1MiB\n"
    )
    dv = {
        "apiVersion": "cdi.kubevirt.io/v1beta1",
        "kind": "DataVolume",
        "metadata": {"name": "tiny", "namespace": namespace},
    }
    assert control_plane.get(dv) is None


def test_the_upload_token_is_cdis(control_plane, namespace) -> None:
    from kubectl_instancetype.usecases.upload import upload_token

    with _client(control_plane) as client:
        token = upload_token(client, "disk", namespace)
    # cdi-apiserver signs a JWT (three base64url parts) for the PVC; the plugin never prints it
    assert token.count(".") == 2 and len(token) > 100


def test_labels_on_a_data_volume_pass_cdis_webhooks(cli, control_plane, namespace) -> None:
    control_plane.apply(
        {
            "apiVersion": "cdi.kubevirt.io/v1beta1",
            "kind": "DataVolume",
            "metadata": {"name": "labelled", "namespace": namespace},
            "spec": {"source": {"upload": {}}, "storage": {"resources": {"requests": {"storage": "1Gi"}}}},
        }
    )
    result = cli(
        "label", "dv/labelled", "-n", namespace, "--default-instancetype", "u1.small", "--default-preference", "fedora"
    )
    assert (result.exit_code, result.stdout) == (0, "datavolume.cdi.kubevirt.io/labelled labeled\n"), result.stderr
    inferred = cli("infer", "dv/labelled", "-n", namespace)
    assert [line.split() for line in inferred.stdout.splitlines()[1:]] == [
        ["instancetype", "u1.small", "<none>", "inferred"],
        ["preference", "fedora", "<none>", "inferred"],
    ]


@pytest.fixture(scope="module")
def bare_plane(tmp_path_factory):
    """An API server with KubeVirt's and CDI's CRDs and no KubeVirt or CDI process: CDI is not installed."""
    from hack.localcluster import ControlPlane, ControlPlaneUnavailable, binaries_dir

    try:
        plane = ControlPlane(bin_dir=binaries_dir(), workdir=tmp_path_factory.mktemp("bare"), kubevirt=False)
        plane.start()
    except ControlPlaneUnavailable as exc:
        pytest.fail(str(exc))
    try:
        yield plane
    finally:
        plane.stop()


def test_upload_without_cdi_fails_at_once_saying_so(bare_plane, image, mocker) -> None:
    from kubectl_instancetype.kube.transport import Transport

    bare_plane.ensure_namespace("no-cdi")
    environ = {"HOME": "/nonexistent", "KUBECONFIG": str(bare_plane.kubeconfig("admin"))}
    spy = mocker.spy(Transport, "request")
    result = run_cli(["upload", "pvc", "disk", "-n", "no-cdi", "--size", "1Gi", "--image-path", image], environ=environ)
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == (
        "error: CDI is not installed: the server does not serve upload.cdi.kubevirt.io/v1beta1 (CDI's "
        "cdi-apiserver); install CDI (containerized-data-importer) first; nothing was created\n"
    )
    pvc = {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "disk", "namespace": "no-cdi"}}
    assert bare_plane.get(pvc) is None
    # the first request's answer, not a 300 s wait for an upload pod: one GET, nothing written
    assert [(call.args[1], call.args[2]) for call in spy.call_args_list] == [
        ("GET", "/apis/upload.cdi.kubevirt.io/v1beta1")
    ]


def test_version_on_a_cluster_without_kubevirt_or_cdi(bare_plane) -> None:
    from kubectl_instancetype import __version__

    environ = {"HOME": "/nonexistent", "KUBECONFIG": str(bare_plane.kubeconfig("admin"))}
    result = run_cli(["version"], environ=environ)
    assert (result.exit_code, result.stderr) == (0, "")
    assert result.stdout.splitlines() == [
        f"Client Version: v{__version__}",
        "Server Version: v1.36.3",
        "KubeVirt Version: not installed",
        "CDI Version: not installed",
    ]
