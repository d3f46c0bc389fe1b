"""plugin.yaml against krew's rules and our policy, and the archive/manifest generator on real files.

The real krew and validate-krew-manifest check the built package in tests/e2e/test_krew.py; these tests pin
what those tools do not (the 50-character shortDescription, the caveats, the version) and the generator's
choices (only built platforms in the manifest, reproducible archives, symlinks stored as files).
"""

from __future__ import annotations

import hashlib
import io
import re
import tarfile
from pathlib import Path

import pytest
import yaml

from hack.krew import (
    PLUGIN_YAML,
    PackageError,
    archive_name,
    build_archive,
    plugin_version,
    render_manifest,
)
from kubectl_instancetype import __version__

# krew's validator: every platform must match one of these pairs, no pair twice (validate-krew-manifest).
SUPPORTED = {
    ("windows", "386"),
    ("windows", "amd64"),
    ("windows", "arm64"),
    ("linux", "386"),
    ("linux", "amd64"),
    ("linux", "arm"),
    ("linux", "arm64"),
    ("linux", "ppc64le"),
    ("darwin", "386"),
    ("darwin", "amd64"),
    ("darwin", "arm64"),
}


@pytest.fixture(scope="module")
def plugin() -> dict:
    return yaml.safe_load(PLUGIN_YAML.read_text())


def test_manifest_header_and_name(plugin) -> None:
    assert plugin["apiVersion"] == "krew.googlecontainertools.github.com/v1alpha2"
    assert plugin["kind"] == "Plugin"
    assert plugin["metadata"]["name"] == "instancetype"
    assert re.fullmatch(r"[\w-]+", plugin["metadata"]["name"])


def test_short_description_fits_krew_search(plugin) -> None:
    # krew search cuts anything over 50 characters; the index reviewers ask for at most 50.
    short = plugin["spec"]["shortDescription"]
    assert 0 < len(short) <= 50
    assert "\n" not in short and "\r" not in short


def test_caveats_say_kubevirt_is_needed_and_how_to_enable_completion(plugin) -> None:
    caveats = plugin["spec"]["caveats"]
    assert "KubeVirt" in caveats and "installed in the cluster" in caveats
    assert "kubectl instancetype completion install-helper" in caveats


def test_version_is_the_package_version_in_strict_semver(plugin) -> None:
    version = plugin["spec"]["version"]
    assert version == plugin_version() == f"v{__version__}"
    assert re.fullmatch(r"v(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)", version)


def test_platforms_cover_the_release_matrix_once_each(plugin) -> None:
    pairs = []
    for platform in plugin["spec"]["platforms"]:
        labels = platform["selector"]["matchLabels"]
        assert set(labels) == {"os", "arch"}
        pairs.append((labels["os"], labels["arch"]))
        assert platform["uri"].endswith(f"/{plugin['spec']['version']}/{archive_name(labels['os'], labels['arch'])}")
        assert platform["bin"] == ("kubectl-instancetype.exe" if labels["os"] == "windows" else "kubectl-instancetype")
        # plugin.yaml carries no digest: make krew computes each from the archive it packs.
        assert platform["sha256"] == "filled-in-by-make-krew"
        assert "files" not in platform  # krew's default: everything in the archive
    assert len(pairs) == len(set(pairs))
    assert set(pairs) <= SUPPORTED
    assert {
        ("linux", "amd64"),
        ("linux", "arm64"),
        ("darwin", "amd64"),
        ("darwin", "arm64"),
        ("windows", "amd64"),
    } == set(pairs)


@pytest.fixture
def frozen(tmp_path: Path) -> Path:
    """A stand-in one-folder build: an executable, a data file, a nested folder and a symlink."""
    folder = tmp_path / "frozen"
    (folder / "_internal" / "pkg").mkdir(parents=True)
    exe = folder / "kubectl-instancetype"
    exe.write_text("#!/bin/sh\necho hi\n")
    exe.chmod(0o700)
    (folder / "_internal" / "pkg" / "data.json").write_text("{}")
    (folder / "_internal" / "libfoo.so.1").write_bytes(b"\x7fELF library")
    (folder / "_internal" / "libfoo.so").symlink_to("libfoo.so.1")
    return folder


@pytest.mark.posix("file modes and a symlink in the stand-in build")
def test_archive_follows_krew_rules(frozen: Path, tmp_path: Path) -> None:
    archive = build_archive(frozen, tmp_path / "out", "linux", "amd64")
    assert archive.name == "kubectl-instancetype_linux_amd64.tar.gz"
    assert archive.read_bytes()[:2] == b"\x1f\x8b"  # krew sniffs gzip content, not the extension
    with tarfile.open(archive) as tar:
        members = {member.name: member for member in tar.getmembers()}
        assert all(member.isreg() or member.isdir() for member in members.values())
        assert not any(".." in name or name.startswith("/") for name in members)
        assert members["LICENSE"].isreg()
        assert members["kubectl-instancetype"].mode == 0o755
        assert members["_internal/pkg/data.json"].mode == 0o644
        assert members["_internal"].mode == 0o755
        # the symlink is stored as the file it points to
        assert members["_internal/libfoo.so"].isreg()
        assert tar.extractfile("_internal/libfoo.so").read() == b"\x7fELF library"
        assert {member.uid for member in members.values()} == {0}


@pytest.mark.posix("file modes and a symlink in the stand-in build")
def test_archive_bytes_are_reproducible(frozen: Path, tmp_path: Path) -> None:
    first = build_archive(frozen, tmp_path / "a", "linux", "amd64").read_bytes()
    (frozen / "kubectl-instancetype").touch()  # a newer mtime must not change the archive
    second = build_archive(frozen, tmp_path / "b", "linux", "amd64").read_bytes()
    assert first == second


def _archives(folder: Path, *pairs: tuple[str, str]) -> dict[str, str]:
    folder.mkdir(parents=True, exist_ok=True)
    digests = {}
    for goos, goarch in pairs:
        content = f"archive {goos} {goarch}".encode()
        buffer = io.BytesIO()
        with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
            info = tarfile.TarInfo("LICENSE")
            info.size = len(content)
            tar.addfile(info, io.BytesIO(content))
        (folder / archive_name(goos, goarch)).write_bytes(buffer.getvalue())
        digests[f"{goos}/{goarch}"] = hashlib.sha256(buffer.getvalue()).hexdigest()
    return digests


def test_manifest_has_the_real_digest_of_each_built_platform_only(tmp_path: Path) -> None:
    digests = _archives(tmp_path, ("linux", "amd64"), ("darwin", "arm64"))
    text, missing = render_manifest(PLUGIN_YAML.read_text(), tmp_path)
    manifest = yaml.safe_load(text)
    found = {
        f"{p['selector']['matchLabels']['os']}/{p['selector']['matchLabels']['arch']}": p["sha256"]
        for p in manifest["spec"]["platforms"]
    }
    assert found == digests
    assert missing == ["linux/arm64", "darwin/amd64", "windows/amd64"]
    original = yaml.safe_load(PLUGIN_YAML.read_text())
    for key in ("shortDescription", "description", "caveats", "homepage", "version"):
        assert manifest["spec"][key] == original["spec"][key]
    assert manifest["metadata"] == original["metadata"]


def test_release_manifest_requires_every_platform(tmp_path: Path) -> None:
    _archives(tmp_path, ("linux", "amd64"))
    with pytest.raises(PackageError, match="no archive in .* for linux/arm64, darwin/amd64"):
        render_manifest(PLUGIN_YAML.read_text(), tmp_path, require_all=True)
    everything = _archives(
        tmp_path, ("linux", "amd64"), ("linux", "arm64"), ("darwin", "amd64"), ("darwin", "arm64"), ("windows", "amd64")
    )
    text, missing = render_manifest(PLUGIN_YAML.read_text(), tmp_path, require_all=True)
    assert missing == []
    assert sorted(p["sha256"] for p in yaml.safe_load(text)["spec"]["platforms"]) == sorted(everything.values())


def test_manifest_without_any_archive_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(PackageError, match="for any platform"):
        render_manifest(PLUGIN_YAML.read_text(), tmp_path)


def test_manifest_refuses_a_version_other_than_the_package(tmp_path: Path) -> None:
    _archives(tmp_path, ("linux", "amd64"))
    source = PLUGIN_YAML.read_text().replace(f"version: v{__version__}", "version: v9.9.9")
    with pytest.raises(PackageError, match="spec.version is v9.9.9"):
        render_manifest(source, tmp_path)
