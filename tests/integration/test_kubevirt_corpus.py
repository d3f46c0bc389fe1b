"""The create-vm corpus (tests/corpus/createvm.py) against KubeVirt's real webhooks and expand-vm-spec.

For every VM: the plugin's pre-flight (what ``create vm --dry-run=client`` decides, GETs only) and KubeVirt's
admission (``POST ...?dryRun=All``, what ``create vm --dry-run=server`` sends) give the same verdict and the
same message; when both admit, the matchers the mutating webhook stores are the ones the plugin's inference
resolved, and the VM's memory is kept or dropped alike. For every admitted VM with a type, the plugin's
offline ``expand -o json`` prints the same bytes as ``expand --server -o json`` (KubeVirt's expand-vm-spec).
"""

from __future__ import annotations

import json

import pytest

from kubectl_instancetype.errors import APIError
from kubectl_instancetype.kube.kubeconfig import ConnectionOptions
from kubectl_instancetype.kube.resources import VIRTUAL_MACHINES
from kubectl_instancetype.kube.session import Session as KubeSession
from kubectl_instancetype.usecases.preflight import check_vm
from tests.corpus.createvm import cases, fixtures

pytestmark = pytest.mark.controlplane

NAMESPACE = "corpus-vms"
CASES = cases(NAMESPACE)


class Session:
    """One plane's corpus namespace (its objects applied once) and an admin client."""

    def __init__(self, plane) -> None:
        plane.ensure_namespace(NAMESPACE)
        for obj in fixtures(NAMESPACE):
            plane.apply(obj)
        self.plane = plane
        options = ConnectionOptions(kubeconfig=str(plane.kubeconfig("admin")), namespace=NAMESPACE)
        self.session = KubeSession(options, {}, "/nonexistent")
        self.client = self.session.client()
        self.answers: dict[str, tuple] = {}

    def verdicts(self, case):
        """(manifest, the pre-flight's Verdict, the VM the server stored in a dry run, its APIError) for ``case``."""
        if case.name not in self.answers:
            manifest = case.manifest()
            local = check_vm(self.session, manifest, NAMESPACE)
            try:
                stored, denied = self.client.create(VIRTUAL_MACHINES, manifest, NAMESPACE, dry_run=True), None
            except APIError as exc:
                stored, denied = None, exc
            self.answers[case.name] = (manifest, local, stored, denied)
        return self.answers[case.name]

    def cli(self, *args: str):
        from tests.conftest import run_cli

        environ = {"HOME": "/nonexistent", "KUBECONFIG": str(self.plane.kubeconfig("admin"))}
        return run_cli(list(args), environ=environ)


@pytest.fixture(scope="module")
def sessions():
    opened: dict[str, Session] = {}
    yield opened
    for session in opened.values():
        session.session.close()
        # other modules count namespaced instance types: the corpus's go with their namespace
        session.plane.delete_namespace(NAMESPACE, wait=60)


@pytest.fixture
def session(kubevirt_plane, sessions) -> Session:
    version = kubevirt_plane.kubevirt_version
    if version not in sessions:
        sessions[version] = Session(kubevirt_plane)
    return sessions[version]


def _usable(case) -> bool:
    from kubectl_instancetype.errors import UsageError

    try:
        case.manifest()
    except UsageError:
        return False
    return True


USABLE = [case for case in CASES if _usable(case)]


def _matchers(vm: dict) -> tuple:
    spec = vm.get("spec") or {}
    return tuple(spec.get(key) for key in ("instancetype", "preference"))


def _memory(vm: dict):
    return (((vm.get("spec") or {}).get("template") or {}).get("spec") or {}).get("domain", {}).get("memory")


@pytest.mark.parametrize("case", USABLE, ids=[c.name for c in USABLE])
def test_preflight_verdict_and_expansion_are_kubevirts(session, tmp_path, case) -> None:
    _, local, stored, denied = session.verdicts(case)
    if denied is not None:
        assert local.denial is not None, f"KubeVirt denied, the pre-flight admitted: {denied.message}"
        assert (local.denial.status_message, local.denial.code) == (denied.message, denied.code)
        assert local.denial.reason == denied.reason
        return
    assert local.denial is None, f"the pre-flight denied, KubeVirt admitted: {local.denial.status_message}"
    # Inference: what the mutating webhook stored is what the plugin resolved.
    assert _matchers(stored) == _matchers(local.vm)
    assert _memory(stored) == _memory(local.vm)
    if any(_matchers(stored)):
        # Expansion of the stored VM: offline, and by KubeVirt's expand-vm-spec, printed alike byte for byte.
        path = tmp_path / "vm.json"
        path.write_text(json.dumps(stored))
        offline = session.cli("expand", "-f", str(path), "-n", NAMESPACE, "-o", "json")
        server = session.cli("expand", "--server", "-f", str(path), "-n", NAMESPACE, "-o", "json")
        assert (offline.exit_code, offline.stderr, offline.stdout) == (server.exit_code, server.stderr, server.stdout)


def test_the_corpus_is_large_and_varied() -> None:
    assert len(USABLE) >= 200
    tags = {tag for case in USABLE for tag in case.tags}
    assert {"implicit", "explicit", "type", "preference", "conflict", "existing-dv", "collected-dv"} <= tags
