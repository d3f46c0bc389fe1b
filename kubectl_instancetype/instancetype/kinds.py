"""The four kinds of ``instancetype.kubevirt.io`` and every way kubectl lets a user spell them.

One table for every command that takes a kind (``list vmcf``, ``describe vmf/NAME``, ``--instancetype
vmcf/u1.medium``, ``usage vmp/NAME``) and every printer that names one (``--show-kind``, describe, messages).
The short names are the CRDs' ``shortNames`` (kubevirt.io/kubevirt
pkg/virt-operator/resource/generate/components/crds.go, NewVirtualMachineInstancetypeCrd and its three
siblings); kubectl resolves a word against the singular, the plural and the short names, each with or without the
``.instancetype.kubevirt.io`` group (k8s.io/apimachinery pkg/api/meta RESTMapper's ResourceFor).
"""

from __future__ import annotations

from dataclasses import dataclass

GROUP = "instancetype.kubevirt.io"
INSTANCETYPES = "instancetypes"  # what a kind holds (instancetype.listing's INSTANCETYPES and PREFERENCES)
PREFERENCES = "preferences"


@dataclass(frozen=True)
class TypeKind:
    """One kind: its name, what it holds, its scope and its kubectl spellings."""

    kind: str
    what: str  # INSTANCETYPES or PREFERENCES
    namespaced: bool
    short_names: tuple[str, ...]  # the CRD's shortNames, the usual one (vmcf) first among the short ones

    @property
    def singular(self) -> str:
        """``virtualmachineclusterinstancetype``: how KubeVirt's matchers and ``-o name`` spell it."""
        return self.kind.lower()

    @property
    def plural(self) -> str:
        return self.singular + "s"

    @property
    def qualified(self) -> str:
        """``virtualmachineclusterinstancetype.instancetype.kubevirt.io``, kubectl's ``--show-kind`` prefix."""
        return f"{self.singular}.{GROUP}"

    @property
    def short(self) -> str:
        """The shortest name a user types: ``vmcf``."""
        return min(self.short_names, key=len)

    def spellings(self) -> tuple[str, ...]:
        """Every word that names this kind, without the group."""
        return (self.singular, self.plural, *self.short_names)


CLUSTER_INSTANCETYPE = TypeKind(
    "VirtualMachineClusterInstancetype",
    INSTANCETYPES,
    False,
    ("vmclusterinstancetype", "vmclusterinstancetypes", "vmcf", "vmcfs"),
)
INSTANCETYPE = TypeKind(
    "VirtualMachineInstancetype", INSTANCETYPES, True, ("vminstancetype", "vminstancetypes", "vmf", "vmfs")
)
CLUSTER_PREFERENCE = TypeKind("VirtualMachineClusterPreference", PREFERENCES, False, ("vmcp", "vmcps"))
PREFERENCE = TypeKind("VirtualMachinePreference", PREFERENCES, True, ("vmpref", "vmprefs", "vmp", "vmps"))

ALL = (CLUSTER_INSTANCETYPE, INSTANCETYPE, CLUSTER_PREFERENCE, PREFERENCE)
BY_KIND = {kind.kind: kind for kind in ALL}
# the kind names as objects carry them, namespaced first (the order KubeVirt's messages list them)
INSTANCETYPE_KINDS = (INSTANCETYPE.kind, CLUSTER_INSTANCETYPE.kind)
PREFERENCE_KINDS = (PREFERENCE.kind, CLUSTER_PREFERENCE.kind)

_SPELLINGS = {word: kind for kind in ALL for word in kind.spellings()}


def spelled(word: str) -> TypeKind | None:
    """The kind ``word`` names as kubectl reads it (any case; singular, plural or short; with or without the
    group), or None."""
    lowered = word.lower()
    if lowered.endswith("." + GROUP):
        lowered = lowered[: -len(GROUP) - 1]
    return _SPELLINGS.get(lowered)


def of(what: str, namespaced: bool) -> TypeKind:
    """The kind holding ``what`` (INSTANCETYPES or PREFERENCES) in that scope."""
    for kind in ALL:
        if kind.what == what and kind.namespaced == namespaced:
            return kind
    raise KeyError(what)
