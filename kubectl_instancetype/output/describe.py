"""The ``describe`` page, laid out as kubectl describe lays one out (``Key:`` columns through a tabwriter,
two spaces per level, ``<none>`` for nothing)."""

from __future__ import annotations

import json
from typing import Any

from ..instancetype import kinds as type_kinds
from ..instancetype.listing import INSTANCETYPES, LABEL_PREFIX

NONE = "<none>"


class _Page:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def add(self, level: int, key: str, value: Any = "") -> None:
        """``key:\\tvalue`` at ``level`` (kubectl's PrefixWriter); a multi-line value continues under it.

        Every line is escaped (output/terminal.escape), as kubectl's PrefixWriter writes through
        ``printers.WriteEscaped``: a name, label or annotation from the cluster never reaches the terminal as
        control characters (a tab in a value is shown as ``\\t`` and cannot shift the columns)."""
        from .terminal import escape

        text = str(value)
        first, *rest = [escape(line) for line in text.split("\n")] if text else [""]
        if key and not text:  # a section heading (kubectl: "Resources:" alone)
            self.lines.append("  " * level + f"{key}:")
            return
        self.lines.append("  " * level + (f"{key}:\t{first}" if key else first))
        self.lines.extend("  " * level + "\t" + line for line in rest)

    def render(self) -> str:
        from ..golang.tabwriter import tabwriter

        # kubectl describe: tabwriter.NewWriter(out, 0, 8, 2, ' ', 0)
        text = tabwriter("".join(line + "\n" for line in self.lines), minwidth=0, padding=2)
        return text if text.endswith("\n") else text + "\n"


def _scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (dict, list)):
        return json.dumps(value, sort_keys=True, separators=(",", ":"))
    return str(value)


def _flatten(prefix: str, value: Any, out: list[tuple[str, str]]) -> None:
    if isinstance(value, dict) and value:
        for key in sorted(value):
            _flatten(f"{prefix}.{key}" if prefix else key, value[key], out)
    else:
        out.append((prefix, _scalar(value) if value != {} else "{}"))


def _map_lines(values: dict[str, Any] | None, separator: str) -> str:
    if not values:
        return NONE
    return "\n".join(f"{key}{separator}{values[key]}" for key in sorted(values))


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def render_description(described: Any, now: float) -> str:
    """The page of one :class:`~..usecases.describe.Described`."""
    from ..golang.duration import human_duration
    from ..instancetype.expand.topology import guest_topology, preferred_topology
    from ..instancetype.listing import created_at, is_deprecated

    obj, what, namespace = described.obj, described.what, described.namespace
    metadata = obj.get("metadata") or {}
    spec = obj.get("spec") or {}
    labels = metadata.get("labels") or {}
    type_kind = type_kinds.of(what, namespace is not None)
    kind, short = type_kind.kind, type_kind.short
    page = _Page()
    page.add(0, "Name", metadata.get("name", ""))
    if namespace is not None:
        page.add(0, "Namespace", namespace)
    page.add(0, "Kind", f"{kind} ({short}, instancetype.kubevirt.io)")
    page.add(0, "Labels", _map_lines(labels, "="))
    page.add(0, "Annotations", _map_lines(metadata.get("annotations"), ": "))
    version = labels.get(LABEL_PREFIX + "common-instancetypes-version")
    vendor = labels.get(LABEL_PREFIX + "vendor")
    if version:
        page.add(0, "Catalog", f"common-instancetypes {version}" + (f" ({vendor})" if vendor else ""))
    else:
        page.add(0, "Catalog", "<none> (not from a common-instancetypes release)")
    stamp = metadata.get("creationTimestamp")
    created = created_at(str(stamp)) if stamp else None
    page.add(0, "Created", f"{stamp} ({human_duration(now - created)} ago)" if created is not None else NONE)
    if is_deprecated(obj):
        page.add(0, "Deprecated", "yes (label instancetype.kubevirt.io/deprecated=true): prefer a current size")
    if what == INSTANCETYPES:
        cpu = spec.get("cpu") or {}
        memory = spec.get("memory") or {}
        vcpus = int(cpu.get("guest") or 0)
        page.add(0, "Resources")
        cpu_notes = [_plural(vcpus, "vCPU")]
        if cpu.get("dedicatedCPUPlacement"):
            cpu_notes.append("dedicated CPUs")
        if cpu.get("isolateEmulatorThread"):
            cpu_notes.append("isolated emulator thread")
        if cpu.get("realtime") is not None:
            cpu_notes.append("realtime")
        if cpu.get("model"):
            cpu_notes.append(f"model {cpu['model']}")
        if (cpu.get("numa") or {}).get("guestMappingPassthrough") is not None:
            cpu_notes.append("guest NUMA passthrough")
        page.add(1, "CPU", ", ".join(cpu_notes))
        memory_notes = [str(memory.get("guest", NONE))]
        if (memory.get("hugepages") or {}).get("pageSize"):
            memory_notes.append(f"hugepages of {memory['hugepages']['pageSize']}")
        if memory.get("overcommitPercent"):
            memory_notes.append(f"{memory['overcommitPercent']}% overcommitted (the pod requests less)")
        if memory.get("maxGuest"):
            memory_notes.append(f"hotplug up to {memory['maxGuest']}")
        page.add(1, "Memory", ", ".join(memory_notes))
        for key in sorted(spec):
            if key not in ("cpu", "memory"):
                flat: list[tuple[str, str]] = []
                _flatten(key, spec[key], flat)
                for path, value in flat:
                    page.add(1, path, value)
        sockets, cores, threads = guest_topology(vcpus or 1, None)
        page.add(0, "A VM gets")
        page.add(
            1,
            "Topology",
            f"{_plural(sockets, 'socket')}, {_plural(cores, 'core')}, {_plural(threads, 'thread')} "
            f"(KubeVirt's default, prefer{preferred_topology(None).capitalize()}; a preference may say otherwise)",
        )
        page.add(1, "Guest memory", memory.get("guest", NONE))
        satisfied = ", ".join(_named(other.name, other.namespace) for other in described.related) or NONE
        more = described.related_total - len(described.related)
        page.add(
            0,
            "Preferences it satisfies",
            satisfied
            + (f" (and {more} more)" if more > 0 else "")
            + (
                f"; {described.without_requirements} more have no requirements"
                if described.without_requirements
                else ""
            ),
        )
    else:
        requirements = spec.get("requirements") or {}
        page.add(0, "Requirements", "" if requirements else NONE)
        if (requirements.get("cpu") or {}).get("guest") is not None:
            page.add(1, "CPU", _plural(int(requirements["cpu"]["guest"]), "vCPU") + " at least")
        if (requirements.get("memory") or {}).get("guest") is not None:
            page.add(1, "Memory", f"{requirements['memory']['guest']} at least")
        if requirements.get("architecture"):
            page.add(1, "Architecture", requirements["architecture"])
        page.add(0, "Preferred")
        flat = []
        for key in sorted(spec):
            if key != "requirements":
                _flatten(key, spec[key], flat)
        for path, value in flat or [("", NONE)]:
            page.add(1, path, value)
        topology = preferred_topology(spec)
        page.add(
            0,
            "CPU topology",
            f"{topology} ({'spec.cpu.preferredCPUTopology' if (spec.get('cpu') or {}).get('preferredCPUTopology') else 'the default'})",
        )
        satisfying = ", ".join(_named(other.name, other.namespace) for other in described.related) or NONE
        more = described.related_total - len(described.related)
        page.add(
            0,
            "Instance types that satisfy it",
            satisfying
            + (f" (and {more} more; smallest first)" if more > 0 else " (smallest first)" if described.related else ""),
        )
    page.add(0, "Used by", "" if described.vms else ("<unknown>" if described.vms is None else NONE))
    for vm in described.vms or ():
        page.add(1, "", f"virtualmachine/{vm.name} in {vm.namespace}")
    if what == INSTANCETYPES and described.vms:
        # measured use: docs/rightsize.md
        page.add(0, "Measured use", "kubectl instancetype rightsize vm/NAME -n NAMESPACE --prometheus-url URL")
    return page.render()


def _named(name: str, namespace: str | None) -> str:
    return f"{name} ({namespace})" if namespace else name
