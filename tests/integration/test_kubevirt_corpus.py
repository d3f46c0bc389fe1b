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
from kubectl_instancetype.kube.client import Client, ClusterConfig
from kubectl_instancetype.kube.resources import VIRTUAL_MACHINES
from kubectl_instancetype.usecases.preflight import check_vm
from tests.corpus.createvm import cases, fixtures

pytestmark = pytest.mark.controlplane

NAMESPACE = "corpus-vms"
CASES = cases(NAMESPACE)


@pytest.fixture(scope="module")
def corpus_namespace(control_plane):
    control_plane.ensure_namespace(NAMESPACE)
    for obj in fixtures(NAMESPACE):
        control_plane.apply(obj)
    return NAMESPACE


@pytest.fixture(scope="module")
def client(control_plane, corpus_namespace):
    config = ClusterConfig(
        server=control_plane.server, ca_file=str(control_plane.ca_file), token=control_plane.tokens["admin"]
    )
    with Client(config, environ={}) as handle:
        yield handle


def _matchers(vm: dict) -> tuple:
    spec = vm.get("spec") or {}
    return tuple(spec.get(key) for key in ("instancetype", "preference"))


def _memory(vm: dict):
    return (((vm.get("spec") or {}).get("template") or {}).get("spec") or {}).get("domain", {}).get("memory")


def _verdicts(client: Client, manifest: dict):
    local = check_vm(client, manifest, NAMESPACE)
    try:
        stored = client.create(VIRTUAL_MACHINES, manifest, NAMESPACE, dry_run=True)
    except APIError as exc:
        return local, None, exc
    return local, stored, None


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_preflight_verdict_is_kubevirts(client, case) -> None:
    from kubectl_instancetype.errors import UsageError

    try:
        manifest = case.manifest()
    except UsageError:
        pytest.skip("create vm refuses these flags before anything reaches a cluster")
    local, stored, denied = _verdicts(client, manifest)
    if denied is not None:
        assert local.denial is not None, f"KubeVirt denied, the pre-flight admitted: {denied.message}"
        assert (local.denial.status_message, local.denial.code) == (denied.message, denied.code)
        assert local.denial.reason == denied.reason
        return
    assert local.denial is None, f"the pre-flight denied, KubeVirt admitted: {local.denial.status_message}"
    # Inference: what the mutating webhook stored is what the plugin resolved.
    assert _matchers(stored) == _matchers(local.vm)
    assert _memory(stored) == _memory(local.vm)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_offline_expand_prints_what_kubevirts_expand_vm_spec_returns(client, cli, tmp_path, case) -> None:
    from kubectl_instancetype.errors import UsageError

    try:
        manifest = case.manifest()
    except UsageError:
        pytest.skip("create vm refuses these flags before anything reaches a cluster")
    _, stored, denied = _verdicts(client, manifest)
    if denied is not None or not any(_matchers(stored)):
        pytest.skip("denied at admission, or no type to expand")
    path = tmp_path / "vm.json"
    path.write_text(json.dumps(stored))
    offline = cli("expand", "-f", str(path), "-n", NAMESPACE, "-o", "json")
    server = cli("expand", "--server", "-f", str(path), "-n", NAMESPACE, "-o", "json")
    assert (offline.exit_code, offline.stderr, offline.stdout) == (server.exit_code, server.stderr, server.stdout)


def test_the_corpus_is_large_and_varied() -> None:
    from kubectl_instancetype.errors import UsageError

    usable = []
    for case in CASES:
        try:
            case.manifest()
        except UsageError:
            continue
        usable.append(case)
    assert len(usable) >= 200
    tags = {tag for case in usable for tag in case.tags}
    assert {"implicit", "explicit", "type", "preference", "conflict", "existing-dv", "collected-dv"} <= tags
