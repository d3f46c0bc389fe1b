"""The virt-launcher pod KubeVirt v1.9.0's virt-controller creates for a VM, as the scheduler will see it.

Pure (no I/O): the caller gives the VMI spec (an expanded VM's template spec), the KubeVirt CR's inputs
(:class:`LauncherConfig`) and what is known of the namespace (:class:`NamespaceFacts`).
"""

from .config import ConfigError, LauncherConfig, NamespaceFacts
from .render import (
    RenderError,
    apply_vmi_defaults,
    default_priority_class,
    lowest_tsc_frequency,
    pod_qos_class,
    render_launcher_pod,
    scheduling_part,
    tsc_frequency_required,
)

__all__ = [
    "ConfigError",
    "LauncherConfig",
    "NamespaceFacts",
    "RenderError",
    "apply_vmi_defaults",
    "default_priority_class",
    "lowest_tsc_frequency",
    "pod_qos_class",
    "render_launcher_pod",
    "scheduling_part",
    "tsc_frequency_required",
]
