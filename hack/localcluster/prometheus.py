"""The real Prometheus (hack/prometheus/build.sh: v0.316.0, 3.16.0) beside the local plane, for ``rightsize``.

It runs on 127.0.0.1 with KubeVirt's own rule file (hack/kubevirtrules/build.sh: ``pkg/monitoring/rules`` of
KubeVirt v1.9.0 printed as a Prometheus rule file) and a TSDB folder that may hold history backfilled beforehand
with ``promtool tsdb create-blocks-from openmetrics`` (:func:`backfill`). Scrape targets (the virt-handler metrics
double of tests/doubles) are optional.

promtool re-reads its whole input once per block it writes; ``--max-block-duration`` (rounded down to a
compaction range) makes the blocks long, so weeks of history are read a few times, not once per two hours.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
import urllib.request
from pathlib import Path

from .controlplane import REPO_ROOT, free_port, run_build

BUILD_SCRIPT = REPO_ROOT / "hack" / "prometheus" / "build.sh"
RULES_SCRIPT = REPO_ROOT / "hack" / "kubevirtrules" / "build.sh"
READY_WITHIN = 60.0
BACKFILL_BLOCK = "168h"  # promtool rounds it down to a compaction range


def tools_dir() -> Path:
    """Build (once per version) and return the folder holding ``prometheus`` and ``promtool``."""
    return run_build(BUILD_SCRIPT, "Prometheus and promtool")


def rules_file() -> Path:
    """Build (once per version) and return KubeVirt's rule file."""
    return run_build(RULES_SCRIPT, "KubeVirt's Prometheus rules")


def backfill(openmetrics: Path, tsdb: Path) -> None:
    """``promtool tsdb create-blocks-from openmetrics FILE DIR``: the history as TSDB blocks Prometheus serves at
    once."""
    promtool = tools_dir() / "promtool"
    result = subprocess.run(
        [
            str(promtool),
            "tsdb",
            "create-blocks-from",
            "openmetrics",
            f"--max-block-duration={BACKFILL_BLOCK}",
            "--quiet",
            str(openmetrics),
            str(tsdb),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode != 0:
        raise RuntimeError(f"promtool create-blocks-from openmetrics failed: {result.stderr.strip()[-2000:]}")


def check_rules(path: Path) -> str:
    """``promtool check rules FILE``: its output (raises when promtool refuses the file)."""
    result = subprocess.run(
        [str(tools_dir() / "promtool"), "check", "rules", str(path)], capture_output=True, text=True, check=False
    )
    if result.returncode != 0:
        raise RuntimeError(f"promtool check rules {path}: {result.stdout}{result.stderr}")
    return result.stdout


class Prometheus:
    """A Prometheus process on 127.0.0.1 over ``tsdb``, with KubeVirt's rules (and any other ``rule_files``) and the
    given scrape targets (``host:port`` of /metrics endpoints, scraped every ``scrape_interval``) and any other flags
    in ``extra_args``. Use as a context manager."""

    def __init__(
        self,
        workdir: Path,
        tsdb: Path,
        targets: tuple[str, ...] = (),
        scrape_interval: str = "15s",
        rules: bool = True,
        retention: str = "400d",
        extra_args: tuple[str, ...] = (),
        rule_files: tuple[Path, ...] = (),
    ):
        self.workdir = workdir
        self.tsdb = tsdb
        self.targets = targets
        self.scrape_interval = scrape_interval
        self.rules = rules
        self.retention = retention
        self.extra_args = extra_args
        self.rule_files = rule_files
        self.port = 0
        self.url = ""
        self.process: subprocess.Popen[bytes] | None = None
        self.log_path = workdir / "prometheus.log"

    def _config(self) -> Path:
        lines = [
            "global:",
            f"  scrape_interval: {self.scrape_interval}",
            f"  evaluation_interval: {self.scrape_interval}",
        ]
        files = list(self.rule_files)
        if self.rules:
            rules = self.workdir / "kubevirt-rules.yaml"
            shutil.copyfile(rules_file(), rules)
            files.insert(0, rules)
        if files:
            lines += ["rule_files:", *(f"  - {path}" for path in files)]
        if self.targets:
            lines += [
                "scrape_configs:",
                "  - job_name: kubevirt-virt-handler",
                "    honor_labels: true",
                "    static_configs:",
                "      - targets: [" + ", ".join(f'"{target}"' for target in self.targets) + "]",
            ]
        path = self.workdir / "prometheus.yml"
        path.write_text("\n".join(lines) + "\n")
        return path

    def start(self) -> Prometheus:
        """Start it and wait until ``/-/ready`` answers."""
        binary = tools_dir() / "prometheus"
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        log = self.log_path.open("wb")
        self.process = subprocess.Popen(
            [
                str(binary),
                f"--config.file={self._config()}",
                f"--storage.tsdb.path={self.tsdb}",
                f"--storage.tsdb.retention.time={self.retention}",
                f"--web.listen-address=127.0.0.1:{self.port}",
                "--web.enable-lifecycle",
                "--query.max-samples=500000000",
                *self.extra_args,
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            env={**os.environ, "GOMAXPROCS": os.environ.get("GOMAXPROCS", "2")},
        )
        log.close()
        deadline = time.monotonic() + READY_WITHIN
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"prometheus exited: {self.log_path.read_text()[-2000:]}")
            try:
                with urllib.request.urlopen(f"{self.url}/-/ready", timeout=2) as answer:
                    if answer.status == 200:
                        return self
            except OSError:
                pass
            time.sleep(0.2)
        self.stop()
        raise RuntimeError(f"prometheus was not ready within {READY_WITHIN:g}s: {self.log_path.read_text()[-2000:]}")

    def stop(self) -> None:
        """Stop it (SIGTERM, then SIGKILL after 10 s)."""
        if self.process is None:
            return
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(5)
        self.process = None

    def __enter__(self) -> Prometheus:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def demo(namespace: str) -> int:
    """``make demo``'s rightsize step: the profile VMs of tests/rightsize_profiles.py in ``namespace`` (halted), three
    days of their history backfilled, the real Prometheus over it, and ``kubectl instancetype rightsize`` through
    the real kubectl (on PATH, with the plugin); Prometheus stops afterwards."""
    import sys
    import tempfile

    from tests.rightsize_profiles import CASES, vm_manifest, write_history

    for case in CASES:
        manifest = vm_manifest(case)
        subprocess.run(
            ["kubectl", "delete", "virtualmachine", case.name, "-n", namespace, "--ignore-not-found"],
            check=True,
            capture_output=True,
        )
        subprocess.run(
            ["kubectl", "create", "-n", namespace, "-f", "-"],
            input=__import__("json").dumps(manifest).encode(),
            check=True,
            capture_output=True,
        )
    with tempfile.TemporaryDirectory(prefix="rightsize-demo-") as tmp:
        work = Path(tmp)
        end = float(int(time.time()) // 120 * 120)
        start = end - 3 * 86400
        write_history(work / "history.om", [c.subject(namespace, start, end) for c in CASES], start, end, 120.0)
        backfill(work / "history.om", work / "tsdb")
        with Prometheus(work, work / "tsdb") as server:
            command = ["kubectl", "instancetype", "rightsize", "-n", namespace, "--prometheus-url", server.url]
            command += ["--window", "3d", "--step", "2m"]
            print(f"\n\033[1m$ {' '.join(command)}\033[0m", flush=True)
            return subprocess.run(command, check=False, stdout=sys.stdout, stderr=sys.stderr).returncode


def main(argv: list[str]) -> int:
    """``python -m hack.localcluster.prometheus demo NAMESPACE``: :func:`demo`; a step that fails (Prometheus not
    built and no Go to build it, promtool refusing the history, kubectl refusing a VM) is one ``error:`` line."""
    import sys

    if len(argv) != 2 or argv[0] != "demo":
        print("usage: python -m hack.localcluster.prometheus demo NAMESPACE", file=sys.stderr)
        return 2
    try:
        return demo(argv[1])
    except subprocess.CalledProcessError as exc:
        detail = (exc.stderr or b"").decode(errors="replace").strip().splitlines()
        print(f"error: rightsize demo: {' '.join(exc.cmd)}: {detail[-1] if detail else exc}", file=sys.stderr)
    except RuntimeError as exc:  # ControlPlaneUnavailable (a build) or Prometheus/promtool failing
        print(f"error: rightsize demo: {str(exc).strip().splitlines()[-1]}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    import sys

    raise SystemExit(main(sys.argv[1:]))
