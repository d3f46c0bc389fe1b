"""client-go credential plugins (``users[].user.exec``), run as kubectl runs them.

The official Python client's loader logs a failing plugin and carries on without credentials, so every
request went out anonymously; it also checks less than client-go (kind, interactiveMode, a status without
credentials). This module follows ``k8s.io/client-go/plugin/pkg/client/auth/exec`` instead: it validates the
configuration as clientcmd does, runs the plugin before the first request, stops the command with kubectl's
``Unable to connect to the server: getting credentials: ...`` sentence when the plugin fails, and runs it again
when the credential it returned expires. The plugin's stderr goes to ours, as kubectl lets it.
"""

from __future__ import annotations

import os
import time
from typing import Any

from ...errors import ConfigurationError, TransportError
from ...golang.goos import GOOS, path_module
from .model import check_authorization

API_VERSIONS = ("client.authentication.k8s.io/v1beta1", "client.authentication.k8s.io/v1")
INTERACTIVE_MODES = ("Never", "IfAvailable", "Always")
INSTALL_HINT_HELP = (
    "\n\nIt looks like you are trying to use a client-go credential plugin that is not installed.\n\n"
    "To learn more about this feature, consult the documentation available at:\n"
    "      https://kubernetes.io/docs/reference/access-authn-authz/authentication/#client-go-credential-plugins"
)
# An ExecCredential is a few kilobytes (a token, or a certificate and key); more output than this is refused
# rather than held: a plugin that writes without end must not take the machine's memory.
MAX_OUTPUT = 1 << 20
_GO_VERSION_KIND = (
    'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }'
)


def validate(user_name: str, exec_config: Any, has_auth_provider: bool) -> list[str]:
    """clientcmd's checks of an exec stanza (``validateAuthInfo``), in its order and words."""
    if not isinstance(exec_config, dict):
        return [f"exec for {user_name} must be a mapping"]
    problems = []
    if has_auth_provider:
        problems.append(f"authProvider cannot be provided in combination with an exec plugin for {user_name}")
    if not exec_config.get("command"):
        problems.append(f"command must be specified for {user_name} to use exec authentication plugin")
    api_version = exec_config.get("apiVersion")
    if not api_version:
        problems.append(f"apiVersion must be specified for {user_name} to use exec authentication plugin")
    for item in _env(exec_config):
        if not item[0]:
            problems.append(f"env variable name must be specified for {user_name} to use exec authentication plugin")
    mode = _interactive_mode(exec_config)
    if not mode:
        problems.append(f"interactiveMode must be specified for {user_name} to use exec authentication plugin")
    elif mode not in INTERACTIVE_MODES:
        problems.append(f'invalid interactiveMode for {user_name}: "{mode}"')
    return problems


def _interactive_mode(exec_config: dict[str, Any]) -> str:
    mode = exec_config.get("interactiveMode")
    if not mode and exec_config.get("apiVersion") in (
        "client.authentication.k8s.io/v1beta1",
        "client.authentication.k8s.io/v1alpha1",
    ):
        return "IfAvailable"  # clientcmd's default for the older versions, for backwards compatibility
    return str(mode or "")


def _env(exec_config: dict[str, Any]) -> list[tuple[str, str]]:
    items = exec_config.get("env") or []
    if not isinstance(items, list):
        raise ConfigurationError("exec env must be a list of name/value pairs")
    pairs = []
    for item in items:
        if not isinstance(item, dict):
            raise ConfigurationError("exec env must be a list of name/value pairs")
        pairs.append((str(item.get("name") or ""), str(item.get("value") or "")))
    return pairs


class ExecCredentialPlugin:
    """One configured plugin: :meth:`authorization` runs it when there is no valid credential yet."""

    def __init__(
        self,
        exec_config: dict[str, Any],
        cluster: dict[str, Any] | None,
        base_dir: str,
        stdin_is_terminal: bool | None = None,
        goos: str = GOOS,
    ):
        api_version = str(exec_config.get("apiVersion") or "")
        if api_version not in API_VERSIONS:
            from ...golang.strconv import go_quote

            raise ConfigurationError(f"exec plugin: invalid apiVersion {go_quote(api_version)}")  # exec.go: %q
        command = str(exec_config["command"])
        # client-go resolves a relative command containing filepath.Separator (a backslash on Windows) against
        # the kubeconfig's directory (clientcmd's GetAuthInfoFileReferences).
        filepath, separator = path_module(goos), "\\" if goos == "windows" else "/"
        if separator in command and not filepath.isabs(command):
            command = filepath.join(base_dir, command)
        self.command = filepath.normpath(command) if separator in command else command
        self.goos = goos
        args = exec_config.get("args") or []
        if not isinstance(args, list):
            raise ConfigurationError("exec args must be a list of strings")
        self.args = [str(arg) for arg in args]
        self.env = _env(exec_config)
        self.api_version = api_version
        self.mode = _interactive_mode(exec_config)
        self.install_hint = str(exec_config.get("installHint") or "")
        self.cluster = cluster if exec_config.get("provideClusterInfo") else None
        self.stdin_is_terminal = stdin_is_terminal
        # The environment the plugin inherits: the command's (Environment.environ), set by the loader.
        self.base_environ: dict[str, str] = dict(os.environ)
        self.token: str | None = None
        self.cert_pem: bytes | None = None
        self.key_pem: bytes | None = None
        self.expires: float | None = None
        self.fetched = False
        # --request-timeout bounds a run (kubectl has no bound: a plugin that hangs hangs kubectl); None waits
        self.timeout: float | None = None

    def _interactive(self) -> bool:
        terminal = self.stdin_is_terminal
        if terminal is None:
            try:
                terminal = os.isatty(0)
            except OSError:
                terminal = False
        if self.mode == "Never":
            return False
        if self.mode == "Always" and not terminal:
            raise TransportError(
                "getting credentials: exec plugin cannot support interactive mode: standard input is not a terminal"
            )
        return terminal

    def refresh(self) -> None:
        """Run the plugin and keep what it returned; kubectl's sentence on any failure."""
        import json
        import subprocess

        interactive = self._interactive()
        info: dict[str, Any] = {"kind": "ExecCredential", "apiVersion": self.api_version, "spec": {}}
        if self.cluster is not None:
            info["spec"]["cluster"] = self.cluster
        info["spec"]["interactive"] = interactive
        environ = dict(self.base_environ)
        environ.update(self.env)
        environ["KUBERNETES_EXEC_INFO"] = json.dumps(info, separators=(",", ":"))
        try:
            process = subprocess.Popen(
                [self.executable(), *self.args],
                env=environ,
                stdin=None if interactive else subprocess.DEVNULL,
                stdout=subprocess.PIPE,
            )
        except FileNotFoundError as exc:
            if ("\\" if self.goos == "windows" else "/") in self.command:
                # Go's exec.Command looks a name up on PATH only when it has no separator; a path that does not
                # exist fails in os.StartProcess, which client-go reports as it is (wrapCmdRunErrorLocked)
                raise TransportError(
                    f"getting credentials: exec: fork/exec {self.command}: {(exc.strerror or str(exc)).lower()}"
                ) from None
            hint = INSTALL_HINT_HELP + (f"\n\n{self.install_hint}" if self.install_hint else "")
            raise TransportError(f"getting credentials: exec: executable {self.command} not found{hint}") from None
        except OSError as exc:
            raise TransportError(
                f"getting credentials: exec: fork/exec {self.command}: {(exc.strerror or str(exc)).lower()}"
            ) from None
        returncode, stdout = self.collect(process)
        if returncode != 0:
            code = returncode if returncode > 0 else -1  # Go: -1 when killed by a signal
            raise TransportError(
                f"getting credentials: exec: executable {self.command} failed with exit code {code}"
            ) from None
        self._accept(_decode_output(stdout, self.api_version))
        self.fetched = True

    def executable(self) -> str:
        """What is started: the command itself on Unix (exec searches ``PATH`` as Go's ``LookPath`` does); on
        Windows the file ``exec.Command`` finds, trying each ``PATHEXT`` extension (a ``.cmd`` or ``.bat``
        plugin too, which CreateProcess alone would not find)."""
        if self.goos != "windows":
            return self.command
        from ...golang.goos import LookPathError, look_path

        try:
            return look_path(self.command, self.base_environ, self.goos)
        except LookPathError:
            # exec.Command leaves an *exec.Error, which client-go's wrapCmdRunErrorLocked words as not found
            hint = INSTALL_HINT_HELP + (f"\n\n{self.install_hint}" if self.install_hint else "")
            raise TransportError(f"getting credentials: exec: executable {self.command} not found{hint}") from None

    def collect(self, process: Any) -> tuple[int, bytes]:
        """The plugin's exit status and stdout, read within ``timeout`` and :data:`MAX_OUTPUT` bytes; killed past
        either bound."""
        import selectors
        import subprocess

        deadline = time.monotonic() + self.timeout if self.timeout else None
        chunks: list[bytes] = []
        size = 0

        def stop(why: str) -> TransportError:
            process.kill()
            process.wait()
            return TransportError(f"getting credentials: exec: executable {self.command} {why}")

        def left() -> float | None:
            if deadline is None:
                return None
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise stop(f"did not finish within --request-timeout={self.timeout:g}s")
            return remaining

        try:
            if self.goos == "windows":
                # select() takes only sockets on Windows: a thread reads the pipe, this one waits for it
                chunks = self._read_in_thread(process, left, stop)
            else:
                with process.stdout, selectors.DefaultSelector() as selector:
                    selector.register(process.stdout, selectors.EVENT_READ)
                    while True:
                        if not selector.select(left()):
                            continue
                        data = os.read(process.stdout.fileno(), 65536)
                        if not data:
                            break
                        size += len(data)
                        if size > MAX_OUTPUT:
                            raise stop(
                                f"wrote more than {MAX_OUTPUT >> 20} MiB on stdout, more than a credential holds"
                            )
                        chunks.append(data)
            try:
                returncode = process.wait(left())
            except subprocess.TimeoutExpired:
                raise stop(f"did not finish within --request-timeout={self.timeout:g}s") from None
        except BaseException:
            if process.poll() is None:  # interrupted (Ctrl-C): the plugin must not outlive the command
                process.kill()
                process.wait()
            raise
        return returncode, b"".join(chunks)

    @staticmethod
    def _read_in_thread(process: Any, left: Any, stop: Any) -> list[bytes]:
        """The plugin's stdout read by a thread (Windows pipes cannot be select()ed), with the same bounds."""
        import threading

        chunks: list[bytes] = []
        state = {"size": 0, "over": False}

        def read() -> None:
            with process.stdout:
                while True:
                    data = os.read(process.stdout.fileno(), 65536)
                    if not data:
                        return
                    state["size"] += len(data)
                    if state["size"] > MAX_OUTPUT:
                        state["over"] = True
                        return
                    chunks.append(data)

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        while reader.is_alive():
            reader.join(timeout=min(left() or 0.1, 0.1))
            if state["over"]:
                break
        if state["over"]:
            raise stop(f"wrote more than {MAX_OUTPUT >> 20} MiB on stdout, more than a credential holds")
        return chunks

    def _accept(self, credential: dict[str, Any]) -> None:
        status = credential.get("status")
        if not isinstance(status, dict):
            raise TransportError("getting credentials: exec plugin didn't return a status field")
        token = str(status.get("token") or "")
        cert, key = str(status.get("clientCertificateData") or ""), str(status.get("clientKeyData") or "")
        if not token and not cert and not key:
            raise TransportError("getting credentials: exec plugin didn't return a token or cert/key pair")
        if bool(cert) != bool(key):
            raise TransportError("getting credentials: exec plugin returned only certificate or key, not both")
        self.token = check_authorization(token) if token else None
        self.cert_pem = cert.encode() if cert else None
        self.key_pem = key.encode() if key else None
        self.expires = _expiry(status.get("expirationTimestamp"))

    def authorization(self) -> str | None:
        """The Authorization header, running the plugin first when there is no unexpired credential."""
        if not self.fetched or (self.expires is not None and time.time() >= self.expires):
            self.refresh()
        return check_authorization(f"Bearer {self.token}") if self.token else None


def _decode_output(stdout: bytes, api_version: str) -> dict[str, Any]:
    """The ExecCredential the plugin printed, checked as client-go's decoder checks it."""
    import json

    prefix = "getting credentials: decoding stdout: couldn't get version/kind; json parse error: "
    text = stdout.decode("utf-8", "replace")
    stripped = text.strip()
    document: Any = None
    if stripped.startswith(("{", "[")):
        try:
            document = json.loads(stripped)
        except ValueError as exc:
            raise TransportError(prefix + _go_json_error(exc, stripped)) from None
    elif stripped:
        try:
            import yaml

            document = yaml.safe_load(stripped)
        except Exception:  # noqa: BLE001 - any YAML problem: kubectl's decoder refuses it the same way
            raise TransportError(prefix + "error converting YAML to JSON") from None
    if document is not None and not isinstance(document, dict):
        go_type = {str: "string", list: "array", bool: "bool"}.get(type(document), "number")
        raise TransportError(f"{prefix}json: cannot unmarshal {go_type} into Go value of type {_GO_VERSION_KIND}")
    document = document or {}
    returned = str(document.get("apiVersion") or "")
    if not returned:
        returned = "client.authentication.k8s.io/__internal"  # what client-go reports for a missing version
    if returned != api_version:
        raise TransportError(
            f"getting credentials: exec plugin is configured to use API version {api_version}, "
            f"plugin returned version {returned}"
        )
    kind = document.get("kind")
    if kind != "ExecCredential":
        if not kind:
            raise TransportError("getting credentials: decoding stdout: Object 'Kind' is missing in the plugin output")
        raise TransportError(
            f'getting credentials: decoding stdout: no kind "{kind}" is registered for version "{api_version}" '
            'in scheme "pkg/runtime/scheme.go:111"'
        )
    credential: dict[str, Any] = document
    return credential


def _go_json_error(exc: ValueError, text: str) -> str:
    """Python's json error in the words of Go's encoding/json (the common cases)."""
    message = str(exc)
    position = getattr(exc, "pos", None)
    if position is None or position >= len(text):
        return "unexpected end of JSON input"
    char = repr(text[position])
    if message.startswith("Expecting property name"):
        return f"invalid character {char} looking for beginning of object key string"
    if message.startswith("Expecting ':'"):
        return f"invalid character {char} after object key"
    if message.startswith("Expecting ',' delimiter") and "]" not in text[:position] and text[0] == "{":
        return f"invalid character {char} after object key:value pair"
    if message.startswith("Expecting ',' delimiter"):
        return f"invalid character {char} after array element"
    if message.startswith("Extra data"):
        return f"invalid character {char} after top-level value"
    return f"invalid character {char} looking for beginning of value"


def _expiry(value: Any) -> float | None:
    if not value:
        return None
    from datetime import datetime

    try:
        return datetime.fromisoformat(str(value).replace("Z", "+00:00")).timestamp()
    except ValueError:
        raise TransportError(
            f'getting credentials: decoding stdout: parsing time "{value}" as "2006-01-02T15:04:05Z07:00": cannot parse'
        ) from None
