"""Broken kubeconfigs fail with kubectl's own sentence, checked against the real kubectl v1.36.3.

Every case is a kubeconfig kubectl refuses before (or instead of) talking to a server: wrong shapes,
unreadable or malformed certificate and token files, contradictory TLS settings, failing exec credential
plugins, header-breaking tokens. The plugin must print what kubectl prints, after our ``error: `` prefix
(kubectl's ``Error in configuration:`` heading becomes ``error:``; see docs/errors.md), and exit 1.
"""

from __future__ import annotations

import base64
import os
import subprocess
from pathlib import Path

import pytest

from tests.conftest import run_cli

PKI = Path(__file__).resolve().parents[1] / "data" / "kubeconfigs" / "pki"
SERVER = "https://127.0.0.1:1"  # nothing listens: every case must fail before a connection matters


def _kubectl() -> Path:
    from hack.localcluster.crds import cache_root

    found = sorted((cache_root() / "controlplane").glob("*/kubectl"))
    if not found:
        pytest.skip("kubectl not built yet (hack/controlplane/build.sh)")
    return found[-1]


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def _config(cluster: str, user: str) -> str:
    return (
        "apiVersion: v1\nkind: Config\ncurrent-context: c\n"
        f"clusters:\n- name: cl\n  cluster: {cluster}\n"
        f"users:\n- name: u\n  user: {user}\n"
        "contexts:\n- name: c\n  context: {cluster: cl, user: u}\n"
    )


def _exec_user(command: str, extra: str = ", interactiveMode: Never") -> str:
    return f"{{exec: {{apiVersion: client.authentication.k8s.io/v1, command: '{command}'{extra}}}}}"


def _plugin(output: str, code: int = 0) -> str:
    """A shell script that prints ``output`` and exits with ``code``."""
    return f"#!/bin/sh\ncat <<'JSON'\n{output}\nJSON\nexit {code}\n"


V1 = "client.authentication.k8s.io/v1"
GARBAGE = b"not a certificate\n"

# name -> (kubeconfig text with {dir} for the case's directory, {files} the files to create there)
CASES: dict[str, tuple[str, dict[str, str | bytes]]] = {
    # wrong shapes, as Go's encoding/json reports them
    "clusters-of-numbers": ("clusters: [1, 2]\ncurrent-context: c\n", {}),
    "contexts-of-strings": ("contexts: [a, b]\ncurrent-context: c\n", {}),
    "users-a-mapping": ("users: {a: 1}\ncurrent-context: c\n", {}),
    "cluster-a-string": (_config("hello", "{token: t}"), {}),
    "server-a-number": (_config("{server: 5}", "{token: t}"), {}),
    "insecure-quoted-yes": (_config(f'{{server: "{SERVER}", insecure-skip-tls-verify: "yes"}}', "{token: t}"), {}),
    "current-context-a-number": ("current-context: 5\n", {}),
    "current-context-a-list": ("current-context: [a]\n", {}),
    "as-groups-of-maps": (_config(f"{{server: {SERVER}}}", "{token: t, as-groups: [{a: b}]}"), {}),
    "exec-env-a-string": (_config(f"{{server: {SERVER}}}", "{exec: {command: x, env: nope}}"), {}),
    "auth-provider-config-number": (
        _config(f"{{server: {SERVER}}}", "{auth-provider: {name: oidc, config: {id-token: 5}}}"),
        {},
    ),
    # issue 34: go-yaml's resolve keeps a plain scalar past int64/uint64/float64 a string; an anchor holding itself
    "preference-of-5000-digits": ("preferences:\n  colors: " + "1" * 5000 + "\ncurrent-context: c\n", {}),
    "anchor-containing-itself": ("x: &a [*a]\ncurrent-context: c\n", {}),
    "document-a-string": ("hello\n", {}),
    "document-a-number": ("42\n", {}),
    "not-utf8": (b'current-context: "\xff"\n', {}),  # type: ignore[dict-item]
    "bad-base64": (_config(f'{{server: {SERVER}, certificate-authority-data: "Zm9v!x"}}', "{token: t}"), {}),
    "bad-base64-padding": (_config(f"{{server: {SERVER}, certificate-authority-data: Zm9}}", "{token: t}"), {}),
    "client-key-data-a-number": (_config(f"{{server: {SERVER}}}", "{client-key-data: 5}"), {}),
    # clientcmd's validation
    "ca-file-missing": (_config(f"{{server: {SERVER}, certificate-authority: {{dir}}/absent.crt}}", "{token: t}"), {}),
    "ca-file-and-data": (
        _config(f"{{server: {SERVER}, certificate-authority: {{dir}}/ca.crt, certificate-authority-data: Zm9v}}", "{}"),
        {"ca.crt": (PKI / "ca.crt").read_bytes()},
    ),
    "client-cert-without-key": (
        _config(f"{{server: {SERVER}}}", "{client-certificate: {dir}/c.crt}"),
        {"c.crt": (PKI / "client.crt").read_bytes()},
    ),
    "client-cert-and-key-missing": (
        _config(f"{{server: {SERVER}}}", "{client-certificate: {dir}/no.crt, client-key: {dir}/no.key}"),
        {},
    ),
    "client-key-missing": (
        _config(f"{{server: {SERVER}}}", "{client-certificate: {dir}/c.crt, client-key: {dir}/no.key}"),
        {"c.crt": (PKI / "client.crt").read_bytes()},
    ),
    "proxy-url-ftp": (_config(f'{{server: {SERVER}, proxy-url: "ftp://p:21"}}', "{token: t}"), {}),
    "proxy-url-without-scheme": (_config(f'{{server: {SERVER}, proxy-url: "proxy.example:3128"}}', "{token: t}"), {}),
    "proxy-url-host-port": (_config(f'{{server: {SERVER}, proxy-url: "127.0.0.1:3128"}}', "{token: t}"), {}),
    "proxy-url-path": (_config(f'{{server: {SERVER}, proxy-url: "proxy/x"}}', "{token: t}"), {}),
    "token-and-basic-auth": (_config(f"{{server: {SERVER}}}", "{token: t, username: a, password: b}"), {}),
    "token-file-missing": (_config(f"{{server: {SERVER}}}", "{tokenFile: {dir}/absent}"), {}),
    "token-file-a-directory": (_config(f"{{server: {SERVER}}}", "{tokenFile: {dir}/sub}"), {"sub/x": "x"}),
    # TLS material
    "ca-with-insecure": (
        _config(
            f"{{server: {SERVER}, certificate-authority: {{dir}}/ca.crt, insecure-skip-tls-verify: true}}", "{token: t}"
        ),
        {"ca.crt": (PKI / "ca.crt").read_bytes()},
    ),
    "ca-data-with-insecure": (
        _config(
            f"{{server: {SERVER}, certificate-authority-data: Zm9v, insecure-skip-tls-verify: true}}", "{token: t}"
        ),
        {},
    ),
    "ca-file-garbage": (
        _config(f"{{server: {SERVER}, certificate-authority: {{dir}}/ca.crt}}", "{token: t}"),
        {"ca.crt": GARBAGE},
    ),
    "ca-data-garbage": (
        _config(f"{{server: {SERVER}, certificate-authority-data: {_b64(GARBAGE)}}}", "{token: t}"),
        {},
    ),
    "client-cert-data-garbage": (
        _config(
            f"{{server: {SERVER}, insecure-skip-tls-verify: true}}",
            f"{{client-certificate-data: {_b64(GARBAGE)}, client-key-data: {_b64((PKI / 'client.key').read_bytes())}}}",
        ),
        {},
    ),
    "client-key-data-garbage": (
        _config(
            f"{{server: {SERVER}, insecure-skip-tls-verify: true}}",
            f"{{client-certificate-data: {_b64((PKI / 'client.crt').read_bytes())}, client-key-data: {_b64(GARBAGE)}}}",
        ),
        {},
    ),
    # header injection
    "token-with-crlf": (
        _config(f"{{server: {SERVER}, insecure-skip-tls-verify: true}}", '{token: "a\\r\\nX-Evil: 1"}'),
        {},
    ),
    "token-with-nul": (_config(f"{{server: {SERVER}, insecure-skip-tls-verify: true}}", '{token: "a\\0b"}'), {}),
    "token-file-with-lf": (
        _config(f"{{server: {SERVER}, insecure-skip-tls-verify: true}}", "{tokenFile: {dir}/token}"),
        {"token": "abc\nX-Evil: 1\n"},
    ),
    "token-file-blank": (
        _config(f"{{server: {SERVER}, insecure-skip-tls-verify: true}}", "{tokenFile: {dir}/token}"),
        {"token": "\n"},
    ),
    # exec credential plugins
    "exec-not-found": (_config(f"{{server: {SERVER}}}", _exec_user("kubectl-instancetype-no-such-plugin")), {}),
    "exec-not-found-with-install-hint": (
        _config(
            f"{{server: {SERVER}}}",
            _exec_user(
                "kubectl-instancetype-no-such-plugin", ", interactiveMode: Never, installHint: 'apt install it'"
            ),
        ),
        {},
    ),
    "exec-env-without-name": (
        _config(f"{{server: {SERVER}}}", _exec_user("x", ", interactiveMode: Never, env: [{value: v}]")),
        {},
    ),
    "exec-exit-code": (_config(f"{{server: {SERVER}}}", _exec_user("./plugin")), {"plugin": _plugin("", 3)}),
    "exec-not-json": (_config(f"{{server: {SERVER}}}", _exec_user("./plugin")), {"plugin": _plugin("not json")}),
    "exec-bad-json": (_config(f"{{server: {SERVER}}}", _exec_user("./plugin")), {"plugin": _plugin("{bad")}),
    "exec-array": (_config(f"{{server: {SERVER}}}", _exec_user("./plugin")), {"plugin": _plugin("[1]")}),
    "exec-number": (_config(f"{{server: {SERVER}}}", _exec_user("./plugin")), {"plugin": _plugin("5")}),
    "exec-empty-output": (_config(f"{{server: {SERVER}}}", _exec_user("./plugin")), {"plugin": "#!/bin/sh\n"}),
    "exec-wrong-api-version": (
        _config(f"{{server: {SERVER}}}", _exec_user("./plugin")),
        {"plugin": _plugin('{"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential"}')},
    ),
    "exec-no-api-version": (
        _config(f"{{server: {SERVER}}}", _exec_user("./plugin")),
        {"plugin": _plugin('{"kind":"ExecCredential","status":{"token":"t"}}')},
    ),
    "exec-wrong-kind": (
        _config(f"{{server: {SERVER}}}", _exec_user("./plugin")),
        {"plugin": _plugin(f'{{"apiVersion":"{V1}","kind":"Foo","status":{{"token":"t"}}}}')},
    ),
    "exec-no-status": (
        _config(f"{{server: {SERVER}}}", _exec_user("./plugin")),
        {"plugin": _plugin(f'{{"apiVersion":"{V1}","kind":"ExecCredential"}}')},
    ),
    "exec-empty-status": (
        _config(f"{{server: {SERVER}}}", _exec_user("./plugin")),
        {"plugin": _plugin(f'{{"apiVersion":"{V1}","kind":"ExecCredential","status":{{}}}}')},
    ),
    "exec-only-a-certificate": (
        _config(f"{{server: {SERVER}}}", _exec_user("./plugin")),
        {
            "plugin": _plugin(
                f'{{"apiVersion":"{V1}","kind":"ExecCredential","status":{{"clientCertificateData":"x"}}}}'
            )
        },
    ),
    "exec-token-with-lf": (
        _config(f"{{server: {SERVER}, insecure-skip-tls-verify: true}}", _exec_user("./plugin")),
        {"plugin": _plugin(f'{{"apiVersion":"{V1}","kind":"ExecCredential","status":{{"token":"a\\nX-Evil: 1"}}}}')},
    ),
    "exec-no-interactive-mode": (
        _config(f"{{server: {SERVER}}}", _exec_user("./plugin", "")),
        {"plugin": "#!/bin/sh\n"},
    ),
    "exec-interactive-always": (
        _config(f"{{server: {SERVER}}}", _exec_user("./plugin", ", interactiveMode: Always")),
        {"plugin": "#!/bin/sh\n"},
    ),
    "exec-interactive-bogus": (
        _config(f"{{server: {SERVER}}}", _exec_user("./plugin", ", interactiveMode: Bogus")),
        {"plugin": "#!/bin/sh\n"},
    ),
    "exec-unknown-api-version": (
        _config(
            f"{{server: {SERVER}}}",
            "{exec: {apiVersion: client.authentication.k8s.io/v9, command: x, interactiveMode: Never}}",
        ),
        {},
    ),
    "exec-no-command": (
        _config(f"{{server: {SERVER}}}", f"{{exec: {{apiVersion: {V1}, interactiveMode: Never}}}}"),
        {},
    ),
    "exec-with-auth-provider": (
        _config(
            f"{{server: {SERVER}}}",
            f"{{auth-provider: {{name: oidc}}, exec: {{apiVersion: {V1}, command: x, interactiveMode: Never}}}}",
        ),
        {},
    ),
}


def _materialise(tmp_path: Path, name: str) -> Path:
    text, files = CASES[name]
    for relative, content in files.items():
        target = tmp_path / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content if isinstance(content, bytes) else content.encode())
        if relative == "plugin":
            target.chmod(0o755)
    path = tmp_path / "kubeconfig"
    path.write_bytes(text if isinstance(text, bytes) else text.replace("{dir}", str(tmp_path)).encode())
    return path


def _kubectl_says(kubeconfig: Path) -> str:
    completed = subprocess.run(
        [str(_kubectl()), "--kubeconfig", str(kubeconfig), "get", "--raw", "/version"],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        env={"PATH": os.environ.get("PATH", ""), "HOME": str(kubeconfig.parent)},
        timeout=60,
        check=False,
    )
    assert completed.returncode == 1
    return completed.stderr


def _as_we_print_it(kubectl_stderr: str) -> str:
    """kubectl's words after our one prefix: ``error: `` in place of ``Error in configuration:``."""
    if kubectl_stderr.startswith("Error in configuration:"):
        return "error:" + kubectl_stderr[len("Error in configuration:") :]
    if kubectl_stderr.startswith("Unable to connect to the server:"):
        return "error: " + kubectl_stderr
    return kubectl_stderr


@pytest.mark.parametrize("name", sorted(CASES))
def test_broken_kubeconfig_reads_as_kubectl_says(name: str, tmp_path: Path) -> None:
    kubeconfig = _materialise(tmp_path, name)
    expected = _as_we_print_it(_kubectl_says(kubeconfig))
    result = run_cli(
        ["list", "--kubeconfig", str(kubeconfig)], environ={"HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}
    )
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == expected
    assert "Traceback" not in result.stderr
