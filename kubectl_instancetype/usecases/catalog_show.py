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
    from ..catalog import DEFAULT_VERSION, load_catalog
    from ..errors import PluginError
    from ..golang.cobra import did_you_mean
    from ..instancetype import kinds

    catalog = load_catalog(version or DEFAULT_VERSION)
    if namespace is not None:
        catalog = catalog.namespaced(namespace)
    found: list[CatalogObject] = []
    for word in names:
        # TYPE/NAME: the kind (any spelling instancetype.kinds reads) says which list; the CLI checked its scope
        prefix, slash, name = word.rpartition("/")
        kind = kinds.spelled(prefix) if slash else None
        obj, what = None, ""
        if kind is None or kind.what == kinds.INSTANCETYPES:
            obj, what = catalog.instancetype(name), "instancetypes"
        if obj is None and (kind is None or kind.what == kinds.PREFERENCES):
            obj, what = catalog.preference(name), "preferences"
        if obj is None:
            pool = [] if kind is not None and kind.what == kinds.PREFERENCES else catalog.instancetypes
            pool = pool + ([] if kind is not None and kind.what == kinds.INSTANCETYPES else catalog.preferences)
            close = did_you_mean(name, [o["metadata"]["name"] for o in pool])
            hint = f" (did you mean {' or '.join(close)}?)" if close else ""
            raise PluginError(f'"{word}" is not in the common-instancetypes {catalog.version} catalog{hint}')
        found.append(CatalogObject(obj, what))
    return CatalogObjects(found, catalog.namespace)
