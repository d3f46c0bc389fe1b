"""A seeded corpus of VirtualMachines for ``create vm``: the objects they need in a namespace, and the VMs.

Every case is a set of ``create vm`` flags (built by the plugin's own virtctl-parity builder, as the command
builds them) plus, for some, edits a hand-written manifest would carry (a CPU topology, resources, a node
selector, annotations, an existing DataVolume as a volume), which is how a VM meets an instance type's
conflicts. The corpus covers: catalog (cluster) types and namespaced types, conflicts, spread topologies,
preference requirements, every inference source (PVC, DataVolume template with a PVC / snapshot / DataSource
/ registry / blank source, an existing DataVolume, a DataSource backed by a PVC or a VolumeSnapshot or
labelled itself, a VolumeSnapshot) under both failure policies (implicit ``Ignore``, explicit ``Reject``),
and references to types that do not exist.

The same seed gives the same corpus on every machine (``random.Random(SEED)``, no other randomness: the
names of generated volumes come from a fixed suffix). Nothing here talks to a cluster.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

SEED = 20261124
COUNT = 240
LABEL = "instancetype.kubevirt.io/"
IT_API = "instancetype.kubevirt.io/v1beta1"


@dataclass(frozen=True)
class Case:
    """One VM of the corpus: its name, the ``create vm`` flags and the manifest edits applied after building."""

    name: str
    flags: dict[str, Any]
    edits: tuple[str, ...] = ()
    tags: tuple[str, ...] = field(default=(), compare=False)

    def manifest(self) -> dict[str, Any]:
        """The VM exactly as ``create vm`` builds it (no namespace written), with the edits applied."""
        from kubectl_instancetype.instancetype.createvm import VMOptions, build_vm

        counter = iter(range(10_000))
        manifest, _ = build_vm(
            VMOptions.from_flags({"name": self.name, **self.flags}),
            random_suffix=lambda n: f"{next(counter):0{n}d}"[-n:].translate(str.maketrans("0123456789", "bcdfghjklm")),
            read_file=lambda path: "",
        )
        manifest = copy.deepcopy(manifest)
        for edit in self.edits:
            EDITS[edit](manifest)
        return manifest

    def argv(self) -> list[str]:
        """The ``create vm`` command line for the flags (edits cannot be given as flags)."""
        args = ["--name", self.name]
        for flag, value in self.flags.items():
            for item in value if isinstance(value, list) else [value]:
                args.append(f"--{flag}={str(item).lower() if isinstance(item, bool) else item}")
        return args


def _template_spec(vm: dict[str, Any]) -> dict[str, Any]:
    return vm["spec"]["template"]["spec"]


def _domain(vm: dict[str, Any]) -> dict[str, Any]:
    return _template_spec(vm)["domain"]


def _set(path: tuple[str, ...], value: Any):
    def edit(vm: dict[str, Any]) -> None:
        node = _domain(vm)
        for key in path[:-1]:
            node = node.setdefault(key, {})
        node[path[-1]] = value

    return edit


def _node_selector(vm: dict[str, Any]) -> None:
    _template_spec(vm)["nodeSelector"] = {"disk": "ssd"}


def _annotation(vm: dict[str, Any]) -> None:
    vm["spec"]["template"]["metadata"]["annotations"] = {"example.com/tier": "gold"}


def _scheduler(vm: dict[str, Any]) -> None:
    _template_spec(vm)["schedulerName"] = "custom"


def _existing_data_volume(vm: dict[str, Any]) -> None:
    """Boot from the existing, labelled DataVolume (a DataVolume volume without a template)."""
    _template_spec(vm).setdefault("volumes", []).insert(0, {"name": "existing", "dataVolume": {"name": "dv-labelled"}})
    for key in ("instancetype", "preference"):
        matcher = vm["spec"].get(key)
        if matcher and "inferFromVolume" in matcher:
            matcher["inferFromVolume"] = "existing"


def _collected_data_volume(vm: dict[str, Any]) -> None:
    """A DataVolume volume whose DataVolume is gone: KubeVirt reads the PVC of the same name."""
    _template_spec(vm).setdefault("volumes", []).insert(0, {"name": "gone", "dataVolume": {"name": "pvc-cluster"}})
    for key in ("instancetype", "preference"):
        matcher = vm["spec"].get(key)
        if matcher and "inferFromVolume" in matcher:
            matcher["inferFromVolume"] = "gone"


EDITS = {
    "sockets": _set(("cpu", "sockets"), 2),
    "cores": _set(("cpu", "cores"), 2),
    "threads": _set(("cpu", "threads"), 1),
    "cpu-model": _set(("cpu", "model"), "host-passthrough"),
    "cpu-request": _set(("resources", "requests", "cpu"), "500m"),
    "cpu-limit": _set(("resources", "limits", "cpu"), "2"),
    "memory-guest": _set(("memory", "guest"), "1Gi"),
    "memory-request": _set(("resources", "requests", "memory"), "1Gi"),
    "memory-limit": _set(("resources", "limits", "memory"), "2Gi"),
    "node-selector": _node_selector,
    "annotation": _annotation,
    "scheduler": _scheduler,
    "existing-dv": _existing_data_volume,
    "collected-dv": _collected_data_volume,
}
CONFLICT_EDITS = tuple(e for e in EDITS if e not in ("existing-dv", "collected-dv"))


def _it(name: str, namespace: str, cpus: int, guest: str, **extra: Any) -> dict[str, Any]:
    spec = {"cpu": {"guest": cpus}, "memory": {"guest": guest}}
    for key, value in extra.items():
        if key in ("cpu", "memory"):
            spec[key].update(value)
        else:
            spec[key] = value
    return {
        "apiVersion": IT_API,
        "kind": "VirtualMachineInstancetype",
        "metadata": {"name": name, "namespace": namespace},
        "spec": spec,
    }


def _pref(name: str, namespace: str, spec: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": IT_API,
        "kind": "VirtualMachinePreference",
        "metadata": {"name": name, "namespace": namespace},
        "spec": spec,
    }


def _labels(instancetype: str = "", preference: str = "", it_kind: str = "", pref_kind: str = "") -> dict[str, str]:
    labels = {}
    if instancetype:
        labels[f"{LABEL}default-instancetype"] = instancetype
    if it_kind:
        labels[f"{LABEL}default-instancetype-kind"] = it_kind
    if preference:
        labels[f"{LABEL}default-preference"] = preference
    if pref_kind:
        labels[f"{LABEL}default-preference-kind"] = pref_kind
    return labels


def _pvc(name: str, namespace: str, labels: dict[str, str]) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": name, "namespace": namespace, "labels": labels},
        "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}},
    }


# name -> labels of the PVCs in the corpus namespace
PVCS = {
    "pvc-cluster": _labels("u1.small", "fedora"),
    "pvc-ns": _labels("it-four", "pref-spread", "VirtualMachineInstancetype", "VirtualMachinePreference"),
    "pvc-spread-bad": _labels("it-three", "pref-spread", "virtualmachineinstancetype", "virtualmachinepreference"),
    "pvc-plain": {},
    "pvc-it-only": _labels("u1.medium"),
    "pvc-pref-only": _labels(preference="alpine"),
    "pvc-missing-type": _labels("u1.nope", "fedora.nope"),
    "pvc-req": _labels("u1.nano", "windows.11"),
    "pvc-bad-kind": _labels("u1.small", "fedora", "flavor", "VirtualMachineClusterPreference"),
}
DATA_SOURCES = ("ds-labelled", "ds-pvc", "ds-snap", "ds-none")


def fixtures(namespace: str) -> list[dict[str, Any]]:
    """The objects the corpus needs in ``namespace`` (the catalog's cluster types are expected to exist)."""
    objects: list[dict[str, Any]] = [
        _it("it-one", namespace, 1, "1Gi"),
        _it("it-three", namespace, 3, "3Gi"),
        _it("it-four", namespace, 4, "4Gi"),
        _it("it-six", namespace, 6, "2Gi"),
        _it("it-nodesel", namespace, 2, "2Gi", nodeSelector={"disk": "ssd"}),
        _it("it-annot", namespace, 2, "2Gi", annotations={"example.com/tier": "silver"}),
        _it("it-overcommit", namespace, 2, "4Gi", memory={"overcommitPercent": 25}),
        _it("it-sched", namespace, 1, "1Gi", schedulerName="custom"),
        _it("it-model", namespace, 2, "2Gi", cpu={"model": "host-model", "maxSockets": 8}),
        _pref("pref-spread", namespace, {"cpu": {"preferredCPUTopology": "spread"}}),
        _pref("pref-spread3", namespace, {"cpu": {"preferredCPUTopology": "spread", "spreadOptions": {"ratio": 3}}}),
        _pref(
            "pref-sct",
            namespace,
            {"cpu": {"preferredCPUTopology": "spread", "spreadOptions": {"across": "SocketsCoresThreads"}}},
        ),
        _pref(
            "pref-ct",
            namespace,
            {"cpu": {"preferredCPUTopology": "spread", "spreadOptions": {"across": "CoresThreads"}}},
        ),
        _pref("pref-cores", namespace, {"cpu": {"preferredCPUTopology": "cores"}}),
        _pref("pref-threads", namespace, {"cpu": {"preferredCPUTopology": "threads"}}),
        _pref("pref-req-cpu4", namespace, {"requirements": {"cpu": {"guest": 4}}}),
        _pref("pref-req-mem4", namespace, {"requirements": {"memory": {"guest": "4Gi"}}}),
        _pref("pref-req-arm", namespace, {"requirements": {"architecture": "arm64"}}),
        _pref(
            "pref-devices",
            namespace,
            {
                "devices": {"preferredDiskBus": "sata", "preferredInterfaceModel": "e1000e"},
                "machine": {"preferredMachineType": "q35"},
                "volumes": {"preferredStorageClassName": "fast"},
            },
        ),
    ]
    objects += [_pvc(name, namespace, labels) for name, labels in PVCS.items()]
    objects.append(
        {
            "apiVersion": "cdi.kubevirt.io/v1beta1",
            "kind": "DataVolume",
            "metadata": {"name": "dv-labelled", "namespace": namespace, "labels": _labels("u1.large", "rhel.9")},
            "spec": {"source": {"blank": {}}, "storage": {"resources": {"requests": {"storage": "1Gi"}}}},
        }
    )
    objects.append(
        {
            "apiVersion": "snapshot.storage.k8s.io/v1",
            "kind": "VolumeSnapshot",
            "metadata": {"name": "snap-labelled", "namespace": namespace, "labels": _labels("u1.micro", "alpine")},
            "spec": {"source": {"persistentVolumeClaimName": "pvc-plain"}},
        }
    )
    for name, labels, source in (
        ("ds-labelled", _labels("u1.medium", "rhel.9"), {"pvc": {"name": "pvc-plain", "namespace": namespace}}),
        ("ds-pvc", {}, {"pvc": {"name": "pvc-cluster", "namespace": namespace}}),
        ("ds-snap", {}, {"snapshot": {"name": "snap-labelled", "namespace": namespace}}),
        ("ds-none", {}, {}),
    ):
        objects.append(
            {
                "apiVersion": "cdi.kubevirt.io/v1beta1",
                "kind": "DataSource",
                "metadata": {"name": name, "namespace": namespace, "labels": labels},
                "spec": {"source": source},
            }
        )
    for name in ("u1.small", "u1.medium"):
        objects.append(_namespaced_catalog("VirtualMachineInstancetype", name, namespace))
    for name in ("fedora", "windows.11"):
        objects.append(_namespaced_catalog("VirtualMachinePreference", name, namespace))
    return objects


def _namespaced_catalog(kind: str, name: str, namespace: str) -> dict[str, Any]:
    from kubectl_instancetype.catalog.loader import load_catalog

    catalog = load_catalog().namespaced(namespace)
    objects = catalog.instancetypes if kind == "VirtualMachineInstancetype" else catalog.preferences
    return next(o for o in objects if o["metadata"]["name"] == name)


CATALOG_INSTANCETYPES = (
    "u1.nano",
    "u1.small",
    "u1.medium",
    "u1.2xlarge",
    "o1.small",
    "cx1.medium",
    "m1.large",
    "n1.medium",
    "rt1.small",
    "d1.small",
)
NAMESPACED_INSTANCETYPES = tuple(
    f"virtualmachineinstancetype/{n}"
    for n in (
        "it-one",
        "it-three",
        "it-four",
        "it-six",
        "it-nodesel",
        "it-annot",
        "it-overcommit",
        "it-sched",
        "it-model",
        "u1.small",
        "u1.medium",
    )
)
MISSING_INSTANCETYPES = ("u1.nope", "virtualmachineinstancetype/it-nope", "virtualmachineclusterinstancetype/u1.huge")
CATALOG_PREFERENCES = ("fedora", "rhel.9", "windows.11", "alpine", "cirros", "fedora.arm64", "centos.stream9.dpdk")
NAMESPACED_PREFERENCES = tuple(
    f"virtualmachinepreference/{n}"
    for n in (
        "pref-spread",
        "pref-spread3",
        "pref-sct",
        "pref-ct",
        "pref-cores",
        "pref-threads",
        "pref-req-cpu4",
        "pref-req-mem4",
        "pref-req-arm",
        "pref-devices",
        "fedora",
        "windows.11",
    )
)
MISSING_PREFERENCES = ("fedora.nope", "virtualmachinepreference/pref-nope")


def volume_flags(namespace: str) -> dict[str, tuple[str, str]]:
    """Volume choices: tag -> (flag, value). The first volume of a VM is what implicit inference reads."""
    return {
        "containerdisk": ("volume-containerdisk", "src:quay.io/containerdisks/fedora:41"),
        **{name: ("volume-pvc", f"src:{name}") for name in PVCS},
        "pvc-absent": ("volume-pvc", "src:pvc-absent"),
        **{
            name: ("volume-import", f"type:ds,src:{namespace}/{name},size:1Gi,name:{name}-root")
            for name in DATA_SOURCES
        },
        "ds-same-ns": ("volume-import", "type:ds,src:ds-labelled,size:1Gi,name:ds-local"),
        "ds-absent": ("volume-import", f"type:ds,src:{namespace}/ds-absent,size:1Gi,name:ds-absent-root"),
        "import-snapshot": ("volume-import", f"type:snapshot,src:{namespace}/snap-labelled,size:1Gi,name:snap-root"),
        "import-pvc": ("volume-import", f"type:pvc,src:{namespace}/pvc-cluster,size:1Gi,name:clone-root"),
        "import-pvc-plain": ("volume-import", f"type:pvc,src:{namespace}/pvc-plain,size:1Gi,name:clone-plain"),
        "import-registry": (
            "volume-import",
            "type:registry,url:docker://quay.io/containerdisks/fedora:41,size:1Gi,name:registry-root",
        ),
        "import-blank": ("volume-import", "type:blank,size:1Gi,name:blank-root"),
    }


def _volume_name(tag: str, flag: str, value: str) -> str:
    params = dict(part.split(":", 1) for part in value.split(","))
    if "name" in params:
        return params["name"]
    if flag == "volume-pvc":
        return params["src"]
    raise ValueError(tag)


def cases(namespace: str, *, seed: int = SEED, count: int = COUNT) -> list[Case]:
    """``count`` cases (at least one of each kind the module docstring lists), the same for the same seed."""
    rng = random.Random(seed)
    volumes = volume_flags(namespace)
    out: list[Case] = []

    def add(flags: dict[str, Any], edits: tuple[str, ...] = (), tags: tuple[str, ...] = ()) -> None:
        out.append(Case(f"corpus-{len(out):03d}", flags, edits, tags))

    # One of each inference source, implicit (Ignore) and explicit (Reject).
    for tag, (flag, value) in volumes.items():
        add({flag: [value]}, tags=("implicit", tag))
        if tag != "containerdisk":
            add({flag: [value], "infer-instancetype": True, "infer-preference": True}, tags=("explicit", tag))
    for edit in ("existing-dv", "collected-dv"):
        add({"volume-containerdisk": [volumes["containerdisk"][1]]}, (edit,), tags=("implicit", edit))
    # Every type choice once, on a plain container disk.
    for instancetype in CATALOG_INSTANCETYPES + NAMESPACED_INSTANCETYPES + MISSING_INSTANCETYPES:
        add({"instancetype": instancetype, "volume-containerdisk": [volumes["containerdisk"][1]]}, tags=("type",))
    for preference in CATALOG_PREFERENCES + NAMESPACED_PREFERENCES + MISSING_PREFERENCES:
        add({"preference": preference, "instancetype": "u1.medium"}, tags=("preference",))
    # Every conflict edit against a type that has the field.
    for edit in CONFLICT_EDITS:
        target = {
            "node-selector": "virtualmachineinstancetype/it-nodesel",
            "annotation": "virtualmachineinstancetype/it-annot",
            "scheduler": "virtualmachineinstancetype/it-sched",
            "cpu-model": "virtualmachineinstancetype/it-model",
        }.get(edit, "u1.medium")
        add({"instancetype": target}, (edit,), tags=("conflict",))
    # The rest at random.
    tags = list(volumes)
    while len(out) < count:
        flags: dict[str, Any] = {}
        chosen = rng.sample(tags, rng.choice((0, 1, 1, 1, 2)))
        for tag in chosen:
            flag, value = volumes[tag]
            flags.setdefault(flag, []).append(value)
        names = [_volume_name(tag, *volumes[tag]) for tag in chosen if tag != "containerdisk"]
        edits: list[str] = []
        roll = rng.random()
        if roll < 0.35:
            flags["instancetype"] = rng.choice(CATALOG_INSTANCETYPES + NAMESPACED_INSTANCETYPES + MISSING_INSTANCETYPES)
        elif roll < 0.45:
            flags["memory"] = rng.choice(("256Mi", "1Gi", "2Gi"))
        elif roll < 0.6 and names:
            flags["infer-instancetype-from"] = rng.choice(names)
        elif roll < 0.7 and chosen:
            flags["infer-instancetype"] = rng.choice((True, False))
        roll = rng.random()
        if roll < 0.4:
            flags["preference"] = rng.choice(CATALOG_PREFERENCES + NAMESPACED_PREFERENCES + MISSING_PREFERENCES)
        elif roll < 0.55 and names:
            flags["infer-preference-from"] = rng.choice(names)
        elif roll < 0.65 and chosen:
            flags["infer-preference"] = rng.choice((True, False))
        if rng.random() < 0.25:
            edits.append(rng.choice(CONFLICT_EDITS))
        if rng.random() < 0.05:
            edits.append(rng.choice(("existing-dv", "collected-dv")))
        if rng.random() < 0.3:
            flags["run-strategy"] = rng.choice(("Halted", "Manual", "Always", "RerunOnFailure", "Once"))
        add(flags, tuple(edits), tags=("random",))
    return out


def iter_manifests(namespace: str, **kwargs: Any) -> Iterator[tuple[Case, dict[str, Any]]]:
    """(case, manifest) for every case whose flags ``create vm`` accepts (the builder's usage errors are skipped:
    those never reach a cluster)."""
    from kubectl_instancetype.errors import UsageError

    for case in cases(namespace, **kwargs):
        try:
            yield case, case.manifest()
        except UsageError:
            continue
