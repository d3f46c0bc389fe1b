"""``label`` against the real control plane: labels set, kept, overwritten and removed with a merge patch, kinds
written canonically, the referenced types checked, RBAC; the printed lines compared with the real kubectl's."""

from __future__ import annotations

import itertools
import subprocess

import pytest

from kubectl_instancetype.kube.transport import Transport
from tests.conftest import CATALOG_NAMESPACE
from tests.conftest import (
    IT_KIND_LABEL as IT_KIND,
)
from tests.conftest import (
    IT_LABEL as IT,
)
from tests.conftest import (
    PREF_KIND_LABEL as PREF_KIND,
)
from tests.conftest import (
    PREF_LABEL as PREF,
)
from tests.conftest import (
    cdi_object as cdi,
)
from tests.conftest import (
    pvc_object as pvc,
)

pytestmark = pytest.mark.controlplane

NS = "label-tests"
NAMES = (f"label-{index}" for index in itertools.count())


@pytest.fixture
def volume(control_plane) -> str:
    """A fresh PVC in NS with one unrelated label."""
    control_plane.ensure_namespace(NS)
    name = next(NAMES)
    control_plane.apply(pvc(NS, name, {"app": "demo"}))
    return name


def labels(control_plane, kind: str, name: str, namespace: str = NS) -> dict:
    api = {"PersistentVolumeClaim": "v1"}.get(kind, "cdi.kubevirt.io/v1beta1")
    obj = control_plane.get({"apiVersion": api, "kind": kind, "metadata": {"name": name, "namespace": namespace}})
    return obj["metadata"].get("labels") or {}


def kubectl(control_plane, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(control_plane.kubectl), "--kubeconfig", str(control_plane.kubeconfig()), "-n", NS, *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_label_pvc_then_no_change(cli, control_plane, volume, mocker) -> None:
    result = cli(
        "label", f"pvc/{volume}", "-n", NS, "--default-instancetype", "u1.medium", "--default-preference", "fedora"
    )
    assert (result.exit_code, result.stdout, result.stderr) == (0, f"persistentvolumeclaim/{volume} labeled\n", "")
    assert labels(control_plane, "PersistentVolumeClaim", volume) == {"app": "demo", IT: "u1.medium", PREF: "fedora"}
    spy = mocker.spy(Transport, "request")
    again = cli("label", f"pvc/{volume}", "-n", NS, "--default-instancetype", "u1.medium")
    assert (again.exit_code, again.stdout) == (0, f"persistentvolumeclaim/{volume} not labeled\n")
    # nothing to change: one GET of the volume, no type check, no patch
    assert [call.args[1] for call in spy.call_args_list] == ["GET"]


def test_merge_patch_content_type_and_body(cli, control_plane, volume, mocker) -> None:
    from kubectl_instancetype.kube.http import Connection

    spy = mocker.spy(Connection, "request")
    result = cli("label", f"pvc/{volume}", "-n", NS, "--default-preference", "fedora")
    assert result.exit_code == 0, result.stderr
    patches = [call for call in spy.call_args_list if call.args[1] == "PATCH"]
    assert len(patches) == 1
    _, _, target, headers, body = patches[0].args
    assert target.endswith(f"/api/v1/namespaces/{NS}/persistentvolumeclaims/{volume}?fieldManager=kubectl-instancetype")
    assert headers["Content-Type"] == "application/merge-patch+json"
    assert body == b'{"metadata":{"labels":{"instancetype.kubevirt.io/default-preference":"fedora"}}}'


def test_overwrite_needed_with_kubectls_message(cli, control_plane, volume) -> None:
    assert cli("label", f"pvc/{volume}", "-n", NS, "--default-instancetype", "u1.medium").exit_code == 0
    refused = cli("label", f"pvc/{volume}", "-n", NS, "--default-instancetype", "u1.large")
    theirs = kubectl(control_plane, "label", f"pvc/{volume}", f"{IT}=u1.large")
    assert theirs.returncode == 1
    assert (refused.exit_code, refused.stdout, refused.stderr) == (1, "", theirs.stderr)
    assert refused.stderr == f"error: '{IT}' already has a value (u1.medium), and --overwrite is false\n"
    done = cli("label", f"pvc/{volume}", "-n", NS, "--default-instancetype", "u1.large", "--overwrite")
    assert done.stdout == f"persistentvolumeclaim/{volume} labeled\n"
    assert labels(control_plane, "PersistentVolumeClaim", volume)[IT] == "u1.large"


def test_kinds_are_written_canonically_and_checked_in_scope(cli, control_plane) -> None:
    # the "catalog" namespace holds namespaced copies of the catalog (loaded by the control_plane fixture)
    name = next(NAMES)
    control_plane.apply(pvc(CATALOG_NAMESPACE, name, {"app": "demo"}))
    result = cli(
        "label",
        f"persistentvolumeclaim/{name}",
        "-n",
        CATALOG_NAMESPACE,
        "--default-instancetype",
        "u1.small",
        "--default-instancetype-kind",
        "VirtualMachineInstancetypes",
        "--default-preference",
        "fedora",
        "--default-preference-kind",
        "VirtualMachineClusterPreference",
    )
    assert (result.exit_code, result.stderr) == (0, "")
    assert labels(control_plane, "PersistentVolumeClaim", name, CATALOG_NAMESPACE) == {
        "app": "demo",
        IT: "u1.small",
        IT_KIND: "virtualmachineinstancetype",
        PREF: "fedora",
        PREF_KIND: "virtualmachineclusterpreference",
    }
    # a new name without a kind is one reference: the old kind label goes (and kubectl's verb says so)
    changed = cli("label", f"pvc/{name}", "-n", CATALOG_NAMESPACE, "--default-instancetype", "u1.medium", "--overwrite")
    assert changed.stdout == f"persistentvolumeclaim/{name} modified\n"
    assert IT_KIND not in labels(control_plane, "PersistentVolumeClaim", name, CATALOG_NAMESPACE)


def test_missing_types_are_refused_unless_skipped(cli, control_plane, volume) -> None:
    result = cli(
        "label",
        f"pvc/{volume}",
        "-n",
        NS,
        "--default-instancetype",
        "u9.huge",
        "--default-preference",
        "nothing",
        "--default-preference-kind",
        "virtualmachinepreference",
    )
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == (
        'error: virtualmachineclusterinstancetype "u9.huge" not found; virtualmachinepreference "nothing" not found '
        f'in namespace "{NS}" (--skip-checks labels anyway)\n'
    )
    assert IT not in labels(control_plane, "PersistentVolumeClaim", volume)
    skipped = cli("label", f"pvc/{volume}", "-n", NS, "--default-instancetype", "u9.huge", "--skip-checks")
    assert skipped.stdout == f"persistentvolumeclaim/{volume} labeled\n"


def test_remove(cli, control_plane, volume) -> None:
    cli("label", f"pvc/{volume}", "-n", NS, "--default-instancetype", "u1.medium", "--default-preference", "fedora")
    result = cli("label", f"pvc/{volume}", "-n", NS, "--remove")
    assert (result.exit_code, result.stdout) == (0, f"persistentvolumeclaim/{volume} unlabeled\n")
    assert labels(control_plane, "PersistentVolumeClaim", volume) == {"app": "demo"}
    again = cli("label", f"pvc/{volume}", "-n", NS, "--remove")
    assert again.stdout == f"persistentvolumeclaim/{volume} not labeled\n"


@pytest.mark.parametrize("kind,word", [("DataVolume", "dv"), ("DataSource", "das"), ("DataSource", "datasource")])
def test_label_cdi_objects_prints_kubectls_name(cli, control_plane, kind, word) -> None:
    control_plane.ensure_namespace(NS)
    name = next(NAMES)
    spec: dict = {"source": {"pvc": {"name": "x", "namespace": NS}}}
    if kind == "DataVolume":  # CDI's webhook wants the size of the claim it would create
        spec["storage"] = {"resources": {"requests": {"storage": "1Gi"}}}
    control_plane.apply(cdi(kind, NS, name, spec))
    result = cli("label", f"{word}/{name}", "-n", NS, "--default-preference", "fedora")
    theirs = kubectl(control_plane, "label", f"{word}/{name}", "other=x")
    assert theirs.returncode == 0, theirs.stderr
    assert result.stdout == theirs.stdout  # e.g. datavolume.cdi.kubevirt.io/NAME labeled
    assert result.stdout == f"{kind.lower()}.cdi.kubevirt.io/{name} labeled\n"
    assert labels(control_plane, kind, name) == {PREF: "fedora", "other": "x"}


def test_pvc_line_matches_kubectl(cli, control_plane, volume) -> None:
    ours = cli("label", f"pvc/{volume}", "-n", NS, "--default-preference", "fedora")
    theirs = kubectl(control_plane, "label", f"pvc/{volume}", "other=x")
    assert theirs.returncode == 0, theirs.stderr
    assert ours.stdout == theirs.stdout == f"persistentvolumeclaim/{volume} labeled\n"


def test_not_found_and_forbidden(cli, control_plane) -> None:
    control_plane.ensure_namespace(NS)
    missing = cli("label", "pvc/nothing", "-n", NS, "--default-preference", "fedora")
    assert (missing.exit_code, missing.stderr) == (
        1,
        'Error from server (NotFound): persistentvolumeclaims "nothing" not found\n',
    )
    denied = cli("label", "pvc/nothing", "-n", NS, "--default-preference", "fedora", user="mallory")
    assert denied.exit_code == 1
    assert denied.stderr.startswith('Error from server (Forbidden): persistentvolumeclaims "nothing" is forbidden')


@pytest.mark.parametrize(
    "args,message",
    [
        (["pvc/x"], "at least one of --default-instancetype, --default-preference or --remove is required"),
        (["pvc/x", "--default-instancetype-kind", "virtualmachineinstancetype"],
         "--default-instancetype must be provided with --default-instancetype-kind"),
        (["pvc/x", "--default-preference-kind", "virtualmachinepreference"],
         "--default-preference must be provided with --default-preference-kind"),
        (["pvc/x", "--remove", "--default-preference", "fedora"],
         "--remove cannot be used with --default-instancetype or --default-preference"),
        (["pvc/x", "--default-instancetype", "a", "--default-instancetype-kind", "virtualmachinepreference"],
         'invalid instancetype kind "virtualmachinepreference", supported values are: virtualmachineinstancetype, '
         "virtualmachineclusterinstancetype"),
        (["pvc/x", "--default-preference", "a", "--default-preference-kind", "bogus"],
         'invalid preference kind "bogus", supported values are: virtualmachinepreference, '
         "virtualmachineclusterpreference"),
        (["vm/x", "--remove"], 'cannot label a "vm": pvc, dv and datasource carry inference labels'),
    ],
)  # fmt: skip
def test_usage_errors(cli, args, message) -> None:
    result = cli("label", *args)
    assert (result.exit_code, result.stdout, result.stderr) == (1, "", f"error: {message}\n")


def test_kind_prefixes_as_create_vm_takes_them(cli, control_plane) -> None:
    """Issue 29: --default-instancetype vmf/u1.small said "invalid resource name ... may not contain '/'"; the
    prefix is the kind (one kinds table), written as the kind label."""
    name = next(NAMES)
    control_plane.apply(pvc(CATALOG_NAMESPACE, name, {"app": "demo"}))
    result = cli(
        "label",
        f"pvc/{name}",
        "-n",
        CATALOG_NAMESPACE,
        "--default-instancetype",
        "vmf/u1.small",
        "--default-preference",
        "virtualmachineclusterpreference/fedora",
    )
    assert (result.exit_code, result.stdout, result.stderr) == (0, f"persistentvolumeclaim/{name} labeled\n", "")
    assert labels(control_plane, "PersistentVolumeClaim", name, CATALOG_NAMESPACE) == {
        "app": "demo",
        IT: "u1.small",
        IT_KIND: "virtualmachineinstancetype",
        PREF: "fedora",
        PREF_KIND: "virtualmachineclusterpreference",
    }
