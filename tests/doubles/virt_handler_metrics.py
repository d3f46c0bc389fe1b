"""A named test double for virt-handler's domain stats: the ``kubevirt_vmi_*`` series KubeVirt exports per VMI.

virt-handler cannot run here (no kubelet, no libvirt, no running VM), so this double stands in for its metrics
endpoint and for the history Prometheus would have scraped from it. The names, metric types, help texts and labels
are KubeVirt v1.9.0's, from ``pkg/monitoring/metrics/virt-handler/domainstats``:

* ``cpu_metrics.go``: ``kubevirt_vmi_cpu_usage_seconds_total`` (counter; vCPU plus hypervisor time).
* ``vcpu_metrics.go``: ``kubevirt_vmi_vcpu_seconds_total`` (counter, one series per vCPU with ``id`` and ``state``:
  ``humanReadableState`` gives ``running``, ``blocked``, ``offline`` or ``unknown``).
* ``memory_metrics.go``: ``kubevirt_vmi_memory_resident_bytes``, ``_available_bytes``, ``_unused_bytes``,
  ``_cached_bytes``, ``_swap_in_traffic_bytes``, ``_swap_out_traffic_bytes`` (gauges, though they only grow),
  ``_pgmajfault_total``, ``_pgminfault_total`` (counters), ``_actual_balloon_bytes``, ``_usable_bytes``,
  ``_domain_bytes`` (gauges). The balloon statistics (available, usable, unused, cached, swap, faults) exist only
  when the guest reports them (``mem.AvailableSet`` ...): a guest without the balloon driver has only the resident
  and domain figures, and so does a :class:`Profile` with ``balloon=False``.
* ``domainstats.go`` (``newCollectorResultWithLabels``, ``buildRuntimeLabels``): every series carries ``node``,
  ``namespace``, ``name`` and ``kubernetes_vmi_label_<label>`` for each VMI label, the label's ``.``, ``/`` and
  ``-`` replaced by ``_``.

Units as ``unit_converter.go`` converts them: CPU time in seconds, memory in bytes (libvirt's KiB times 1024).
Counters grow from zero when the VM starts and start again from zero after each restart, as the real ones do.

Two ways to serve them:

* :class:`VirtHandlerMetrics`: an HTTP server on 127.0.0.1 with ``GET /metrics`` in the Prometheus text format
  (version 0.0.4), for the VMIs a callable returns (the plane's VMIs, read from the API server), for live scraping by
  the real Prometheus. A VMI's vCPUs and memory are read from its spec as virt-handler's domain would have them.
* :func:`write_openmetrics`: the same series as OpenMetrics text with timestamps over a time range, for
  ``promtool tsdb create-blocks-from openmetrics`` (weeks of history at once).
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import IO, Any

COUNTER, GAUGE = "counter", "gauge"
# (name, type, help): KubeVirt v1.9.0 pkg/monitoring/metrics/virt-handler/domainstats/{cpu,vcpu,memory}_metrics.go
CPU_USAGE = (
    "kubevirt_vmi_cpu_usage_seconds_total",
    COUNTER,
    "Total CPU time spent in all modes (sum of both vcpu and hypervisor usage).",
)
VCPU_SECONDS = (
    "kubevirt_vmi_vcpu_seconds_total",
    COUNTER,
    "Total amount of time spent in each state by each vcpu (cpu_time excluding hypervisor time). Where `id` is the "
    "vcpu identifier and `state` can be one of the following: [`OFFLINE`, `RUNNING`, `BLOCKED`].",
)
RESIDENT = ("kubevirt_vmi_memory_resident_bytes", GAUGE, "Resident set size of the process running the domain.")
AVAILABLE = (
    "kubevirt_vmi_memory_available_bytes",
    GAUGE,
    "Amount of usable memory as seen by the domain. This value may not be accurate if a balloon driver is in use "
    "or if the guest OS does not initialize all assigned pages",
)
UNUSED = (
    "kubevirt_vmi_memory_unused_bytes",
    GAUGE,
    "The amount of memory left completely unused by the system. Memory that is available but used for reclaimable "
    "caches should NOT be reported as free.",
)
CACHED = (
    "kubevirt_vmi_memory_cached_bytes",
    GAUGE,
    "The amount of memory that is being used to cache I/O and is available to be reclaimed, corresponds to the sum "
    "of `Buffers` + `Cached` + `SwapCached` in `/proc/meminfo`.",
)
SWAP_IN = (
    "kubevirt_vmi_memory_swap_in_traffic_bytes",
    GAUGE,
    "The total amount of data read from swap space of the guest in bytes.",
)
SWAP_OUT = (
    "kubevirt_vmi_memory_swap_out_traffic_bytes",
    GAUGE,
    "The total amount of memory written out to swap space of the guest in bytes.",
)
MAJOR_FAULTS = (
    "kubevirt_vmi_memory_pgmajfault_total",
    COUNTER,
    "The number of page faults when disk IO was required. Page faults occur when a process makes a valid access to "
    "virtual memory that is not available. When servicing the page fault, if disk IO is required, it is considered "
    "as major fault.",
)
MINOR_FAULTS = (
    "kubevirt_vmi_memory_pgminfault_total",
    COUNTER,
    "The number of other page faults, when disk IO was not required. Page faults occur when a process makes a valid "
    "access to virtual memory that is not available. When servicing the page fault, if disk IO is NOT required, it "
    "is considered as minor fault.",
)
BALLOON = ("kubevirt_vmi_memory_actual_balloon_bytes", GAUGE, "Current balloon size in bytes.")
USABLE = (
    "kubevirt_vmi_memory_usable_bytes",
    GAUGE,
    "The amount of memory which can be reclaimed by balloon without pushing the guest system to swap, corresponds "
    "to 'Available' in /proc/meminfo.",
)
DOMAIN = (
    "kubevirt_vmi_memory_domain_bytes",
    GAUGE,
    "The amount of memory in bytes allocated to the domain. The `memory` value in domain xml file.",
)
FAMILIES = (
    CPU_USAGE,
    VCPU_SECONDS,
    RESIDENT,
    AVAILABLE,
    UNUSED,
    CACHED,
    SWAP_IN,
    SWAP_OUT,
    MAJOR_FAULTS,
    MINOR_FAULTS,
    BALLOON,
    USABLE,
    DOMAIN,
)
BALLOON_ONLY = {AVAILABLE, UNUSED, CACHED, SWAP_IN, SWAP_OUT, MAJOR_FAULTS, MINOR_FAULTS, USABLE}
LABEL_PREFIX = "kubernetes_vmi_label_"  # domainstats.go labelPrefix
HYPERVISOR_SHARE = 0.05  # hypervisor (emulator thread) time on top of vCPU time in cpu_usage_seconds_total
QEMU_OVERHEAD = 180 * 1024 * 1024  # the QEMU process's own resident memory beyond the guest's
STEP = 60.0  # counters are integrated minute by minute


def runtime_label(label: str) -> str:
    """``buildRuntimeLabels``: ``kubernetes_vmi_label_`` plus the label with ``.``, ``/`` and ``-`` made ``_``."""
    return LABEL_PREFIX + label.replace(".", "_").replace("/", "_").replace("-", "_")


def _const(value: float) -> Callable[[float], float]:
    return lambda _t: value


@dataclass(frozen=True)
class Profile:
    """How a VM uses what it has, as functions of the time (Unix seconds): the share of its vCPUs busy and of its
    guest memory in use (0..1), major faults per second and swap traffic in bytes per second, and whether the guest
    reports balloon statistics."""

    cpu: Callable[[float], float] = field(default=_const(0.1))
    memory: Callable[[float], float] = field(default=_const(0.3))
    major_faults: Callable[[float], float] = field(default=_const(0.0))
    swap: Callable[[float], float] = field(default=_const(0.0))
    balloon: bool = True


@dataclass(frozen=True)
class Size:
    """vCPUs and guest memory in bytes: what the domain has."""

    vcpus: int
    memory: int


@dataclass(frozen=True)
class Subject:
    """One VMI: where it runs, its labels, its size over time (a type change restarts it), its profile, and when it
    started and restarted."""

    namespace: str
    name: str
    node: str
    size: Callable[[float], Size]
    profile: Profile = Profile()
    started: float = 0.0
    restarts: tuple[float, ...] = ()
    labels: dict[str, str] = field(default_factory=dict)

    def label_text(self, extra: str = "") -> str:
        labels = [("name", self.name), ("namespace", self.namespace), ("node", self.node)]
        labels += sorted((runtime_label(key), value) for key, value in self.labels.items())
        body = ",".join(f'{key}="{_escape_label(value)}"' for key, value in labels)
        return "{" + body + (extra and "," + extra) + "}"


def _escape_label(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def _escape_help(value: str) -> str:
    return value.replace("\\", "\\\\").replace("\n", "\\n")


class Counters:
    """A subject's counters, integrated minute by minute from its last (re)start."""

    def __init__(self, subject: Subject):
        self.subject = subject
        self.at = subject.started
        self.values = {"vcpu": 0.0, "faults": 0.0, "minor": 0.0, "swap_in": 0.0, "swap_out": 0.0}

    def advance(self, t: float) -> None:
        """Integrate up to ``t`` (restarts on the way set everything back to zero)."""
        subject, profile = self.subject, self.subject.profile
        while self.at < t:
            nxt = min(t, self.at + STEP)
            restart = next((r for r in subject.restarts if self.at < r <= nxt), None)
            if restart is not None:
                self.values = dict.fromkeys(self.values, 0.0)
                self.at = restart
                continue
            span = nxt - self.at
            size = subject.size(self.at)
            self.values["vcpu"] += span * size.vcpus * min(1.0, max(0.0, profile.cpu(self.at)))
            self.values["faults"] += span * profile.major_faults(self.at)
            self.values["minor"] += span * 50.0
            self.values["swap_in"] += span * profile.swap(self.at) / 2
            self.values["swap_out"] += span * profile.swap(self.at) / 2
            self.at = nxt


def _values(subject: Subject, counters: Counters, t: float) -> dict[tuple[str, str, str], list[tuple[str, float]]]:
    """Every series of ``subject`` at ``t``: family -> [(extra labels, value)]."""
    counters.advance(t)
    size, profile = subject.size(t), subject.profile
    vcpu = counters.values["vcpu"]
    used = size.memory * min(1.0, max(0.0, profile.memory(t)))
    out: dict[tuple[str, str, str], list[tuple[str, float]]] = {
        CPU_USAGE: [("", vcpu * (1 + HYPERVISOR_SHARE))],
        VCPU_SECONDS: [(f'id="{i}",state="running"', vcpu / size.vcpus) for i in range(size.vcpus)],
        RESIDENT: [("", float(min(size.memory, used) + QEMU_OVERHEAD))],
        BALLOON: [("", float(size.memory))],
        DOMAIN: [("", float(size.memory))],
    }
    if profile.balloon:
        usable = size.memory - used
        out.update(
            {
                AVAILABLE: [("", float(size.memory))],
                USABLE: [("", usable)],
                UNUSED: [("", usable / 2)],
                CACHED: [("", usable / 2)],
                SWAP_IN: [("", counters.values["swap_in"])],
                SWAP_OUT: [("", counters.values["swap_out"])],
                MAJOR_FAULTS: [("", math.floor(counters.values["faults"]))],
                MINOR_FAULTS: [("", math.floor(counters.values["minor"]))],
            }
        )
    return out


def _number(value: float) -> str:
    return repr(float(value)) if not float(value).is_integer() else str(int(value))


def exposition(subjects: Iterable[Subject], counters: dict[tuple[str, str], Counters], now: float) -> str:
    """The Prometheus text format (0.0.4) of every subject's series at ``now``."""
    values = []
    for subject in subjects:
        state = counters.setdefault((subject.namespace, subject.name), Counters(subject))
        values.append((subject, _values(subject, state, now)))
    lines = []
    for family in FAMILIES:
        name, kind, help_text = family
        lines += [f"# HELP {name} {_escape_help(help_text)}", f"# TYPE {name} {kind}"]
        for subject, series in values:
            for extra, value in series.get(family, ()):
                lines.append(f"{name}{subject.label_text(extra)} {_number(value)}")
    return "\n".join(lines) + "\n"


def write_openmetrics(
    subjects: list[Subject],
    start: float,
    end: float,
    step: float,
    out: IO[str],
    families: tuple[tuple[str, str, str], ...] = FAMILIES,
) -> int:
    """OpenMetrics text of every subject's series from ``start`` to ``end`` (inclusive) every ``step`` seconds,
    each family contiguous and each series in time order, as ``promtool tsdb create-blocks-from openmetrics``
    reads it. Returns the number of samples written. A subject has samples only while running (from ``started``);
    ``families`` may narrow what is written (the bench writes only what rightsize reads)."""
    samples = 0
    for family in families:
        name, kind, help_text = family
        base = name[: -len("_total")] if kind == COUNTER else name
        out.write(f"# HELP {base} {_escape_help(help_text)}\n# TYPE {base} {kind}\n")
        for subject in subjects:
            if family in BALLOON_ONLY and not subject.profile.balloon:
                continue
            counters = Counters(subject)
            rows: dict[str, list[str]] = {}
            for t in _times(max(start, subject.started), end, step):
                for extra, value in _values(subject, counters, t).get(family, ()):
                    rows.setdefault(extra, []).append(f"{_number(value)} {int(t)}")
            for extra, points in rows.items():
                head = f"{name}{subject.label_text(extra)} "
                out.writelines(head + point + "\n" for point in points)
                samples += len(points)
    out.write("# EOF\n")
    return samples


def _times(start: float, end: float, step: float) -> Iterator[float]:
    t = math.ceil(start / step) * step
    while t <= end:
        yield t
        t += step


def vmi_subject(vmi: dict[str, Any], profile: Profile, started: float) -> Subject:
    """A VMI as virt-handler sees it: its node, labels, vCPUs (sockets x cores x threads, VMI defaulting's 1 each)
    and guest memory (``spec.domain.memory.guest``, else the memory request)."""
    from kubectl_instancetype.golang.quantity import parse_quantity

    spec = ((vmi.get("spec") or {}).get("domain")) or {}
    cpu = spec.get("cpu") or {}
    vcpus = int(cpu.get("sockets") or 1) * int(cpu.get("cores") or 1) * int(cpu.get("threads") or 1)
    guest = (spec.get("memory") or {}).get("guest") or ((spec.get("resources") or {}).get("requests") or {}).get(
        "memory", "1Gi"
    )
    size = Size(vcpus, int(parse_quantity(str(guest))))
    meta = vmi.get("metadata") or {}
    return Subject(
        namespace=str(meta.get("namespace") or ""),
        name=str(meta.get("name") or ""),
        node=str((vmi.get("status") or {}).get("nodeName") or ""),
        size=lambda _t: size,
        profile=profile,
        started=started,
        labels=dict(meta.get("labels") or {}),
    )


class VirtHandlerMetrics:
    """``GET /metrics`` on 127.0.0.1 for the VMIs ``vmis()`` returns, each with ``profile(vmi)``; counters start
    when the double first sees a VMI. Stops with :meth:`stop` (or after ``lifetime`` seconds)."""

    def __init__(
        self,
        vmis: Callable[[], list[dict[str, Any]]],
        profile: Callable[[dict[str, Any]], Profile] = lambda _vmi: Profile(),
        clock: Callable[[], float] | None = None,
        lifetime: float = 600.0,
    ):
        import time

        self.vmis = vmis
        self.profile = profile
        self.clock = clock or time.time
        self.first_seen: dict[tuple[str, str], float] = {}
        self.counters: dict[tuple[str, str], Counters] = {}
        self.scrapes = 0
        double = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                if self.path.split("?", 1)[0] != "/metrics":
                    self.send_error(404)
                    return
                body = double.render().encode()
                double.scrapes += 1
                self.send_response(200)
                self.send_header("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}/metrics"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.timer = threading.Timer(lifetime, self.stop)
        self.timer.daemon = True
        self.timer.start()

    def render(self) -> str:
        """The exposition for the VMIs there now."""
        now = self.clock()
        subjects = []
        for vmi in self.vmis():
            meta = vmi.get("metadata") or {}
            key = (str(meta.get("namespace")), str(meta.get("name")))
            started = self.first_seen.setdefault(key, now)
            subjects.append(vmi_subject(vmi, self.profile(vmi), started))
        # a VMI that went away and came back is a restart: its counters start again
        live = {(s.namespace, s.name) for s in subjects}
        for key in [key for key in self.counters if key not in live]:
            del self.counters[key]
            self.first_seen.pop(key, None)
        return exposition(subjects, self.counters, now)

    def stop(self) -> None:
        """Stop serving."""
        self.timer.cancel()
        self.server.shutdown()
        self.server.server_close()
