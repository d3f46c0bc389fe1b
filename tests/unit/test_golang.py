"""The Go emulation helpers on their own vectors (differential tests against Go: test_virtctl_differential.py)."""

from __future__ import annotations

import pytest

from kubectl_instancetype.golang.duration import (
    MAX_TIMEOUT_NANOSECONDS,
    TIMEOUT_ERROR,
    DurationError,
    parse_duration,
    parse_timeout,
    request_timeout_seconds,
)
from kubectl_instancetype.golang.encoding_base64 import std_decodes
from kubectl_instancetype.golang.strconv import FlagValueError, pflag_int
from kubectl_instancetype.golang.tabwriter import render_table, tabwriter


@pytest.mark.parametrize(
    ("text", "nanoseconds"),
    [
        ("0", 0),
        ("-0", 0),
        ("1s", 10**9),
        ("-1.5h", -5400 * 10**9),
        (".5s", 5 * 10**8),
        ("1.s", 10**9),
        ("1h30m", 5400 * 10**9),
        ("1µs", 1000),
        ("1μs", 1000),
        ("1us2ns", 1002),
        ("2562047h47m16.854775807s", 2**63 - 1),
        ("-2562047h47m16.854775808s", -(2**63)),
        ("0.000000000000000000001s", 0),
    ],
)
def test_parse_duration(text: str, nanoseconds: int) -> None:
    assert parse_duration(text) == nanoseconds


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", 'time: invalid duration ""'),
        ("1", 'time: missing unit in duration "1"'),
        ("1d", 'time: unknown unit "d" in duration "1d"'),
        (".s", 'time: invalid duration ".s"'),
        ("2562047h47m16.854775808s", 'time: invalid duration "2562047h47m16.854775808s"'),
        ("9999999999999999999h", 'time: invalid duration "9999999999999999999h"'),
        ("1\x01s", 'time: unknown unit "\\x01s" in duration "1\\x01s"'),
        ('1"', 'time: unknown unit "\\"" in duration "1\\""'),
        ("1é", 'time: unknown unit "\\xc3\\xa9" in duration "1\\xc3\\xa9"'),
    ],
)
def test_parse_duration_errors(text: str, message: str) -> None:
    with pytest.raises(DurationError) as caught:
        parse_duration(text)
    assert str(caught.value) == message


@pytest.mark.parametrize(
    ("text", "seconds"), [("0", None), ("30", 30.0), ("1.5s", 1.5), ("1µs", 1e-6), ("+5", 5.0), ("-0", None)]
)
def test_request_timeout(text: str, seconds: float | None) -> None:
    assert request_timeout_seconds(text) == seconds


def test_request_timeout_bounds() -> None:
    # Go wraps 99999999999 s around int64 nanoseconds; the plugin refuses what no timer can hold
    assert parse_timeout("99999999999") == 99999999999 * 10**9
    for text in ("99999999999", "2562047h", "9223372036854775807"):
        with pytest.raises(DurationError, match=f"^Invalid timeout value {text}: the longest timeout is"):
            request_timeout_seconds(text)
    assert request_timeout_seconds(f"{MAX_TIMEOUT_NANOSECONDS}ns") == MAX_TIMEOUT_NANOSECONDS / 1e9
    for text in ("-1s", "1d", " 1s", "1 s", ""):
        with pytest.raises(DurationError) as caught:
            request_timeout_seconds(text)
        assert str(caught.value) == TIMEOUT_ERROR


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a\tb\n", "a     b\n"),
        ("a\tbbbbbbbbb\tc\nxx\ty\n", "a     bbbbbbbbb   c\nxx    y\n"),
        # a line without a tab ends the column blocks above it
        ("aaaaaaaaa\tb\nc\nd\te\n", "aaaaaaaaa   b\nc\nd     e\n"),
        ("a\tb", "a     b"),
        ("", ""),
    ],
)
def test_tabwriter(text: str, expected: str) -> None:
    assert tabwriter(text) == expected


def test_render_table_with_tabs_in_cells_goes_through_the_tabwriter() -> None:
    rows = [["NAME", "X"], ["a\tb", "c"]]
    assert render_table(rows) == tabwriter("NAME\tX\na\tb\tc\n")
    assert render_table([["a", "b"], ["c"]]) == tabwriter("a\tb\nc\n")


@pytest.mark.parametrize(("text", "ok"), [("eA==", True), ("eA\n==", True), ("eA=", False), ("eA", False), ("", True)])
def test_std_base64(text: str, ok: bool) -> None:
    assert std_decodes(text) is ok


def test_pflag_int_reads_like_pflag() -> None:
    assert pflag_int("cpu", "0x10") == 16
    assert pflag_int("cpu", "1_000") == 1000
    assert pflag_int("cpu", "4", bits=32, unsigned=True) == 4
    for text, func in (("４", "ParseInt"), ("\u212a", "ParseInt"), ("", "ParseInt")):
        with pytest.raises(FlagValueError) as caught:
            pflag_int("cpu", text)
        assert (
            str(caught.value)
            == f'invalid argument "{text}" for "--cpu" flag: strconv.{func}: parsing "{text}": invalid syntax'
        )
    with pytest.raises(FlagValueError, match='strconv.ParseUint: parsing "-1": invalid syntax'):
        pflag_int("cpu", "-1", bits=32, unsigned=True)


def test_path_errors_read_as_go_prints_them() -> None:
    import errno

    from kubectl_instancetype.golang.goos import errno_text, path_error, read_file_error

    assert path_error("open", "/p", PermissionError(13, "Permission denied")) == "open /p: permission denied"
    assert path_error("stat", "/p", errno.ENOENT) == "stat /p: no such file or directory"
    assert path_error("open", "/p", OSError("not a number")) == "open /p: not a number"
    # os.ReadFile opens a folder and fails reading it
    assert read_file_error("/d", IsADirectoryError(21, "Is a directory")) == "read /d: is a directory"
    assert read_file_error("/p", FileNotFoundError(2, "No such file or directory")) == (
        "open /p: no such file or directory"
    )
    # a limit the plugin puts in the text keeps its unit
    assert errno_text("File too large (more than 1 MiB)") == "file too large (more than 1 MiB)"


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("https://user:secret@proxy:3128/path", "https://user:xxxxx@proxy:3128/path"),
        ("https://user@proxy:3128", "https://user@proxy:3128"),  # no password, nothing to hide
        ("https://proxy/a@b:c", "https://proxy/a@b:c"),  # an @ in the path is no userinfo
        ("http://u:p@host:bad port/x", "http://u:xxxxx@host:bad port/x"),  # url.Parse refuses it, still redacted
        ("no scheme here", "no scheme here"),
    ],
)
def test_url_redacted(raw: str, shown: str) -> None:
    from kubectl_instancetype.golang.neturl import parse_url, redacted

    assert redacted(raw) == shown
    if "bad port" not in raw and "://" in raw:
        parsed = parse_url(raw)
        assert parsed is not None and parsed.redacted() == shown


# strconv.ParseFloat(text, 64), printed by Go 1.26 (FormatFloat 'g', -1); None where it fails with that error
_PARSE_FLOAT = [
    ("1_000", 1000.0, None),
    ("1_000.5", 1000.5, None),
    ("0x1_0p1", 32.0, None),
    ("0x_1p0", 1.0, None),
    ("+inf", float("inf"), None),
    ("-Infinity", float("-inf"), None),
    ("INF", float("inf"), None),
    ("+nan", None, 'strconv.ParseFloat: parsing "+nan": invalid syntax'),
    ("infinit", None, 'strconv.ParseFloat: parsing "infinit": invalid syntax'),
    ("1e400", None, 'strconv.ParseFloat: parsing "1e400": value out of range'),
    ("-1e400", None, 'strconv.ParseFloat: parsing "-1e400": value out of range'),
    ("0x1p2000", None, 'strconv.ParseFloat: parsing "0x1p2000": value out of range'),
    ("0x10", None, 'strconv.ParseFloat: parsing "0x10": invalid syntax'),
    ("0x1p", None, 'strconv.ParseFloat: parsing "0x1p": invalid syntax'),
    ("1__0", None, 'strconv.ParseFloat: parsing "1__0": invalid syntax'),
    ("_1", None, 'strconv.ParseFloat: parsing "_1": invalid syntax'),
    (".5", 0.5, None),
    ("5.", 5.0, None),
    (".", None, 'strconv.ParseFloat: parsing ".": invalid syntax'),
    ("1e", None, 'strconv.ParseFloat: parsing "1e": invalid syntax'),
    ("0b1", None, 'strconv.ParseFloat: parsing "0b1": invalid syntax'),
    ("0o7", None, 'strconv.ParseFloat: parsing "0o7": invalid syntax'),
    ("1_e5", None, 'strconv.ParseFloat: parsing "1_e5": invalid syntax'),
    ("--1", None, 'strconv.ParseFloat: parsing "--1": invalid syntax'),
    ("+.5e-3", 0.0005, None),
    ("1e-400", 0.0, None),
    (" 1", None, 'strconv.ParseFloat: parsing " 1": invalid syntax'),
    ("0x1p1 ", None, 'strconv.ParseFloat: parsing "0x1p1 ": invalid syntax'),
    ("1.5e+3_0", 1.5e30, None),
    ("", None, 'strconv.ParseFloat: parsing "": invalid syntax'),
    ("+", None, 'strconv.ParseFloat: parsing "+": invalid syntax'),
    ("0x.8p1", 1.0, None),
    ("1e1_0", 1e10, None),
]


@pytest.mark.parametrize(("text", "value", "error"), _PARSE_FLOAT)
def test_parse_float(text: str, value: float | None, error: str | None) -> None:
    from kubectl_instancetype.golang.strconv import GoNumError, go_parse_float

    if error is None:
        assert go_parse_float(text) == value
    else:
        with pytest.raises(GoNumError) as caught:
            go_parse_float(text)
        assert str(caught.value) == error


@pytest.mark.parametrize("text", ["nan", "NaN", "nAn"])
def test_parse_float_nan(text: str) -> None:
    from kubectl_instancetype.golang.strconv import go_parse_float

    value = go_parse_float(text)
    assert value != value
