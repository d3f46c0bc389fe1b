"""The embedded, offline catalog of kubevirt/common-instancetypes releases.

``load_catalog("v1.7.0")`` returns the release's instance types and preferences as full
``instancetype.kubevirt.io/v1beta1`` objects; see :mod:`kubectl_instancetype.catalog.loader` for the
compact data form and which metadata the catalog keeps. Importing this package reads nothing.
"""

from __future__ import annotations

from kubectl_instancetype.catalog.loader import (
    API_VERSION,
    CLUSTER_INSTANCETYPE_KIND,
    CLUSTER_PREFERENCE_KIND,
    DEFAULT_VERSION,
    INSTANCETYPE_KIND,
    PREFERENCE_KIND,
    VERSIONS,
    Catalog,
    KubeObject,
    UnknownCatalogVersionError,
    load_catalog,
)

__all__ = [
    "API_VERSION",
    "CLUSTER_INSTANCETYPE_KIND",
    "CLUSTER_PREFERENCE_KIND",
    "DEFAULT_VERSION",
    "INSTANCETYPE_KIND",
    "PREFERENCE_KIND",
    "VERSIONS",
    "Catalog",
    "KubeObject",
    "UnknownCatalogVersionError",
    "load_catalog",
]
