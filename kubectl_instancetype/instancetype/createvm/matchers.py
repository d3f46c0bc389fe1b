"""``create vm`` instance type and preference matchers: given (``[kind/]name``) or inferred from a volume."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...errors import UsageError
from ...records import dataclass
from .. import kinds as type_kinds
from ..params import ParamError, flag_error, split_prefixed_name
from .state import Manifest, VMState


@dataclass(frozen=True)
class MatcherReference:
    """A matcher of a VM that names an object (:func:`matcher_references`)."""

    key: str  # instancetype or preference
    name: str
    kind: type_kinds.TypeKind | None  # None: a kind KubeVirt does not know (``written``)
    written: str


class MatcherSteps(VMState):
    """``--instancetype``/``--preference`` and the client-side inference of their matchers."""

    @staticmethod
    def _matcher(flag: str, value: str) -> Manifest:
        """``[KIND/]NAME`` as a matcher: the kind read once (kinds.matcher_kind; virtctl takes the lowercase
        singular, we also take kubectl's spellings), written as KubeVirt's lowercase singular; no prefix, no kind."""
        try:
            prefix, name = split_prefixed_name(value)
        except ParamError as exc:
            raise flag_error(flag, str(exc)) from None
        kind = type_kinds.matcher_kind(prefix, flag, short_names=True)
        if kind is None:
            supported = ", ".join(type_kinds.singulars(flag))
            raise flag_error(flag, f'invalid {flag} kind "{prefix.lower()}", supported values are: {supported}')
        matcher = {"name": name}
        if prefix:
            matcher["kind"] = kind.singular
        return matcher

    def instancetype(self) -> None:
        self.vm["spec"]["instancetype"] = self._matcher("instancetype", self.options.instancetype)
        self.template_spec["domain"].pop("memory", None)

    def preference(self) -> None:
        self.vm["spec"]["preference"] = self._matcher("preference", self.options.preference)

    def infer(self) -> None:
        options = self.options
        candidates = (
            (
                "instancetype",
                options.infer_instancetype and not options.instancetype and "memory" not in options.changed,
                options.infer_instancetype_from,
            ),
            ("preference", options.infer_preference and not options.preference, options.infer_preference_from),
        )
        for kind, enabled, requested in candidates:
            if not enabled:
                continue
            explicit = bool({f"infer-{kind}", f"infer-{kind}-from"} & options.changed)
            try:
                volume = self.inference_volume(requested)
            except UsageError:
                if explicit:
                    raise
                continue  # implicit inference gives up silently
            self.vm["spec"][kind] = self.matcher_for(volume, explicit)
            if explicit and kind == "instancetype":
                # the inferred instance type provides the memory; without the Ignore fallback none is kept
                self.template_spec["domain"].pop("memory", None)

    @staticmethod
    def matcher_for(volume: str, explicit: bool) -> Manifest:
        matcher = {"inferFromVolume": volume}
        if not explicit:
            # Implicit inference must not make a valid command fail on the server.
            matcher["inferFromVolumeFailurePolicy"] = "Ignore"
        return matcher

    def inference_volume(self, requested: str) -> str:
        """The volume to infer from: the requested one, else the lowest boot order, else the first volume."""
        name = requested
        if not name:
            volumes = self.template_spec.get("volumes", [])
            if not volumes:
                raise UsageError("at least one volume is needed to infer an instance type or preference")
            name = self.boot_orders[min(self.boot_orders)] if self.boot_orders else volumes[0]["name"]
        volume = self.volume(name)
        if volume is None:
            raise UsageError(f'there is no volume with name "{name}"')
        if "dataVolume" in volume:
            self.require_inferable_data_volume(volume["dataVolume"]["name"])
        elif "persistentVolumeClaim" not in volume:
            raise UsageError("inference of instancetype or preference works only with datasources, datavolumes or pvcs")
        return name

    def require_inferable_data_volume(self, name: str) -> None:
        for template in self.vm["spec"].get("dataVolumeTemplates", []):
            if template["metadata"]["name"] != name:
                continue
            spec = template["spec"]
            source = spec.get("source", {})
            if {"pvc", "registry", "snapshot"} & source.keys() or spec.get("sourceRef", {}).get("kind") == "DataSource":
                return
            raise UsageError(
                "this datavolume is not valid to infer an instancetype or preference from "
                "(source needs to be PVC, Registry or Snapshot, sourceRef needs to be DataSource)"
            )


def matcher_references(vm_manifest: Mapping[str, Any]) -> list[MatcherReference]:
    """What a VM manifest's matchers name, instance type first: per matcher with a ``name``, its key, the name,
    the kind as KubeVirt reads it (kinds.matcher_kind: an empty kind is the cluster-scoped one; None for a kind
    KubeVirt does not know, with ``written`` the kind as written, for the caller to report). Inference matchers
    (``inferFromVolume``) name no object and are skipped."""
    spec = vm_manifest.get("spec") or {}
    found = []
    for key in ("instancetype", "preference"):
        matcher = spec.get(key) or {}
        name = matcher.get("name")
        if not name:
            continue
        written = str(matcher.get("kind") or "")
        found.append(MatcherReference(key, str(name), type_kinds.matcher_kind(written, key), written))
    return found
