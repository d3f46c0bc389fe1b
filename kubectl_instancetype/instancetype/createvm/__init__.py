"""``create vm``: the VirtualMachine manifest ``virtctl create vm`` (KubeVirt v1.8/v1.9) prints, built as a dict.

Pure: :func:`build_vm` takes the parsed flag values (:class:`VMOptions`) and returns the manifest plus the
warning lines virtctl writes to stderr; errors are :class:`UsageError` with virtctl's exact text. The only
outside things it touches are injected: the random name generator and the reader of ``--password-file``.

Processing follows virtctl: cobra's mutually exclusive flag groups first, then the base VM (name, run
strategy, grace period, guest memory), then the changed flags in a fixed order (run strategy, instance
type, preference, containerdisks, PVCs, deprecated aliases, imports, sysprep, access credentials), then
the cloud-init volume, then client-side inference of instance type and preference matchers.

The package follows those seams: ``flags`` (flag table, help, examples, :class:`VMOptions`), ``state`` (the
manifest being built and the checks shared by volume flags), ``volumes``, ``cloudinit`` (access credentials
and the cloud-init volume), ``matchers`` (instance type and preference, inference) and ``builder`` (the
order of the steps). What differs from virtctl on purpose is listed once, in
:mod:`kubectl_instancetype.instancetype.differences`.

Quirks kept on purpose, because virtctl documents or relies on them: ``--termination-grace-period`` defaults
to 180 and is always written (so a preference's preferred grace period never applies to these manifests);
registry imports count as inferable volumes (the server cannot infer from them at admission, so the
implicit ``Ignore`` policy silently drops the matchers); ``--ssh-key`` is comma-split like any pflag string
slice (quote a key in CSV style to keep a comma: ``--ssh-key '"from=""a,b"" ssh-ed25519 AAAA"'``).
"""

from __future__ import annotations

from collections.abc import Callable

from ...golang.validation import dns1123_label_errors
from ..differences import DIFFERENCES_FROM_VIRTCTL
from ..params import random_string
from .builder import VMBuild, mutually_exclusive_error
from .cloudinit import read_text_file as _read_text_file
from .flags import (
    ACCESS_CRED_PARAMS,
    CLOUD_CONFIG_HEADER,
    CLOUD_INIT_CONFIGDRIVE,
    CLOUD_INIT_DISK,
    CLOUD_INIT_NOCLOUD,
    CLOUD_INIT_NONE,
    DEPRECATED_VOLUME_ALIASES,
    EXAMPLES,
    IMPORT_PARAMS,
    LONG_HELP,
    RUN_STRATEGIES,
    SHORT_HELP,
    SYSPREP_DISK,
    SYSPREP_PARAMS,
    VM_FLAGS,
    VM_FLAGS_BY_NAME,
    VM_MUTUALLY_EXCLUSIVE_GROUPS,
    VOLUME_PARAMS,
    VMOptions,
)
from .matchers import MatcherReference, matcher_references
from .state import Manifest

__all__ = [
    "ACCESS_CRED_PARAMS",
    "CLOUD_CONFIG_HEADER",
    "CLOUD_INIT_CONFIGDRIVE",
    "CLOUD_INIT_DISK",
    "CLOUD_INIT_NOCLOUD",
    "CLOUD_INIT_NONE",
    "DEPRECATED_VOLUME_ALIASES",
    "DIFFERENCES_FROM_VIRTCTL",
    "EXAMPLES",
    "IMPORT_PARAMS",
    "LONG_HELP",
    "RUN_STRATEGIES",
    "SHORT_HELP",
    "SYSPREP_DISK",
    "SYSPREP_PARAMS",
    "VM_FLAGS",
    "VM_FLAGS_BY_NAME",
    "VM_MUTUALLY_EXCLUSIVE_GROUPS",
    "VOLUME_PARAMS",
    "Manifest",
    "MatcherReference",
    "VMOptions",
    "build_vm",
    "dns1123_label_errors",
    "matcher_references",
    "mutually_exclusive_error",
    "random_string",
]


def build_vm(
    options: VMOptions,
    *,
    random_suffix: Callable[[int], str] | None = None,
    read_file: Callable[[str], str] | None = None,
    warn: Callable[[str], None] | None = None,
) -> tuple[Manifest, list[str]]:
    """The VirtualMachine manifest virtctl v1.8+ prints for ``options``, and its stderr warning lines.

    ``random_suffix(n)`` makes the random parts of generated names (``vm-XXXXX``, ``imported-volume-XXXXX``);
    ``read_file(path)`` reads ``--password-file`` (an :class:`OSError` becomes virtctl's error). ``warn``,
    when given, also receives each warning line as it happens, so that a caller can print the warnings
    virtctl prints before failing. Raises :class:`UsageError` with virtctl's message.
    """
    warnings: list[str] = []

    def record(line: str) -> None:
        warnings.append(line)
        if warn is not None:
            warn(line)

    # The defaults are looked up here, at call time, so that tests can replace this package's
    # random_string and _read_text_file.
    build = VMBuild(options, random_suffix or random_string, read_file or _read_text_file, record)
    return build.run(), warnings
