"""The release, step by step: what ``.github/workflows/release.yml`` and ``ci.yml`` run, as code that runs here.

Every step of the workflows is one ``python -m hack.release STEP`` (or the make target that calls it), so that
each one runs the same on a developer's machine, in ``make test`` and on the GitHub runners:

- ``version [--tag vX.Y.Z]``: the one version, ``kubectl_instancetype.__version__``, is what plugin.yaml's
  ``spec.version`` and every URI, ``.krew.yaml``'s platforms and the git tag say; any mismatch fails.
- ``archive [--out DIR]``: this machine's frozen build (:mod:`hack.freeze`, cached by source hash) packed as
  ``kubectl-instancetype_<os>_<arch>.tar.gz`` (:mod:`hack.krew`) with a ``.sha256`` file beside it.
- ``smoke ARCHIVE``: unpacks the archive as krew does and runs the frozen executable itself (no Python of
  ours): ``version --client``, ``catalog list``, ``create vm --dry-run=client -o yaml``, completion
  (``__complete``, ``completion bash``) and two error paths: exit status, stdout and stderr checked (exactly
  where the output is fixed, by the lines it must hold otherwise).
- ``manifest [--dir DIR]``: every platform's archive checked against its ``.sha256``, ``instancetype.yaml``
  written from plugin.yaml with the real digests (every platform required), then krew-index's
  ``validate-krew-manifest -skip-install`` and, per platform, the real krew installing that archive
  (``KREW_OS``/``KREW_ARCH``, ``--manifest --archive``: the digest, the archive's entries, ``bin``, LICENSE).
- ``dist [--out DIR]`` / ``dist-check [--out DIR]``: the sdist and the wheel (``uv build``), then
  ``twine check --strict``, the wheel installed into a clean virtualenv and both executables run from it.
- ``assets DIR...``: the files the GitHub release carries, one per line (``hack/release/publish.sh`` attaches
  them); any missing one fails.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
RELEASE_DIR = REPO / "dist" / "release"
PYTHON_DIST_DIR = REPO / "dist" / "python"
KREW_TEMPLATE = REPO / ".krew.yaml"
EXECUTABLE = "kubectl-instancetype"
HELPER = "kubectl_complete-instancetype"
# The one version scheme every channel accepts as it is: krew's strict SemVer (``v`` + MAJOR.MINOR.PATCH, no
# leading zeros) without pre-releases, which PEP 440 would spell differently (1.0.0-rc.1 vs 1.0.0rc1).
VERSION = re.compile(r"(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)")
RUN_TIMEOUT = 120  # seconds for one run of the frozen executable (a first start on a cold runner is slow)


class ReleaseError(RuntimeError):
    """A release step failed; the message says which check and what was found."""


# ---------------------------------------------------------------------------------------------------- version


def package_version() -> str:
    """``kubectl_instancetype.__version__`` (read from the file, as hatch reads it for the wheel)."""
    from hack.krew import plugin_version

    return plugin_version()[1:]


def render_krew_template(template: str, tag: str, digests: Mapping[str, str]) -> str:
    """``.krew.yaml`` as krew-release-bot renders it (pkg/source/template.go, RenderTemplate): ``{{ .TagName }}``
    is the tag, ``{{addURIAndSha "URL" .TagName }}`` becomes ``uri: URL`` and ``sha256: <digest of URL>`` on the
    next line, indented by four spaces (the bot's own format string)."""

    def uri_and_sha(match: re.Match[str]) -> str:
        url = re.sub(r"\{\{\s*\.TagName\s*\}\}", tag, match.group(1))
        if url not in digests:
            raise ReleaseError(f".krew.yaml: no digest for {url}")
        return f"uri: {url}\n    sha256: {digests[url]}"

    text = re.sub(r'\{\{\s*addURIAndSha\s+"([^"]+)"\s+\.TagName\s*\}\}', uri_and_sha, template)
    return re.sub(r"\{\{\s*\.TagName\s*\}\}", tag, text)


def check_versions(
    tag: str | None = None, *, version: str | None = None, plugin_yaml: str | None = None, template: str | None = None
) -> str:
    """Fail unless the tag (if given), the package, plugin.yaml (version and URIs) and ``.krew.yaml`` agree;
    returns ``v<version>``. The keyword arguments stand in for the files (tests)."""
    import yaml

    from hack.krew import PLUGIN_YAML, archive_name

    version = package_version() if version is None else version
    if not VERSION.fullmatch(version):
        raise ReleaseError(f"kubectl_instancetype/__init__.py: __version__ {version!r} is not MAJOR.MINOR.PATCH")
    expected = f"v{version}"
    if tag is not None and tag != expected:
        raise ReleaseError(f"the tag is {tag}, kubectl_instancetype/__init__.py says {expected}")
    plugin = yaml.safe_load(PLUGIN_YAML.read_text() if plugin_yaml is None else plugin_yaml)
    if plugin["spec"]["version"] != expected:
        raise ReleaseError(f"plugin.yaml: spec.version is {plugin['spec']['version']}, the package is {expected}")
    digests = {}
    for platform in plugin["spec"]["platforms"]:
        labels = platform["selector"]["matchLabels"]
        name = archive_name(labels["os"], labels["arch"])
        if not platform["uri"].endswith(f"/download/{expected}/{name}"):
            raise ReleaseError(f"plugin.yaml: {platform['uri']} is not the {expected} release's {name}")
        digests[platform["uri"]] = hashlib.sha256(platform["uri"].encode()).hexdigest()
    template = KREW_TEMPLATE.read_text() if template is None else template
    rendered = yaml.safe_load(render_krew_template(template, expected, digests))
    for platform in plugin["spec"]["platforms"]:
        platform["sha256"] = digests[platform["uri"]]
    if rendered != plugin:
        raise ReleaseError(".krew.yaml does not render to plugin.yaml (krew-release-bot would submit another plugin)")
    return expected


# ---------------------------------------------------------------------------------------------------- archive


def sha256_line(archive: Path) -> str:
    """The ``.sha256`` file's line, as ``sha256sum`` writes it: ``<hex>  <name>``."""
    from hack.krew import sha256

    return f"{sha256(archive)}  {archive.name}\n"


def build_release_archive(out: Path) -> Path:
    """Freeze for this machine (cached by source hash), pack, and write ``<archive>.sha256``."""
    from hack.freeze import frozen_dir, go_platform
    from hack.krew import build_archive

    goos, goarch = go_platform()
    archive = build_archive(frozen_dir(), out, goos, goarch)
    Path(f"{archive}.sha256").write_text(sha256_line(archive))
    return archive


# ------------------------------------------------------------------------------------------------------ smoke


@dataclass(frozen=True)
class Check:
    """One run of the frozen executable and what it must print."""

    argv: tuple[str, ...]
    returncode: int
    stdout: str | None = None  # exact, when given
    stdout_has: tuple[str, ...] = ()
    stderr: str | None = ""  # exact; None: anything


def smoke_checks(version: str) -> list[Check]:
    """What the smoke test runs; offline, with no kubeconfig."""
    return [
        Check(("version", "--client"), 0, stdout=f"Client Version: {version}\n"),
        Check(("catalog", "list"), 0, stdout_has=("NAME ", "u1.medium ", "general.purpose")),
        Check(
            ("create", "vm", "--name", "smoke", "--instancetype", "u1.medium", "--dry-run=client", "-o", "yaml"),
            0,
            stdout_has=("kind: VirtualMachine\n", "  instancetype:\n    name: u1.medium\n"),
        ),
        # kubectl's completion protocol, as the launcher of `completion install-helper` runs it
        Check(("__complete", ""), 0, stdout_has=("catalog\t", "version\t", "\n:4\n")),
        Check(("completion", "bash"), 0, stdout_has=("kubectl-instancetype",)),
        Check(("list", "--bogus"), 1, stdout="", stderr="error: unknown flag: --bogus\n"),
        Check(
            ("create", "vm", "--dry-run=maybe"),
            1,
            stdout="",
            stderr='error: Invalid dry-run value (maybe). Must be "none", "server", or "client".\n',
        ),
    ]


def unpack(archive: Path, into: Path) -> Path:
    """Unpack as krew does (regular files and folders only, no ``..``, no absolute names); the executable."""
    with tarfile.open(archive) as tar:
        for member in tar.getmembers():
            if not (member.isreg() or member.isdir()):
                raise ReleaseError(f"{archive.name}: {member.name} is neither a file nor a folder (krew refuses it)")
            if ".." in member.name or member.name.startswith(("/", "\\")):
                raise ReleaseError(f"{archive.name}: krew refuses the entry name {member.name}")
        tar.extractall(into, filter="tar")
    if not (into / "LICENSE").is_file():
        raise ReleaseError(f"{archive.name}: no LICENSE at the top (validate-krew-manifest requires one)")
    windows = archive.name.split("_")[1] == "windows"
    executable = into / (EXECUTABLE + (".exe" if windows else ""))
    if not executable.is_file():
        raise ReleaseError(f"{archive.name}: no {executable.name} at the top (plugin.yaml's bin)")
    if not windows and not os.access(executable, os.X_OK):
        raise ReleaseError(f"{archive.name}: {executable.name} is not executable (krew never sets modes)")
    return executable


def smoke_environment(home: Path) -> dict[str, str]:
    """A user's environment without a cluster: HOME (and Windows' profile folders) in a scratch folder, no
    KUBECONFIG file, nothing of ours on PATH."""
    keep = ("PATH", "SYSTEMROOT", "SystemRoot", "TEMP", "TMP", "TMPDIR", "LANG", "PATHEXT", "COMSPEC")
    env = {key: value for key, value in os.environ.items() if key in keep}
    env.update(HOME=str(home), USERPROFILE=str(home), KUBECONFIG=str(home / "no-kubeconfig"))
    return env


def run_checks(executable: Path, checks: Sequence[Check], env: Mapping[str, str]) -> list[str]:
    """Run each check; return one line per check (``ok ARGV`` or what differed), failing if any differed."""
    lines, failed = [], []
    for check in checks:
        result = subprocess.run(
            [str(executable), *check.argv],
            capture_output=True,
            text=True,
            encoding="utf-8",
            env=dict(env),
            stdin=subprocess.DEVNULL,
            timeout=RUN_TIMEOUT,
            check=False,
        )
        problems = []
        if result.returncode != check.returncode:
            problems.append(f"exit {result.returncode}, want {check.returncode}")
        if check.stdout is not None and result.stdout != check.stdout:
            problems.append(f"stdout {result.stdout[:300]!r}, want {check.stdout!r}")
        problems += [f"stdout lacks {part!r}" for part in check.stdout_has if part not in result.stdout]
        if check.stderr is not None and result.stderr != check.stderr:
            problems.append(f"stderr {result.stderr[-500:]!r}, want {check.stderr!r}")
        shown = " ".join(repr(arg) if not arg or " " in arg else arg for arg in check.argv)
        lines.append(f"{'FAIL' if problems else 'ok'}   {EXECUTABLE} {shown}" + "".join(f"\n    {p}" for p in problems))
        if problems:
            failed.append(shown)
    if failed:
        raise ReleaseError("\n".join([*lines, f"smoke test failed: {len(failed)} of {len(checks)} checks"]))
    return lines


def smoke(archive: Path) -> list[str]:
    """Unpack ``archive`` into a scratch folder and run :func:`smoke_checks` on its executable."""
    expected = f"sha256 of {archive.name}"
    sums = Path(f"{archive}.sha256")
    if sums.exists() and sums.read_text() != sha256_line(archive):
        raise ReleaseError(f"{sums.name} is not the {expected}")
    with tempfile.TemporaryDirectory(prefix="smoke-") as tmp:
        root = Path(tmp)
        executable = unpack(archive, root / "plugin")
        (root / "home").mkdir()
        return run_checks(executable, smoke_checks(f"v{package_version()}"), smoke_environment(root / "home"))


# --------------------------------------------------------------------------------------------------- manifest


def krew_binaries() -> Path:
    """The folder of ``kubectl-krew`` and ``validate-krew-manifest`` (hack/krew/build.sh, cached by version)."""
    result = subprocess.run(
        ["bash", str(REPO / "hack" / "krew" / "build.sh")], capture_output=True, text=True, check=False
    )
    if result.returncode != 0:
        raise ReleaseError(f"hack/krew/build.sh failed:\n{result.stderr[-2000:]}")
    return Path(result.stdout.strip().splitlines()[-1])


def _checked(argv: Sequence[str], env: Mapping[str, str] | None = None, what: str = "") -> str:
    result = subprocess.run(list(argv), capture_output=True, text=True, env=env, timeout=300, check=False)
    if result.returncode != 0:
        raise ReleaseError(
            f"{what or argv[0]} failed (exit {result.returncode}):\n{(result.stdout + result.stderr)[-3000:]}"
        )
    return result.stdout + result.stderr


def _platforms(manifest: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (p["selector"]["matchLabels"]["os"], p["selector"]["matchLabels"]["arch"], p)
        for p in manifest["spec"]["platforms"]
    ]


def release_manifest(directory: Path, binaries: Path) -> list[str]:
    """Check every archive's ``.sha256``, write ``instancetype.yaml`` (every platform required), validate it
    with krew-index's tool and install every platform's archive with the real krew. Returns the log lines."""
    import yaml

    from hack.krew import archive_name, write_manifest

    log = []
    for archive in sorted(directory.glob("*.tar.gz")):
        sums = Path(f"{archive}.sha256")
        if not sums.is_file() or sums.read_text() != sha256_line(archive):
            raise ReleaseError(f"{sums.name}: missing or not the sha256 of {archive.name} (a corrupted upload?)")
    manifest_path, _ = write_manifest(directory, require_all=True)
    log.append(f"wrote {manifest_path}")
    validated = _checked(
        [str(binaries / "validate-krew-manifest"), "-manifest", str(manifest_path), "-skip-install"],
        what="validate-krew-manifest",
    )
    log += [line for line in validated.splitlines() if line.strip()]
    manifest = yaml.safe_load(manifest_path.read_text())
    version = manifest["spec"]["version"]
    for goos, goarch, platform in _platforms(manifest):
        with tempfile.TemporaryDirectory(prefix="krew-") as tmp:
            root = Path(tmp) / "krew"
            subprocess.run(["git", "init", "-q", str(root / "index" / "default")], check=True)
            env = {
                "PATH": os.environ.get("PATH", ""),
                "HOME": tmp,
                "KREW_ROOT": str(root),
                "KREW_OS": goos,
                "KREW_ARCH": goarch,
            }
            archive = directory / archive_name(goos, goarch)
            _checked(
                [str(binaries / "kubectl-krew"), "install", f"--manifest={manifest_path}", f"--archive={archive}"],
                env=env,
                what=f"krew install ({goos}/{goarch})",
            )
            store = root / "store" / "instancetype" / version
            if not (store / platform["bin"]).is_file() or not (store / "LICENSE").is_file():
                raise ReleaseError(f"{goos}/{goarch}: krew installed no {platform['bin']} or LICENSE")
            log.append(f"krew install {goos}/{goarch}: ok ({platform['bin']}, LICENSE, sha256 {platform['sha256']})")
    return log


def release_assets(directories: Sequence[Path]) -> list[Path]:
    """Every file the GitHub release carries, found in ``directories``: each platform's archive and ``.sha256``,
    ``instancetype.yaml``, the sdist and the wheel. A missing one is an error (a release is never partial)."""
    import yaml

    from hack.krew import INDEX_NAME, PLUGIN_YAML, archive_name

    version = package_version()
    plugin = yaml.safe_load(PLUGIN_YAML.read_text())
    names = []
    for goos, goarch, _ in _platforms(plugin):
        names += [archive_name(goos, goarch), f"{archive_name(goos, goarch)}.sha256"]
    names += [INDEX_NAME, f"kubectl_instancetype-{version}.tar.gz", f"kubectl_instancetype-{version}-py3-none-any.whl"]
    found, missing = [], []
    for name in names:
        paths = [directory / name for directory in directories if (directory / name).is_file()]
        (found.append(paths[0]) if paths else missing.append(name))
    if missing:
        raise ReleaseError(f"not in {', '.join(map(str, directories))}: {', '.join(missing)}")
    return found


# ------------------------------------------------------------------------------------------------ python dist


def build_dist(out: Path) -> tuple[Path, Path]:
    """``uv build``: the sdist, then the wheel built from it (as ``python -m build`` does, in an isolated build
    environment with hatchling), into ``out`` (emptied first); returns (sdist, wheel). uv is already a test
    dependency (tests/e2e/test_pip_install.py), so no ``build`` package is added."""
    from uv import find_uv_bin

    shutil.rmtree(out, ignore_errors=True)
    _checked(
        [find_uv_bin(), "build", "--quiet", "--sdist", "--wheel", "--out-dir", str(out), str(REPO)], what="uv build"
    )
    version = package_version()
    sdist = out / f"kubectl_instancetype-{version}.tar.gz"
    wheel = out / f"kubectl_instancetype-{version}-py3-none-any.whl"
    built = sorted(path for path in out.iterdir() if not path.name.startswith("."))  # uv adds a .gitignore
    if built != sorted([sdist, wheel]):
        raise ReleaseError(f"{out}: want {sdist.name} and {wheel.name}, found {[path.name for path in built]}")
    return sdist, wheel


def _base_python() -> str:
    # A virtualenv is made from the interpreter behind ours (a venv's copy would chain venvs)
    return getattr(sys, "_base_executable", sys.executable)


def venv_bin(venv: Path) -> Path:
    return venv / ("Scripts" if sys.platform == "win32" else "bin")


def check_dist(out: Path, venv: Path) -> list[str]:
    """``twine check --strict`` on both files, then the wheel installed into a new virtualenv ``venv`` and run:
    ``version --client`` and the completion helper, with nothing else of ours on PATH."""
    version = package_version()
    files = sorted(str(path) for path in out.iterdir() if not path.name.startswith("."))
    # twine prints through rich, which wraps at COLUMNS (80 without a terminal): one line per file
    twine_env = {**os.environ, "COLUMNS": "1000"}
    twine = [sys.executable, "-m", "twine", "--no-color", "check", "--strict", *files]
    log = [line for line in _checked(twine, env=twine_env, what="twine check").splitlines() if line.strip()]
    (wheel,) = out.glob("*.whl")
    shutil.rmtree(venv, ignore_errors=True)
    _checked([_base_python(), "-m", "venv", str(venv)], what="venv")
    python = venv_bin(venv) / ("python.exe" if sys.platform == "win32" else "python")
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME")}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    _checked([str(python), "-m", "pip", "install", "--quiet", str(wheel)], env=env, what="pip install")
    log.append(f"installed {wheel.name} into {venv}")
    run_env = {**env, "PATH": str(venv_bin(venv)) + os.pathsep + os.environ.get("PATH", "")}
    checks = [
        Check(("version", "--client"), 0, stdout=f"Client Version: v{version}\n"),
        Check(("catalog", "list"), 0, stdout_has=("u1.medium ",)),
    ]
    suffix = ".exe" if sys.platform == "win32" else ""
    log += run_checks(venv_bin(venv) / (EXECUTABLE + suffix), checks, run_env)
    # the completion helper: a sh script, on Windows a .cmd launcher (cli/completion_shell.py)
    helper_name = HELPER + (".cmd" if sys.platform == "win32" else "")
    helper = subprocess.run(
        [str(venv_bin(venv) / helper_name), ""], capture_output=True, text=True, env=run_env, timeout=RUN_TIMEOUT
    )
    if helper.returncode != 0 or not helper.stdout.endswith("\n:4\n") or "version\t" not in helper.stdout:
        raise ReleaseError(f"{HELPER} '': exit {helper.returncode}, stdout {helper.stdout[-300:]!r}")
    log.append(f"ok   {HELPER} ''")
    return log
