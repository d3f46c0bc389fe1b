"""``lint``: what in an instance type or preference is deprecated, will not survive the planned
``instancetype.kubevirt.io/v1``, or can never work, with the replacement for each and the corrected object.

Rules, from KubeVirt v1.9.0 (``pkg/instancetype/preference/webhooks``, ``pkg/instancetype/webhooks``,
``pkg/instancetype/preference/apply``, ``pkg/virt-api/webhooks/validating-webhook/admitters``) and the v1 plans
(kubevirt/enhancements #17, #272: the deprecated spellings are dropped in v1):

* ``spec.cpu.preferredCPUTopology`` ``preferSockets|preferCores|preferThreads|preferSpread|preferAny``: the
  v1.4 short names replace them (KubeVirt warns ``PreferredCPUTopology <old> is deprecated for removal in a
  future release, please use <new> instead``). Fixed in place.
* ``spec.firmware.preferredUseEfi`` / ``preferredUseSecureBoot``: ``preferredEfi`` (v1.4) replaces them. The fix
  is exact when the preference asks for EFI (``preferredUseEfi: true`` becomes ``preferredEfi: {secureBoot: X}``)
  and when it does not (``false`` has no effect and is dropped). ``preferredUseSecureBoot`` without
  ``preferredUseEfi: true`` only ever completed an EFI the VM set itself; v1 has no spelling for that, so the
  fix drops it and says so.
* ``spec.preferSpreadSocketToCoreRatio``: ``spec.cpu.spreadOptions.ratio`` (v1.3) replaces it; moved when unset.
* instance type ``spec.launchSecurity``: deprecated (KubeVirt warns ``launchSecurity is deprecated and will be
  removed in a future release. Use preference instead.``); the preference's ``preferredLaunchSecurity`` (v1.9)
  replaces it. Not fixed automatically: which preferences go with the type is the user's call.
* instance types no VM can ever run with: ``maxSockets`` below the vCPUs (with the default ``sockets``
  topology the VMI is denied ``Number of sockets in CPU topology is greater than the maximum sockets
  allowed``), ``maxGuest`` below the guest memory, ``overcommitPercent`` with hugepages or out of range
  (instance type admission's own messages).
* preferences no candidate instance type satisfies (requirements and the spread rule, as ``recommend`` checks
  them), and preferences whose ``preferredArchitecture`` contradicts ``requirements.architecture``.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..golang.quantity import quantity_value
from .kinds import INSTANCETYPE_KINDS, PREFERENCE_KINDS

DEPRECATED = "deprecated"  # KubeVirt warns today; v1 drops it
NEVER_WORKS = "never-works"  # no VM can use the object as written
UNSATISFIABLE = "unsatisfiable"  # no candidate instance type meets the preference

DEPRECATED_TOPOLOGIES = {
    "preferSockets": "sockets",
    "preferCores": "cores",
    "preferThreads": "threads",
    "preferSpread": "spread",
    "preferAny": "any",
}
TOPOLOGY_WARNING = "PreferredCPUTopology {old} is deprecated for removal in a future release, please use {new} instead"
LAUNCH_SECURITY_WARNING = (
    "launchSecurity is deprecated and will be removed in a future release. Use preference instead."
)
SOCKETS_ABOVE_MAX = "Number of sockets in CPU topology is greater than the maximum sockets allowed"
OVERCOMMIT_RANGE = "spec.memory.overcommitPercent '{value}': must be in range between 0 and 100."
OVERCOMMIT_HUGEPAGES = "spec.memory.overcommitPercent and spec.memory.hugepages should not be requested together."


@dataclass(frozen=True)
class Finding:
    """One problem in one object: the field, the rule, KubeVirt's words or ours, the replacement, and whether
    ``--fix`` corrects it."""

    kind: str
    name: str
    namespace: str
    path: str
    rule: str
    message: str
    replacement: str = ""
    fixable: bool = False

    @property
    def target(self) -> str:
        """``kind/name`` as kubectl prints it."""
        return f"{self.kind.lower()}/{self.name}"


def _spec(obj: Mapping[str, Any]) -> dict[str, Any]:
    spec = obj.get("spec")
    return spec if isinstance(spec, dict) else {}


def _meta(obj: Mapping[str, Any]) -> tuple[str, str, str]:
    metadata = obj.get("metadata") or {}
    return str(obj.get("kind") or ""), str(metadata.get("name") or ""), str(metadata.get("namespace") or "")


def _int(value: Any) -> int | None:
    if value is None or isinstance(value, bool):
        return None
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def lint(obj: Mapping[str, Any], candidates: Sequence[Mapping[str, Any]] | None = None) -> list[Finding]:
    """Every finding for one instance type or preference (other kinds: none). ``candidates``: instance type
    objects a preference is checked against (None: that check is skipped)."""
    kind = str(obj.get("kind") or "")
    if kind in INSTANCETYPE_KINDS:
        return _lint_instancetype(obj)
    if kind in PREFERENCE_KINDS:
        return _lint_preference(obj, candidates)
    return []


def _lint_instancetype(obj: Mapping[str, Any]) -> list[Finding]:
    kind, name, namespace = _meta(obj)
    spec = _spec(obj)
    found: list[Finding] = []

    def add(path: str, rule: str, message: str, replacement: str = "", fixable: bool = False) -> None:
        found.append(Finding(kind, name, namespace, path, rule, message, replacement, fixable))

    if spec.get("launchSecurity") is not None:
        add(
            "spec.launchSecurity",
            DEPRECATED,
            LAUNCH_SECURITY_WARNING,
            "spec.preferredLaunchSecurity of the preferences used with this instance type (KubeVirt v1.9+)",
        )
    cpu = spec.get("cpu") or {}
    guest, max_sockets = _int(cpu.get("guest")), _int(cpu.get("maxSockets"))
    if guest and max_sockets and max_sockets < guest:
        add(
            "spec.cpu.maxSockets",
            NEVER_WORKS,
            f"maxSockets {max_sockets} is below the {guest} vCPUs: with the default sockets topology every VMI is "
            f'denied "{SOCKETS_ABOVE_MAX}"',
            f"spec.cpu.maxSockets: {guest} or more (or drop it: KubeVirt then computes the ceiling)",
        )
    memory = spec.get("memory") or {}
    memory_guest, max_guest = quantity_value(memory.get("guest")), quantity_value(memory.get("maxGuest"))
    if memory_guest is not None and max_guest is not None and max_guest < memory_guest:
        add(
            "spec.memory.maxGuest",
            NEVER_WORKS,
            f"maxGuest {memory.get('maxGuest')} is below the guest memory {memory.get('guest')}: "
            '"Guest memory is greater than the configured maxGuest memory"',
            f"spec.memory.maxGuest: {memory.get('guest')} or more",
        )
    overcommit = _int(memory.get("overcommitPercent"))
    if overcommit is not None and not 0 <= overcommit <= 100:
        add("spec.memory.overcommitPercent", NEVER_WORKS, OVERCOMMIT_RANGE.format(value=overcommit), "0 to 100")
    if overcommit and memory.get("hugepages") is not None:
        add(
            "spec.memory.overcommitPercent",
            NEVER_WORKS,
            OVERCOMMIT_HUGEPAGES,
            "drop spec.memory.overcommitPercent or spec.memory.hugepages",
        )
    return found


TOPOLOGIES = ("sockets", "cores", "threads", "spread", "any")
SUPPORTED_TOPOLOGIES = "one of " + ", ".join(TOPOLOGIES)
SPREAD_ACROSS = ("CoresThreads", "SocketsCores", "SocketsCoresThreads")


def preference_admission(spec: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The causes KubeVirt's preference admission denies ``spec`` with (field, message), in its order: kubevirt.io
    pkg/instancetype/preference/webhooks/admitter.go ``ValidatePreferenceSpec`` (an unknown topology, then the
    spread options, each returning its first cause)."""
    cpu: dict[str, Any] = spec["cpu"] if isinstance(spec.get("cpu"), dict) else {}
    topology = cpu.get("preferredCPUTopology")
    if topology is None:
        return []
    if topology not in TOPOLOGIES and topology not in DEPRECATED_TOPOLOGIES:
        return [("spec.cpu.preferredCPUTopology", f"unknown preferredCPUTopology {topology}")]
    if topology not in ("spread", "preferSpread"):
        return []
    options: dict[str, Any] = cpu["spreadOptions"] if isinstance(cpu.get("spreadOptions"), dict) else {}
    # pkg/instancetype/preference/apply/cpu.go GetSpreadOptions: a set option wins, even a zero one
    across = options["across"] if options.get("across") is not None else "SocketsCores"
    ratio = options["ratio"] if options.get("ratio") is not None else spec.get("preferSpreadSocketToCoreRatio") or 2
    if across not in SPREAD_ACROSS:
        return [("spec.cpu.spreadOptions.across", f"across {across} is not supported")]
    if across == "CoresThreads" and ratio != 2:
        return [
            (
                "spec.cpu.spreadOptions.ratio",
                "only a ratio of 2 (1 core 2 threads) is allowed when spreading vCPUs over cores and threads",
            )
        ]
    return []


def _lint_preference(obj: Mapping[str, Any], candidates: Sequence[Mapping[str, Any]] | None) -> list[Finding]:
    kind, name, namespace = _meta(obj)
    spec = _spec(obj)
    found: list[Finding] = []

    def add(path: str, rule: str, message: str, replacement: str = "", fixable: bool = False) -> None:
        found.append(Finding(kind, name, namespace, path, rule, message, replacement, fixable))

    topology = (spec.get("cpu") or {}).get("preferredCPUTopology")
    for path, message in preference_admission(spec):
        add(path, NEVER_WORKS, message, SUPPORTED_TOPOLOGIES if path.endswith("Topology") else "")
    if topology in DEPRECATED_TOPOLOGIES:
        new = DEPRECATED_TOPOLOGIES[str(topology)]
        add(
            "spec.cpu.preferredCPUTopology",
            DEPRECATED,
            TOPOLOGY_WARNING.format(old=topology, new=new),
            f"spec.cpu.preferredCPUTopology: {new}",
            True,
        )
    firmware = spec.get("firmware") or {}
    use_efi, secure_boot = firmware.get("preferredUseEfi"), firmware.get("preferredUseSecureBoot")
    has_efi = firmware.get("preferredEfi") is not None
    if use_efi is not None:
        if has_efi:
            replacement = "drop it: preferredEfi is set and wins"
        elif use_efi:
            efi = {"secureBoot": bool(secure_boot)} if secure_boot is not None else {}
            replacement = f"spec.firmware.preferredEfi: {_flow(efi)}"
        else:
            replacement = "drop it: false has no effect"
        add(
            "spec.firmware.preferredUseEfi",
            DEPRECATED,
            "preferredUseEfi is deprecated since KubeVirt v1.4 and is not part of instancetype.kubevirt.io/v1",
            replacement,
            True,
        )
    if secure_boot is not None:
        if has_efi or use_efi:
            replacement = "spec.firmware.preferredEfi.secureBoot" if not has_efi else "drop it: preferredEfi wins"
            note = ""
        else:
            replacement = "spec.firmware.preferredEfi: {secureBoot: ...} if the preference should ask for EFI"
            note = (
                "; without preferredUseEfi it only completed an EFI the VM set itself, which v1 cannot express:"
                " --fix drops it"
            )
        add(
            "spec.firmware.preferredUseSecureBoot",
            DEPRECATED,
            "preferredUseSecureBoot is deprecated since KubeVirt v1.4 and is not part of instancetype.kubevirt.io/v1"
            + note,
            replacement,
            True,
        )
    ratio = spec.get("preferSpreadSocketToCoreRatio")
    if ratio is not None:
        current = ((spec.get("cpu") or {}).get("spreadOptions") or {}).get("ratio")
        add(
            "spec.preferSpreadSocketToCoreRatio",
            DEPRECATED,
            "preferSpreadSocketToCoreRatio is superseded by spec.cpu.spreadOptions.ratio (KubeVirt v1.3)",
            "drop it: 0 means the default ratio"
            if not ratio
            else f"spec.cpu.spreadOptions.ratio: {ratio}"
            if current is None
            else "drop it: spreadOptions.ratio is set and wins",
            True,
        )
    requirements = spec.get("requirements") or {}
    required_arch, preferred_arch = requirements.get("architecture"), spec.get("preferredArchitecture")
    if required_arch and preferred_arch and required_arch != preferred_arch:
        add(
            "spec.requirements.architecture",
            NEVER_WORKS,
            f"preferredArchitecture {preferred_arch} contradicts requirements.architecture {required_arch}: a VM "
            f'that does not set its own architecture is denied "preference requires architecture {required_arch} '
            f'but {preferred_arch} is being requested"',
            f"spec.preferredArchitecture: {required_arch}",
        )
    if candidates is not None and (requirements or (spec.get("cpu") or {}).get("preferredCPUTopology")):
        from .recommend import evaluate

        if not any(evaluate(_spec(candidate), spec).fits for candidate in candidates):
            add(
                "spec.requirements",
                UNSATISFIABLE,
                f"no instance type among the {len(candidates)} checked satisfies this preference"
                + (
                    f" ({_show_requirements(requirements)})"
                    if requirements
                    else " (the vCPUs of none of them can be spread as its preferredCPUTopology asks)"
                ),
                "lower the requirements, or add an instance type that meets them",
            )
    return found


def _show_requirements(requirements: Mapping[str, Any]) -> str:
    parts = []
    if (requirements.get("cpu") or {}).get("guest") is not None:
        parts.append(f"{requirements['cpu']['guest']} vCPU")
    if (requirements.get("memory") or {}).get("guest") is not None:
        parts.append(f"{requirements['memory']['guest']} memory")
    if requirements.get("architecture"):
        parts.append(f"architecture {requirements['architecture']}")
    return ", ".join(parts) or "requirements"


def _flow(value: Mapping[str, Any]) -> str:
    if not value:
        return "{}"
    return "{" + ", ".join(f"{key}: {str(item).lower()}" for key, item in value.items()) + "}"


def fix(obj: Mapping[str, Any]) -> tuple[dict[str, Any], list[Finding]]:
    """A corrected copy of ``obj`` and the findings the fix corrected (the others stay for the user).

    Only rewrites with the same effect on every VM are made (see the module docstring for the one
    exception, ``preferredUseSecureBoot`` alone, which is reported)."""
    fixed: dict[str, Any] = copy.deepcopy(dict(obj))
    findings = [finding for finding in lint(obj) if finding.fixable]
    if not findings:
        return fixed, []
    spec = fixed.setdefault("spec", {})
    cpu = spec.get("cpu")
    if isinstance(cpu, dict) and cpu.get("preferredCPUTopology") in DEPRECATED_TOPOLOGIES:
        cpu["preferredCPUTopology"] = DEPRECATED_TOPOLOGIES[str(cpu["preferredCPUTopology"])]
    firmware = spec.get("firmware")
    if isinstance(firmware, dict):
        use_efi = firmware.pop("preferredUseEfi", None)
        secure_boot = firmware.pop("preferredUseSecureBoot", None)
        if use_efi and firmware.get("preferredEfi") is None:
            efi: dict[str, Any] = {}
            if secure_boot is not None:
                efi["secureBoot"] = bool(secure_boot)
            firmware["preferredEfi"] = efi
    if "preferSpreadSocketToCoreRatio" in spec:
        ratio = spec.pop("preferSpreadSocketToCoreRatio")
        if ratio:
            options = spec.setdefault("cpu", {}).setdefault("spreadOptions", {})
            options.setdefault("ratio", ratio)
    return fixed, findings


def lint_all(
    objects: Iterable[Mapping[str, Any]], candidates: Sequence[Mapping[str, Any]] | None = None
) -> list[Finding]:
    """Findings for many objects, in input order."""
    return [finding for obj in objects for finding in lint(obj, candidates)]
