"""``create vm``: the VirtualMachine manifest ``virtctl create vm`` (KubeVirt v1.8/v1.9) prints, built as a dict.

Pure: :func:`build_vm` takes the parsed flag values (:class:`VMOptions`) and returns the manifest plus the
warning lines virtctl writes to stderr; errors are :class:`UsageError` with virtctl's exact text. The only
outside things it touches are injected: the random name generator and the reader of ``--password-file``.

Processing follows virtctl: cobra's mutually exclusive flag groups first, then the base VM (name, run
strategy, grace period, guest memory), then the changed flags in a fixed order (run strategy, instance
type, preference, containerdisks, PVCs, deprecated aliases, imports, sysprep, access credentials), then
the cloud-init volume, then client-side inference of instance type and preference matchers.

DIFFERENCES_FROM_VIRTCTL (quoted in the README; each is deliberate):

* ``--instancetype`` / ``--preference`` also accept the plural kind (``virtualmachineclusterinstancetypes/x``,
  ``VirtualMachinePreferences/x``; KubeVirt issue #12596). Like virtctl we lowercase the kind, and we write
  the singular lowercase kind virtctl writes.
* Deprecated ``--volume-datasource`` / ``--volume-clone-pvc`` / ``--volume-blank`` values keep the boot order
  virtctl documents (DataSource > Clone PVC > Blank > ``--volume-import``, each in command-line order);
  virtctl v1.4+ actually puts them in reverse (blank first, each group reversed), which also changes the
  volume that inference picks when several are given.
* Unknown compound parameters are listed in the order they were written; virtctl lists them in Go map
  order, which changes from run to run.
* The ``--cloud-init none`` warning is a line of its own; virtctl prints it without a newline.
* The command examples (:data:`EXAMPLES`) are valid commands; several of virtctl's are not
  (``--volume-pvc=my-pvc``, ``--infer-instancetype=<volume>``, a ``namespace`` param).
* Quantities (``--memory``, ``size:``) with a decimal exponent beyond +-1000 (``1e-2147483648``) are refused
  with the suffix error, and quantities with more than 1000 digits as too long; virtctl accepts them and then
  computes for minutes.

Quirks kept on purpose, because virtctl documents or relies on them: ``--termination-grace-period`` defaults
to 180 and is always written (so a preference's preferred grace period never applies to these manifests);
registry imports count as inferable volumes (the server cannot infer from them at admission, so the
implicit ``Ignore`` policy silently drops the matchers); ``--ssh-key`` is comma-split like any pflag string
slice (quote a key in CSV style to keep a comma: ``--ssh-key '"from=""a,b"" ssh-ed25519 AAAA"'``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from ..errors import UsageError
from .params import (
    FLAG_BOOL,
    FLAG_INT64,
    FLAG_STRING,
    FLAG_STRING_ARRAY,
    FLAG_STRING_SLICE,
    PARAM_LIST,
    PARAM_QUANTITY,
    PARAM_UINT,
    FlagOptions,
    FlagSpec,
    Param,
    ParamError,
    ParamNotFound,
    flag_error,
    get_param,
    parse_params,
    random_string,
    split_prefixed_name,
    supported,
)
from .quantity import QuantityError, canonical_quantity

DIFFERENCES_FROM_VIRTCTL: list[str] = [
    "--instancetype and --preference also accept plural kinds (virtualmachineclusterinstancetypes/NAME, "
    "VirtualMachinePreferences/NAME; KubeVirt issue #12596) and write the singular lowercase kind virtctl writes.",
    "Values of the deprecated --volume-datasource, --volume-clone-pvc and --volume-blank flags keep the boot order "
    "virtctl documents (DataSource > Clone PVC > Blank > --volume-import, each in command-line order); virtctl "
    "reverses them, which also changes the volume inference picks.",
    "Unknown compound parameters are reported in the order they were written (virtctl: random map order).",
    "The '--cloud-init: was set to none' warning ends with a newline (virtctl's runs into the next output).",
    "The help examples are valid commands (several of virtctl's are not).",
    "Quantities with a decimal exponent beyond +-1000 (1e-2147483648) are refused as having a bad suffix, "
    "and quantities with more than 1000 digits as too long; virtctl accepts them and then computes for minutes.",
]

CLOUD_INIT_DISK = "cloudinitdisk"
SYSPREP_DISK = "sysprepdisk"
CLOUD_CONFIG_HEADER = "#cloud-config"
RUN_STRATEGIES = ("Always", "Manual", "Halted", "Once", "RerunOnFailure")
INSTANCETYPE_KINDS = ("virtualmachineinstancetype", "virtualmachineclusterinstancetype")
PREFERENCE_KINDS = ("virtualmachinepreference", "virtualmachineclusterpreference")
CLOUD_INIT_NOCLOUD, CLOUD_INIT_CONFIGDRIVE, CLOUD_INIT_NONE = "nocloud", "configdrive", "none"

VOLUME_PARAMS = (Param("name"), Param("src"), Param("bootorder", PARAM_UINT))
SYSPREP_PARAMS = (Param("src"), Param("type"))
ACCESS_CRED_PARAMS = (Param("type"), Param("src"), Param("method"), Param("user"))
_SIZE, _TYPE, _NAME, _BOOTORDER = (
    Param("size", PARAM_QUANTITY),
    Param("type"),
    Param("name"),
    Param("bootorder", PARAM_UINT),
)
_CERT, _SECRET, _URL = Param("certconfigmap"), Param("secretref"), Param("url")
_REFERENCE_PARAMS = (_NAME, Param("src"), _SIZE, _TYPE, _BOOTORDER)
IMPORT_PARAMS: dict[str, tuple[Param, ...]] = {
    "blank": (_SIZE, _TYPE, _NAME, _BOOTORDER),
    "gcs": (_SECRET, _URL, _SIZE, _TYPE, _NAME, _BOOTORDER),
    "http": (
        _CERT,
        Param("extraheaders", PARAM_LIST),
        Param("secretextraheaders", PARAM_LIST),
        _SECRET,
        _URL,
        _SIZE,
        _TYPE,
        _NAME,
        _BOOTORDER,
    ),
    "imageio": (_CERT, Param("diskid"), _SECRET, _URL, _SIZE, _TYPE, _NAME, _BOOTORDER),
    "pvc": _REFERENCE_PARAMS,
    "registry": (_CERT, Param("imagestream"), Param("pullmethod"), _SECRET, _URL, _SIZE, _TYPE, _NAME, _BOOTORDER),
    "s3": (_CERT, _SECRET, _URL, _SIZE, _TYPE, _NAME, _BOOTORDER),
    "vddk": (
        Param("backingfile"),
        Param("initimageurl"),
        _SECRET,
        Param("thumbprint"),
        _URL,
        Param("uuid"),
        _SIZE,
        _TYPE,
        _NAME,
        _BOOTORDER,
    ),
    "snapshot": _REFERENCE_PARAMS,
    "ds": _REFERENCE_PARAMS,
}
_SIZE_OPTIONAL_IMPORTS = frozenset({"pvc", "snapshot", "ds"})

# The deprecated aliases, in the order virtctl processes them, with the import type they stand for.
DEPRECATED_VOLUME_ALIASES = (("volume-datasource", "ds"), ("volume-clone-pvc", "pvc"), ("volume-blank", "blank"))


def _matcher_flags(flag: str, title: str) -> tuple[FlagSpec, ...]:
    """``--<flag>``, ``--infer-<flag>`` and ``--infer-<flag>-from``, with virtctl's help texts."""
    return (
        FlagSpec(
            flag, FLAG_STRING, "", f"Specify the {title} of the VM. Mutually exclusive with {flag} inference flags."
        ),
        FlagSpec(
            f"infer-{flag}",
            FLAG_BOOL,
            True,
            f"Specify if the {title} of the VM should be inferred from the first boot disk. "
            f"Mutually exclusive with --infer-{flag}-from.",
        ),
        FlagSpec(
            f"infer-{flag}-from",
            FLAG_STRING,
            "",
            f"Specify the volume to infer the {title} of the VM from. Mutually exclusive with --infer-{flag}.",
        ),
    )


def _repeatable(name: str, what: str, parameters: str, *, deprecated_type: str | None = None) -> FlagSpec:
    """A repeatable compound flag with virtctl's help text (and deprecation note for the import aliases)."""
    help_text = f"Specify {what}. Can be provided multiple times.\nSupported parameters: {parameters}"
    if deprecated_type:
        help_text += f"\nDEPRECATED: Use --volume-import with type:{deprecated_type} and same params instead."
    return FlagSpec(name, FLAG_STRING_ARRAY, (), help_text, deprecated=deprecated_type is not None)


# virtctl's help lists the aliases' params in this order, unlike the ds/pvc import params
_CLONE_PARAMS = "name:string,src:string,bootorder:uint,size:resource.Quantity"
_IMPORT_HELP = "".join(f"\n  type {kind} - {supported(params)}" for kind, params in IMPORT_PARAMS.items())

VM_FLAGS: tuple[FlagSpec, ...] = (
    FlagSpec("name", FLAG_STRING, "", "Specify the name of the VM."),
    FlagSpec("run-strategy", FLAG_STRING, "Always", "Specify the RunStrategy of the VM."),
    FlagSpec("termination-grace-period", FLAG_INT64, 180, "Specify the termination grace period of the VM."),
    FlagSpec("memory", FLAG_STRING, "512Mi", "Specify the memory of the VM."),
    *_matcher_flags("instancetype", "Instance Type"),
    *_matcher_flags("preference", "Preference"),
    _repeatable("volume-containerdisk", "a containerdisk to be used by the VM", supported(VOLUME_PARAMS)),
    _repeatable("volume-pvc", "a PVCs to be used by the VM", supported(VOLUME_PARAMS)),
    FlagSpec(
        "volume-import",
        FLAG_STRING_ARRAY,
        (),
        "Specify the source for DataVolume. Can be provided multiple times.\nSupported parameters:" + _IMPORT_HELP,
    ),
    FlagSpec(
        "volume-sysprep",
        FLAG_STRING,
        "",
        "Specify a ConfigMap or Secret to be used as sysprep volume by the VM.\n"
        f"Supported parameters: {supported(SYSPREP_PARAMS)}",
    ),
    FlagSpec("user", FLAG_STRING, "", "Specify the user in the cloud-init user data that is added to the VM."),
    FlagSpec(
        "password-file",
        FLAG_STRING,
        "",
        "Specify a file to read the password from for the cloud-init user data that is added to the VM.",
    ),
    FlagSpec(
        "ssh-key",
        FLAG_STRING_SLICE,
        (),
        "Specify one or more SSH authorized keys in the cloud-init user data that is added to the VM.",
    ),
    FlagSpec(
        "ga-manage-ssh",
        FLAG_BOOL,
        False,
        "Specify if the qemu-guest-agent should be able to manage SSH in the cloud-init user data that is added "
        'to the VM.\nThis is useful in combination with the "credentials add-ssh-key" command or when using the '
        "--access-cred flag.",
    ),
    _repeatable("access-cred", "an access credential to be injected into the VM", supported(ACCESS_CRED_PARAMS)),
    FlagSpec(
        "cloud-init",
        FLAG_STRING,
        CLOUD_INIT_NOCLOUD,
        "Specify the type of the generated cloud-init data source.\n"
        f"Supported values: {CLOUD_INIT_NOCLOUD}, {CLOUD_INIT_CONFIGDRIVE}, {CLOUD_INIT_NONE}",
    ),
    FlagSpec("cloud-init-user-data", FLAG_STRING, "", "Specify the base64 encoded cloud-init user data of the VM."),
    FlagSpec(
        "cloud-init-network-data", FLAG_STRING, "", "Specify the base64 encoded cloud-init network data of the VM."
    ),
    _repeatable("volume-datasource", "a DataSource to be cloned by the VM", _CLONE_PARAMS, deprecated_type="ds"),
    _repeatable("volume-clone-pvc", "a PVC to be cloned by the VM", _CLONE_PARAMS, deprecated_type="pvc"),
    _repeatable(
        "volume-blank",
        "a blank volume to be used by the VM",
        "name:string,size:resource.Quantity",
        deprecated_type="blank",
    ),
)
VM_FLAGS_BY_NAME: dict[str, FlagSpec] = {spec.name: spec for spec in VM_FLAGS}

# cobra MarkFlagsMutuallyExclusive groups, in declaration order within each group.
VM_MUTUALLY_EXCLUSIVE_GROUPS: tuple[tuple[str, ...], ...] = (
    ("memory", "instancetype", "infer-instancetype", "infer-instancetype-from"),
    ("preference", "infer-preference", "infer-preference-from"),
    ("cloud-init-user-data", "user"),
    ("cloud-init-user-data", "password-file"),
    ("cloud-init-user-data", "ssh-key"),
    ("cloud-init-user-data", "ga-manage-ssh"),
)

SHORT_HELP = "Create a VirtualMachine manifest."
LONG_HELP = (
    "Create a VirtualMachine manifest.\n\n"
    "If no boot order was specified volumes have the following fixed boot order:\n"
    "Containerdisk > PVC > DataSource > Clone PVC > Blank > Imported volumes"
)
# Help examples; ``EXAMPLES.format(prog="kubectl instancetype")`` fills in the command prefix.
EXAMPLES = """\
  # Create a manifest for a VirtualMachine with a random name:
  {prog} create vm

  # Create a manifest for a VirtualMachine with a specified name and RunStrategy Always
  {prog} create vm --name=my-vm --run-strategy=Always

  # Create a manifest for a VirtualMachine with a specified VirtualMachineClusterInstancetype
  {prog} create vm --instancetype=my-instancetype

  # Create a manifest for a VirtualMachine with a specified VirtualMachineInstancetype (namespaced)
  {prog} create vm --instancetype=virtualmachineinstancetype/my-instancetype

  # Create a manifest for a VirtualMachine with a specified VirtualMachineClusterPreference
  {prog} create vm --preference=my-preference

  # Create a manifest for a VirtualMachine with a specified VirtualMachinePreference (namespaced)
  {prog} create vm --preference=virtualmachinepreference/my-preference

  # Create a manifest for a VirtualMachine with specified memory and an ephemeral containerdisk volume
  {prog} create vm --memory=1Gi --volume-containerdisk=src:my.registry/my-image:my-tag

  # Create a manifest for a VirtualMachine with a cloned DataSource in namespace and specified size
  {prog} create vm --volume-import=type:ds,src:my-ns/my-ds,size:50Gi

  # Create a manifest for a VirtualMachine with a cloned DataSource and explicitly inferred instancetype and preference
  {prog} create vm --volume-import=type:ds,src:my-annotated-ds --infer-instancetype --infer-preference

  # Create a manifest for a VirtualMachine with multiple volumes and specified boot order
  {prog} create vm --volume-containerdisk=src:my.registry/my-image:my-tag --volume-import=type:ds,src:my-ds,bootorder:1

  # Create a manifest for a VirtualMachine inferring instancetype and preference from two different volumes
  {prog} create vm --volume-import=type:ds,src:my-annotated-ds,name:root --volume-pvc=src:my-annotated-pvc \\
      --infer-instancetype-from=root --infer-preference-from=my-annotated-pvc

  # Create a manifest for a VirtualMachine with a cloned PVC
  {prog} create vm --volume-import=type:pvc,src:my-ns/my-pvc

  # Create a manifest for a VirtualMachine using a PVC without cloning it
  {prog} create vm --volume-pvc=src:my-pvc

  # Create a manifest for a VirtualMachine with a cloned DataSource and a blank volume
  {prog} create vm --volume-import=type:ds,src:my-ns/my-ds --volume-import=type:blank,size:50Gi

  # Create a manifest for a VirtualMachine with a specified VirtualMachineCluster{{Instancetype,Preference}} and two cloned DataSources
  {prog} create vm --instancetype=my-instancetype --preference=my-preference --volume-import=type:ds,src:my-ds1 --volume-import=type:ds,src:my-ds2

  # Create a manifest for a VirtualMachine with a DataVolumeTemplate cloning a PVC into a volume named my-disk
  {prog} create vm --volume-import=type:pvc,src:default/my-pvc,name:my-disk,size:256Mi

  # Create a manifest for a VirtualMachine with a generated cloud-init config setting the user and adding an ssh authorized key
  {prog} create vm --user cloud-user --ssh-key="ssh-ed25519 AAAA...."

  # Create a manifest for a VirtualMachine with a generated cloud-init config setting the user and setting the password from a file
  {prog} create vm --user cloud-user --password-file=/path/to/file

  # Create a manifest for a VirtualMachine with SSH public keys injected from a secret called my-keys to the user of the cloud-init config
  {prog} create vm --user cloud-user --access-cred=type:ssh,src:my-keys

  # Create a manifest for a VirtualMachine with a password injected from a secret called my-pws
  {prog} create vm --access-cred=type:password,src:my-pws

  # Create a manifest for a VirtualMachine with a Containerdisk and a Sysprep volume (source ConfigMap needs to exist)
  {prog} create vm --memory=1Gi --volume-containerdisk=src:my.registry/my-image:my-tag --volume-sysprep=src:my-cm"""

_DNS1123_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")
_DNS1123_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
_DNS1123_LABEL_MESSAGE = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end "
    "with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
)


def dns1123_label_errors(value: str) -> list[str]:
    """apimachinery's ``validation.IsDNS1123Label`` messages for ``value`` (empty when it is valid)."""
    errors = []
    if len(value.encode()) > 63:
        errors.append("must be no more than 63 characters")
    if not _DNS1123_LABEL.fullmatch(value):
        errors.append("must not contain dots" if _DNS1123_SUBDOMAIN.fullmatch(value) else _DNS1123_LABEL_MESSAGE)
    return errors


@dataclass(frozen=True)
class VMOptions(FlagOptions):
    """Every ``create vm`` flag value, the set of flags given on the command line, and ``-n`` when given.

    Field names are the flag names with ``_`` for ``-``. Repeatable flags hold tuples in command-line order
    (``ssh_key`` already split on commas). ``changed`` holds flag names without dashes (``"memory"``); like
    pflag's "changed", it is what counts for the mutually exclusive groups and for which flags are processed.
    """

    name: str = ""
    run_strategy: str = "Always"
    termination_grace_period: int = 180
    memory: str = "512Mi"
    instancetype: str = ""
    infer_instancetype: bool = True
    infer_instancetype_from: str = ""
    preference: str = ""
    infer_preference: bool = True
    infer_preference_from: str = ""
    volume_containerdisk: tuple[str, ...] = ()
    volume_pvc: tuple[str, ...] = ()
    volume_import: tuple[str, ...] = ()
    volume_sysprep: str = ""
    user: str = ""
    password_file: str = ""
    ssh_key: tuple[str, ...] = ()
    ga_manage_ssh: bool = False
    access_cred: tuple[str, ...] = ()
    cloud_init: str = CLOUD_INIT_NOCLOUD
    cloud_init_user_data: str = ""
    cloud_init_network_data: str = ""
    volume_datasource: tuple[str, ...] = ()
    volume_clone_pvc: tuple[str, ...] = ()
    volume_blank: tuple[str, ...] = ()
    namespace: str | None = None
    changed: frozenset[str] = field(default_factory=frozenset)

    flag_specs = VM_FLAGS_BY_NAME


def mutually_exclusive_error(groups: Sequence[Sequence[str]], changed: Iterable[str]) -> UsageError | None:
    """cobra's check of ``MarkFlagsMutuallyExclusive`` groups (groups taken in sorted order, as cobra does)."""
    changed = set(changed)
    for group in sorted(groups, key=" ".join):
        set_flags = sorted(name for name in group if name in changed)
        if len(set_flags) > 1:
            return UsageError(
                f"if any flags in the group [{' '.join(group)}] are set none of the others can be; "
                f"[{' '.join(set_flags)}] were all set"
            )
    return None


def _go_os_error(path: str, exc: OSError) -> str:
    """Go's ``*PathError`` text for a failed ``os.ReadFile``."""
    if isinstance(exc, IsADirectoryError):
        return f"read {path}: is a directory"
    reason = exc.strerror or str(exc)
    return f"open {path}: {reason[:1].lower()}{reason[1:]}"


def _read_text_file(path: str) -> str:
    with open(path, encoding="utf-8", errors="surrogateescape") as handle:
        return handle.read()


def normalize_kind(prefix: str, kinds: tuple[str, str]) -> str | None:
    """The lowercase singular kind for a ``--instancetype`` / ``--preference`` prefix, or None if it is none of ``kinds``.

    ``""`` stays ``""`` (KubeVirt reads an empty kind as the cluster-scoped one). Plurals are our extension.
    """
    lowered = prefix.lower()
    if lowered == "" or lowered in kinds:
        return lowered
    if lowered.endswith("s") and lowered[:-1] in kinds:
        return lowered[:-1]
    return None


class _VMBuild:
    """The mutable state of one :func:`build_vm` run (virtctl's ``createVM`` struct after flag parsing)."""

    def __init__(
        self,
        options: VMOptions,
        random_suffix: Callable[[int], str],
        read_file: Callable[[str], str],
        warn: Callable[[str], None],
    ):
        self.options = options
        self.random_suffix = random_suffix
        self.read_file = read_file
        self.warn = warn
        # access credentials may switch --ga-manage-ssh and --cloud-init on, as virtctl's flag Set() does
        self.changed = set(options.changed)
        self.ga_manage_ssh = options.ga_manage_ssh
        self.cloud_init = options.cloud_init
        self.boot_orders: dict[int, str] = {}
        self.vm: dict = {}

    # --- manifest accessors ---

    @property
    def template_spec(self) -> dict:
        return self.vm["spec"]["template"]["spec"]

    @property
    def volumes(self) -> list[dict]:
        return self.template_spec.setdefault("volumes", [])

    def volume(self, name: str) -> dict | None:
        return next((vol for vol in self.template_spec.get("volumes", []) if vol["name"] == name), None)

    def require_new_volume(self, flag: str, name: str) -> None:
        if self.volume(name) is not None:
            raise flag_error(flag, f'there is already a volume with name "{name}"')

    def require_dns_label(self, flag: str, name: str) -> None:
        errors = dns1123_label_errors(name)
        if errors:
            raise flag_error(flag, f'invalid name "{name}": {",".join(errors)}')

    def add_boot_order(self, flag: str, name: str, boot_order: int | None) -> None:
        if boot_order is None:
            return
        if boot_order == 0:
            raise flag_error(flag, "bootorder must be greater than 0")
        if boot_order in self.boot_orders:
            raise flag_error(flag, f"bootorder {boot_order} was specified multiple times")
        devices = self.template_spec["domain"]["devices"]
        devices.setdefault("disks", []).append({"name": name, "bootOrder": boot_order})
        self.boot_orders[boot_order] = name

    # --- steps ---

    def run(self) -> dict:
        options = self.options
        error = mutually_exclusive_error(VM_MUTUALLY_EXCLUSIVE_GROUPS, options.changed)
        if error:
            raise error
        name = options.name or "vm-" + self.random_suffix(5)
        try:
            memory = canonical_quantity(options.memory)
        except QuantityError as exc:
            raise flag_error("memory", str(exc)) from None
        metadata = {"name": name}
        if options.namespace:
            metadata["namespace"] = options.namespace
        self.vm = {
            "apiVersion": "kubevirt.io/v1",
            "kind": "VirtualMachine",
            "metadata": metadata,
            "spec": {
                "runStrategy": options.run_strategy,
                "template": {
                    "metadata": {},
                    "spec": {
                        "domain": {"devices": {}, "memory": {"guest": memory}, "resources": {}},
                        "terminationGracePeriodSeconds": options.termination_grace_period,
                    },
                },
            },
            "status": {},
        }
        steps = (
            ("run-strategy", self.run_strategy),
            ("instancetype", self.instancetype),
            ("preference", self.preference),
            ("volume-containerdisk", self.containerdisks),
            ("volume-pvc", self.pvcs),
        )
        for flag, step in steps:
            if flag in self.changed:
                step()
        self.imports()
        if "volume-sysprep" in self.changed:
            self.sysprep()
        if "access-cred" in self.changed:
            self.access_credentials()
        self.cloud_init_volume()
        self.infer()
        return self.vm

    def run_strategy(self) -> None:
        wanted = self.options.run_strategy
        for strategy in RUN_STRATEGIES:
            if strategy.lower() == wanted.lower():
                self.vm["spec"]["runStrategy"] = strategy
                return
        raise flag_error(
            "run-strategy", f'invalid run strategy "{wanted}", supported values are: {", ".join(RUN_STRATEGIES)}'
        )

    def _matcher(self, flag: str, value: str, kinds: tuple[str, str]) -> dict:
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
        self.vm["spec"]["instancetype"] = self._matcher("instancetype", self.options.instancetype, INSTANCETYPE_KINDS)
        self.template_spec["domain"].pop("memory", None)

    def preference(self) -> None:
        self.vm["spec"]["preference"] = self._matcher("preference", self.options.preference, PREFERENCE_KINDS)

    def containerdisks(self) -> None:
        flag = "volume-containerdisk"
        for index, value in enumerate(self.options.volume_containerdisk):
            params = parse_params(flag, value, VOLUME_PARAMS)
            source = params.get("src", "")
            if source == "":
                raise flag_error(flag, "src must be specified")
            name = params.get("name") or f"{self.vm['metadata']['name']}-containerdisk-{index}"
            self.require_dns_label(flag, name)
            self.require_new_volume(flag, name)
            self.volumes.append({"name": name, "containerDisk": {"image": source}})
            self.add_boot_order(flag, name, params.get("bootorder"))

    def _local_source(self, flag: str, params: Mapping[str, object], what: str) -> tuple[str, str]:
        """(``src`` as written, its name part) of a flag naming an object in the VM's own namespace.

        virtctl writes the name part for PVC claims but the text as written for secrets and sysprep sources;
        they differ only for ``src:/name``.
        """
        source = params.get("src", "")
        if source == "":
            raise flag_error(flag, "src must be specified")
        try:
            namespace, name = split_prefixed_name(source)
        except ParamError as exc:
            raise flag_error(flag, f"src invalid: {exc}") from None
        if namespace:
            raise flag_error(flag, f'not allowed to specify namespace of {what} "{name}"')
        return source, name

    def pvcs(self) -> None:
        flag = "volume-pvc"
        for value in self.options.volume_pvc:
            params = parse_params(flag, value, VOLUME_PARAMS)
            _, claim = self._local_source(flag, params, "pvc")
            name = params.get("name") or claim
            self.require_dns_label(flag, name)
            self.require_new_volume(flag, name)
            self.volumes.append({"name": name, "persistentVolumeClaim": {"claimName": claim}})
            self.add_boot_order(flag, name, params.get("bootorder"))

    def imports(self) -> None:
        flag = "volume-import"
        aliased: list[str] = []
        for alias, import_type in DEPRECATED_VOLUME_ALIASES:
            if alias not in self.changed:
                continue
            self.warn(f"Flag --{alias} has been deprecated, use flag --volume-import instead")
            for value in getattr(self.options, alias.replace("-", "_")):
                if value == "":
                    raise flag_error(flag, "params may not be empty")
                aliased.append(f"type:{import_type},{value}")
            self.changed.add(flag)
        if flag not in self.changed:
            return
        for value in aliased + list(self.options.volume_import):
            self.import_volume(value)

    def import_volume(self, value: str) -> None:
        flag = "volume-import"
        try:
            import_type = get_param("type", value)
        except ParamError as exc:
            raise flag_error(flag, str(exc)) from None
        if import_type not in IMPORT_PARAMS:
            raise flag_error(flag, f'invalid volume import type "{import_type}", see help for supported values')
        params = parse_params(flag, value, IMPORT_PARAMS[import_type])
        spec = _import_source(import_type, params)
        if "size" not in params and import_type not in _SIZE_OPTIONAL_IMPORTS:
            raise flag_error(flag, str(ParamNotFound("size")))
        name = params["name"] if "name" in params else "imported-volume-" + self.random_suffix(5)
        self.require_dns_label(flag, name)
        self.require_new_volume(flag, name)
        size = params.get("size")
        spec["storage"] = {"resources": {"requests": {"storage": size}} if size else {}}
        self.vm["spec"].setdefault("dataVolumeTemplates", []).append({"metadata": {"name": name}, "spec": spec})
        self.volumes.append({"name": name, "dataVolume": {"name": name}})
        self.add_boot_order(flag, name, params.get("bootorder"))

    def sysprep(self) -> None:
        flag = "volume-sysprep"
        params = parse_params(flag, self.options.volume_sysprep, SYSPREP_PARAMS)
        source, _ = self._local_source(flag, params, "configmap or secret")
        source_type = params.get("type") or "configmap"
        self.require_new_volume(flag, SYSPREP_DISK)
        if source_type.lower() == "configmap":
            sysprep = {"configMap": {"name": source}}
        elif source_type.lower() == "secret":
            sysprep = {"secret": {"name": source}}
        else:
            raise flag_error(
                flag, f'invalid sysprep source type "{source_type}", supported values are: configmap, secret'
            )
        self.volumes.append({"name": SYSPREP_DISK, "sysprep": sysprep})

    def access_credentials(self) -> None:
        flag = "access-cred"
        for value in self.options.access_cred:
            params = parse_params(flag, value, ACCESS_CRED_PARAMS)
            secret, _ = self._local_source(flag, params, "secret")
            cred_type = params.get("type", "")
            if cred_type.lower() in ("ssh", ""):
                credential = self.ssh_credential(params, secret)
            elif cred_type.lower() == "password":
                credential = self.password_credential(params, secret)
            else:
                raise flag_error(
                    flag, f'invalid access credential type "{cred_type}", supported values are: ssh, password'
                )
            self.template_spec.setdefault("accessCredentials", []).append(credential)

    def ssh_credential(self, params: Mapping[str, str], secret: str) -> dict:
        flag = "access-cred"
        method = params.get("method", "")
        if method.lower() in ("ga", ""):
            user = params.get("user") or self.options.user
            if not user:
                raise flag_error(
                    flag, 'user must be specified with access credential ssh method ga ("--user" flag or param "user")'
                )
            if "ga-manage-ssh" not in self.changed:
                self.ga_manage_ssh = True
                self.changed.add("ga-manage-ssh")
            propagation = {"qemuGuestAgent": {"users": [user]}}
        elif method.lower() in (CLOUD_INIT_NOCLOUD, CLOUD_INIT_CONFIGDRIVE):
            expected = method.lower()
            if params.get("user"):
                raise flag_error(flag, "user cannot be specified with selected access credential type and method")
            if "cloud-init" not in self.changed:
                self.cloud_init = expected
                self.changed.add("cloud-init")
            if self.cloud_init.lower() != expected:
                raise flag_error(
                    flag,
                    f"method param and value passed to --cloud-init have to match: {expected} vs {self.cloud_init}",
                )
            propagation = {"noCloud": {}} if expected == CLOUD_INIT_NOCLOUD else {"configDrive": {}}
        else:
            raise flag_error(
                flag,
                f'invalid access credentials ssh method "{method}", supported values are: ga, nocloud, configdrive',
            )
        return {"sshPublicKey": {"source": {"secret": {"secretName": secret}}, "propagationMethod": propagation}}

    def password_credential(self, params: Mapping[str, str], secret: str) -> dict:
        flag = "access-cred"
        method = params.get("method", "")
        if method and method.lower() != "ga":
            raise flag_error(flag, f'invalid access credentials password method "{method}", supported values are: ga')
        if params.get("user"):
            raise flag_error(flag, "user cannot be specified with selected access credential type and method")
        return {
            "userPassword": {"source": {"secret": {"secretName": secret}}, "propagationMethod": {"qemuGuestAgent": {}}}
        }

    def cloud_init_volume(self) -> None:
        cloud_init_flags = (
            "user",
            "password-file",
            "ssh-key",
            "ga-manage-ssh",
            "cloud-init",
            "cloud-init-user-data",
            "cloud-init-network-data",
        )
        if not any(flag in self.changed for flag in cloud_init_flags):
            return
        if "password-file" in self.changed:
            self.warn("WARNING: --password-file: The password is stored in cleartext in the VM definition!")
        if self.volume(CLOUD_INIT_DISK) is not None:
            raise UsageError(f'there is already a volume with name "{CLOUD_INIT_DISK}"')
        data_source = self.cloud_init.lower()
        if data_source == CLOUD_INIT_NONE:
            ignored = ("password-file", "ssh-key", "ga-manage-ssh", "cloud-init-user-data", "cloud-init-network-data")
            if any(flag in self.changed for flag in ignored):
                self.warn(
                    "WARNING: --cloud-init: was set to none, not creating a data source although other "
                    "cloud-init options were set"
                )
            return
        if data_source not in (CLOUD_INIT_NOCLOUD, CLOUD_INIT_CONFIGDRIVE):
            raise flag_error(
                "cloud-init",
                f'invalid cloud-init data source type "{self.cloud_init}", '
                "supported values are: nocloud, configdrive, none",
            )
        source: dict[str, str] = {}
        if self.options.cloud_init_network_data:
            source["networkDataBase64"] = self.options.cloud_init_network_data
        if self.options.cloud_init_user_data:
            source["userDataBase64"] = self.options.cloud_init_user_data
        else:
            source["userData"] = self.cloud_config()
        header_only = source.get("userData") == CLOUD_CONFIG_HEADER and "networkDataBase64" not in source
        if header_only and "cloud-init" not in self.changed:
            return
        key = "cloudInitNoCloud" if data_source == CLOUD_INIT_NOCLOUD else "cloudInitConfigDrive"
        self.volumes.append({"name": CLOUD_INIT_DISK, key: source})

    def cloud_config(self) -> str:
        options = self.options
        config = CLOUD_CONFIG_HEADER
        if options.user:
            config += f"\nuser: {options.user}"
        if options.password_file:
            try:
                password = self.read_file(options.password_file).strip()
            except OSError as exc:
                raise flag_error("password-file", _go_os_error(options.password_file, exc)) from None
            if password:
                config += f"\npassword: {password}\nchpasswd: {{ expire: False }}"
        if options.ssh_key:
            config += "\nssh_authorized_keys:" + "".join(f"\n  - {key}" for key in options.ssh_key)
        if self.ga_manage_ssh:
            config += "\nruncmd:\n  - [ setsebool, -P, 'virt_qemu_ga_manage_ssh', 'on' ]"
        return config

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
    def matcher_for(volume: str, explicit: bool) -> dict:
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


def _import_source(import_type: str, params: Mapping[str, object]) -> dict:
    """The DataVolume spec (without ``storage``) of one ``--volume-import`` value, after its own checks."""
    flag = "volume-import"

    def optional(*pairs: tuple[str, str]) -> dict:
        return {key: params[param] for key, param in pairs if params.get(param)}

    if import_type == "blank":
        return {"source": {"blank": {}}}
    if import_type in ("gcs", "s3", "http"):
        if not params.get("url"):
            raise flag_error(flag, f"url is required with {import_type} volume source")
        source = {"url": params["url"]}
        source.update(optional(("secretRef", "secretref"), ("certConfigMap", "certconfigmap")))
        for key, param in (("extraHeaders", "extraheaders"), ("secretExtraHeaders", "secretextraheaders")):
            if param in params:
                source[key] = params[param]
        return {"source": {import_type: source}}
    if import_type == "imageio":
        if not params.get("url") or not params.get("diskid"):
            raise flag_error(flag, "url and diskid are both required with imageio volume source")
        source = {"url": params["url"], "diskId": params["diskid"]}
        source.update(optional(("secretRef", "secretref"), ("certConfigMap", "certconfigmap")))
        return {"source": {"imageio": source}}
    if import_type == "registry":
        pull_method = params.get("pullmethod", "")
        if pull_method not in ("", "pod", "node"):
            raise flag_error(flag, "pullmethod must be set to pod or node")
        if bool(params.get("url")) == bool(params.get("imagestream")):
            raise flag_error(flag, "exactly one of url or imagestream must be defined")
        source = optional(
            ("pullMethod", "pullmethod"),
            ("certConfigMap", "certconfigmap"),
            ("imageStream", "imagestream"),
            ("url", "url"),
            ("secretRef", "secretref"),
        )
        return {"source": {"registry": source}}
    if import_type == "vddk":
        for param in ("url", "uuid", "thumbprint", "secretref", "backingfile"):
            if not params.get(param):
                raise flag_error(flag, f"{param} is required with vddk volume source")
        source = optional(
            ("url", "url"),
            ("uuid", "uuid"),
            ("thumbprint", "thumbprint"),
            ("secretRef", "secretref"),
            ("initImageURL", "initimageurl"),
            ("backingFile", "backingfile"),
        )
        return {"source": {"vddk": source}}
    # pvc, snapshot and ds refer to an existing object by [namespace/]name
    source_text = params.get("src", "")
    if source_text == "":
        raise flag_error(flag, "src must be specified")
    try:
        namespace, name = split_prefixed_name(source_text)  # type: ignore[arg-type]
    except ParamError as exc:
        raise flag_error(flag, f"src invalid: {exc}") from None
    if import_type == "ds":
        reference = {"kind": "DataSource", "name": name}
        if namespace:
            reference["namespace"] = namespace
        return {"sourceRef": reference}
    if not namespace:
        raise flag_error(flag, f'namespace of {import_type} "{name}" must be specified')
    return {"source": {import_type: {"name": name, "namespace": namespace}}}


def build_vm(
    options: VMOptions,
    *,
    random_suffix: Callable[[int], str] | None = None,
    read_file: Callable[[str], str] | None = None,
    warn: Callable[[str], None] | None = None,
) -> tuple[dict, list[str]]:
    """The VirtualMachine manifest virtctl v1.8+ prints for ``options``, and its stderr warning lines.

    ``random_suffix(n)`` makes the random parts of generated names (``vm-XXXXX``, ``imported-volume-XXXXX``);
    ``read_file(path)`` reads ``--password-file`` (an :class:`OSError` becomes virtctl's error). ``warn``,
    when given, also receives each warning line as it happens, so that a caller can print the warnings
    virtctl prints before failing. Raises :class:`UsageError` with virtctl's message.
    """
    warnings: list[str] = []

    def record(line: str) -> None:
        warnings.append(line)
        if warn is not None:
            warn(line)

    build = _VMBuild(options, random_suffix or random_string, read_file or _read_text_file, record)
    return build.run(), warnings


def referenced_objects(vm_manifest: Mapping) -> list[tuple[str, str]]:
    """The instance type and preference a VM manifest names, as ``(kind, name)`` pairs, instance type first.

    ``kind`` is KubeVirt's lowercase singular kind; an empty kind is returned as the cluster-scoped kind
    (``virtualmachineclusterinstancetype`` / ``virtualmachineclusterpreference``), which is what KubeVirt
    resolves it to. Plural and CamelCase kinds are normalised the same way. Inference matchers
    (``inferFromVolume``) name no object and are skipped.
    """
    spec = vm_manifest.get("spec") or {}
    found = []
    for key, kinds in (("instancetype", INSTANCETYPE_KINDS), ("preference", PREFERENCE_KINDS)):
        matcher = spec.get(key) or {}
        name = matcher.get("name")
        if not name:
            continue
        kind = normalize_kind(matcher.get("kind") or "", kinds)
        if kind is None:
            kind = matcher["kind"]  # not an instancetype.kubevirt.io kind: passed on for the caller to report
        found.append((kind or kinds[1], name))
    return found
