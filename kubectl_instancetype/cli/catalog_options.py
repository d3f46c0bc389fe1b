"""Flags of the commands that read the embedded common-instancetypes catalog, declared once.

``catalog list|show|install|diff`` take ``--version``; ``derive``, ``matrix`` and ``recommend`` take
``--catalog [--catalog-version]`` (:class:`CatalogSourceFlags`); the offline ``catalog`` commands take ``-n`` and
``-v`` only (:class:`OfflineFlags`); ``install`` and ``diff`` select the same objects (:class:`SelectionFlags`).
No ``from __future__ import annotations`` (Typer reads the field types as objects).
"""

from typing import Annotated, Any, Optional

from . import options

Version = Annotated[
    Optional[str],
    options.text_option(
        "--version", metavar="VERSION", help="The embedded common-instancetypes release (default: the newest)."
    ),
]


@options.dataclass
class CatalogSourceFlags:
    """``--catalog [--catalog-version V]``: read the embedded common-instancetypes catalog, not the cluster."""

    catalog: Annotated[
        bool, options.bool_option("--catalog", help="Use the embedded common-instancetypes catalog, not the cluster.")
    ] = False
    catalog_version: Annotated[
        Optional[str],
        options.text_option(
            "--catalog-version",
            metavar="VERSION",
            help="The embedded catalog release for --catalog (default: the newest).",
        ),
    ] = None

    def validate(self) -> None:
        """--catalog-version needs --catalog."""
        if self.catalog_version and not self.catalog:
            raise options.UsageError("--catalog-version goes with --catalog")


@options.dataclass
class OfflineFlags:
    """``-n`` (where the namespaced copies go) and ``-v``: the connection flags that mean something offline."""

    namespace: options.Namespace = None
    verbosity: options.Verbosity = 0

    def validate(self) -> None:
        """The namespace must be a valid name (it is written into the copies)."""
        if self.namespace:
            from ..kube.names import invalid_namespace

            if problem := invalid_namespace(self.namespace):
                raise options.UsageError(problem)


@options.dataclass
class SelectionFlags:
    """Which catalog objects ``install`` and ``diff`` work on."""

    version: Version = None
    namespaced: Annotated[
        bool,
        options.bool_option(
            "--namespaced", help="The namespaced kinds, in the namespace (-n), not the cluster-scoped ones."
        ),
    ] = False
    instancetypes_only: Annotated[
        bool, options.bool_option("--instancetypes-only", help="Only the instance types.")
    ] = False
    preferences_only: Annotated[bool, options.bool_option("--preferences-only", help="Only the preferences.")] = False

    def validate(self) -> None:
        """The two -only flags exclude each other."""
        if self.instancetypes_only and self.preferences_only:
            raise options.UsageError("--instancetypes-only and --preferences-only cannot be used together")

    def selection(self) -> Any:
        """The use case's :class:`~..usecases.catalog_install.Selection`."""
        from ..usecases.catalog_install import Selection

        return Selection(
            version=self.version,
            namespaced=self.namespaced,
            instancetypes=not self.preferences_only,
            preferences=not self.instancetypes_only,
        )


def skew_line(path: str, names: list[str], shown: int = 3) -> str:
    """One warning per field the cluster's CRD schema lacks, with the objects that would lose it."""
    from ..output.terminal import escape

    more = f" and {len(names) - shown} more" if len(names) > shown else ""
    return escape(
        f"this cluster's KubeVirt does not know {path}: {len(names)} catalog object(s) would lose it "
        f"({', '.join(names[:shown])}{more})"
    )
