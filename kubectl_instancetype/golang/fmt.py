"""Go's ``fmt`` (fmt/print.go, fmt/format.go) and ``strconv.FormatFloat``, the one home of both: ``Sprintf``,
``Sprint`` and ``Sprintln`` statement for statement (:func:`sprintf`, :func:`sprint`, :func:`sprintln`), for the
values a go-template holds: the decoded JSON of an object (``map[string]interface {}``, ``[]interface {}``,
``string``, ``int64``, ``float64``, ``bool``, nil) and the template's own constants (``int``, ``float64``,
``complex128``, ``uint8``). :func:`sprint_value` is ``fmt.Sprint`` of one decoded JSON value (``%v``: what
custom-columns cells, JSONPath and go-templates print), written for speed: one call per cell. :func:`go_type` and
:func:`go_type_name` are ``%T``'s type names. Quoting (``%q``) is :func:`.strconv.go_quote`; ``json.Marshal`` is
:mod:`.encoding_json`.

Go's limits are kept: a width or precision above 1e6 is refused (``%!(BADWIDTH)``, ``%!(BADPREC)``; a literal one
that grows past it ends the verb, ``%!(NOVERB)``), so no format asks for more than about ten million bytes. Every
other oddity is Go's too: ``%!d(string=x)``, ``%!(EXTRA int=1)``, ``%!d(MISSING)``, ``%!d(BADINDEX)``, ``%c`` of a
value past U+10FFFF (U+FFFD), ``%U`` of -1 (``U+FFFFFFFFFFFFFFFF``), ``%x`` of a float (``0x1.1ccf385ebc8ap+1023``).

Strings carry bytes that are not UTF-8 as ``surrogateescape`` code points (U+DC80..U+DCFF), as the template
module keeps them; widths count runes as ``utf8.RuneCountInString`` does (an invalid byte is one rune).
"""

from __future__ import annotations

import math
import struct
from typing import Any

from .strconv import go_quote

__all__ = ["GoByte", "GoInt", "format_float", "go_type", "go_type_name", "sprint", "sprint_value", "sprintf"]

_MAX = 1_000_000  # fmt's tooLarge
_LDIGITS = "0123456789abcdefx"
_UDIGITS = "0123456789ABCDEFX"


class GoInt(int):
    """A Go ``int`` (a template's integer constants, ``len``, range indexes), as opposed to decoded JSON's
    ``int64``."""


class GoByte(int):
    """A ``uint8`` (a byte of a string)."""


def go_type(value: Any, unknown: str | None = None) -> str:
    """The Go type name of a decoded JSON value, as ``%T`` and error messages spell it; a value of no JSON shape
    gives ``unknown`` (its Python type name when None)."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int64"
    if isinstance(value, float):
        return "float64"
    if isinstance(value, complex):
        return "complex128"
    if isinstance(value, str):
        return "string"
    if isinstance(value, dict):
        return "map[string]interface {}"
    if isinstance(value, (list, tuple)):
        return "[]interface {}"
    if value is None:
        return "interface {}"
    return type(value).__name__ if unknown is None else unknown


def go_type_name(value: Any) -> str:
    """``reflect.TypeOf(value).String()`` of a template value: Go's ``int`` and ``uint8`` here, every decoded JSON
    shape from :func:`go_type` (the one table of those names)."""
    if isinstance(value, GoInt):
        return "int"
    if isinstance(value, GoByte):
        return "uint8"
    return go_type(value, unknown="interface {}")


def _rune_count(text: str) -> int:
    # code points are runes; a surrogate-escaped byte is one invalid byte, one rune
    return len(text)


def _bits(value: float) -> int:
    return int(struct.unpack("<Q", struct.pack("<d", value))[0])


def _shortest(value: float) -> tuple[str, int]:
    """The shortest decimal digits that read back as ``value`` (> 0) and the decimal point position."""
    text = repr(value)
    mantissa, _, exponent = text.partition("e")
    whole, _, fraction = mantissa.partition(".")
    digits = whole + fraction
    point = len(whole) + (int(exponent) if exponent else 0)
    stripped = digits.lstrip("0")
    point -= len(digits) - len(stripped)
    return stripped.rstrip("0") or "0", point


def format_float(value: float, fmt: str, prec: int) -> str:
    """``strconv.FormatFloat(value, fmt, prec, 64)`` for fmt in ``e E f g G b x X`` (``prec`` -1: the shortest
    digits that read back as ``value``; ``format_float(x, "g", -1)`` is what ``%v`` prints)."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    bits = _bits(value)
    neg = bits >> 63 == 1
    sign = "-" if neg else ""
    if fmt in "bxX":
        exp = (bits >> 52) & 0x7FF
        mant = bits & ((1 << 52) - 1)
        if exp == 0:
            exp += 1
        else:
            mant |= 1 << 52
        exp -= 1023
        if fmt == "b":
            shifted = exp - 52
            return f"{sign}{mant}p{'+' if shifted >= 0 else ''}{shifted}"
        return sign + _fmt_x(prec, fmt, mant, exp)
    magnitude = abs(value)
    if prec < 0:
        # shortest
        if magnitude == 0:
            digits, point = "0", 1
        else:
            digits, point = _shortest(magnitude)
        if fmt in "gG":
            eprec = 6
            exp = point - 1
            if magnitude == 0:
                exp = 0
            use_e = exp < -4 or exp >= eprec
            if use_e:
                return sign + _e_form(digits, point, len(digits) - 1, fmt == "G")
            return sign + _f_form(digits, point, max(len(digits) - point, 0))
        if fmt in "eE":
            return sign + _e_form(digits, point, len(digits) - 1, fmt == "E")
        return sign + _f_form(digits, point, max(len(digits) - point, 0))
    if fmt in "eE":
        text = format(magnitude, f".{prec}e")
    elif fmt == "f":
        text = format(magnitude, f".{prec}f")
    else:
        text = format(magnitude, f".{prec or 1}g")
        if "e" in text:
            mantissa, _, exponent = text.partition("e")
            text = f"{mantissa}e{exponent[0]}{int(exponent[1:]):02d}"
    if fmt in "EG":
        text = text.upper()
    return sign + text


def _e_form(digits: str, point: int, prec: int, upper: bool) -> str:
    exp = point - 1 if digits != "0" else 0
    mantissa = digits[0] + ("." + digits[1 : prec + 1].ljust(prec, "0") if prec > 0 else "")
    return f"{mantissa}{'E' if upper else 'e'}{'-' if exp < 0 else '+'}{abs(exp):02d}"


def _f_form(digits: str, point: int, prec: int) -> str:
    if point <= 0:
        whole = "0"
        fraction = "0" * -point + digits
    elif point >= len(digits):
        whole = digits + "0" * (point - len(digits))
        fraction = ""
    else:
        whole, fraction = digits[:point], digits[point:]
    fraction = fraction[:prec].ljust(prec, "0")
    return whole + ("." + fraction if prec > 0 else "")


def _fmt_x(prec: int, fmt: str, mant: int, exp: int) -> str:
    """strconv's fmtX (%x of a float64), without the sign."""
    mask = (1 << 64) - 1
    if mant == 0:
        exp = 0
    mant = (mant << (60 - 52)) & mask
    while mant != 0 and mant & (1 << 60) == 0:
        mant = (mant << 1) & mask
        exp -= 1
    if 0 <= prec < 15:
        shift = prec * 4
        extra = (mant << shift) & ((1 << 60) - 1)
        mant >>= 60 - shift
        if extra | (mant & 1) > 1 << 59:
            mant += 1
        mant = (mant << (60 - shift)) & mask
        if mant & (1 << 61):
            mant >>= 1
            exp += 1
    digits = _LDIGITS if fmt == "x" else _UDIGITS
    out = ["0", fmt, "01"[(mant >> 60) & 1]]
    mant = (mant << 4) & mask
    if prec < 0 and mant != 0:
        out.append(".")
        while mant != 0:
            out.append(digits[(mant >> 60) & 15])
            mant = (mant << 4) & mask
    elif prec > 0:
        out.append(".")
        for _ in range(prec):
            out.append(digits[(mant >> 60) & 15])
            mant = (mant << 4) & mask
    out.append("p" if fmt == "x" else "P")
    out.append("-" if exp < 0 else "+")
    exp = abs(exp)
    out.append(f"{exp:02d}" if exp < 100 else str(exp))
    return "".join(out)


def _can_backquote(text: str) -> bool:
    for char in text:
        code = ord(char)
        if char == "`" or char == "\ufeff" or 0xDC80 <= code <= 0xDCFF:
            return False
        if (code < 0x20 and char != "\t") or code == 0x7F:
            return False
    return True


class _Printer:
    """fmt's pp and fmt structs: the buffer and one verb's flags."""

    def __init__(self) -> None:
        self.buf: list[str] = []
        self.clear()
        self.arg: Any = None
        self.has_value = False
        self.value: Any = None

    def clear(self) -> None:
        self.wid = self.prec = 0
        self.wid_present = self.prec_present = False
        self.minus = self.plus = self.sharp = self.space = self.zero = False
        self.plus_v = self.sharp_v = False

    # ---- fmt/format.go
    def write_padding(self, n: int) -> None:
        if n <= 0:
            return
        self.buf.append(("0" if self.zero and not self.minus else " ") * n)

    def pad(self, text: str) -> None:
        if not self.wid_present or self.wid == 0:
            self.buf.append(text)
            return
        width = self.wid - _rune_count(text)
        if not self.minus:
            self.write_padding(width)
            self.buf.append(text)
        else:
            self.buf.append(text)
            self.write_padding(width)

    def fmt_boolean(self, value: bool) -> None:
        self.pad("true" if value else "false")

    def fmt_unicode(self, u: int) -> None:
        prec = 4
        if self.prec_present and self.prec > 4:
            prec = self.prec
        tail = ""
        if self.sharp and u <= 0x10FFFF and not 0xD800 <= u <= 0xDFFF and chr(u).isprintable():
            tail = f" '{chr(u)}'"
        digits = format(u, "X")
        text = "U+" + digits.rjust(prec, "0") + tail
        zero = self.zero
        self.zero = False
        self.pad(text)
        self.zero = zero

    def fmt_integer(self, u: int, base: int, signed: bool, verb: str, digits: str) -> None:
        negative = signed and u >= 1 << 63
        if negative:
            u = (1 << 64) - u
        prec = 0
        if self.prec_present:
            prec = self.prec
            if prec == 0 and u == 0:
                zero = self.zero
                self.zero = False
                self.write_padding(self.wid)
                self.zero = zero
                return
        elif self.zero and not self.minus and self.wid_present:
            prec = self.wid
            if negative or self.plus or self.space:
                prec -= 1
        if base == 10:
            text = str(u)
        elif base == 16:
            text = format(u, "x" if digits is _LDIGITS else "X")
        elif base == 8:
            text = format(u, "o")
        else:
            text = format(u, "b")
        if prec > len(text):
            text = "0" * (prec - len(text)) + text
        if self.sharp:
            if base == 2:
                text = "0b" + text
            elif base == 8:
                if text[0] != "0":
                    text = "0" + text
            elif base == 16:
                text = "0" + digits[16] + text
        if verb == "O":
            text = "0o" + text
        if negative:
            text = "-" + text
        elif self.plus:
            text = "+" + text
        elif self.space:
            text = " " + text
        zero = self.zero
        self.zero = False
        self.pad(text)
        self.zero = zero

    def truncate(self, text: str) -> str:
        if self.prec_present and self.prec < len(text):
            return text[: self.prec]
        return text

    def fmt_s(self, text: str) -> None:
        self.pad(self.truncate(text))

    def fmt_sx(self, text: str, digits: str) -> None:
        data = text.encode("utf-8", "surrogateescape")
        length = len(data)
        if self.prec_present and self.prec < length:
            length = self.prec
        width = 2 * length
        if width > 0:
            if self.space:
                if self.sharp:
                    width *= 2
                width += length - 1
            elif self.sharp:
                width += 2
        else:
            if self.wid_present:
                self.write_padding(self.wid)
            return
        if self.wid_present and self.wid > width and not self.minus:
            self.write_padding(self.wid - width)
        out = []
        if self.sharp:
            out.append("0" + digits[16])
        for i in range(length):
            if self.space and i > 0:
                out.append(" ")
                if self.sharp:
                    out.append("0" + digits[16])
            byte = data[i]
            out.append(digits[byte >> 4] + digits[byte & 0xF])
        self.buf.append("".join(out))
        if self.wid_present and self.wid > width and self.minus:
            self.write_padding(self.wid - width)

    def fmt_q(self, text: str) -> None:
        text = self.truncate(text)
        if self.sharp and _can_backquote(text):
            self.pad("`" + text + "`")
            return
        self.pad(go_quote(text, ascii_only=self.plus))

    def fmt_c(self, c: int) -> None:
        rune = c if c <= 0x10FFFF and not 0xD800 <= c <= 0xDFFF else 0xFFFD
        self.pad(chr(rune))

    def fmt_qc(self, c: int) -> None:
        rune = c if c <= 0x10FFFF and not 0xD800 <= c <= 0xDFFF else 0xFFFD
        self.pad(go_quote(chr(rune), ascii_only=self.plus, quote="'"))

    def fmt_float(self, value: float, verb: str, prec: int) -> None:
        if self.prec_present:
            prec = self.prec
        num = format_float(value, verb, prec)
        num = num if num[0] in "+-" else "+" + num
        if self.space and num[0] == "+" and not self.plus:
            num = " " + num[1:]
        if num[1] in "IN":
            zero = self.zero
            self.zero = False
            if num[1] == "N" and not self.space and not self.plus:
                num = num[1:]
            self.pad(num)
            self.zero = zero
            return
        if self.sharp and verb != "b":
            digits = 0
            if verb in "vgGx":
                digits = 6 if prec == -1 else prec
            tail = ""
            has_point = False
            saw_nonzero = False
            i = 1
            while i < len(num):
                char = num[i]
                if char == ".":
                    has_point = True
                elif char in "pP" or (char in "eE" and verb not in "xX"):
                    tail = num[i:]
                    num = num[:i]
                    break
                else:
                    if char != "0":
                        saw_nonzero = True
                    if saw_nonzero:
                        digits -= 1
                i += 1
            if not has_point:
                if len(num) == 2 and num[1] == "0":
                    digits -= 1
                num += "."
            if digits > 0:
                num += "0" * digits
            num += tail
        if self.plus or num[0] != "+":
            if self.zero and not self.minus and self.wid_present and self.wid > len(num):
                self.buf.append(num[0])
                self.write_padding(self.wid - len(num))
                self.buf.append(num[1:])
                return
            self.pad(num)
            return
        self.pad(num[1:])

    # ---- fmt/print.go
    def bad_verb(self, verb: str) -> None:
        self.buf.append("%!" + verb + "(")
        if self.arg is not None:
            self.buf.append(go_type_name(self.arg) + "=")
            self.print_arg(self.arg, "v")
        elif self.has_value:
            self.buf.append(go_type_name(self.value) + "=")
            self.print_value(self.value, "v", 0)
        else:
            self.buf.append("<nil>")
        self.buf.append(")")

    def fmt_bool(self, value: bool, verb: str) -> None:
        if verb in "tv":
            self.fmt_boolean(value)
        else:
            self.bad_verb(verb)

    def fmt_int(self, value: int, signed: bool, verb: str) -> None:
        u = value & ((1 << 64) - 1)
        if verb in "vd":
            self.fmt_integer(u, 10, signed, verb, _LDIGITS)
        elif verb == "b":
            self.fmt_integer(u, 2, signed, verb, _LDIGITS)
        elif verb in "oO":
            self.fmt_integer(u, 8, signed, verb, _LDIGITS)
        elif verb == "x":
            self.fmt_integer(u, 16, signed, verb, _LDIGITS)
        elif verb == "X":
            self.fmt_integer(u, 16, signed, verb, _UDIGITS)
        elif verb == "c":
            self.fmt_c(u)
        elif verb == "q":
            self.fmt_qc(u)
        elif verb == "U":
            self.fmt_unicode(u)
        else:
            self.bad_verb(verb)

    def fmt_float_verb(self, value: float, verb: str) -> None:
        if verb == "v":
            self.fmt_float(value, "g", -1)
        elif verb in "bgGxX":
            self.fmt_float(value, verb, -1)
        elif verb in "feE":
            self.fmt_float(value, verb, 6)
        elif verb == "F":
            self.fmt_float(value, "f", 6)
        else:
            self.bad_verb(verb)

    def fmt_complex(self, value: complex, verb: str) -> None:
        if verb in "vbgGxXfFeE":
            plus = self.plus
            self.buf.append("(")
            self.fmt_float_verb(value.real, verb)
            self.plus = True
            self.fmt_float_verb(value.imag, verb)
            self.buf.append("i)")
            self.plus = plus
        else:
            self.bad_verb(verb)

    def fmt_string(self, value: str, verb: str) -> None:
        if verb == "v":
            if self.sharp_v:
                self.fmt_q(value)
            else:
                self.fmt_s(value)
        elif verb == "s":
            self.fmt_s(value)
        elif verb == "x":
            self.fmt_sx(value, _LDIGITS)
        elif verb == "X":
            self.fmt_sx(value, _UDIGITS)
        elif verb == "q":
            self.fmt_q(value)
        else:
            self.bad_verb(verb)

    def print_arg(self, arg: Any, verb: str) -> None:
        self.arg = arg
        self.has_value = False
        if arg is None:
            if verb in "Tv":
                self.pad("<nil>")
            else:
                self.bad_verb(verb)
            return
        if verb == "T":
            self.fmt_s(go_type_name(arg))
            return
        self.print_scalar_or_value(arg, verb, 0)

    def print_scalar_or_value(self, arg: Any, verb: str, depth: int) -> None:
        if isinstance(arg, bool):
            self.fmt_bool(arg, verb)
        elif isinstance(arg, GoByte):
            self.fmt_int(int(arg), False, verb)
        elif isinstance(arg, int):
            self.fmt_int(int(arg), True, verb)
        elif isinstance(arg, float):
            self.fmt_float_verb(arg, verb)
        elif isinstance(arg, complex):
            self.fmt_complex(arg, verb)
        elif isinstance(arg, str):
            self.fmt_string(arg, verb)
        else:
            self.print_value(arg, verb, depth)

    def print_value(self, value: Any, verb: str, depth: int) -> None:
        """printValue for a map or a slice (their elements are interfaces); scalars as printArg prints them."""
        if depth > 0:
            self.arg = value
        if not isinstance(value, (dict, list, tuple)):
            if depth > 0 and value is None:
                # an interface holding nil
                self.buf.append("interface {}(nil)" if self.sharp_v else "<nil>")
                return
            self.print_scalar_or_value(value, verb, depth)
            return
        self.arg = None
        self.has_value = True
        self.value = value
        if isinstance(value, dict):
            if self.sharp_v:
                self.buf.append("map[string]interface {}{")
            else:
                self.buf.append("map[")
            for i, key in enumerate(sorted(value)):
                if i > 0:
                    self.buf.append(", " if self.sharp_v else " ")
                self.print_element(key, verb, depth + 1, is_key=True)
                self.buf.append(":")
                self.print_element(value[key], verb, depth + 1)
            self.buf.append("}" if self.sharp_v else "]")
            return
        if self.sharp_v:
            self.buf.append("[]interface {}{")
            for i, item in enumerate(value):
                if i > 0:
                    self.buf.append(", ")
                self.print_element(item, verb, depth + 1)
            self.buf.append("}")
        else:
            self.buf.append("[")
            for i, item in enumerate(value):
                if i > 0:
                    self.buf.append(" ")
                self.print_element(item, verb, depth + 1)
            self.buf.append("]")

    def print_element(self, value: Any, verb: str, depth: int, *, is_key: bool = False) -> None:
        # an element is an interface {} (a key a string); printValue then prints what it holds
        if value is None and not is_key:
            self.buf.append("interface {}(nil)" if self.sharp_v else "<nil>")
            return
        self.arg = value
        self.has_value = False
        if isinstance(value, (dict, list, tuple)):
            self.print_value(value, verb, depth)
        else:
            self.arg = None
            self.has_value = True
            self.value = value
            self.print_scalar_or_value(value, verb, depth)

    def do_printf(self, format_text: str, args: list[Any]) -> None:
        end = len(format_text)
        arg_num = 0
        after_index = False
        reordered = False
        i = 0
        while i < end:
            good_arg_num = True
            last = i
            i = format_text.find("%", i)
            if i < 0:
                i = end
            if i > last:
                self.buf.append(format_text[last:i])
            if i >= end:
                break
            i += 1
            self.clear()
            simple = False
            while i < end:
                c = format_text[i]
                if c == "#":
                    self.sharp = True
                elif c == "0":
                    self.zero = True
                elif c == "+":
                    self.plus = True
                elif c == "-":
                    self.minus = True
                elif c == " ":
                    self.space = True
                else:
                    if "a" <= c <= "z" and arg_num < len(args):
                        if c in "vw":
                            self.sharp_v, self.sharp = self.sharp, False
                            self.plus_v, self.plus = self.plus, False
                        self.print_arg(args[arg_num], c)
                        arg_num += 1
                        i += 1
                        simple = True
                    break
                i += 1
            if simple:
                continue

            def arg_number(arg_num: int, i: int) -> tuple[int, int, bool]:
                nonlocal reordered, good_arg_num
                if i >= end or format_text[i] != "[":
                    return arg_num, i, False
                reordered = True
                index, width, ok = _parse_arg_number(format_text[i:])
                if ok and 0 <= index < len(args):
                    return index, i + width, True
                good_arg_num = False
                return arg_num, i + width, ok

            arg_num, i, after_index = arg_number(arg_num, i)
            if i < end and format_text[i] == "*":
                i += 1
                self.wid, self.wid_present, arg_num = _int_from_arg(args, arg_num)
                if not self.wid_present:
                    self.buf.append("%!(BADWIDTH)")
                if self.wid < 0:
                    self.wid = -self.wid
                    self.minus = True
                    self.zero = False
                after_index = False
            else:
                self.wid, self.wid_present, i = _parse_num(format_text, i, end)
                if after_index and self.wid_present:
                    good_arg_num = False
            if i + 1 < end and format_text[i] == ".":
                i += 1
                if after_index:
                    good_arg_num = False
                arg_num, i, after_index = arg_number(arg_num, i)
                if i < end and format_text[i] == "*":
                    i += 1
                    self.prec, self.prec_present, arg_num = _int_from_arg(args, arg_num)
                    if self.prec < 0:
                        self.prec = 0
                        self.prec_present = False
                    if not self.prec_present:
                        self.buf.append("%!(BADPREC)")
                    after_index = False
                else:
                    self.prec, self.prec_present, i = _parse_num(format_text, i, end)
                    if not self.prec_present:
                        self.prec = 0
                        self.prec_present = True
            if not after_index:
                arg_num, i, after_index = arg_number(arg_num, i)
            if i >= end:
                self.buf.append("%!(NOVERB)")
                break
            verb = format_text[i]
            i += 1
            if verb == "%":
                self.buf.append("%")
            elif not good_arg_num:
                self.buf.append(f"%!{verb}(BADINDEX)")
            elif arg_num >= len(args):
                self.buf.append(f"%!{verb}(MISSING)")
            else:
                if verb in "vw":
                    self.sharp_v, self.sharp = self.sharp, False
                    self.plus_v, self.plus = self.plus, False
                self.print_arg(args[arg_num], verb)
                arg_num += 1
        if not reordered and arg_num < len(args):
            self.clear()
            self.buf.append("%!(EXTRA ")
            for n, arg in enumerate(args[arg_num:]):
                if n > 0:
                    self.buf.append(", ")
                if arg is None:
                    self.buf.append("<nil>")
                else:
                    self.buf.append(go_type_name(arg) + "=")
                    self.print_arg(arg, "v")
            self.buf.append(")")


def _too_large(x: int) -> bool:
    return x > _MAX or x < -_MAX


def _parse_num(text: str, start: int, end: int) -> tuple[int, bool, int]:
    if start >= end:
        return 0, False, end
    num = 0
    present = False
    i = start
    while i < end and "0" <= text[i] <= "9":
        if _too_large(num):
            return 0, False, end
        num = num * 10 + ord(text[i]) - 48
        present = True
        i += 1
    return num, present, i


def _parse_arg_number(text: str) -> tuple[int, int, bool]:
    if len(text) < 3:
        return 0, 1, False
    for i in range(1, len(text)):
        if text[i] == "]":
            width, ok, new_i = _parse_num(text, 1, i)
            if not ok or new_i != i:
                return 0, i + 1, False
            return width - 1, i + 1, True
    return 0, 1, False


def _int_from_arg(args: list[Any], arg_num: int) -> tuple[int, bool, int]:
    num, is_int, new_arg_num = 0, False, arg_num
    if arg_num < len(args):
        arg = args[arg_num]
        if isinstance(arg, int) and not isinstance(arg, bool) and -(2**63) <= arg < 2**63:
            num, is_int = int(arg), True
        new_arg_num = arg_num + 1
        if _too_large(num):
            num, is_int = 0, False
    return num, is_int, new_arg_num


def sprintf(format_text: str, args: list[Any]) -> str:
    """``fmt.Sprintf(format_text, args...)``."""
    printer = _Printer()
    printer.do_printf(format_text, args)
    return "".join(printer.buf)


def sprint(args: list[Any]) -> str:
    """``fmt.Sprint(args...)``: a space between operands when neither is a string."""
    printer = _Printer()
    previous_string = False
    for n, arg in enumerate(args):
        is_string = isinstance(arg, str)
        if n > 0 and not is_string and not previous_string:
            printer.buf.append(" ")
        printer.print_arg(arg, "v")
        previous_string = is_string
    return "".join(printer.buf)


def sprintln(args: list[Any]) -> str:
    """``fmt.Sprintln(args...)``: spaces between all operands and a newline."""
    printer = _Printer()
    for n, arg in enumerate(args):
        if n > 0:
            printer.buf.append(" ")
        printer.print_arg(arg, "v")
    printer.buf.append("\n")
    return "".join(printer.buf)


def sprint_value(value: Any) -> str:
    """``fmt.Sprint(value)`` (the ``%v`` verb) of one decoded JSON value: ``map[a:1 b:[x y]]``, ``<nil>``; what
    :func:`sprint` gives for ``[value]``, without its printer state (a property test holds the two equal)."""
    if value is None:
        return "<nil>"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return format_float(value, "g", -1)
    if isinstance(value, str):
        return value
    if isinstance(value, complex):
        # fmtComplex: "(" real, the imaginary part always with its sign, "i)"
        imag = format_float(value.imag, "g", -1)
        return f"({format_float(value.real, 'g', -1)}{'' if imag[0] in '+-' else '+'}{imag}i)"
    if isinstance(value, dict):
        return "map[" + " ".join(f"{key}:{sprint_value(value[key])}" for key in sorted(value)) + "]"
    if isinstance(value, (list, tuple)):
        return "[" + " ".join(sprint_value(item) for item in value) + "]"
    return str(value)
