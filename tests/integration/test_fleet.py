"""Read commands across kubeconfig contexts (issue 32 section 1) against several real API servers: the session's
plane, a bare kube-apiserver on its etcd under another prefix with an older catalog, a context whose user may read
nothing, one whose server is down and one whose server never answers (tests/conftest.py ``fleet``)."""

from __future__ import annotations

import json
import os
import stat
import sys

import pytest
import yaml

from tests.conftest import CATALOG_NAMESPACE, FLEET_OLD_MEMORY, FLEET_OLD_MISSING, FLEET_OLD_VERSION

ANNOTATION = "kubectl-instancetype/context"
TIMEOUT = ("--context-timeout", "3s")


def _warned(stderr: str) -> dict[str, str]:
    """context -> the one warning line naming it."""
    found = {}
    for line in stderr.splitlines():
        if line.startswith('Warning: context "'):
            name = line[len('Warning: context "') :].split('"', 1)[0]
            assert name not in found, f"two warnings for {name}: {stderr}"
            found[name] = line
    return found


def test_list_all_contexts_table_has_context_column_and_one_warning_per_failed_context(fleet):
    result = fleet.run("list", "--all-contexts", *TIMEOUT, "--scope", "cluster")
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert lines[0].split()[:2] == ["CONTEXT", "NAME"]
    rows = [line.split() for line in lines[1:]]
    plane_names = {row[1] for row in rows if row[0] == "plane"}
    old_names = {row[1] for row in rows if row[0] == "old"}
    assert {"u1.medium", "u1.2xlarge"} <= plane_names
    assert "u1.medium" in old_names and "u1.2xlarge" not in old_names
    assert {row[0] for row in rows} == {"plane", "old"}
    warned = _warned(result.stderr)
    assert set(warned) == {"forbidden", "down", "slow"}
    assert 'is forbidden: User "mallory" cannot list resource' in warned["forbidden"]
    assert "was refused - did you specify the right host or port?" in warned["down"]
    assert "no answer within 3s (--context-timeout)" in warned["slow"]


def test_json_is_one_list_whose_items_carry_their_context(fleet):
    result = fleet.run("get", "vmcf/u1.medium", "--contexts", "^(plane|old)$", "-o", "json")
    assert result.exit_code == 0, result.stderr
    document = json.loads(result.stdout)
    assert document["kind"] == "List"
    by_context = {item["metadata"]["annotations"][ANNOTATION]: item for item in document["items"]}
    assert set(by_context) == {"plane", "old"}
    assert by_context["old"]["spec"]["memory"]["guest"] == FLEET_OLD_MEMORY["u1.medium"]
    assert by_context["plane"]["spec"]["memory"]["guest"] == "4Gi"
    labels = by_context["old"]["metadata"]["labels"]
    assert labels["instancetype.kubevirt.io/common-instancetypes-version"] == FLEET_OLD_VERSION
    # -o yaml is the same List: it reads back to the same objects
    again = fleet.run("get", "vmcf/u1.medium", "--contexts", "^(plane|old)$", "-o", "yaml")
    assert yaml.safe_load(again.stdout) == document


def test_repeated_context_and_jsonpath_over_the_merged_list(fleet):
    result = fleet.run(
        "list",
        "vmcf",
        "--context",
        "old",
        "--context",
        "plane",
        "-o",
        'jsonpath={range .items[*]}{.metadata.annotations.kubectl-instancetype/context} {.metadata.name}{"\\n"}{end}',
    )
    assert result.exit_code == 0, result.stderr
    pairs = {tuple(line.split()) for line in result.stdout.splitlines()}
    assert ("plane", FLEET_OLD_MISSING[0]) in pairs and ("old", FLEET_OLD_MISSING[0]) not in pairs
    assert ("old", "u1.medium") in pairs


def test_one_context_keeps_the_plain_output(fleet):
    result = fleet.run("list", "vmcf", "--context", "old", "--no-headers")
    assert result.exit_code == 0, result.stderr
    assert not result.stdout.startswith("old")
    assert result.stdout.split()[0].startswith(("cx1", "d1", "gn1", "m1", "n1", "o1", "rt1", "u1"))


def test_unknown_context_and_empty_pattern_fail_before_any_request(fleet):
    unknown = fleet.run("list", "--context", "plane", "--context", "nope")
    assert unknown.exit_code == 1
    assert unknown.stderr.strip() == "error: context was not found for specified context: nope"
    nothing = fleet.run("list", "--contexts", "^zz")
    assert nothing.exit_code == 1
    assert 'no kubeconfig context matching "^zz" to run on' in nothing.stderr


def test_describe_prints_a_block_per_context(fleet):
    result = fleet.run("describe", "vmcf/u1.medium", "--contexts", "^(plane|old)$")
    assert result.exit_code == 0, result.stderr
    blocks = result.stdout.split("Context:  ")[1:]
    assert [block.splitlines()[0] for block in blocks] == ["plane", "old"]
    assert all("u1.medium" in block for block in blocks)


def test_namespaced_objects_come_from_each_contexts_namespace(fleet):
    result = fleet.run("list", "vmf", "--contexts", "^(plane|old)$", "-o", "json")
    assert result.exit_code == 0, result.stderr
    items = json.loads(result.stdout)["items"]
    assert {item["metadata"]["namespace"] for item in items} == {CATALOG_NAMESPACE}
    assert {item["metadata"]["annotations"][ANNOTATION] for item in items} == {"plane", "old"}


def test_impersonation_is_per_context(fleet, tmp_path):
    """A context whose kubeconfig user impersonates mallory is refused; the other context of the same run is not."""
    from hack.localcluster.fleet import Member, write_kubeconfig

    old = fleet.servers["old"]
    kubeconfig = write_kubeconfig(
        tmp_path / "kubeconfig",
        [
            Member("plane", fleet.plane.server, fleet.plane.ca_file, fleet.plane.tokens["admin"], "admin"),
            Member("old-as-mallory", old.server, old.ca_file, old.tokens["admin"], extra_user={"as": "mallory"}),
        ],
    )
    environ = {"HOME": "/nonexistent", "KUBECONFIG": str(kubeconfig)}
    from tests.conftest import run_cli

    result = run_cli(["list", "vmcf", "--all-contexts", "--no-headers"], environ=environ)
    assert result.exit_code == 1
    assert {line.split()[0] for line in result.stdout.splitlines()} == {"plane"}
    assert 'Warning: context "old-as-mallory": ' in result.stderr
    assert 'User "mallory" cannot list resource' in result.stderr


@pytest.mark.posix("an exec credential plugin written as a #!/bin/sh script")
def test_exec_credential_plugin_runs_once_per_user(fleet, tmp_path):
    """Three contexts of one user whose token an exec plugin gives: the plugin runs once in the run."""
    from hack.localcluster.fleet import Member, write_kubeconfig

    counter = tmp_path / "runs"
    plugin = tmp_path / "credential"
    token = fleet.plane.tokens["admin"]
    plugin.write_text(
        "#!/bin/sh\n"
        f"echo run >> {counter}\n"
        'echo \'{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential",'
        f'"status":{{"token":"{token}"}}}}\'\n'
    )
    plugin.chmod(plugin.stat().st_mode | stat.S_IXUSR)
    exec_user = {
        "exec": {"apiVersion": "client.authentication.k8s.io/v1", "command": str(plugin), "interactiveMode": "Never"}
    }
    members = [
        Member(name, fleet.plane.server, fleet.plane.ca_file, None, "shared", CATALOG_NAMESPACE, exec_user)
        for name in ("one", "two", "three")
    ]
    kubeconfig = write_kubeconfig(tmp_path / "kubeconfig", members)
    from tests.conftest import run_cli

    environ = {"HOME": "/nonexistent", "KUBECONFIG": str(kubeconfig), "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    result = run_cli(["list", "vmcf", "--all-contexts", "--no-headers"], environ=environ)
    assert result.exit_code == 0, result.stderr
    assert {line.split()[0] for line in result.stdout.splitlines()} == {"one", "two", "three"}
    assert counter.read_text().splitlines() == ["run"], sys.platform


# --- fleet diff -------------------------------------------------------------------------------------------------


def test_fleet_diff_names_missing_different_and_other_release(fleet):
    result = fleet.run("fleet", "diff", "--context", "plane", "--context", "old", "--kind", "vmcf,vmcp", "-o", "json")
    assert result.exit_code == 0, result.stderr
    document = json.loads(result.stdout)
    assert document["contexts"] == ["plane", "old"] and document["failed"] == []
    states = {(item["name"], item["state"]) for item in document["items"]}
    assert ("u1.2xlarge", "missing") in states and ("windows.11", "missing") in states
    assert ("u1.medium", "version") in states and ("u1.small", "version") in states
    different = {item["name"]: item["fields"] for item in document["items"] if item["state"] == "different"}
    assert different.pop("u1.medium") == [{"path": "spec.memory.guest", "base": "4Gi", "value": "6Gi"}]
    assert different.pop("cx1.large") == [{"path": "spec.memory.guest", "base": "4Gi", "value": "5Gi"}]
    # KubeVirt v1.8.0's CRD schema has no spec.devices.preferredVideoType: the old server pruned it from the
    # preferences that set it (the skew catalog diff warns about), a difference of the clusters too
    assert different, "the old server kept a field its schema does not have"
    for fields in different.values():
        assert [(f["path"], f["value"]) for f in fields] == [("spec.devices.preferredVideoType", None)]
    assert {item["context"] for item in document["items"]} == {"old"}
    assert {item["kind"] for item in document["items"]} == {
        "VirtualMachineClusterInstancetype",
        "VirtualMachineClusterPreference",
    }


def test_fleet_diff_table_diff_and_failed_contexts(fleet):
    result = fleet.run("fleet", "diff", "--kind", "vmcf", *TIMEOUT)
    assert result.exit_code == 1  # three contexts failed
    assert set(_warned(result.stderr)) == {"forbidden", "down", "slow"}
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["NAME", "CONTEXT", "DIFFERENCE"]
    assert ["vmcf/u1.medium", "old", "spec.memory.guest:", "6Gi", "(plane:", "4Gi)"] in [line.split() for line in lines]
    assert ["vmcf/u1.2xlarge", "old", "missing", "(present", "in", "plane)"] in [line.split() for line in lines]
    assert ["vmcf/u1.small", "old", "common-instancetypes", "v1.6.0", "(plane:", "v1.7.0)"] in [
        line.split() for line in lines
    ]
    diff = fleet.run("fleet", "diff", "--contexts", "^(plane|old)$", "--kind", "vmcf", "-o", "diff")
    assert diff.exit_code == 0, diff.stderr
    assert "--- plane/vmcf/u1.medium\n+++ old/vmcf/u1.medium\n" in diff.stdout
    assert "-    guest: 4Gi\n+    guest: 6Gi\n" in diff.stdout
    assert "--- plane/vmcf/u1.2xlarge\n+++ /dev/null\n" in diff.stdout


def test_fleet_diff_namespaced_and_exit_code(fleet, tmp_path):
    namespaced = fleet.run("fleet", "diff", "--contexts", "^(plane|old)$", "--kind", "vmf", "--exit-code")
    assert namespaced.exit_code == 1
    rows = [line.split() for line in namespaced.stdout.splitlines()]
    assert rows[0] == ["NAME", "NAMESPACE", "CONTEXT", "DIFFERENCE"]
    assert ["vmf/u1.medium", CATALOG_NAMESPACE, "old", "spec.memory.guest:", "6Gi", "(plane:", "4Gi)"] in rows
    # two contexts of one cluster: nothing differs, --exit-code keeps 0
    from hack.localcluster.fleet import Member, write_kubeconfig
    from tests.conftest import run_cli

    plane = fleet.plane
    twins = [
        Member(name, plane.server, plane.ca_file, plane.tokens["admin"], "admin", CATALOG_NAMESPACE)
        for name in ("a", "b")
    ]
    kubeconfig = write_kubeconfig(tmp_path / "kubeconfig", twins)
    same = run_cli(["fleet", "diff", "--exit-code"], environ={"HOME": "/nonexistent", "KUBECONFIG": str(kubeconfig)})
    assert same.exit_code == 0, same.stderr
    assert same.stdout == ""
    assert same.stderr == "No differences between 2 context(s): a, b\n"


# --- fleet diff vm/NAME --to CONTEXT -------------------------------------------------------------------------------


def test_fleet_diff_vm_to_another_context(fleet, namespace):
    """The real virt-controller stores the VM's revisions on the plane; old has u1.medium with another memory."""
    from tests.conftest import halted_vm, revised

    plane = fleet.plane
    revised(plane, plane.apply(halted_vm("roamer", namespace, {"name": "u1.medium"}, {"name": "fedora"})))
    to_old = fleet.run("fleet", "diff", "vm/roamer", "-n", namespace, "--context", "plane", "--to", "old", "-o", "json")
    assert to_old.exit_code == 0, to_old.stderr
    answer = json.loads(to_old.stdout)
    assert answer["ready"] is False
    instancetype, preference = answer["matchers"]
    assert instancetype["state"] == "different" and instancetype["storedIn"].startswith("controllerrevision/")
    assert instancetype["fields"] == [{"path": "spec.memory.guest", "stored": "4Gi", "target": "6Gi"}]
    assert (preference["name"], preference["state"]) == ("fedora", "ok")
    assert answer["requirements"]["state"] == "ok"

    # the same cluster as target: everything holds; no node to judge the fit by, so that stays unknown
    home = fleet.run("fleet", "diff", "vm/roamer", "-n", namespace, "--context", "plane", "--to", "plane")
    assert home.exit_code == 0, home.stderr
    rows = [line.split()[:2] for line in home.stdout.splitlines()]
    assert rows[:5] == [
        ["CHECK", "RESULT"],
        ["instancetype", "ok"],
        ["preference", "ok"],
        ["requirements", "ok"],
        ["fits", "unknown"],
    ]
    assert home.stdout.endswith('virtualmachine/roamer can be recreated in context "plane" as it is.\n')
    refused = fleet.run(
        "fleet", "diff", "vm/roamer", "-n", namespace, "--context", "plane", "--to", "old", "--exit-code"
    )
    assert refused.exit_code == 1
    assert "instancetype   different   virtualmachineclusterinstancetype/u1.medium spec.memory.guest: 6Gi" in (
        refused.stdout
    )


def test_fleet_diff_vm_refusals(fleet):
    missing_to = fleet.run("fleet", "diff", "vm/x")
    assert (missing_to.exit_code, missing_to.stderr) == (
        1,
        "error: fleet diff vm/NAME needs --to CONTEXT: the context to check the VM against\n",
    )
    unknown = fleet.run("fleet", "diff", "vm/x", "--to", "nowhere")
    assert unknown.stderr == "error: context was not found for specified context: nowhere\n"
