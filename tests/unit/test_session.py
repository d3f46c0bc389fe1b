"""The Session (kube/session.py): the connection flags checked and the kubeconfig read only when first needed,
one API client per session, a shorter-timeout copy for --dry-run=client's probe, and completion's prompt check."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kubectl_instancetype.errors import UsageError
from kubectl_instancetype.kube.kubeconfig import ConnectionOptions
from kubectl_instancetype.kube.session import Session


def kubeconfig(path: Path, *, namespace: str = "team", user: dict | None = None) -> Path:
    path.write_text(
        json.dumps(
            {
                "apiVersion": "v1",
                "kind": "Config",
                "current-context": "c",
                "clusters": [{"name": "c", "cluster": {"server": "https://127.0.0.1:1"}}],
                "users": [{"name": "u", "user": user or {"token": "t"}}],
                "contexts": [{"name": "c", "context": {"cluster": "c", "user": "u", "namespace": namespace}}],
            }
        )
    )
    return path


def test_nothing_is_checked_or_read_until_asked(tmp_path: Path) -> None:
    asked = []

    def options() -> ConnectionOptions:
        asked.append(True)
        raise UsageError("bad flags")

    session = Session(options, {}, str(tmp_path))
    session.close()  # closing an unused session reads nothing
    assert asked == []
    with pytest.raises(UsageError, match="bad flags"):
        session.client()


def test_the_namespace_is_the_flag_else_the_contexts(tmp_path: Path) -> None:
    config = str(kubeconfig(tmp_path / "config"))
    with Session(ConnectionOptions(kubeconfig=config), {}, str(tmp_path)) as session:
        assert (session.namespace_flag, session.namespace) == (None, "team")
        assert session.client() is session.client()  # one client per session
    # -n alone reads no kubeconfig (this one does not exist)
    flagged = Session(ConnectionOptions(kubeconfig=str(tmp_path / "absent"), namespace="dev"), {}, str(tmp_path))
    assert (flagged.namespace_flag, flagged.namespace) == ("dev", "dev")


def test_a_shorter_timeout_is_a_new_session_with_the_same_flags(tmp_path: Path) -> None:
    log = []
    session = Session(ConnectionOptions(namespace="dev"), {"A": "b"}, str(tmp_path), log=log.append, verbosity=6)
    probe = session.with_request_timeout(5.0)
    assert probe is not session
    assert (probe.options.namespace, probe.options.request_timeout) == ("dev", 5.0)
    assert (probe.environ, probe.home, probe.log, probe.verbosity) == ({"A": "b"}, str(tmp_path), log.append, 6)
    assert session.options.request_timeout is None


@pytest.mark.parametrize(
    ("user", "prompts"),
    [
        ({"token": "t"}, False),
        (
            {"exec": {"command": "x", "apiVersion": "client.authentication.k8s.io/v1", "interactiveMode": "Never"}},
            False,
        ),
        (
            {"exec": {"command": "x", "apiVersion": "client.authentication.k8s.io/v1", "interactiveMode": "Always"}},
            True,
        ),
    ],
)
def test_credentials_that_may_prompt_are_seen_without_running_them(tmp_path: Path, user: dict, prompts: bool) -> None:
    config = str(kubeconfig(tmp_path / "config", user=user))
    assert Session(ConnectionOptions(kubeconfig=config), {}, str(tmp_path)).credentials_may_prompt() is prompts
