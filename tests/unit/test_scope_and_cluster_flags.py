"""``--cluster NAME`` is kubectl's kubeconfig cluster on every command; the scope of list, get, catalog list,
recommend and matrix is ``--scope`` (or the kind: ``list vmcf``), and the old yes/no ``--cluster`` still works
when it is bare, with pflag's deprecation line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import run_cli

DEPRECATED = "Flag --cluster has been deprecated, use --scope=cluster\n"


def two_clusters(tmp_path: Path) -> Path:
    """Context c uses cluster "near" (nothing listens on port 1); cluster "far" is another address."""
    path = tmp_path / "kubeconfig"
    path.write_text(
        json.dumps(
            {
                "apiVersion": "v1",
                "kind": "Config",
                "current-context": "c",
                "clusters": [
                    {"name": "near", "cluster": {"server": "https://127.0.0.1:1"}},
                    {"name": "far", "cluster": {"server": "https://127.0.0.1:2"}},
                ],
                "users": [{"name": "u", "user": {"token": "t"}}],
                "contexts": [{"name": "c", "context": {"cluster": "near", "user": "u"}}],
            }
        )
    )
    return path


@pytest.mark.parametrize(
    ("words", "args"),
    [
        (2, ["catalog", "list", "--size", "nano", "-o", "name"]),
        (1, ["matrix", "--catalog", "--class", "general.purpose"]),
        (1, ["recommend", "--catalog", "--min-cpu", "2", "--max", "3"]),
    ],
)
def test_bare_cluster_is_the_deprecated_scope_flag(words: int, args: list[str]) -> None:
    scoped = run_cli([*args, "--scope", "cluster"])
    assert (scoped.exit_code, scoped.stderr) == (0, "")
    assert scoped.stdout
    for spelling in ([*args, "--cluster"], [*args[:words], "--cluster", *args[words:]]):
        old = run_cli(spelling)
        assert (old.exit_code, old.stdout, old.stderr) == (0, scoped.stdout, DEPRECATED)


def test_cluster_name_picks_the_kubeconfig_cluster(tmp_path: Path) -> None:
    kubeconfig = str(two_clusters(tmp_path))
    refused = "The connection to the server 127.0.0.1:{} was refused - did you specify the right host or port?\n"
    context_cluster = run_cli(["list", "--kubeconfig", kubeconfig, "--scope", "cluster"])
    assert (context_cluster.exit_code, context_cluster.stderr) == (1, "error: " + refused.format(1))
    for spelling in (["--cluster", "far"], ["--cluster=far"]):
        far = run_cli(["list", "--kubeconfig", kubeconfig, *spelling, "--scope", "cluster"])
        assert (far.exit_code, far.stderr) == (1, "error: " + refused.format(2))
    # a bare --cluster before another flag is the scope, on the context's cluster
    bare = run_cli(["list", "--cluster", "--kubeconfig", kubeconfig])
    assert (bare.exit_code, bare.stderr) == (1, DEPRECATED + "error: " + refused.format(1))
    # commands without a scope take --cluster NAME alone
    usage = run_cli(["usage", "--kubeconfig", kubeconfig, "--cluster", "far"])
    assert (usage.exit_code, usage.stderr) == (1, "error: " + refused.format(2))
    missing = run_cli(["list", "--kubeconfig", kubeconfig, "--cluster", "u1.small"])
    assert (missing.exit_code, missing.stderr) == (1, 'error: no server found for cluster "u1.small"\n')


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["catalog", "list", "--scope", "both"],
            'invalid argument "both" for "--scope" flag: must be cluster, namespaced or all',
        ),
        (["catalog", "list", "vmcf", "--scope", "namespaced"], "--scope=namespaced contradicts the kind named"),
        (
            ["matrix", "--catalog", "--scope", "cluster", "--namespaced"],
            "--scope=cluster and --namespaced cannot be used together",
        ),
        (["usage", "--cluster"], "flag needs an argument: --cluster"),
    ],
)
def test_scope_errors(args: list[str], message: str) -> None:
    result = run_cli(args)
    assert (result.exit_code, result.stdout, result.stderr.splitlines()[-1]) == (1, "", f"error: {message}")


def test_scope_all_is_both() -> None:
    both = run_cli(["catalog", "list", "--namespaced", "--size", "nano", "-o", "name"])
    everything = run_cli(["catalog", "list", "--scope", "all", "--size", "nano", "-o", "name"])
    assert both.exit_code == everything.exit_code == 0
    listed = everything.stdout.splitlines()
    assert "virtualmachineclusterinstancetype.instancetype.kubevirt.io/u1.nano" in listed
    assert set(both.stdout.splitlines()) < set(listed)


def test_cluster_flag_as_the_real_kubectl_reads_it(tmp_path: Path) -> None:
    """Differential: the real kubectl v1.36.3 (get, as list reads) with the same kubeconfig and --cluster values
    (kubectl get --raw words a missing cluster otherwise: cluster "nope" does not exist)."""
    import subprocess

    from hack.localcluster.crds import cache_root

    found = sorted((cache_root() / "controlplane").glob("*/kubectl"))
    if not found:
        pytest.skip("kubectl not built yet (hack/controlplane/build.sh)")
    kubeconfig = str(two_clusters(tmp_path))
    for cluster in ("nope", "far"):
        theirs = subprocess.run(
            [
                str(found[-1]),
                "--kubeconfig",
                kubeconfig,
                "--cluster",
                cluster,
                "get",
                "virtualmachineclusterinstancetypes",
            ],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        ours = run_cli(["usage", "--kubeconfig", kubeconfig, "--cluster", cluster])
        # the plugin's one deliberate difference: every failure line starts with "error: " (docs/errors.md)
        theirs_line = theirs.stderr.splitlines()[-1]
        assert (ours.exit_code, ours.stderr.splitlines()[-1]) == (
            theirs.returncode,
            theirs_line if theirs_line.startswith("error: ") else "error: " + theirs_line,
        )
