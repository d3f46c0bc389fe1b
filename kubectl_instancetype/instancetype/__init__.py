"""Pure KubeVirt instance type domain: no I/O, no CLI imports."""
