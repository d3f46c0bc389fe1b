"""No credential ever reaches the terminal: not in the error line, not in the ``-v`` traceback.

Each case puts a recognisable secret in one credential field of a kubeconfig that fails to load, runs the
CLI at default verbosity and at ``-v 1`` and ``-v 9`` (which print the traceback and its chain of causes),
and requires the secret to be absent from everything printed. The assertions never show the secret: they
compare a boolean.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from kubectl_instancetype.kube.kubeconfig.model import redact, user_secrets
from tests.conftest import run_cli

SECRET = "s3cr3t-VALUE-0123456789abcdef"
CONFIG_KEYS = ("client-secret", "refresh-token", "idp-certificate-authority-data")
OIDC_WITHOUT_ID_TOKEN = {"name": "oidc", "config": {"client-id": "kube", "idp-issuer-url": "https://127.0.0.1:2"}}


def _oidc_user(**fields: object) -> dict:
    """An oidc user without ``id-token``: the official loader's exception quotes the whole user entry."""
    provider = json.loads(json.dumps(OIDC_WITHOUT_ID_TOKEN))
    config_fields = {key: value for key, value in fields.items() if key in CONFIG_KEYS}
    provider["config"].update(config_fields)
    user = {"auth-provider": provider}
    user.update({key: value for key, value in fields.items() if key not in config_fields})
    return user


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


# case name -> the user entry (the secret in one field), files to write ({name: content})
CASES: dict[str, tuple[dict, dict[str, str]]] = {
    "oidc client-secret": (_oidc_user(**{"client-secret": SECRET}), {}),
    "oidc refresh-token": (_oidc_user(**{"refresh-token": SECRET}), {}),
    "oidc id-token (not a JWT)": ({"auth-provider": {"name": "oidc", "config": {"id-token": SECRET + ".x"}}}, {}),
    "oidc id-token (undecodable JWT)": (
        {"auth-provider": {"name": "oidc", "config": {"id-token": f"a.{SECRET}.b", "client-id": "k"}}},
        {},
    ),
    "oidc idp-certificate-authority-data": (_oidc_user(**{"idp-certificate-authority-data": SECRET}), {}),
    "token beside an auth provider": (_oidc_user(token=SECRET), {}),
    "basic-auth password beside an auth provider": (_oidc_user(username="admin", password=SECRET), {}),
    "basic-auth password and a token": ({"username": "admin", "password": SECRET, "token": "other-token"}, {}),
    "client-key-data beside an auth provider": (
        _oidc_user(**{"client-key-data": _b64(SECRET), "client-certificate-data": _b64("a certificate")}),
        {},
    ),
    "client-certificate-data beside an auth provider": (
        _oidc_user(**{"client-certificate-data": _b64(SECRET), "client-key-data": _b64("a key")}),
        {},
    ),
    "client-key-data that is no key": (
        {"client-certificate-data": _b64("-----BEGIN CERTIFICATE-----\nx\n"), "client-key-data": _b64(SECRET)},
        {},
    ),
    "client-key file that is no key": (
        {"client-certificate": "{dir}/c.crt", "client-key": "{dir}/c.key"},
        {"c.crt": "-----BEGIN CERTIFICATE-----\nx\n-----END CERTIFICATE-----\n", "c.key": SECRET},
    ),
    "exec env value": (
        {
            "exec": {
                "apiVersion": "client.authentication.k8s.io/v1",
                "command": "./plugin",
                "interactiveMode": "Never",
                "env": [{"name": "PLUGIN_SECRET", "value": SECRET}],
            }
        },
        {"plugin": '#!/bin/sh\necho "$PLUGIN_SECRET"\nexit 0\n'},
    ),
    "exec env value beside an auth provider": (
        _oidc_user(exec={"command": "x", "env": [{"name": "A", "value": SECRET}]}),
        {},
    ),
    "token with a line break": ({"token": SECRET + "\r\nX-Injected: 1"}, {}),
    "tokenFile contents with a line break": ({"tokenFile": "{dir}/token"}, {"token": f"{SECRET}\nX-Injected: 1\n"}),
    "tokenFile beside an auth provider": (_oidc_user(tokenFile="{dir}/token"), {"token": SECRET}),
    "exec token with a line break": (
        {
            "exec": {
                "apiVersion": "client.authentication.k8s.io/v1",
                "command": "./plugin",
                "interactiveMode": "Never",
            }
        },
        {
            "plugin": "#!/bin/sh\ncat <<'EOF'\n"
            + json.dumps(
                {
                    "apiVersion": "client.authentication.k8s.io/v1",
                    "kind": "ExecCredential",
                    "status": {"token": SECRET + "\nX-Injected: 1"},
                }
            )
            + "\nEOF\n"
        },
    ),
}


def _write(tmp_path: Path, user: dict, files: dict[str, str]) -> Path:
    for name, content in files.items():
        (tmp_path / name).write_text(content)
        if name == "plugin":
            (tmp_path / name).chmod(0o755)
    text = json.dumps(
        {
            "apiVersion": "v1",
            "kind": "Config",
            "current-context": "c",
            "clusters": [{"name": "c", "cluster": {"server": "https://127.0.0.1:1", "insecure-skip-tls-verify": True}}],
            "users": [{"name": "u", "user": user}],
            "contexts": [{"name": "c", "context": {"cluster": "c", "user": "u"}}],
        }
    ).replace("{dir}", str(tmp_path))
    path = tmp_path / "kubeconfig"
    path.write_text(text)
    return path


@pytest.mark.parametrize("verbosity", [None, "1", "9"])
@pytest.mark.parametrize(
    "case",
    [
        pytest.param(name, marks=pytest.mark.posix("a #!/bin/sh exec plugin") if "plugin" in CASES[name][1] else ())
        for name in sorted(CASES)
    ],
)
def test_no_secret_in_any_message(case: str, verbosity: str | None, tmp_path: Path) -> None:
    user, files = CASES[case]
    kubeconfig = _write(tmp_path, user, files)
    args = ["list", "--kubeconfig", str(kubeconfig)] + (["-v", verbosity] if verbosity else [])
    result = run_cli(args, environ={"HOME": str(tmp_path), "PATH": "/usr/bin:/bin"})
    assert result.exit_code == 1
    printed = result.stdout + result.stderr
    leaked = any(form in printed for form in (SECRET, SECRET.lower(), _b64(SECRET)))
    assert not leaked, "a credential was printed"  # never show it, even when the test fails
    assert result.stderr.count("error: ") >= 1
    if verbosity is None:
        assert "Traceback" not in result.stderr


def test_redact_covers_the_forms_a_message_shows() -> None:
    secret = 'pa"ss\\word\nline-two-of-it'
    for shown in (secret, repr(secret), json.dumps(secret), secret.splitlines()[1]):
        assert "pa" + '"ss' not in redact(f"prefix {shown} suffix", [secret])
        assert "line-two-of-it" not in redact(f"prefix {shown} suffix", [secret])


def test_user_secrets_finds_every_credential_field(tmp_path: Path) -> None:
    token_file = tmp_path / "token"
    token_file.write_text("from-the-token-file\n")
    user = {
        "token": "t-token",
        "password": "t-password",
        "client-key-data": "t-key-data",
        "client-certificate-data": "t-cert-data",
        "tokenFile": str(token_file),
        "auth-provider": {"name": "oidc", "config": {"client-id": "public", "custom-secret": "t-custom"}},
        "exec": {"command": "x", "env": [{"name": "A", "value": "t-env"}]},
    }
    found = set(user_secrets(user))
    expected = {"t-token", "t-password", "t-key-data", "t-cert-data", "from-the-token-file", "t-custom", "t-env"}
    assert expected <= found
    assert "public" not in found
