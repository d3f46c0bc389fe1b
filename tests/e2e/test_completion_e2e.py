"""Shell completion through the real kubectl (which runs kubectl_complete-instancetype, as for users)."""

from __future__ import annotations

import json
import subprocess

import pytest
import yaml

from tests.conftest import halted_vm

pytestmark = [pytest.mark.controlplane, pytest.mark.e2e]


@pytest.fixture
def complete(control_plane, plugin_path, tmp_path):
    """``kubectl __complete instancetype ARGS...`` -> (candidate values, directive line)."""

    def invoke(*args: str, kubeconfig: str | None = None) -> tuple[list[str], str, subprocess.CompletedProcess]:
        environ = {
            "PATH": plugin_path,
            "HOME": str(tmp_path),
            "KUBECONFIG": kubeconfig or str(control_plane.kubeconfig("admin")),
            # the live look-ups' one-second budget is for a shell; a loaded 2-core test machine may need more
            # (tests/unit/test_completion.py holds the default and the variable)
            "KUBECTL_INSTANCETYPE_COMPLETION_TIMEOUT": "20s",
        }
        done = subprocess.run(
            [str(control_plane.bin_dir / "kubectl"), "__complete", "instancetype", *args],
            env=environ,
            capture_output=True,
            text=True,
            timeout=60,
        )
        lines = [line for line in done.stdout.splitlines() if line]
        return [line.split("\t")[0] for line in lines[:-1]], lines[-1] if lines else "", done

    return invoke


def cluster_instancetypes(control_plane) -> list[str]:
    out = subprocess.run(
        [str(control_plane.bin_dir / "kubectl"), "get", "virtualmachineclusterinstancetypes", "-o", "json"],
        env={"KUBECONFIG": str(control_plane.kubeconfig("admin")), "HOME": "/nonexistent", "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return sorted(item["metadata"]["name"] for item in json.loads(out)["items"])


def test_instancetype_names_are_exactly_the_clusters(complete, control_plane) -> None:
    values, directive, done = complete("create", "vm", "--instancetype", "")
    names = cluster_instancetypes(control_plane)
    assert [v for v in values if not v.endswith("/")] == names
    assert {"virtualmachineclusterinstancetype/", "virtualmachineinstancetype/"} <= set(values)
    assert directive == ":4" and done.returncode == 0


def test_the_typed_prefix_and_the_namespaced_kind(complete, control_plane) -> None:
    values, _, _ = complete("create", "vm", "--instancetype", "u1.m")
    assert values == ["u1.medium", "u1.micro"]
    values, _, _ = complete("create", "vm", "-n", "catalog", "--instancetype", "virtualmachineinstancetype/cx1.l")
    assert values == ["virtualmachineinstancetype/cx1.large", "virtualmachineinstancetype/cx1.large1gi"]
    values, _, _ = complete("create", "vm", "--preference", "win")
    assert values and all(v.startswith("win") for v in values)


def test_namespaces_and_volumes(complete) -> None:
    values, _, _ = complete("list", "-n", "cat")
    assert values == ["catalog"]


@pytest.mark.parametrize(
    "args,expected",
    [
        (("",), {"create", "list", "infer", "expand", "version", "completion"}),
        (("create", ""), {"vm", "instancetype", "preference"}),
        (("list", "--min-"), {"--min-cpu", "--min-memory"}),
        (("list", "--sort-by", ""), {"name", "cpu", "memory"}),
        (("create", "vm", "--run-strategy", "H"), {"Halted"}),
    ],
)
def test_static_candidates(complete, args, expected) -> None:
    values, directive, _ = complete(*args)
    assert expected <= set(values)
    assert directive.startswith(":")


def test_a_stopped_server_completes_nothing_and_exits_0(complete, tmp_path) -> None:
    kubeconfig = tmp_path / "down"
    kubeconfig.write_text(
        "apiVersion: v1\nkind: Config\ncurrent-context: down\n"
        "clusters: [{name: down, cluster: {server: 'https://127.0.0.1:1', insecure-skip-tls-verify: true}}]\n"
        "users: [{name: down, user: {token: t}}]\n"
        "contexts: [{name: down, context: {cluster: down, user: down}}]\n"
    )
    values, directive, done = complete("create", "vm", "--preference", "fed", kubeconfig=str(kubeconfig))
    assert (values, directive, done.returncode) == ([], ":4", 0)


def test_global_flags_before_the_command(complete, control_plane, tmp_path) -> None:
    """``kubectl instancetype -n NS list <TAB>``: kubectl hands the helper the flags as typed, before the
    command; they count as after it (cobra's persistent flags)."""
    values, directive, done = complete("-n", "catalog", "create", "vm", "--instancetype", "vmf/cx1.l")
    assert (values, directive, done.returncode) == (["vmf/cx1.large", "vmf/cx1.large1gi"], ":4", 0)
    # kubectl hands the helper the words as typed (its stderr is kubectl's [Debug] trace)
    assert "About to call: " in done.stderr and "kubectl_complete-instancetype -n catalog create vm" in done.stderr
    values, _, _ = complete("-n", "catalog", "list", "")
    assert {"instancetypes", "preferences"} <= set(values)
    values, _, _ = complete("-n", "cat")
    assert values == ["catalog"]
    # --context before the command: the current context is a server that does not answer, the named one is the
    # plane's; the VM names come from the named one, in the namespace given before the command too
    kubeconfig = yaml.safe_load(control_plane.kubeconfig("admin").read_text())
    context = kubeconfig["current-context"]
    kubeconfig["clusters"].append({"name": "down", "cluster": {"server": "https://127.0.0.1:1"}})
    kubeconfig["contexts"].append(
        {"name": "down", "context": {"cluster": "down", "user": kubeconfig["users"][0]["name"]}}
    )
    kubeconfig["current-context"] = "down"
    path = tmp_path / "two-contexts"
    path.write_text(yaml.safe_dump(kubeconfig))
    control_plane.ensure_namespace("completion-tests")
    control_plane.apply(halted_vm("completed-vm", "completion-tests", {"name": "u1.small"}, None))
    values, directive, done = complete(
        "--context", context, "--namespace=completion-tests", "switch", "vm/", kubeconfig=str(path)
    )
    assert (values, directive) == (["vm/completed-vm"], ":4")
    assert complete("switch", "vm/", kubeconfig=str(path))[0] == []  # the current context does not answer
    values, _, _ = complete("--context", "", kubeconfig=str(path))
    assert values == sorted([context, "down"])


def test_get_and_describe_complete_type_names_in_kubectls_spellings(complete) -> None:
    assert complete("get", "vmcp/fedora.")[0] == ["vmcp/fedora.arm64", "vmcp/fedora.s390x"]
    assert complete("describe", "vmcf", "u1.m")[0] == ["u1.medium", "u1.micro"]
    assert complete("-n", "catalog", "get", "vmcf/u1.small", "vmf/cx1.l")[0] == ["vmf/cx1.large", "vmf/cx1.large1gi"]
    values, directive, _ = complete("usage", "-o", "jsonp")
    assert (values, directive) == (["jsonpath", "jsonpath-as-json", "jsonpath-file"], ":4")
