"""Go's ``encoding/base64``: whether ``base64.StdEncoding.DecodeString`` accepts a text.

KubeVirt's admission webhook decodes ``userDataBase64`` / ``networkDataBase64`` this way: the standard
alphabet with ``=`` padding, carriage returns and newlines ignored anywhere, nothing after the padding.
Unused bits of the last character need not be zero (the encoding is not ``Strict``).
"""

from __future__ import annotations

import re

_STD = re.compile(r"(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?")


def std_decodes(text: str) -> bool:
    """True when ``base64.StdEncoding.DecodeString(text)`` returns no error."""
    return _STD.fullmatch(text.replace("\r", "").replace("\n", "")) is not None
