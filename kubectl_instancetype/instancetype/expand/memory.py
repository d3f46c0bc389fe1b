"""Memory requests from ``overcommitPercent``, computed as KubeVirt computes them: in IEEE-754 single precision.

KubeVirt writes ``int64(float32(guest) * (1 - float32(percent)/100))``. Every operation rounds to float32
(computing one operation in double and rounding to single gives the correctly rounded single result for
+, -, * and /), and the conversion truncates toward zero. The result is printed in the guest's format.
"""

from __future__ import annotations

import struct

from ...golang.quantity import format_quantity, integer_value, parse

_TOTAL_PERCENTAGE = 100


def f32(value: float) -> float:
    """``value`` rounded to the nearest IEEE-754 single (Go's ``float32(value)``)."""
    result: float = struct.unpack("f", struct.pack("f", value))[0]
    return result


def overcommitted_bytes(guest_bytes: int, percent: int) -> int:
    """The memory request, in bytes, for ``guest_bytes`` of guest memory overcommitted by ``percent``."""
    factor = f32(1 - f32(f32(float(percent)) / _TOTAL_PERCENTAGE))
    return int(f32(f32(float(guest_bytes)) * factor))


def overcommitted_request(guest: str, percent: int) -> str:
    """The ``requests.memory`` quantity KubeVirt sets for guest memory ``guest`` at ``percent`` overcommit.

    >>> overcommitted_request("4Gi", 50), overcommitted_request("1Gi", 10)
    ('2Gi', '966367616')
    """
    # resource.NewQuantity(bytes, guest.Format).String()
    return format_quantity(overcommitted_bytes(integer_value(guest), percent), parse(guest).format)
