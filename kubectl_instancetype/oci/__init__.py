"""Reading image manifests and configs from an OCI distribution registry (``infer image``)."""
