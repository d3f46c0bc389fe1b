"""Go's ``encoding/base64`` ``StdEncoding`` decoder: which texts it accepts, where it fails, what it decodes to.

KubeVirt's admission webhook decodes ``userDataBase64`` / ``networkDataBase64`` this way, and Go's
``encoding/json`` decodes ``[]byte`` fields (kubeconfig ``*-data``, ControllerRevision ``data``) with it: the
standard alphabet with ``=`` padding, carriage returns and newlines ignored anywhere, nothing after the padding.
Unused bits of the last character need not be zero (the encoding is not ``Strict``).
"""

from __future__ import annotations

_ALPHABET = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
_NEWLINES = frozenset(b"\r\n")


class CorruptInputError(ValueError):
    """``base64.CorruptInputError``: ``str()`` is Go's ``illegal base64 data at input byte N``."""

    def __init__(self, offset: int):
        super().__init__(f"illegal base64 data at input byte {offset}")
        self.offset = offset


def corrupt_input_offset(text: str | bytes) -> int | None:
    """The input byte ``base64.StdEncoding.DecodeString`` reports as corrupt in ``text``, or None when it decodes.

    Follows ``decodeQuantum`` in ``encoding/base64/base64.go``: one quantum of four characters per turn.
    """
    data = text.encode("utf-8", "surrogateescape") if isinstance(text, str) else text
    si = 0
    while True:
        j = 0
        while j < 4:
            if si == len(data):
                if j == 0:
                    return None
                return si - j
            char = data[si]
            si += 1
            if char in _ALPHABET:
                j += 1
                continue
            if char in _NEWLINES:
                continue
            if char != ord("=") or j in (0, 1):
                return si - 1
            if j == 2:
                while si < len(data) and data[si] in _NEWLINES:
                    si += 1
                if si == len(data):
                    return len(data)
                if data[si] != ord("="):
                    return si - 1
                si += 1
            while si < len(data) and data[si] in _NEWLINES:
                si += 1
            return si if si < len(data) else None


def std_decodes(text: str) -> bool:
    """True when ``base64.StdEncoding.DecodeString(text)`` returns no error."""
    return corrupt_input_offset(text) is None


def std_decode(text: str | bytes) -> bytes:
    """``base64.StdEncoding.DecodeString(text)``; :class:`CorruptInputError` where Go fails."""
    offset = corrupt_input_offset(text)
    if offset is not None:
        raise CorruptInputError(offset)
    import binascii

    data = text.encode("ascii") if isinstance(text, str) else text
    return binascii.a2b_base64(data.replace(b"\r", b"").replace(b"\n", b""))
