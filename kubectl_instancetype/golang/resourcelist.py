"""``v1.ResourceList`` arithmetic as apimachinery's ``resource.Quantity`` does it, down to how the sums print.

``Quantity.Add`` keeps the receiver's format unless the receiver is zero (then it takes the addend's) and drops
the cached string, so a sum prints in canonical form (``Quantity.String()``); a copy (``DeepCopy``) keeps the
string it was parsed from. ``Cmp`` compares exact values. This is what the quota admission plugin prints in
``exceeded quota: ..., requested: memory=2446Mi, ...``.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction

from .quantity import QuantityError, format_quantity, parse


class Amount:
    """One quantity: its exact value, its format and, until it is added to, the text it was parsed from."""

    __slots__ = ("format", "text", "value")

    def __init__(self, value: Fraction, format: str, text: str | None = None) -> None:
        self.value = value
        self.format = format
        self.text = text

    @classmethod
    def parse(cls, text: object) -> Amount | None:
        """A quantity as the API holds it, or None when it is not one."""
        try:
            quantity = parse(str(text))
        except (QuantityError, ValueError):
            return None
        return cls(quantity.value, quantity.format, str(quantity))

    def plus(self, other: Amount) -> Amount:
        """``q.Add(y)`` on a copy of ``q``."""
        fmt = other.format if self.value == 0 else self.format
        return Amount(self.value + other.value, fmt)

    def __str__(self) -> str:
        if self.text is not None:
            return self.text
        return format_quantity(self.value, self.format)

    def __repr__(self) -> str:
        return f"Amount({self.value!r}, {self.format!r}, {self.text!r})"


ResourceList = dict[str, Amount]


def parse_list(raw: object) -> ResourceList:
    """A ResourceList from its JSON form (entries that are not quantities left out: the API refuses them)."""
    if not isinstance(raw, Mapping):
        return {}
    out = {}
    for name, text in raw.items():
        amount = Amount.parse(text)
        if amount is not None:
            out[str(name)] = amount
    return out


def add(into: ResourceList, more: Mapping[str, Amount]) -> None:
    """component-helpers' ``addResourceList``: a copy where ``into`` has none, else ``Add``."""
    for name, amount in more.items():
        into[name] = into[name].plus(amount) if name in into else amount


def maximum(into: ResourceList, other: Mapping[str, Amount]) -> None:
    """``maxResourceList``: a copy of ``other``'s quantity where it is larger or ``into`` has none."""
    for name, amount in other.items():
        if name not in into or amount.value > into[name].value:
            into[name] = amount


def pretty(resources: Mapping[str, Amount]) -> dict[str, str]:
    """Every quantity as ``String()`` prints it."""
    return {name: str(amount) for name, amount in resources.items()}
