"""The krew package: archives of the frozen build and the krew-index manifest generated from ``plugin.yaml``.

``python -m hack.krew`` (``make krew``) freezes the plugin for this machine (:mod:`hack.freeze`), packs it into
``dist/krew/kubectl-instancetype_<os>_<arch>.tar.gz`` and writes ``dist/krew/instancetype.yaml``: plugin.yaml
with the real sha256 of every archive found in ``dist/krew``, and only those platforms (a manifest never
carries a digest nobody computed). A release runs it on one native runner per platform, gathers the archives
in one ``dist/krew`` and runs ``python -m hack.krew manifest --require-all``.

Archive rules are krew's: regular files and folders only (symlinks are refused at install), no ``..`` or
absolute names, modes from the archive (krew never sets the executable bit), a LICENSE file at the top.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import os
import stat
import tarfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
PLUGIN_YAML = REPO / "plugin.yaml"
INDEX_NAME = "instancetype.yaml"
ARCHIVE_PREFIX = "kubectl-instancetype"
# The fixed timestamp of every archive entry (and of the gzip header): the same build packs to the same bytes.
EPOCH = int(os.environ.get("SOURCE_DATE_EPOCH", "315532800"))  # 1980-01-01, the zip epoch


class PackageError(RuntimeError):
    """The archive or the manifest could not be made."""


def archive_name(goos: str, goarch: str) -> str:
    """``kubectl-instancetype_<os>_<arch>.tar.gz``, the name plugin.yaml's URIs end with."""
    return f"{ARCHIVE_PREFIX}_{goos}_{goarch}.tar.gz"


def _entries(folder: Path) -> list[tuple[str, Path]]:
    """(name in the archive, file on disk) of the folder's content, sorted, with LICENSE at the top."""
    entries = [("LICENSE", REPO / "LICENSE")]
    for path in sorted(folder.rglob("*")):
        entries.append((path.relative_to(folder).as_posix(), path))
    return entries


def build_archive(folder: Path, out_dir: Path, goos: str, goarch: str) -> Path:
    """Pack the frozen one-folder build into ``out_dir`` as krew accepts it; return the archive's path.

    Symlinks are stored as the regular files they point to; every folder is 0755, a file is 0755 when it is
    executable on disk and 0644 otherwise; owners and timestamps are fixed.
    """
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for name, path in _entries(folder):
            if ".." in name or name.startswith("/"):
                raise PackageError(f"{name}: krew refuses entries with '..' or an absolute name")
            info = tarfile.TarInfo(name)
            info.mtime, info.uid, info.gid, info.uname, info.gname = EPOCH, 0, 0, "", ""
            mode = path.stat().st_mode  # follows symlinks: the target's content and mode are stored
            if stat.S_ISDIR(mode):
                info.type, info.mode = tarfile.DIRTYPE, 0o755
                tar.addfile(info)
            elif stat.S_ISREG(mode):
                info.size = path.stat().st_size
                info.mode = 0o755 if mode & 0o111 else 0o644
                with path.open("rb") as stream:
                    tar.addfile(info, stream)
            else:
                raise PackageError(f"{path}: neither a regular file nor a folder")
    out_dir.mkdir(parents=True, exist_ok=True)
    archive = out_dir / archive_name(goos, goarch)
    temporary = archive.with_suffix(".tmp")
    with temporary.open("wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as packed:
        packed.write(buffer.getvalue())
    temporary.replace(archive)
    return archive


def sha256(path: Path) -> str:
    """The lowercase hex sha256 of a file, as krew compares it."""
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def plugin_version() -> str:
    """``v`` + the package's ``__version__`` (read without importing the package)."""
    for line in (REPO / "kubectl_instancetype" / "__init__.py").read_text().splitlines():
        if line.startswith("__version__"):
            return "v" + line.split("=", 1)[1].strip().strip("\"'")
    raise PackageError("kubectl_instancetype/__init__.py has no __version__")


def render_manifest(source: str, archive_dir: Path, *, require_all: bool = False) -> tuple[str, list[str]]:
    """The krew-index manifest from plugin.yaml's text: real digests, only the platforms built.

    Returns the YAML text and the platforms left out (``os/arch``). With ``require_all`` a missing archive is
    an error. The version must equal the package's: the release tag, the URIs and ``version`` agree.
    """
    import yaml

    manifest: dict[str, Any] = yaml.safe_load(source)
    spec = manifest["spec"]
    if spec["version"] != plugin_version():
        raise PackageError(f"plugin.yaml: spec.version is {spec['version']}, the package is {plugin_version()}")
    kept, missing = [], []
    for platform in spec["platforms"]:
        labels = platform["selector"]["matchLabels"]
        name = archive_name(labels["os"], labels["arch"])
        if not platform["uri"].endswith(f"/{spec['version']}/{name}"):
            raise PackageError(f"plugin.yaml: {platform['uri']} does not name {spec['version']}/{name}")
        archive = archive_dir / name
        if not archive.is_file():
            missing.append(f"{labels['os']}/{labels['arch']}")
            continue
        kept.append({**platform, "sha256": sha256(archive)})
    if require_all and missing:
        raise PackageError(f"no archive in {archive_dir} for {', '.join(missing)}")
    if not kept:
        raise PackageError(f"no archive in {archive_dir} for any platform of plugin.yaml")
    spec["platforms"] = kept
    return _dump(manifest), missing


def _dump(manifest: dict[str, Any]) -> str:
    import yaml

    class Dumper(yaml.SafeDumper):
        pass

    def text(dumper: yaml.SafeDumper, value: str) -> yaml.Node:
        # Multi-line texts (description, caveats) stay readable block scalars, as in plugin.yaml.
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style="|" if "\n" in value else None)

    Dumper.add_representer(str, text)
    header = "# Generated by `make krew` from plugin.yaml; the sha256 values are the archives' in this folder.\n"
    return header + yaml.dump(manifest, Dumper=Dumper, sort_keys=False, width=120)


def write_manifest(archive_dir: Path, *, require_all: bool = False) -> tuple[Path, list[str]]:
    """Write ``archive_dir/instancetype.yaml``; return its path and the platforms left out."""
    text, missing = render_manifest(PLUGIN_YAML.read_text(), archive_dir, require_all=require_all)
    path = archive_dir / INDEX_NAME
    path.write_text(text)
    return path, missing


def package(out_dir: Path) -> tuple[Path, Path, list[str]]:
    """Freeze for this machine, pack, and write the manifest: (archive, manifest, platforms left out)."""
    from hack.freeze import frozen_dir, go_platform

    goos, goarch = go_platform()
    archive = build_archive(frozen_dir(), out_dir, goos, goarch)
    manifest, missing = write_manifest(out_dir)
    return archive, manifest, missing
