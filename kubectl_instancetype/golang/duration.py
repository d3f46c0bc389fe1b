"""Go durations: ``time.ParseDuration``, client-go's ``clientcmd.ParseTimeout`` (kubectl's ``--request-timeout``),
``time.Duration.String`` (:func:`duration_string`) and apimachinery's ``duration.HumanDuration`` (AGE columns).

``parse_duration`` follows Go byte for byte: units ``ns``, ``us``, ``µs`` (U+00B5), ``μs`` (U+03BC), ``ms``,
``s``, ``m``, ``h``; several terms (``1h30m``); fractions (``1.5h``, ``.5s``), with Go's float64 arithmetic
for them; a sign; the overflow checks at 2**63 ns; and the error texts (``time: invalid duration "x"``,
``time: missing unit in duration "1"``, ``time: unknown unit "d" in duration "1d"``).
"""

from __future__ import annotations

_UNITS = {
    b"ns": 1,
    b"us": 1_000,
    "µs".encode(): 1_000,
    "μs".encode(): 1_000,
    b"ms": 1_000_000,
    b"s": 1_000_000_000,
    b"m": 60_000_000_000,
    b"h": 3_600_000_000_000,
}
_TWO63 = 1 << 63
_DIGITS = b"0123456789"

MAX_TIMEOUT_NANOSECONDS = 1 << 62
"""Longest ``--request-timeout`` accepted (about 146 years); longer ones do not fit the platform's timers."""

TIMEOUT_ERROR = (
    "Invalid timeout value. Timeout must be a single integer in seconds, or an integer followed by a "
    "corresponding time unit (e.g. 1s | 2m | 3h)"
)


class DurationError(ValueError):
    """A duration Go rejects; ``str()`` is Go's error text."""


def _quote(data: bytes) -> str:
    """``time.quote``: double quotes; ``"`` and ``\\`` escaped; control and non-ASCII bytes as ``\\xNN``."""
    out = ['"']
    for byte in data:
        if byte >= 0x80 or byte < 0x20:
            out.append(f"\\x{byte:02x}")
        else:
            char = chr(byte)
            out.append("\\" + char if char in '"\\' else char)
    out.append('"')
    return "".join(out)


def _error(message: str, original: bytes) -> DurationError:
    return DurationError(f"time: {message} {_quote(original)}")


def parse_duration(text: str) -> int:
    """``time.ParseDuration(text)`` in nanoseconds; :class:`DurationError` with Go's text when Go fails."""
    # Go works on the bytes; undecodable command-line bytes come back as they were given.
    original = text.encode("utf-8", "surrogateescape")
    data = original
    negative = False
    if data[:1] in (b"-", b"+"):
        negative = data[:1] == b"-"
        data = data[1:]
    if data == b"0":
        return 0
    if not data:
        raise _error("invalid duration", original)
    total = 0
    while data:
        if not (data[0] == 0x2E or 0x30 <= data[0] <= 0x39):  # [0-9.]
            raise _error("invalid duration", original)
        # leadingInt: fails once the value passes 2**63
        index, whole = 0, 0
        while index < len(data) and data[index] in _DIGITS:
            if whole > _TWO63 // 10:
                raise _error("invalid duration", original)
            whole = whole * 10 + data[index] - 0x30
            if whole > _TWO63:
                raise _error("invalid duration", original)
            index += 1
        pre = index > 0
        data = data[index:]
        fraction, scale, post = 0, 1.0, False
        if data[:1] == b".":
            data = data[1:]
            index, overflow = 0, False
            # leadingFraction: digits past int64 precision are skipped, not an error
            while index < len(data) and data[index] in _DIGITS:
                if not overflow:
                    if fraction > (_TWO63 - 1) // 10:
                        overflow = True
                    else:
                        candidate = fraction * 10 + data[index] - 0x30
                        if candidate > _TWO63:
                            overflow = True
                        else:
                            fraction = candidate
                            scale *= 10
                index += 1
            post = index > 0
            data = data[index:]
        if not pre and not post:
            raise _error("invalid duration", original)
        index = 0
        while index < len(data) and not (data[index] == 0x2E or data[index] in _DIGITS):
            index += 1
        if index == 0:
            raise _error("missing unit in duration", original)
        unit_text, data = data[:index], data[index:]
        unit = _UNITS.get(unit_text)
        if unit is None:
            raise _error(f"unknown unit {_quote(unit_text)} in duration", original)
        if whole > _TWO63 // unit:
            raise _error("invalid duration", original)
        whole *= unit
        if fraction > 0:
            # float64, as Go computes it (nanosecond-accurate for fractions of hours)
            whole += int(float(fraction) * (float(unit) / scale))
            if whole > _TWO63:
                raise _error("invalid duration", original)
        total += whole
        if total > _TWO63:
            raise _error("invalid duration", original)
    if negative:
        return -total
    if total > _TWO63 - 1:
        raise _error("invalid duration", original)
    return total


def parse_timeout(text: str) -> int:
    """``clientcmd.ParseTimeout(text)`` in nanoseconds: a non-negative integer is seconds, else a duration.

    Raises :class:`DurationError` with kubectl's message when it is neither. Where Go silently wraps around
    (``99999999999`` seconds does not fit in int64 nanoseconds) the true value is returned; callers bound it.
    """
    from .strconv import GoNumError, go_parse_int

    try:
        seconds = go_parse_int(text, base=10, bits=64)
    except GoNumError:
        seconds = -1
    if seconds >= 0:
        return seconds * 1_000_000_000
    try:
        return parse_duration(text)
    except DurationError:
        raise DurationError(TIMEOUT_ERROR) from None


def request_timeout_seconds(text: str) -> float | None:
    """kubectl's ``--request-timeout`` in seconds, None for no limit (``0``).

    Negative durations are refused with kubectl's message (kubectl would treat them as no limit), and
    durations longer than :data:`MAX_TIMEOUT_NANOSECONDS` with a message of their own (kubectl wraps around
    or waits beyond what a socket timeout can express).
    """
    nanoseconds = parse_timeout(text)
    if nanoseconds < 0:
        raise DurationError(TIMEOUT_ERROR)
    if nanoseconds > MAX_TIMEOUT_NANOSECONDS:
        raise DurationError(f"Invalid timeout value {text}: the longest timeout is {MAX_TIMEOUT_NANOSECONDS // 10**9}s")
    return nanoseconds / 1e9 if nanoseconds else None


def _fraction(value: int, precision: int) -> str:
    """time's fmtInt + fmtFrac: ``value / 10**precision`` with the fraction's trailing zeros (and dot) omitted."""
    whole, rest = divmod(value, 10**precision)
    digits = str(rest).rjust(precision, "0").rstrip("0") if precision else ""
    return f"{whole}.{digits}" if digits else str(whole)


def duration_string(nanoseconds: int) -> str:
    """``time.Duration(nanoseconds).String()``: ``0s``, ``1.5µs``, ``250ms``, ``59s``, ``1m0s``, ``2h0m0.5s``."""
    magnitude = abs(nanoseconds)
    sign = "-" if nanoseconds < 0 else ""
    if magnitude < 1_000_000_000:
        if magnitude == 0:
            return "0s"
        if magnitude < 1_000:
            return f"{sign}{magnitude}ns"
        if magnitude < 1_000_000:
            return f"{sign}{_fraction(magnitude, 3)}µs"
        return f"{sign}{_fraction(magnitude, 6)}ms"
    seconds, fraction = divmod(magnitude, 1_000_000_000)
    text = _fraction(seconds % 60 * 1_000_000_000 + fraction, 9) + "s"
    minutes = seconds // 60
    if minutes:
        text = f"{minutes % 60}m{text}"
        if minutes // 60:
            text = f"{minutes // 60}h{text}"
    return sign + text


def human_duration(seconds: float) -> str:
    """apimachinery's ``HumanDuration``: ``45s``, ``5m3s``, ``3h``, ``2d4h``, ``400d``, ``3y20d``."""
    seconds = int(seconds)  # truncates toward zero, like Go's int(d.Seconds())
    if seconds < -1:
        return "<invalid>"
    seconds = max(0, seconds)
    if seconds < 120:
        return f"{seconds}s"
    minutes = seconds // 60
    if minutes < 10:
        rest = seconds % 60
        return f"{minutes}m{rest}s" if rest else f"{minutes}m"
    if minutes < 180:
        return f"{minutes}m"
    hours = seconds // 3600
    if hours < 8:
        rest = minutes % 60
        return f"{hours}h{rest}m" if rest else f"{hours}h"
    if hours < 48:
        return f"{hours}h"
    if hours < 192:
        rest = hours % 24
        return f"{hours // 24}d{rest}h" if rest else f"{hours // 24}d"
    if hours < 24 * 365 * 2:
        return f"{hours // 24}d"
    if hours < 24 * 365 * 8:
        rest = (hours // 24) % 365
        return f"{hours // 24 // 365}y{rest}d" if rest else f"{hours // 24 // 365}y"
    return f"{hours // 24 // 365}y"
