"""The release's steps as .github/workflows/release.yml runs them, here on linux/amd64 with the real tools:

- the smoke test of the frozen executable (the same archive ``make krew`` packs; the frozen build is cached by
  source hash, so it is built once for the session and for test_krew.py);
- the manifest step: every platform's archive and ``.sha256`` gathered, ``instancetype.yaml`` written with the
  real digests, krew-index's validate-krew-manifest and the real krew installing each platform's archive
  (``KREW_OS``/``KREW_ARCH``). Only linux/amd64 can be frozen here: the other four archives are packed by the
  same code from a stand-in folder (an executable named as plugin.yaml's ``bin``), which is all krew looks at;
- the Python step: the sdist and the wheel built, ``twine check --strict``, the wheel installed into a clean
  virtualenv and run.
"""

from __future__ import annotations

import shutil
import tarfile
from pathlib import Path

import pytest
import yaml

from hack.krew import PackageError, archive_name, build_archive
from hack.release import ReleaseError, release_manifest, sha256_line, smoke
from kubectl_instancetype import __version__

pytestmark = [pytest.mark.e2e]

OTHER_PLATFORMS = [("linux", "arm64"), ("darwin", "amd64"), ("darwin", "arm64"), ("windows", "amd64")]


def test_smoke_test_of_the_frozen_executable(krew_package) -> None:
    lines = smoke(krew_package.archive)
    assert lines == [
        f"ok   kubectl-instancetype {argv}"
        for argv in (
            "version --client",
            "catalog list",
            "create vm --name smoke --instancetype u1.medium --dry-run=client -o yaml",
            "__complete ''",
            "completion bash",
            "list --bogus",
            "create vm --dry-run=maybe",
        )
    ]


def test_smoke_refuses_an_archive_whose_sha256_file_differs(krew_package, tmp_path: Path) -> None:
    archive = tmp_path / krew_package.archive.name
    shutil.copy(krew_package.archive, archive)
    Path(f"{archive}.sha256").write_text(f"{'0' * 64}  {archive.name}\n")
    with pytest.raises(ReleaseError, match=f"{archive.name}.sha256 is not the sha256 of {archive.name}"):
        smoke(archive)


@pytest.fixture
def release_dir(krew_package, tmp_path: Path) -> Path:
    """dist/release as the manifest job finds it after downloading the five platform jobs' artifacts."""
    directory = tmp_path / "release"
    directory.mkdir()
    real = directory / archive_name("linux", "amd64")
    shutil.copy(krew_package.archive, real)
    for goos, goarch in OTHER_PLATFORMS:
        stand_in = tmp_path / f"frozen-{goos}-{goarch}"
        stand_in.mkdir()
        executable = stand_in / ("kubectl-instancetype.exe" if goos == "windows" else "kubectl-instancetype")
        executable.write_bytes(f"stand-in for the {goos}/{goarch} frozen build\n".encode())
        executable.chmod(0o755)
        build_archive(stand_in, directory, goos, goarch)
    for archive in directory.glob("*.tar.gz"):
        Path(f"{archive}.sha256").write_text(sha256_line(archive))
    return directory


def test_manifest_step_validates_and_installs_every_platform(krew_binaries, release_dir: Path) -> None:
    log = release_manifest(release_dir, krew_binaries)
    manifest = yaml.safe_load((release_dir / "instancetype.yaml").read_text())
    assert manifest["spec"]["version"] == f"v{__version__}"
    platforms = manifest["spec"]["platforms"]
    assert len(platforms) == 5
    for platform in platforms:
        labels = platform["selector"]["matchLabels"]
        archive = release_dir / archive_name(labels["os"], labels["arch"])
        assert platform["sha256"] == sha256_line(archive).split()[0]
    assert log[0] == f"wrote {release_dir / 'instancetype.yaml'}"
    assert "structural validation OK" in "\n".join(log)
    installed = [line for line in log if line.startswith("krew install ")]
    assert [line.split(":")[0] for line in installed] == [
        "krew install linux/amd64",
        "krew install linux/arm64",
        "krew install darwin/amd64",
        "krew install darwin/arm64",
        "krew install windows/amd64",
    ]
    assert "(kubectl-instancetype.exe, LICENSE" in installed[-1]


def test_manifest_step_refuses_a_missing_platform_or_a_corrupted_upload(krew_binaries, release_dir: Path) -> None:
    darwin = release_dir / archive_name("darwin", "arm64")
    darwin.write_bytes(darwin.read_bytes() + b"\0")  # one byte more than its .sha256 says
    with pytest.raises(
        ReleaseError, match="kubectl-instancetype_darwin_arm64.tar.gz.sha256: missing or not the sha256"
    ):
        release_manifest(release_dir, krew_binaries)
    darwin.unlink()
    Path(f"{darwin}.sha256").unlink()
    with pytest.raises(PackageError, match="no archive in .* for darwin/arm64"):
        release_manifest(release_dir, krew_binaries)


def test_python_dist_builds_checks_installs_and_runs(python_dist) -> None:
    assert python_dist.sdist.name == f"kubectl_instancetype-{__version__}.tar.gz"
    assert python_dist.wheel.name == f"kubectl_instancetype-{__version__}-py3-none-any.whl"
    assert python_dist.log[:2] == [f"Checking {python_dist.wheel}: PASSED", f"Checking {python_dist.sdist}: PASSED"]
    assert python_dist.log[-3:] == [
        "ok   kubectl-instancetype version --client",
        "ok   kubectl-instancetype catalog list",
        "ok   kubectl_complete-instancetype ''",
    ]
    with tarfile.open(python_dist.sdist) as sdist:
        names = set(sdist.getnames())
    root = f"kubectl_instancetype-{__version__}"
    assert {f"{root}/LICENSE", f"{root}/README.md", f"{root}/pyproject.toml", f"{root}/PKG-INFO"} <= names
