"""``list`` against the real control plane with the embedded catalog loaded (in-process CLI)."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
import yaml

from kubectl_instancetype.kube.transport import Transport

pytestmark = pytest.mark.controlplane

CLUSTER_IT = "virtualmachineclusterinstancetype.instancetype.kubevirt.io"


def names(stdout: str) -> list[str]:
    """NAME column of a table (header skipped)."""
    return [line.split()[0] for line in stdout.splitlines()[1:]]


def test_done_when_u1_types_with_four_vcpus(cli) -> None:
    result = cli("list", "--min-cpu", "4", "--max-cpu", "4", "--class", "general.purpose")
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["NAME", "KIND", "CPU", "MEMORY", "CLASS", "AGE"]
    assert [line.split()[:5] for line in lines[1:]] == [["u1.xlarge", "cluster", "4", "16Gi", "general.purpose"]]
    assert result.stderr == ""


def test_default_scope_is_cluster_plus_current_namespace(cli) -> None:
    cluster_only = cli("list", "--cpu", "4", "--class", "general.purpose")
    with_namespace = cli("list", "--cpu", "4", "--class", "general.purpose", "-n", "catalog")
    assert [line.split()[:2] for line in cluster_only.stdout.splitlines()[1:]] == [["u1.xlarge", "cluster"]]
    assert [line.split()[:2] for line in with_namespace.stdout.splitlines()[1:]] == [
        ["u1.xlarge", "cluster"],
        ["u1.xlarge", "namespaced"],
    ]


@pytest.mark.parametrize(
    "flags,expected",
    [
        (["--scope=cluster"], {("", "cluster")}),
        (["--namespaced", "-n", "catalog"], {("", "namespaced")}),
        (["-A"], {("", "cluster"), ("catalog", "namespaced")}),
        (["-A", "--namespaced"], {("catalog", "namespaced")}),
    ],
)
def test_scopes(cli, flags: list[str], expected: set[tuple[str, str]]) -> None:
    """With -A a NAMESPACE column comes first, as kubectl prints it (empty for cluster-scoped objects)."""
    result = cli("list", "--size", "medium", "--class", "overcommitted", *flags)
    assert result.exit_code == 0, result.stderr
    header, *rows = result.stdout.splitlines()
    assert header.split()[:3] == (["NAMESPACE", "NAME", "KIND"] if "-A" in flags else ["NAME", "KIND", "CPU"])
    kind_at = header.index("KIND")
    found = set()
    for row in rows:
        namespace = row[: header.index(" NAME") + 1].strip() if "-A" in flags else ""
        found.add((namespace, row[kind_at:].split()[0]))
    assert found == expected


def test_namespaced_only_in_an_empty_namespace_says_so(cli) -> None:
    result = cli("list", "--namespaced", "-n", "default")
    assert (result.exit_code, result.stdout, result.stderr) == (0, "", "No resources found in default namespace.\n")


def test_no_resources_found(cli) -> None:
    result = cli("list", "--cpu", "3")
    assert (result.exit_code, result.stdout, result.stderr) == (0, "", "No resources found\n")


@pytest.mark.parametrize(
    "flags,expected",
    [
        (["--cpu", "32", "--class", "memory.intensive"], ["m1.8xlarge", "m1.8xlarge1gi"]),
        (["--memory", "262144Mi"], ["m1.8xlarge", "m1.8xlarge1gi"]),  # quantity-normalised to the label's 256Gi
        (["--hugepages=1Gi", "--class", "compute.exclusive", "--cpu", "2"], ["cx1.large1gi"]),
        (["--hugepages", "--cpu", "64"], ["n1.8xlarge"]),
        (["--realtime", "--size", "micro"], ["rt1.micro"]),
        (["--dedicated-cpu", "--isolate-emulator-thread", "--numa", "--size", "medium"], ["cx1.medium", "rt1.medium"]),
        (["-l", "instancetype.kubevirt.io/class in (network)", "--cpu", "4"], ["n1.large", "n1.medium"]),
        (
            ["--min-memory", "128Gi", "--max-memory", "131072Mi"],
            ["d1.8xlarge", "m1.4xlarge", "m1.4xlarge1gi", "n1.8xlarge", "o1.8xlarge", "rt1.8xlarge", "u1.8xlarge"],
        ),
        (["--min-cpu", "33"], ["n1.8xlarge"]),
        (["--vendor", "kubevirt.io", "--size", "2xmedium"], ["d1.2xmedium", "u1.2xmedium"]),
    ],
)
def test_filters(cli, flags: list[str], expected: list[str]) -> None:
    result = cli("list", "--scope=cluster", "--sort-by", "name", *flags)
    assert result.exit_code == 0, result.stderr
    assert names(result.stdout) == expected


def test_gpus_filter_finds_nothing_in_v1_7(cli) -> None:
    assert cli("list", "--gpus").stderr == "No resources found\n"


@pytest.fixture
def extra_objects(control_plane) -> Iterator[list[dict]]:
    """An unlabelled instance type, a legacy one and a deprecated-labelled one, removed afterwards."""

    def instancetype(name: str, cpu: int, memory: str, labels: dict | None = None) -> dict:
        return {
            "apiVersion": "instancetype.kubevirt.io/v1beta1",
            "kind": "VirtualMachineClusterInstancetype",
            "metadata": {"name": name, "labels": labels or {}},
            "spec": {"cpu": {"guest": cpu}, "memory": {"guest": memory}},
        }

    objects = [
        instancetype("itest-unlabelled", 6, "6144Mi"),
        instancetype("server.itest", 6, "6Gi"),
        instancetype("itest-old", 6, "6Gi", {"instancetype.kubevirt.io/deprecated": "true"}),
    ]
    for obj in objects:
        control_plane.apply(obj)
    yield objects
    for obj in objects:
        control_plane.delete(obj)


def test_ranges_work_without_labels_and_deprecated_are_marked(cli, extra_objects) -> None:
    result = cli("list", "--min-cpu", "6", "--max-cpu", "6", "--sort-by", "name")
    assert result.exit_code == 0, result.stderr
    rows = [line.split("   ")[0].strip() for line in result.stdout.splitlines()[1:]]
    assert rows == ["itest-old (deprecated)", "itest-unlabelled", "server.itest (deprecated)"]
    assert "6144Mi" in result.stdout
    hidden = cli("list", "--min-cpu", "6", "--max-cpu", "6", "--hide-deprecated")
    assert names(hidden.stdout) == ["itest-unlabelled"]
    # exact filters are label selectors: the unlabelled type has no cpu label
    assert cli("list", "--cpu", "6").stderr == "No resources found\n"


def test_memory_range_equates_units(cli, extra_objects) -> None:
    result = cli("list", "--min-memory", "6Gi", "--max-memory", "6144Mi", "--hide-deprecated", "-o", "name")
    assert result.stdout == f"{CLUSTER_IT}/itest-unlabelled\n"


def test_output_formats(cli) -> None:
    flags = ["list", "--scope=cluster", "--size", "small", "--class", "general.purpose"]
    assert cli(*flags, "-o", "name").stdout == f"{CLUSTER_IT}/u1.small\n"
    as_json = json.loads(cli(*flags, "-o", "json").stdout)
    assert as_json["kind"] == "List" and [i["metadata"]["name"] for i in as_json["items"]] == ["u1.small"]
    assert as_json["items"][0]["spec"] == {"cpu": {"guest": 1}, "memory": {"guest": "2Gi"}}
    as_yaml = yaml.safe_load(cli(*flags, "-o", "yaml").stdout)
    assert as_yaml["items"][0]["kind"] == "VirtualMachineClusterInstancetype"
    no_headers = cli(*flags, "--no-headers").stdout
    assert no_headers.split()[:5] == ["u1.small", "cluster", "1", "2Gi", "general.purpose"]
    labels = cli(*flags, "--show-labels").stdout.splitlines()
    assert labels[0].split()[-1] == "LABELS"
    assert "instancetype.kubevirt.io/class=general.purpose," in labels[1]


def test_wide_output(cli) -> None:
    result = cli("list", "--scope=cluster", "-o", "wide", "--class", "compute.exclusive", "--size", "large1gi")
    header, row = result.stdout.splitlines()
    assert header.split() == [
        "NAME",
        "KIND",
        "CPU",
        "MEMORY",
        "CLASS",
        "AGE",
        "SIZE",
        "HUGEPAGES",
        "DEDICATED-CPU",
        "NUMA",
        "OVERCOMMIT",
        "VERSION",
    ]
    cells = row.split()
    assert cells[:5] == ["cx1.large1gi", "cluster", "2", "4Gi", "compute.exclusive"]
    assert cells[6:] == ["large1gi", "1Gi", "true", "true", "<none>", "v1.7.0"]
    overcommitted = cli("list", "--scope=cluster", "-o", "wide", "--size", "nano", "--class", "overcommitted")
    assert overcommitted.stdout.splitlines()[1].split()[-2] == "50%"


def test_sort_by_cpu_and_memory(cli) -> None:
    by_cpu = names(cli("list", "--scope=cluster", "--class", "general.purpose", "--sort-by", "cpu").stdout)
    assert by_cpu[:4] == ["u1.medium", "u1.micro", "u1.nano", "u1.small"] and by_cpu[-1] == "u1.8xlarge"
    by_memory = names(cli("list", "--scope=cluster", "--class", "general.purpose", "--sort-by", "memory").stdout)
    assert by_memory[:3] == ["u1.nano", "u1.micro", "u1.small"]


def test_preferences(cli) -> None:
    result = cli("list", "preferences", "--os-type", "windows", "--min-memory", "4Gi", "--sort-by", "name")
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["NAME", "KIND", "OS-TYPE", "ARCH", "REQUIRED-CPU", "REQUIRED-MEMORY", "AGE"]
    assert [line.split()[:6] for line in lines[1:]] == [
        ["windows.11", "cluster", "windows", "<none>", "2", "4Gi"],
        ["windows.11.virtio", "cluster", "windows", "<none>", "2", "4Gi"],
    ]
    arm = cli("list", "preference", "--arch", "arm64", "-o", "name").stdout.split()
    assert arm == [
        f"virtualmachineclusterpreference.instancetype.kubevirt.io/{n}"
        for n in ("fedora.arm64", "rhel.10.arm64", "rhel.9.arm64")
    ]


def test_preference_cpu_filter_matches_requirements(cli) -> None:
    result = cli("list", "preferences", "--cpu", "8", "--sort-by", "name")
    assert names(result.stdout) == ["centos.stream9.dpdk", "rhel.8.dpdk", "rhel.9.dpdk"]


def test_catalog_counts_in_both_scopes(cli) -> None:
    assert len(cli("list", "--scope=cluster", "-o", "name").stdout.splitlines()) == 65
    assert len(cli("list", "--namespaced", "-n", "catalog", "-o", "name").stdout.splitlines()) == 65
    # both scopes at once: the cluster's and the "catalog" namespace's (not -A: other tests' namespaced objects
    # share this control plane, and a deleted namespace empties only once the controller gets to it). Other
    # tests may leave a cluster-scoped preference behind on the shared plane, so the cluster scope is compared
    # with its own listing rather than with the catalog's 54.
    cluster = cli("list", "preferences", "--scope=cluster", "-o", "name").stdout.splitlines()
    namespaced = cli("list", "preferences", "--namespaced", "-n", "catalog", "-o", "name").stdout.splitlines()
    both = cli("list", "preferences", "-n", "catalog", "-o", "name").stdout.splitlines()
    assert len(namespaced) == 54
    assert len(cluster) >= 54
    assert sorted(both) == sorted(cluster + namespaced)


def test_one_request_per_scope_per_page(cli, mocker) -> None:
    spy = mocker.spy(Transport, "request")
    result = cli("list", "-n", "catalog", "--chunk-size", "10", "-o", "name")
    assert len(result.stdout.splitlines()) == 130
    paths = [call.args[2] for call in spy.call_args_list]
    assert len(paths) == 2 * 7  # ceil(65 / 10) pages in each scope, nothing else (no discovery)
    assert all("limit=10" in path for path in paths)


def test_filter_usage_errors_send_nothing(cli, mocker) -> None:
    spy = mocker.spy(Transport, "request")
    for args, message in [
        (["list", "preferences", "--class", "x"], "error: --class only applies to instance types\n"),
        (["list", "--os-type", "linux"], "error: --os-type only applies to preferences\n"),
        (["list", "--min-cpu", "4", "--max-cpu", "2"], "error: --min-cpu 4 is greater than --max-cpu 2\n"),
        (
            ["list", "--min-memory", "lots"],
            "error: invalid memory quantity 'lots': quantities must match the "
            "regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'\n",
        ),
        (
            ["list", "--scope=cluster", "--namespaced"],
            "error: --scope=cluster and --namespaced cannot be used together\n",
        ),
        (
            ["list", "vms"],
            'error: unknown kind "vms": use instancetypes, preferences, vmcf, vmf, vmcp or vmp (or their kubectl '
            'names); did you mean "vmf" or "vmp"?\n',  # both one edit away (golang/cobra.did_you_mean)
        ),
        (
            ["list", "--sort-by", "{.a"],
            "error: unexpected path string, expected a 'name1.name2' or "
            "'.name1.name2' or '{name1.name2}' or '{.name1.name2}'\n",
        ),
        (["list", "--bogus"], "error: unknown flag: --bogus\n"),
    ]:
        result = cli(*args)
        assert (result.exit_code, result.stdout, result.stderr) == (1, "", message), args
    assert spy.call_count == 0


def test_kubevirt_schemas_validate_what_is_written(control_plane) -> None:
    """The CRDs carry KubeVirt's real schemas: an instance type without spec.memory is refused."""
    broken = {
        "apiVersion": "instancetype.kubevirt.io/v1beta1",
        "kind": "VirtualMachineClusterInstancetype",
        "metadata": {"name": "itest-broken"},
        "spec": {"cpu": {"guest": 1}},
    }
    with pytest.raises(RuntimeError, match=r"spec.memory: Required value"):
        control_plane.apply(broken)
    unknown_field = {
        "apiVersion": "instancetype.kubevirt.io/v1beta1",
        "kind": "VirtualMachineClusterPreference",
        "metadata": {"name": "itest-pruned"},
        "spec": {"devices": {"preferredVideoType": "virtio"}, "notAField": True},
    }
    control_plane.apply(unknown_field)
    try:
        stored = control_plane.get(unknown_field)
        assert stored["spec"] == {"devices": {"preferredVideoType": "virtio"}}  # pruned, as KubeVirt's schema does
    finally:
        control_plane.delete(unknown_field)


def test_every_catalog_object_was_accepted(control_plane) -> None:
    from kubectl_instancetype.catalog.loader import load_catalog

    catalog = load_catalog()
    for obj in [*catalog.instancetypes, *catalog.preferences]:
        stored = control_plane.get(obj)
        assert stored is not None, obj["metadata"]["name"]
        assert stored["spec"] == obj["spec"], obj["metadata"]["name"]


def test_paging_stops_cleanly_when_the_consumer_stops(cli, control_plane) -> None:
    """Abandoning a prefetched list leaves the connection usable for the next request."""
    import os

    from kubectl_instancetype.kube.client import Client
    from kubectl_instancetype.kube.kubeconfig import ConnectionOptions, load_cluster_config
    from kubectl_instancetype.kube.resources import CLUSTER_INSTANCETYPES

    config = load_cluster_config(ConnectionOptions(kubeconfig=str(control_plane.kubeconfig())), dict(os.environ), "/x")
    with Client(config) as client:
        pages = client.list_pages(CLUSTER_INSTANCETYPES, chunk_size=5)
        assert len(next(pages)["items"]) == 5
        assert len(next(pages)["items"]) == 5  # from the prefetching thread
        pages.close()
        assert client.get(CLUSTER_INSTANCETYPES, "u1.medium")["spec"]["cpu"] == {"guest": 1}


def test_a_streamed_list_left_midway_leaves_the_client_usable(control_plane) -> None:
    """list_items reads a page as it arrives (kube/liststream.py): leaving it inside a page closes that connection
    (the rest of the body is never read) and the next request opens another; read to the end, every item came."""
    import os

    from kubectl_instancetype.kube.client import Client
    from kubectl_instancetype.kube.kubeconfig import ConnectionOptions, load_cluster_config
    from kubectl_instancetype.kube.resources import CLUSTER_INSTANCETYPES

    config = load_cluster_config(ConnectionOptions(kubeconfig=str(control_plane.kubeconfig())), dict(os.environ), "/x")
    with Client(config) as client:
        whole = [obj["metadata"]["name"] for page in client.list_pages(CLUSTER_INSTANCETYPES) for obj in page["items"]]
        items = client.list_items(CLUSTER_INSTANCETYPES, chunk_size=5)
        assert [next(items)["metadata"]["name"] for _ in range(7)] == whole[:7]  # into the second page
        items.close()
        assert client.get(CLUSTER_INSTANCETYPES, "u1.medium")["spec"]["cpu"] == {"guest": 1}
        streamed = [obj["metadata"]["name"] for obj in client.list_items(CLUSTER_INSTANCETYPES, chunk_size=7)]
        assert streamed == whole and len(whole) > 14


def test_wide_preferences(cli) -> None:
    result = cli(
        "list",
        "preferences",
        "--scope=cluster",
        "-o",
        "wide",
        "-l",
        "instancetype.kubevirt.io/os-type=windows",
        "--sort-by",
        "name",
    )
    header, first, *_ = result.stdout.splitlines()
    assert header.split()[-5:] == ["CPU-TOPOLOGY", "DISK-BUS", "INTERFACE-MODEL", "FIRMWARE", "VERSION"]
    assert first.split()[0] == "windows.10" and first.split()[-5:] == [
        "sockets",
        "sata",
        "e1000e",
        "efi+secureboot",
        "v1.7.0",
    ]


def test_sort_by_a_path_no_object_has_is_kubectls_error(cli) -> None:
    """kubectl's words, without a hint of ours (issue 29): sorter.go's "couldn't find any field"."""
    result = cli("list", "--sort-by", "age")
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == 'error: couldn\'t find any field with path "{.age}" in the list of objects\n'


def test_kubectl_conventions_on_list(cli) -> None:
    """-L, --show-kind, --sort-by JSONPath, names and short kinds, templates: as kubectl get shows them."""
    labelled = cli("list", "vmcf", "--cpu", "2", "--class", "general.purpose", "-L", "instancetype.kubevirt.io/size")
    header, *rows = labelled.stdout.splitlines()
    assert header.split() == ["NAME", "KIND", "CPU", "MEMORY", "CLASS", "AGE", "SIZE"]
    assert [row.split()[-1] for row in rows] == ["2xmedium", "large"]
    kinded = cli("get", "vmcf/u1.small", "vmcf/u1.large", "--show-kind", "--no-headers")
    assert [row.split()[0] for row in kinded.stdout.splitlines()] == [
        "virtualmachineclusterinstancetype.instancetype.kubevirt.io/u1.large",
        "virtualmachineclusterinstancetype.instancetype.kubevirt.io/u1.small",
    ]
    by_memory = cli("list", "vmcf", "--class", "general.purpose", "--sort-by", ".spec.memory.guest", "-o", "name")
    names = [line.split("/")[1] for line in by_memory.stdout.splitlines()]
    assert names[:3] == ["u1.nano", "u1.micro", "u1.small"] and names[-1] == "u1.8xlarge"
    one = cli("get", "vmcp/fedora", "-o", "jsonpath={.kind} {.spec.devices.preferredDiskBus}")
    assert (one.exit_code, one.stdout) == (0, "VirtualMachineClusterPreference virtio")
    missing = cli("get", "vmcf/u1.smal")
    assert missing.exit_code == 1
    assert missing.stderr == (
        'error: no instance type named "u1.smal" cluster-wide (virtualmachineclusterinstancetypes); '
        'for "u1.smal" did you mean u1.small?\n'  # the nearest only: o1.small and d1.small are two edits away
    )


def test_a_value_the_cluster_does_not_have_is_refused(cli) -> None:
    """Issue 29: list --class general-purpose answered "No resources found" (exit 0)."""
    result = cli("list", "--class", "general-purpose")
    assert (result.exit_code, result.stdout, result.stderr) == (
        1,
        "",
        'error: invalid argument "general-purpose" for "--class" flag: no instance type in scope has class '
        "general-purpose (did you mean general.purpose?)\n",
    )
    windows = cli("list", "preferences", "--os-type", "windos", "--scope", "cluster")
    assert windows.stderr == (
        'error: invalid argument "windos" for "--os-type" flag: no preference in scope has os-type windos '
        "(did you mean windows?)\n"
    )
    empty = cli("list", "--class", "general.purpose", "--cpu", "99")
    assert (empty.exit_code, empty.stderr) == (0, "No resources found\n")


def test_a_list_without_managed_fields_is_the_servers_list_less_them(control_plane) -> None:
    """What the real API server writes (a custom resource list, its keys sorted by the unstructured encoder): read
    without managedFields (list's table), every object is the one read whole less its managedFields, and the
    objects of whole pieces came without them (kube/liststream.py without_managed_fields)."""
    import os

    from kubectl_instancetype.kube.client import Client
    from kubectl_instancetype.kube.kubeconfig import ConnectionOptions, load_cluster_config
    from kubectl_instancetype.kube.resources import CLUSTER_INSTANCETYPES

    config = load_cluster_config(ConnectionOptions(kubeconfig=str(control_plane.kubeconfig())), dict(os.environ), "/x")
    with Client(config) as client:
        whole = list(client.list_items(CLUSTER_INSTANCETYPES))
        lean = list(client.list_items(CLUSTER_INSTANCETYPES, managed_fields=False))
    assert all(obj["metadata"]["managedFields"] for obj in whole)
    came_without = sum("managedFields" not in obj["metadata"] for obj in lean)
    for obj in whole + lean:
        obj["metadata"].pop("managedFields", None)
    assert lean == whole and len(whole) > 20
    assert came_without > len(lean) // 2


def test_a_list_run_imports_none_of_the_wrappers_it_skips(control_plane) -> None:
    # issue 30: a list of ten rows against the real API server (TLS from the kubeconfig's CA, the JSON, the table),
    # in a fresh interpreter: none of the standard modules that kube/sockets.py and kube/jsonscan.py leave out is
    # loaded (socket and ssl cost 52M instructions, json and re 28M: bench/README.md), nor what they bring
    import subprocess
    import sys

    code = (
        "import sys\n"
        "sys.argv = ['kubectl-instancetype', 'list', '--scope=cluster', '--cpu', '4']\n"
        "from kubectl_instancetype.cli.main import main\n"
        "status = main()\n"
        "skipped = ('socket', 'ssl', 'json', 're', 'enum', 'collections', 'functools', 'typing', 'selectors')\n"
        "print(status, sorted(m for m in skipped if m in sys.modules), file=sys.stderr)\n"
    )
    environ = {"HOME": "/nonexistent", "KUBECONFIG": str(control_plane.kubeconfig("admin")), "PATH": "/usr/bin:/bin"}
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=environ, check=False)
    assert "u1.xlarge" in result.stdout
    assert result.stderr.splitlines()[-1] == "0 []", result.stderr
