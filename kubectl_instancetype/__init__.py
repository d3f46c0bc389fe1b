"""kubectl-instancetype: KubeVirt instance types and preferences from the terminal."""

__version__ = "0.1.0"
