"""``rightsize`` end to end: the real Prometheus v0.316.0 (hack/prometheus) with KubeVirt v1.9.0's own rule file
(hack/kubevirtrules), history backfilled as TSDB blocks by ``promtool tsdb create-blocks-from openmetrics`` from the
virt-handler metrics double's series (tests/doubles/virt_handler_metrics.py), and the VMs on the real plane
(virt-api admits them). One Prometheus for the module; three days of history at two-minute steps keep it to seconds.
"""

from __future__ import annotations

import json
import re
import time

import pytest

from kubectl_instancetype.kube import resources
from tests.conftest import go_build_skip_reason
from tests.rightsize_profiles import CASES, write_history

pytestmark = pytest.mark.controlplane

WINDOW, STEP = "3d", "2m"


@pytest.fixture(scope="module")
def history(control_plane, tmp_path_factory):
    """A namespace with one VM per profile, and a Prometheus holding their history up to now."""
    import secrets

    from hack.localcluster.prometheus import Prometheus, backfill
    from tests.scheduling import client_of

    reason = go_build_skip_reason("Prometheus")
    if reason:
        pytest.skip(reason)
    namespace = f"rightsize-{secrets.token_hex(3)}"
    control_plane.ensure_namespace(namespace)
    client = client_of(control_plane)
    from tests.rightsize_profiles import APPLY_CASE, vm_manifest

    for case in (*CASES, APPLY_CASE):
        client.create(resources.VIRTUAL_MACHINES, vm_manifest(case), namespace)
    workdir = tmp_path_factory.mktemp("prometheus")
    end = float(int(time.time()) // 120 * 120)
    start = end - 3 * 86400
    subjects = [case.subject(namespace, start, end) for case in (*CASES, APPLY_CASE)]
    write_history(workdir / "history.om", subjects, start, end, 120.0)
    backfill(workdir / "history.om", workdir / "tsdb")
    server = Prometheus(workdir, workdir / "tsdb").start()
    try:
        yield namespace, server, end
    finally:
        server.stop()
        control_plane.delete_namespace(namespace)


def _run(cli, namespace, server, end, *extra):
    return cli("rightsize", "-n", namespace, "--prometheus-url", server.url, "--window", WINDOW, "--step", STEP, *extra)


def test_each_profile_gets_its_finding_and_type(cli, history) -> None:
    namespace, server, end = history
    answer = _run(cli, namespace, server, end, "-o", "json")
    assert answer.exit_code == 0, answer.stderr
    report = json.loads(answer.stdout)
    got = {
        item["name"]: (item["finding"], (item["recommended"] or {}).get("name"))
        for item in report["items"]
        if item["name"] != "apply-me"
    }
    assert got == {case.name: (case.finding, case.recommended) for case in CASES}
    # a fixed number of queries, whatever the number of VMs
    assert report["queries"] == 10
    items = {item["name"]: item for item in report["items"]}
    assert items["no-balloon"]["memory"]["source"] == "resident"
    assert items["idle"]["memory"]["source"] == "balloon" and items["idle"]["cpu"]["source"] == "vcpu"
    assert "KubeVirtVMGuestMemoryPressure" in items["pressure"]["reason"]
    # started 20 hours before the end: counted in two-minute samples, give or take one
    assert re.match(
        r"(19h5[68]m|20h[024]m) of history at the current size; at least 30h within the window", items["late"]["reason"]
    )
    # the VM that changed type two days ago is measured since the change only
    assert 47 * 3600 <= items["changed"]["historySeconds"] <= 48 * 3600 + 120
    assert items["idle"]["change"] == {"vcpus": -7, "memoryBytes": -30 * (1 << 30)}


def test_the_table_names_the_sources_and_the_server(cli, history) -> None:
    namespace, server, end = history
    answer = _run(cli, namespace, server, end)
    assert answer.exit_code == 0, answer.stderr
    lines = answer.stdout.splitlines()
    assert lines[0] == f"p95 and peak over 3d (+20% headroom) from Prometheus at {server.url}: 10 queries"
    assert lines[1].split() == [
        "NAMESPACE",
        "NAME",
        "INSTANCETYPE",
        "FINDING",
        "CPU",
        "MEMORY",
        "RECOMMENDED",
        "CHANGE",
        "SOURCE",
    ]
    idle = next(line for line in lines if " idle " in line)
    assert "Over-provisioned" in idle and "u1.small" in idle and "-7 vCPU, -30Gi" in idle and "vcpu/balloon" in idle


def test_a_prometheus_that_is_down_is_one_error_line(cli, history) -> None:
    from hack.localcluster.controlplane import free_port

    namespace, _server, _end = history
    url = f"http://127.0.0.1:{free_port()}"
    answer = cli("rightsize", "-n", namespace, "--prometheus-url", url)
    assert answer.exit_code == 1
    assert answer.stderr.splitlines() == [
        f"error: Prometheus at {url}: connection refused: is it running there, and is the URL right?"
    ]


def test_kubevirts_rule_file_passes_promtool_check_rules() -> None:
    reason = go_build_skip_reason("Prometheus")
    if reason:
        pytest.skip(reason)
    from hack.localcluster.prometheus import check_rules, rules_file

    # KubeVirt v1.9.0's pkg/monitoring/rules: 57 recording rules and 38 alerts
    assert check_rules(rules_file()).splitlines()[-2].strip() == "SUCCESS: 95 rules found"


def test_the_doubles_exposition_passes_promtool_check_metrics() -> None:
    import subprocess

    reason = go_build_skip_reason("Prometheus")
    if reason:
        pytest.skip(reason)
    from hack.localcluster.prometheus import tools_dir
    from tests.doubles.virt_handler_metrics import Profile, Size, Subject, exposition

    subject = Subject(
        "ns", "vm-1", "node-a", lambda _t: Size(2, 1 << 30), Profile(), labels={"kubevirt.io/domain": "vm-1"}
    )
    checked = subprocess.run(
        [str(tools_dir() / "promtool"), "check", "metrics"],
        input=exposition([subject], {}, 600.0),
        capture_output=True,
        text=True,
        check=False,
    )
    assert (checked.returncode, checked.stdout, checked.stderr) == (0, "", "")


def test_apply_switches_a_halted_vm_through_switchs_plan(cli, control_plane, history) -> None:
    from tests.scheduling import client_of

    namespace, server, end = history
    answer = _run(cli, namespace, server, end, "vm/apply-me", "--apply")
    assert answer.exit_code == 0, answer.stderr
    text = answer.stdout
    assert "virtualmachine.kubevirt.io/apply-me (not running; rollout strategy" in text
    assert (
        "  instancetype: VirtualMachineClusterInstancetype/u1.2xlarge -> VirtualMachineClusterInstancetype/u1.small"
        in text
    )
    assert "The VM is not running: it gets the new values when it starts." in text
    assert text.rstrip().endswith("=> virtualmachine.kubevirt.io/apply-me switched")
    stored = client_of(control_plane).get(resources.VIRTUAL_MACHINES, "apply-me", namespace)
    assert stored["spec"]["instancetype"]["name"] == "u1.small"


def test_the_service_proxy_path_names_the_service_and_the_api_servers_answer(cli, history) -> None:
    namespace, _server, _end = history
    answer = cli("rightsize", "-n", namespace, "--prometheus-service", f"{namespace}/prometheus:9090")
    assert answer.exit_code == 1
    assert answer.stderr.splitlines()[-1] == (
        f"error: Prometheus service {namespace}/prometheus:9090 (through the API server's proxy): "
        'the server answered 404: services "prometheus" not found'
    )
