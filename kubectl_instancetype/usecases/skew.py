"""Catalog skew on a cluster: which catalog objects would lose which fields there, read from the CRD schemas the
cluster serves (``apiextensions.k8s.io/v1`` customresourcedefinitions, one GET per kind) with the pure pruning
walk of :mod:`..instancetype.skew`. Users who may not read CRDs get one warning; the install then learns the
missing fields from the server's answers, as before."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..kube.resources import Resource
    from ..kube.session import Session


@dataclass(frozen=True)
class CatalogItem:
    """One catalog object and the resource it is applied as."""

    resource: Resource
    obj: dict[str, Any]

    @property
    def name(self) -> str:
        """The object's name."""
        return str(self.obj["metadata"]["name"])

    @property
    def shown(self) -> str:
        """``-o name``'s form: ``virtualmachineclusterinstancetype.instancetype.kubevirt.io/u1.small``."""
        return self.resource.name_of(self.name)


@dataclass
class Skew:
    """``fields``: path -> the names of the objects that would lose it; ``warnings``: what was not read."""

    fields: dict[str, list[str]] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    checked: bool = False

    def message(self, shown: int = 3) -> str:
        """``spec.devices.preferredVideoType (a, b, c and 9 more); ...``."""
        parts = []
        for path, names in self.fields.items():
            more = f" and {len(names) - shown} more" if len(names) > shown else ""
            parts.append(f"{path} ({', '.join(names[:shown])}{more})")
        return "; ".join(parts)

    @property
    def objects(self) -> int:
        """How many objects would lose a field."""
        return len({name for names in self.fields.values() for name in names})


def schema_skew(session: Session, objects: Iterable[CatalogItem]) -> Skew:
    """Compare each object with its kind's CRD schema (the version it is written as)."""
    from ..errors import APIError, NotFoundError
    from ..instancetype.skew import pruned_fields, version_schema
    from ..kube.resources import CUSTOM_RESOURCE_DEFINITIONS

    client = session.client()
    skew = Skew()
    schemas: dict[str, dict[str, Any] | None] = {}
    for item in objects:
        resource, obj = item.resource, item.obj
        if resource.qualified not in schemas:
            try:
                crd = client.get(CUSTOM_RESOURCE_DEFINITIONS, resource.qualified)
            except NotFoundError:
                schemas[resource.qualified] = None
                skew.warnings.append(f"the cluster serves no {resource.qualified}")
                continue
            except APIError as exc:
                skew.warnings.append(
                    f"cannot read the CRD {resource.qualified} ({exc.message}): fields the cluster's schema lacks "
                    "are found while applying"
                )
                return skew
            schemas[resource.qualified] = version_schema(crd, resource.version)
        schema = schemas[resource.qualified]
        if schema is None:
            continue
        for path in pruned_fields(obj, schema):
            skew.fields.setdefault(path, []).append(str(obj["metadata"]["name"]))
    skew.checked = True
    return skew
