"""clientcmd's schema (``k8s.io/client-go/tools/clientcmd/api/v1``), as Go's ``encoding/json`` decodes a kubeconfig
into it: the first value of the wrong type is refused with ``UnmarshalTypeError``'s sentence."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# --- clientcmd's schema (k8s.io/client-go/tools/clientcmd/api/v1), as encoding/json decodes into it ----------
# A type is a Go scalar name ("string", "bool", "[]uint8"), "any", ("list", element, Go name),
# ("map", value, Go name) or ("struct", Go name, fields).
_ANY = "any"


_EXTENSIONS = ("list", ("struct", "v1.NamedExtension", {"name": "string", "extension": _ANY}), "[]v1.NamedExtension")


_CLUSTER = (
    "struct",
    "v1.Cluster",
    {
        "server": "string",
        "tls-server-name": "string",
        "insecure-skip-tls-verify": "bool",
        "certificate-authority": "string",
        "certificate-authority-data": "[]uint8",
        "proxy-url": "string",
        "disable-compression": "bool",
        "extensions": _EXTENSIONS,
    },
)


_EXEC = (
    "struct",
    "v1.ExecConfig",
    {
        "command": "string",
        "args": ("list", "string", "[]string"),
        "env": ("list", ("struct", "v1.ExecEnvVar", {"name": "string", "value": "string"}), "[]v1.ExecEnvVar"),
        "apiVersion": "string",
        "installHint": "string",
        "provideClusterInfo": "bool",
        "interactiveMode": "string",
    },
)


_AUTH_INFO = (
    "struct",
    "v1.AuthInfo",
    {
        "client-certificate": "string",
        "client-certificate-data": "[]uint8",
        "client-key": "string",
        "client-key-data": "[]uint8",
        "token": "string",
        "tokenFile": "string",
        "as": "string",
        "as-uid": "string",
        "as-groups": ("list", "string", "[]string"),
        "as-user-extra": ("map", ("list", "string", "[]string"), "map[string][]string"),
        "username": "string",
        "password": "string",
        "auth-provider": (
            "struct",
            "v1.AuthProviderConfig",
            {"name": "string", "config": ("map", "string", "map[string]string")},
        ),
        "exec": _EXEC,
        "extensions": _EXTENSIONS,
    },
)


_CONTEXT = (
    "struct",
    "v1.Context",
    {"cluster": "string", "user": "string", "namespace": "string", "extensions": _EXTENSIONS},
)


CONFIG = (
    "struct",
    "v1.Config",
    {
        "kind": "string",
        "apiVersion": "string",
        "preferences": ("struct", "v1.Preferences", {"colors": "bool", "extensions": _EXTENSIONS}),
        "clusters": (
            "list",
            ("struct", "v1.NamedCluster", {"name": "string", "cluster": _CLUSTER}),
            "[]v1.NamedCluster",
        ),
        "users": ("list", ("struct", "v1.NamedAuthInfo", {"name": "string", "user": _AUTH_INFO}), "[]v1.NamedAuthInfo"),
        "contexts": (
            "list",
            ("struct", "v1.NamedContext", {"name": "string", "context": _CONTEXT}),
            "[]v1.NamedContext",
        ),
        "current-context": "string",
        "extensions": _EXTENSIONS,
    },
)


def json_kind(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "array"
    return "string"  # str, and what YAML-to-JSON turns into strings (timestamps, binary)


def _go_name(kind: Any) -> str:
    if isinstance(kind, str):
        return kind
    return str(kind[1] if kind[0] == "struct" else kind[2])


class ShapeError(Exception):
    pass


def check_shape(value: Any, kind: Any, struct: str, path: str, seen: set[tuple[int, int]] | None) -> None:
    """Raise :class:`ShapeError` with Go's ``UnmarshalTypeError`` sentence for the first misfit in ``value``.

    ``seen`` is None for a document without shared nodes (no YAML alias): a kubeconfig of 150,000 contexts is
    then checked without remembering each node."""
    if value is None or kind == _ANY:
        return
    if seen is not None and isinstance(value, (dict, list)):
        # YAML aliases make a graph of shared nodes: check each node once per type, or a few kilobytes of
        # nested aliases would take exponential time.
        key = (id(value), id(kind))
        if key in seen:
            return
        seen.add(key)

    def misfit() -> ShapeError:
        where = f"Go struct field {struct}.{path}" if path else "Go value"
        return ShapeError(f"json: cannot unmarshal {json_kind(value)} into {where} of type {_go_name(kind)}")

    if kind == "string":
        if not isinstance(value, str) and json_kind(value) != "string":
            raise misfit()
    elif kind == "bool":
        if not isinstance(value, bool):
            raise misfit()
    elif kind == "[]uint8":
        if json_kind(value) != "string":
            raise misfit()
        from ...golang.encoding_base64 import corrupt_input_offset  # only for data fields (a CA file needs none)

        offset = corrupt_input_offset(str(value))
        if offset is not None:
            raise ShapeError(f"illegal base64 data at input byte {offset}")
    elif kind[0] == "list":
        if not isinstance(value, list):
            raise misfit()
        for item in value:
            check_shape(item, kind[1], struct, path, seen)
    elif kind[0] == "map":
        if not isinstance(value, dict):
            raise misfit()
        for item in value.values():
            check_shape(item, kind[1], struct, path, seen)
    else:  # a struct: unknown keys are ignored, as encoding/json does; fields in the document's order, as Go
        if not isinstance(value, dict):
            raise misfit()
        inner = kind[1].split(".", 1)[-1]
        fields = kind[2]
        for field, item in value.items():
            field_kind = fields.get(field)
            if field_kind is None or item is None or (field_kind == "string" and item.__class__ is str):
                continue  # the common case, decided here: a string where a string belongs
            check_shape(item, field_kind, inner, f"{path}.{field}" if path else field, seen)
