"""A real local Kubernetes control plane (etcd + kube-apiserver + kubectl) with KubeVirt's own CRDs.

Used by the test suite (pytest session fixture), the benchmarks and ``make cluster`` / ``make demo``.
"""

from .controlplane import ControlPlane, ControlPlaneUnavailable, binaries_dir

__all__ = ["ControlPlane", "ControlPlaneUnavailable", "binaries_dir"]
