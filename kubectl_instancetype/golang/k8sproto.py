"""Kubernetes' protobuf answers, read for the fields a caller names.

kube-apiserver serves its built-in types as protobuf when asked (``Accept: application/vnd.kubernetes.protobuf``,
as client-go's typed clients ask): the 4 bytes ``k8s\\x00`` (k8s.io/apimachinery v0.36.3
pkg/runtime/serializer/protobuf/protobuf.go ``protoEncodingPrefix``), then a ``runtime.Unknown`` (typeMeta = 1,
raw = 2, contentEncoding = 3, contentType = 4: pkg/runtime/generated.proto) whose ``raw`` is the object in the
protocol buffers wire format, with the field numbers of k8s.io/api v0.36.3 core/v1/generated.proto and of
apimachinery's meta/v1 and api/resource.

Only the fields of a :data:`Schema` are decoded, into the dicts the same object's JSON decodes to (the JSON names;
a ``map<string, Quantity>`` as ``{name: "the quantity's text"}``, the text Go's ``Quantity.String()`` writes for
both encodings); every other field is stepped over by its length. A list of 10,000 virt-launcher pods is 112 MB of
JSON; the scheduler's accounting reads some 200 bytes of each (bench/README.md, "Right-sizing").

Where the two encodings differ, and a :data:`Schema`'s reader must not care: protobuf writes a non-pointer string
even when it is empty (the generated ``MarshalToSizedBuffer``), where JSON omits it (``omitempty``), so a field
JSON leaves out can read ``""`` here. Invalid UTF-8 in a string is replaced by U+FFFD, as Go's ``encoding/json``
writes it.

Bounded: nothing is read past the bytes given, a length or a varint that runs past them raises
:class:`ProtobufError`, and the depth is the schema's (no recursion follows the data).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

MAGIC = b"k8s\x00"
# what client-go's typed clients send for the built-in types (rest.ClientContentConfig: protobuf, then JSON)
ACCEPT = "application/vnd.kubernetes.protobuf, application/json"

# The kinds of field a schema names. A message's schema maps its field numbers to (JSON name, kind, the schema
# of a message field or None).
STRING = 0
MESSAGE = 1  # a message: a dict
MESSAGES = 2  # a repeated message: a list of dicts
QUANTITIES = 3  # map<string, resource.Quantity>: {name: text}
INT = 4  # int32 / int64 (a varint, two's complement)

Schema = dict[int, tuple[str, int, "Schema | None"]]


class ProtobufError(ValueError):
    """The bytes are not the protobuf message they were read as."""


def _varint(buf: bytes, pos: int, end: int) -> tuple[int, int]:
    """The base-128 varint at ``pos`` and the position after it (google.golang.org/protobuf encoding/protowire
    ConsumeVarint: at most 10 bytes)."""
    result = shift = 0
    while pos < end:
        byte = buf[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if byte < 0x80:
            return result, pos
        shift += 7
        if shift >= 70:
            break
    raise ProtobufError("a varint runs past its message")


def _signed(value: int) -> int:
    # int32 and int64 are written as the 64-bit two's complement (protowire: a negative int32 takes 10 bytes)
    value &= (1 << 64) - 1
    return value - (1 << 64) if value >= 1 << 63 else value


def _text(buf: bytes, start: int, stop: int) -> str:
    return buf[start:stop].decode("utf-8", "replace")


def _quantity_entry(buf: bytes, pos: int, end: int) -> tuple[str, str]:
    """One entry of a ``map<string, Quantity>`` (key = 1, value = 2, the Quantity's ``string`` = 1). A missing value
    is Go's zero Quantity, "0"."""
    # the layout Go's generated marshaler writes, read in place (a page of 500 launcher pods: 35 -> 32 ms; any other
    # layout is read field by field): 0x0a, the key's length, the key; 0x12, the Quantity's length; 0x0a, the text's
    # length, the text
    if end - pos >= 6 and buf[pos] == 0x0A and buf[pos + 1] < 0x80:
        value = pos + 2 + buf[pos + 1]
        if (
            value + 4 <= end
            and buf[value] == 0x12
            and buf[value + 1] < 0x80
            and value + 2 + buf[value + 1] == end
            and buf[value + 2] == 0x0A
            and buf[value + 3] < 0x80
            and value + 4 + buf[value + 3] == end
        ):
            return _text(buf, pos + 2, value), _text(buf, value + 4, end)
    fields = _read(buf, pos, end, _QUANTITY_ENTRY)
    quantity = fields.get("value")
    return fields.get("key", ""), quantity.get("string", "0") if quantity is not None else "0"


def _read(buf: bytes, pos: int, end: int, schema: Schema) -> dict[str, Any]:
    """The fields of ``schema`` of the message in ``buf[pos:end]``."""
    out: dict[str, Any] = {}
    while pos < end:
        byte = buf[pos]
        if byte < 0x80:
            tag = byte
            pos += 1
        else:
            tag, pos = _varint(buf, pos, end)
        wire = tag & 7
        if wire == 2:  # length-delimited: strings, bytes, messages, map entries
            if pos < end and buf[pos] < 0x80:
                length = buf[pos]
                pos += 1
            else:
                length, pos = _varint(buf, pos, end)
            stop = pos + length
            if stop > end:
                raise ProtobufError("a field runs past its message")
            spec = schema.get(tag >> 3)
            if spec is not None:
                name, kind, inner = spec
                if kind == STRING:
                    out[name] = _text(buf, pos, stop)
                elif kind == MESSAGE and inner is not None:
                    out[name] = _read(buf, pos, stop, inner)
                elif kind == MESSAGES and inner is not None:
                    out.setdefault(name, []).append(_read(buf, pos, stop, inner))
                elif kind == QUANTITIES:
                    key, text = _quantity_entry(buf, pos, stop)
                    out.setdefault(name, {})[key] = text
                else:
                    raise ProtobufError(f"field {tag >> 3} ({name}) is length-delimited")
            pos = stop
        elif wire == 0:  # varint: ints, bools, enums
            value, pos = _varint(buf, pos, end)
            spec = schema.get(tag >> 3)
            if spec is not None:
                if spec[1] != INT:
                    raise ProtobufError(f"field {tag >> 3} ({spec[0]}) is a varint")
                out[spec[0]] = _signed(value)
        elif wire == 1:  # fixed 64 bits
            pos += 8
        elif wire == 5:  # fixed 32 bits
            pos += 4
        else:  # 3 and 4 are proto2's groups, which Kubernetes' types do not use; 6 and 7 are not wire types
            raise ProtobufError(f"wire type {wire} at field {tag >> 3}")
    if pos != end:
        raise ProtobufError("a field runs past its message")
    return out


_QUANTITY_ENTRY: Schema = {1: ("key", STRING, None), 2: ("value", MESSAGE, {1: ("string", STRING, None)})}
_TYPE_META: Schema = {1: ("apiVersion", STRING, None), 2: ("kind", STRING, None)}
# meta/v1 ListMeta
_LIST_META: Schema = {
    2: ("resourceVersion", STRING, None),
    3: ("continue", STRING, None),
    4: ("remainingItemCount", INT, None),
}
# meta/v1 Status, StatusDetails, StatusCause
_STATUS: Schema = {
    2: ("status", STRING, None),
    3: ("message", STRING, None),
    4: ("reason", STRING, None),
    5: (
        "details",
        MESSAGE,
        {
            1: ("name", STRING, None),
            2: ("group", STRING, None),
            3: ("kind", STRING, None),
            4: (
                "causes",
                MESSAGES,
                {1: ("reason", STRING, None), 2: ("message", STRING, None), 3: ("field", STRING, None)},
            ),
            5: ("retryAfterSeconds", INT, None),
            6: ("uid", STRING, None),
        },
    ),
    6: ("code", INT, None),
}

# core/v1 ResourceRequirements (limits = 1, requests = 2; claims = 3 is not read)
_RESOURCES: Schema = {1: ("limits", QUANTITIES, None), 2: ("requests", QUANTITIES, None)}
_CONTAINER: Schema = {
    1: ("name", STRING, None),
    8: ("resources", MESSAGE, _RESOURCES),
    24: ("restartPolicy", STRING, None),
}
_CONTAINER_STATUS: Schema = {
    1: ("name", STRING, None),
    10: ("allocatedResources", QUANTITIES, None),
    11: ("resources", MESSAGE, _RESOURCES),
}
# The fields of a Pod that the scheduler's accounting of a bound pod reads (instancetype/nodefit.py counts_on_node,
# bound_request, pod_requests: k8s.io/component-helpers resource.PodRequests with the status's resources): its
# name and namespace, the node, the containers' and init containers' requests (a sidecar by its restartPolicy),
# the overhead and the pod-level resources; the phase, the resize conditions and the containers' actuated and
# allocated resources.
BOUND_POD: Schema = {
    1: ("metadata", MESSAGE, {1: ("name", STRING, None), 3: ("namespace", STRING, None)}),
    2: (
        "spec",
        MESSAGE,
        {
            2: ("containers", MESSAGES, _CONTAINER),
            10: ("nodeName", STRING, None),
            20: ("initContainers", MESSAGES, _CONTAINER),
            32: ("overhead", QUANTITIES, None),
            40: ("resources", MESSAGE, _RESOURCES),
        },
    ),
    3: (
        "status",
        MESSAGE,
        {
            1: ("phase", STRING, None),
            2: ("conditions", MESSAGES, {1: ("type", STRING, None), 5: ("reason", STRING, None)}),
            8: ("containerStatuses", MESSAGES, _CONTAINER_STATUS),
            10: ("initContainerStatuses", MESSAGES, _CONTAINER_STATUS),
        },
    ),
}


def _spans(buf: bytes, pos: int, end: int) -> Iterator[tuple[int, int, int, int]]:
    """Each field of the message in ``buf[pos:end]``: (number, wire type, where its value starts, where it stops);
    a length-delimited value without its length. For the envelope and the list metadata, read once per answer
    (:func:`_read` walks the items inline)."""
    while pos < end:
        tag, pos = _varint(buf, pos, end)
        wire = tag & 7
        if wire == 0:
            start = pos
            _value, stop = _varint(buf, pos, end)
        elif wire == 2:
            length, start = _varint(buf, pos, end)
            stop = start + length
        elif wire in (1, 5):
            start, stop = pos, pos + (8 if wire == 1 else 4)
        else:
            raise ProtobufError(f"wire type {wire} at field {tag >> 3}")
        if stop > end:
            raise ProtobufError("a field runs past its message")
        yield tag >> 3, wire, start, stop
        pos = stop


def _unknown(body: bytes) -> tuple[dict[str, Any], int, int]:
    """The envelope: its typeMeta and where its ``raw`` lies in ``body``."""
    if not body.startswith(MAGIC):
        raise ProtobufError("not Kubernetes' protobuf encoding (no k8s\\x00 prefix)")
    type_meta: dict[str, Any] = {}
    raw = (len(body), len(body))
    for number, wire, start, stop in _spans(body, len(MAGIC), len(body)):
        if number == 1 and wire == 2:
            type_meta = _read(body, start, stop, _TYPE_META)
        elif number == 2 and wire == 2:
            raw = (start, stop)
    return type_meta, raw[0], raw[1]


def list_page(body: bytes, item: Schema) -> dict[str, Any]:
    """A list answer (``PodList``: metadata = 1, items = 2, as every built-in list) as its JSON decodes, each item
    with the fields of ``item`` only: ``{"apiVersion", "kind", "metadata": {"resourceVersion", "continue", ...},
    "items": [...]}``."""
    type_meta, start, stop = _unknown(body)
    page = _read(body, start, stop, {1: ("metadata", MESSAGE, _LIST_META), 2: ("items", MESSAGES, item)})
    return {**type_meta, "metadata": page.get("metadata", {}), "items": page.get("items", [])}


def list_continue(body: bytes) -> str | None:
    """The ``metadata.continue`` of a list answer, without reading its items."""
    _type_meta, start, stop = _unknown(body)
    for number, wire, begin, end in _spans(body, start, stop):
        if number == 1 and wire == 2:
            return _read(body, begin, end, _LIST_META).get("continue") or None
    return None


def status(body: bytes) -> dict[str, Any] | None:
    """A ``Status`` answer (an error, as the API server encodes it for a protobuf request) as its JSON decodes
    (``kind: Status``, ``reason``, ``message``, ``code``, ``details``); None when ``body`` is not one."""
    try:
        type_meta, start, stop = _unknown(body)
        if type_meta.get("kind") != "Status":
            return None
        return {**type_meta, **_read(body, start, stop, _STATUS)}
    except ProtobufError:
        return None
