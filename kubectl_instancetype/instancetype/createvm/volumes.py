"""``create vm`` volume flags: containerdisks, PVCs, DataVolume imports (and their deprecated aliases), sysprep."""

from __future__ import annotations

from collections.abc import Mapping

from ..params import ParamError, ParamNotFound, flag_error, get_param, parse_params, split_prefixed_name
from .flags import DEPRECATED_VOLUME_ALIASES, IMPORT_PARAMS, SYSPREP_DISK, SYSPREP_PARAMS, VOLUME_PARAMS
from .state import Manifest, VMState, text_param, uint_param

_SIZE_OPTIONAL_IMPORTS = frozenset({"pvc", "snapshot", "ds"})


class VolumeSteps(VMState):
    """The volume steps of the build, in the order virtctl runs them."""

    def containerdisks(self) -> None:
        flag = "volume-containerdisk"
        for index, value in enumerate(self.options.volume_containerdisk):
            params = parse_params(flag, value, VOLUME_PARAMS)
            source = text_param(params, "src")
            if source == "":
                raise flag_error(flag, "src must be specified")
            name = text_param(params, "name") or f"{self.vm['metadata']['name']}-containerdisk-{index}"
            self.require_dns_label(flag, name)
            self.require_new_volume(flag, name)
            self.volumes.append({"name": name, "containerDisk": {"image": source}})
            self.add_boot_order(flag, name, uint_param(params, "bootorder"))

    def pvcs(self) -> None:
        flag = "volume-pvc"
        for value in self.options.volume_pvc:
            params = parse_params(flag, value, VOLUME_PARAMS)
            _, claim = self._local_source(flag, params, "pvc")
            name = text_param(params, "name") or claim
            self.require_dns_label(flag, name)
            self.require_new_volume(flag, name)
            self.volumes.append({"name": name, "persistentVolumeClaim": {"claimName": claim}})
            self.add_boot_order(flag, name, uint_param(params, "bootorder"))

    def imports(self) -> None:
        flag = "volume-import"
        aliased: list[str] = []
        for alias, import_type in DEPRECATED_VOLUME_ALIASES:
            if alias not in self.changed:
                continue
            self.warn(f"Flag --{alias} has been deprecated, use flag --volume-import instead")
            for value in getattr(self.options, alias.replace("-", "_")):
                if value == "":
                    raise flag_error(flag, "params may not be empty")
                aliased.append(f"type:{import_type},{value}")
            self.changed.add(flag)
        if flag not in self.changed:
            return
        for value in aliased + list(self.options.volume_import):
            self.import_volume(value)

    def import_volume(self, value: str) -> None:
        flag = "volume-import"
        try:
            import_type = get_param("type", value)
        except ParamError as exc:
            raise flag_error(flag, str(exc)) from None
        if import_type not in IMPORT_PARAMS:
            raise flag_error(flag, f'invalid volume import type "{import_type}", see help for supported values')
        params = parse_params(flag, value, IMPORT_PARAMS[import_type])
        spec = _import_source(import_type, params)
        if "size" not in params and import_type not in _SIZE_OPTIONAL_IMPORTS:
            raise flag_error(flag, str(ParamNotFound("size")))
        name = text_param(params, "name") if "name" in params else "imported-volume-" + self.random_suffix(5)
        self.require_dns_label(flag, name)
        self.require_new_volume(flag, name)
        size = params.get("size")
        spec["storage"] = {"resources": {"requests": {"storage": size}} if size else {}}
        self.vm["spec"].setdefault("dataVolumeTemplates", []).append({"metadata": {"name": name}, "spec": spec})
        self.volumes.append({"name": name, "dataVolume": {"name": name}})
        self.add_boot_order(flag, name, uint_param(params, "bootorder"))

    def sysprep(self) -> None:
        flag = "volume-sysprep"
        params = parse_params(flag, self.options.volume_sysprep, SYSPREP_PARAMS)
        source, _ = self._local_source(flag, params, "configmap or secret")
        source_type = text_param(params, "type") or "configmap"
        self.require_new_volume(flag, SYSPREP_DISK)
        if source_type.lower() == "configmap":
            sysprep = {"configMap": {"name": source}}
        elif source_type.lower() == "secret":
            sysprep = {"secret": {"name": source}}
        else:
            raise flag_error(
                flag, f'invalid sysprep source type "{source_type}", supported values are: configmap, secret'
            )
        self.volumes.append({"name": SYSPREP_DISK, "sysprep": sysprep})


def _import_source(import_type: str, params: Mapping[str, object]) -> Manifest:
    """The DataVolume spec (without ``storage``) of one ``--volume-import`` value, after its own checks."""
    flag = "volume-import"

    def optional(*pairs: tuple[str, str]) -> Manifest:
        return {key: params[param] for key, param in pairs if params.get(param)}

    if import_type == "blank":
        return {"source": {"blank": {}}}
    if import_type in ("gcs", "s3", "http"):
        if not params.get("url"):
            raise flag_error(flag, f"url is required with {import_type} volume source")
        source = {"url": params["url"]}
        source.update(optional(("secretRef", "secretref"), ("certConfigMap", "certconfigmap")))
        for key, param in (("extraHeaders", "extraheaders"), ("secretExtraHeaders", "secretextraheaders")):
            if param in params:
                source[key] = params[param]
        return {"source": {import_type: source}}
    if import_type == "imageio":
        if not params.get("url") or not params.get("diskid"):
            raise flag_error(flag, "url and diskid are both required with imageio volume source")
        source = {"url": params["url"], "diskId": params["diskid"]}
        source.update(optional(("secretRef", "secretref"), ("certConfigMap", "certconfigmap")))
        return {"source": {"imageio": source}}
    if import_type == "registry":
        pull_method = params.get("pullmethod", "")
        if pull_method not in ("", "pod", "node"):
            raise flag_error(flag, "pullmethod must be set to pod or node")
        if bool(params.get("url")) == bool(params.get("imagestream")):
            raise flag_error(flag, "exactly one of url or imagestream must be defined")
        source = optional(
            ("pullMethod", "pullmethod"),
            ("certConfigMap", "certconfigmap"),
            ("imageStream", "imagestream"),
            ("url", "url"),
            ("secretRef", "secretref"),
        )
        return {"source": {"registry": source}}
    if import_type == "vddk":
        for param in ("url", "uuid", "thumbprint", "secretref", "backingfile"):
            if not params.get(param):
                raise flag_error(flag, f"{param} is required with vddk volume source")
        source = optional(
            ("url", "url"),
            ("uuid", "uuid"),
            ("thumbprint", "thumbprint"),
            ("secretRef", "secretref"),
            ("initImageURL", "initimageurl"),
            ("backingFile", "backingfile"),
        )
        return {"source": {"vddk": source}}
    # pvc, snapshot and ds refer to an existing object by [namespace/]name
    source_text = params.get("src", "")
    if source_text == "":
        raise flag_error(flag, "src must be specified")
    try:
        namespace, name = split_prefixed_name(source_text)  # type: ignore[arg-type]
    except ParamError as exc:
        raise flag_error(flag, f"src invalid: {exc}") from None
    if import_type == "ds":
        reference = {"kind": "DataSource", "name": name}
        if namespace:
            reference["namespace"] = namespace
        return {"sourceRef": reference}
    if not namespace:
        raise flag_error(flag, f'namespace of {import_type} "{name}" must be specified')
    return {"source": {import_type: {"name": name, "namespace": namespace}}}
