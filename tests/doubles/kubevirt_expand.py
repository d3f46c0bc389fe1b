"""A named test double: KubeVirt's expand subresources (``subresources.kubevirt.io/v1``) on 127.0.0.1 over HTTP.

It speaks the real protocol (the paths, methods, JSON bodies and ``Status`` errors of ``pkg/virt-api/rest/expand.go``)
and answers with KubeVirt's own expansion: every request is handed to ``kubevirtref expand`` (KubeVirt v1.9.0's
``pkg/instancetype/expand``, built by ``hack/kubevirtref/build.sh``) with the instance type and preference the
double was given. It serves in a daemon thread, stops when the test's ``with`` block ends, and in any case
after ``lifetime`` seconds.
"""

from __future__ import annotations

import json
import subprocess
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

PREFIX = "/apis/subresources.kubevirt.io/v1/namespaces/"
VMS = "/apis/kubevirt.io/v1/namespaces/"


class KubeVirtExpandDouble:
    """``with KubeVirtExpandDouble(binary, vms, instancetype, preference) as double: double.url``."""

    def __init__(
        self,
        binary: Path,
        vms: dict[tuple[str, str], dict] | None = None,
        instancetype: dict | None = None,
        preference: dict | None = None,
        lifetime: float = 120.0,
    ) -> None:
        self.binary = binary
        self.vms = vms or {}
        self.instancetype = instancetype
        self.preference = preference
        self.lifetime = lifetime
        self.requests: list[tuple[str, str]] = []
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.server.timeout = 0.2
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def kubeconfig(self, path: Path) -> Path:
        """A kubeconfig pointing at the double (token auth; the double does not check it)."""
        path.write_text(
            json.dumps(
                {
                    "apiVersion": "v1",
                    "kind": "Config",
                    "clusters": [{"name": "double", "cluster": {"server": self.url}}],
                    "users": [{"name": "double", "user": {"token": "double-token"}}],
                    "contexts": [
                        {"name": "double", "context": {"cluster": "double", "user": "double", "namespace": "ns"}}
                    ],
                    "current-context": "double",
                }
            )
        )
        return path

    def __enter__(self) -> KubeVirtExpandDouble:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        self.server.server_close()

    def _serve(self) -> None:
        deadline = time.monotonic() + self.lifetime
        while not self._stop.is_set() and time.monotonic() < deadline:
            self.server.handle_request()

    def expand(self, vm: dict) -> tuple[int, Any]:
        """KubeVirt's answer for ``vm``: (200, expanded VM) or (400, its error text)."""
        case = {"vm": vm, "instancetype": self.instancetype, "preference": self.preference, "arch": "amd64"}
        done = subprocess.run(
            [str(self.binary), "expand"],
            input=json.dumps([case]),
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        )
        result = json.loads(done.stdout)[0]
        return (400, result["error"]) if "error" in result else (200, result["vm"])

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        double = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:  # keep test output clean
                pass

            def _send(self, code: int, body: Any) -> None:
                if code >= 300:
                    reason = {400: "BadRequest", 404: "NotFound"}.get(code, "InternalError")
                    body = {
                        "kind": "Status",
                        "apiVersion": "v1",
                        "metadata": {},
                        "status": "Failure",
                        "message": body,
                        "reason": reason,
                        "code": code,
                    }
                data = json.dumps(body).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_PUT(self) -> None:
                double.requests.append(("PUT", self.path))
                parts = self.path[len(PREFIX) :].split("/") if self.path.startswith(PREFIX) else []
                if len(parts) != 2 or parts[1] != "expand-vm-spec":
                    self._send(404, "the server could not find the requested resource")
                    return
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                if not body:
                    self._send(400, "empty request body")
                    return
                vm = json.loads(body)
                namespace = (vm.get("metadata") or {}).get("namespace")
                if namespace and namespace != parts[0]:
                    self._send(400, f"VM namespace must be empty or {parts[0]}")
                    return
                self._send(*double.expand(vm))

            def do_GET(self) -> None:
                double.requests.append(("GET", self.path))
                if self.path.startswith(VMS):
                    # the VirtualMachine itself, as the kubevirt.io API serves it
                    namespace, _, name = self.path[len(VMS) :].partition("/virtualmachines/")
                    vm = double.vms.get((namespace, name))
                    if vm is None:
                        self._send(404, f'virtualmachines.kubevirt.io "{name}" not found')
                    else:
                        self._send(200, vm)
                    return
                parts = self.path[len(PREFIX) :].split("/") if self.path.startswith(PREFIX) else []
                if len(parts) != 4 or parts[1] != "virtualmachines" or parts[3] != "expand-spec":
                    self._send(404, "the server could not find the requested resource")
                    return
                vm = double.vms.get((parts[0], parts[2]))
                if vm is None:
                    self._send(404, f'virtualmachine.kubevirt.io "{parts[2]}" not found')
                    return
                code, body = double.expand(vm)
                # the stored-VM endpoint answers expansion failures with 500 Internal error
                self._send(500 if code == 400 else code, f"Internal error occurred: {body}" if code == 400 else body)

        return Handler
