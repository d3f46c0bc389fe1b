"""Benchmark the plugin on large ``-f`` manifests: ``convert`` of one ``kind: List`` and ``expand -f`` of a stream.

Generates the inputs (deterministic, in a temporary directory), runs each command once through the plugin's own
entry point with its output to a file, and prints wall time, CPU time, peak RSS (a bare launcher's child: see
:func:`peak_rss_mb`), the time to the first byte of output, and the output's size:

* ``convert -f`` of a v1 ``List`` of N VirtualMachines with KubeVirt's pre-instance-type inputs: flavors
  (``flavor.kubevirt.io/v1alpha1``) with their preferences, VirtualMachineInstancePresets with label selectors,
  VMs referencing a flavor and VMs whose template labels select a preset; as YAML and as JSON.
* ``expand -f`` of N VirtualMachine documents (``---``-separated YAML) with the instance type and preference
  they reference written after them.

Usage: python bench/manifests.py [--convert 100000] [--expand 100000,273000] [--plugin PATH] [--markdown] [--write]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.report import publish  # noqa: E402

FLAVORS = 8
PRESETS = 8


def flavor(index: int) -> list[dict]:
    """A flavor and its preference, as KubeVirt v0.55 wrote them."""
    return [
        {
            "apiVersion": "flavor.kubevirt.io/v1alpha1",
            "kind": "VirtualMachineFlavor",
            "metadata": {"name": f"flavor-{index}", "namespace": "vms"},
            "spec": {"cpu": {"guest": 1 + index % 4}, "memory": {"guest": f"{1 + index}Gi"}},
        },
        {
            "apiVersion": "flavor.kubevirt.io/v1alpha1",
            "kind": "VirtualMachinePreference",
            "metadata": {"name": f"pref-{index}", "namespace": "vms"},
            "spec": {"devices": {"preferredDiskBus": "virtio", "preferredInterfaceModel": "virtio"}},
        },
    ]


def preset(index: int) -> dict:
    """A preset fixing CPU and memory (an instance type) and devices (a preference), selecting ``app: app-INDEX``."""
    return {
        "apiVersion": "kubevirt.io/v1",
        "kind": "VirtualMachineInstancePreset",
        "metadata": {"name": f"preset-{index}", "namespace": "vms"},
        "spec": {
            "selector": {
                "matchLabels": {"app": f"app-{index}"},
                "matchExpressions": [{"key": "tier", "operator": "In", "values": ["web", "db"]}],
            },
            "domain": {
                "cpu": {"sockets": 1, "cores": 1 + index % 4, "threads": 1},
                "resources": {"requests": {"memory": f"{1 + index}Gi"}},
                "devices": {"disks": [{"name": "root", "disk": {"bus": "virtio"}}]},
            },
        },
    }


def lean_vm(index: int) -> dict:
    """A VM as small as KubeVirt's examples: a flavor and its preference, or labels a preset selects."""
    spec: dict = {"runStrategy": "Halted", "template": {"spec": {"domain": {"devices": {}}}}}
    if index % 2 == 0:
        spec["flavor"] = {"kind": "VirtualMachineFlavor", "name": f"flavor-{index % FLAVORS}"}
    else:
        spec["template"]["metadata"] = {"labels": {"app": f"app-{index % PRESETS}", "tier": "web"}}
    return {"apiVersion": "kubevirt.io/v1", "kind": "VirtualMachine", "metadata": {"name": f"vm-{index}"}, "spec": spec}


def vm(index: int) -> dict:
    """Every other VM references a flavor; the rest carry labels a preset selects. Each has a network, a
    container disk and cloud-init user data (a literal block in YAML)."""
    spec: dict = {
        "runStrategy": "Halted",
        "template": {
            "metadata": {"labels": {"app": f"app-{index % PRESETS}", "tier": "web" if index % 3 else "db"}},
            "spec": {
                "domain": {"devices": {"interfaces": [{"name": "default", "masquerade": {}}]}},
                "networks": [{"name": "default", "pod": {}}],
                "volumes": [
                    {"name": "root", "containerDisk": {"image": "quay.io/containerdisks/fedora:41"}},
                    {"name": "cloudinit", "cloudInitNoCloud": {"userData": "#cloud-config\npassword: fedora\n"}},
                ],
            },
        },
    }
    if index % 2 == 0:
        spec["flavor"] = {"kind": "VirtualMachineFlavor", "name": f"flavor-{index % FLAVORS}"}
        spec["preference"] = {"kind": "VirtualMachinePreference", "name": f"pref-{index % FLAVORS}"}
        del spec["template"]["metadata"]
    return {
        "apiVersion": "kubevirt.io/v1",
        "kind": "VirtualMachine",
        "metadata": {"name": f"vm-{index}", "namespace": "vms", "labels": {"bench": "true"}},
        "spec": spec,
    }


def convert_list(count: int, lean: bool = False) -> dict:
    """A v1 List of ``count`` items: the flavors, preferences and presets first, then VMs (``lean`` ones or
    ones with networks, disks and cloud-init)."""
    items = [part for index in range(FLAVORS) for part in flavor(index)]
    items += [preset(index) for index in range(PRESETS)]
    make = lean_vm if lean else vm
    items += [make(index) for index in range(count - len(items))]
    return {"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""}, "items": items}


def write_yaml(path: Path, documents: list[dict]) -> None:
    import yaml

    dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
    with path.open("w") as out:
        yaml.dump_all(documents, out, Dumper=dumper, default_flow_style=False, sort_keys=False)


EXPAND_VM = """apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata:
  name: vm-{index}
  namespace: vms
spec:
  runStrategy: Halted
  instancetype:
    name: c2
  preference:
    name: fedora
  template:
    spec:
      domain:
        devices: {{}}
      volumes:
      - name: root
        containerDisk:
          image: quay.io/containerdisks/fedora:41
"""
EXPAND_TYPES = """apiVersion: instancetype.kubevirt.io/v1beta1
kind: VirtualMachineClusterInstancetype
metadata:
  name: c2
spec:
  cpu:
    guest: 2
  memory:
    guest: 2Gi
---
apiVersion: instancetype.kubevirt.io/v1beta1
kind: VirtualMachineClusterPreference
metadata:
  name: fedora
spec:
  devices:
    preferredDiskBus: virtio
    preferredInterfaceModel: virtio
"""


def write_expand_stream(path: Path, count: int) -> None:
    """``count`` VM documents, then the instance type and preference they name (a reader must look ahead)."""
    with path.open("w") as out:
        for index in range(count):
            out.write(EXPAND_VM.format(index=index))
            out.write("---\n")
        out.write(EXPAND_TYPES)


# A bare launcher: Linux carries a parent's peak RSS into the children it forks (ru_maxrss of a child starts at
# its parent's), so the measured command is started by a small interpreter that has touched nothing yet.
LAUNCHER = """
import os, resource, sys, time
started = time.perf_counter()
out = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
read, write = os.pipe()
pid = os.fork()
if pid == 0:
    os.dup2(write, 1)
    os.close(read)
    os.close(write)
    os.execv(sys.argv[2], sys.argv[2:])
os.close(write)
first = None
while True:
    chunk = os.read(read, 1 << 20)
    if not chunk:
        break
    if first is None:
        first = time.perf_counter() - started
    os.write(out, chunk)
_, status, usage = os.wait4(pid, 0)
wall = time.perf_counter() - started
print(os.waitstatus_to_exitcode(status), wall, first if first is not None else -1,
      usage.ru_utime + usage.ru_stime, usage.ru_maxrss)
"""


def measure(command: list[str], output: Path) -> dict:
    """Run ``command`` once with its stdout to ``output``: exit code, wall and CPU seconds, first output, peak RSS."""
    done = subprocess.run(
        [sys.executable, "-S", "-c", LAUNCHER, str(output), *command],
        capture_output=True,
        text=True,
        check=True,
        stdin=subprocess.DEVNULL,
    )
    code, wall, first, cpu, rss_kb = done.stdout.split()
    return {
        "exit": int(code),
        "wall_s": float(wall),
        "first_output_s": float(first),
        "cpu_s": float(cpu),
        "rss_mb": int(rss_kb) / 1024,
        "output_mb": output.stat().st_size / 1e6,
    }


def plugin() -> str:
    """The plugin's console script in this checkout's virtualenv (else on PATH)."""
    local = ROOT / ".venv" / "bin" / "kubectl-instancetype"
    if local.exists():
        return str(local)
    found = subprocess.run(["which", "kubectl-instancetype"], capture_output=True, text=True).stdout.strip()
    if not found:
        raise SystemExit("error: no kubectl-instancetype: run `make venv` first")
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--convert", default="100000", help="List sizes for convert, comma-separated ('' for none)")
    parser.add_argument("--expand", default="100000,273000", help="document counts for expand -f ('' for none)")
    parser.add_argument("--shapes", default="lean,full", help="VM shapes of the convert Lists (lean, full)")
    parser.add_argument("--plugin", help="the kubectl-instancetype to run (another tree's, to compare)")
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--write", action="store_true", help="also put them into bench/README.md (implies --markdown)")
    args = parser.parse_args()
    program = args.plugin or plugin()
    rows: list[list[str]] = []
    with tempfile.TemporaryDirectory(prefix="bench-manifests-") as scratch:
        work = Path(scratch)
        for count in [int(part) for part in args.convert.split(",") if part]:
            shapes = {"lean": (True, "lean VMs"), "full": (False, "VMs with disks, network, cloud-init")}
            for lean, shape in [shapes[name] for name in args.shapes.split(",") if name]:
                document = convert_list(count, lean)
                as_yaml, as_json = work / f"list-{count}.yaml", work / f"list-{count}.json"
                write_yaml(as_yaml, [document])
                as_json.write_text(json.dumps(document))
                del document
                for source, label in ((as_yaml, "YAML"), (as_json, "JSON")):
                    size = source.stat().st_size / 1e6
                    result = measure([program, "convert", "-f", str(source)], work / "out")
                    rows.append(row(f"`convert -f` List of {count:,}, {shape} ({label}, {size:.0f} MB)", result))
        for count in [int(part) for part in args.expand.split(",") if part]:
            source = work / f"vms-{count}.yaml"
            write_expand_stream(source, count)
            size = source.stat().st_size / 1e6
            result = measure([program, "expand", "-f", str(source)], work / "out")
            rows.append(row(f"`expand -f` {count:,} VM documents (YAML, {size:.0f} MB)", result))
            source.unlink()
    header = ["Case", "Wall", "CPU", "First output", "Peak RSS", "Output", "Exit"]
    if args.markdown or args.write:
        lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        lines += ["| " + " | ".join(cells) + " |" for cells in rows]
        publish("manifests", "\n".join(lines), args.write)
    else:
        widths = [max(len(cells[column]) for cells in [header, *rows]) for column in range(len(header))]
        for cells in [header, *rows]:
            print("  ".join(cell.ljust(width) for cell, width in zip(cells, widths, strict=True)))
    return 0


def row(case: str, result: dict) -> list[str]:
    return [
        case,
        f"{result['wall_s']:.1f} s",
        f"{result['cpu_s']:.1f} s",
        f"{result['first_output_s']:.2f} s" if result["first_output_s"] >= 0 else "none",
        f"{result['rss_mb']:.0f} MB",
        f"{result['output_mb']:.0f} MB",
        str(result["exit"]),
    ]


if __name__ == "__main__":
    sys.exit(main())
