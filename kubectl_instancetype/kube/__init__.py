"""The only code that talks to the API server: kubeconfig, transport, resource paths, paging, errors."""
