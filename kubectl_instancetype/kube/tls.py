"""TLS settings from the kubeconfig: the SSL context that verifies (or not) exactly as the kubeconfig says."""

from __future__ import annotations

import os
import ssl

from ..errors import ConfigurationError
from .config import ClusterConfig


def _write_private_temp(data: bytes) -> str:
    import tempfile  # only for client certificates given as data: tempfile pulls in random and shutil

    handle, path = tempfile.mkstemp(prefix="kubectl-instancetype-", suffix=".pem")
    with os.fdopen(handle, "wb") as out:
        out.write(data)
    return path


def build_ssl_context(config: ClusterConfig) -> ssl.SSLContext:
    """An SSL context that verifies exactly as the kubeconfig says."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    if config.insecure:
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    else:
        try:
            if config.ca_data:
                context.load_verify_locations(cadata=config.ca_data.decode("utf-8", "replace"))
            elif config.ca_file:
                context.load_verify_locations(cafile=config.ca_file)
            else:
                context.load_default_certs()
        except (OSError, ssl.SSLError) as exc:
            raise ConfigurationError(f"unable to load the certificate authority: {exc}") from exc
    cert_file, key_file = config.client_cert_file, config.client_key_file
    temporary: list[str] = []
    try:
        if config.client_cert_data:
            cert_file = _write_private_temp(config.client_cert_data)
            temporary.append(cert_file)
        if config.client_key_data:
            key_file = _write_private_temp(config.client_key_data)
            temporary.append(key_file)
        if cert_file:
            # ssl can only read a client key pair from files; the temporary copies live
            # for the duration of this call, with mode 0600.
            context.load_cert_chain(cert_file, key_file)
    except (OSError, ssl.SSLError) as exc:
        raise ConfigurationError(f"unable to load the client certificate: {exc}") from exc
    finally:
        for path in temporary:
            os.unlink(path)
    return context
