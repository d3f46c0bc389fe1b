"""Strict fields for ``-f``: every VirtualMachine, instance type and preference a command reads from a file is
checked against KubeVirt's own CRD schema (:mod:`..golang.structural`), as the API server checks it.

``--validate`` is kubectl's flag with kubectl's values (``strict``/``true``, the default; ``warn``;
``ignore``/``false``; k8s.io/kubectl/pkg/cmd/util ``GetValidationDirective``): ``strict`` refuses an object with
unknown fields in the API server's words (``strict decoding error: unknown field "spec.devices.preferedDiskBus"``)
with a did-you-mean when a known field is close; ``warn`` prints the server's warning for each
(``Warning: unknown field "..."``) and goes on; ``ignore`` drops them silently, as the server would. Schema
violations (types, required fields, enums, patterns) are refused whatever ``--validate`` says: the server refuses
them too.

Only the API versions the embedded schemas describe are checked (``kubevirt.io/v1``,
``instancetype.kubevirt.io/v1beta1``); older versions (``convert``'s input) are not.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..errors import InputError, UsageError
from ..instancetype.kinds import API_VERSION as TYPES_API_VERSION
from ..instancetype.kinds import TYPE_KINDS

VALIDATE_VALUES = "strict (or true), warn, ignore (or false)"
CHECKED_VERSIONS = {"VirtualMachine": "kubevirt.io/v1", **dict.fromkeys(TYPE_KINDS, TYPES_API_VERSION)}


def validation_directive(value: str) -> str:
    """kubectl's ``GetValidationDirective``: ``strict``, ``warn`` or ``ignore`` for a ``--validate`` value
    (Go's ``strconv.ParseBool`` spellings of true and false too)."""
    from ..golang.strconv import go_parse_bool

    try:
        return "strict" if go_parse_bool(value) else "ignore"
    except ValueError:
        pass
    if value in ("strict", "warn", "ignore"):
        return value
    raise UsageError(f'invalid - validate option "{value}"; must be one of: {VALIDATE_VALUES}')


@dataclass(frozen=True)
class FieldProblems:
    """What the schema says about one object read from ``source``: its unknown fields and its field errors."""

    obj: dict[str, Any]
    source: str
    unknown: tuple[Any, ...] = ()
    invalid: tuple[Any, ...] = ()

    @property
    def what(self) -> str:
        name = (self.obj.get("metadata") or {}).get("name") or ""
        return f"{str(self.obj.get('kind')).lower()}/{name}"

    def strict_line(self) -> str:
        """The refusal of the unknown fields: the server's ``strict decoding error: ...`` and a did-you-mean."""
        errors = ", ".join(item.error() for item in self.unknown)
        line = f"{self.what} in {self.source}: strict decoding error: {errors}"
        guesses = _guesses(self.unknown)
        if guesses:
            line += f"; did you mean {guesses}?"
        return line + " (--validate=false drops unknown fields)"

    def warnings(self) -> list[str]:
        """``--validate=warn``: the API server's warning for each unknown field."""
        return [item.error() for item in self.unknown]

    def invalid_line(self) -> str:
        """The refusal of the field errors: kubectl's rendering of the server's Invalid answer."""
        from ..errors import APIError

        name = str((self.obj.get("metadata") or {}).get("name") or "")
        causes = [{"field": error.path, "message": error.body} for error in self.invalid]
        error = APIError(422, "", "Invalid", str(self.obj.get("kind")), name, causes)
        return f"{self.source}: {error.render()}"


def suggestions(unknown: tuple[Any, ...]) -> list[str]:
    """For each unknown field, the known fields of its parent that are close to it (``"spec.a" or "spec.b"``;
    "" when none is), by the project's one suggestion policy (:func:`..golang.cobra.did_you_mean`)."""
    from ..golang.cobra import did_you_mean

    found = []
    for item in unknown:
        close = did_you_mean(item.name, sorted(item.known))
        parent = item.path[: len(item.path) - len(item.name)]
        found.append(" or ".join(f'"{parent}{name}"' for name in close))
    return found


def _guesses(unknown: tuple[Any, ...]) -> str:
    return ", ".join(guess for guess in suggestions(unknown) if guess)


def check(obj: dict[str, Any], source: str) -> FieldProblems | None:
    """The schema's findings for ``obj`` (None when it has none, or is not a kind and version checked here)."""
    kind = obj.get("kind")
    if not isinstance(kind, str) or CHECKED_VERSIONS.get(kind) != obj.get("apiVersion"):
        return None
    from ..golang.structural import has_rules, load_schemas, unknown_fields, validate

    schema = load_schemas()[kind]
    unknown = tuple(unknown_fields(obj, schema))
    checked = obj
    if kind == "VirtualMachine":
        # KubeVirt's mutating webhook runs before the schema is checked and replaces spec and metadata with the
        # typed VM it decoded (vm-mutator.go: a JSON patch of the Go-encoded spec): the schema sees Go's bytes
        # (an input without a type has "type": "", which the schema's required list accepts)
        from ..golang.gojson import roundtrip

        checked = roundtrip(obj)
    invalid = tuple(validate(checked, schema, rules=has_rules(kind)))
    if not unknown and not invalid:
        return None
    return FieldProblems(obj, source, unknown, invalid)


def enforce(obj: dict[str, Any], source: str, validation: str, warn: Callable[[str], None] | None) -> None:
    """Refuse ``obj`` (``InputError``) for what ``validation`` (``strict``/``warn``/``ignore``) refuses; hand
    ``warn`` the warnings of ``warn``."""
    problems = check(obj, source)
    if problems is None:
        return
    if problems.invalid:
        raise InputError(problems.invalid_line())
    if not problems.unknown:
        return
    if validation == "strict":
        raise InputError(problems.strict_line())
    if validation == "warn" and warn is not None:
        for line in problems.warnings():
            warn(line)
