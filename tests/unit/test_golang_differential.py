"""golang/ against Go itself (hack/virtctl/goref): url.Parse, time.Duration.String, apimachinery's HumanDuration,
base64.StdEncoding's error offsets and compress/gzip's Reader as net/http reads a gzipped answer."""

from __future__ import annotations

import base64
import random
import struct
import zlib

import pytest

from kubectl_instancetype.golang.duration import duration_string, human_duration
from kubectl_instancetype.golang.encoding_base64 import corrupt_input_offset
from kubectl_instancetype.golang.gzip import GzipError, gunzip
from kubectl_instancetype.golang.neturl import URLError, parse_url

pytestmark = pytest.mark.differential

URLS = [
    "https://127.0.0.1:6443",
    "https://[::1]:6443/prefix/",
    "HTTPS://api.example:6443?x=1#frag",
    "https://host:",
    "https://user:pw@[::1]:6443/prefix/",
    "http://us%3Aer:p%40ss:w@proxy:3128",
    "https://127.0.0.1:6443/%zz",
    "https://[::1",
    "https://127.0.0.1:abc",
    "http://[::1]:namedport",
    "https://host:-1",
    "https://",
    "https://a b",
    ":6443",
    "socks5://proxy:1080",
    "https://xn--bcher-kva.example/a%20b",
    "https://h%41st/",
    "https://h\u00e9st/",
    "https://[fe80::1%25en0]:443/",
]


def _random_urls(count: int) -> list[str]:
    rng = random.Random(21)
    parts = [
        "http",
        "https",
        "://",
        ":",
        "@",
        "[",
        "]",
        "::1",
        "/",
        "%",
        "%2",
        "%41",
        "h",
        "1",
        "80",
        "?",
        "#",
        " ",
        ".",
    ]
    return ["".join(rng.choice(parts) for _ in range(rng.randint(1, 9))) for _ in range(count)]


def test_url_parse_matches_go(goref) -> None:
    texts = URLS + _random_urls(600)
    mismatches = []
    for text, want in zip(texts, goref("url", texts)):
        try:
            url = parse_url(text)
        except URLError as exc:
            mine = {"error": str(exc)}
        else:
            if url is None:
                # no //authority: Go parses an opaque or relative URL, which we never connect to
                if want["error"] is None and want["host"] == "":
                    continue
                mine = {"error": "no authority"}
            else:
                mine = {"scheme": url.scheme, "host": url.host, "port": url.port, "path": url.path, "error": None}
        theirs = {"error": want["error"]} if want["error"] is not None else want
        if str(mine.get("error")).startswith("invalid host: ") and str(theirs.get("error")).startswith(
            "invalid host: "
        ):
            continue  # netip.ParseAddr's reasons are not reproduced, only that the address is refused
        if mine != theirs:
            mismatches.append((text, theirs, mine))
    assert mismatches == []


def test_durations_print_as_go_prints_them(goref) -> None:
    rng = random.Random(5)
    values = [0, 1, 999, 1000, 1500, 999_999, 1_000_000, 2_500_000, 10**9, 59 * 10**9, 60 * 10**9, 3725 * 10**9]
    values += [90 * 60 * 10**9 + 1, 2 * 3600 * 10**9 + 500_000_000, 48 * 3600 * 10**9, 400 * 86400 * 10**9]
    values += [-1, -1500, -(10**9) - 1, -2 * 10**9, 2**63 - 1, -(2**63)]
    values += [rng.randrange(-(10**16), 10**16) for _ in range(300)] + [rng.randrange(0, 10**12) for _ in range(300)]
    answers = goref("duration-string", [str(value) for value in values])
    mismatches = [
        (value, want, duration_string(value), human_duration(value / 10**9))
        for value, want in zip(values, answers)
        if (duration_string(value), human_duration(value / 10**9)) != (want["string"], want["human"])
    ]
    assert mismatches == []


def test_base64_error_offsets_match_go(goref) -> None:
    rng = random.Random(14)
    texts = ["", "eA==", "eA=", "eA", "e\r\nA==", "eA==eA==", "eA=\n=", "====", "e===", " eA==", "eA==\n\n"]
    texts += ["".join(rng.choice("eAB+/=\n\r -_") for _ in range(rng.randint(0, 10))) for _ in range(800)]
    mismatches = []
    for text, want in zip(texts, goref("base64", texts)):
        offset = corrupt_input_offset(text)
        mine = None if offset is None else f"illegal base64 data at input byte {offset}"
        if mine != want["error"]:
            mismatches.append((text, want["error"], mine))
    assert mismatches == []


def _gzip_bodies(count: int) -> list[bytes]:
    """Gzip bodies as a server might send them, and broken: members with every header field (extra, a name up to
    and past Go's 512 bytes, a comment, a header CRC, right or wrong; reserved flags), one or two of them, then bits
    flipped, the body cut short or garbage after it."""
    rng = random.Random(7)

    def member(data: bytes) -> bytes:
        flags = rng.choice([0, 0, 4, 8, 16, 2, 8 | 16 | 2, 4 | 8 | 2, 0x20])
        deflate = zlib.compressobj(rng.choice([0, 1, 6, 9]), zlib.DEFLATED, -15)
        head = bytearray(b"\x1f\x8b\x08" + bytes([flags]) + b"\0\0\0\0\0\xff")
        if flags & 4:
            extra = bytes(rng.randrange(256) for _ in range(rng.randint(0, 20)))
            head += struct.pack("<H", len(extra)) + extra
        if flags & 8:
            head += bytes(rng.choice(b"abc\xe9") for _ in range(rng.choice([0, 5, 510, 511, 600]))) + b"\0"
        if flags & 16:
            head += b"comment\0"
        if flags & 2:
            head += struct.pack("<H", zlib.crc32(head) & 0xFFFF if rng.random() < 0.8 else 7)
        trailer = struct.pack("<II", zlib.crc32(data), len(data))
        return bytes(head) + deflate.compress(data) + deflate.flush() + trailer

    bodies = [b"", b"\x1f", b"\x1f\x8b\x08\0\0\0\0\0\0", b"garbage here"]
    for _ in range(count):
        data = bytes(rng.choice(b'{"abc":123,}[]xyz ') for _ in range(rng.choice([0, 10, 3000, 70000])))
        body = bytearray(b"".join(member(data) for _ in range(rng.choice([1, 1, 2]))))
        fault = rng.random()
        if fault < 0.3:
            for _ in range(rng.randint(1, 3)):
                body[rng.randrange(len(body))] ^= 1 << rng.randrange(8)
        elif fault < 0.45:
            body = body[: rng.randrange(len(body) + 1)]
        elif fault < 0.5:
            body += bytes(rng.randrange(256) for _ in range(rng.randint(1, 12)))
        bodies.append(bytes(body))
    return bodies


def test_gunzip_reads_and_refuses_as_go_s_gzip_reader(goref) -> None:
    bodies = _gzip_bodies(400)
    rng = random.Random(8)
    answers = goref("gunzip", [base64.b64encode(body).decode() for body in bodies])
    mismatches = []
    for body, want in zip(bodies, answers):
        size = rng.choice([1, 7, 100, 16384])  # the pieces a socket may hand over
        try:
            data = b"".join(gunzip([body[i : i + size] for i in range(0, len(body), size)], 1 << 30))
            mine = {"value": base64.b64encode(data).decode(), "error": None}
        except GzipError as exc:
            mine = {"value": None, "error": str(exc)}
        if mine != want:
            mismatches.append((body[:20], want["error"], mine["error"]))
    assert mismatches == []
    # the generated bodies reach every answer Go gives
    errors = {str(want["error"]).split(" before")[0] for want in answers}
    assert errors == {
        "None",
        "gzip: invalid header",
        "gzip: invalid checksum",
        "unexpected EOF",
        "flate: corrupt input",
    }
