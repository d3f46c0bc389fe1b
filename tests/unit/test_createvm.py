"""``build_vm``: whole manifests, exact error texts and warnings for every rule of virtctl's ``create vm``."""

from __future__ import annotations

from dataclasses import fields

import pytest

from kubectl_instancetype.errors import UsageError
from kubectl_instancetype.instancetype.createvm import (
    DIFFERENCES_FROM_VIRTCTL,
    EXAMPLES,
    VM_FLAGS,
    VM_FLAGS_BY_NAME,
    VM_MUTUALLY_EXCLUSIVE_GROUPS,
    VMOptions,
    build_vm,
    dns1123_label_errors,
    matcher_references,
)
from tests.conftest import (
    VIRTCTL_FILES,
    assert_same_as_virtctl,
    create_through_cli,
    example_command_lines,
    fixed_suffixes,
    flags_to_argv,
    run_create,
    run_virtctl,
    usage_error,
    virtctl_answers,
)

DNS_LABEL_MESSAGE = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end "
    "with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
)
QUANTITY_FORMAT = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
FILES = VIRTCTL_FILES
GA_RUNCMD = "\nruncmd:\n  - [ setsebool, -P, 'virt_qemu_ga_manage_ssh', 'on' ]"
IGNORE = "Ignore"


def read_file(path: str) -> str:
    if path not in FILES:
        raise FileNotFoundError(2, "No such file or directory", path)
    return FILES[path]


def build(flags: dict, namespace: str | None = None) -> tuple[dict, list[str]]:
    return build_vm(
        VMOptions.from_flags(flags, namespace=namespace), random_suffix=fixed_suffixes(), read_file=read_file
    )


def expected_vm(
    name: str = "my-vm",
    *,
    namespace: str | None = None,
    memory: str | None = "512Mi",
    spec=None,
    template=None,
    domain=None,
    run_strategy: str = "Always",
    grace: int = 180,
) -> dict:
    """The full manifest virtctl prints, with the given additions."""
    domain_spec = {"devices": {}, "resources": {}, **(domain or {})}
    if memory:
        domain_spec["memory"] = {"guest": memory}
    template_spec = {"domain": domain_spec, "terminationGracePeriodSeconds": grace, **(template or {})}
    metadata = {"name": name}
    if namespace:
        metadata["namespace"] = namespace
    return {
        "apiVersion": "kubevirt.io/v1",
        "kind": "VirtualMachine",
        "metadata": metadata,
        "spec": {"runStrategy": run_strategy, "template": {"metadata": {}, "spec": template_spec}, **(spec or {})},
        "status": {},
    }


def dv(name: str) -> dict:
    return {"name": name, "dataVolume": {"name": name}}


def dvt(name: str, spec: dict, size: str | None = None) -> dict:
    storage = {"resources": {"requests": {"storage": size}} if size else {}}
    return {"metadata": {"name": name}, "spec": {**spec, "storage": storage}}


def pvc(name: str, claim: str | None = None) -> dict:
    return {"name": name, "persistentVolumeClaim": {"claimName": claim or name}}


def implicit(volume: str) -> dict:
    return {"inferFromVolume": volume, "inferFromVolumeFailurePolicy": IGNORE}


def no_cloud(user_data: str, **extra: str) -> dict:
    return {"name": "cloudinitdisk", "cloudInitNoCloud": {"userData": user_data, **extra}}


SUCCESS = [
    ("defaults", {}, expected_vm("vm-bbbbb")),
    ("name", {"name": "my-vm"}, expected_vm()),
    ("empty name is generated", {"name": ""}, expected_vm("vm-bbbbb")),
    (
        "run strategy case-insensitive",
        {"name": "my-vm", "run-strategy": "rerunonfailure"},
        expected_vm(run_strategy="RerunOnFailure"),
    ),
    ("run strategy halted", {"name": "my-vm", "run-strategy": "HALTED"}, expected_vm(run_strategy="Halted")),
    ("unchanged run strategy is not validated", {"name": "my-vm"}, expected_vm()),
    ("grace period", {"name": "my-vm", "termination-grace-period": 0}, expected_vm(grace=0)),
    ("negative grace period", {"name": "my-vm", "termination-grace-period": -5}, expected_vm(grace=-5)),
    ("memory canonical", {"name": "my-vm", "memory": "1024Mi"}, expected_vm(memory="1Gi")),
    ("memory fractional", {"name": "my-vm", "memory": "1.5Gi"}, expected_vm(memory="1536Mi")),
    ("memory decimal", {"name": "my-vm", "memory": "1000M"}, expected_vm(memory="1G")),
    (
        "cluster instancetype",
        {"name": "my-vm", "instancetype": "u1.medium"},
        expected_vm(memory=None, spec={"instancetype": {"name": "u1.medium"}}),
    ),
    (
        "namespaced instancetype",
        {"name": "my-vm", "instancetype": "virtualmachineinstancetype/it"},
        expected_vm(memory=None, spec={"instancetype": {"name": "it", "kind": "virtualmachineinstancetype"}}),
    ),
    (
        "CamelCase instancetype kind",
        {"name": "my-vm", "instancetype": "VirtualMachineClusterInstancetype/it"},
        expected_vm(memory=None, spec={"instancetype": {"name": "it", "kind": "virtualmachineclusterinstancetype"}}),
    ),
    (
        "plural instancetype kind (extension)",
        {"name": "my-vm", "instancetype": "virtualmachineinstancetypes/it"},
        expected_vm(memory=None, spec={"instancetype": {"name": "it", "kind": "virtualmachineinstancetype"}}),
    ),
    (
        "CamelCase plural kind (extension)",
        {"name": "my-vm", "instancetype": "VirtualMachineClusterInstancetypes/it"},
        expected_vm(memory=None, spec={"instancetype": {"name": "it", "kind": "virtualmachineclusterinstancetype"}}),
    ),
    (
        "cluster preference",
        {"name": "my-vm", "preference": "fedora"},
        expected_vm(spec={"preference": {"name": "fedora"}}),
    ),
    (
        "namespaced preference",
        {"name": "my-vm", "preference": "VirtualMachinePreference/p"},
        expected_vm(spec={"preference": {"name": "p", "kind": "virtualmachinepreference"}}),
    ),
    (
        "plural preference (extension)",
        {"name": "my-vm", "preference": "virtualmachineclusterpreferences/p"},
        expected_vm(spec={"preference": {"name": "p", "kind": "virtualmachineclusterpreference"}}),
    ),
    (
        "virtctl create vm help example",
        {
            "name": "my-vm",
            "instancetype": "u1.medium",
            "preference": "fedora",
            "volume-containerdisk": ["src:quay.io/containerdisks/fedora:41"],
        },
        expected_vm(
            memory=None,
            spec={"instancetype": {"name": "u1.medium"}, "preference": {"name": "fedora"}},
            template={
                "volumes": [
                    {"name": "my-vm-containerdisk-0", "containerDisk": {"image": "quay.io/containerdisks/fedora:41"}}
                ]
            },
        ),
    ),
    (
        "containerdisks named by index, bootorder adds disk",
        {"name": "v", "volume-containerdisk": ["src:a", "name:cd,src:b,bootorder:2", "src:c"]},
        expected_vm(
            "v",
            domain={"devices": {"disks": [{"name": "cd", "bootOrder": 2}]}},
            template={
                "volumes": [
                    {"name": "v-containerdisk-0", "containerDisk": {"image": "a"}},
                    {"name": "cd", "containerDisk": {"image": "b"}},
                    {"name": "v-containerdisk-2", "containerDisk": {"image": "c"}},
                ]
            },
        ),
    ),
    (
        "pvc named after claim (implicit inference)",
        {"name": "my-vm", "volume-pvc": ["src:my-pvc"]},
        expected_vm(
            spec={"instancetype": implicit("my-pvc"), "preference": implicit("my-pvc")},
            template={"volumes": [pvc("my-pvc")]},
        ),
    ),
    (
        "pvc with dots needs a name",
        {"name": "my-vm", "volume-pvc": ["src:my.pvc,name:root,bootorder:1"]},
        expected_vm(
            spec={"instancetype": implicit("root"), "preference": implicit("root")},
            domain={"devices": {"disks": [{"name": "root", "bootOrder": 1}]}},
            template={"volumes": [pvc("root", "my.pvc")]},
        ),
    ),
    (
        "import blank (not inferable, silently)",
        {"name": "my-vm", "volume-import": ["type:blank,size:10Gi,name:b"]},
        expected_vm(
            spec={"dataVolumeTemplates": [dvt("b", {"source": {"blank": {}}}, "10Gi")]}, template={"volumes": [dv("b")]}
        ),
    ),
    (
        "import generated name",
        {"name": "my-vm", "volume-import": ["type:blank,size:1Gi"]},
        expected_vm(
            spec={"dataVolumeTemplates": [dvt("imported-volume-bbbbb", {"source": {"blank": {}}}, "1Gi")]},
            template={"volumes": [dv("imported-volume-bbbbb")]},
        ),
    ),
    (
        "generated names drawn in order",
        {"volume-import": ["type:blank,size:1Gi", "type:blank,size:2Gi"]},
        expected_vm(
            "vm-bbbbb",
            spec={
                "dataVolumeTemplates": [
                    dvt("imported-volume-ccccc", {"source": {"blank": {}}}, "1Gi"),
                    dvt("imported-volume-ddddd", {"source": {"blank": {}}}, "2Gi"),
                ]
            },
            template={"volumes": [dv("imported-volume-ccccc"), dv("imported-volume-ddddd")]},
        ),
    ),
    (
        "import gcs",
        {"name": "my-vm", "volume-import": ["type:gcs,url:gs://b/o,size:1Gi,secretref:s,name:g"]},
        expected_vm(
            spec={"dataVolumeTemplates": [dvt("g", {"source": {"gcs": {"url": "gs://b/o", "secretRef": "s"}}}, "1Gi")]},
            template={"volumes": [dv("g")]},
        ),
    ),
    (
        "import http",
        {
            "name": "my-vm",
            "volume-import": [
                "type:http,url:http://h/d.img,size:1Gi,certconfigmap:cm,secretref:s,extraheaders:A: 1;B: 2,"
                "secretextraheaders:sh,name:h"
            ],
        },
        expected_vm(
            spec={
                "dataVolumeTemplates": [
                    dvt(
                        "h",
                        {
                            "source": {
                                "http": {
                                    "url": "http://h/d.img",
                                    "certConfigMap": "cm",
                                    "secretRef": "s",
                                    "extraHeaders": ["A: 1", "B: 2"],
                                    "secretExtraHeaders": ["sh"],
                                }
                            }
                        },
                        "1Gi",
                    )
                ]
            },
            template={"volumes": [dv("h")]},
        ),
    ),
    (
        "import imageio",
        {"name": "my-vm", "volume-import": ["type:imageio,url:https://o/api,diskid:7,size:5Gi,name:i"]},
        expected_vm(
            spec={
                "dataVolumeTemplates": [
                    dvt("i", {"source": {"imageio": {"url": "https://o/api", "diskId": "7"}}}, "5Gi")
                ]
            },
            template={"volumes": [dv("i")]},
        ),
    ),
    (
        "import pvc without size (inferable)",
        {"name": "my-vm", "volume-import": ["type:pvc,src:ns/golden,name:p"]},
        expected_vm(
            spec={
                "dataVolumeTemplates": [dvt("p", {"source": {"pvc": {"name": "golden", "namespace": "ns"}}})],
                "instancetype": implicit("p"),
                "preference": implicit("p"),
            },
            template={"volumes": [dv("p")]},
        ),
    ),
    (
        "import registry url",
        {
            "name": "my-vm",
            "volume-import": [
                "type:registry,url:docker://q/x:1,size:1Gi,pullmethod:node,secretref:s,certconfigmap:c,name:r"
            ],
        },
        expected_vm(
            spec={
                "dataVolumeTemplates": [
                    dvt(
                        "r",
                        {
                            "source": {
                                "registry": {
                                    "url": "docker://q/x:1",
                                    "pullMethod": "node",
                                    "secretRef": "s",
                                    "certConfigMap": "c",
                                }
                            }
                        },
                        "1Gi",
                    )
                ],
                "instancetype": implicit("r"),
                "preference": implicit("r"),
            },
            template={"volumes": [dv("r")]},
        ),
    ),
    (
        "import registry imagestream",
        {"name": "my-vm", "volume-import": ["type:registry,imagestream:is,size:1Gi,name:r"]},
        expected_vm(
            spec={
                "dataVolumeTemplates": [dvt("r", {"source": {"registry": {"imageStream": "is"}}}, "1Gi")],
                "instancetype": implicit("r"),
                "preference": implicit("r"),
            },
            template={"volumes": [dv("r")]},
        ),
    ),
    (
        "import s3",
        {"name": "my-vm", "volume-import": ["type:s3,url:s3://b/o,size:1Gi,certconfigmap:c,name:s"]},
        expected_vm(
            spec={
                "dataVolumeTemplates": [dvt("s", {"source": {"s3": {"url": "s3://b/o", "certConfigMap": "c"}}}, "1Gi")]
            },
            template={"volumes": [dv("s")]},
        ),
    ),
    (
        "import vddk",
        {
            "name": "my-vm",
            "volume-import": [
                "type:vddk,url:https://vc,uuid:u,thumbprint:t,secretref:s,backingfile:[ds] f.vmdk,size:1Gi,name:v"
            ],
        },
        expected_vm(
            spec={
                "dataVolumeTemplates": [
                    dvt(
                        "v",
                        {
                            "source": {
                                "vddk": {
                                    "url": "https://vc",
                                    "uuid": "u",
                                    "thumbprint": "t",
                                    "secretRef": "s",
                                    "backingFile": "[ds] f.vmdk",
                                }
                            }
                        },
                        "1Gi",
                    )
                ]
            },
            template={"volumes": [dv("v")]},
        ),
    ),
    (
        "import snapshot",
        {"name": "my-vm", "volume-import": ["type:snapshot,src:ns/snap,size:2Gi,name:s"]},
        expected_vm(
            spec={
                "dataVolumeTemplates": [dvt("s", {"source": {"snapshot": {"name": "snap", "namespace": "ns"}}}, "2Gi")],
                "instancetype": implicit("s"),
                "preference": implicit("s"),
            },
            template={"volumes": [dv("s")]},
        ),
    ),
    (
        "import datasource without namespace",
        {"name": "my-vm", "volume-import": ["type:ds,src:fedora,name:d"]},
        expected_vm(
            spec={
                "dataVolumeTemplates": [dvt("d", {"sourceRef": {"kind": "DataSource", "name": "fedora"}})],
                "instancetype": implicit("d"),
                "preference": implicit("d"),
            },
            template={"volumes": [dv("d")]},
        ),
    ),
    (
        "virtctl create vm help datasource example",
        {"name": "my-vm", "volume-import": ["type:ds,src:os-images/fedora,size:30Gi,name:rootdisk"]},
        expected_vm(
            spec={
                "dataVolumeTemplates": [
                    dvt(
                        "rootdisk",
                        {"sourceRef": {"kind": "DataSource", "name": "fedora", "namespace": "os-images"}},
                        "30Gi",
                    )
                ],
                "instancetype": implicit("rootdisk"),
                "preference": implicit("rootdisk"),
            },
            template={"volumes": [dv("rootdisk")]},
        ),
    ),
    (
        "deprecated datasource alias",
        {"name": "my-vm", "volume-datasource": ["src:ns/ds,name:d"]},
        expected_vm(
            spec={
                "dataVolumeTemplates": [
                    dvt("d", {"sourceRef": {"kind": "DataSource", "name": "ds", "namespace": "ns"}})
                ],
                "instancetype": implicit("d"),
                "preference": implicit("d"),
            },
            template={"volumes": [dv("d")]},
        ),
    ),
    (
        "deprecated aliases keep documented order",
        {
            "name": "my-vm",
            "volume-blank": ["size:1Gi,name:b1", "size:1Gi,name:b2"],
            "volume-clone-pvc": ["src:n/p,name:c"],
            "volume-datasource": ["src:d,name:d"],
            "volume-import": ["type:blank,size:1Gi,name:i"],
        },
        expected_vm(
            spec={
                "dataVolumeTemplates": [
                    dvt("d", {"sourceRef": {"kind": "DataSource", "name": "d"}}),
                    dvt("c", {"source": {"pvc": {"name": "p", "namespace": "n"}}}),
                    dvt("b1", {"source": {"blank": {}}}, "1Gi"),
                    dvt("b2", {"source": {"blank": {}}}, "1Gi"),
                    dvt("i", {"source": {"blank": {}}}, "1Gi"),
                ],
                "instancetype": implicit("d"),
                "preference": implicit("d"),
            },
            template={"volumes": [dv("d"), dv("c"), dv("b1"), dv("b2"), dv("i")]},
        ),
    ),
    (
        "sysprep configmap by default",
        {"name": "my-vm", "volume-sysprep": "src:unattend"},
        expected_vm(template={"volumes": [{"name": "sysprepdisk", "sysprep": {"configMap": {"name": "unattend"}}}]}),
    ),
    (
        "sysprep secret",
        {"name": "my-vm", "volume-sysprep": "src:unattend,type:Secret"},
        expected_vm(template={"volumes": [{"name": "sysprepdisk", "sysprep": {"secret": {"name": "unattend"}}}]}),
    ),
    (
        "volume order",
        {
            "name": "v",
            "volume-sysprep": "src:s",
            "user": "u",
            "volume-import": ["type:ds,src:d,name:d"],
            "volume-pvc": ["src:p"],
            "volume-containerdisk": ["src:c"],
        },
        expected_vm(
            "v",
            spec={"dataVolumeTemplates": [dvt("d", {"sourceRef": {"kind": "DataSource", "name": "d"}})]},
            template={
                "volumes": [
                    {"name": "v-containerdisk-0", "containerDisk": {"image": "c"}},
                    pvc("p"),
                    dv("d"),
                    {"name": "sysprepdisk", "sysprep": {"configMap": {"name": "s"}}},
                    no_cloud("#cloud-config\nuser: u"),
                ]
            },
        ),
    ),
    (
        "cloud-init user",
        {"name": "my-vm", "user": "fedora"},
        expected_vm(template={"volumes": [no_cloud("#cloud-config\nuser: fedora")]}),
    ),
    (
        "cloud-init everything",
        {"name": "my-vm", "user": "u", "password-file": "/pw", "ssh-key": ["k1", "k2"], "ga-manage-ssh": True},
        expected_vm(
            template={
                "volumes": [
                    no_cloud(
                        "#cloud-config\nuser: u\npassword: s3cret\nchpasswd: { expire: False }\nssh_authorized_keys:\n  - k1\n  - k2"
                        + GA_RUNCMD
                    )
                ]
            }
        ),
    ),
    (
        "blank password file writes no password",
        {"name": "my-vm", "password-file": "/blank-pw", "cloud-init": "nocloud"},
        expected_vm(template={"volumes": [no_cloud("#cloud-config")]}),
    ),
    ("header-only data is dropped unless --cloud-init given", {"name": "my-vm", "ga-manage-ssh": False}, expected_vm()),
    (
        "explicit nocloud keeps the header-only volume",
        {"name": "my-vm", "cloud-init": "NoCloud"},
        expected_vm(template={"volumes": [no_cloud("#cloud-config")]}),
    ),
    (
        "configdrive",
        {"name": "my-vm", "cloud-init": "configdrive", "user": "u"},
        expected_vm(
            template={
                "volumes": [{"name": "cloudinitdisk", "cloudInitConfigDrive": {"userData": "#cloud-config\nuser: u"}}]
            }
        ),
    ),
    (
        "base64 user and network data",
        {"name": "my-vm", "cloud-init-user-data": "dXNlcg==", "cloud-init-network-data": "bmV0"},
        expected_vm(
            template={
                "volumes": [
                    {
                        "name": "cloudinitdisk",
                        "cloudInitNoCloud": {"userDataBase64": "dXNlcg==", "networkDataBase64": "bmV0"},
                    }
                ]
            }
        ),
    ),
    (
        "network data alone keeps the generated header",
        {"name": "my-vm", "cloud-init-network-data": "bmV0"},
        expected_vm(template={"volumes": [no_cloud("#cloud-config", networkDataBase64="bmV0")]}),
    ),
    ("cloud-init none", {"name": "my-vm", "cloud-init": "none", "user": "u"}, expected_vm()),
    (
        "access cred ssh via guest agent",
        {"name": "my-vm", "user": "u", "access-cred": ["src:keys"]},
        expected_vm(
            template={
                "accessCredentials": [
                    {
                        "sshPublicKey": {
                            "source": {"secret": {"secretName": "keys"}},
                            "propagationMethod": {"qemuGuestAgent": {"users": ["u"]}},
                        }
                    }
                ],
                "volumes": [no_cloud("#cloud-config\nuser: u" + GA_RUNCMD)],
            }
        ),
    ),
    (
        "access cred user param wins",
        {"name": "my-vm", "user": "u", "access-cred": ["type:SSH,src:keys,user:other,method:GA"]},
        expected_vm(
            template={
                "accessCredentials": [
                    {
                        "sshPublicKey": {
                            "source": {"secret": {"secretName": "keys"}},
                            "propagationMethod": {"qemuGuestAgent": {"users": ["other"]}},
                        }
                    }
                ],
                "volumes": [no_cloud("#cloud-config\nuser: u" + GA_RUNCMD)],
            }
        ),
    ),
    (
        "access cred keeps explicit --ga-manage-ssh=false",
        {"name": "my-vm", "user": "u", "ga-manage-ssh": False, "access-cred": ["src:keys"]},
        expected_vm(
            template={
                "accessCredentials": [
                    {
                        "sshPublicKey": {
                            "source": {"secret": {"secretName": "keys"}},
                            "propagationMethod": {"qemuGuestAgent": {"users": ["u"]}},
                        }
                    }
                ],
                "volumes": [no_cloud("#cloud-config\nuser: u")],
            }
        ),
    ),
    (
        "access cred with base64 user data",
        {"name": "my-vm", "cloud-init-user-data": "eA==", "access-cred": ["src:k,user:u"]},
        expected_vm(
            template={
                "accessCredentials": [
                    {
                        "sshPublicKey": {
                            "source": {"secret": {"secretName": "k"}},
                            "propagationMethod": {"qemuGuestAgent": {"users": ["u"]}},
                        }
                    }
                ],
                "volumes": [{"name": "cloudinitdisk", "cloudInitNoCloud": {"userDataBase64": "eA=="}}],
            }
        ),
    ),
    (
        "access cred nocloud switches cloud-init on",
        {"name": "my-vm", "access-cred": ["src:keys,method:nocloud"]},
        expected_vm(
            template={
                "accessCredentials": [
                    {
                        "sshPublicKey": {
                            "source": {"secret": {"secretName": "keys"}},
                            "propagationMethod": {"noCloud": {}},
                        }
                    }
                ],
                "volumes": [no_cloud("#cloud-config")],
            }
        ),
    ),
    (
        "access cred configdrive",
        {"name": "my-vm", "access-cred": ["src:keys,method:ConfigDrive"]},
        expected_vm(
            template={
                "accessCredentials": [
                    {
                        "sshPublicKey": {
                            "source": {"secret": {"secretName": "keys"}},
                            "propagationMethod": {"configDrive": {}},
                        }
                    }
                ],
                "volumes": [{"name": "cloudinitdisk", "cloudInitConfigDrive": {"userData": "#cloud-config"}}],
            }
        ),
    ),
    (
        "access cred password",
        {"name": "my-vm", "access-cred": ["type:password,src:pws", "type:Password,src:p2,method:GA"]},
        expected_vm(
            template={
                "accessCredentials": [
                    {
                        "userPassword": {
                            "source": {"secret": {"secretName": "pws"}},
                            "propagationMethod": {"qemuGuestAgent": {}},
                        }
                    },
                    {
                        "userPassword": {
                            "source": {"secret": {"secretName": "p2"}},
                            "propagationMethod": {"qemuGuestAgent": {}},
                        }
                    },
                ]
            }
        ),
    ),
    (
        "secret name is src as written",
        {"name": "my-vm", "access-cred": ["type:password,src:/pws"]},
        expected_vm(
            template={
                "accessCredentials": [
                    {
                        "userPassword": {
                            "source": {"secret": {"secretName": "/pws"}},
                            "propagationMethod": {"qemuGuestAgent": {}},
                        }
                    }
                ]
            }
        ),
    ),
    (
        "explicit instancetype inference drops memory",
        {"name": "my-vm", "volume-pvc": ["src:root"], "infer-instancetype": True},
        expected_vm(
            memory=None,
            spec={"instancetype": {"inferFromVolume": "root"}, "preference": implicit("root")},
            template={"volumes": [pvc("root")]},
        ),
    ),
    (
        "explicit preference inference",
        {"name": "my-vm", "volume-pvc": ["src:root"], "infer-preference": True},
        expected_vm(
            spec={"instancetype": implicit("root"), "preference": {"inferFromVolume": "root"}},
            template={"volumes": [pvc("root")]},
        ),
    ),
    (
        "infer from named volumes",
        {
            "name": "my-vm",
            "volume-pvc": ["src:a", "src:b"],
            "infer-instancetype-from": "b",
            "infer-preference-from": "a",
        },
        expected_vm(
            memory=None,
            spec={"instancetype": {"inferFromVolume": "b"}, "preference": {"inferFromVolume": "a"}},
            template={"volumes": [pvc("a"), pvc("b")]},
        ),
    ),
    (
        "lowest bootorder wins",
        {"name": "my-vm", "volume-pvc": ["src:a,bootorder:5", "src:b,bootorder:2", "src:c"]},
        expected_vm(
            spec={"instancetype": implicit("b"), "preference": implicit("b")},
            domain={"devices": {"disks": [{"name": "a", "bootOrder": 5}, {"name": "b", "bootOrder": 2}]}},
            template={"volumes": [pvc("a"), pvc("b"), pvc("c")]},
        ),
    ),
    (
        "containerdisk first: implicit inference silently skipped",
        {"name": "my-vm", "volume-containerdisk": ["src:c"], "volume-pvc": ["src:p"]},
        expected_vm(
            template={"volumes": [{"name": "my-vm-containerdisk-0", "containerDisk": {"image": "c"}}, pvc("p")]}
        ),
    ),
    (
        "memory given: no instancetype inference",
        {"name": "my-vm", "volume-pvc": ["src:p"], "memory": "2Gi"},
        expected_vm(memory="2Gi", spec={"preference": implicit("p")}, template={"volumes": [pvc("p")]}),
    ),
    (
        "instancetype given: preference still inferred",
        {"name": "my-vm", "volume-pvc": ["src:p"], "instancetype": "u1"},
        expected_vm(
            memory=None,
            spec={"instancetype": {"name": "u1"}, "preference": implicit("p")},
            template={"volumes": [pvc("p")]},
        ),
    ),
    (
        "inference switched off",
        {"name": "my-vm", "volume-pvc": ["src:p"], "infer-instancetype": False, "infer-preference": False},
        expected_vm(template={"volumes": [pvc("p")]}),
    ),
    ("namespace only when given", {"name": "my-vm"}, expected_vm()),
]


@pytest.mark.parametrize(("flags", "expected"), [(f, e) for _, f, e in SUCCESS], ids=[i for i, _, _ in SUCCESS])
def test_build_vm(flags, expected):
    manifest, _ = build(flags)
    assert manifest == expected


def test_namespace():
    manifest, _ = build({"name": "my-vm"}, namespace="my-ns")
    assert manifest == expected_vm(namespace="my-ns")


FAILURES = [
    (
        {"memory": "1Gi", "instancetype": "x"},
        "if any flags in the group [memory instancetype infer-instancetype infer-instancetype-from] are set none of the "
        "others can be; [instancetype memory] were all set",
    ),
    (
        {"memory": "1Gi", "infer-instancetype": False},
        "if any flags in the group [memory instancetype infer-instancetype infer-instancetype-from] are set none of the "
        "others can be; [infer-instancetype memory] were all set",
    ),
    (
        {"memory": "1Gi", "instancetype": "x", "infer-instancetype": True, "infer-instancetype-from": "v"},
        "if any flags in the group [memory instancetype infer-instancetype infer-instancetype-from] are set none of the "
        "others can be; [infer-instancetype infer-instancetype-from instancetype memory] were all set",
    ),
    (
        {"preference": "p", "infer-preference-from": "v"},
        "if any flags in the group [preference infer-preference infer-preference-from] are set none of the others can "
        "be; [infer-preference-from preference] were all set",
    ),
    (
        {"cloud-init-user-data": "eA==", "user": "u"},
        "if any flags in the group [cloud-init-user-data user] are set none of the others can be; "
        "[cloud-init-user-data user] were all set",
    ),
    (
        {"cloud-init-user-data": "eA==", "password-file": "/pw"},
        "if any flags in the group [cloud-init-user-data password-file] are set none of the others can be; "
        "[cloud-init-user-data password-file] were all set",
    ),
    (
        {"cloud-init-user-data": "eA==", "ssh-key": ["k"], "ga-manage-ssh": True, "memory": "1Gi", "instancetype": "x"},
        "if any flags in the group [cloud-init-user-data ga-manage-ssh] are set none of the others can be; "
        "[cloud-init-user-data ga-manage-ssh] were all set",
    ),
    (
        {"run-strategy": "WaitAsReceiver"},
        'failed to parse "--run-strategy" flag: invalid run strategy "WaitAsReceiver", supported values are: Always, '
        "Manual, Halted, Once, RerunOnFailure",
    ),
    ({"memory": "512Gu"}, 'failed to parse "--memory" flag: unable to parse quantity\'s suffix'),
    ({"memory": "abc"}, f'failed to parse "--memory" flag: {QUANTITY_FORMAT}'),
    ({"memory": "abc", "run-strategy": "bad"}, f'failed to parse "--memory" flag: {QUANTITY_FORMAT}'),
    (
        {"instancetype": "madethisup/my-it"},
        'failed to parse "--instancetype" flag: invalid instancetype kind "madethisup", supported values are: '
        "virtualmachineinstancetype, virtualmachineclusterinstancetype",
    ),
    (
        {"instancetype": "VirtualMachinePreference/x"},
        'failed to parse "--instancetype" flag: invalid instancetype kind "virtualmachinepreference", supported values '
        "are: virtualmachineinstancetype, virtualmachineclusterinstancetype",
    ),
    (
        {"instancetype": "virtualmachineinstancetype/my-it/x"},
        'failed to parse "--instancetype" flag: invalid count 2 of slashes in prefix/name',
    ),
    ({"instancetype": "virtualmachineinstancetype/"}, 'failed to parse "--instancetype" flag: name cannot be empty'),
    ({"instancetype": ""}, 'failed to parse "--instancetype" flag: name cannot be empty'),
    (
        {"preference": "madethisup/p"},
        'failed to parse "--preference" flag: invalid preference kind "madethisup", supported values are: '
        "virtualmachinepreference, virtualmachineclusterpreference",
    ),
    (
        {"preference": "virtualmachinepreference/p/x"},
        'failed to parse "--preference" flag: invalid count 2 of slashes in prefix/name',
    ),
    ({"volume-containerdisk": [""]}, 'failed to parse "--volume-containerdisk" flag: params may not be empty'),
    (
        {"volume-containerdisk": ["test=test"]},
        'failed to parse "--volume-containerdisk" flag: params need to have at least one colon: test=test',
    ),
    (
        {"volume-containerdisk": ["test:test"]},
        'failed to parse "--volume-containerdisk" flag: unknown param(s): test:test',
    ),
    ({"volume-containerdisk": ["name:test"]}, 'failed to parse "--volume-containerdisk" flag: src must be specified'),
    (
        {"volume-containerdisk": ["bootorder:10Gu"]},
        'failed to parse "--volume-containerdisk" flag: failed to parse param "bootorder": strconv.ParseUint: parsing '
        '"10Gu": invalid syntax',
    ),
    (
        {"volume-containerdisk": ["src:x,bootorder:0"]},
        'failed to parse "--volume-containerdisk" flag: bootorder must be greater than 0',
    ),
    (
        {"volume-containerdisk": ["src:x,name:name.with.dot"]},
        'failed to parse "--volume-containerdisk" flag: invalid name "name.with.dot": must not contain dots',
    ),
    (
        {"volume-containerdisk": ["src:x,name:" + "a" * 64]},
        f'failed to parse "--volume-containerdisk" flag: invalid name "{"a" * 64}": must be no more than 63 characters',
    ),
    (
        {"volume-containerdisk": ["src:x,name:" + "a.b" * 22]},
        f'failed to parse "--volume-containerdisk" flag: invalid name "{"a.b" * 22}": must be no more than 63 '
        "characters,must not contain dots",
    ),
    (
        {"volume-containerdisk": ["src:x,name:NOTALLOWED"]},
        f'failed to parse "--volume-containerdisk" flag: invalid name "NOTALLOWED": {DNS_LABEL_MESSAGE}',
    ),
    (
        {"volume-containerdisk": ["src:x,name:-notallowed"]},
        f'failed to parse "--volume-containerdisk" flag: invalid name "-notallowed": {DNS_LABEL_MESSAGE}',
    ),
    (
        {
            "name": "manycharacterssothatthedisknamewillbetoolongerthantheallowedlength",
            "volume-containerdisk": ["src:x"],
        },
        'failed to parse "--volume-containerdisk" flag: invalid name "manycharacterssothatthedisknamewillbetoolongertha'
        'ntheallowedlength-containerdisk-0": must be no more than 63 characters',
    ),
    (
        {"volume-containerdisk": ["src:a,name:d", "src:b,name:d"]},
        'failed to parse "--volume-containerdisk" flag: there is already a volume with name "d"',
    ),
    (
        {"volume-containerdisk": ["src:a,bootorder:1"], "volume-pvc": ["src:p,bootorder:1"]},
        'failed to parse "--volume-pvc" flag: bootorder 1 was specified multiple times',
    ),
    ({"volume-pvc": ["src:my-ns/"]}, 'failed to parse "--volume-pvc" flag: src invalid: name cannot be empty'),
    (
        {"volume-pvc": ["src:a/b/c"]},
        'failed to parse "--volume-pvc" flag: src invalid: invalid count 2 of slashes in prefix/name',
    ),
    (
        {"volume-pvc": ["src:my-ns/my-pvc"]},
        'failed to parse "--volume-pvc" flag: not allowed to specify namespace of pvc "my-pvc"',
    ),
    (
        {"volume-pvc": ["src:my.pvc"]},
        'failed to parse "--volume-pvc" flag: invalid name "my.pvc": must not contain dots',
    ),
    ({"volume-pvc": ["src:"]}, 'failed to parse "--volume-pvc" flag: src must be specified'),
    (
        {"volume-pvc": ["src:p"], "volume-containerdisk": ["src:c,name:p"]},
        'failed to parse "--volume-pvc" flag: there is already a volume with name "p"',
    ),
    ({"volume-import": ["size:256Mi"]}, 'failed to parse "--volume-import" flag: type must be specified'),
    ({"volume-import": [""]}, 'failed to parse "--volume-import" flag: params may not be empty'),
    (
        {"volume-import": ["type:madeup"]},
        'failed to parse "--volume-import" flag: invalid volume import type "madeup", see help for supported values',
    ),
    ({"volume-import": ["type:blank"]}, 'failed to parse "--volume-import" flag: size must be specified'),
    (
        {"volume-import": ["type:blank,size:10Gu"]},
        'failed to parse "--volume-import" flag: failed to parse param "size": unable to parse quantity\'s suffix',
    ),
    (
        {"volume-import": ["type:blank,size:256Mi,test:test"]},
        'failed to parse "--volume-import" flag: unknown param(s): test:test',
    ),
    ({"volume-import": ["type:gcs,url:http://u"]}, 'failed to parse "--volume-import" flag: size must be specified'),
    (
        {"volume-import": ["type:gcs,size:1Gi"]},
        'failed to parse "--volume-import" flag: url is required with gcs volume source',
    ),
    (
        {"volume-import": ["type:http,size:1Gi"]},
        'failed to parse "--volume-import" flag: url is required with http volume source',
    ),
    (
        {"volume-import": ["type:imageio,diskid:0,size:1Gi"]},
        'failed to parse "--volume-import" flag: url and diskid are both required with imageio volume source',
    ),
    (
        {"volume-import": ["type:imageio,url:u,size:1Gi"]},
        'failed to parse "--volume-import" flag: url and diskid are both required with imageio volume source',
    ),
    ({"volume-import": ["type:pvc,size:1Gi"]}, 'failed to parse "--volume-import" flag: src must be specified'),
    (
        {"volume-import": ["type:pvc,src:my-pvc"]},
        'failed to parse "--volume-import" flag: namespace of pvc "my-pvc" must be specified',
    ),
    (
        {"volume-import": ["type:pvc,src:/my-pvc"]},
        'failed to parse "--volume-import" flag: namespace of pvc "my-pvc" must be specified',
    ),
    (
        {"volume-import": ["type:pvc,src:default/"]},
        'failed to parse "--volume-import" flag: src invalid: name cannot be empty',
    ),
    ({"volume-import": ["type:pvc,name:my-ns/"]}, 'failed to parse "--volume-import" flag: src must be specified'),
    (
        {"volume-import": ["type:snapshot,src:snap"]},
        'failed to parse "--volume-import" flag: namespace of snapshot "snap" must be specified',
    ),
    (
        {"volume-import": ["type:s3,size:1Gi"]},
        'failed to parse "--volume-import" flag: url is required with s3 volume source',
    ),
    (
        {"volume-import": ["type:registry,imagestream:i"]},
        'failed to parse "--volume-import" flag: size must be specified',
    ),
    (
        {"volume-import": ["type:registry,size:1Gi,pullmethod:invalid,imagestream:i"]},
        'failed to parse "--volume-import" flag: pullmethod must be set to pod or node',
    ),
    (
        {"volume-import": ["type:registry,size:1Gi,imagestream:i,url:u"]},
        'failed to parse "--volume-import" flag: exactly one of url or imagestream must be defined',
    ),
    (
        {"volume-import": ["type:registry,size:1Gi"]},
        'failed to parse "--volume-import" flag: exactly one of url or imagestream must be defined',
    ),
    (
        {"volume-import": ["type:vddk,size:1Gi,uuid:u,thumbprint:t,secretref:s,backingfile:b"]},
        'failed to parse "--volume-import" flag: url is required with vddk volume source',
    ),
    (
        {"volume-import": ["type:vddk,size:1Gi,url:u,thumbprint:t,secretref:s,backingfile:b"]},
        'failed to parse "--volume-import" flag: uuid is required with vddk volume source',
    ),
    (
        {"volume-import": ["type:vddk,size:1Gi,url:u,uuid:u,secretref:s,backingfile:b"]},
        'failed to parse "--volume-import" flag: thumbprint is required with vddk volume source',
    ),
    (
        {"volume-import": ["type:vddk,size:1Gi,url:u,uuid:u,thumbprint:t,backingfile:b"]},
        'failed to parse "--volume-import" flag: secretref is required with vddk volume source',
    ),
    (
        {"volume-import": ["type:vddk,size:1Gi,url:u,uuid:u,thumbprint:t,secretref:s"]},
        'failed to parse "--volume-import" flag: backingfile is required with vddk volume source',
    ),
    (
        {"volume-import": ["type:vddk,url:u,uuid:u,thumbprint:t,secretref:s,backingfile:b"]},
        'failed to parse "--volume-import" flag: size must be specified',
    ),
    ({"volume-import": ["type:ds,size:1Gi"]}, 'failed to parse "--volume-import" flag: src must be specified'),
    (
        {"volume-import": ["type:ds,src:a/b/c"]},
        'failed to parse "--volume-import" flag: src invalid: invalid count 2 of slashes in prefix/name',
    ),
    (
        {"volume-import": ["type:blank,size:1Gi,name:"]},
        f'failed to parse "--volume-import" flag: invalid name "": {DNS_LABEL_MESSAGE}',
    ),
    (
        {"volume-import": ["type:blank,size:1Gi,name:NOTALLOWED"]},
        f'failed to parse "--volume-import" flag: invalid name "NOTALLOWED": {DNS_LABEL_MESSAGE}',
    ),
    (
        {"volume-import": ["type:blank,size:1Gi,bootorder:-1"]},
        'failed to parse "--volume-import" flag: failed to parse param "bootorder": strconv.ParseUint: parsing "-1": '
        "invalid syntax",
    ),
    (
        {"volume-import": ["type:blank,size:1Gi,bootorder:0"]},
        'failed to parse "--volume-import" flag: bootorder must be greater than 0',
    ),
    (
        {"volume-pvc": ["src:x"], "volume-import": ["type:blank,size:1Gi,name:x"]},
        'failed to parse "--volume-import" flag: there is already a volume with name "x"',
    ),
    ({"volume-datasource": [""]}, 'failed to parse "--volume-import" flag: params may not be empty'),
    ({"volume-blank": ["name:x"]}, 'failed to parse "--volume-import" flag: size must be specified'),
    ({"volume-clone-pvc": ["src:p"]}, 'failed to parse "--volume-import" flag: namespace of pvc "p" must be specified'),
    ({"volume-sysprep": ""}, 'failed to parse "--volume-sysprep" flag: params may not be empty'),
    ({"volume-sysprep": "type:configMap"}, 'failed to parse "--volume-sysprep" flag: src must be specified'),
    (
        {"volume-sysprep": "type:madeup,src:s"},
        'failed to parse "--volume-sysprep" flag: invalid sysprep source type "madeup", supported values are: configmap, secret',
    ),
    ({"volume-sysprep": "src:my-ns/"}, 'failed to parse "--volume-sysprep" flag: src invalid: name cannot be empty'),
    (
        {"volume-sysprep": "src:my-ns/my-src"},
        'failed to parse "--volume-sysprep" flag: not allowed to specify namespace of configmap or secret "my-src"',
    ),
    (
        {"volume-sysprep": "src:s", "volume-containerdisk": ["src:c,name:sysprepdisk"]},
        'failed to parse "--volume-sysprep" flag: there is already a volume with name "sysprepdisk"',
    ),
    (
        {"user": "u", "volume-containerdisk": ["src:c,name:cloudinitdisk"]},
        'there is already a volume with name "cloudinitdisk"',
    ),
    (
        {"cloud-init-network-data": "eA==", "volume-pvc": ["src:p,name:cloudinitdisk"]},
        'there is already a volume with name "cloudinitdisk"',
    ),
    (
        {"cloud-init": "madeup"},
        'failed to parse "--cloud-init" flag: invalid cloud-init data source type "madeup", supported values are: '
        "nocloud, configdrive, none",
    ),
    ({"password-file": "/missing"}, 'failed to parse "--password-file" flag: open /missing: no such file or directory'),
    ({"access-cred": [""]}, 'failed to parse "--access-cred" flag: params may not be empty'),
    ({"access-cred": ["test:test"]}, 'failed to parse "--access-cred" flag: unknown param(s): test:test'),
    ({"access-cred": ["type:ssh"]}, 'failed to parse "--access-cred" flag: src must be specified'),
    ({"access-cred": ["src:my-ns/"]}, 'failed to parse "--access-cred" flag: src invalid: name cannot be empty'),
    (
        {"access-cred": ["src:my-ns/my-src"]},
        'failed to parse "--access-cred" flag: not allowed to specify namespace of secret "my-src"',
    ),
    (
        {"access-cred": ["type:madeup,src:s"]},
        'failed to parse "--access-cred" flag: invalid access credential type "madeup", supported values are: ssh, password',
    ),
    (
        {"access-cred": ["type:ssh,src:s,method:madeup"]},
        'failed to parse "--access-cred" flag: invalid access credentials ssh method "madeup", supported values are: ga, '
        "nocloud, configdrive",
    ),
    (
        {"access-cred": ["src:s,method:ga"]},
        'failed to parse "--access-cred" flag: user must be specified with access credential ssh method ga ("--user" '
        'flag or param "user")',
    ),
    (
        {"access-cred": ["src:s,method:nocloud,user:u"]},
        'failed to parse "--access-cred" flag: user cannot be specified with selected access credential type and method',
    ),
    (
        {"access-cred": ["src:s,method:configdrive,user:u"]},
        'failed to parse "--access-cred" flag: user cannot be specified with selected access credential type and method',
    ),
    (
        {"access-cred": ["type:password,src:s,method:madeup"]},
        'failed to parse "--access-cred" flag: invalid access credentials password method "madeup", supported values are: ga',
    ),
    (
        {"access-cred": ["type:password,src:s,user:u"]},
        'failed to parse "--access-cred" flag: user cannot be specified with selected access credential type and method',
    ),
    (
        {"access-cred": ["src:s,method:nocloud"], "cloud-init": "configdrive"},
        'failed to parse "--access-cred" flag: method param and value passed to --cloud-init have to match: nocloud vs '
        "configdrive",
    ),
    (
        {"access-cred": ["src:s,method:configdrive"], "cloud-init": "none"},
        'failed to parse "--access-cred" flag: method param and value passed to --cloud-init have to match: configdrive '
        "vs none",
    ),
    (
        {"access-cred": ["src:a,method:nocloud", "src:b,method:configdrive"]},
        'failed to parse "--access-cred" flag: method param and value passed to --cloud-init have to match: configdrive '
        "vs nocloud",
    ),
    ({"infer-instancetype": True}, "at least one volume is needed to infer an instance type or preference"),
    ({"infer-preference-from": "nope"}, 'there is no volume with name "nope"'),
    ({"volume-pvc": ["src:p"], "infer-instancetype-from": "nope"}, 'there is no volume with name "nope"'),
    (
        {"volume-containerdisk": ["src:c"], "infer-instancetype": True},
        "inference of instancetype or preference works only with datasources, datavolumes or pvcs",
    ),
    (
        {"volume-containerdisk": ["name:my-vol,src:c"], "infer-preference-from": "my-vol"},
        "inference of instancetype or preference works only with datasources, datavolumes or pvcs",
    ),
    (
        {"user": "u", "infer-preference": True},
        "inference of instancetype or preference works only with datasources, datavolumes or pvcs",
    ),
    (
        {"volume-import": ["type:http,size:256Mi,url:http://u"], "infer-instancetype": True},
        "this datavolume is not valid to infer an instancetype or preference from (source needs to be PVC, Registry or "
        "Snapshot, sourceRef needs to be DataSource)",
    ),
    # instance type inference is evaluated first, so its error wins
    (
        {"volume-containerdisk": ["src:c"], "infer-instancetype-from": "x", "infer-preference-from": "y"},
        'there is no volume with name "x"',
    ),
]


@pytest.mark.parametrize(("flags", "message"), FAILURES, ids=[m[:60] for _, m in FAILURES])
def test_build_vm_errors(flags, message):
    assert usage_error(lambda: build(flags)) == message


WARNINGS = [
    (
        {"volume-datasource": ["src:d,name:d"]},
        ["Flag --volume-datasource has been deprecated, use flag --volume-import instead"],
    ),
    (
        {"volume-clone-pvc": ["src:n/p,name:c"], "volume-blank": ["size:1Gi,name:b"]},
        [
            "Flag --volume-clone-pvc has been deprecated, use flag --volume-import instead",
            "Flag --volume-blank has been deprecated, use flag --volume-import instead",
        ],
    ),
    ({"password-file": "/pw"}, ["WARNING: --password-file: The password is stored in cleartext in the VM definition!"]),
    (
        {"cloud-init": "none", "ga-manage-ssh": True},
        [
            "WARNING: --cloud-init: was set to none, not creating a data source although other cloud-init options were set"
        ],
    ),
    (
        {"cloud-init": "none", "password-file": "/missing"},
        [
            "WARNING: --password-file: The password is stored in cleartext in the VM definition!",
            "WARNING: --cloud-init: was set to none, not creating a data source although other cloud-init options were set",
        ],
    ),
    ({"cloud-init": "none", "user": "u"}, []),
    ({"user": "u"}, []),
]


@pytest.mark.parametrize(("flags", "warnings"), WARNINGS)
def test_warnings(flags, warnings):
    assert build(flags)[1] == warnings


def test_warnings_before_a_failure_reach_the_callback():
    received: list[str] = []
    options = VMOptions.from_flags({"volume-blank": ["name:x"], "password-file": "/pw"})
    with pytest.raises(UsageError):
        build_vm(options, random_suffix=fixed_suffixes(), read_file=read_file, warn=received.append)
    assert received == ["Flag --volume-blank has been deprecated, use flag --volume-import instead"]


@pytest.mark.parametrize(
    ("error", "message"),
    [
        (FileNotFoundError(2, "No such file or directory"), "open /p: no such file or directory"),
        (PermissionError(13, "Permission denied"), "open /p: permission denied"),
        (IsADirectoryError(21, "Is a directory"), "read /p: is a directory"),
    ],
)
def test_password_file_errors_read_like_go(error, message):
    def failing_reader(path: str) -> str:
        raise error

    options = VMOptions.from_flags({"password-file": "/p"})
    assert usage_error(lambda: build_vm(options, read_file=failing_reader)) == (
        f'failed to parse "--password-file" flag: {message}'
    )


def test_default_reader_reads_real_files(tmp_path):
    password = tmp_path / "pw"
    password.write_text("secret\n")
    manifest, _ = build_vm(VMOptions.from_flags({"name": "v", "password-file": str(password)}))
    user_data = manifest["spec"]["template"]["spec"]["volumes"][0]["cloudInitNoCloud"]["userData"]
    assert user_data == "#cloud-config\npassword: secret\nchpasswd: { expire: False }"
    options = VMOptions.from_flags({"password-file": str(tmp_path)})
    assert (
        usage_error(lambda: build_vm(options))
        == f'failed to parse "--password-file" flag: read {tmp_path}: is a directory'
    )


def test_default_random_names():
    manifest, _ = build_vm(VMOptions.from_flags({"volume-import": ["type:blank,size:1Gi"]}))
    assert manifest["metadata"]["name"].startswith("vm-") and len(manifest["metadata"]["name"]) == 8
    assert manifest["spec"]["dataVolumeTemplates"][0]["metadata"]["name"].startswith("imported-volume-")


@pytest.mark.parametrize(
    ("manifest", "objects"),
    [
        (expected_vm(), []),
        (
            build({"instancetype": "u1.medium", "preference": "fedora"})[0],
            [("virtualmachineclusterinstancetype", "u1.medium"), ("virtualmachineclusterpreference", "fedora")],
        ),
        (
            build({"instancetype": "VirtualMachineInstancetypes/it", "preference": "virtualmachinepreference/p"})[0],
            [("virtualmachineinstancetype", "it"), ("virtualmachinepreference", "p")],
        ),
        (
            {
                "spec": {
                    "instancetype": {"name": "x", "kind": "VirtualMachineClusterInstancetype"},
                    "preference": {"inferFromVolume": "root"},
                }
            },
            [("virtualmachineclusterinstancetype", "x")],
        ),
        ({"spec": {"preference": {"name": "x", "kind": "Unknown"}}}, [("Unknown", "x")]),
        ({}, []),
    ],
)
def test_matcher_references(manifest, objects):
    assert [
        (found.kind.singular if found.kind else found.written, found.name) for found in matcher_references(manifest)
    ] == objects


@pytest.mark.parametrize(
    ("value", "errors"),
    [
        ("ok-name", []),
        ("a", []),
        ("1", []),
        ("a" * 63, []),
        ("a" * 64, ["must be no more than 63 characters"]),
        ("a.b", ["must not contain dots"]),
        ("A", [DNS_LABEL_MESSAGE]),
        ("-a", [DNS_LABEL_MESSAGE]),
        ("a-", [DNS_LABEL_MESSAGE]),
        ("", [DNS_LABEL_MESSAGE]),
        ("a\n", [DNS_LABEL_MESSAGE]),
        ("a_b", [DNS_LABEL_MESSAGE]),
        ("é", [DNS_LABEL_MESSAGE]),
    ],
)
def test_dns1123_label_errors(value, errors):
    assert dns1123_label_errors(value) == errors


@pytest.mark.parametrize(
    ("prefix", "kind"),
    [
        ("virtualmachineinstancetype", "virtualmachineinstancetype"),
        ("VirtualMachineInstancetypes", "virtualmachineinstancetype"),
        ("virtualmachineinstancetypess", None),
        ("vmi", None),
        ("virtualmachinepreference", None),
    ],
)
def test_instancetype_prefix_kinds(prefix, kind):
    """create vm's --instancetype KIND/: the kinds of the instancetype matcher, in any kubectl spelling."""
    if kind is None:
        with pytest.raises(UsageError, match="supported values are: virtualmachineinstancetype, "):
            build({"instancetype": f"{prefix}/it"})
    else:
        assert build({"instancetype": f"{prefix}/it"})[0]["spec"]["instancetype"] == {"name": "it", "kind": kind}


def test_flag_table_matches_options():
    option_fields = {f.name: f for f in fields(VMOptions)}
    defaults = VMOptions()
    assert [spec.field for spec in VM_FLAGS] == [name for name in option_fields if name not in ("namespace", "changed")]
    for spec in VM_FLAGS:
        assert getattr(defaults, spec.field) == spec.default, spec.name
    assert {name for group in VM_MUTUALLY_EXCLUSIVE_GROUPS for name in group} <= set(VM_FLAGS_BY_NAME)
    assert [s.name for s in VM_FLAGS if s.deprecated] == ["volume-datasource", "volume-clone-pvc", "volume-blank"]
    assert [s.name for s in VM_FLAGS if s.repeatable] == [
        "volume-containerdisk",
        "volume-pvc",
        "volume-import",
        "ssh-key",
        "access-cred",
        "volume-datasource",
        "volume-clone-pvc",
        "volume-blank",
    ]


def test_volume_import_help_lists_every_type():
    help_text = VM_FLAGS_BY_NAME["volume-import"].help
    assert help_text.splitlines()[2:] == [
        "  type blank - size:resource.Quantity,type:string,name:string,bootorder:uint",
        "  type gcs - secretref:string,url:string,size:resource.Quantity,type:string,name:string,bootorder:uint",
        "  type http - certconfigmap:string,extraheaders:[]string,secretextraheaders:[]string,secretref:string,"
        "url:string,size:resource.Quantity,type:string,name:string,bootorder:uint",
        "  type imageio - certconfigmap:string,diskid:string,secretref:string,url:string,size:resource.Quantity,"
        "type:string,name:string,bootorder:uint",
        "  type pvc - name:string,src:string,size:resource.Quantity,type:string,bootorder:uint",
        "  type registry - certconfigmap:string,imagestream:string,pullmethod:string,secretref:string,url:string,"
        "size:resource.Quantity,type:string,name:string,bootorder:uint",
        "  type s3 - certconfigmap:string,secretref:string,url:string,size:resource.Quantity,type:string,"
        "name:string,bootorder:uint",
        "  type vddk - backingfile:string,initimageurl:string,secretref:string,thumbprint:string,url:string,"
        "uuid:string,size:resource.Quantity,type:string,name:string,bootorder:uint",
        "  type snapshot - name:string,src:string,size:resource.Quantity,type:string,bootorder:uint",
        "  type ds - name:string,src:string,size:resource.Quantity,type:string,bootorder:uint",
    ]


def test_examples_are_valid_commands():
    commands = example_command_lines(EXAMPLES, "vm")
    assert len(commands) >= 20
    for argv in commands:
        result = run_create("vm", argv, read_file=lambda path: "pw")
        assert result.exit_code == 0, (argv, result.stderr)


def test_differences_are_documented():
    assert DIFFERENCES_FROM_VIRTCTL and all(isinstance(item, str) and item for item in DIFFERENCES_FROM_VIRTCTL)


def _not_base64(index: int, source: str, key: str) -> str:
    path = f"spec.template.spec.volumes[{index}].{source}.{key}"
    return f"{path}.{source}.{key} is not a valid base64 value."


# Values that cannot be meant, refused beyond virtctl (instancetype/differences.py): virtctl writes them into
# the manifest, so these rows are not in FAILURES, whose rows the differential test runs against virtctl.
BEYOND_VIRTCTL = [
    ({"memory": "-1Gi"}, 'failed to parse "--memory" flag: memory must not be negative: -1Gi'),
    ({"memory": "-.5Ki"}, 'failed to parse "--memory" flag: memory must not be negative: -.5Ki'),
    ({"memory": "-1n"}, 'failed to parse "--memory" flag: memory must not be negative: -1n'),
    # KubeVirt's admission webhook message (vmi-create-admitter.go validateVolumes), path repeated as it writes it
    ({"cloud-init-user-data": "notbase64!!"}, _not_base64(0, "cloudInitNoCloud", "userDataBase64")),
    ({"cloud-init-user-data": "eA="}, _not_base64(0, "cloudInitNoCloud", "userDataBase64")),
    ({"cloud-init-user-data": "eA==eA=="}, _not_base64(0, "cloudInitNoCloud", "userDataBase64")),
    (
        {"cloud-init": "configdrive", "cloud-init-network-data": "bmV0d29yaw"},
        _not_base64(0, "cloudInitConfigDrive", "networkDataBase64"),
    ),
    (
        {"volume-containerdisk": ["src:img"], "cloud-init-user-data": "é", "cloud-init-network-data": "%%%%"},
        _not_base64(1, "cloudInitNoCloud", "userDataBase64")
        + ", "
        + _not_base64(1, "cloudInitNoCloud", "networkDataBase64"),
    ),
    # every error virtctl reports comes first
    (
        {"memory": "-1Gi", "run-strategy": "bad"},
        'failed to parse "--run-strategy" flag: invalid run strategy "bad", '
        "supported values are: Always, Manual, Halted, Once, RerunOnFailure",
    ),
]


@pytest.mark.parametrize(("flags", "message"), BEYOND_VIRTCTL, ids=[m[:60] for _, m in BEYOND_VIRTCTL])
def test_values_that_cannot_be_meant_are_refused(flags, message):
    assert usage_error(lambda: build(flags)) == message


@pytest.mark.parametrize("user_data", ["eA==", "eA\n==", "eA==\r\n", "eB==", "dXNlcg=="])
def test_base64_is_read_as_go_reads_it(user_data):
    """Go ignores newlines and does not require the unused bits to be zero."""
    manifest, _ = build({"cloud-init-user-data": user_data})
    volume = manifest["spec"]["template"]["spec"]["volumes"][0]
    assert volume["cloudInitNoCloud"] == {"userDataBase64": user_data}


@pytest.mark.parametrize("memory", ["0", "-0", "-0Gi"])
def test_zero_memory_is_not_negative(memory):
    manifest, _ = build({"memory": memory})
    assert manifest["spec"]["template"]["spec"]["domain"]["memory"]["guest"] == "0"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["--termination-grace-period", "４"],
            'invalid argument "４" for "--termination-grace-period" flag: strconv.ParseInt: parsing "４": invalid syntax',
        ),
        (
            ["--termination-grace-period", "1\u0663"],  # ARABIC-INDIC DIGIT THREE: int() reads it, Go does not
            'invalid argument "1\u0663" for "--termination-grace-period" flag: strconv.ParseInt: parsing '
            '"1\u0663": invalid syntax',
        ),
    ],
)
def test_non_ascii_digits_are_not_digits(argv, message):
    result = run_create("vm", argv)
    assert (result.exit_code, result.stderr) == (1, f"error: {message}\n")


# --- the same rows through virtctl v1.8.0 (hack/virtctl/build.sh): our CLI must answer as it does ------------------

# every row, except those showing our deliberate differences (extensions, the documented volume order)
VIRTCTL_ROWS = [
    ("vm", flags_to_argv(flags))
    for case_id, flags, _ in SUCCESS
    if "(extension)" not in case_id and "documented order" not in case_id
] + [("vm", flags_to_argv(flags)) for flags, _ in FAILURES]


@pytest.fixture(scope="module")
def virtctl_results(binaries, virtctl_workdir):
    return virtctl_answers(binaries, virtctl_workdir, VIRTCTL_ROWS)


@pytest.mark.differential
@pytest.mark.parametrize(("command", "argv"), VIRTCTL_ROWS, ids=[" ".join(a)[:120] for _, a in VIRTCTL_ROWS])
def test_rows_same_as_virtctl(virtctl_results, virtctl_workdir, command, argv):
    assert_same_as_virtctl(virtctl_results, virtctl_workdir, command, argv)


@pytest.mark.differential
@pytest.mark.parametrize(
    ("command", "argv"),
    [("vm", flags_to_argv(flags)) for flags, _ in BEYOND_VIRTCTL[:-1]]
    + [
        ("instancetype", ["--cpu", "1", "--memory", "-1Gi"]),
    ],
)
def test_values_that_cannot_be_meant_are_refused_beyond_virtctl(binaries, virtctl_workdir, command, argv):
    """virtctl writes negative memory and undecodable cloud-init data into the manifest; we refuse them."""
    code, stdout, _ = run_virtctl(binaries, virtctl_workdir, command, argv)
    _, error, _ = create_through_cli(command, argv)
    assert code == 0 and "kind:" in stdout
    assert error is not None
