"""The kubeconfig modules import each other without a cycle, and the static path stays light.

``config`` used to import ``official`` (lazily) while ``official`` imported ``config``; the shared types now
live in ``kubeconfig_model``, which imports none of them. Every import counts here, lazy ones and those under
``TYPE_CHECKING`` included.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import kubectl_instancetype

PACKAGE = Path(kubectl_instancetype.__file__).parent
OURS = {"config", "official", "tls", "kubeconfig_model", "kubeconfig_yaml", "exec_credential"}


def _kube_imports(path: Path) -> set[str]:
    """Names of the kube/ modules ``path`` imports anywhere (top level, in functions, under TYPE_CHECKING)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level == 1:  # from .x import y / from . import x
                found.update([module.split(".")[0]] if module else [alias.name for alias in node.names])
            elif module.startswith("kubectl_instancetype.kube."):
                found.add(module.split(".")[2])
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("kubectl_instancetype.kube."):
                    found.add(alias.name.split(".")[2])
    return found


def test_no_import_cycle_through_the_kubeconfig_modules() -> None:
    modules = {path.stem: path for path in (PACKAGE / "kube").glob("*.py") if path.stem != "__init__"}
    graph = {name: _kube_imports(path) & set(modules) for name, path in modules.items()}
    assert "official" in graph["config"] and "config" not in graph["official"]

    def reaches(start: str, goal: str, seen: set[str]) -> bool:
        return any(nxt == goal or (nxt not in seen and reaches(nxt, goal, seen | {nxt})) for nxt in graph[start])

    cycles = sorted(name for name in OURS if name in graph and reaches(name, name, {name}))
    assert cycles == []


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
        "from kubectl_instancetype.kube.config import ConnectionOptions, load_cluster_config\n"
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
    assert "kubectl_instancetype.kube.official" not in loaded
    assert "kubectl_instancetype.kube.exec_credential" not in loaded
