"""The kubeconfig package's modules import each other without a cycle, and the static path stays light.

The shared types live in ``kubeconfig.model``, which imports none of its siblings; ``official`` and
``exec_credential`` import only ``model``, and ``resolve`` imports them lazily. Every import counts here, lazy
ones and those under ``TYPE_CHECKING`` included.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import kubectl_instancetype

PACKAGE = Path(kubectl_instancetype.__file__).parent / "kube" / "kubeconfig"


def _sibling_imports(path: Path) -> set[str]:
    """Names of the kubeconfig/ modules ``path`` imports anywhere (top level, in functions, under TYPE_CHECKING)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level == 1:  # from .x import y / from . import x
            module = node.module or ""
            found.update([module.split(".")[0]] if module else [alias.name for alias in node.names])
    return found


def test_the_model_imports_no_sibling_and_the_loaders_only_the_model() -> None:
    modules = {path.stem: path for path in PACKAGE.glob("*.py") if path.stem != "__init__"}
    graph = {name: _sibling_imports(path) & set(modules) for name, path in modules.items()}
    assert graph["model"] == set()
    assert graph["official"] == {"model"} and graph["exec_credential"] == {"model"}
    assert {"official", "exec_credential"} <= graph["resolve"]


def test_the_static_path_imports_no_yaml_base64_tempfile_or_kubernetes(tmp_path: Path) -> None:
    """Resolving a block-style kubeconfig with a CA file and a token, then building its TLS context."""
    ca = Path(__file__).resolve().parents[1] / "data" / "kubeconfigs" / "pki" / "ca.crt"
    path = tmp_path / "kubeconfig"
    path.write_text(
        "apiVersion: v1\nkind: Config\ncurrent-context: c\n"
        f"clusters:\n- name: cl\n  cluster:\n    server: https://127.0.0.1:6443\n    certificate-authority: {ca}\n"
        "users:\n- name: u\n  user:\n    token: abc\n"
        "contexts:\n- name: c\n  context:\n    cluster: cl\n    user: u\n    namespace: team\n"
    )
    script = (
        "import json, sys\n"
        "from kubectl_instancetype.kube.kubeconfig import ConnectionOptions, load_cluster_config\n"
        f"config = load_cluster_config(ConnectionOptions(kubeconfig={str(path)!r}), {{}}, '/nonexistent')\n"
        "assert config.authorization() == 'Bearer abc' and config.namespace == 'team'\n"
        "resolved = sorted(sys.modules)\n"
        "from kubectl_instancetype.kube.tls import build_ssl_context\n"
        "build_ssl_context(config)\n"
        "print(json.dumps([resolved, sorted(sys.modules)]))\n"
    )
    environ = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    completed = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=environ, check=True)
    resolved, connected = (set(names) for names in json.loads(completed.stdout))
    assert {"yaml", "base64", "tempfile", "kubernetes"} & {name.split(".")[0] for name in resolved} == set()
    # ssl itself imports base64; nothing else heavy comes with the TLS context
    assert {"yaml", "tempfile", "kubernetes"} & {name.split(".")[0] for name in connected} == set()
    loaded = resolved | connected
    assert "kubectl_instancetype.kube.kubeconfig.official" not in loaded
    assert "kubectl_instancetype.kube.kubeconfig.exec_credential" not in loaded
