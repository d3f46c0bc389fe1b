"""``kubectl instancetype upload`` run by the real kubectl (v1.36.3) as a plugin: the token from CDI's real
cdi-apiserver, the data path (upload proxy and server) played by the named double tests/doubles/cdi_upload.py."""

from __future__ import annotations

import os
import subprocess

import pytest

from tests.doubles.cdi_upload import CdiUploadDouble

NS = "upload-kubectl"


@pytest.fixture(scope="module")
def cdi(control_plane, tmp_path_factory):
    control_plane.ensure_namespace(NS)
    double = CdiUploadDouble(control_plane, tmp_path_factory.mktemp("cdi-kubectl")).start()
    yield double
    double.stop()


def test_upload_through_kubectl(control_plane, plugin_path, cdi, tmp_path):
    image = tmp_path / "disk.raw"
    image.write_bytes(os.urandom(1024 * 1024))
    environ = {
        "PATH": plugin_path,
        "HOME": str(tmp_path),
        "KUBECONFIG": str(control_plane.kubeconfig("admin")),
        "SSL_CERT_FILE": str(cdi.ca_file),  # the proxy's CA, trusted as Go and the plugin read it
    }
    args = ["instancetype", "upload", "pvc", "disk", "-n", NS, "--size", "1Gi", "--image-path", str(image)]
    args += ["--uploadproxy-url", cdi.proxy_url.removeprefix("https://"), "--default-instancetype", "u1.small"]
    result = subprocess.run(
        [str(control_plane.kubectl), *args], env=environ, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert f"PersistentVolumeClaim {NS}/disk created" in lines
    assert f"Uploading data to {cdi.proxy_url}" in lines  # https:// added to a URL without a scheme, as virtctl
    assert lines[-1] == f"Uploading {image} completed successfully"
    assert result.stderr.splitlines()[-1].startswith("Uploaded 100% (1.0 MiB of 1.0 MiB")
    assert cdi.uploaded[(NS, "disk")] == 1024 * 1024
    labels = subprocess.run(
        [str(control_plane.kubectl), "get", "pvc", "disk", "-n", NS, "-o", "jsonpath={.metadata.labels}"],
        env=environ, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert '"instancetype.kubevirt.io/default-instancetype":"u1.small"' in labels.stdout
