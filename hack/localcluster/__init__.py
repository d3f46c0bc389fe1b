"""A real local Kubernetes plane: etcd, kube-apiserver, kube-controller-manager and kubectl, with KubeVirt's
virt-api and virt-controller and CDI's cdi-apiserver beside them, and KubeVirt's and CDI's own CRDs.

Used by the test suite (pytest session fixture), the benchmarks and ``make cluster`` / ``make demo``.
"""

from .controlplane import ControlPlane, ControlPlaneUnavailable, binaries_dir

__all__ = ["ControlPlane", "ControlPlaneUnavailable", "binaries_dir"]
