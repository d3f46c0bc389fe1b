"""KubeVirt kinds the bare control plane does not serve (VMIs, the KubeVirt CR, pools, templates), added with
KubeVirt v1.9.0's own schemas when a test needs to write the objects KubeVirt's controllers would write. The
real KubeVirt plane serves them all already; then nothing is added."""

from __future__ import annotations

import time

# kind -> (group, version, plural, schema source: the lowercase kind in KubeVirt's CRDsValidation, or None: open)
KINDS = {
    "VirtualMachineInstance": ("kubevirt.io", "v1", "virtualmachineinstances", "virtualmachineinstance"),
    "KubeVirt": ("kubevirt.io", "v1", "kubevirts", "kubevirt"),
    "VirtualMachinePool": ("pool.kubevirt.io", "v1beta1", "virtualmachinepools", "virtualmachinepool"),
    # virt-template's CRD is not in KubeVirt's validations: an open schema
    "VirtualMachineTemplate": ("template.kubevirt.io", "v1beta1", "virtualmachinetemplates", None),
}
OPEN = {"type": "object", "x-kubernetes-preserve-unknown-fields": True}


def serve_kinds(control_plane, kinds) -> None:
    """Create the CRDs of ``kinds`` that are not served yet and wait until they are."""
    from hack.localcluster.crds import kubevirt_module_dir, read_validations

    validations = None
    meta = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition"}
    for kind in kinds:
        group, version, plural, source = KINDS[kind]
        name = f"{plural}.{group}"
        if control_plane.get({**meta, "metadata": {"name": name}}) is not None:
            continue
        schema = OPEN
        if source:
            validations = validations or read_validations(kubevirt_module_dir())
            schema = validations[source]
        control_plane.apply(
            {
                **meta,
                "metadata": {"name": name},
                "spec": {
                    "group": group,
                    "names": {"kind": kind, "plural": plural, "singular": kind.lower()},
                    "scope": "Namespaced",
                    "versions": [
                        {
                            "name": version,
                            "served": True,
                            "storage": True,
                            "schema": {"openAPIV3Schema": schema},
                            "subresources": {"status": {}},
                        }
                    ],
                },
            }
        )
        for _ in range(100):
            code, _answer = control_plane.request("GET", f"/apis/{group}/{version}/{plural}")
            if code == 200:
                break
            time.sleep(0.1)
