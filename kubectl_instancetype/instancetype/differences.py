"""What ``kubectl instancetype create ...`` deliberately does differently from ``virtctl create ...``.

The one list of deliberate differences; docs/virtctl-differences.md quotes each item (tests/unit/test_docs.py
checks it), and the differential tests keep a row for each that shows
virtctl still behaves otherwise.
"""

from __future__ import annotations

DIFFERENCES_FROM_VIRTCTL: list[str] = [
    "--instancetype and --preference also accept plural kinds (virtualmachineclusterinstancetypes/NAME, "
    "VirtualMachinePreferences/NAME; KubeVirt issue #12596), kubectl's short names (vmcf/NAME, vmf/NAME, "
    "vmcp/NAME, vmp/NAME) and group-qualified kinds, and write the singular lowercase kind virtctl writes.",
    "Values of the deprecated --volume-datasource, --volume-clone-pvc and --volume-blank flags keep the boot order "
    "virtctl documents (DataSource > Clone PVC > Blank > --volume-import, each in command-line order); virtctl "
    "reverses them, which also changes the volume inference picks.",
    "Unknown compound parameters are reported in the order they were written (virtctl: random map order).",
    "The '--cloud-init: was set to none' warning ends with a newline (virtctl's runs into the next output).",
    "The help examples are valid commands (several of virtctl's are not).",
    "Quantities with a decimal exponent beyond +-1000 (1e-2147483648) are refused as having a bad suffix, "
    "and quantities with more than 1000 digits as too long; virtctl accepts them and then computes for minutes.",
    "create vm and create instancetype refuse a negative --memory (virtctl writes it into the manifest).",
    "create vm refuses --cloud-init-user-data and --cloud-init-network-data that are not valid base64, with the "
    "message of KubeVirt's admission webhook, before anything is sent (virtctl writes them into the manifest).",
    "create instancetype reports the error of the first invalid flag in the order --gpu, --hostdevice, "
    "--iothreadspolicy (virtctl: random map order).",
]
