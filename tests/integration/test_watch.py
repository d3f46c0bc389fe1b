"""``list -w`` / ``--watch-only`` against the real control plane, side by side with the real ``kubectl get -w``.

Both watchers start on the same scope, objects are created, relabelled and deleted while they run, and both
end at ``--request-timeout`` (exit 0, as kubectl's watch ends when its request times out). Their rows must be
the same except the AGE column (each prints its own clock's age).
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.controlplane

PLUGIN = [sys.executable, "-c", "import sys; from kubectl_instancetype.cli.main import main; sys.exit(main())"]


def instancetype(namespace: str, name: str, cpu: int) -> dict:
    return {
        "apiVersion": "instancetype.kubevirt.io/v1beta1",
        "kind": "VirtualMachineInstancetype",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"cpu": {"guest": cpu}, "memory": {"guest": "1Gi"}},
    }


def start(argv: list[str], kubeconfig: Path) -> subprocess.Popen[bytes]:
    """Unbuffered: the first line is read byte by byte, leaving the rest to communicate()."""
    environ = {**os.environ, "KUBECONFIG": str(kubeconfig), "HOME": "/nonexistent"}
    return subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=0, env=environ)


def first_lines(process: subprocess.Popen[bytes], count: int) -> list[str]:
    """The first ``count`` lines, read as they arrive (the watcher has listed once they are there)."""
    assert process.stdout is not None
    lines = []
    box: list[list[str]] = []

    def read() -> None:
        for _ in range(count):
            lines.append(process.stdout.readline().decode())  # type: ignore[union-attr]
        box.append(lines)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(30)
    assert box, f"no listing within 30 s: {lines!r}"
    return lines


def without_age(lines: list[str]) -> list[list[str]]:
    return [line.split()[:-1] for line in lines if line.strip()]


# Output flags compared byte for byte with kubectl's (the default table is the plugin's own columns: compared on
# EVENT and NAME only).
FORMATS = {
    "table": ["--output-watch-events"],
    "name": ["-o", "name"],
    "custom-columns": ["-o", "custom-columns=NAME:.metadata.name,CPU:.spec.cpu.guest"],
    "json-events": ["-o", "json", "--output-watch-events"],
    "yaml": ["-o", "yaml"],
}


def test_watch_matches_kubectl_get_watch(control_plane) -> None:
    namespace = "watching"
    control_plane.ensure_namespace(namespace)
    kubeconfig = control_plane.kubeconfig("admin")
    kubectl = [str(control_plane.kubectl), "--kubeconfig", str(kubeconfig)]
    control_plane.apply(instancetype(namespace, "w-one", 1))
    scope = ["-n", namespace, "-w", "--request-timeout", "25s"]
    watchers = {}
    try:
        for label, flags in FORMATS.items():
            watchers[label] = (
                start([*PLUGIN, "list", "vmf", *scope, *flags], kubeconfig),
                start([*kubectl, "get", "virtualmachineinstancetypes", *scope, *flags], kubeconfig),
            )
        first = {label: (first_lines(ours, 1), first_lines(theirs, 1)) for label, (ours, theirs) in watchers.items()}
        control_plane.apply(instancetype(namespace, "w-two", 2))
        subprocess.run(
            [*kubectl, "label", "vmf", "-n", namespace, "w-one", "tier=gold"], check=True, capture_output=True
        )
        subprocess.run([*kubectl, "delete", "vmf", "-n", namespace, "w-two"], check=True, capture_output=True)
        outputs = {}
        for label, (ours, theirs) in watchers.items():
            rest_ours, errors_ours = ours.communicate(timeout=30)
            rest_theirs, errors_theirs = theirs.communicate(timeout=30)
            outputs[label] = (
                (ours.returncode, "".join(first[label][0]) + rest_ours.decode(), errors_ours.decode()),
                (theirs.returncode, "".join(first[label][1]) + rest_theirs.decode(), errors_theirs.decode()),
            )
    finally:
        for pair in watchers.values():
            for process in pair:
                if process.poll() is None:
                    process.kill()
        control_plane.delete(instancetype(namespace, "w-one", 1))
        control_plane.delete(instancetype(namespace, "w-two", 2))
    ours, theirs = outputs.pop("table")
    assert ours[0] == theirs[0] == 0, (ours, theirs)
    assert ours[2] == "", ours
    rows = [line.split()[:2] for line in ours[1].splitlines()]
    assert rows == [
        ["EVENT", "NAME"],
        ["ADDED", "w-one"],
        ["ADDED", "w-two"],
        ["MODIFIED", "w-one"],
        ["DELETED", "w-two"],
    ]
    assert rows == [line.split()[:2] for line in theirs[1].splitlines()]
    # the EVENT column is as wide as kubectl's, and NAME starts where kubectl's does
    assert [line[:19] for line in ours[1].splitlines()] == [line[:19] for line in theirs[1].splitlines()]
    for label, (ours, theirs) in outputs.items():
        assert ours == theirs, label


def test_quiet_watches_match_kubectl(control_plane) -> None:
    """No change while watching: an empty scope with -w, and --watch-only on a scope with an object (kubectl
    watches from its list's resourceVersion, so no ADDED row for what exists), end alike at the timeout."""
    control_plane.ensure_namespace("watching-empty")
    control_plane.ensure_namespace("watching-quiet")
    control_plane.apply(instancetype("watching-quiet", "q-one", 1))
    kubeconfig = control_plane.kubeconfig("admin")
    kubectl = [str(control_plane.kubectl), "--kubeconfig", str(kubeconfig)]
    cases = {
        "empty": ["-n", "watching-empty", "-w", "-o", "name"],
        "watch-only": ["-n", "watching-quiet", "--watch-only", "-o", "name"],
    }
    running = {
        label: (
            start([*PLUGIN, "list", "vmf", *flags, "--request-timeout", "3s"], kubeconfig),
            start([*kubectl, "get", "virtualmachineinstancetypes", *flags, "--request-timeout", "3s"], kubeconfig),
        )
        for label, flags in cases.items()
    }
    try:
        for label, (ours, theirs) in running.items():
            answers = [(process.communicate(timeout=60), process.returncode) for process in (ours, theirs)]
            assert answers[0] == answers[1], label
            assert answers[0] == ((b"", b""), 0), label
    finally:
        for pair in running.values():
            for process in pair:
                if process.poll() is None:
                    process.kill()
        control_plane.delete(instancetype("watching-quiet", "q-one", 1))


def test_ctrl_c_ends_both_alike(control_plane) -> None:
    """SIGINT while watching: the plugin ends as kubectl get -w does (same exit status, nothing on stderr)."""
    import signal

    control_plane.ensure_namespace("watching-sigint")
    control_plane.apply(instancetype("watching-sigint", "s-one", 1))
    kubeconfig = control_plane.kubeconfig("admin")
    flags = ["-n", "watching-sigint", "-w", "-o", "name"]
    pair = (
        start([*PLUGIN, "list", "vmf", *flags], kubeconfig),
        start(
            [str(control_plane.kubectl), "--kubeconfig", str(kubeconfig), "get", "virtualmachineinstancetypes", *flags],
            kubeconfig,
        ),
    )
    try:
        firsts = [first_lines(process, 1) for process in pair]
        time.sleep(1)  # the watch requests are open
        answers = []
        for process in pair:
            process.send_signal(signal.SIGINT)
            rest, errors = process.communicate(timeout=30)
            answers.append((process.returncode, rest, errors))
    finally:
        for process in pair:
            if process.poll() is None:
                process.kill()
        control_plane.delete(instancetype("watching-sigint", "s-one", 1))
    assert firsts[0] == firsts[1]
    assert answers[0] == answers[1]
    assert answers[0][2] == b""
