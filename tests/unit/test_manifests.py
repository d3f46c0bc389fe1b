"""The one manifest reader of every ``-f`` (usecases/manifests.py over golang/yamltojson.py): documents, JSON,
``*List`` flattening, and YAML 1.1 read as kubectl reads it (sigs.k8s.io/yaml over go-yaml v2).

The table's expectations were taken from kubectl v1.36.3 (``kubectl label --local -f FILE k=v -o json``, which
decodes ``-f`` with no server); ``test_kubectl_reads_the_corpus_as_we_do`` asks the real kubectl again when the
control plane's kubectl is built.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from kubectl_instancetype.errors import InputError
from kubectl_instancetype.golang.strconv import go_parse_int_or_uint
from kubectl_instancetype.golang.yamltojson import resolve_plain
from kubectl_instancetype.usecases.manifests import parse_manifests, read_manifests
from tests.conftest import run_cli

HEAD = "apiVersion: example.com/v1\nkind: Thing\nmetadata:\n  name: x\n"

# (the lines of spec:, what kubectl makes of spec)
SPEC_VECTORS = [
    ("n: x", {"false": "x"}),
    ("y: x", {"true": "x"}),
    ("on: x", {"true": "x"}),
    ("v: y", {"v": True}),
    ("v: n", {"v": False}),
    ("v: Off", {"v": False}),
    ("v: yes", {"v": True}),
    ('v: "yes"', {"v": "yes"}),
    ("v: !!str on", {"v": "on"}),
    ("v: ~", {"v": None}),
    ("v: NULL", {"v": None}),
    ("v:", {"v": None}),
    ("3: x", {"3": "x"}),
    ("1.5: x", {"1.5": "x"}),
    ("0.1: x", {"0.1": "x"}),
    ("v: 2022-10-01", {"v": "2022-10-01"}),
    ("v: 2022-10-01T10:00:00Z", {"v": "2022-10-01T10:00:00Z"}),
    ("v: 1e3", {"v": 1000}),
    ("v: 2.0", {"v": 2}),
    ("v: 2.5", {"v": 2.5}),
    ("v: .5", {"v": 0.5}),
    ("v: 0777", {"v": 511}),
    ("v: 08", {"v": 8}),
    ("v: 0x1F", {"v": 31}),
    ("v: 0o17", {"v": 15}),
    ("v: 0b101", {"v": 5}),
    ("v: -0b101", {"v": -5}),
    ("v: 1_000", {"v": 1000}),
    ("v: 1:20", {"v": "1:20"}),
    ("v: 99999999999999999999", {"v": 100000000000000000000}),
    # past float64: strconv.ParseFloat's ErrRange, so go-yaml v2 keeps the scalar a string (never +Inf)
    ("v: 1e400", {"v": "1e400"}),
    ("v: -1e400", {"v": "-1e400"}),
    ("v: .5e999", {"v": ".5e999"}),
    ("v: " + "9" * 400, {"v": "9" * 400}),
    ("v: 1e-400", {"v": 0}),
    ("v: 12Gi", {"v": "12Gi"}),
    ("v: [y, n, On]", {"v": [True, False, True]}),
    ("base: &b {a: 1, b: 2}\n  v:\n    <<: *b\n    b: 3", {"base": {"a": 1, "b": 2}, "v": {"a": 1, "b": 3}}),
]


@pytest.mark.parametrize("lines,spec", SPEC_VECTORS)
def test_yaml_1_1_as_kubectl_reads_it(lines: str, spec: dict) -> None:
    (obj,) = parse_manifests(f"{HEAD}spec:\n  {lines}\n")
    assert obj["spec"] == spec


@pytest.mark.parametrize(
    "text,message",
    [
        (
            "a: [1, 2\n",
            "error parsing STDIN: error converting YAML to JSON: yaml: line 1: did not find expected ',' or ']'",
        ),
        (
            HEAD + "\tbad: 1\n",
            "error parsing STDIN: error converting YAML to JSON: yaml: line 5: found a tab character that violates "
            "indentation",
        ),
        (
            "a: b: c\n",
            "error parsing STDIN: error converting YAML to JSON: yaml: mapping values are not allowed in this context",
        ),
        # lines count from the document's own start, as kubectl splits the stream first
        (
            "apiVersion: v1\nkind: A\n---\napiVersion: v1\nkind: B\nmetadata: {name: x\n",
            "error parsing STDIN: error converting YAML to JSON: yaml: line 3: did not find expected ',' or '}'",
        ),
        ('k: "\x01"\n', "error parsing STDIN: error converting YAML to JSON: yaml: control characters are not allowed"),
        (
            HEAD + "spec:\n  v: .nan\n",
            "error parsing STDIN: error converting YAML to JSON: json: unsupported value: NaN (document 1, at spec.v)",
        ),
        (
            "apiVersion: v1\nmetadata: {name: x}\n",
            'unable to decode "STDIN": Object \'Kind\' is missing in \'{"apiVersion":"v1","metadata":{"name":"x"}}\'',
        ),
        ("kind: A\n", 'unable to decode "STDIN": Object \'apiVersion\' is missing in \'{"kind":"A"}\''),
        ("just text\n", 'unable to decode "STDIN": a string ("just text") is not an object with apiVersion and kind'),
        # an anchor whose collection holds an alias of itself (this once looped for ever); kubectl v1.36.3's words
        (
            HEAD + "data:\n  x: &a [*a]\n",
            "error parsing STDIN: error converting YAML to JSON: yaml: anchor 'a' value contains itself",
        ),
        (
            HEAD + "data:\n  q: &z 1\n  a: &x {b: [*z, *x]}\n",
            "error parsing STDIN: error converting YAML to JSON: yaml: anchor 'x' value contains itself",
        ),
    ],
)
def test_errors_in_kubectl_words(text: str, message: str) -> None:
    with pytest.raises(InputError) as info:
        parse_manifests(text)
    assert info.value.message == message


def test_documents_empty_ones_and_separators() -> None:
    text = "---\napiVersion: v1\nkind: A\n---\n# only a comment\n---\napiVersion: v1\nkind: B\n...\n---   \n"
    assert [obj["kind"] for obj in parse_manifests(text)] == ["A", "B"]


def test_a_json_stream_and_nested_lists() -> None:
    text = (
        '{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1", "kind": "List", "items": '
        '[{"apiVersion": "x/v1", "kind": "K"}]}]}\n{"apiVersion": "x/v1", "kind": "L", "n": 1.0}'
    )
    assert parse_manifests(text) == [{"apiVersion": "x/v1", "kind": "K"}, {"apiVersion": "x/v1", "kind": "L", "n": 1.0}]


def test_typed_list_kinds_are_flattened() -> None:
    text = "apiVersion: kubevirt.io/v1\nkind: VirtualMachineList\nitems:\n- apiVersion: kubevirt.io/v1\n  kind: VirtualMachine\n"
    assert [obj["kind"] for obj in parse_manifests(text)] == ["VirtualMachine"]


def test_a_bare_spec_is_read_when_untyped() -> None:
    assert parse_manifests("cpu:\n  guest: 2\n", typed=False) == [{"cpu": {"guest": 2}}]


def test_files_name_themselves_in_errors(tmp_path: Path) -> None:
    path = tmp_path / "vm.yaml"
    path.write_text("a: [1\n")
    with pytest.raises(InputError) as info:
        read_manifests(str(path), None)
    assert info.value.message.startswith(f"error parsing {path}: error converting YAML to JSON: yaml: line 1:")


@pytest.mark.parametrize(
    "text,value",
    [("0", 0), ("-0", 0), ("+7", 7), ("0x", None), ("0_1", 1), ("0_", None), ("9223372036854775807", 2**63 - 1)]
    + [("18446744073709551615", 2**64 - 1), ("18446744073709551616", None), ("-9223372036854775809", None)],
)
def test_integers_as_go_yaml_resolve_reads_them(text: str, value: int | None) -> None:
    # go-yaml v2: ParseInt(text, 0, 64), else ParseUint (base-0 "_" separators are Go's: 0_1 is octal 1)
    assert go_parse_int_or_uint(text) == value


def test_plain_words_are_strings() -> None:
    assert [resolve_plain(text) for text in ("yess", "nO", "Yes", "TRUE", "truE", "-", ".", "+.inf")] == [
        "yess",
        "nO",
        True,
        True,
        "truE",
        "-",
        ".",
        float("inf"),
    ]


def test_expand_reads_an_unquoted_date_annotation(tmp_path: Path) -> None:
    # expand -f once failed with "Object of type date is not JSON serializable" on this
    path = tmp_path / "vm.yaml"
    path.write_text(
        "apiVersion: kubevirt.io/v1\nkind: VirtualMachine\nmetadata:\n  name: vm\n  annotations:\n"
        "    since: 2022-10-01\nspec:\n  template:\n    spec:\n      domain:\n        cpu: {cores: 2}\n"
        "        memory: {guest: 1Gi}\n        devices: {}\n"
    )
    result = run_cli(["expand", "-f", str(path), "-o", "json"])
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["metadata"]["annotations"] == {"since": "2022-10-01"}


# --- the real kubectl, when the control plane's binaries are built ------------------------------------------


@pytest.fixture(scope="module")
def kubectl() -> Path:
    from hack.localcluster import ControlPlaneUnavailable, binaries_dir
    from tests.conftest import go_build_skip_reason

    reason = go_build_skip_reason("kubectl (hack/controlplane/build.sh)")
    if reason:
        pytest.skip(reason)
    try:
        return binaries_dir() / "kubectl"
    except ControlPlaneUnavailable as exc:
        pytest.skip(str(exc))


def test_kubectl_reads_the_corpus_as_we_do(kubectl: Path, tmp_path: Path) -> None:
    corpus = "\n---\n".join(
        f"{HEAD.replace('name: x', f'name: x{index}')}spec:\n  {lines}\n"
        for index, (lines, _) in enumerate(SPEC_VECTORS)
    )
    path = tmp_path / "corpus.yaml"
    path.write_text(corpus)
    done = subprocess.run(
        [str(kubectl), "label", "--local", "-f", str(path), "checked=yes", "-o", "json"],
        capture_output=True,
        text=True,
        timeout=60,
        env={"PATH": "/usr/bin:/bin", "KUBECONFIG": str(tmp_path / "none")},
    )
    assert done.returncode == 0, done.stderr
    decoder, index, theirs = json.JSONDecoder(), 0, []
    while done.stdout[index:].strip():
        obj, index = decoder.raw_decode(done.stdout, len(done.stdout) - len(done.stdout[index:].lstrip()))
        theirs.append(obj["spec"])
    ours = [obj["spec"] for obj in parse_manifests(corpus)]
    assert ours == theirs
