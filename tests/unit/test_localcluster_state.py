"""``python -m hack.localcluster down|status`` on state files other versions wrote (.cluster/state.json), and how a
process holding a plane handles SIGTERM/SIGHUP (hack.localcluster.controlplane; the live version of that, a script
holding a real plane and killed, is in tests/integration/test_localcluster.py).

The recorded "processes" are copies of ``sleep`` named as the plane's binaries: ``down`` signals a PID only when
``/proc/PID/exe`` is the binary it recorded, so they must be named so, and they cost nothing to start.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from hack.localcluster import __main__ as localcluster
from hack.localcluster import controlplane

# the harness runs the control plane's Linux binaries; its signal handling (SIGHUP) has no Windows counterpart
pytestmark = pytest.mark.posix("SIGTERM/SIGHUP handlers and os.kill")


@pytest.fixture
def state_dir(tmp_path, monkeypatch) -> Path:
    directory = tmp_path / ".cluster"
    directory.mkdir()
    monkeypatch.setattr(localcluster, "STATE_DIR", directory)
    monkeypatch.setattr(localcluster, "STATE_FILE", directory / "state.json")
    return directory


def _runs(pid: int, binary: str) -> bool:
    try:
        return Path(f"/proc/{pid}/exe").resolve().name == binary
    except OSError:
        return False


@pytest.fixture
def processes(tmp_path):
    """``start(name)``: a process whose executable is named ``name``; all killed at the end."""
    sleep = shutil.which("sleep")
    assert sleep is not None
    started: list[subprocess.Popen] = []

    def start(name: str) -> subprocess.Popen:
        binary = tmp_path / "bin" / name
        binary.parent.mkdir(exist_ok=True)
        shutil.copy(sleep, binary)
        process = subprocess.Popen([str(binary), "300"])
        started.append(process)
        deadline = time.monotonic() + 10
        while not _runs(process.pid, name) and time.monotonic() < deadline:
            time.sleep(0.01)
        return process

    yield start
    for process in started:
        if process.poll() is None:
            process.kill()
        process.wait(timeout=10)


@pytest.mark.posix("/proc/PID/exe", linux_only=True)
def test_down_stops_a_plane_an_older_version_recorded(state_dir, processes, capsys) -> None:
    """The state of the version before KubeVirt ran in the plane: no ``ca_file``, ``registered`` or ``kubevirt``
    (it failed with KeyError: 'ca_file')."""
    etcd, apiserver = processes("etcd"), processes("kube-apiserver")
    state = {
        "pids": {"kube-apiserver": apiserver.pid, "etcd": etcd.pid},
        "kubeconfig": str(state_dir / "kubeconfig"),
        "bin_dir": "/nonexistent",
        "server": "https://127.0.0.1:1",
    }
    (state_dir / "state.json").write_text(json.dumps(state))
    assert localcluster.main(["status"]) == 0
    assert localcluster.main(["down"]) == 0
    assert capsys.readouterr().err.splitlines()[-1] == "stopped"
    assert apiserver.wait(timeout=10) == -15 and etcd.wait(timeout=10) == -15  # SIGTERM
    assert not state_dir.exists()
    assert localcluster.main(["status"]) == 1


@pytest.mark.posix("/proc/PID/exe", linux_only=True)
def test_down_with_a_damaged_state_removes_it_and_signals_nothing(state_dir, processes) -> None:
    etcd = processes("etcd")
    (state_dir / "state.json").write_text('{"pids": {"etcd": ')
    assert localcluster.main(["status"]) == 1
    assert localcluster.main(["down"]) == 0
    assert not state_dir.exists()
    assert etcd.poll() is None  # nothing recorded could be read: nothing is signalled


@pytest.mark.posix("/proc/PID/exe", linux_only=True)
def test_down_never_signals_a_recycled_pid(state_dir, processes) -> None:
    """A recorded PID now running another program (here: a process named ``sleep``) is left alone; a recorded
    entry that is not a PID is skipped."""
    other = processes("sleep")
    state = {"pids": {"kube-apiserver": other.pid, "virt-api": "12"}, "registered": ["/apis/x"]}
    (state_dir / "state.json").write_text(json.dumps(state))
    assert localcluster.main(["down"]) == 0
    assert other.poll() is None
    assert not state_dir.exists()


@pytest.mark.posix("/proc/PID/exe", linux_only=True)
def test_down_stops_the_scheduler_kwok_and_the_heartbeat_module(state_dir, processes) -> None:
    """A plane with simulated nodes records kube-scheduler, kwok and the heartbeat, a Python module: ``down``
    recognises that one by its command line (its executable is the interpreter) and stops all three; a recorded
    PID whose command line is another module's is left alone."""
    import sys

    scheduler, kwok, apiserver = processes("kube-scheduler"), processes("kwok"), processes("kube-apiserver")
    module = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)", "hack.localcluster.heartbeat"])
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)", "hack.localcluster.other"])
    try:
        pids = {
            "kube-scheduler": scheduler.pid,
            "kwok": kwok.pid,
            "virt-handler-heartbeat": module.pid,
            "kube-apiserver": apiserver.pid,
        }
        (state_dir / "state.json").write_text(json.dumps({"pids": pids, "kubeconfig": "k"}))
        assert localcluster.main(["status"]) == 0
        (state_dir / "state.json").write_text(
            json.dumps({"pids": {**pids, "virt-handler-heartbeat": other.pid}, "kubeconfig": "k"})
        )
        assert localcluster.main(["status"]) == 1  # a PID that is not the heartbeat: the plane is not running
        (state_dir / "state.json").write_text(json.dumps({"pids": pids, "kubeconfig": "k"}))
        assert localcluster.main(["down"]) == 0
        assert [p.wait(timeout=10) for p in (scheduler, kwok, module, apiserver)] == [-15, -15, -15, -15]
        assert other.poll() is None
    finally:
        for process in (module, other):
            if process.poll() is None:
                process.kill()
                process.wait()


@pytest.fixture
def stop_signals():
    """A StopSignals of the test's own, with SIGTERM/SIGHUP at their defaults (as in a script), and the handlers
    back as they were after it."""
    import signal

    saved = {number: signal.signal(number, signal.SIG_DFL) for number in (signal.SIGTERM, signal.SIGHUP)}
    yield controlplane.StopSignals()
    for number, handler in saved.items():
        signal.signal(number, handler)


def test_a_signal_while_a_plane_runs_unwinds_and_waits_for_the_stops(stop_signals) -> None:
    """SIGTERM raises Terminated (a KeyboardInterrupt: pytest ends the session and runs its teardown); further
    signals wait while the planes stop; the default handlers are back once the last plane has stopped."""
    import os
    import signal

    first, second = object(), object()
    stop_signals.hold(first)
    stop_signals.hold(second)
    with pytest.raises(controlplane.Terminated, match="^SIGTERM: stopping the local plane$"):
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(5)  # the handler runs before this returns
    assert issubclass(controlplane.Terminated, KeyboardInterrupt)
    stop_signals.stopping(first)
    os.kill(os.getpid(), signal.SIGHUP)  # during the stop: deferred, and the unwinding goes on
    stop_signals.stopped(first)
    os.kill(os.getpid(), signal.SIGTERM)  # between the stops: still deferred
    stop_signals.stopping(second)
    stop_signals.stopped(second)
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL and signal.getsignal(signal.SIGHUP) is signal.SIG_DFL
    assert stop_signals.received == []


def test_a_signal_during_a_stop_is_raised_once_the_plane_is_stopped(stop_signals) -> None:
    import os
    import signal

    plane = object()
    stop_signals.hold(plane)
    stop_signals.stopping(plane)
    os.kill(os.getpid(), signal.SIGTERM)
    with pytest.raises(controlplane.Terminated, match="^SIGTERM: the local plane was stopped$"):
        stop_signals.stopped(plane)
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL


def test_no_signal_no_interrupt_and_the_handlers_are_back(stop_signals) -> None:
    import signal

    first, second = object(), object()
    stop_signals.hold(first)
    stop_signals.hold(second)
    stop_signals.stopping(first)
    stop_signals.stopped(first)
    assert signal.getsignal(signal.SIGTERM) == stop_signals.on_signal  # the other plane still runs
    stop_signals.stopping(second)
    stop_signals.stopped(second)
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL


def test_a_handler_someone_else_installed_is_left_alone(stop_signals) -> None:
    import signal

    def mine(signum, frame):
        pass

    signal.signal(signal.SIGTERM, mine)
    plane = object()
    stop_signals.hold(plane)
    assert signal.getsignal(signal.SIGTERM) is mine
    assert signal.getsignal(signal.SIGHUP) == stop_signals.on_signal
    stop_signals.stopping(plane)
    stop_signals.stopped(plane)
    assert (signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGHUP)) == (mine, signal.SIG_DFL)


@pytest.mark.posix("/proc/PID/exe", linux_only=True)
def test_down_stops_the_fleets_api_servers_too(state_dir, processes, tmp_path) -> None:
    """``up --fleet N`` records the extra kube-apiservers apart (``fleet``): ``down`` stops them with the plane."""
    etcd, apiserver = processes("etcd"), processes("kube-apiserver")
    binary = tmp_path / "edge" / "kube-apiserver"  # a second process of that name
    binary.parent.mkdir()
    shutil.copy(str(shutil.which("sleep")), binary)
    edge = subprocess.Popen([str(binary), "300"])
    deadline = time.monotonic() + 10
    while not _runs(edge.pid, "kube-apiserver") and time.monotonic() < deadline:
        time.sleep(0.01)
    state = {"pids": {"kube-apiserver": apiserver.pid, "etcd": etcd.pid}, "fleet": {"edge-1": edge.pid, "x": "1"}}
    (state_dir / "state.json").write_text(json.dumps(state))
    assert localcluster.main(["down"]) == 0
    try:
        assert edge.wait(timeout=10) == -15 and apiserver.wait(timeout=10) == -15 and etcd.wait(timeout=10) == -15
    finally:
        if edge.poll() is None:
            edge.kill()
    assert not state_dir.exists()
