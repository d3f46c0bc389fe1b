"""The mutable state of one ``create vm`` build and the checks every volume flag shares."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ...golang.validation import dns1123_label_errors
from ..params import ParamError, flag_error, split_prefixed_name
from .flags import VMOptions

Manifest = dict[str, Any]


def text_param(params: Mapping[str, object], key: str) -> str:
    """A string parameter of a parsed compound flag (``""`` when absent)."""
    value = params.get(key, "")
    assert isinstance(value, str)
    return value


def uint_param(params: Mapping[str, object], key: str) -> int | None:
    """A ``uint`` parameter of a parsed compound flag (None when absent)."""
    value = params.get(key)
    assert value is None or isinstance(value, int)
    return value


class VMState:
    """What one :func:`build_vm` run works on (virtctl's ``createVM`` struct after flag parsing).

    The steps are split by topic into mixins (volumes, cloud-init and credentials, matchers and inference)
    that all read and change this state.
    """

    def __init__(
        self,
        options: VMOptions,
        random_suffix: Callable[[int], str],
        read_file: Callable[[str], str],
        warn: Callable[[str], None],
    ):
        self.options = options
        self.random_suffix = random_suffix
        self.read_file = read_file
        self.warn = warn
        # access credentials may switch --ga-manage-ssh and --cloud-init on, as virtctl's flag Set() does
        self.changed = set(options.changed)
        self.ga_manage_ssh = options.ga_manage_ssh
        self.cloud_init = options.cloud_init
        self.boot_orders: dict[int, str] = {}
        self.vm: Manifest = {}

    # --- manifest accessors ---

    @property
    def template_spec(self) -> Manifest:
        spec: Manifest = self.vm["spec"]["template"]["spec"]
        return spec

    @property
    def volumes(self) -> list[Manifest]:
        volumes: list[Manifest] = self.template_spec.setdefault("volumes", [])
        return volumes

    def volume(self, name: str) -> Manifest | None:
        return next((vol for vol in self.template_spec.get("volumes", []) if vol["name"] == name), None)

    def require_new_volume(self, flag: str, name: str) -> None:
        if self.volume(name) is not None:
            raise flag_error(flag, f'there is already a volume with name "{name}"')

    def require_dns_label(self, flag: str, name: str) -> None:
        errors = dns1123_label_errors(name)
        if errors:
            raise flag_error(flag, f'invalid name "{name}": {",".join(errors)}')

    def add_boot_order(self, flag: str, name: str, boot_order: int | None) -> None:
        if boot_order is None:
            return
        if boot_order == 0:
            raise flag_error(flag, "bootorder must be greater than 0")
        if boot_order in self.boot_orders:
            raise flag_error(flag, f"bootorder {boot_order} was specified multiple times")
        devices = self.template_spec["domain"]["devices"]
        devices.setdefault("disks", []).append({"name": name, "bootOrder": boot_order})
        self.boot_orders[boot_order] = name

    def _local_source(self, flag: str, params: Mapping[str, object], what: str) -> tuple[str, str]:
        """(``src`` as written, its name part) of a flag naming an object in the VM's own namespace.

        virtctl writes the name part for PVC claims but the text as written for secrets and sysprep sources;
        they differ only for ``src:/name``.
        """
        source = text_param(params, "src")
        if source == "":
            raise flag_error(flag, "src must be specified")
        try:
            namespace, name = split_prefixed_name(source)
        except ParamError as exc:
            raise flag_error(flag, f"src invalid: {exc}") from None
        if namespace:
            raise flag_error(flag, f'not allowed to specify namespace of {what} "{name}"')
        return source, name
