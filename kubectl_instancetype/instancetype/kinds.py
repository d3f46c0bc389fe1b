"""The four kinds of ``instancetype.kubevirt.io``: the one table of their facts.

Everything the plugin knows about a kind is here, and every other table is derived from it: the API paths'
pieces (group, version, plural) that :mod:`..kube.resources` builds its resources from, the scope and the
other-scope counterpart (``references``' "exists in the other scope" hint), the matcher a kind fills
(``spec.instancetype`` or ``spec.preference``), and every way kubectl lets a user spell it, which the CLI's
arguments and completion read (``list vmcf``, ``describe vmf/NAME``, ``--instancetype vmcf/u1.medium``,
``usage vmp/NAME``). ``tests/unit/test_kinds.py`` fails when another module spells a plural or short name, or
writes a table of these kinds, itself.

The short names are the CRDs' ``shortNames`` (kubevirt.io/kubevirt
pkg/virt-operator/resource/generate/components/crds.go, NewVirtualMachineInstancetypeCrd and its three
siblings); kubectl resolves a word against the singular, the plural and the short names, each with or without the
``.instancetype.kubevirt.io`` group (k8s.io/apimachinery pkg/api/meta RESTMapper's ResourceFor).

A plain class, not a dataclass: completion imports this table on every key press.
"""

from __future__ import annotations

GROUP = "instancetype.kubevirt.io"
VERSION = "v1beta1"  # the version the plugin reads and writes
API_VERSION = f"{GROUP}/{VERSION}"
INSTANCETYPES = "instancetypes"  # what a kind holds (instancetype.listing's INSTANCETYPES and PREFERENCES)
PREFERENCES = "preferences"


class TypeKind:
    """One kind: its name (CamelCase, as objects carry it), what it holds, its scope and its kubectl spellings."""

    __slots__ = ("kind", "namespaced", "short_names", "what")

    def __init__(self, kind: str, what: str, namespaced: bool, short_names: tuple[str, ...]):
        self.kind = kind
        self.what = what  # INSTANCETYPES or PREFERENCES
        self.namespaced = namespaced
        self.short_names = short_names  # the CRD's shortNames, the usual one (vmcf) first among the short ones

    def __repr__(self) -> str:
        return f"TypeKind({self.kind!r})"

    @property
    def singular(self) -> str:
        """``virtualmachineclusterinstancetype``: how KubeVirt's matchers, ``-o name`` and messages spell it."""
        return self.kind.lower()

    @property
    def plural(self) -> str:
        """``virtualmachineclusterinstancetypes``: the resource in API paths."""
        return self.singular + "s"

    @property
    def qualified(self) -> str:
        """``virtualmachineclusterinstancetype.instancetype.kubevirt.io``, kubectl's ``--show-kind`` prefix."""
        return f"{self.singular}.{GROUP}"

    @property
    def qualified_plural(self) -> str:
        """``virtualmachineclusterinstancetypes.instancetype.kubevirt.io``: the resource as the server names it."""
        return f"{self.plural}.{GROUP}"

    @property
    def short(self) -> str:
        """The shortest name a user types: ``vmcf``."""
        return min(self.short_names, key=len)

    @property
    def matcher(self) -> str:
        """The VM's matcher this kind fills: ``instancetype`` or ``preference`` (``spec.<matcher>``)."""
        return self.what[:-1]

    @property
    def matcher_type(self) -> str:
        """KubeVirt's Go type of that matcher, as its messages name it: ``InstancetypeMatcher``."""
        return self.matcher.capitalize() + "Matcher"

    @property
    def other_scope(self) -> TypeKind:
        """The kind holding the same thing in the other scope (VirtualMachineInstancetype <->
        VirtualMachineClusterInstancetype)."""
        return of(self.what, not self.namespaced)

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

# cluster-scoped first within each matcher: the order of the short names users see (vmcf, vmf, vmcp, vmp)
ALL = (CLUSTER_INSTANCETYPE, INSTANCETYPE, CLUSTER_PREFERENCE, PREFERENCE)
BY_KIND = {kind.kind: kind for kind in ALL}
# namespaced first: the order KubeVirt's messages list them. CamelCase kinds (as objects carry them) ...
INSTANCETYPE_KINDS = (INSTANCETYPE.kind, CLUSTER_INSTANCETYPE.kind)
PREFERENCE_KINDS = (PREFERENCE.kind, CLUSTER_PREFERENCE.kind)
TYPE_KINDS = INSTANCETYPE_KINDS + PREFERENCE_KINDS
# ... and their lowercase singulars (as matchers' ``kind`` and virtctl's flags spell them)
INSTANCETYPE_SINGULARS = (INSTANCETYPE.singular, CLUSTER_INSTANCETYPE.singular)
PREFERENCE_SINGULARS = (PREFERENCE.singular, CLUSTER_PREFERENCE.singular)
# the kind a matcher without ``kind`` names (KubeVirt's default: the cluster-scoped one), by matcher
DEFAULT_KIND = {"instancetype": CLUSTER_INSTANCETYPE, "preference": CLUSTER_PREFERENCE}

_SPELLINGS = {word: kind for kind in ALL for word in kind.spellings()}


def spelled(word: str) -> TypeKind | None:
    """The kind ``word`` names as kubectl reads it (any case; singular, plural or short; with or without the
    group), or None."""
    lowered = word.lower()
    if lowered.endswith("." + GROUP):
        lowered = lowered[: -len(GROUP) - 1]
    return _SPELLINGS.get(lowered)


# the words a VM's matcher ``kind`` may hold, lowercased, as KubeVirt reads them (singular or plural)
_MATCHER_WORDS = {word: kind for kind in ALL for word in (kind.singular, kind.plural)}


def matcher_kind(word: str, matcher: str, *, short_names: bool = False) -> TypeKind | None:
    """The one reading of a matcher's kind: the kind ``word`` names for a VM's ``matcher`` (``instancetype`` or
    ``preference``), or None when it names neither of that matcher's two kinds.

    As KubeVirt reads ``spec.<matcher>.kind`` (kubevirt.io/kubevirt pkg/instancetype/find/spec.go and
    pkg/instancetype/preference/find/spec.go: the switch on ``strings.ToLower(matcher.Kind)``): any case,
    singular or plural, and ``""`` is the cluster-scoped kind. With ``short_names`` (a flag's ``KIND/`` prefix,
    ``--instancetype vmf/NAME``, or a ``--default-*-kind`` value: our extension), kubectl's short names and the
    group-qualified spellings too (:func:`spelled`). Every command reads a matcher kind through this function
    (tests/unit/test_kinds.py fails on another reading)."""
    if word == "":
        return DEFAULT_KIND[matcher]
    kind = spelled(word) if short_names else _MATCHER_WORDS.get(word.lower())
    return kind if kind is not None and kind.matcher == matcher else None


def unexpected_kind(matcher: str, word: str) -> str:
    """KubeVirt's error for a matcher kind :func:`matcher_kind` does not read (pkg/instancetype/find/spec.go
    ``unexpectedKindFmt``: ``got unexpected kind in InstancetypeMatcher: %s``)."""
    return f"got unexpected kind in {DEFAULT_KIND[matcher].matcher_type}: {word}"


def singulars(matcher: str) -> tuple[str, str]:
    """The lowercase singular kinds of ``matcher``, namespaced first: virtctl's "supported values"."""
    return INSTANCETYPE_SINGULARS if matcher == "instancetype" else PREFERENCE_SINGULARS


def of(what: str, namespaced: bool) -> TypeKind:
    """The kind holding ``what`` (INSTANCETYPES or PREFERENCES) in that scope."""
    for kind in ALL:
        if kind.what == what and kind.namespaced == namespaced:
            return kind
    raise KeyError(what)
