"""``usage`` and ``usage --check-delete`` against the control plane: VMs (status refs and revisions written as
KubeVirt's controller writes them), a VirtualMachinePool and a VirtualMachineTemplate with a parameter."""

from __future__ import annotations

import json

import pytest

from tests.conftest import controller_revision, halted_vm, serve_kinds

pytestmark = pytest.mark.controlplane

NS = "usage-test"
SMALL_SPEC = {"cpu": {"guest": 1}, "memory": {"guest": "2Gi"}}


def _status(plain_plane, vm: dict, status: dict) -> dict:
    path = f"/apis/kubevirt.io/v1/namespaces/{NS}/virtualmachines/{vm['metadata']['name']}/status"
    code, answer = plain_plane.request("PUT", path, {**vm, "status": status})
    assert code == 200, answer
    return answer


@pytest.fixture(scope="module")
def users(plain_plane) -> dict:
    serve_kinds(plain_plane, ("VirtualMachinePool", "VirtualMachineTemplate"))
    plain_plane.ensure_namespace(NS)
    live = plain_plane.get(
        {
            "apiVersion": "instancetype.kubevirt.io/v1beta1",
            "kind": "VirtualMachineClusterInstancetype",
            "metadata": {"name": "u1.small"},
        }
    )
    generation = live["metadata"]["generation"]
    a = plain_plane.apply(halted_vm("vm-a", NS, {"name": "u1.small"}, {"name": "fedora"}))
    rev_a = controller_revision(
        plain_plane, a, "VirtualMachineClusterInstancetype", "u1.small", live["spec"], generation
    )
    _status(plain_plane, a, {"created": True, "instancetypeRef": {"controllerRevisionRef": {"name": rev_a}}})
    b = plain_plane.apply(halted_vm("vm-b", NS, {"name": "u1.small"}, None))
    rev_b = controller_revision(plain_plane, b, "VirtualMachineClusterInstancetype", "u1.small", SMALL_SPEC, 0)
    _status(plain_plane, b, {"instancetypeRef": {"controllerRevisionRef": {"name": rev_b}}})
    plain_plane.apply(halted_vm("vm-c", NS, {"name": "u1.small"}, None))
    plain_plane.apply(
        {
            "apiVersion": "pool.kubevirt.io/v1beta1",
            "kind": "VirtualMachinePool",
            "metadata": {"name": "pool-1", "namespace": NS},
            "spec": {
                "replicas": 3,
                "selector": {"matchLabels": {"pool": "pool-1"}},
                "virtualMachineTemplate": {
                    "metadata": {"labels": {"pool": "pool-1"}},
                    "spec": {**halted_vm("x", NS, {"name": "u1.small"}, None)["spec"]},
                },
            },
        }
    )
    plain_plane.apply(
        {
            "apiVersion": "template.kubevirt.io/v1beta1",
            "kind": "VirtualMachineTemplate",
            "metadata": {"name": "tpl-1", "namespace": NS},
            "spec": {
                "parameters": [{"name": "SIZE", "value": "u1.small"}],
                "virtualMachine": halted_vm("${NAME}", NS, {"name": "${SIZE}"}, None),
            },
        }
    )
    # a pool whose VMs infer their instance type from a labelled PVC (resolved as KubeVirt's webhook would)
    plain_plane.apply(
        {
            "apiVersion": "v1",
            "kind": "PersistentVolumeClaim",
            "metadata": {
                "name": "golden",
                "namespace": NS,
                "labels": {"instancetype.kubevirt.io/default-instancetype": "u1.medium"},
            },
            "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}},
        }
    )
    inferring = halted_vm("y", NS, {"inferFromVolume": "root"}, None)
    inferring["spec"]["template"]["spec"]["volumes"] = [
        {"name": "root", "persistentVolumeClaim": {"claimName": "golden"}}
    ]
    plain_plane.apply(
        {
            "apiVersion": "pool.kubevirt.io/v1beta1",
            "kind": "VirtualMachinePool",
            "metadata": {"name": "pool-2", "namespace": NS},
            "spec": {
                "replicas": 2,
                "selector": {"matchLabels": {"pool": "pool-2"}},
                "virtualMachineTemplate": {"metadata": {"labels": {"pool": "pool-2"}}, "spec": inferring["spec"]},
            },
        }
    )
    return {"rev_a": rev_a, "rev_b": rev_b, "generation": generation}


def test_one_instancetype_in_detail(plain_cli, users) -> None:
    result = plain_cli("usage", "vmcf/u1.small", "-n", NS)
    assert (result.exit_code, result.stderr) == (0, "")
    rows = [line.split() for line in result.stdout.splitlines()]
    assert rows[0] == ["USER", "NAMESPACE", "VIA", "REVISION", "GENERATION", "VCPUS", "MEMORY"]
    generation = users["generation"]
    assert rows[1] == [
        "virtualmachine/vm-a",
        NS,
        "spec.instancetype",
        users["rev_a"],
        "live",
        f"({generation})",
        "1",
        "2Gi",
    ]
    assert rows[2] == [
        "virtualmachine/vm-b",
        NS,
        "spec.instancetype",
        users["rev_b"],
        "older",
        "(0",
        "of",
        f"{generation})",
        "1",
        "2Gi",
    ]
    assert rows[3] == ["virtualmachine/vm-c", NS, "spec.instancetype", "-", "-", "1", "2Gi"]
    assert rows[4][:3] == ["virtualmachinepool/pool-1", NS, "spec.virtualMachineTemplate.spec.instancetype"]
    assert rows[4][-2:] == ["3", "6Gi"]
    assert rows[5][:3] == ["virtualmachinetemplate/tpl-1", NS, "spec.virtualMachine.spec.instancetype"]
    assert [row[0] for row in rows[6:8]] == [
        f"controllerrevision/{users['rev_a']}",
        f"controllerrevision/{users['rev_b']}",
    ]
    assert result.stdout.splitlines()[-1] == (
        "Measured use of these VMs: kubectl instancetype rightsize vm/NAME ... --prometheus-url URL"
    )
    assert result.stdout.splitlines()[-2] == (
        "virtualmachineclusterinstancetype/u1.small: 3 VM(s) (1 running, 1 on an older generation), "
        "1 pool(s) (3 replicas), 1 template(s), 2 ControllerRevision(s), 6 vCPU and 12Gi memory in use"
    )


def test_summary_table(plain_cli, users) -> None:
    result = plain_cli("usage", "-n", NS)
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["NAME", "VMS", "RUNNING", "OLDER", "POOLS", "TEMPLATES", "REVISIONS", "VCPUS", "MEMORY"]
    small = next(line.split() for line in lines if line.startswith("virtualmachineclusterinstancetype/u1.small "))
    assert small[1:] == ["3", "1", "1", "1", "(3)", "1", "2", "6", "12Gi"]
    fedora = next(line.split() for line in lines if line.startswith("virtualmachineclusterpreference/fedora "))
    assert fedora[1:] == ["1", "1", "0", "0", "0", "0", "-", "-"]


def test_document(plain_cli, users) -> None:
    result = plain_cli("usage", "vmcf/u1.small", "-n", NS, "-o", "json")
    assert result.exit_code == 0, result.stderr
    (item,) = json.loads(result.stdout)["items"]
    assert item["totals"]["poolReplicas"] == 3 and item["totals"]["memory"] == "12Gi"
    assert [user["name"] for user in item["users"]][:3] == ["vm-a", "vm-b", "vm-c"]


def test_check_delete(plain_cli, users) -> None:
    result = plain_cli("usage", "vmcf/u1.small", "--check-delete", "-n", NS)
    assert result.exit_code == 1
    # every namespace is read (other tests' VMs may use u1.small too): these are NS's
    used_here = [line for line in result.stdout.splitlines() if not line.startswith("  ") or f"({NS})" in line]
    blocking = len(result.stdout.splitlines()) - 1
    assert result.stderr == (
        f"error: virtualmachineclusterinstancetype/u1.small is still used by {blocking} object(s) (listed above): "
        "delete or switch them first\n"
    )
    assert used_here == [
        "deleting virtualmachineclusterinstancetype/u1.small would affect:",
        f"  virtualmachine/vm-a ({NS}): keeps running on {users['rev_a']}; a restart is fine, but switching back "
        "or --refresh needs the object",
        f"  virtualmachine/vm-b ({NS}): keeps running on {users['rev_b']}; a restart is fine, but switching back "
        "or --refresh needs the object",
        f"  virtualmachine/vm-c ({NS}): has no stored copy: the controller stops it with FailedFindInstancetype",
        f"  virtualmachinepool/pool-1 ({NS}): new replicas cannot be created (FailedFindInstancetype)",
        f"  virtualmachinetemplate/tpl-1 ({NS}): VMs made from it cannot start",
    ]
    free = plain_cli("usage", "vmcf/cx1.medium", "--check-delete", "-n", NS)
    assert (free.exit_code, free.stdout) == (
        0,
        "virtualmachineclusterinstancetype/cx1.medium can be deleted: nothing uses it\n",
    )


def test_check_delete_of_a_revision(plain_cli, users) -> None:
    result = plain_cli("usage", f"controllerrevision/{users['rev_a']}", "--check-delete", "-n", NS)
    assert result.exit_code == 1
    assert result.stdout == f"controllerrevision/{users['rev_a']} is recorded by:\n  virtualmachine/vm-a\n"
    assert "deleting it sends them back to the live object" in result.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["pod/x"], "usage takes TYPE/NAME with TYPE one of virtualmachineinstancetype"),
        (["--check-delete"], "--check-delete needs the TYPE/NAME it would delete"),
        (["controllerrevision/x"], "controllerrevision/NAME goes with --check-delete"),
        (["vmcf/"], "resource name may not be empty (vmcf/NAME)"),
    ],
)
def test_usage_errors(plain_cli, args, message) -> None:
    result = plain_cli("usage", *args)
    assert result.exit_code == 1 and result.stderr.startswith(f"error: {message}"), result.stderr


def test_a_pool_inferring_from_a_volume(plain_cli, users) -> None:
    result = plain_cli("usage", "vmcf/u1.medium", "-n", NS)
    assert result.exit_code == 0, result.stderr
    row = next(line for line in result.stdout.splitlines() if line.startswith("virtualmachinepool/pool-2 "))
    assert "spec.virtualMachineTemplate.spec.instancetype (inferFromVolume root) (2 replicas)" in row
    assert row.split()[-2:] == ["2", "8Gi"]


HIDDEN = "usage-rbac-hidden"
ROLE_RULES = [
    {"apiGroups": ["kubevirt.io"], "resources": ["virtualmachines"], "verbs": ["list"]},
    {"apiGroups": ["pool.kubevirt.io"], "resources": ["virtualmachinepools"], "verbs": ["list"]},
    {"apiGroups": ["template.kubevirt.io"], "resources": ["virtualmachinetemplates"], "verbs": ["list"]},
    {"apiGroups": ["apps"], "resources": ["controllerrevisions"], "verbs": ["list"]},
]


@pytest.fixture(scope="module")
def hidden_user(plain_plane, users) -> str:
    """A cluster-scoped instance type used by one VM in HIDDEN only, and user "dana", who may list the kinds
    that use types in NS (a Role) and, when bound, the namespaces (a ClusterRole), never HIDDEN's objects."""
    plain_plane.ensure_namespace(HIDDEN)
    spec = {"cpu": {"guest": 1}, "memory": {"guest": "1Gi"}}
    for name in ("usage-rbac-used", "usage-rbac-free"):
        plain_plane.apply(
            {
                "apiVersion": "instancetype.kubevirt.io/v1beta1",
                "kind": "VirtualMachineClusterInstancetype",
                "metadata": {"name": name},
                "spec": spec,
            }
        )
    plain_plane.apply(halted_vm("vm-hidden", HIDDEN, {"name": "usage-rbac-used"}, None))
    plain_plane.apply(
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "Role",
            "metadata": {"name": "usage-readers", "namespace": NS},
            "rules": ROLE_RULES,
        }
    )
    plain_plane.apply(
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "RoleBinding",
            "metadata": {"name": "usage-readers-dana", "namespace": NS},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "usage-readers"},
            "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "dana"}],
        }
    )
    return "dana"


def _bind_namespace_lister(plain_plane) -> None:
    plain_plane.apply(
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "ClusterRole",
            "metadata": {"name": "usage-namespace-lister"},
            "rules": [{"apiGroups": [""], "resources": ["namespaces"], "verbs": ["list"]}],
        }
    )
    plain_plane.apply(
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "ClusterRoleBinding",
            "metadata": {"name": "usage-namespace-lister-dana"},
            "roleRef": {
                "apiGroup": "rbac.authorization.k8s.io",
                "kind": "ClusterRole",
                "name": "usage-namespace-lister",
            },
            "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "dana"}],
        }
    )


def test_check_delete_of_a_cluster_type_looks_in_every_namespace(plain_cli, hidden_user) -> None:
    """Issue 29: -n names where the user works, not where a cluster-scoped type is used."""
    result = plain_cli("usage", "vmcf/usage-rbac-used", "--check-delete", "-n", NS)
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        "deleting virtualmachineclusterinstancetype/usage-rbac-used would affect:",
        f"  virtualmachine/vm-hidden ({HIDDEN}): has no stored copy: the controller stops it with "
        "FailedFindInstancetype",
    ]
    free = plain_cli("usage", "vmcf/usage-rbac-free", "--check-delete", "-n", NS)
    assert (free.exit_code, free.stdout, free.stderr) == (
        0,
        "virtualmachineclusterinstancetype/usage-rbac-free can be deleted: nothing uses it\n",
        "",
    )


def test_check_delete_that_could_not_read_everything_gives_no_verdict(plain_plane, plain_cli, hidden_user) -> None:
    """Issue 34: an RBAC-limited user (VMs of NS only) got "can be deleted" after five warnings."""
    args = ("usage", "vmcf/usage-rbac-free", "--check-delete", "-n", NS, "--as", hidden_user)
    # dana may not list namespaces: nothing beyond a cluster-wide list can be tried
    blind = plain_cli(*args)
    assert (blind.exit_code, blind.stdout) == (1, "")
    *warnings, last = blind.stderr.splitlines()
    assert last == (
        "error: cannot tell whether virtualmachineclusterinstancetype/usage-rbac-free can be deleted: "
        "controllerrevisions.apps in any namespace; virtualmachines.kubevirt.io in any namespace; "
        "virtualmachinepools.pool.kubevirt.io in any namespace; virtualmachinetemplates.template.kubevirt.io in any "
        "namespace could not be read; run the check as a user who may list them"
    )
    assert (
        'Warning: cannot list virtualmachines.kubevirt.io: virtualmachines.kubevirt.io is forbidden: User "dana" '
        'cannot list resource "virtualmachines" in API group "kubevirt.io" at the cluster scope; nor the namespaces '
        "to read them one by one; they are left out"
    ) in warnings
    # with the namespaces: each is listed on its own; NS is read, the others are named
    _bind_namespace_lister(plain_plane)
    seen = plain_cli(*args)
    assert (seen.exit_code, seen.stdout) == (1, "")
    *warnings, last = seen.stderr.splitlines()
    assert last.startswith(
        "error: cannot tell whether virtualmachineclusterinstancetype/usage-rbac-free can be deleted: "
        "controllerrevisions.apps in namespaces "
    )
    assert "; virtualmachines.kubevirt.io in namespaces " in last
    assert last.endswith("could not be read; run the check as a user who may list them")
    vm_warning = next(line for line in warnings if line.startswith("Warning: cannot list virtualmachines.kubevirt.io"))
    refused = vm_warning.removeprefix("Warning: cannot list virtualmachines.kubevirt.io in namespaces ")
    refused_names = refused.removesuffix(": forbidden; they are left out").split(", ")
    assert HIDDEN in refused_names and NS not in refused_names
    # issue 34's spelling: -A gives the same answer (it printed "can be deleted" after five warnings)
    everywhere = plain_cli("usage", "vmcf/usage-rbac-free", "--check-delete", "-A", "--as", hidden_user)
    assert (everywhere.exit_code, everywhere.stdout) == (1, "")
    assert everywhere.stderr.splitlines()[-1] == last
    # a use found in what could be read is still listed, and the check still fails
    used = plain_cli("usage", "vmcf/u1.small", "--check-delete", "-n", NS, "--as", hidden_user)
    assert used.exit_code == 1
    assert "  virtualmachine/vm-c (usage-test): has no stored copy" in used.stdout
    assert used.stderr.splitlines()[-1].startswith(
        "error: virtualmachineclusterinstancetype/u1.small is still used by "
    )


def test_revisions_says_once_when_it_may_not_list_vmis(plain_cli, hidden_user) -> None:
    """The RBAC rule: dana may list VMs and ControllerRevisions in NS but not VMIs; ``revisions`` still prints every
    revision, and one warning says CURRENT cannot mark what a running VMI uses."""
    result = plain_cli("revisions", "-n", NS, "--as", hidden_user)
    assert result.exit_code == 0, result.stderr
    assert result.stderr == (
        f'Warning: cannot list virtualmachineinstances.kubevirt.io in the namespace "{NS}": forbidden; CURRENT '
        "does not mark the start revisions that running VMIs use (ask for list on virtualmachineinstances to see "
        "them)\n"
    )
    assert result.stdout.splitlines()[0].split() == ["VM", "REVISION", "HOLDS", "GENERATION", "CURRENT", "CREATED"]
    admin = plain_cli("revisions", "-n", NS)
    assert (admin.exit_code, admin.stderr, admin.stdout) == (0, "", result.stdout)
