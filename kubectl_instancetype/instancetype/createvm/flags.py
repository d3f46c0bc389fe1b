"""``create vm``'s flags as virtctl declares them: names, types, defaults, help texts, examples, parameters.

Also :class:`VMOptions`, the parsed values of those flags, which the builder reads.
"""

from __future__ import annotations

from ...records import dataclass, field
from ..params import (
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
    supported,
)

CLOUD_INIT_DISK = "cloudinitdisk"
SYSPREP_DISK = "sysprepdisk"
CLOUD_CONFIG_HEADER = "#cloud-config"
RUN_STRATEGIES = ("Always", "Manual", "Halted", "Once", "RerunOnFailure")
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
