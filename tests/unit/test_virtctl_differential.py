"""Differential tests: our ``create`` builders, YAML printer and quantity parser against KubeVirt's own Go code.

The reference binaries come from ``hack/virtctl/build.sh`` (virtctl of KubeVirt v1.8.0, whose ``create``
code equals v1.9.0's, and ``goref``, which prints ``sigs.k8s.io/yaml`` and ``resource.Quantity`` results).
They are looked up in the build cache; ``make test`` builds them first (``make tools``: only what is missing,
about 3 minutes cold), and with ``KUBECTL_INSTANCETYPE_BUILD_VIRTCTL=1`` this module runs the script itself
(for pytest run directly). Without Go the tests skip.

For every row both sides get the same flags: a success must give the same YAML (generated names mapped to
the fixed test suffixes) and the same stderr warnings, a failure the same error text (virtctl prints it as
the last stderr line). Rows for our deliberate differences check that virtctl still differs.
"""

from __future__ import annotations

import json
import re
import subprocess

import pytest
import yaml

from kubectl_instancetype.golang import goyaml
from kubectl_instancetype.golang.quantity import QuantityError, canonical_quantity
from kubectl_instancetype.instancetype.createtypes import INSTANCETYPE_FLAGS, PREFERENCE_FLAGS
from kubectl_instancetype.instancetype.createvm import VM_FLAGS
from tests.conftest import (
    assert_same_as_virtctl,
    create_through_cli,
    run_cli,
    run_goref,
    run_virtctl,
    virtctl_answers,
)

pytestmark = pytest.mark.differential

VM_ROWS: list[list[str]] = [
    [],
    ["--name", "my-vm"],
    ["--name", "my-vm", "-n", "my-ns"],
    ["--run-strategy", "manual"],
    ["--run-strategy", "HALTED"],
    ["--run-strategy", "rerunonfailure"],
    ["--run-strategy", "Once"],
    ["--run-strategy", "WaitAsReceiver"],
    ["--run-strategy", ""],
    ["--termination-grace-period", "0"],
    ["--termination-grace-period", "-5"],
    ["--termination-grace-period", "0x10"],
    ["--termination-grace-period", "1_000"],
    ["--termination-grace-period", "abc"],
    ["--termination-grace-period", "99999999999999999999"],
    ["--termination-grace-period", "４"],
    ["--termination-grace-period", "1\u0663"],
    ["--memory", "1Gi"],
    ["--memory", "1024Mi"],
    ["--memory", "1.5Gi"],
    ["--memory", "2G"],
    ["--memory", "1000M"],
    ["--memory", "+1Gi"],
    ["--memory", "1."],
    ["--memory", "0.5"],
    ["--memory", "1GG"],
    ["--memory", "abc"],
    ["--memory", ""],
    ["--memory", " 1Gi"],
    ["--instancetype", "u1.medium"],
    ["--instancetype", "virtualmachineinstancetype/my-it"],
    ["--instancetype", "VirtualMachineClusterInstancetype/u1.large"],
    ["--instancetype", "a/b/c"],
    ["--instancetype", "virtualmachineinstancetype/"],
    ["--instancetype", ""],
    ["--instancetype", "bad/x"],
    ["--instancetype", "virtualmachinepreference/x"],
    ["--preference", "fedora"],
    ["--preference", "virtualmachinepreference/p"],
    ["--preference", "VIRTUALMACHINECLUSTERPREFERENCE/p"],
    ["--preference", "Wrong/p"],
    ["--preference", "/"],
    [
        "--name",
        "my-vm",
        "--instancetype",
        "u1.medium",
        "--preference",
        "fedora",
        "--volume-containerdisk",
        "src:quay.io/containerdisks/fedora:41",
    ],
    ["--name", "vm1", "--volume-containerdisk", "src:a:1", "--volume-containerdisk", "name:second,src:b,bootorder:1"],
    ["--volume-containerdisk", "src:img"],
    ["--volume-containerdisk", ""],
    ["--volume-containerdisk", "name:x"],
    ["--volume-containerdisk", "src"],
    ["--volume-containerdisk", "src:a,foo:bar"],
    ["--volume-containerdisk", "src:a,bootorder:-1"],
    ["--volume-containerdisk", "src:a,bootorder:0"],
    ["--volume-containerdisk", "src:a,bootorder:abc"],
    ["--volume-containerdisk", "src:a,bootorder:4294967296"],
    ["--volume-containerdisk", "src:a,bootorder:"],
    ["--volume-containerdisk", "src:a,name:my.disk"],
    ["--volume-containerdisk", "src:a,name:" + "a" * 64],
    ["--volume-containerdisk", "src:a,name:" + "a.b" * 30],
    ["--volume-containerdisk", "src:a,name:Upper"],
    ["--volume-containerdisk", "src:a,name:-x"],
    ["--volume-containerdisk", "src:a,name:d", "--volume-containerdisk", "src:b,name:d"],
    ["--volume-containerdisk", "src:a,bootorder:1", "--volume-pvc", "src:p,bootorder:1"],
    [
        "--name",
        "a-very-long-vm-name-that-makes-the-containerdisk-name-too-long-for-dns",
        "--volume-containerdisk",
        "src:a",
    ],
    ["--name", "vm1", "--volume-containerdisk", "src:a,name:c1", "--volume-containerdisk", "src:b,name:c2,x:y"],
    ["--volume-pvc", "src:my-pvc"],
    ["--volume-pvc", "name:root,src:my-pvc,bootorder:2"],
    ["--volume-pvc", "src:my.pvc"],
    ["--volume-pvc", "src:my.pvc,name:ok"],
    ["--volume-pvc", "src:ns/p"],
    ["--volume-pvc", "src:a/b/c"],
    ["--volume-pvc", "src:/p"],
    ["--volume-pvc", "src:p,type:x"],
    ["--volume-pvc", "name:UPPER,src:p"],
    ["--volume-pvc", "src:"],
    ["--volume-pvc", "src:p", "--volume-containerdisk", "src:c,name:p"],
    ["--name", "v", "--volume-import", "type:blank,size:10Gi"],
    ["--name", "v", "--volume-import", "type:blank,size:10Gi,name:data,bootorder:3"],
    ["--volume-import", "type:gcs,url:gs://bucket/disk.img,size:1Gi,secretref:gcs-secret,name:g"],
    [
        "--volume-import",
        "type:http,url:http://example.com/disk.img,size:1Gi,certconfigmap:cm,secretref:s,"
        "extraheaders:X-A: 1;X-B: 2,secretextraheaders:sec1,name:h",
    ],
    ["--volume-import", "type:http,url:http://example.com/disk.img,size:1Gi,extraheaders:,name:h"],
    ["--volume-import", "type:imageio,url:https://ovirt/api,diskid:1234,size:5Gi,secretref:s,certconfigmap:c,name:i"],
    ["--volume-import", "type:pvc,src:ns/pvc,name:p"],
    ["--volume-import", "type:pvc,src:ns/pvc,size:2Gi,name:p"],
    [
        "--volume-import",
        "type:registry,url:docker://quay.io/x:1,size:1Gi,pullmethod:node,secretref:s,certconfigmap:c,name:r",
    ],
    ["--volume-import", "type:registry,imagestream:is,size:1Gi,name:r"],
    ["--volume-import", "type:s3,url:s3://bucket/o,size:1Gi,secretref:s,certconfigmap:c,name:s"],
    [
        "--volume-import",
        "type:vddk,url:https://vcenter,uuid:u-1,thumbprint:aa:bb,secretref:s,"
        "backingfile:[ds] vm/disk.vmdk,initimageurl:quay.io/vddk:1,size:1Gi,name:v",
    ],
    ["--volume-import", "type:snapshot,src:ns/snap,name:s"],
    ["--volume-import", "type:ds,src:fedora,name:d"],
    ["--volume-import", "type:ds,src:os-images/fedora,size:30Gi,name:rootdisk"],
    ["--name", "v", "--volume-import", "type:ds,src:a", "--volume-import", "type:pvc,src:n/b,bootorder:1"],
    ["--volume-import", "size:1Gi"],
    ["--volume-import", "type:foo"],
    ["--volume-import", "type:"],
    ["--volume-import", "type:blank"],
    ["--volume-import", "type:blank,size:1GG"],
    ["--volume-import", "type:blank,size:"],
    ["--volume-import", "type:gcs,size:1Gi"],
    ["--volume-import", "type:http,size:1Gi"],
    ["--volume-import", "type:imageio,url:x,size:1Gi"],
    ["--volume-import", "type:pvc,src:p"],
    ["--volume-import", "type:pvc"],
    ["--volume-import", "type:pvc,src:/p"],
    ["--volume-import", "type:registry,size:1Gi"],
    ["--volume-import", "type:registry,url:a,imagestream:b,size:1Gi"],
    ["--volume-import", "type:registry,url:a,pullmethod:x,size:1Gi"],
    ["--volume-import", "type:s3,size:1Gi"],
    ["--volume-import", "type:vddk,size:1Gi"],
    ["--volume-import", "type:vddk,url:a,size:1Gi"],
    ["--volume-import", "type:vddk,url:a,uuid:b,size:1Gi"],
    ["--volume-import", "type:vddk,url:a,uuid:b,thumbprint:c,size:1Gi"],
    ["--volume-import", "type:vddk,url:a,uuid:b,thumbprint:c,secretref:d,size:1Gi"],
    ["--volume-import", "type:snapshot,src:s"],
    ["--volume-import", "type:ds,src:a/b/c"],
    ["--volume-import", "type:ds"],
    ["--volume-import", "type:ds,src:d,name:Bad"],
    ["--volume-import", "type:ds,src:d,name:"],
    ["--volume-import", "type:blank,size:1Gi,foo:bar"],
    ["--volume-import", "type:blank,size:1Gi,name:x", "--volume-pvc", "src:x"],
    ["--volume-pvc", "src:x", "--volume-import", "type:blank,size:1Gi,name:x"],
    [
        "--volume-import",
        "type:blank,size:1Gi,bootorder:2,name:a",
        "--volume-import",
        "type:blank,size:1Gi,bootorder:2,name:b",
    ],
    ["--volume-import", "type:blank,size:1Gi,size:2Gi,name:twice"],
    ["--volume-import", "type:blank,size:1.5Gi,name:x,type:gcs"],
    ["--volume-import", "type;blank"],
    ["--volume-import", ""],
    ["--volume-datasource", "src:ns/ds,size:1Gi,name:ds"],
    ["--volume-clone-pvc", "src:ns/p,name:c"],
    ["--volume-blank", "size:1Gi,name:b"],
    ["--volume-blank", "size:1Gi"],
    ["--volume-datasource", ""],
    ["--volume-blank", "name:x"],
    ["--volume-clone-pvc", "src:p"],
    ["--volume-datasource", "src:d,name:d", "--volume-import", "type:blank,size:1Gi,name:b"],
    ["--volume-sysprep", "src:cm"],
    ["--volume-sysprep", "src:sec,type:Secret"],
    ["--volume-sysprep", ""],
    ["--volume-sysprep", "type:secret"],
    ["--volume-sysprep", "src:ns/cm"],
    ["--volume-sysprep", "src:cm,type:bad"],
    ["--volume-sysprep", "src:/cm"],
    ["--volume-sysprep", "src:cm", "--volume-containerdisk", "src:a,name:sysprepdisk"],
    ["--volume-sysprep", "src:cm", "--volume-pvc", "src:p"],
    ["--user", "fedora"],
    ["--user", "fedora", "--ssh-key", "ssh-ed25519 AAAA k1", "--ssh-key", "k2,k3"],
    ["--user", "fedora", "--password-file", "{dir}/password"],
    ["--password-file", "{dir}/empty-password"],
    ["--password-file", "{dir}/missing"],
    ["--password-file", ""],
    ["--ga-manage-ssh"],
    ["--ga-manage-ssh=false"],
    ["--ssh-key", ""],
    ["--ssh-key", '"a,b",c'],
    ["--ssh-key", 'a"b'],
    ["--ssh-key", '"a"b'],
    ["--ssh-key", 'x,"a"b'],
    ["--ssh-key", 'é"b'],
    ["--ssh-key", '"a\nb"c'],
    ["--ssh-key", "\n"],
    ["--ssh-key", 'x\n"'],
    ["--ssh-key", '"k""q"'],
    ["--cloud-init", "configdrive", "--user", "u"],
    ["--cloud-init", "ConfigDrive"],
    ["--cloud-init", "nocloud"],
    ["--cloud-init", "NoCloud", "--user", "u"],
    ["--cloud-init", "none", "--user", "u"],
    ["--cloud-init", "none", "--ga-manage-ssh"],
    ["--cloud-init", "none", "--password-file", "{dir}/missing"],
    ["--cloud-init", "bad"],
    ["--cloud-init", ""],
    ["--cloud-init-user-data", "I2Nsb3VkLWNvbmZpZw==", "--cloud-init-network-data", "bmV0d29yaw=="],
    ["--cloud-init-network-data", "bmV0d29yaw=="],
    ["--cloud-init-user-data", ""],
    ["--cloud-init", "configdrive", "--cloud-init-user-data", "dXNlcg=="],
    ["--user", "u", "--volume-containerdisk", "src:a,name:cloudinitdisk"],
    ["--access-cred", "type:ssh,src:keys,user:fedora"],
    ["--user", "u", "--access-cred", "src:keys"],
    ["--access-cred", "src:keys,method:nocloud"],
    ["--access-cred", "src:keys,method:ConfigDrive"],
    ["--access-cred", "type:password,src:pws"],
    ["--access-cred", "type:Password,src:pws,method:GA"],
    ["--user", "u", "--access-cred", "src:k1", "--access-cred", "type:password,src:p1"],
    ["--user", "u", "--ga-manage-ssh=false", "--access-cred", "src:k1"],
    ["--cloud-init-user-data", "dXNlcg==", "--access-cred", "src:k1,user:u"],
    ["--access-cred", "src:keys,method:nocloud", "--cloud-init", "configdrive"],
    ["--access-cred", "src:k1,method:nocloud", "--access-cred", "src:k2,method:configdrive"],
    ["--access-cred", "src:keys,method:nocloud", "--cloud-init", "none"],
    ["--access-cred", "user:u"],
    ["--access-cred", "src:ns/s,user:u"],
    ["--access-cred", "src:s,type:bad"],
    ["--access-cred", "src:s,method:bad"],
    ["--access-cred", "src:s"],
    ["--access-cred", "src:s,method:nocloud,user:u"],
    ["--access-cred", "type:password,src:s,user:u"],
    ["--access-cred", "type:password,src:s,method:nocloud"],
    ["--access-cred", "src:/s,user:u"],
    ["--name", "v", "--volume-pvc", "src:root", "--infer-instancetype"],
    ["--name", "v", "--volume-pvc", "src:root", "--infer-preference"],
    [
        "--name",
        "v",
        "--volume-pvc",
        "src:root",
        "--volume-pvc",
        "src:other",
        "--infer-instancetype-from",
        "other",
        "--infer-preference-from",
        "root",
    ],
    ["--name", "v", "--volume-pvc", "src:a", "--volume-pvc", "src:b,bootorder:1"],
    ["--name", "v", "--volume-import", "type:registry,url:docker://x,size:1Gi,name:r"],
    ["--name", "v", "--volume-import", "type:blank,size:1Gi,name:b"],
    ["--name", "v", "--volume-import", "type:blank,size:1Gi,name:b", "--infer-instancetype"],
    ["--name", "v", "--volume-import", "type:http,url:u,size:1Gi,name:h", "--infer-preference"],
    ["--name", "v", "--volume-containerdisk", "src:c", "--volume-pvc", "src:p"],
    ["--name", "v", "--volume-containerdisk", "src:c", "--infer-preference"],
    ["--name", "v", "--volume-pvc", "src:p", "--infer-instancetype=false", "--infer-preference=false"],
    ["--name", "v", "--volume-pvc", "src:p", "--memory", "1Gi"],
    ["--name", "v", "--volume-pvc", "src:p", "--instancetype", "u1.small"],
    ["--name", "v", "--infer-instancetype"],
    ["--name", "v", "--infer-preference-from", "nope"],
    ["--name", "v", "--volume-pvc", "src:p", "--infer-instancetype-from", "nope"],
    ["--name", "v", "--user", "u", "--infer-preference"],
    ["--name", "v", "--volume-sysprep", "src:cm"],
    ["--memory", "1Gi", "--instancetype", "x"],
    ["--infer-instancetype=false", "--memory", "1Gi"],
    ["--preference", "p", "--infer-preference-from", "v"],
    ["--cloud-init-user-data", "eA==", "--user", "u"],
    ["--cloud-init-user-data", "eA==", "--ssh-key", "k", "--ga-manage-ssh", "--memory", "1Gi", "--instancetype", "x"],
    ["--cloud-init-user-data", "eA==", "--password-file", "{dir}/password"],
    ["--memory", "1GG", "--instancetype", "x", "--preference", "p"],
]

INSTANCETYPE_ROWS: list[list[str]] = [
    ["--cpu", "４", "--memory", "1Gi"],
    ["--cpu", "\u0664", "--memory", "1Gi"],
    ["--cpu", "2", "--memory", "256Mi"],
    ["--cpu", "2", "--memory", "256Mi", "--name", "my-it"],
    ["--cpu", "2", "--memory", "1024Mi", "--namespaced"],
    ["--cpu", "2", "--memory", "1Gi", "-n", "ns"],
    ["--cpu", "0x4", "--memory", "1.5Gi", "--name", ""],
    [
        "--cpu",
        "1",
        "--memory",
        "1Gi",
        "--gpu",
        "name:gpu1,devicename:nvidia.com/GP102GL",
        "--gpu",
        "name:gpu2,devicename:nvidia.com/x",
    ],
    ["--cpu", "1", "--memory", "1Gi", "--hostdevice", "name:hd,devicename:vendor.com/dev"],
    ["--cpu", "1", "--memory", "1Gi", "--iothreadspolicy", "auto"],
    ["--cpu", "1", "--memory", "1Gi", "--iothreadspolicy", "shared", "--namespaced=false"],
    [],
    ["--cpu", "2"],
    ["--memory", "1Gi"],
    ["--cpu", "0", "--memory", "1Gi"],
    ["--cpu", "-2", "--memory", "1Gi"],
    ["--cpu", "abc", "--memory", "1Gi"],
    ["--cpu", "4294967296", "--memory", "1Gi"],
    ["--cpu", "1", "--memory", "1GG"],
    ["--cpu", "1", "--memory", ""],
    ["--cpu", "0", "--memory", "bad"],
    ["--cpu", "1", "--memory", "1Gi", "--gpu", "name:x"],
    ["--cpu", "1", "--memory", "1Gi", "--gpu", "devicename:x"],
    ["--cpu", "1", "--memory", "1Gi", "--gpu", ""],
    ["--cpu", "1", "--memory", "1Gi", "--gpu", "name:a,devicename:b,x:y"],
    ["--cpu", "1", "--memory", "1Gi", "--hostdevice", "name:x"],
    ["--cpu", "1", "--memory", "1Gi", "--iothreadspolicy", "Auto"],
    ["--cpu", "1", "--memory", "1Gi", "--iothreadspolicy", ""],
]

PREFERENCE_ROWS: list[list[str]] = [
    [],
    ["--namespaced"],
    ["-n", "ns"],
    ["--name", "p"],
    ["--name", ""],
    ["--volume-storage-class", "fast"],
    ["--volume-storage-class", ""],
    ["--machine-type", "pc-q35-rhel9.4.0"],
    ["--machine-type", ""],
    *[
        ["--cpu-topology", value]
        for value in (
            "sockets",
            "cores",
            "threads",
            "spread",
            "any",
            "preferSockets",
            "preferCores",
            "preferThreads",
            "preferSpread",
            "preferAny",
        )
    ],
    [
        "--name",
        "p",
        "--namespaced",
        "--volume-storage-class",
        "sc",
        "--machine-type",
        "q35",
        "--cpu-topology",
        "spread",
    ],
    ["--cpu-topology", "bad"],
    ["--cpu-topology", "Sockets"],
    ["--cpu-topology", ""],
]


ROWS = (
    [("vm", row) for row in VM_ROWS]
    + [("instancetype", row) for row in INSTANCETYPE_ROWS]
    + [("preference", row) for row in PREFERENCE_ROWS]
)


@pytest.fixture(scope="module")
def virtctl_results(binaries, virtctl_workdir):
    """virtctl's answer for every row, computed up front on a few threads (each run is a fresh process)."""
    return virtctl_answers(binaries, virtctl_workdir, ROWS)


@pytest.mark.parametrize(("command", "argv"), ROWS, ids=[f"{c}:{' '.join(a)}"[:120] for c, a in ROWS])
def test_same_as_virtctl(virtctl_results, virtctl_workdir, command, argv):
    assert_same_as_virtctl(virtctl_results, virtctl_workdir, command, argv)


@pytest.mark.parametrize(
    ("command", "argv"),
    [
        ("vm", ["--name", "v", "--instancetype", "virtualmachineclusterinstancetypes/u1.small"]),
        ("vm", ["--name", "v", "--preference", "VirtualMachinePreferences/fedora"]),
    ],
)
def test_plural_kinds_are_our_extension(binaries, virtctl_workdir, command, argv):
    code, _, stderr = run_virtctl(binaries, virtctl_workdir, command, argv)
    text, error, _ = create_through_cli(command, argv)
    assert code == 1 and "invalid" in stderr[-1]
    assert error is None and "kind: virtualmachine" in text


def test_deprecated_aliases_keep_documented_order(binaries, virtctl_workdir):
    argv = [
        "--name",
        "v",
        "--volume-blank",
        "size:1Gi,name:b1",
        "--volume-blank",
        "size:1Gi,name:b2",
        "--volume-datasource",
        "src:d,name:d1",
    ]
    code, stdout, _ = run_virtctl(binaries, virtctl_workdir, "vm", argv)
    text, _, _ = create_through_cli("vm", argv)

    def volume_names(yaml_text: str) -> list[str]:
        return [v["name"] for v in yaml.safe_load(yaml_text)["spec"]["template"]["spec"]["volumes"]]

    assert code == 0
    assert volume_names(text) == ["d1", "b1", "b2"]
    assert volume_names(stdout) == ["b2", "b1", "d1"]


def test_goyaml_matches_sigs_k8s_yaml(binaries):
    import random
    import string

    documents: list = [
        {"k": value}
        for value in (
            "true",
            "y",
            "no",
            "~",
            "null",
            "",
            "1",
            "-1",
            "0x1f",
            "0o17",
            "0b101",
            "1_000",
            "1e3",
            "1e400",
            ".5",
            ".inf",
            "2001-12-14",
            "2001-13-14",
            "2001-12-14T21:59:43.10Z",
            "2001-12-14 21:59:43.10",
            "1:20",
            "190:20:30.15",
            "a: b",
            "a #b",
            "#a",
            "- x",
            "-",
            "---",
            "*a",
            "&a",
            "!a",
            "@a",
            "`a",
            "%a",
            "'a",
            '"a',
            "a'b",
            " a",
            "a ",
            "\t",
            "é",
            "日本語",
            "ml\nline",
            "trail\n",
            "trail\n\n",
            " lead\nx",
            "x \ny",
            "\n",
            "word " * 30,
            "x" * 100,
            "#cloud-config\nuser: u\nruncmd:\n  - [ setsebool, -P, 'x', 'on' ]",
        )
    ]
    documents.append(
        {
            "b10": 1,
            "b9": 2,
            "B": 3,
            "_x": 4,
            "a1": 5,
            "a01": 6,
            "a10b": 7,
            "a2b": 8,
            "1": 9,
            "10": 10,
            "2": 11,
            "-": 12,
            "é": 13,
            "0": 14,
            "00": 15,
            "0a": 16,
        }
    )
    documents.append(
        {
            "nested": [[], {}, [1, [2, {"a": []}]], {"x": {"y": [{"z": "w\nv"}]}}],
            "f": 1.5,
            "t": True,
            "n": None,
            "big": 12345678901234567890,
        }
    )
    rng = random.Random(20240822)
    alphabet = string.ascii_letters + string.digits + " :#-_.,'\"!?*&[]{}|>%@`\n\t~=+/\\"
    documents += [{"r": "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12)))} for _ in range(400)]
    result = subprocess.run(
        [str(binaries / "goref"), "yaml"],
        input=json.dumps(documents),
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    expected = result.stdout.split("\0")[:-1]
    mismatches = [(doc, want, goyaml.dump(doc)) for doc, want in zip(documents, expected) if goyaml.dump(doc) != want]
    assert mismatches == []


def test_canonical_quantity_matches_apimachinery(binaries):
    import random

    texts = [
        "512Mi",
        "1024Mi",
        "1.5Gi",
        "0.5Gi",
        "1.5",
        "100Mi",
        "1000M",
        "1e3",
        "2e4",
        "+1Gi",
        "1.",
        "-",
        ".5",
        "0",
        "00",
        "0.5Ki",
        "1000E",
        "1e100",
        "1Gb",
        "1GG",
        "1e",
        "1e+",
        " 1Gi",
        "",
        "2048",
        "1000",
        "0.0000000001",
        "12345678901234567890",
        "1.5Ki",
        "-1.5",
        "1.25m",
        "0.0000000015",
        "2.5e-3",
        "1e-10",
        "9223372036854775807Ki",
        "1.5Ei",
        "10Ei",
        "+",
        "1E",
        "1ee",
        "1Ki5",
        "1.2.3",
        ".",
        "-.5Ki",
        "1e1000",
    ]
    rng = random.Random(5)
    for _ in range(300):
        texts.append(
            rng.choice(["", "-", "+"])
            + rng.choice(["1", "12", "1.5", "0.25", "1024", "7.", "0.001", "000"])
            + rng.choice(["", "Ki", "Mi", "Gi", "m", "k", "M", "e3", "e-2", "E", "n", "Pi", "Ei", "e-12"])
        )
    result = subprocess.run(
        [str(binaries / "goref"), "quantity"],
        input=json.dumps(texts),
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )

    def mine(text: str) -> dict:
        try:
            return {"value": canonical_quantity(text), "error": None}
        except QuantityError as exc:
            return {"value": None, "error": str(exc)}

    mismatches = [(t, want, mine(t)) for t, want in zip(texts, json.loads(result.stdout)) if mine(t) != want]
    assert mismatches == []


def test_quantity_values_and_formats_match_apimachinery(binaries):
    """parse(): the value Go holds (AsDec) and the format it keeps, beyond the printed string."""
    import random
    from fractions import Fraction

    from kubectl_instancetype.golang.quantity import parse

    rng = random.Random(11)
    texts = ["1.5Gi", "0.5Ki", "-.5Ki", "1e-10", "0.0000000015", "-0.0000000015", "99999999999999999999Ki", "1000E"]
    for _ in range(400):
        number = rng.choice(["", "-", "+"]) + "".join(rng.choice("0123456789") for _ in range(rng.randint(0, 22)))
        if rng.random() < 0.5:
            number += "." + "".join(rng.choice("0123456789") for _ in range(rng.randint(0, 12)))
        suffix = rng.choice(["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei", "n", "u", "m", "k", "M", "G", "T", "P", "E"])
        texts.append(number + (suffix if rng.random() < 0.8 else f"e{rng.randint(-30, 30)}"))
    mismatches = []
    for text, want in zip(texts, run_goref(binaries, "quantity-detail", texts)):
        try:
            got = parse(text)
        except QuantityError as exc:
            mine = {"error": str(exc)}
            theirs = {"error": want["error"]}
        else:
            mine = {"value": str(got), "format": got.format, "exact": got.value}
            theirs = {"error": want["error"]}
            if want["error"] is None:
                theirs = {"value": want["value"], "format": want["format"], "exact": Fraction(want["exact"])}
        if mine != theirs:
            mismatches.append((text, theirs, mine))
    assert mismatches == []


def test_format_quantity_matches_new_quantity(binaries):
    """format_quantity(v, fmt) == resource.NewQuantity(v, fmt).String() (overcommit requests, copied sizes)."""
    import random

    from kubectl_instancetype.golang.quantity import FORMATS, format_quantity

    rng = random.Random(3)
    cases = [{"value": v, "format": f} for v in (0, 1, 1023, 1024, 966367616, 7730940928, 900000000) for f in FORMATS]
    for _ in range(300):
        value = rng.choice([rng.randint(-(2**63), 2**63 - 1), rng.randint(0, 5000) * 1024 ** rng.randint(0, 5)])
        value = max(-(2**63), min(2**63 - 1, value * rng.choice([1, 1000, 10**6])))
        cases.append({"value": value, "format": rng.choice(FORMATS)})
    expected = run_goref(binaries, "quantity-format", cases)
    mismatches = [
        (case, want, format_quantity(case["value"], case["format"]))
        for case, want in zip(cases, expected)
        if format_quantity(case["value"], case["format"]) != want
    ]
    assert mismatches == []


def virtctl_flag_help(help_text: str) -> dict[str, tuple[str, str]]:
    """{flag: (type word, help text with its default suffix)} from the ``Flags:`` block of virtctl's help."""
    lines = help_text.split("Flags:\n", 1)[1].split("\n\n", 1)[0].splitlines()
    column = re.match(r"\s+(?:-\w, )?--[\w-]+(?: \w+)?\s+", lines[0]).end()
    flags: dict[str, tuple[str, str]] = {}
    name = ""
    for line in lines:
        head, text = line[:column].strip(), line[column:]
        if head:
            words = head.split(", ")[-1].split()
            name = words[0].removeprefix("--")
            flags[name] = (words[1] if len(words) > 1 else "", text)
        else:  # a continuation line of a multi-line help text
            flags[name] = (flags[name][0], flags[name][1] + "\n" + text)
    flags.pop("help", None)
    return flags


@pytest.mark.parametrize(
    ("command", "specs"), [("vm", VM_FLAGS), ("instancetype", INSTANCETYPE_FLAGS), ("preference", PREFERENCE_FLAGS)]
)
def test_flag_tables_match_virtctl_help(binaries, virtctl_workdir, command, specs):
    code, stdout, _ = run_virtctl(binaries, virtctl_workdir, command, ["--help"])
    assert code == 0
    virtctl = virtctl_flag_help(stdout)
    ours = {spec.name: (spec.value_name, " ".join(filter(None, [spec.help, spec.default_text]))) for spec in specs}
    assert ours == virtctl


def _random_texts(seed: int, alphabet: str, count: int, longest: int) -> list[str]:
    import random

    rng = random.Random(seed)
    return ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, longest))) for _ in range(count)]


def test_go_strconv_matches_go(binaries):
    from kubectl_instancetype.golang.strconv import GoNumError, go_parse_bool, go_parse_int, go_parse_uint

    texts = ["", "0", "-0", "+1", "0x1F", "0b101", "0o17", "017", "1_000", "0x_1", "1__0", "_1", "４", "\u212a"]
    texts += ["18446744073709551615", "18446744073709551616", "9223372036854775808", "-9223372036854775808"]
    texts += _random_texts(8, "0123456789_+-xXbBoOaAfFzZ \u00e9\u212a４\n", 500, 12)
    cases = []
    for text in texts:
        cases += [
            {"func": "ParseUint", "text": text, "base": 0, "bits": 32},
            {"func": "ParseUint", "text": text, "base": 10, "bits": 32},
            {"func": "ParseInt", "text": text, "base": 0, "bits": 64},
            {"func": "ParseInt", "text": text, "base": 10, "bits": 64},
            {"func": "ParseBool", "text": text, "base": 0, "bits": 0},
        ]

    def mine(case: dict) -> dict:
        try:
            if case["func"] == "ParseBool":
                return {"value": str(go_parse_bool(case["text"])).lower(), "error": None}
            parse = go_parse_uint if case["func"] == "ParseUint" else go_parse_int
            return {"value": str(parse(case["text"], base=case["base"], bits=case["bits"])), "error": None}
        except GoNumError as exc:
            return {"value": None, "error": str(exc)}

    mismatches = [
        (c, want, mine(c)) for c, want in zip(cases, run_goref(binaries, "strconv", cases)) if mine(c) != want
    ]
    assert mismatches == []


def test_go_csv_record_matches_pflag(binaries):
    from kubectl_instancetype.golang.encoding_csv import CSVError, go_read_csv_record

    texts = ["a,b", '"a,b",c', '"a""b"', 'a"b', '"a', '"a"b', "\n\na", "a\r\nb", "a\r", "\r", '"\r\n"', ",", 'é,"x']
    texts += _random_texts(9, 'ab,"\n\r é', 800, 10)

    def mine(text: str) -> dict:
        try:
            return {"fields": go_read_csv_record(text), "error": None}
        except CSVError as exc:
            return {"fields": None, "error": str(exc)}

    mismatches = [(t, want, mine(t)) for t, want in zip(texts, run_goref(binaries, "csv", texts)) if mine(t) != want]
    assert mismatches == []


def test_go_duration_and_request_timeout_match_go(binaries):
    from kubectl_instancetype.golang.duration import DurationError, parse_duration, parse_timeout

    texts = ["", "0", "-0", "+0", "1s", "-1s", "1.5h", ".5s", "1.s", ".s", "1", "30", "+5", "-5", "1d", "1µs", "1μs"]
    texts += ["2562047h47m16.854775807s", "2562047h47m16.854775808s", "-2562047h47m16.854775808s", "9223372036s"]
    texts += ["0.000000000000000000001s", "1.00000000000000000000000000001h", "9223372036854775807", "1h\x01", 'a"']
    texts += _random_texts(10, "0123456789.+-hmsnuµ \tx", 800, 9)

    def mine(text: str) -> dict:
        result: dict = {}
        try:
            result |= {"value": str(parse_duration(text)), "error": None}
        except DurationError as exc:
            result |= {"value": None, "error": str(exc)}
        try:
            timeout = parse_timeout(text)
            # Go wraps around past int64 nanoseconds; we keep the true value (and refuse it later)
            result |= {"timeout": str((timeout + 2**63) % 2**64 - 2**63), "timeout_error": None}
        except DurationError as exc:
            result |= {"timeout": None, "timeout_error": str(exc)}
        return result

    mismatches = [
        (t, want, mine(t)) for t, want in zip(texts, run_goref(binaries, "duration", texts)) if mine(t) != want
    ]
    assert mismatches == []


def test_tabwriter_matches_go(binaries):
    from kubectl_instancetype.golang.tabwriter import render_table, tabwriter

    texts = ["", "a", "a\tb", "a\tb\n", "NAME\tCPU\nu1.medium\t1\n", "a\tb\nc\n\td\te\n", "\t\t\n", "é\tx\n"]
    texts += _random_texts(12, "ab\t\n\v\f é", 600, 24)
    result = subprocess.run(
        [str(binaries / "goref"), "tabwriter"],
        input=json.dumps(texts).encode(),
        capture_output=True,
        check=True,
        timeout=60,
    )
    expected = [item.decode() for item in result.stdout.split(b"\0")[:-1]]
    mismatches = [(t, want, tabwriter(t)) for t, want in zip(texts, expected) if tabwriter(t) != want]
    assert mismatches == []
    # the column-wise fast path of render_table gives what Go gives for kubectl's own tables
    import random

    rng = random.Random(13)
    for _ in range(100):
        width = rng.randint(1, 6)
        rows = [[rng.choice(["", "a", "bb", "u1.medium", "é", "cluster"]) for _ in range(width)] for _ in range(4)]
        text = "".join("\t".join(row) + "\n" for row in rows)
        assert render_table(rows) == tabwriter(text)


def test_base64_acceptance_matches_go(binaries):
    from kubectl_instancetype.golang.encoding_base64 import std_decodes

    texts = [
        "",
        "eA==",
        "eA=",
        "eA",
        "eA==\n",
        "e\r\nA==",
        "eA==eA==",
        "eB==",
        "eA=\n=",
        "====",
        "e===",
        "eAA=",
        " eA==",
    ]
    texts += _random_texts(14, "eAB+/=\n\r -_é", 800, 10)
    answers = run_goref(binaries, "base64", texts)
    mismatches = [(t, want) for t, want in zip(texts, answers) if std_decodes(t) != (want["error"] is None)]
    assert mismatches == []


@pytest.mark.parametrize("command", ["vm", "instancetype", "preference"])
def test_create_help_reads_as_virtctls(binaries, virtctl_workdir, command) -> None:
    code, stdout, _ = run_virtctl(binaries, virtctl_workdir, command, ["--help"])
    assert code == 0
    virtctl = virtctl_flag_help(stdout)
    ours = virtctl_flag_help(run_cli(["create", command, "--help"]).stdout)
    assert {name: ours[name] for name in virtctl} == virtctl
