"""``k8s.io/apimachinery/pkg/util/validation`` (and ``api/validation/path``): the checks and messages the API
server and client-go apply to names, namespaces and label values, shared by every part that checks one
before sending it."""

from __future__ import annotations

DNS1123_LABEL_MAX = 63
DNS1123_SUBDOMAIN_MAX = 253
LABEL_VALUE_MAX = 63
# apimachinery's patterns, compiled by re (and kept in its cache) when first matched: compiling the three when the
# module is imported cost a list run that checks no name 2.3M instructions
_LABEL = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_SUBDOMAIN = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*"
_LABEL_VALUE = r"(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?"
LABEL_FORMAT_ERROR = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and "
    "end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
)
SUBDOMAIN_FORMAT_ERROR = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must "
    "start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)
LABEL_VALUE_FORMAT_ERROR = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must "
    "start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for "
    "validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
)


def _too_long(value: str, limit: int) -> list[str]:
    return [f"must be no more than {limit} characters"] if len(value.encode()) > limit else []


def path_segment_errors(name: str) -> list[str]:
    """``IsValidPathSegmentName``: not ``.`` or ``..``, no ``/`` and no ``%``."""
    if name in (".", ".."):
        return [f"may not be '{name}'"]
    return [f"may not contain '{char}'" for char in ("/", "%") if char in name]


def dns1123_label_errors(value: str) -> list[str]:
    """``IsDNS1123Label`` (a valid subdomain with dots gets "must not contain dots")."""
    errors = _too_long(value, DNS1123_LABEL_MAX)
    import re  # here: most runs check no name

    if not re.fullmatch(_LABEL, value):
        errors.append("must not contain dots" if re.fullmatch(_SUBDOMAIN, value) else LABEL_FORMAT_ERROR)
    return errors


def dns1123_subdomain_errors(value: str) -> list[str]:
    """``IsDNS1123Subdomain``."""
    errors = _too_long(value, DNS1123_SUBDOMAIN_MAX)
    import re

    if not re.fullmatch(_SUBDOMAIN, value):
        errors.append(SUBDOMAIN_FORMAT_ERROR)
    return errors


def label_value_errors(value: str) -> list[str]:
    """``IsValidLabelValue`` (the empty value is valid)."""
    errors = _too_long(value, LABEL_VALUE_MAX)
    import re

    if not re.fullmatch(_LABEL_VALUE, value):
        errors.append(LABEL_VALUE_FORMAT_ERROR)
    return errors
