"""usecases/admission.py, the dry-run verdict: when the cluster is asked and when not (no connection is ever
attempted without a kubeconfig context), and the hints. The server's own answers are held in
tests/integration/test_admission_verdict.py."""

from __future__ import annotations

import json
from pathlib import Path

from kubectl_instancetype.errors import APIError
from kubectl_instancetype.kube.kubeconfig import ConnectionOptions
from kubectl_instancetype.kube.session import Session
from kubectl_instancetype.usecases.admission import ObjectVerdict, Verdicts, dry_run, hint, offline_note
from tests.conftest import write_kubeconfig

VM = {"apiVersion": "kubevirt.io/v1", "kind": "VirtualMachine", "metadata": {"name": "vm"}, "spec": {}}


def test_without_a_kubeconfig_nothing_is_asked(tmp_path: Path) -> None:
    verdicts = dry_run(Session(ConnectionOptions(), {}, str(tmp_path)), [VM])
    assert not verdicts.asked and verdicts.verdicts == ()
    assert offline_note(verdicts) == (
        "checked offline (no kubeconfig): instance type and preference rules, input devices, interface bindings "
        "and launch security firmware only"
    )


def test_without_a_context_nothing_is_asked(tmp_path: Path) -> None:
    config = tmp_path / "config"
    config.write_text(json.dumps({"apiVersion": "v1", "kind": "Config", "clusters": [], "contexts": []}))
    verdicts = dry_run(Session(ConnectionOptions(kubeconfig=str(config)), {}, str(tmp_path)), [VM])
    assert verdicts.offline == "no current context in the kubeconfig"


def test_offline_flag_and_a_server_that_does_not_answer(tmp_path: Path) -> None:
    session = Session(ConnectionOptions(kubeconfig=str(write_kubeconfig(tmp_path))), {}, str(tmp_path))
    assert dry_run(session, [VM], offline=True).offline == "--offline"
    refused = dry_run(session, [VM])
    assert refused.offline.startswith("the cluster did not answer: "), refused.offline
    assert dry_run(session, [{"apiVersion": "v1", "kind": "ConfigMap"}]) == Verdicts()  # nothing to send


def test_verdict_lines_say_what_to_change() -> None:
    message = 'admission webhook "virtualmachine-validator.kubevirt.io" denied the request: Input device can have only tablet type.'
    verdict = ObjectVerdict(VM, APIError(422, message, "Invalid"))
    assert verdict.line() == (
        f"Error from server (Invalid): {message}; set type: tablet on the input device (or remove it)"
    )
    assert hint("SEV requires OVMF (UEFI)").startswith("boot with UEFI")
    assert ObjectVerdict(VM).admitted and ObjectVerdict(VM).line() == ""
