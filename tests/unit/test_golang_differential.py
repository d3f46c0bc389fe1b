"""golang/ against Go itself (hack/virtctl/goref): url.Parse, time.Duration.String, apimachinery's HumanDuration
and base64.StdEncoding's error offsets."""

from __future__ import annotations

import random

import pytest

from kubectl_instancetype.golang.duration import duration_string, human_duration
from kubectl_instancetype.golang.encoding_base64 import corrupt_input_offset
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
