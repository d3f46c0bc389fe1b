"""hack/release's checks on their own: one version everywhere, krew-release-bot's template rendering, the smoke
test's verdicts and krew's archive rules when unpacking. The steps on the real frozen build, the real krew and the
real wheel are tests/e2e/test_release.py."""

from __future__ import annotations

import io
import os
import sys
import tarfile
from pathlib import Path

import pytest
import yaml

from hack.krew import PLUGIN_YAML, archive_name
from hack.release import (
    KREW_TEMPLATE,
    Check,
    ReleaseError,
    check_versions,
    render_krew_template,
    run_checks,
    sha256_line,
    smoke_checks,
    unpack,
)
from kubectl_instancetype import __version__


def test_the_tag_the_package_plugin_yaml_and_the_krew_template_agree() -> None:
    assert check_versions(f"v{__version__}") == f"v{__version__}"
    assert check_versions() == f"v{__version__}"


def test_a_tag_other_than_the_package_version_fails() -> None:
    with pytest.raises(
        ReleaseError, match=rf"^the tag is v9\.9\.9, kubectl_instancetype/__init__.py says v{__version__}$"
    ):
        check_versions("v9.9.9")


@pytest.mark.parametrize("version", ["0.1", "01.2.3", "1.0.0rc1", "1.0.0-rc.1", "v1.0.0"])
def test_the_package_version_must_be_plain_semver(version: str) -> None:
    with pytest.raises(ReleaseError, match="is not MAJOR.MINOR.PATCH"):
        check_versions(version=version)


def test_plugin_yaml_must_carry_the_version_in_spec_and_every_uri() -> None:
    source = PLUGIN_YAML.read_text()
    with pytest.raises(ReleaseError, match=r"spec.version is v0\.0\.9"):
        check_versions(plugin_yaml=source.replace(f"version: v{__version__}", "version: v0.0.9"))
    stale = source.replace(
        f"download/v{__version__}/kubectl-instancetype_darwin_arm64",
        "download/v0.0.9/kubectl-instancetype_darwin_arm64",
    )
    with pytest.raises(ReleaseError, match=r"is not the v.* release's kubectl-instancetype_darwin_arm64.tar.gz"):
        check_versions(plugin_yaml=stale)


def test_krew_template_must_render_to_plugin_yaml() -> None:
    template = KREW_TEMPLATE.read_text()
    with pytest.raises(ReleaseError, match="does not render to plugin.yaml"):
        check_versions(template=template.replace("bin: kubectl-instancetype.exe", "bin: kubectl-instancetype"))
    with pytest.raises(ReleaseError, match="does not render to plugin.yaml"):
        check_versions(template=template.replace("Find and use", "Find"))


def test_krew_template_renders_as_krew_release_bot_does() -> None:
    # pkg/source/template.go: addURIAndSha expands {{ .TagName }} inside the URL and returns
    # "uri: <url>\n    sha256: <sum>"; the template's other {{ .TagName }} are the tag
    template = 'spec:\n  version: {{ .TagName }}\n  platforms:\n  - bin: x\n    {{addURIAndSha "https://h/d/{{ .TagName }}/a.tar.gz" .TagName }}\n'
    rendered = render_krew_template(template, "v1.2.3", {"https://h/d/v1.2.3/a.tar.gz": "ab" * 32})
    assert rendered == (
        "spec:\n  version: v1.2.3\n  platforms:\n  - bin: x\n    uri: https://h/d/v1.2.3/a.tar.gz\n    sha256: "
        + "ab" * 32
        + "\n"
    )
    with pytest.raises(ReleaseError, match="no digest for https://h/d/v1.2.3/a.tar.gz"):
        render_krew_template(template, "v1.2.3", {})


def test_krew_template_names_every_platform_of_plugin_yaml() -> None:
    plugin = yaml.safe_load(PLUGIN_YAML.read_text())
    template = KREW_TEMPLATE.read_text()
    for platform in plugin["spec"]["platforms"]:
        labels = platform["selector"]["matchLabels"]
        assert f'{{{{ .TagName }}}}/{archive_name(labels["os"], labels["arch"])}" .TagName }}}}' in template


def test_smoke_checks_cover_what_the_issue_names() -> None:
    argvs = [check.argv for check in smoke_checks("v1.2.3")]
    assert ("version", "--client") in argvs
    assert ("catalog", "list") in argvs
    assert any(argv[:2] == ("create", "vm") and "--dry-run=client" in argv and "yaml" in argv for argv in argvs)
    assert ("__complete", "") in argvs
    errors = [check for check in smoke_checks("v1.2.3") if check.returncode == 1]
    assert errors and all(check.stdout == "" and check.stderr.startswith("error: ") for check in errors)


def _script(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "fake"
    path.write_text(f"#!{sys.executable}\nimport sys\n{body}\n")
    path.chmod(0o755)
    return path


@pytest.mark.skipif(os.name == "nt", reason="a script with a shebang stands in for the executable")
def test_run_checks_passes_exact_output_and_reports_every_difference(tmp_path: Path) -> None:
    fake = _script(tmp_path, "print('Client Version: v1.2.3')\nsys.stderr.write('noise\\n')\nsys.exit(0)")
    good = Check(("version", "--client"), 0, stdout="Client Version: v1.2.3\n", stderr=None)
    assert run_checks(fake, [good], dict(os.environ)) == ["ok   kubectl-instancetype version --client"]
    bad = Check(("x", ""), 1, stdout_has=("u1.medium",))
    with pytest.raises(ReleaseError) as failure:
        run_checks(fake, [good, bad], dict(os.environ))
    assert str(failure.value).splitlines() == [
        "ok   kubectl-instancetype version --client",
        "FAIL   kubectl-instancetype x ''",
        "    exit 0, want 1",
        "    stdout lacks 'u1.medium'",
        "    stderr 'noise\\n', want ''",
        "smoke test failed: 1 of 2 checks",
    ]


def _tar(path: Path, members: list[tuple[str, bytes | None, int]]) -> Path:
    """A tar.gz of (name, content or None for a symlink to LICENSE, mode)."""
    with tarfile.open(path, "w:gz") as tar:
        for name, content, mode in members:
            info = tarfile.TarInfo(name)
            info.mode = mode
            if content is None:
                info.type, info.linkname = tarfile.SYMTYPE, "LICENSE"
                tar.addfile(info)
            else:
                info.size = len(content)
                tar.addfile(info, io.BytesIO(content))
    return path


def test_unpack_follows_krews_rules(tmp_path: Path) -> None:
    good = _tar(
        tmp_path / archive_name("linux", "amd64"), [("LICENSE", b"l", 0o644), ("kubectl-instancetype", b"x", 0o755)]
    )
    assert unpack(good, tmp_path / "good") == tmp_path / "good" / "kubectl-instancetype"
    windows = _tar(
        tmp_path / archive_name("windows", "amd64"),
        [("LICENSE", b"l", 0o644), ("kubectl-instancetype.exe", b"x", 0o644)],
    )
    assert unpack(windows, tmp_path / "win").name == "kubectl-instancetype.exe"
    cases = {
        "link": ([("LICENSE", b"l", 0o644), ("kubectl-instancetype", None, 0o777)], "neither a file nor a folder"),
        "nolicense": ([("kubectl-instancetype", b"x", 0o755)], "no LICENSE at the top"),
        "noexec": ([("LICENSE", b"l", 0o644), ("kubectl-instancetype", b"x", 0o644)], "is not executable"),
        "dots": ([("LICENSE", b"l", 0o644), ("a..b", b"x", 0o644)], "refuses the entry name a..b"),
        "nobin": ([("LICENSE", b"l", 0o644)], "no kubectl-instancetype at the top"),
    }
    if os.name == "nt":  # Windows has no executable bit to miss (os.access says yes)
        del cases["noexec"]
    for label, (members, message) in cases.items():
        (tmp_path / label).mkdir()
        archive = _tar(tmp_path / label / archive_name("linux", "amd64"), members)
        with pytest.raises(ReleaseError, match=message):
            unpack(archive, tmp_path / label / "out")


def test_sha256_line_is_sha256sums(tmp_path: Path) -> None:
    archive = tmp_path / "a.tar.gz"
    archive.write_bytes(b"abc")
    assert sha256_line(archive) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad  a.tar.gz\n"


def test_release_assets_are_every_platform_the_manifest_and_the_python_dist(tmp_path: Path) -> None:
    from hack.release import release_assets

    krew, python = tmp_path / "release", tmp_path / "python"
    krew.mkdir()
    python.mkdir()
    pairs = [("linux", "amd64"), ("linux", "arm64"), ("darwin", "amd64"), ("darwin", "arm64"), ("windows", "amd64")]
    for goos, goarch in pairs:
        (krew / archive_name(goos, goarch)).write_bytes(b"a")
        (krew / f"{archive_name(goos, goarch)}.sha256").write_text("s")
    (krew / "instancetype.yaml").write_text("m")
    (python / f"kubectl_instancetype-{__version__}.tar.gz").write_bytes(b"s")
    with pytest.raises(
        ReleaseError, match=rf"^not in {krew}, {python}: kubectl_instancetype-{__version__}-py3-none-any.whl$"
    ):
        release_assets([krew, python])
    (python / f"kubectl_instancetype-{__version__}-py3-none-any.whl").write_bytes(b"w")
    (krew / "stray.txt").write_text("not an asset")
    found = release_assets([krew, python])
    assert [path.name for path in found] == [
        *[
            name
            for goos, goarch in pairs
            for name in (archive_name(goos, goarch), f"{archive_name(goos, goarch)}.sha256")
        ],
        "instancetype.yaml",
        f"kubectl_instancetype-{__version__}.tar.gz",
        f"kubectl_instancetype-{__version__}-py3-none-any.whl",
    ]
