"""Use cases: what a command does, orchestrated between :mod:`..kube` (the cluster), :mod:`..oci` (OCI
registries) and the pure domain (:mod:`..instancetype`). Command modules parse flags, call one use case and
print; use cases never print and never parse flags."""
