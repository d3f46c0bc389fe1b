"""The fast kubeconfig path agrees with the official ``kubernetes`` loader on a corpus of kubeconfigs.

For every case in ``tests/data/kubeconfigs/cases.yaml`` both resolve the same server, CA, client
certificate and key, Authorization header and namespace; or the fast path hands the context over, and
then what the plugin uses is exactly what the official loader produced.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import yaml

from kubectl_instancetype.kube import kubeconfig
from kubectl_instancetype.kube.kubeconfig import ConnectionOptions

CORPUS = Path(__file__).resolve().parents[1] / "data" / "kubeconfigs"
CASES = yaml.safe_load((CORPUS / "cases.yaml").read_text())

pytestmark = pytest.mark.differential


def _read(path: str | None) -> bytes | None:
    return Path(path).read_bytes() if path else None


def official(paths: list[str], context: str | None) -> dict:
    """What the official loader resolves, in comparable form."""
    from kubernetes.client.configuration import Configuration
    from kubernetes.config.kube_config import list_kube_config_contexts, load_kube_config

    cfg = Configuration()
    load_kube_config(
        config_file=os.pathsep.join(paths), context=context, client_configuration=cfg, persist_config=False
    )
    contexts, current = list_kube_config_contexts(config_file=os.pathsep.join(paths))
    active = next(c for c in contexts if c["name"] == (context or current["name"]))
    return {
        "server": cfg.host.rstrip("/"),
        "ca": _read(cfg.ssl_ca_cert),
        "cert": _read(cfg.cert_file),
        "key": _read(cfg.key_file),
        "authorization": cfg.get_api_key_with_prefix("BearerToken", alias="authorization"),
        "insecure": not cfg.verify_ssl,
        "tls_server_name": getattr(cfg, "tls_server_name", None),
        "proxy": cfg.proxy,
        "namespace": active["context"].get("namespace") or "default",
    }


def ours(config: kubeconfig.ClusterConfig) -> dict:
    """What the plugin's transport will use, in the same form."""
    return {
        "server": config.server,
        "ca": config.ca_data or _read(config.ca_file),
        "cert": config.client_cert_data or _read(config.client_cert_file),
        "key": config.client_key_data or _read(config.client_key_file),
        "authorization": config.authorization(),
        "insecure": config.insecure,
        "tls_server_name": config.tls_server_name,
        "proxy": config.proxy_url,
        "namespace": config.namespace,
    }


def kubectl_current_context(paths: list[str]) -> str:
    """kubectl's rule: the first file that sets current-context wins."""
    for path in paths:
        current = (yaml.safe_load(Path(path).read_text()) or {}).get("current-context")
        if current:
            return current
    return ""


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_fast_path_matches_official_loader(case: dict) -> None:
    paths = [str(CORPUS / name) for name in case["files"]]
    environ = {"KUBECONFIG": os.pathsep.join(paths)}
    options = ConnectionOptions(context=case.get("context"))
    # The official loader lets the *last* file's current-context win; kubectl (and we) the first.
    # Both are given kubectl's choice, which is also what the hand-over passes explicitly.
    expected = official(paths, case.get("context") or kubectl_current_context(paths))

    files = kubeconfig.read_kubeconfig(kubeconfig.kubeconfig_paths(None, environ, "/nonexistent"))
    if case.get("handover"):
        with pytest.raises(kubeconfig.NeedsOfficialLoader):
            kubeconfig.resolve_static(files, options)
        resolved = kubeconfig.load_cluster_config(options, environ, "/nonexistent")
        assert resolved.via_official_loader
    else:
        resolved = kubeconfig.resolve_static(files, options)
        assert not resolved.via_official_loader
    assert ours(resolved) == expected


def test_exec_plugin_token_comes_from_the_plugin() -> None:
    environ = {"KUBECONFIG": str(CORPUS / "exec.yaml")}
    resolved = kubeconfig.load_cluster_config(ConnectionOptions(), environ, "/nonexistent")
    assert resolved.authorization() == "Bearer exec-token-42"
    assert resolved.namespace == "exec-ns"


def test_namespace_flag_overrides_the_context_on_both_paths() -> None:
    for name in ("token.yaml", "exec.yaml"):
        environ = {"KUBECONFIG": str(CORPUS / name)}
        resolved = kubeconfig.load_cluster_config(ConnectionOptions(namespace="flag-ns"), environ, "/x")
        assert (resolved.namespace, resolved.namespace_explicit) == ("flag-ns", True)


def test_official_loader_differs_from_kubectl_on_current_context() -> None:
    """Why the hand-over always names the context: merged files disagree on current-context."""
    from kubernetes.config.kube_config import list_kube_config_contexts

    paths = [str(CORPUS / "merged/first.yaml"), str(CORPUS / "merged/sub/second.yaml")]
    _, official_current = list_kube_config_contexts(config_file=os.pathsep.join(paths))
    files = kubeconfig.read_kubeconfig(paths)
    assert (files.current_context, official_current["name"]) == ("beta", "alpha")


def _kubectl_binary() -> Path | None:
    from hack.localcluster.crds import cache_root

    found = sorted((cache_root() / "controlplane").glob("*/kubectl"))
    return found[-1] if found else None


STATIC_CASES = [c for c in CASES if not c.get("handover") and not c.get("exec")]


@pytest.mark.parametrize("case", STATIC_CASES, ids=[c["name"] for c in STATIC_CASES])
def test_fast_path_matches_real_kubectl(case: dict, tmp_path: Path) -> None:
    """``kubectl config view --minify --flatten`` is the reference for server, CA, credentials and namespace."""
    import base64
    import json
    import subprocess

    kubectl = _kubectl_binary()
    if kubectl is None:
        pytest.skip("kubectl not built yet (hack/controlplane/build.sh)")
    paths = [str(CORPUS / name) for name in case["files"]]
    environ = {"KUBECONFIG": os.pathsep.join(paths), "HOME": str(tmp_path), "PATH": os.environ["PATH"]}
    command = [str(kubectl), "config", "view", "--minify", "--flatten", "--raw", "-o", "json"]
    if case.get("context"):
        command += ["--context", case["context"]]
    view = json.loads(subprocess.run(command, env=environ, capture_output=True, text=True, check=True).stdout)
    cluster, user = view["clusters"][0]["cluster"], (view["users"] or [{"user": {}}])[0]["user"]
    context = view["contexts"][0]["context"]
    decode = lambda key, where: base64.b64decode(where[key]) if where.get(key) else None  # noqa: E731
    token = user.get("token")
    if user.get("tokenFile"):  # --flatten leaves tokenFile as written, relative to its file
        token = (Path(paths[0]).parent / user["tokenFile"]).read_text().strip()
    expected = {
        "server": cluster["server"].rstrip("/"),
        "ca": decode("certificate-authority-data", cluster),
        "cert": decode("client-certificate-data", user),
        "key": decode("client-key-data", user),
        "authorization": f"Bearer {token}" if token else None,
        "insecure": bool(cluster.get("insecure-skip-tls-verify")),
        "tls_server_name": cluster.get("tls-server-name"),
        "proxy": cluster.get("proxy-url"),
        "namespace": context.get("namespace") or "default",
    }
    resolved = kubeconfig.load_cluster_config(ConnectionOptions(context=case.get("context")), environ, str(tmp_path))
    assert ours(resolved) == expected
