"""``create vm|instancetype|preference`` against the real control plane: checks, creation, failures."""

from __future__ import annotations

import itertools
import json

import pytest
import yaml

from kubectl_instancetype.kube.transport import Transport

pytestmark = pytest.mark.controlplane

NAMES = (f"itest-vm-{index}" for index in itertools.count())
CONTAINERDISK = "src:quay.io/containerdisks/fedora:41"


@pytest.fixture
def namespace(control_plane) -> str:
    """A namespace with the catalog's namespaced kinds (namespaces cannot be deleted without a controller)."""
    control_plane.ensure_namespace("create-tests")
    return "create-tests"


def vm(control_plane, name: str, namespace: str) -> dict | None:
    return control_plane.get(
        {"apiVersion": "kubevirt.io/v1", "kind": "VirtualMachine", "metadata": {"name": name, "namespace": namespace}}
    )


@pytest.mark.parametrize(
    "instancetype,preference,expected_spec",
    [
        ("u1.medium", "fedora", {"instancetype": {"name": "u1.medium"}, "preference": {"name": "fedora"}}),
        (
            "virtualmachineinstancetype/u1.large",
            "virtualmachinepreference/rhel.9",
            {
                "instancetype": {"kind": "virtualmachineinstancetype", "name": "u1.large"},
                "preference": {"kind": "virtualmachinepreference", "name": "rhel.9"},
            },
        ),
        (
            "VirtualMachineClusterInstancetype/u1.small",
            "virtualmachineclusterpreferences/fedora",
            {
                "instancetype": {"kind": "virtualmachineclusterinstancetype", "name": "u1.small"},
                "preference": {"kind": "virtualmachineclusterpreference", "name": "fedora"},
            },
        ),
    ],
)
def test_create_vm_with_each_kind_of_reference(
    cli, control_plane, mocker, instancetype, preference, expected_spec
) -> None:
    name = next(NAMES)
    spy = mocker.spy(Transport, "request")
    result = cli(
        "create",
        "vm",
        "--name",
        name,
        "--instancetype",
        instancetype,
        "--preference",
        preference,
        "--volume-containerdisk",
        CONTAINERDISK,
        "-n",
        "catalog",
    )
    assert (result.exit_code, result.stdout, result.stderr) == (0, f"virtualmachine.kubevirt.io/{name} created\n", "")
    requests = [(call.args[1], call.args[2].split("?")[0].rsplit("/", 1)[-1]) for call in spy.call_args_list]
    # One GET per reference, then the one POST; after it only the fit check's reads (usecases/placement.fit_warning),
    # each once: the KubeVirt CR, the namespace, its quotas (read once, for the launcher pod and the quota check)
    # and limit ranges, the priority classes, the nodes (then the pods of a few nodes, when there are nodes). The
    # instance type and preference the pre-flight read are not read again. Before: 9 GETs after the POST.
    assert [method for method, _ in requests[:3]] == ["GET", "GET", "POST"]
    after = requests[3:]
    assert {method for method, _ in after} == {"GET"}
    assert [what for _, what in after[:6]] == [
        "kubevirts",
        "catalog",
        "resourcequotas",
        "limitranges",
        "priorityclasses",
        "nodes",
    ]
    assert {what for _, what in after[6:]} <= {"pods"}
    stored = vm(control_plane, name, "catalog")
    assert {key: stored["spec"][key] for key in ("instancetype", "preference")} == expected_spec
    assert (
        stored["spec"]["template"]["spec"]["volumes"][0]["containerDisk"]["image"] == "quay.io/containerdisks/fedora:41"
    )


def test_context_namespace_is_the_default_target(cli, control_plane) -> None:
    name = next(NAMES)
    result = cli("create", "vm", "--name", name, "--instancetype", "u1.medium")
    assert result.exit_code == 0, result.stderr
    assert vm(control_plane, name, "default")["metadata"]["namespace"] == "default"


def test_create_namespaced_type_without_n_goes_to_the_contexts_namespace(cli, control_plane, tmp_path) -> None:
    """kubectl's rule, through the Session alone: no -n, so the kubeconfig context's namespace (not "default"),
    and metadata.namespace is not written (virtctl writes it only with -n)."""
    control_plane.ensure_namespace("create-context-ns")
    config = yaml.safe_load(control_plane.kubeconfig("admin").read_text())
    for context in config["contexts"]:
        context["context"]["namespace"] = "create-context-ns"
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text(yaml.safe_dump(config))
    name = f"ctx-ns-{next(NAMES)}"
    env = {"KUBECONFIG": str(kubeconfig)}
    printed = cli(
        "create",
        "instancetype",
        "--namespaced",
        "--name",
        name,
        "--cpu",
        "1",
        "--memory",
        "1Gi",
        "--dry-run=client",
        "-o",
        "yaml",
        extra_env=env,
    )
    assert printed.exit_code == 0, printed.stderr
    assert "namespace:" not in printed.stdout
    result = cli(
        "create", "instancetype", "--namespaced", "--name", name, "--cpu", "1", "--memory", "1Gi", extra_env=env
    )
    assert (result.exit_code, result.stdout) == (
        0,
        f"virtualmachineinstancetype.instancetype.kubevirt.io/{name} created\n",
    ), result.stderr
    stored = control_plane.get(
        {
            "apiVersion": "instancetype.kubevirt.io/v1beta1",
            "kind": "VirtualMachineInstancetype",
            "metadata": {"name": name, "namespace": "create-context-ns"},
        }
    )
    assert stored is not None and stored["spec"]["cpu"]["guest"] == 1
    assert (
        control_plane.get(
            {
                "apiVersion": "instancetype.kubevirt.io/v1beta1",
                "kind": "VirtualMachineInstancetype",
                "metadata": {"name": name, "namespace": "default"},
            }
        )
        is None
    )


STOPPED = "a VirtualMachine naming it stays stopped until it exists"
DENIED = 'Error from server (Invalid): admission webhook "virtualmachine-validator.kubevirt.io" denied the request: '


@pytest.mark.parametrize(
    "flags,code,message",
    [
        (
            # KubeVirt admits a VM whose types are missing (v1.6+); here the preference's requirement is not met
            # without them, and the missing name is what to fix
            ["--instancetype", "u1.mediun", "--preference", "fedora"],
            1,
            f'Warning: virtualmachineclusterinstancetype "u1.mediun" not found (did you mean u1.medium?): {STOPPED}\n'
            f"{DENIED}failure checking preference requirements: insufficient Memory resources of 0 provided by "
            'VirtualMachine, preference requires 2Gi; virtualmachineclusterinstancetype "u1.mediun" not found '
            "(did you mean u1.medium?)\n",
        ),
        (
            ["--instancetype", "u1.medium", "--preference", "fedoraa"],
            0,
            f'Warning: virtualmachineclusterpreference "fedoraa" not found (did you mean fedora?): {STOPPED}\n',
        ),
        (
            ["--instancetype", "zz.none", "--preference", "virtualmachinepreference/fedora", "-n", "create-tests"],
            0,
            f'Warning: virtualmachineclusterinstancetype "zz.none" not found: {STOPPED}\n'
            'Warning: virtualmachinepreference "fedora" not found in namespace "create-tests" '
            f'(a VirtualMachineClusterPreference named "fedora" exists: use --preference fedora): {STOPPED}\n',
        ),
        (
            ["--instancetype", "u1.nano", "--preference", "windows.11"],
            1,
            f"{DENIED}failure checking preference requirements: insufficient CPU resources of 1 vCPU provided by "
            "instance type, preference requires 2 vCPU; the smallest instance types that satisfy preference "
            "windows.11: u1.2xmedium, d1.2xmedium, cx1.large (kubectl instancetype recommend --preference windows.11)\n",
        ),
        (
            # both scopes hold the catalog here: each fitting type is named once, as --instancetype takes it
            ["--instancetype", "u1.nano", "--preference", "windows.11", "-n", "catalog"],
            1,
            f"{DENIED}failure checking preference requirements: insufficient CPU resources of 1 vCPU provided by "
            "instance type, preference requires 2 vCPU; the smallest instance types that satisfy preference "
            "windows.11: u1.2xmedium, d1.2xmedium, cx1.large (kubectl instancetype recommend --preference windows.11)\n",
        ),
        (["--instancetype", "u1.2xmedium", "--preference", "oraclelinux"], 0, ""),
        (
            ["--preference", "fedora"],
            1,
            f"{DENIED}failure checking preference requirements: insufficient Memory resources of 512Mi provided by "
            "VirtualMachine, preference requires 2Gi; the smallest instance types that satisfy preference fedora: "
            "u1.small, d1.small, cx1.medium (kubectl instancetype recommend --preference fedora)\n",
        ),
    ],
)
def test_kubevirts_verdict_with_what_to_do(cli, control_plane, namespace, flags, code, message) -> None:
    """The pre-flight warns about what is missing; KubeVirt's webhooks decide; a denial says what to change."""
    name = next(NAMES)
    result = cli("create", "vm", "--name", name, *flags)
    assert (result.exit_code, result.stderr) == (code, message)
    target = flags[flags.index("-n") + 1] if "-n" in flags else "default"
    if code:
        assert result.stdout == ""
        assert vm(control_plane, name, target) is None
    else:
        assert result.stdout == f"virtualmachine.kubevirt.io/{name} created\n"


def test_skip_checks_sends_only_the_post(cli, control_plane, mocker) -> None:
    name = next(NAMES)
    spy = mocker.spy(Transport, "request")
    result = cli("create", "vm", "--name", name, "--instancetype", "not.there", "--skip-checks")
    assert result.exit_code == 0, result.stderr
    assert [call.args[1] for call in spy.call_args_list] == ["POST"]
    assert vm(control_plane, name, "default")["spec"]["instancetype"] == {"name": "not.there"}


def test_already_exists(cli) -> None:
    name = next(NAMES)
    assert cli("create", "vm", "--name", name, "--skip-checks").exit_code == 0
    result = cli("create", "vm", "--name", name, "--skip-checks")
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == f'Error from server (AlreadyExists): virtualmachines.kubevirt.io "{name}" already exists\n'


def test_server_dry_run_persists_nothing(cli, control_plane) -> None:
    name = next(NAMES)
    result = cli("create", "vm", "--name", name, "--instancetype", "u1.medium", "--dry-run=server", "-o", "yaml")
    assert result.exit_code == 0, result.stderr
    answer = yaml.safe_load(result.stdout)
    assert answer["metadata"]["namespace"] == "default" and answer["metadata"]["uid"]
    assert "managedFields" not in answer["metadata"]
    assert vm(control_plane, name, "default") is None
    named = cli("create", "vm", "--name", name, "--dry-run=server")
    assert named.stdout == f"virtualmachine.kubevirt.io/{name} created (server dry run)\n"


def test_client_dry_run_needs_no_cluster(tmp_path) -> None:
    from tests.conftest import run_cli

    result = run_cli(
        ["create", "vm", "--name", "offline", "--instancetype", "u1.medium", "--dry-run=client", "-o", "json"],
        environ={"HOME": str(tmp_path)},
    )
    assert result.exit_code == 0, result.stderr
    manifest = json.loads(result.stdout)
    assert manifest["metadata"] == {"name": "offline"}  # no namespace unless -n is given, as virtctl
    bare = run_cli(["create", "vm", "--name", "offline", "--dry-run", "-o", "name"], environ={"HOME": str(tmp_path)})
    assert bare.stdout == "virtualmachine.kubevirt.io/offline\n"


def test_output_json_is_the_servers_answer(cli, control_plane) -> None:
    name = next(NAMES)
    result = cli("create", "vm", "--name", name, "--instancetype", "u1.medium", "-o", "json")
    answer = json.loads(result.stdout)
    assert answer["metadata"]["uid"] == vm(control_plane, name, "default")["metadata"]["uid"]


def test_restricted_user_is_refused_and_nothing_exists(cli, control_plane, without_instancetype_view) -> None:
    name = next(NAMES)
    result = cli("create", "vm", "--name", name, "--instancetype", "u1.medium", user="alice")
    assert (result.exit_code, result.stdout) == (1, "")
    # What the user may not read is not checked; the server's refusal of the write is the verdict.
    assert result.stderr.splitlines()[-1].startswith(
        "Error from server (Forbidden): virtualmachines.kubevirt.io is forbidden: "
        'User "alice" cannot create resource "virtualmachines"'
    )
    skipped = cli("create", "vm", "--name", name, "--skip-checks", user="alice")
    assert skipped.exit_code == 1
    assert skipped.stderr.startswith(
        "Error from server (Forbidden): virtualmachines.kubevirt.io is forbidden: "
        'User "alice" cannot create resource "virtualmachines"'
    )
    assert vm(control_plane, name, "alice") is None


def test_flag_errors_send_nothing(cli, mocker) -> None:
    spy = mocker.spy(Transport, "request")
    for flags, message in [
        (
            ["--volume-pvc", "nope"],
            'error: failed to parse "--volume-pvc" flag: params need to have at least one colon: nope\n',
        ),
        (
            ["--memory", "1Gi", "--instancetype", "u1.medium"],
            "error: if any flags in the group [memory instancetype infer-instancetype infer-instancetype-from] are "
            "set none of the others can be; [instancetype memory] were all set\n",
        ),
        (["--dry-run=maybe"], 'error: Invalid dry-run value (maybe). Must be "none", "server", or "client".\n'),
        (
            ["-o", "wide"],
            'error: unable to match a printer suitable for the output format "wide", allowed formats are: '
            "custom-columns,custom-columns-file,go-template,go-template-file,json,jsonpath,jsonpath-as-json,"
            "jsonpath-file,name,template,templatefile,yaml\n",
        ),
        (
            ["--termination-grace-period", "soon"],
            'error: invalid argument "soon" for "--termination-grace-period" '
            'flag: strconv.ParseInt: parsing "soon": invalid syntax\n',
        ),
    ]:
        result = cli("create", "vm", *flags)
        assert (result.exit_code, result.stdout, result.stderr) == (1, "", message), flags
    assert spy.call_count == 0


def test_create_instancetype_and_preference(cli, control_plane, namespace) -> None:
    result = cli("create", "instancetype", "--cpu", "3", "--memory", "6Gi", "--name", "itest-custom")
    assert result.stdout == "virtualmachineclusterinstancetype.instancetype.kubevirt.io/itest-custom created\n"
    listed = cli("list", "--min-cpu", "3", "--max-cpu", "3", "--scope=cluster")
    assert listed.stdout.splitlines()[1].split()[:4] == ["itest-custom", "cluster", "3", "6Gi"]
    namespaced = cli("create", "instancetype", "--cpu", "2", "--memory", "1Gi", "--name", "ns-type", "-n", namespace)
    assert namespaced.stdout == "virtualmachineinstancetype.instancetype.kubevirt.io/ns-type created\n"
    assert control_plane.get(
        {
            "apiVersion": "instancetype.kubevirt.io/v1beta1",
            "kind": "VirtualMachineInstancetype",
            "metadata": {"name": "ns-type", "namespace": namespace},
        }
    )["spec"]["cpu"] == {"guest": 2}
    preference = cli(
        "create",
        "preference",
        "--namespaced",
        "--cpu-topology",
        "cores",
        "--name",
        "ns-pref",
        "-n",
        namespace,
        "-o",
        "yaml",
    )
    assert yaml.safe_load(preference.stdout)["spec"] == {"cpu": {"preferredCPUTopology": "cores"}}
    again = cli("create", "instancetype", "--cpu", "3", "--memory", "6Gi", "--name", "itest-custom")
    assert again.stderr == (
        "Error from server (AlreadyExists): virtualmachineclusterinstancetypes.instancetype."
        'kubevirt.io "itest-custom" already exists\n'
    )
    missing = cli("create", "instancetype", "--name", "x")
    assert missing.stderr == 'error: required flag(s) "cpu", "memory" not set\n'
    for kind, name, ns in (
        ("VirtualMachineClusterInstancetype", "itest-custom", None),
        ("VirtualMachineInstancetype", "ns-type", namespace),
        ("VirtualMachinePreference", "ns-pref", namespace),
    ):
        control_plane.delete(
            {
                "apiVersion": "instancetype.kubevirt.io/v1beta1",
                "kind": kind,
                "metadata": {"name": name} | ({"namespace": ns} if ns else {}),
            }
        )


def test_create_vm_with_a_custom_instancetype_and_server_side_schema(cli, control_plane) -> None:
    """The server validates with KubeVirt's schema: what create vm writes is accepted as it is."""
    name = next(NAMES)
    result = cli(
        "create",
        "vm",
        "--name",
        name,
        "--instancetype",
        "u1.medium",
        "--preference",
        "fedora",
        "--volume-import",
        "type:registry,url:docker://quay.io/containerdisks/fedora:41,size:10Gi",
        "--volume-pvc",
        "src:my-pvc",
        "--user",
        "fedora",
        "--ssh-key",
        "ssh-ed25519 AAAA test@example",
        "--run-strategy",
        "Halted",
    )
    assert result.exit_code == 0, result.stderr
    stored = vm(control_plane, name, "default")
    assert stored["spec"]["runStrategy"] == "Halted"
    assert [v["name"] for v in stored["spec"]["template"]["spec"]["volumes"]][-1] == "cloudinitdisk"
