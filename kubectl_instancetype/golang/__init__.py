"""Go standard-library and Kubernetes-library behaviour, reproduced where users see its results.

One module per Go package, each importable alone (nothing is imported here, start-up time matters):
``strconv`` (number and bool parsing, ``%q`` quoting), ``encoding_csv`` (pflag's string-slice records),
``duration`` (``time.ParseDuration`` and kubectl's ``--request-timeout``), ``tabwriter`` (kubectl's
tables) and ``goyaml`` (``sigs.k8s.io/yaml``'s printer). Differential tests compare each with the Go
code itself (``hack/virtctl/goref``).
"""
