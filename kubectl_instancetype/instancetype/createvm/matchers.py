"""``create vm`` instance type and preference matchers: given (``[kind/]name``) or inferred from a volume."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...errors import UsageError
from .. import kinds as type_kinds
from ..params import ParamError, flag_error, split_prefixed_name
from .state import Manifest, VMState


def normalize_kind(prefix: str, kinds: tuple[str, str]) -> str | None:
    """The lowercase singular kind for a ``--instancetype`` / ``--preference`` prefix, or None if it is none of ``kinds``.

    ``""`` stays ``""`` (KubeVirt reads an empty kind as the cluster-scoped one). Plurals, kubectl's short
    names (vmcf, vmf, vmcp, vmp, ...) and group-qualified kinds (instancetype.kinds) are our extension.
    """
    if prefix == "":
        return ""
    kind = type_kinds.spelled(prefix)
    return kind.singular if kind is not None and kind.singular in kinds else None


class MatcherSteps(VMState):
    """``--instancetype``/``--preference`` and the client-side inference of their matchers."""

    def _matcher(self, flag: str, value: str, kinds: tuple[str, str]) -> Manifest:
        try:
            prefix, name = split_prefixed_name(value)
        except ParamError as exc:
            raise flag_error(flag, str(exc)) from None
        kind = normalize_kind(prefix, kinds)
        if kind is None:
            raise flag_error(flag, f'invalid {flag} kind "{prefix.lower()}", supported values are: {", ".join(kinds)}')
        matcher = {"name": name}
        if kind:
            matcher["kind"] = kind
        return matcher

    def instancetype(self) -> None:
        self.vm["spec"]["instancetype"] = self._matcher(
            "instancetype", self.options.instancetype, type_kinds.INSTANCETYPE_SINGULARS
        )
        self.template_spec["domain"].pop("memory", None)

    def preference(self) -> None:
        self.vm["spec"]["preference"] = self._matcher(
            "preference", self.options.preference, type_kinds.PREFERENCE_SINGULARS
        )

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


def referenced_objects(vm_manifest: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The instance type and preference a VM manifest names, as ``(kind, name)`` pairs, instance type first.

    ``kind`` is KubeVirt's lowercase singular kind; an empty kind is returned as the cluster-scoped kind
    (``virtualmachineclusterinstancetype`` / ``virtualmachineclusterpreference``), which is what KubeVirt
    resolves it to. Plural and CamelCase kinds are normalised the same way. Inference matchers
    (``inferFromVolume``) name no object and are skipped.
    """
    spec = vm_manifest.get("spec") or {}
    found = []
    for key, kinds in (
        ("instancetype", type_kinds.INSTANCETYPE_SINGULARS),
        ("preference", type_kinds.PREFERENCE_SINGULARS),
    ):
        matcher = spec.get(key) or {}
        name = matcher.get("name")
        if not name:
            continue
        kind = normalize_kind(matcher.get("kind") or "", kinds)
        if kind is None:
            kind = matcher["kind"]  # not an instancetype.kubevirt.io kind: passed on for the caller to report
        found.append((kind or kinds[1], name))
    return found
