"""``catalog show``: objects of the embedded common-instancetypes catalog by name (offline)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class CatalogObject:
    """One catalog object and its list kind (``instancetypes`` or ``preferences``)."""

    obj: dict[str, Any]
    what: str


@dataclass
class CatalogObjects:
    """Catalog objects by name, each with its list kind (``instancetypes``/``preferences``), and the namespace of
    the namespaced copies (None for the cluster-scoped objects)."""

    objects: list[CatalogObject]
    namespace: str | None


def catalog_objects_named(version: str | None, names: list[str], namespace: str | None) -> CatalogObjects:
    """The instance types or preferences ``names`` of the embedded release ``version`` (namespaced copies in
    ``namespace`` unless it is None); a name the catalog lacks fails with the closest one as a hint."""
    import difflib

    from ..catalog import DEFAULT_VERSION, load_catalog
    from ..errors import PluginError

    catalog = load_catalog(version or DEFAULT_VERSION)
    if namespace is not None:
        catalog = catalog.namespaced(namespace)
    found: list[CatalogObject] = []
    for name in names:
        obj, what = catalog.instancetype(name), "instancetypes"
        if obj is None:
            obj, what = catalog.preference(name), "preferences"
        if obj is None:
            known = [o["metadata"]["name"] for o in catalog.instancetypes + catalog.preferences]
            close = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
            hint = f" (did you mean {close[0]}?)" if close else ""
            raise PluginError(f'"{name}" is not in the common-instancetypes {catalog.version} catalog{hint}')
        found.append(CatalogObject(obj, what))
    return CatalogObjects(found, catalog.namespace)
