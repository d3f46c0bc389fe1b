"""``create vm`` access credentials and the generated cloud-init volume (user, password, SSH keys, user data)."""

from __future__ import annotations

from collections.abc import Mapping

from ...errors import UsageError
from ...golang.goos import read_file_error
from ..params import flag_error, parse_params
from .flags import (
    ACCESS_CRED_PARAMS,
    CLOUD_CONFIG_HEADER,
    CLOUD_INIT_CONFIGDRIVE,
    CLOUD_INIT_DISK,
    CLOUD_INIT_NOCLOUD,
    CLOUD_INIT_NONE,
)
from .state import Manifest, VMState, text_param


def read_text_file(path: str) -> str:
    """``--password-file``'s content (undecodable bytes kept as surrogate escapes, as Go keeps bytes)."""
    import errno

    limit = 1 << 20  # a password: more is no password (env.MAX_SMALL_FILE_BYTES)
    with open(path, "rb") as handle:
        raw = handle.read(limit + 1)
    if len(raw) > limit:
        raise OSError(errno.EFBIG, "file too large (more than 1 MiB)", path)
    return raw.decode("utf-8", "surrogateescape")


class CloudInitSteps(VMState):
    """Access credentials (which may switch ``--ga-manage-ssh`` and ``--cloud-init`` on) and the cloud-init volume."""

    def access_credentials(self) -> None:
        flag = "access-cred"
        for value in self.options.access_cred:
            params = parse_params(flag, value, ACCESS_CRED_PARAMS)
            secret, _ = self._local_source(flag, params, "secret")
            cred_type = text_param(params, "type")
            if cred_type.lower() in ("ssh", ""):
                credential = self.ssh_credential(params, secret)
            elif cred_type.lower() == "password":
                credential = self.password_credential(params, secret)
            else:
                raise flag_error(
                    flag, f'invalid access credential type "{cred_type}", supported values are: ssh, password'
                )
            self.template_spec.setdefault("accessCredentials", []).append(credential)

    def ssh_credential(self, params: Mapping[str, object], secret: str) -> Manifest:
        flag = "access-cred"
        method = text_param(params, "method")
        if method.lower() in ("ga", ""):
            user = text_param(params, "user") or self.options.user
            if not user:
                raise flag_error(
                    flag, 'user must be specified with access credential ssh method ga ("--user" flag or param "user")'
                )
            if "ga-manage-ssh" not in self.changed:
                self.ga_manage_ssh = True
                self.changed.add("ga-manage-ssh")
            propagation = {"qemuGuestAgent": {"users": [user]}}
        elif method.lower() in (CLOUD_INIT_NOCLOUD, CLOUD_INIT_CONFIGDRIVE):
            expected = method.lower()
            if params.get("user"):
                raise flag_error(flag, "user cannot be specified with selected access credential type and method")
            if "cloud-init" not in self.changed:
                self.cloud_init = expected
                self.changed.add("cloud-init")
            if self.cloud_init.lower() != expected:
                raise flag_error(
                    flag,
                    f"method param and value passed to --cloud-init have to match: {expected} vs {self.cloud_init}",
                )
            propagation = {"noCloud": {}} if expected == CLOUD_INIT_NOCLOUD else {"configDrive": {}}
        else:
            raise flag_error(
                flag,
                f'invalid access credentials ssh method "{method}", supported values are: ga, nocloud, configdrive',
            )
        return {"sshPublicKey": {"source": {"secret": {"secretName": secret}}, "propagationMethod": propagation}}

    def password_credential(self, params: Mapping[str, object], secret: str) -> Manifest:
        flag = "access-cred"
        method = text_param(params, "method")
        if method and method.lower() != "ga":
            raise flag_error(flag, f'invalid access credentials password method "{method}", supported values are: ga')
        if params.get("user"):
            raise flag_error(flag, "user cannot be specified with selected access credential type and method")
        return {
            "userPassword": {"source": {"secret": {"secretName": secret}}, "propagationMethod": {"qemuGuestAgent": {}}}
        }

    def cloud_init_volume(self) -> None:
        cloud_init_flags = (
            "user",
            "password-file",
            "ssh-key",
            "ga-manage-ssh",
            "cloud-init",
            "cloud-init-user-data",
            "cloud-init-network-data",
        )
        if not any(flag in self.changed for flag in cloud_init_flags):
            return
        if "password-file" in self.changed:
            self.warn("WARNING: --password-file: The password is stored in cleartext in the VM definition!")
        if self.volume(CLOUD_INIT_DISK) is not None:
            raise UsageError(f'there is already a volume with name "{CLOUD_INIT_DISK}"')
        data_source = self.cloud_init.lower()
        if data_source == CLOUD_INIT_NONE:
            ignored = ("password-file", "ssh-key", "ga-manage-ssh", "cloud-init-user-data", "cloud-init-network-data")
            if any(flag in self.changed for flag in ignored):
                self.warn(
                    "WARNING: --cloud-init: was set to none, not creating a data source although other "
                    "cloud-init options were set"
                )
            return
        if data_source not in (CLOUD_INIT_NOCLOUD, CLOUD_INIT_CONFIGDRIVE):
            raise flag_error(
                "cloud-init",
                f'invalid cloud-init data source type "{self.cloud_init}", '
                "supported values are: nocloud, configdrive, none",
            )
        source: dict[str, str] = {}
        if self.options.cloud_init_network_data:
            source["networkDataBase64"] = self.options.cloud_init_network_data
        if self.options.cloud_init_user_data:
            source["userDataBase64"] = self.options.cloud_init_user_data
        else:
            source["userData"] = self.cloud_config()
        header_only = source.get("userData") == CLOUD_CONFIG_HEADER and "networkDataBase64" not in source
        if header_only and "cloud-init" not in self.changed:
            return
        key = "cloudInitNoCloud" if data_source == CLOUD_INIT_NOCLOUD else "cloudInitConfigDrive"
        self.volumes.append({"name": CLOUD_INIT_DISK, key: source})

    def check_cloud_init_data(self) -> None:
        """Refuse cloud-init data that is not valid base64, with KubeVirt's admission message.

        KubeVirt v1.9's VM webhook (``validateVolumes`` in ``vmi-create-admitter.go``) decodes
        ``userDataBase64`` and ``networkDataBase64`` with Go's ``base64.StdEncoding`` and joins its causes
        with ``", "``; virtctl does not check them, so the server would refuse the VM after the round trip.
        """
        from ...golang.encoding_base64 import std_decodes

        causes = []
        for index, volume in enumerate(self.template_spec.get("volumes", [])):
            for source_type in ("cloudInitNoCloud", "cloudInitConfigDrive"):
                source = volume.get(source_type)
                if source is None:
                    continue
                for key in ("userDataBase64", "networkDataBase64"):
                    value = source.get(key, "")
                    if value and not std_decodes(value):
                        path = f"spec.template.spec.volumes[{index}].{source_type}.{key}"
                        causes.append(f"{path}.{source_type}.{key} is not a valid base64 value.")
        if causes:
            raise UsageError(", ".join(causes))

    def cloud_config(self) -> str:
        options = self.options
        config = CLOUD_CONFIG_HEADER
        if options.user:
            config += f"\nuser: {options.user}"
        if options.password_file:
            try:
                password = self.read_file(options.password_file).strip()
            except OSError as exc:
                raise flag_error("password-file", read_file_error(options.password_file, exc)) from None
            if password:
                config += f"\npassword: {password}\nchpasswd: {{ expire: False }}"
        if options.ssh_key:
            config += "\nssh_authorized_keys:" + "".join(f"\n  - {key}" for key in options.ssh_key)
        if self.ga_manage_ssh:
            config += "\nruncmd:\n  - [ setsebool, -P, 'virt_qemu_ga_manage_ssh', 'on' ]"
        return config
